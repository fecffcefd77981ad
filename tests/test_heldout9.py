"""Held-out corpus #9's findings (tests/heldout9_funcs.py: NumPy in the forms other projects'
test suites call it, and everyday models), fixed in both modes: each reduced function's
gradient (compiled -- Numba for one of each mechanism, the generated Python for the rest --
against central finite differences, eager mode and, where it computes the same function,
autograd), its forward mode, Hessians against finite differences of the gradient, the
arguments unchanged; and what jitad still refuses, refused at the user's line in both modes."""
import math

import numpy as np
import pytest
import scipy.signal
from scipy.signal import lfilter

import jitad

from . import heldout9_funcs as hf
from .harness import (assert_grads_close, assert_unchanged, autograd_grad, central_fd,
                      check_form_accepted, check_form_refused, check_hessian, snapshot)

rng = np.random.default_rng(99)


# -- np.<ufunc>.outer ---------------------------------------------------------------------------
def ufunc_outer_kernel(x, y, ls):
    # an RBF kernel by pairwise differences, a product table, a max against a number
    K = np.exp(-0.5 * np.subtract.outer(x, y) ** 2 / ls ** 2)
    P = np.multiply.outer(x, y)
    return np.sum(K @ np.ones(y.shape[0])) + np.sum(np.tanh(P)) + np.sum(np.maximum.outer(x, 0.2)) \
        + np.sum(np.add.outer(np.outer(x, y), y) ** 2) * 0.1


def ufunc_outer_broadcast(x, y, ls):
    # the same function written with broadcasting (autograd's reference)
    K = np.exp(-0.5 * (x[:, None] - y[None, :]) ** 2 / ls ** 2)
    P = x[:, None] * y[None, :]
    return np.sum(K @ np.ones(y.shape[0])) + np.sum(np.tanh(P)) + np.sum(np.maximum(x, 0.2)) \
        + np.sum((np.outer(x, y)[:, :, None] + y[None, None, :]) ** 2) * 0.1


# -- np.cumprod(x, axis=k) ------------------------------------------------------------------------
def cumprod_axes(X):
    return np.sum(np.cumprod(X, axis=0) ** 2) + np.sum(X.cumprod(axis=1) * np.arange(4.0)) \
        + np.sum(np.cumprod(X, axis=-1)[:, -1])


# -- divmod and math.fmod -------------------------------------------------------------------------
def divmod_and_fmod(t, period):
    q, r = divmod(t, period)
    s = 0.0
    for k in range(3):
        s += divmod(t * (k + 1.0), period + 0.5)[1] ** 2
    return r * r + q * period + s + math.fmod(t, 0.7) * t


# -- where= of np.sum and np.mean ------------------------------------------------------------------
def sum_mean_where(x):
    M = x.reshape(2, 3)
    return np.sum(x ** 2, where=x > 0) + np.mean(x, where=x < 0.5) \
        + np.sum(np.sum(M, axis=0, where=M > -0.5) ** 2) \
        + np.sum(np.mean(M ** 2, axis=1, keepdims=True, where=np.array([True, False, True]))) \
        + np.sum(np.sum(M, 0) * np.mean(M, 1, keepdims=True))   # an axis by position: no where=


# -- np.delete / np.insert with constant indices -----------------------------------------------------
def delete_insert_constant(x, M):
    a = np.delete(x, 1)
    b = np.insert(x, 2, 0.5)
    c = np.delete(x, [0, -1])
    d = np.insert(x, -1, x[:2] * 3.0)
    e = np.delete(M, 1, axis=0)
    f = np.delete(M, [0, 2], axis=1)
    return np.sum(a ** 2) + np.sum(b * np.arange(6.0)) + np.sum(c ** 3) \
        + np.sum(d * np.arange(7.0)) + np.sum(e ** 2 * np.arange(3.0)) + np.sum(f ** 3)


# -- sorted() ------------------------------------------------------------------------------------------
def sorted_forms(x):
    t = sorted(x)
    s = 0.0
    for v in sorted(x, reverse=True):
        s = s * 0.5 + v
    u = sorted([x[0] * 2.0, x[1], x[2] ** 2])
    return t[0] * t[-1] + s + u[1] + sum(sorted(x)) + len(t)


def sorted_repeated(x):
    return np.sum(sorted(x) * 2)  # ERR: a comprehension is supported


