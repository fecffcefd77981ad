"""Second derivatives of what first derivatives already cover: forms the held-out corpora's
functions reached only in `grad`, found by running `hvp` / `jvp` over every corpus (both
modes, against central differences of the gradient):
  * a primitive whose forward is a composition (`np.linalg.norm(d, axis=-1)` computed as
    `sqrt(sum(d * d))`) is read again as itself, so its rules hold at every order: an n-body
    potential with overwritten zero distances had a nan Hessian (the composition's 0 / 0);
  * such a primitive's statics are given by keyword when read again: `np.std(x, ddof=1)` read
    back as `std(x, 1)` took the 1 for an axis ("axis 1 is out of range");
  * a library call without a rule (`np.nonzero`) is read back from its own call, and a
    runtime helper of a rule's template applied to data only (`rt.log_count(k)` of
    `scipy.stats.poisson.logpmf`) runs as it is: both were refused at second order, and eager
    mode's hvp crashed (AttributeError) on every function after the first such call;
  * recursive helpers: a recursive callee the jvp runs without tangents is its generated
    primal (it counts its depth: `gr0(b0, k - 1, depth + 1)` resolved to the user's
    two-parameter gr0, fuzz seed 896005), and that depth, handed to a library call only
    through the recursive call's result (`math.tanh(gr0(...))`), is a value, not a constant
    to specialize on (each depth made a new specialization until the limit refused it);
  * linear algebra whose tangent called a runtime helper without rules (refused at second
    order): eigh's vectors, qr, svd's parts, read again, have tangents made of their parts'
    products and solves (`tangents.READ_AGAIN`; the first-order jvp keeps its one runtime call,
    and the two agree); pinv's tangent, np.vander's and scipy.linalg.solve_triangular's helpers are
    primitives whose rules close on themselves (any order);
  * np.linalg.det of a stack of matrices (rank 3): its tangent called `rt.trace_stack`, which
    had no rules (a Hessian refused at the call); the trace of each matrix is a primitive
    (`trace_stack.3`) and det.3's adjoint a composition of primitives, so both read again;
  * the matrix norms by singular values (`np.linalg.norm(A, 2)`, `-2`, `'nuc'`): their
    derivative U diag(w) Vh (`rt.svd_mix`, w the weights of the singular values) had no rules,
    a Hessian was refused; it is a primitive whose rules close on `rt.svd_mix_tangent` (the
    Hessian of sum_k w_k s_k: self-adjoint, exact at tied singular values where w is equal
    on them), the weights `rt.svd_ties` a primitive never active;
  * pow's strong zero: its partial in the base times a zero cotangent or tangent is 0 even
    where the partial is inf (`np.abs(x[:, None] - x[None, :]) ** 1.5` had a nan Hessian from
    the diagonal's 0 * inf, and the jvp of `** 0.5` of it was nan).
Each Hessian against central differences of eager mode's gradient, compiled (the generated
Python; Numba for one) and eager (`harness.check_hessian`)."""
import math

import numpy as np
import pytest
import scipy.linalg
import scipy.stats

import jitad

from .harness import check_hessian

rng = np.random.default_rng(15)


def nbody_potential(q, m):
    d = q[:, None, :] - q[None, :, :]
    r = np.linalg.norm(d, axis=-1)
    np.fill_diagonal(r, 1.0)
    return -np.sum(np.triu(np.outer(m, m) / r, 1))


def std_and_var_with_ddof(x):
    return np.std(x, ddof=1) + np.var(x, axis=0, ddof=1).sum() + np.std(x[:3] ** 2, ddof=0)


def weighted_nonzero(x):
    idx = np.nonzero(x > 0.0)[0]
    return np.sum(x[idx] ** 3) + np.sum(np.where(x > 0.0, x, 0.0) ** 2) * len(idx)


def poisson_regression(beta, X, y):
    return -np.sum(scipy.stats.poisson.logpmf(y, np.exp(X @ beta)))


def gr0(a, k):
    if k < 1:
        return a * -0.73
    b0 = math.tanh(np.dot(np.ones(4), np.square(np.ones(4))))
    return math.tanh(gr0(b0, k - 1) * 0.17 + a)


def recursion_on_a_constant(x, n):
    """Seed 896005's shape: the recursive calls take no tangent (b0 is data)."""
    return math.tanh(gr0(math.sin(x[2]), n)) + np.sum(x ** 2)


def rpow(a, k):
    if k == 0:
        return 1.0
    return a * rpow(a, k - 1) + math.sin(a)


def recursion_on_the_input(x, n):
    return rpow(x[0] * x[1], n) + x[2] * rpow(0.5, n)


def even_sum(v, k):
    if k == 0:
        return np.sum(v * v)
    return odd_sum(np.sin(v), k - 1) + even_sum(np.ones(2), 0)


