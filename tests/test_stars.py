"""Star expressions of sequences whose length is known when the function is compiled
(jitad/normalize/stars.py), in both modes against finite differences; `*` of an array stays
refused at the user's line."""
import numpy as np
import pytest

import jitad

from .test_correctness import check

rng = np.random.default_rng(41)


def _cell(W, h, x):
    return np.tanh(W @ h + x)


def _three(a, b, c):
    return a * b + c


def stars_everywhere(x, W):
    state = (x, W @ x)                      # a tuple local
    h = _cell(W, *state)                    # a helper's arguments
    shape = (2, 1)                          # a tuple of constants
    Z = np.zeros((*shape, 3)) + x           # a tuple written out
    s = _three(*(np.sum(h), 2.0), np.sum(Z ** 2))
    return s + _three(np.sum(x), *[np.sum(W), 0.5])


def star_of_a_tuple_argument(params, x):
    W, b = params
    return np.sum(_cell(*params, x) ** 2) + np.sum(W) * np.sum(b)


def test_star_expressions_of_known_lengths():
    x, W = rng.normal(size=3), rng.normal(size=(3, 3))
    check(stars_everywhere, (x, W), wrt=(0, 1))


def test_star_of_a_tuple_argument():
    W, b, x = rng.normal(size=(3, 3)), rng.normal(size=3), rng.normal(size=3)
    g = jitad.grad(star_of_a_tuple_argument)((W, b), x)
    ge = jitad.grad(star_of_a_tuple_argument, mode="eager")((W, b), x)
    for a, e in zip(g, ge):
        np.testing.assert_allclose(a, e, rtol=1e-10)
    eps = 1e-6
    d = np.zeros_like(W)
    d[1, 2] = eps
    fd = (star_of_a_tuple_argument((W + d, b), x) - star_of_a_tuple_argument((W - d, b), x)) / (2 * eps)
    assert g[0][1, 2] == pytest.approx(fd, rel=1e-5)


def star_of_an_array(x):
    return max(*x)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_star_of_an_array_is_refused_at_the_line(mode):
    with pytest.raises(jitad.JitadError, match="star expression") as e:
        jitad.grad(star_of_an_array, mode=mode)(np.arange(3.0))
    assert "test_stars.py" in str(e.value) and "max(*x)" in str(e.value)


def _parts(x):
    return x * 2.0, np.sum(x), x[0]


def star_rest_read(x, M):
    first, *rest = _parts(x)                # a helper's tuple: rest a list of its items
    a, *mid, z = (x[0], x[1] * 2.0, x[2], 0.5)      # a tuple written out
    t = (np.sum(x), x[1], x[2] ** 2, 3.0)
    b, *inner, c = t                        # a tuple local: its length known
    r0, *rows = M                           # an array: rest the list of its rows
    *init, last = M
    return (np.sum(first) * rest[0] + sum(rest) * len(rest) + a * sum(mid) * z
            + b * inner[0] * inner[-1] + c + np.sum(r0 * rows[-1]) + len(rows)
            + np.sum(np.array(init) ** 2) * np.sum(last) + _three(*rest, 1.5))


def test_star_target_whose_rest_is_read():
    """`first, *rest = helper(x)`, a star between targets of a tuple of known length, and of
    an array's rows: rest is `list(u[k:-m])` (desugar), against finite differences in both
    modes."""
    x, M = rng.normal(size=3), rng.normal(size=(3, 2))
    check(star_rest_read, (x, M), wrt=(0, 1), backend="python")


def star_between_too_few(x):
    a, *mid, b, c = x
    return a * b * c


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_star_target_with_too_few_items_raises_value_error(mode):
    """Python's ValueError (not an IndexError, not a silent overlap of a and c)."""
    f = jitad.differentiable(star_between_too_few, backend="python") if mode == "compiled" \
        else star_between_too_few
    with pytest.raises(ValueError):
        jitad.grad(f, mode=mode)(np.ones(2))
    assert jitad.grad(f, mode=mode)(np.array([2.0, 3.0, 5.0])).tolist() == [15.0, 10.0, 6.0]