# -- np.block ------------------------------------------------------------------------------------------
def block_forms(A, B, x):
    M = np.block([[A, B], [B.T, np.eye(2)]])
    v = np.block([x, 1.0, x[:1]])
    R = np.block([[x], [x ** 2]])
    return np.sum(M @ M) + np.sum(v ** 2 * np.arange(5.0)) + np.sum(R ** 3)


def block_too_deep(x):
    return np.sum(np.block([[[x]]]))  # ERR: np.block takes one list


# -- scipy.signal.lfilter ------------------------------------------------------------------------------
def lfilter_iir(b, a, x):
    y = lfilter(b, a, x)
    z = scipy.signal.lfilter(b, np.array([1.0]), x ** 2)
    return np.sum(y ** 2) + np.sum(z * np.arange(8.0))


# -- x += e on the user's argument ------------------------------------------------------------------------
def augassign_on_argument(x, y):
    x += y
    x *= 2.0
    x[0] = x[0] ** 2        # a write into the new array x now names
    return np.sum(x ** 2)


def _bump(v, y):
    v += y  # ERR: would update, in place, an array that is an argument
    return np.sum(v)


def augassign_in_a_helper(x, y):
    # the helper's += would change the caller's array a, which the caller reads after it
    a = x * 1.0
    s = _bump(a, y)
    return s + np.sum(a)


def augassign_seen_by_a_view(x, y):
    z = x[1:]
    x += y  # ERR: would also change 'z'
    return np.sum(z)


X34 = rng.uniform(0.5, 1.5, size=(3, 4))
CASES = {
    "outer": (ufunc_outer_kernel, (rng.normal(size=4), rng.normal(size=3), 0.8), (0, 1, 2)),
    "cumprod": (cumprod_axes, (X34,), (0,)),
    "divmod": (divmod_and_fmod, (7.3, 2.1), (0, 1)),
    "where": (sum_mean_where, (rng.normal(size=6),), (0,)),
    "delete": (delete_insert_constant, (rng.normal(size=5), rng.normal(size=(3, 3))), (0, 1)),
    "sorted": (sorted_forms, (np.array([0.3, -1.2, 0.8, 0.1]),), (0,)),
    "block": (block_forms, (rng.normal(size=(2, 2)), rng.normal(size=(2, 2)), rng.normal(size=3)),
              (0, 1, 2)),
    "lfilter": (lfilter_iir, (np.array([0.5, 0.2, -0.1]), np.array([1.2, -0.3]), rng.normal(size=8)),
                (0, 1, 2)),
    "augassign": (augassign_on_argument, (rng.normal(size=3), rng.normal(size=3)), (0, 1)),
}
# one of each mechanism compiled by Numba: a primitive per rank pair (outer), a lane primitive
# (cumprod), a prelude loop (lfilter), the write rules (+=); the rest as generated Python
NUMBA = ("outer", "cumprod", "lfilter", "augassign")


@pytest.mark.parametrize("name", [n for n in CASES if n != "augassign"])
def test_fixed_refusal_matches_finite_differences_and_eager(name):
    fn, args, wrt = CASES[name]
    check_form_accepted(fn, args, wrt, backend="numba" if name in NUMBA else "python")


def _augassign_on_a_copy(x, y):
    # the plain function changes its x: finite differences call it on a copy
    return augassign_on_argument(x.copy(), y)


def test_augassign_on_argument_matches_finite_differences_and_eager():
    fn, args, wrt = CASES["augassign"]
    snap = snapshot(args)
    vg = jitad.value_and_grad(fn, wrt=wrt)
    v, g = vg(*args)
    assert vg.specialize(*args).compiled_ran
    assert_unchanged(args, snap, "compiled")
    assert v == pytest.approx(_augassign_on_a_copy(*args), rel=1e-13)
    assert_grads_close(g, central_fd(_augassign_on_a_copy, args, wrt, eps=1e-4, order=4),
                       rtol=1e-6, atol=1e-8)
    assert_grads_close(g, jitad.grad(fn, wrt=wrt, mode="eager")(*args), rtol=1e-9, atol=1e-12)
    assert_unchanged(args, snap, "eager")


# the corpus's own functions that were refused, as their users wrote them (generated Python)
CORPUS = {fn.__name__: (fn, args, wrt) for fn, args, wrt in hf.suites() + hf.models()}


