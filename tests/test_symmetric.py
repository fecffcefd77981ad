"""Gradients through decompositions that read one triangle of a symmetric matrix argument.

np.linalg.cholesky/eigh/eigvalsh read the lower triangle (SciPy's multivariate normal too;
cho_factor the triangle it writes the factor in): the partial derivatives of the function
NumPy computes are 0 in the other triangle, and an entry of the read one stands for both of
its places. jitad gave the symmetric gradient (autograd's convention), which central
differences of the raw function contradict, and which disagreed with jitad's own jvp along a
direction that is not symmetric (the tangent rules read the lower triangle). Each case:
compiled (python backend; cholesky, slogdet and solve_triangular under Numba too) and eager against central differences,
the compiled path ran, and jvp along a non-symmetric direction equal to grad . v.
"""
import numpy as np
import pytest

import jitad
from tests.harness import check_grads_both_modes
from tests.symmetric_funcs import CASES

IDS = [f.__name__ for f, _ in CASES]


@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_gradient_is_the_partial_derivatives(fn, args):
    check_grads_both_modes(fn, args, (0,))


@pytest.mark.parametrize("fn,args", CASES, ids=IDS)
def test_jvp_along_a_direction_that_is_not_symmetric(fn, args):
    v = np.random.default_rng(2).normal(size=args[0].shape)
    g = jitad.grad(jitad.differentiable(fn, backend="python"), wrt=0)(*args)
    for mode in ("compiled", "eager"):
        kw = {"mode": "eager"} if mode == "eager" else {}
        f = fn if mode == "eager" else jitad.differentiable(fn, backend="python")
        _, t = jitad.jvp(f, wrt=0, **kw)(*args, tangents=v)
        assert abs(t - np.sum(g * v)) <= 1e-9 * (1.0 + abs(t)), (mode, t, np.sum(g * v))


def test_cholesky_compiled_under_numba():
    """cholesky, slogdet and solve_triangular compiled by Numba (test_numpy_forms' matrices,
    which also reads slogdet and cholesky, runs on the python backend)."""
    fn, args = CASES[1]
    assert fn.__name__ == "cholesky_logdet_solve"
    check_grads_both_modes(fn, args, (0,), backend="numba")