def odd_sum(v, k):
    if k == 0:
        return np.sum(np.cos(v))
    return even_sum(v * 1.1, k - 1) + v[0]


def mutual_recursion(x, n):
    return even_sum(x, n)


def tree_sum(v, k):
    if k <= 0:
        return np.sum(np.exp(v))
    if v[0] > 5.0:
        return 0.0                      # early return
    s = tree_sum(v[1:] * v[0], k - 1) + tree_sum(np.ones(3), k - 1)
    return s + np.sum(v ** 3)


def recursion_on_arrays(x, n):
    return tree_sum(x, n)


RECURSIVE = [
    (recursion_on_a_constant, (rng.normal(size=4), 2), (0,)),
    (recursion_on_the_input, (rng.normal(size=3), 3), (0,)),
    (mutual_recursion, (rng.normal(size=4), 3), (0,)),
    (recursion_on_arrays, (0.5 * rng.normal(size=4), 3), (0,)),
]

A_SYM = rng.normal(size=(4, 4))
A_SYM = A_SYM + A_SYM.T
TALL, WIDE = rng.normal(size=(5, 3)), rng.normal(size=(3, 5))
LOWER = np.tril(rng.normal(size=(4, 4))) + 4.0 * np.eye(4)


def eigh_values(x, A):
    return np.sum(np.linalg.eigh(A + np.diag(x))[0] ** 2)


def eigh_vectors(x, A):
    w, V = np.linalg.eigh(A + np.diag(x))
    return np.sum(V[:, 0] ** 4) + np.sum(w * V[1] ** 2)


def matrix_norms(x, X):
    A = X * x
    return np.linalg.norm(A, 2) ** 2 + np.linalg.norm(A, "nuc") + 0.5 * np.linalg.norm(A, -2)


def low_rank_norms(U, V):
    return np.linalg.norm(U @ V.T, "nuc") + np.linalg.norm(U @ V.T, 2) ** 2


def nuclear_norm(M):
    return np.linalg.norm(M, "nuc") * np.sum(M)


def singular_values(x, X):
    return np.sum(np.linalg.svd(X * x, compute_uv=False) ** 3)


def svd_parts(x, X):
    u, s, vh = np.linalg.svd(X * x, full_matrices=False)
    return np.sum(s ** 3) + np.sum(u[:, 0] ** 4) + np.sum(vh[0] ** 4) + np.sum(u[0] * vh[:, 1])


def qr_parts(x, X):
    q, r = np.linalg.qr(X * x)
    return np.sum(r ** 2 * np.abs(r)) + np.sum(q[:, 0] ** 4)


def pinv_cubed(x, X):
    return np.sum(np.linalg.pinv(X * x) ** 3)


def vander_powers(x):
    return np.sum(np.vander(x, 4) ** 2 * x[0]) + np.sum(np.vander(x, 3, increasing=True) ** 3)


def triangular_solves(x, T, b):
    y = scipy.linalg.solve_triangular(T + np.diag(x), b * x, lower=True)
    z = scipy.linalg.solve_triangular((T + np.diag(x)).T, np.outer(y, x), trans=1, lower=False)
    w = scipy.linalg.solve_triangular(T * x[0], b, lower=True, unit_diagonal=True)
    return np.sum(y ** 3) + np.sum(np.sin(z)) + np.sum(w ** 2)


def spd_stack(x):
    """Three 2x2 symmetric positive definite matrices made of x (a stack, shape (3, 2, 2))."""
    return np.stack([np.eye(2) * 2.0 + np.outer(x[i:i + 2], x[i:i + 2]) for i in range(3)])


def stacked_logdets(x):
    return np.sum(np.log(np.linalg.det(spd_stack(x)))) + np.sum(np.linalg.det(spd_stack(x)) * x[:3])


def stacked_solves_and_inverses(x):
    B = np.stack([np.outer(x[i:i + 2], x[i + 1:i + 3]) for i in range(3)])
    return np.sum(np.linalg.solve(spd_stack(x), B) ** 2) + np.sum(np.linalg.inv(spd_stack(x)) ** 2)


