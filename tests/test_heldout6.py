"""Held-out corpus #6's findings (tests/heldout6_funcs.py: 161 functions written from the
README alone), fixed in both modes: each reduced function's compiled gradient against central
finite differences and eager mode, the compiled path ran, the arguments unchanged; and what
jitad rightly refuses, refused at the user's line in both modes."""
import numpy as np
import pytest

import jitad

from . import heldout6_funcs as hf
from .test_correctness import check

rng = np.random.default_rng(66)

CASES = [
    (hf.string_argument, (rng.normal(size=4),), (0,)),
    (hf.builtin_sum_of_arrays, (rng.normal(size=4), rng.normal(size=(2, 3))), (0, 1)),
    (hf.where_one_argument, (rng.normal(size=7),), (0,)),
    (hf.nested_calls_nested, (rng.normal(size=3), 0.7), (0, 1)),
    (hf.nested_helper_chain, (rng.normal(size=4),), (0,)),
    (hf.norms_of_vectors, (rng.normal(size=3), rng.normal(size=(4, 3))), (0, 1)),
    (hf.norms_with_ord, (rng.normal(size=4), rng.normal(size=(2, 3))), (0, 1)),
    (hf.matrix_from_nested_comprehension, (rng.normal(size=3), 0.8), (0, 1)),
    (hf.nested_list_matrix, (rng.normal(size=3),), (0,)),
    (hf.keyword_only_entry, (rng.normal(size=4),), (0,)),
    (hf.module_constants_as_statics, (rng.normal(size=(3, 4)),), (0,)),
    (hf.builtin_pow, (rng.normal(size=3), 1.5), (0, 1)),
    (hf.flatten_and_dot, (rng.normal(size=(2, 3)), rng.normal(size=3)), (0, 1)),
]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_both_modes_match_finite_differences(fn, args, wrt):
    check(fn, args, wrt=wrt)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_string_argument_is_a_constant_per_value(mode):
    """Each string is its own specialization (the branch on it decided); the gradient of the
    other strings is the other branch's."""
    x = np.array([0.5, 2.0, -1.0])
    vg = jitad.value_and_grad(hf.string_argument, mode=mode)
    for reduction in ("mean", "sum", "max"):
        value, g = vg(x, reduction)
        assert value == pytest.approx(hf.string_argument(x, reduction))
        want = {"mean": 2 * (x - 1) / 3, "sum": 2 * (x - 1), "max": np.array([0, 0, -4.0])}
        np.testing.assert_allclose(g, want[reduction], rtol=1e-12)
    with pytest.raises(jitad.JitadError, match="cannot differentiate string_argument with "
                                               "respect to 'reduction': it is 'sum' here"):
        jitad.grad(hf.string_argument, wrt=1, mode=mode)(x, "sum")


REFUSED = [
    (hf.nested_calls_later, (np.ones(2),), "reads 'f', a nested function defined after it"),
    (hf.nested_shadows_closure, (np.ones(2), 0.5),
     "calls 'f', which reads 'w' of the enclosing function, and has a 'w' of its own"),
    (hf.matrix_norm_ord_three, (np.ones((2, 3)),), r"norm\(ord=3\) is not supported"),
]


@pytest.mark.parametrize("mode", ["compiled", "eager"])
@pytest.mark.parametrize("fn,args,match", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_at_the_line_in_both_modes(fn, args, match, mode):
    with pytest.raises(jitad.JitadError, match=match) as e:
        jitad.grad(fn, mode=mode)(*args)
    lines = open(hf.__file__).read().splitlines()
    start = next(i for i, text in enumerate(lines) if f"def {fn.__name__}(" in text)
    line = next(i for i in range(start, len(lines)) if "# ERR" in lines[i]) + 1
    assert f'heldout6_funcs.py", line {line},' in str(e.value)
    assert f"in {fn.__name__}" in str(e.value) and "^" in str(e.value)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_keyword_only_parameters(mode):
    """Keyword-only parameters are bound by name (defaults filled in), differentiable by name."""
    w, X = np.array([0.5, -1.0]), rng.normal(size=(3, 2))
    value, (gw, gl2) = jitad.value_and_grad(hf.keyword_only_loss, wrt=("w", "l2"), mode=mode)(
        w, X, l2=0.5, p=4)
    assert value == pytest.approx(hf.keyword_only_loss(w, X, l2=0.5, p=4), rel=1e-12)
    assert gl2 == pytest.approx(np.sum(np.abs(w) ** 4), rel=1e-12)
    np.testing.assert_allclose(gw, 0.25 * 2 * X.T @ (X @ w) + 0.5 * 4 * w ** 3, rtol=1e-12)
    g_default = jitad.grad(hf.keyword_only_loss, mode=mode)(w, X)
    np.testing.assert_allclose(g_default, 0.25 * 2 * X.T @ (X @ w) + 0.1 * 2 * w, rtol=1e-12)
