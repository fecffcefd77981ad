"""Writes through a basic index (`A[i] = row`, `T[:3, :3] = R`) are compiled as
`rt.set_view` loops, not as Numba's slice assignment (its error message's string formatting
costs seconds of compile time): the same values as NumPy -- broadcasting, a source that
overlaps the view, casts -- the same gradients, and a mismatch is still an error."""
import numba
import numpy as np
import pytest

import jitad
from jitad import _runtime_jit as rt_jit
from tests.harness import central_fd


def rows(x, w):
    out = np.zeros((3, 4))
    out[0] = x * w
    out[1, :] = np.sin(x)
    out[2, 1:3] = x[:2] ** 2
    out[:, 0:1] = np.ones((3, 1)) * w            # a length-1 axis broadcast along
    out[1:3, 2:4] = out[0:2, 0:2] * 2.0          # reads what it writes next to
    return np.sum(out * out)


def shift(x):
    y = x * 1.0
    y[1:] = y[:-1]                               # the source overlaps the view
    z = np.zeros((2, 3))
    z[:, :] = y[:3]                              # a row broadcast over both rows
    return np.sum(y * x) + np.sum(z * z)


def blocks(theta):
    T = np.eye(4)
    for i in range(2):
        R = np.array([[np.cos(theta[i]), -np.sin(theta[i]), 0.0],
                      [np.sin(theta[i]), np.cos(theta[i]), 0.0],
                      [0.0, 0.0, 1.0]])
        T[:3, :3] = T[:3, :3] @ R
        T[:3, 3] = T[:3, 3] + theta[2:5]
    return np.sum(T * T) + T[0, 3] * T[1, 0]


X = np.array([0.4, -1.3, 0.8, 2.1])
THETA = np.array([0.3, -0.7, 0.2, 0.5, -0.4])


@pytest.mark.parametrize("f, args, wrt", [(rows, (X, 0.7), (0, 1)), (shift, (X,), (0,)),
                                          (blocks, (THETA,), (0,))],
                         ids=["rows", "shift", "blocks"])
def test_view_writes_match_numpy_and_finite_differences(f, args, wrt):
    g = jitad.value_and_grad(f, wrt=wrt)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    value, grads = g(*args)
    assert g.d.last.compiled_ran
    assert "rt.set_view(" in g.d.last.gen.source
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    ref = central_fd(f, args, wrt)
    for got, want in zip(grads, ref):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)
    # the front end reads the jvp again; its Hessian runs on the python backend (what the view
    # writes compile to under Numba is the gradient's, above; a Numba Hessian of `blocks` was
    # ~40 s of compiles). Checked against central differences of the gradient, symmetric.
    ref = jitad.differentiable(f, backend="python")
    H = jitad.hessian(ref, wrt=0)(*args)
    grad = jitad.grad(ref, wrt=0)
    x, h = np.asarray(args[0], dtype=float), 1e-5
    H_fd = np.stack([(grad(x + h * e, *args[1:]) - grad(x - h * e, *args[1:])) / (2 * h)
                     for e in np.eye(x.size)])
    np.testing.assert_allclose(H, H_fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(H, H.T, rtol=1e-7, atol=1e-9)


def test_the_helper_broadcasts_casts_and_copies_like_numpy():
    cases = [((3, 3), (0,), np.ones(3)), ((3, 3), (slice(1, 3), 0), np.arange(2.0)),
             ((3, 4), (slice(None), slice(1, 3)), np.arange(2.0)),
             ((3, 4), (slice(0, 2), slice(None)), np.arange(8.0).reshape(2, 4)),
             ((3, 4), (slice(None), slice(0, 1)), np.array([[5.0]])),
             ((4,), (slice(1, 3),), 2.5), ((2, 2), (slice(None), slice(None)), 7)]
    for shape, idx, src in cases:
        want = np.arange(float(np.prod(shape))).reshape(shape)
        got = want.copy()
        want[idx] = src
        _compiled_set(got, idx, src)
        np.testing.assert_array_equal(got, want)
    ints = np.zeros(3, np.int64)
    _compiled_set(ints, (slice(None),), np.array([1.7, -2.2, 3.9]))
    np.testing.assert_array_equal(ints, np.array([1, -2, 3]))
    x = np.arange(6.0)
    _compiled_set(x, (slice(0, 5),), x[1:])      # overlapping, the other direction
    np.testing.assert_array_equal(x, np.array([1.0, 2.0, 3.0, 4.0, 5.0, 5.0]))
    with pytest.raises(ValueError, match="broadcast"):
        _compiled_set(np.zeros((3, 3)), (0,), np.ones(2))
    with pytest.raises(ValueError, match="broadcast"):
        _compiled_set(np.zeros((3, 3)), (slice(None), slice(None)), np.ones((2, 3)))


@numba.njit
def _setter(view, src):
    rt_jit.set_view(view, src)


def _compiled_set(a, idx, src):
    _setter(a[idx], src)          # a basic index: a view of a, written through


@numba.njit
def _adder(view, g):
    rt_jit.add_into(view, g)


def test_add_into_compiled_is_numpys_inplace_add():
    """rt.add_into from compiled code: float vectors and float matrices are element loops
    (`_runtime_jit._SPECIAL`, the matrices' compiled once for any layout), anything else the
    any-layout helper: NumPy's `+=` in each case -- broadcasting, a source overlapping the view
    (copied first), a mismatch a ValueError."""
    # (the generic helper's signatures before this test: other tests in this process may have
    # compiled it for their arguments; what this test's calls compile is what it checks)
    generic_before = set(rt_jit.add_into.compiled_callee.signatures)
    base = np.arange(24.0).reshape(4, 6)
    cases = [((0,), np.ones(6)), ((slice(None), 2), np.array([1.5])),
             ((slice(1, 3), slice(None, None, 2)), np.arange(6.0).reshape(2, 3)),
             ((slice(None), slice(0, 3)), np.arange(3.0)),                 # a row repeats
             ((slice(None), slice(0, 2)), np.array([[2.0], [3.0], [4.0], [5.0]])),
             ((slice(None), slice(None)), np.ones((1, 1)))]
    for idx, g in cases:
        want, got = base.copy(), base.copy()
        want[idx] += g
        _adder(got[idx], g)
        np.testing.assert_array_equal(got, want)
    for src in (lambda a: a[::-1], lambda a: a.T):   # overlapping the view it is added into
        want, got = base[:4, :4].copy(), base[:4, :4].copy()
        want += src(want).copy()
        _adder(got, src(got))
        np.testing.assert_array_equal(got, want)
    v = np.arange(6.0)
    want = v.copy()
    want[1:] += want[:-1].copy()
    _adder(v[1:], v[:-1])
    np.testing.assert_array_equal(v, want)
    ints, cube = np.zeros((2, 3), np.int64), np.zeros((2, 2, 2))
    _adder(ints, np.ones((2, 3), np.int64))
    _adder(cube, np.ones(2))
    assert ints.sum() == 6 and cube.sum() == 8.0
    for view, g in ((np.zeros((3, 3)), np.ones((2, 3))), (np.zeros(3), np.ones(2))):
        with pytest.raises(ValueError, match="broadcast"):
            _adder(view, g)
    matrix_loop = rt_jit._SPECIAL["add_into"][1][1]
    assert any(all(a.layout == "A" and a.ndim == 2 for a in sig) for sig in matrix_loop.signatures)
    assert not any(all(a.ndim == 2 and a.dtype == numba.float64 for a in sig)
                   for sig in set(rt_jit.add_into.compiled_callee.signatures) - generic_before)