LINALG = [
    (eigh_values, (rng.normal(size=4), A_SYM), (0,)),
    (eigh_vectors, (rng.normal(size=4), A_SYM), (0,)),
    (singular_values, (1.0 + 0.3 * rng.normal(size=3), TALL), (0,)),
    (svd_parts, (1.0 + 0.3 * rng.normal(size=3), TALL), (0,)),
    (svd_parts, (1.0 + 0.3 * rng.normal(size=5), WIDE), (0,)),
    (qr_parts, (1.0 + 0.3 * rng.normal(size=3), TALL), (0,)),
    (pinv_cubed, (1.0 + 0.3 * rng.normal(size=3), TALL), (0,)),
    (pinv_cubed, (1.0 + 0.3 * rng.normal(size=5), WIDE), (0,)),
    (vander_powers, (rng.normal(size=4),), (0,)),
    (triangular_solves, (1.0 + 0.3 * rng.normal(size=4), LOWER, rng.normal(size=4)), (0,)),
    (stacked_logdets, (0.7 * rng.normal(size=5),), (0,)),
    (stacked_solves_and_inverses, (0.7 * rng.normal(size=5),), (0,)),
    (matrix_norms, (1.0 + 0.3 * rng.normal(size=3), TALL), (0,)),
    (matrix_norms, (1.0 + 0.3 * rng.normal(size=5), WIDE), (0,)),
    (nuclear_norm, (TALL,), (0,)),
    (nuclear_norm, (2.0 * np.eye(3),), (0,)),   # tied singular values
    (low_rank_norms, (rng.normal(size=(4, 2)), rng.normal(size=(3, 2))), (0, 1)),  # a zero one
]

CASES = [
    (nbody_potential, (rng.normal(size=(4, 2)), np.array([1.0, 2.0, 0.5, 1.5])), (0, 1)),
    (std_and_var_with_ddof, (rng.normal(size=6),), (0,)),
    (weighted_nonzero, (rng.normal(size=7),), (0,)),
    (poisson_regression, (0.3 * rng.normal(size=3), rng.normal(size=(8, 3)),
                          rng.poisson(2.0, size=8).astype(float)), (0,)),
]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_hessian_matches_finite_differences_in_both_modes(fn, args, wrt):
    check_hessian(fn, args, wrt, backend="python")


def test_eager_hvp_after_a_library_call_without_a_rule():
    """Eager mode's stand-ins for generated code are rebuilt after a primitive is spelled: a
    function without a rule (`np.nonzero`) read again must not break the next eager hvp."""
    x = rng.normal(size=5)
    v = rng.normal(size=5)
    jitad.hvp(jitad.differentiable(weighted_nonzero, backend="python"), wrt=0)(x, v=v)
    hv = jitad.hvp(std_and_var_with_ddof, wrt=0, mode="eager")(x, v=v)
    H = jitad.hessian(jitad.differentiable(std_and_var_with_ddof, backend="python"), wrt=0)(x)
    np.testing.assert_allclose(hv, H @ v, rtol=1e-9, atol=1e-12)


def test_norm_hessian_compiled_with_numba():
    q, m = CASES[0][1]
    H = jitad.hessian(nbody_potential, wrt=0)
    got = H(q, m)
    assert H.specialize(q, m).compiled_ran
    assert np.all(np.isfinite(got))
    ref = jitad.hessian(jitad.differentiable(nbody_potential, backend="python"), wrt=0)(q, m)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn,args,wrt", RECURSIVE, ids=[c[0].__name__ for c in RECURSIVE])
def test_recursive_helpers_at_second_order(fn, args, wrt):
    check_hessian(fn, args, wrt, backend="python")


def scalar_recursion(a, n):
    return rpow(a, n) * gr0(a, n)


def test_grad_of_grad_and_jvp_through_recursion():
    """grad(grad(f)) of a float through recursive helpers (one called on data only), both
    modes, against central differences of eager mode's gradient; jvp against grad . v."""
    a, n, h = 0.37, 3, 1e-5
    g = jitad.grad(scalar_recursion, wrt=0, mode="eager")
    fd = (g(a + h, n) - g(a - h, n)) / (2 * h)
    for mode in ("compiled", "eager"):
        f = jitad.differentiable(scalar_recursion, backend="python") \
            if mode == "compiled" else scalar_recursion
        kw = {} if mode == "compiled" else {"mode": "eager"}
        d2 = jitad.grad(jitad.grad(f, wrt=0, **kw), wrt=0, **kw)(a, n)
        assert abs(d2 - fd) < 1e-6 * max(1.0, abs(fd)), mode
    x, v = RECURSIVE[0][1][0], rng.normal(size=4)
    y, yd = jitad.jvp(jitad.differentiable(recursion_on_a_constant, backend="python"),
                      wrt=0)(x, 2, tangents=v)
    gx = jitad.grad(recursion_on_a_constant, wrt=0, mode="eager")(x, 2)
    assert abs(yd - gx @ v) < 1e-10 * max(1.0, abs(yd))


@pytest.mark.parametrize("fn,args", [RECURSIVE[0][:2], RECURSIVE[2][:2]],
                         ids=["on_a_constant", "mutual"])
def test_recursive_hessian_compiled_with_numba(fn, args):
    H = jitad.hessian(fn, wrt=0)
    got = H(*args)
    assert H.specialize(*args).compiled_ran
    ref = jitad.hessian(jitad.differentiable(fn, backend="python"), wrt=0)(*args)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn,args,wrt", LINALG,
                         ids=[f"{c[0].__name__}-{c[1][-1].shape}" for c in LINALG])