@pytest.mark.parametrize("name", ["outer_ufunc_subtract", "outer_ufunc_multiply_add",
                                  "rbf_kernel_outer", "gp_nll_outer", "vandermonde_fit",
                                  "cumsum_cumprod_axes", "sort_and_sorted", "sum_where",
                                  "block_matrix", "delete_insert", "divmod_scalar",
                                  "lfilter_first_order",
                                  "scalar_abs_sign_mod", "piecewise_abs"])
def test_corpus_function_accepted(name):
    fn, args, wrt = CORPUS[name]
    check_form_accepted(fn, args, wrt)


def test_outer_agrees_with_autograd():
    """autograd has no ufunc .outer: the same function written with broadcasting."""
    fn, args, wrt = CASES["outer"]
    assert fn(*args) == pytest.approx(ufunc_outer_broadcast(*args), rel=1e-12)
    g = jitad.grad(fn, wrt=wrt)(*args)
    assert_grads_close(g, autograd_grad(ufunc_outer_broadcast, args, wrt), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["block_forms", "sorted_forms"])
def test_agrees_with_autograd(name):
    fn, args, wrt = CASES[name.split("_")[0]]
    g = jitad.grad(jitad.differentiable(fn, backend="python"), wrt=wrt)(*args)
    assert_grads_close(g, autograd_grad(fn, args, wrt), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["outer", "cumprod", "where", "delete", "block", "lfilter",
                                  "augassign"])
def test_hessian_matches_finite_differences_of_grad(name):
    fn, args, wrt = CASES[name]
    args = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    check_hessian(fn, args, wrt[:2], backend="numba" if name == "cumprod" else "python",
                  rtol=1e-5)


@pytest.mark.parametrize("name", ["linspace_arange_meshgrid", "diff_gradient_forms",
                                  "linalg_norms"])
def test_hessian_through_generated_code_read_again(name):
    """Second derivatives read the jvp's code again: np.meshgrid's tangent (rt.mesh), np.gradient's
    (rt.gradient_axis) are primitives of their own there, np.linalg.norm(A, "fro")'s ord is a
    string constant (refused before: no rule for rt.mesh / rt.gradient_axis, `norm(A, fro)`)."""
    fn, args, wrt = CORPUS[name]
    check_hessian(fn, args, wrt[:1], backend="numba" if name == "diff_gradient_forms" else "python")


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_augassign_leaves_the_callers_array_unchanged(mode):
    """x += e on an argument: Python would update the caller's array in place; jitad computes
    the same value into a new array and never changes the caller's (forward, gradient, jvp,
    Hessian alike)."""
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.5, -0.5, 0.1])
    snap = snapshot((x, y))
    expect = augassign_on_argument(x.copy(), y)
    f = jitad.differentiable(augassign_on_argument, backend="python") \
        if mode == "compiled" else augassign_on_argument
    v, _ = jitad.value_and_grad(f, wrt=(0, 1), mode=mode)(x, y)
    assert v == pytest.approx(expect, rel=1e-14)
    jitad.jvp(f, mode=mode)(x, y, tangents=np.ones(3))
    jitad.hessian(f, mode=mode)(x, y)
    if mode == "compiled":
        assert f(x, y) == pytest.approx(expect, rel=1e-14)
    assert_unchanged((x, y), snap, mode)


REFUSED = [
    (hf.squeeze_no_axis, (np.ones((3, 1, 4)),)),
    (hf.ellipsis_index, (np.ones((2, 3, 4)),)),
    (sorted_repeated, (np.ones(3),)),
    (block_too_deep, (np.ones(3),)),
    (augassign_in_a_helper, (np.ones(3), np.ones(3))),
    (augassign_seen_by_a_view, (np.ones(3), np.ones(3))),
]


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_at_the_line_in_both_modes(fn, args):
    import inspect
    target = fn if fn is not augassign_in_a_helper else _bump
    check_form_refused_at(target, fn, args, inspect.getsourcefile(fn))


def check_form_refused_at(marked, fn, args, filename):
    """`fn` refused in both modes at the line `marked` (fn itself or its helper) marks."""
    if marked is fn:
        return check_form_refused(fn, args, filename)
    from .harness import error_marker
    line, expected = error_marker(marked)
    for mode in ("compiled", "eager"):
        with pytest.raises(jitad.JitadError, match=expected.replace("+", r"\+")) as e:
            jitad.grad(fn, mode=mode)(*args)
        assert e.value.loc.filename == filename and e.value.loc.line == line
