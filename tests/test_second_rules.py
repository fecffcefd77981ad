"""Rules of the runtime helpers that first- and second-order rules call, so those read again
differentiate: `rt.logcumsumexp_tangent` / `rt.logcumsumexp_adjoint` (np.logaddexp.accumulate's
tangent and adjoint: a Hessian of the running log-sum-exp was refused, "rt.logcumsumexp_tangent
has no derivative rule") and `rt.svd_mix_tangent` (the Hessian of a matrix norm by singular
values along a direction: a third derivative of np.linalg.norm(A, 2) / 'nuc' was refused).
Each helper's adjoints (grad) and tangents (jvp) against central differences, in both modes;
the Hessians and third derivatives they make against central differences of eager mode's
gradient / Hessian (`harness.check_hessian`), compiled (the generated Python; Numba once)."""
import numpy as np
import pytest

import jitad
from jitad import runtime as rt
from jitad.errors import JitadError
from .harness import central_fd, check_hessian
from .test_hessian import assert_close

rng = np.random.default_rng(25)
C3 = rng.normal(size=(3, 4))       # the direction of the third derivatives


def scan_helpers(x, r, d, M, R, D):
    """The two helpers on a vector (axis 0) and on a matrix's rows (axis 1); r and R any
    numbers (the helpers read them as the running log-sum-exp, an operand of their own)."""
    return (np.sum(rt.logcumsumexp_tangent(x, r, d, 0) ** 2 * d)
            + np.sum(np.sin(rt.logcumsumexp_adjoint(x, r, d, 0)) * x)
            + np.sum(rt.logcumsumexp_tangent(M, R, D, 1) * M)
            + np.sum(rt.logcumsumexp_adjoint(M, R, D, 1) ** 2))


def mix_helper(X, D, w):
    """svd_mix_tangent at the 2-norm's and the nuclear norm's weights, and at weights w."""
    w2 = np.zeros(min(X.shape[0], X.shape[1]))
    w2[0] = 1.0
    ones = np.ones(min(X.shape[0], X.shape[1]))
    return (np.sum(rt.svd_mix_tangent(X, w2, D) * D) + np.sum(rt.svd_mix_tangent(X, ones, D) ** 2)
            + np.sum(rt.svd_mix_tangent(X, ones, X) * D) + np.sum(rt.svd_mix_tangent(X, w, D) * X))


def helper_args():
    x, d = rng.normal(size=5), rng.normal(size=5)
    M, D = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    r = rt.logcumsumexp(x, 0) + 0.3 * rng.normal(size=5)
    R = rt.logcumsumexp(M, 1) + 0.3 * rng.normal(size=(3, 4))
    return (x, r, d, M, R, D)


@pytest.mark.parametrize("fn,args", [(scan_helpers, helper_args()),
                                     (mix_helper, (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=3))),
                                     (mix_helper, (rng.normal(size=(3, 5)), rng.normal(size=(3, 5)), rng.normal(size=3)))],
                         ids=["logcumsumexp", "svd_mix_tall", "svd_mix_wide"])
def test_the_rules_of_the_helpers(fn, args):
    """Each helper primitive's adjoints (grad) and tangents (jvp) against finite differences,
    in both modes."""
    wrt = tuple(range(len(args)))
    f = jitad.differentiable(backend="python")(fn)
    g = jitad.grad(f, wrt=wrt)(*args)
    for a, b in zip(g, central_fd(fn, args, wrt)):
        assert_close(a, b, 1e-6, 1e-7, "grad of the helpers vs FD")
    for a, b in zip(jitad.grad(f, wrt=wrt, mode="eager")(*args), g):
        assert_close(a, b, 1e-10, 1e-12, "eager grad of the helpers")
    v = tuple(rng.normal(size=np.shape(a)) for a in args)
    _, t = jitad.jvp(f, wrt=wrt)(*args, tangents=v)
    assert_close(t, sum(np.sum(a * b) for a, b in zip(g, v)), 1e-9, 1e-12, "jvp == grad . v")
    _, te = jitad.jvp(f, wrt=wrt, mode="eager")(*args, tangents=v)
    assert_close(te, t, 1e-10, 1e-12, "eager jvp of the helpers")


