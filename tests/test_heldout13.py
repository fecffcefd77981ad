"""Held-out corpus #13's findings (tests/heldout13_funcs.py: other projects' AD test suites
rewritten as user functions), fixed in both modes:
  * a tuple assignment with a nested target, `(u, v), w = (x * y, x - y), y` (Tangent's
    tests), crashed in normalize (an AttributeError, not a JitadError): `desugar` makes it the
    flat assignment `u, v, w = x * y, x - y, y` (Python's order); an item paired with a tuple
    target that is no display (`(n, m), s = A.shape, t`, `(a, b), c = helper(x), y`) is
    unpacked after the flat part when it reads no target; a list target (`[a, b] = ...`) is
    the tuple target (the rows of a matrix, `(a, b), (c, d) = X`, stay refused);
  * `np.pad(x, w, mode=)` in the index modes 'edge', 'wrap', 'reflect', 'symmetric' (JAX's
    lax_numpy tests) at ranks 1-3 (was refused: only 'constant'): a gather by `rt.pad_index`,
    its adjoint the scatter-add, its tangent the same gather ('mean' and the other modes
    computing from the values stay refused).
Refused on purpose: functions as values (a tuple of lambdas, a lambda handed to a helper).
Each gradient against central finite differences, compiled (Numba for one of each mechanism,
the generated Python for the rest) and eager, the arguments unchanged; every public API form
on a few corpus functions; the whole corpus once through both modes."""
import numpy as np
import pytest

import jitad

from . import heldout13_funcs as hf
from .harness import (assert_grads_close, assert_unchanged, central_fd, check_form_accepted,
                      check_form_refused, check_grads_both_modes, snapshot)

rng = np.random.default_rng(1313)
nrm = rng.normal


def _py(fn):
    return jitad.differentiable(fn, backend="python")


# -- nested tuple targets ---------------------------------------------------------------------------
def nested_display(a, b):
    (u, v), w = (a * b, a - b), b
    [p, (q, r)] = u, [v, w * a]
    return u * v + w + p * q * r


def nested_shape_and_helper(A, s):
    (n, m), t = A.shape, s * 2.0
    (c, d), e = np.linalg.slogdet(A @ A.T + np.eye(n)), t ** 2
    return c * d + e * m + np.sum(A ** 2) / n


def _two(v):
    return np.sin(v), v ** 2


def nested_helper_result(x, y):
    (a, b), c = _two(x), y
    return np.sum(a * b) + c * np.sum(x)


def nested_repeated_name(a, b):
    (u, v), u = (a, b), a * b      # u assigned twice: Python keeps the last
    return u + 3.0 * v


def nested_from_a_tuple_name(x, y):
    pair = (x * 2.0, x + y)
    (u, v), w = pair, y
    return u * v * w


def nested_rows_of_a_matrix(X):
    (a, b), (c, d) = X  # ERR: nested unpacking is supported for tuple arguments
    return a * d - b * c


ACCEPTED = [
    (nested_display, (0.3, 0.7), (0, 1)),
    (nested_shape_and_helper, (nrm(size=(2, 3)), 0.4), (0, 1)),
    (nested_helper_result, (nrm(size=3), 0.5), (0, 1)),
    (nested_repeated_name, (0.3, 0.7), (0, 1)),
    (nested_from_a_tuple_name, (0.3, 0.7), (0, 1)),
]


@pytest.mark.parametrize("fn,args,wrt", ACCEPTED, ids=[c[0].__name__ for c in ACCEPTED])
def test_nested_targets(fn, args, wrt):
    check_form_accepted(fn, args, wrt, backend="python")


def test_nested_targets_keep_pythons_values():
    assert nested_repeated_name(0.3, 0.7) == 0.3 * 0.7 + 3.0 * 0.7
    v, g = jitad.value_and_grad(_py(nested_repeated_name), wrt=(0, 1))(0.3, 0.7)
    assert v == nested_repeated_name(0.3, 0.7)
    assert np.allclose(g, (0.7, 0.3 + 3.0))