def test_linear_algebra_at_second_order(fn, args, wrt):
    check_hessian(fn, args, wrt, backend="python")


def test_vander_and_triangular_third_derivative():
    """The rules of np.vander's and solve_triangular's helpers close on themselves: a third
    derivative (grad of grad of grad, float argument) against central differences of the
    second."""
    x0, T, b = rng.normal(size=4), LOWER, rng.normal(size=4)

    def f(a):
        return np.sum(np.vander(x0 * a, 4) ** 2) + \
            np.sum(scipy.linalg.solve_triangular(T * a, b * a, lower=True) ** 3)
    d2 = jitad.grad(jitad.grad(jitad.differentiable(f, backend="python")))
    d3 = jitad.grad(d2)
    a, h = 0.8, 1e-5
    fd = (d2(a + h) - d2(a - h)) / (2 * h)
    assert abs(d3(a) - fd) < 1e-5 * max(1.0, abs(fd))


def test_stacked_det_grad_of_grad():
    """det of a stack of matrices at second order both ways: its tangent's trace of each
    matrix (`trace_stack.3`) and its adjoint (the inverses' transposes) are read again as
    primitives -- the Hessian (reverse over the tangent) was refused at `rt.trace_stack`;
    jacfwd(grad) reads the adjoint -- against the Hessian by central differences."""
    fn, (x,), _ = LINALG[-2]
    d = jitad.differentiable(fn, backend="python")
    H = jitad.hessian(d)(x)
    np.testing.assert_allclose(jitad.jacfwd(jitad.grad(d))(x), H, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(jitad.jacrev(jitad.grad(d))(x), H, rtol=1e-8, atol=1e-10)


def test_linear_algebra_hessian_compiled_with_numba():
    fn, args, _ = LINALG[1]
    H = jitad.hessian(fn, wrt=0)
    got = H(*args)
    assert H.specialize(*args).compiled_ran
    ref = jitad.hessian(jitad.differentiable(fn, backend="python"), wrt=0)(*args)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-11)


def pair_distances_pow(x, w):
    d = np.abs(x[:, None] - x[None, :])
    return np.sum(d ** 1.5) + np.sum(np.power(np.abs(x), w)) + np.sum(d ** w[0])


def test_pow_strong_zero_hessian():
    """Distinct points: the diagonal terms |x_i - x_i| ** b are constant, their derivatives 0."""
    args = (np.array([0.3, -0.5, 1.1, 0.7]), np.array([1.5, 2.5, 0.7, 1.2]))
    check_hessian(pair_distances_pow, args, (0, 1), backend="python")
    H = jitad.hessian(pair_distances_pow, wrt=(0, 1))
    got = H(*args)
    assert H.specialize(*args).compiled_ran
    ref = jitad.hessian(pair_distances_pow, wrt=(0, 1), mode="eager")(*args)
    for a in range(2):
        for b in range(2):
            np.testing.assert_allclose(got[a][b], ref[a][b], rtol=1e-9, atol=1e-12)


def sqrt_pair_distances(x):
    return np.sum(np.abs(x[:, None] - x[None, :]) ** 0.5)


def test_pow_strong_zero_jvp():
    """First order: the tangent of |0| ** 0.5 along a zero tangent is 0 (was 0 * inf)."""
    x, v, h = np.array([0.3, -0.5, 1.1, 0.7]), np.array([0.2, -1.0, 0.4, 0.9]), 1e-6
    fd = (sqrt_pair_distances(x + h * v) - sqrt_pair_distances(x - h * v)) / (2 * h)
    for mode in ("compiled", "eager"):
        f = jitad.differentiable(sqrt_pair_distances, backend="python") \
            if mode == "compiled" else sqrt_pair_distances
        yd = jitad.jvp(f, wrt=0, mode=mode)(x, tangents=v)[1]
        assert abs(yd - fd) < 1e-6 * abs(fd), mode


@pytest.mark.parametrize("k", [1, 3, 4, 5], ids=["eigh", "svd_tall", "svd_wide", "qr"])
def test_read_again_tangents_agree_with_the_first_order_ones(k):
    """The jvp's runtime helpers (one decomposition each) and the compositions code read again
    uses in their place (`tangents.READ_AGAIN`) are the same derivative."""
    from jitad import higher
    from jitad.types import ty_of_value
    fn, args, _ = LINALG[k]
    v = rng.normal(size=args[0].shape)
    d = jitad.differentiable(fn, backend="python")
    first = jitad.jvp(d, wrt=0)(*args, tangents=v)[1]
    again = higher.tangent_function(d.concrete(args), tuple(map(ty_of_value, args)), (0,))
    assert abs(again(*args, v) - first) < 1e-10 * max(1.0, abs(first))