def running_logsumexp(x, M):
    y = np.logaddexp.accumulate(x * x - x)
    Y = np.logaddexp.accumulate(M * x[:4], axis=1)
    return np.sum(y * np.arange(1.0, x.shape[0] + 1)) + np.sum(np.sin(Y)) + np.sum(Y[:, -1] ** 2)


def test_hessian_of_the_running_logsumexp():
    check_hessian(running_logsumexp, (rng.normal(size=6), rng.normal(size=(3, 4))), (0, 1))


def test_hessian_of_the_running_logsumexp_compiled_with_numba():
    args = (rng.normal(size=6), rng.normal(size=(3, 4)))
    H = jitad.hessian(running_logsumexp, wrt=0)
    got = H(*args)
    assert H.specialize(*args).compiled_ran
    ref = jitad.hessian(jitad.differentiable(running_logsumexp, backend="python"), wrt=0)(*args)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


def norms(A):
    return np.linalg.norm(A, 2) ** 2 + np.linalg.norm(A, "nuc") + 0.5 * np.linalg.norm(A, -2)


def norms_along(A):
    """The gradient of the norms along C3: its Hessian is their third derivative along C3."""
    return np.sum(jitad.grad(norms)(A) * C3)


def norms_along_tall(A):
    return np.sum(jitad.grad(norms)(A) * C3.T)


@pytest.mark.parametrize("fn,A", [(norms_along, rng.normal(size=(3, 4))),
                                  (norms_along_tall, rng.normal(size=(4, 3)))],
                         ids=["wide", "tall"])
def test_third_derivative_of_the_matrix_norms(fn, A):
    """hessian of (grad of the norms . C3) against central differences of eager mode's
    gradient of it, compiled (Python) and eager."""
    check_hessian(fn, (A,), (0,), rtol=1e-4)


def test_third_derivative_refused_at_tied_singular_values():
    """At tied singular values the third derivative through U and V is not defined by the
    rules: a ValueError at run time, never a number."""
    with pytest.raises((ValueError, JitadError), match="singular values"):
        jitad.hessian(jitad.differentiable(norms_along, backend="python"))(2.0 * np.eye(3, 4))


SCALE_H = 1.0


def cubes(x):
    return SCALE_H * np.sum(x ** 3)


def test_hessian_call_fast_path_follows_shapes_and_globals():
    """A Hessian called again with arguments of the same kinds runs the kernel it ran (no
    specialization on the Python side): another shape of the same rank, and a global the
    function reads changed since, still give the exact Hessian, diag(6 SCALE_H x)."""
    global SCALE_H
    he = jitad.hessian(jitad.differentiable(cubes, backend="python"))
    for x in (np.array([0.5, -1.0, 2.0]), np.array([1.0, 3.0]), rng.normal(size=5)):
        np.testing.assert_allclose(he(x), np.diag(6.0 * SCALE_H * x), rtol=1e-14)
    x = np.array([0.5, -1.0, 2.0])
    try:
        SCALE_H = 2.0
        np.testing.assert_allclose(he(x), np.diag(12.0 * x), rtol=1e-14)
    finally:
        SCALE_H = 1.0
    np.testing.assert_allclose(he(x), np.diag(6.0 * x), rtol=1e-14)


V5 = np.array([0.3, -1.2, 0.5, 2.0, 0.1])


def running_logsumexp_of_a_number(a):
    return np.sum(np.sin(np.logaddexp.accumulate(a * V5 + a * a * V5[::-1])))


def test_third_and_fourth_derivatives_of_the_running_logsumexp():
    """The scan's helper rules close on each other: grad of grad of grad (of grad) against
    central differences of the order below."""
    d2 = jitad.grad(jitad.grad(jitad.differentiable(running_logsumexp_of_a_number,
                                                    backend="python")))
    d3 = jitad.grad(d2)
    d4 = jitad.grad(d3)
    a, h = 0.7, 1e-4
    for hi, lo in ((d3, d2), (d4, d3)):
        fd = (lo(a + h) - lo(a - h)) / (2 * h)
        assert abs(hi(a) - fd) <= 1e-6 * max(1.0, abs(fd)), (hi(a), fd)