# -- np.pad's index modes ---------------------------------------------------------------------------
def pad_modes_vector(x):
    return (np.sum(np.pad(x, (2, 3), mode="reflect") * np.arange(x.shape[0] + 5.0))
            + np.sum(np.pad(x, 4, "wrap") ** 2)
            + np.sum(np.sin(np.pad(x, (0, 2), mode="symmetric"))))


def pad_edge_tensor(T):
    return np.sum(np.pad(T, ((1, 0), (0, 2), (1, 1)), mode="edge") ** 3)


def pad_reflect_one_entry(x):
    return np.sum(np.pad(x[:1], 3, mode="reflect") * np.pad(x, (3, 0), mode="symmetric")[:7])


def pad_mean(x):
    return np.sum(np.pad(x, 1, mode="mean"))  # ERR: mode='mean' is not supported


def pad_edge_with_values(x):
    return np.sum(np.pad(x, 1, mode="edge", constant_values=1.0))  # ERR: constant_values= is for


@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric"])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_pad_index_is_numpys(mode, n):
    from jitad import runtime as rt
    code = 1 + ["edge", "wrap", "reflect", "symmetric"].index(mode)
    x = nrm(size=n)
    for b in range(0, 8):
        for a in (0, 1, 7):
            assert np.array_equal(rt.padix1(x, ((b, a),), code), np.pad(x, (b, a), mode=mode))
            g = nrm(size=n + b + a)     # the adjoint is the transpose
            assert np.isclose(np.dot(rt.padix1(x, ((b, a),), code), g),
                              np.dot(x, rt.unpadix1(g, ((b, a),), code)))


PAD_ACCEPTED = [
    (pad_modes_vector, (nrm(size=3),), (0,)),
    (pad_edge_tensor, (nrm(size=(2, 2, 3)),), (0,)),
    (pad_reflect_one_entry, (nrm(size=4),), (0,)),
]


@pytest.mark.parametrize("fn,args,wrt", PAD_ACCEPTED, ids=[c[0].__name__ for c in PAD_ACCEPTED])
def test_pad_index_modes(fn, args, wrt):
    check_form_accepted(fn, args, wrt, backend="python")


def test_pad_index_modes_compiled_by_numba():
    check_grads_both_modes(hf.pad_edge_2d, (nrm(size=(2, 3)),), (0,), backend="numba")


REFUSED = [(nested_rows_of_a_matrix, (nrm(size=(2, 2)),)), (pad_mean, (nrm(size=3),)),
           (pad_edge_with_values, (nrm(size=3),))]


@pytest.mark.parametrize("fn,args", REFUSED, ids=lambda c: getattr(c, "__name__", ""))
def test_refused_forms(fn, args):
    check_form_refused(fn, args, __file__)


