"""Standard test objectives (tests/objectives_funcs.py): the compiled gradient against central
finite differences and eager mode, the compiled path ran, the arguments unchanged; the Hessian
against finite differences of the gradient. And products of an int or bool array with a float
one (`np.arange(1, n + 1) @ x`, NumPy's float product), refused before.

Compiling every objective takes minutes of Numba time: the default run compiles `DEFAULT`;
``JITAD_OBJECTIVES_FULL=1`` compiles them all.
"""
import os

import numpy as np
import pytest

import jitad

from . import objectives_funcs as ob
from .test_correctness import check

FULL = os.environ.get("JITAD_OBJECTIVES_FULL", "") not in ("", "0")
CASES = ob.corpus()
# one of each kind: elementwise reductions, a loop with min(), a nested loop of powers, a
# data fit with a branch per residual, an int vector times the argument
DEFAULT = {"ackley", "bard", "watson", "nonlinear_least_squares_loop", "variably_dimensioned"}
HESSIANS = {"variably_dimensioned", "bard"}


def _params(names=None):
    out = []
    for fn, args, wrt in CASES:
        if names is not None and fn.__name__ not in names:
            continue
        marks = () if FULL or fn.__name__ in DEFAULT else pytest.mark.skip(
            reason="compiled with JITAD_OBJECTIVES_FULL=1")
        out.append(pytest.param(fn, args, wrt, id=fn.__name__, marks=marks))
    return out


@pytest.mark.parametrize("fn,args,wrt", _params())
def test_gradient(fn, args, wrt):
    check(fn, args, wrt=wrt, rtol=1e-5, atol=1e-7)


def _hessian_by_differences(fn, args, eps=1e-5):
    grad = jitad.grad(fn, wrt=0)
    x = args[0]
    out = np.zeros((x.size, x.size))
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[:, i] = (grad(up, *args[1:]) - grad(down, *args[1:])) / (2 * eps)
    return out


@pytest.mark.parametrize("fn,args,wrt", _params(HESSIANS if not FULL else None))
def test_hessian(fn, args, wrt):
    H = jitad.hessian(fn, wrt=0)(*args)
    ref = _hessian_by_differences(fn, args)
    np.testing.assert_allclose(H, ref, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(ref).max()))
    np.testing.assert_allclose(H, H.T, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(H).max()))


# -- an int or bool array times a float one -------------------------------------------------------
def int_weights_matvec(x, A):
    return np.sum(np.tanh(A @ x))            # A: int matrix


def int_weights_vecmat(x, A):
    return np.sum((x @ A) ** 2)              # A: int matrix on the right


def int_times_matrix(W, A):
    return np.sum(np.sin(A @ W))             # int matrix times a float one


def bool_mask_dot(x, m):
    return np.dot(m, x * x) + np.dot(x, m)   # m: a bool vector


@pytest.mark.parametrize("n", [3, 40])      # loops below, BLAS above (`runtime.SMALL_MATVEC`)
def test_int_array_times_float_array(n):
    rng = np.random.default_rng(n)
    x = rng.normal(size=n)
    A = rng.integers(-3, 4, size=(n, n))
    W = rng.normal(size=(n, 5))
    check(int_weights_matvec, (x, A), wrt=(0,))
    check(int_weights_vecmat, (x, A), wrt=(0,))
    check(int_times_matrix, (W, A), wrt=(0,))
    check(bool_mask_dot, (x, rng.normal(size=n) > 0), wrt=(0,))


def test_int_array_times_float_array_second_order():
    rng = np.random.default_rng(1)
    x, A = rng.normal(size=4), rng.integers(-3, 4, size=(4, 4))
    H = jitad.hessian(int_weights_vecmat, wrt=0)(x, A)
    np.testing.assert_allclose(H, 2 * A @ A.T, rtol=1e-12, atol=1e-12)
    y, t = jitad.jvp(int_weights_matvec, wrt=0)(x, A, tangents=np.ones(4))
    g = jitad.grad(int_weights_matvec, wrt=0)(x, A)
    assert t == pytest.approx(g.sum(), rel=1e-12)


def int_times_int(x, A, B):
    return np.sum(A @ B) * np.sum(x)


def test_int_times_int_product_still_refused_in_both_modes():
    rng = np.random.default_rng(2)
    args = (rng.normal(size=3), np.ones((3, 3), dtype=np.int64), np.ones((3, 3), dtype=np.int64))
    for mode in ("compiled", "eager"):
        with pytest.raises(jitad.JitadError, match="needs float"):
            jitad.grad(int_times_int, wrt=0, **({"mode": mode} if mode == "eager" else {}))(*args)