# -- every public API form on corpus functions -----------------------------------------------------
@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_api_forms_on_the_corpus(mode):
    f = _py(hf.pair_energy) if mode == "compiled" else hf.pair_energy
    x, y = nrm(size=3), nrm(size=3)
    snap = snapshot((x, y))
    fd = central_fd(hf.pair_energy, (x, y), (0, 1), eps=1e-5)
    assert_grads_close((jitad.grad(f, mode=mode)(x, y),), fd[:1], rtol=1e-6, atol=1e-8)
    assert_grads_close((jitad.grad(f, wrt="y", mode=mode)(x, y),), fd[1:], rtol=1e-6, atol=1e-8)
    v, (g0, g1) = jitad.value_and_grad(f, wrt=("x", 1), mode=mode)(x, y)
    assert abs(v - hf.pair_energy(x, y)) <= 1e-12 * (1 + abs(v))
    assert_grads_close((g0, g1), fd, rtol=1e-6, atol=1e-8)
    t = nrm(size=3)
    _, dv = jitad.jvp(f, wrt=0, mode=mode)(x, y, tangents=t)
    assert abs(dv - np.dot(fd[0], t)) <= 1e-6 * (1 + abs(dv))
    H = jitad.hessian(f, wrt=1, mode=mode)(x, y)
    Hfd = np.array([central_fd(lambda b: jitad.grad(hf.pair_energy, wrt=1, mode="eager")(x, b)[k],
                               (y,), (0,), eps=1e-5)[0] for k in range(3)])
    assert np.allclose(H, Hfd, rtol=1e-5, atol=1e-7)
    hv = jitad.hvp(f, wrt=1, mode=mode)(x, y, v=t)
    assert np.allclose(hv, H @ t, rtol=1e-9, atol=1e-12)
    assert_unchanged((x, y), snap, mode)

    g = _py(hf.field_cumulative) if mode == "compiled" else hf.field_cumulative
    x0, w0 = nrm(size=4), nrm(size=4)
    y_, pull = jitad.vjp(g, wrt=(0, 1), mode=mode)(x0, w0)
    assert np.allclose(y_, hf.field_cumulative(x0, w0))
    ct = nrm(size=4)
    px, pw = pull(ct)
    fdv = central_fd(lambda a, b: np.dot(ct, hf.field_cumulative(a, b)), (x0, w0), (0, 1),
                     eps=1e-5)
    assert_grads_close((px, pw), fdv, rtol=1e-6, atol=1e-8)
    Jf = jitad.jacfwd(g, mode=mode)(x0, w0)
    Jr = jitad.jacrev(g, wrt="x", mode=mode)(x0, w0)
    J = np.array([central_fd(lambda a: hf.field_cumulative(a, w0)[k], (x0,), (0,), eps=1e-5)[0]
                  for k in range(4)])
    assert np.allclose(Jf, J, rtol=1e-6, atol=1e-8) and np.allclose(Jr, Jf, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_has_aux_on_the_corpus(mode):
    X, yv, w = nrm(size=(6, 3)), nrm(size=6), nrm(size=3)
    f = _py(hf.fit_with_stats) if mode == "compiled" else hf.fit_with_stats
    (loss, aux), g = jitad.value_and_grad(f, has_aux=True, mode=mode)(w, X, yv)
    ref_loss, ref_aux = hf.fit_with_stats(w, X, yv)
    assert abs(loss - ref_loss) <= 1e-12 and list(aux) == ["median", "r"]
    assert np.allclose(aux["median"], ref_aux["median"]) and np.allclose(aux["r"], ref_aux["r"])
    fd = central_fd(lambda a: hf.fit_with_stats(a, X, yv)[0], (w,), (0,), eps=1e-5)
    assert_grads_close((g,), fd, rtol=1e-6, atol=1e-8)
    g2, aux2 = jitad.grad(f, has_aux=True, mode=mode)(w, X, yv)
    assert np.allclose(g2, g) and np.allclose(aux2["r"], ref_aux["r"])


def test_compiled_kernel_from_njit():
    import numba
    vg = jitad.value_and_grad(hf.tuple_assignments, wrt=(0, 1)).compiled(0.3, 0.7)

    @numba.njit
    def descend(a, b, steps):
        for _ in range(steps):
            _, (ga, gb) = vg(a, b)
            a, b = a - 0.01 * ga, b - 0.01 * gb
        return a, b

    a, b = descend(0.3, 0.7, 3)
    ra, rb = 0.3, 0.7
    for _ in range(3):
        ga, gb = central_fd(hf.tuple_assignments, (ra, rb), (0, 1), eps=1e-6)
        ra, rb = ra - 0.01 * ga, rb - 0.01 * gb
    assert abs(a - ra) < 1e-7 and abs(b - rb) < 1e-7


# -- the corpus, once through both modes -----------------------------------------------------------
CORPUS = hf.suites() + hf.edges() + hf.flow()


@pytest.mark.parametrize("fn,args,wrt", CORPUS, ids=[c[0].__name__ for c in CORPUS])
def test_corpus_both_modes(fn, args, wrt):
    check_grads_both_modes(fn, args, wrt, value_atol=1e-10, backend="python")


def test_refused_forms_of_the_corpus():
    for fn, args in hf.refused_forms():
        check_form_refused(fn, args, hf.__file__)
