"""Held-out corpus #13: other projects' AD test suites rewritten as a jitad user would write the
function under test (written for this corpus from what those suites test, none copied): JAX's
lax_numpy / api tests (scans with an axis, `diff(n=2, axis=)`, `polyval`, `interp` on constant
knots, sort then index, `argmax` as an index, `take` / `take_along_axis`, the linear-algebra
family, `triu`/`tril` with k, `meshgrid`, `outer`/`inner`/`vdot`, `tensordot`, `einsum`, `pad`,
`repeat`/`tile`, `split` + `concatenate`, `var`/`std` with ddof and axis, `median`,
`nan_to_num`, `clip` with array bounds), autograd's test_systematic / test_linalg / test_scipy
(scipy.special and scipy.stats forms), PyTorch gradcheck / OpInfo style edge cases (keepdims,
size-1 axes broadcasting, 0-d arrays, empty loops, negative strides, integer powers, `x**0`,
`0**y`, abs away from 0) and Tangent's tests/functions.py control flow (nested `if` in `while`,
`continue`/`break`, early `return` in a `for`, tuple assignments, augmented assignment through
stepped slices, helpers with default and keyword arguments, closures over constants, lambdas).

`suites()` holds the NumPy / SciPy forms, `edges()` the gradcheck-style edge cases, `flow()`
the control flow; `refused_forms()` what stays refused (functions as values); tests/test_heldout13.py checks the
reduced findings.

`python -m tests.heldout13_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py `triage`)."""
import math

import numpy as np
from scipy.special import digamma, erf, erfc, expit, gammaln, logit, xlogy
from scipy.stats import norm


# -- JAX lax_numpy_test style ----------------------------------------------------------------------
def cumsum_axis0(A):
    return np.sum(np.cumsum(A, axis=0) * A) + np.sum(np.cumsum(A, axis=1)[:, -1] ** 2)


def cumprod_axis1(A):
    return np.sum(np.cumprod(A, axis=1))


def diff_second_order(A):
    return np.sum(np.diff(A, n=2, axis=1) ** 2) + np.sum(np.diff(A, axis=0))


def polyval_coeffs(c, x):
    return np.sum(np.polyval(c, x) ** 2)


def interp_fixed_knots(x):
    xp = np.array([0.0, 0.5, 1.0, 2.0])
    fp = np.array([1.0, -1.0, 0.5, 2.0])
    return np.sum(np.interp(x, xp, fp) * x)


def interp_values_grad(fp):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    x = np.array([0.2, 1.7, 2.4])
    return np.sum(np.interp(x, xp, fp) ** 2)


def sort_then_index(x):
    s = np.sort(x)
    return s[-1] * 2.0 + s[0] - s[1] ** 2


def argmax_as_index(x):
    i = np.argmax(x)
    return x[i] ** 2 + x[(i + 1) % x.shape[0]]


def take_indices(x):
    return np.sum(np.take(x, np.array([0, 2, 2, 4])) ** 2) + np.take(x, 1)


def take_axis1(A):
    return np.sum(np.take(A, np.array([2, 0]), axis=1) ** 3)


def take_along_sorted(A):
    idx = np.argsort(A, axis=1)
    S = np.take_along_axis(A, idx, axis=1)
    return np.sum(S[:, -1] - S[:, 0]) + np.sum(S * np.arange(A.shape[1]))


def solve_inv_det(A, b):
    M = A @ A.T + 2.0 * np.eye(A.shape[0])
    x = np.linalg.solve(M, b)
    return np.sum(x) + np.trace(np.linalg.inv(M)) + np.linalg.det(M)


def slogdet_sign(A):
    sign, logdet = np.linalg.slogdet(A)
    return sign * logdet


def cholesky_logdet(A):
    M = A @ A.T + np.eye(A.shape[0])
    L = np.linalg.cholesky(M)
    return 2.0 * np.sum(np.log(np.diag(L))) + np.sum(L)


def eigh_extremes(A):
    S = A + A.T
    w, V = np.linalg.eigh(S)
    return w[-1] - 0.5 * w[0] + np.sum(V[:, -1] ** 4)


def triu_tril_k(A):
    return np.sum(np.triu(A, k=1) ** 2) + np.sum(np.tril(A, -1) * A) + np.sum(np.triu(A, 2))


def meshgrid_surface(x, y):
    X, Y = np.meshgrid(x, y)
    return np.sum(np.sin(X) * Y ** 2)


def outer_inner_vdot(a, b):
    return np.sum(np.outer(a, b) ** 2) + np.inner(a, b) * np.vdot(a, a)


def tensordot_axes(A, B):
    return np.sum(np.tensordot(A, B, axes=1) ** 2) + np.tensordot(A, A, axes=2)


def tensordot_pairs(T, M):
    return np.sum(np.tensordot(T, M, axes=([1, 2], [0, 1])))


def einsum_forms(A, B, v):
    t = np.einsum("ii", A)
    o = np.einsum("i,j->ij", v, v)
    c = np.einsum("ij,jk,k->i", A, B, v)
    return t + np.sum(o * A) + np.sum(c ** 2) + np.einsum("ij,ji->", A, B)


def pad_constant(x):
    p = np.pad(x, (1, 2))
    return np.sum(p[:-1] * p[1:]) + np.sum(np.pad(x, 1, mode="constant", constant_values=0.5) ** 2)


def pad_edge_2d(A):
    P = np.pad(A, ((1, 0), (0, 1)), mode="edge")
    return np.sum(P ** 2 * np.arange(P.shape[1]))


def repeat_tile(x):
    r = np.repeat(x, 2)
    t = np.tile(x, 3)
    return np.sum(r * np.arange(r.shape[0])) + np.sum(t[1:] * t[:-1])


def repeat_axis(A):
    return np.sum(np.repeat(A, 2, axis=0) * np.tile(A, (2, 1)))


def split_concat(x):
    a, b, c = np.split(x, 3)
    return np.sum(np.concatenate([c, a * b]) ** 2)


def array_split_uneven(x):
    parts = np.array_split(x, 3)
    return np.sum(parts[0]) * np.sum(parts[2] ** 2) + np.prod(parts[1])


def var_std_ddof_axis(A):
    return np.sum(np.var(A, axis=1, ddof=1)) + np.sum(np.std(A, axis=0, ddof=0) ** 3)


def median_odd(x):
    return np.median(x) * np.sum(x)


def median_axis(A):
    return np.sum(np.median(A, axis=0) ** 2)


def percentile_q(x):
    return np.percentile(x, 75.0)


def nan_to_num_log(x):
    return np.sum(np.nan_to_num(np.log(x)) * x)


def clip_arrays_both(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) * x)


def complex_abs(x, y):
    z = x + 1j * y
    return np.sum(np.abs(z * z) + np.real(z * np.conj(z)))


def average_weights(x, w):
    return np.average(x, weights=w) + np.average(x ** 2)


def flip_axis_cummax(x):
    return np.sum(np.flip(x) * np.maximum.accumulate(x))


def logaddexp2_exp2(x):
    return np.sum(np.logaddexp2(x, 0.5 * x) + np.exp2(x) + np.log2(np.abs(x) + 1.0)
                  + np.log10(x ** 2 + 1.0))


def sinc_hypot_expm1(x):
    return np.sum(np.sinc(x) + np.expm1(x) * np.log1p(x ** 2) + np.cbrt(x + 3.0))


def sum_where_kwarg(x):
    return np.sum(x ** 2, where=x > 0.0) + np.max(x, initial=-10.0)


def trace_offset_diagonal(A):
    return np.trace(A, offset=1) + np.sum(np.diagonal(A, -1) ** 2)


def vander_design(x, c):
    V = np.vander(x, 3)
    return np.sum((V @ c) ** 2)


def cross_product(a, b):
    return np.sum(np.cross(a, b) ** 2)


def norm_axis_keepdims(A):
    n = np.linalg.norm(A, axis=1, keepdims=True)
    return np.sum(A / n) + np.linalg.norm(A)


def matrix_power_builtin(A):
    return np.trace(np.linalg.matrix_power(A, 3))


def pinv_lstsq(A, b):
    return np.sum(np.linalg.pinv(A) @ b)


def qr_r_diag(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(R))) + np.sum(Q[:, 0] ** 4)


def svd_values(A):
    s = np.linalg.svd(A, compute_uv=False)
    return s[0] + 0.5 * np.sum(s ** 2)


# -- autograd test_scipy / test_systematic style ---------------------------------------------------
def special_family(x):
    return np.sum(gammaln(x) + digamma(x) * x + erf(x - 1.0) + erfc(0.5 * x))


def logit_expit_roundtrip(p):
    return np.sum(logit(p) ** 2 + expit(3.0 * p) * p)


def xlogy_softplus(x, y):
    return np.sum(xlogy(y, np.logaddexp(0.0, x)))


def norm_logpdf_cdf(x, mu):
    return np.sum(norm.logpdf(x, mu, 2.0) + norm.cdf(x - mu))


def norm_logcdf_sf(x):
    return np.sum(norm.logcdf(x) + norm.sf(x) ** 2)


# -- PyTorch gradcheck / OpInfo style edge cases ---------------------------------------------------
def reduce_keepdims_broadcast(A):
    m = np.mean(A, axis=1, keepdims=True)
    s = np.max(A, axis=0, keepdims=True)
    return np.sum((A - m) * s) + np.sum(np.min(A, axis=1, keepdims=True) ** 2)


def size_one_axes(a, B):
    return np.sum(a * B) + np.sum((a @ B.T) ** 2) + np.sum(a.T * B[0])


def zero_d_array(x):
    a = np.array(2.0)
    b = np.sum(x) * a
    return b ** 2 + np.sum(x * a)


def empty_loop_body(x, n):
    s = np.sum(x)
    for i in range(n):
        s = s * x[i]
    return s


def negative_stride_views(x):
    return np.sum(x[::-2] * x[-1::-2]) + np.sum(x[-2:0:-1] ** 2)


def integer_powers(x):
    return np.sum(x ** 3 - 2 * x ** 2 + x ** -1 + x ** 0)


def zero_pow_positive(y):
    z = np.zeros(3)
    return np.sum(z ** y + y ** 2)


def abs_away_from_zero(x):
    return np.sum(np.abs(x) ** 1.5 + np.sign(x) * x)


def maximum_no_ties(x, y):
    return np.sum(np.maximum(x, y) ** 2 + np.fmax(x, 0.1) - np.minimum(x, y))


def scalar_float_ops(x):
    return float(np.float64(x) * 2.0) + math.fabs(x) + math.copysign(x, -1.0) + math.log2(x + 2.0)


def prod_with_axis(A):
    return np.sum(np.prod(A, axis=1) ** 2)


def mean_of_transpose_view(A):
    return np.mean(A.T[1:] ** 2) + np.sum(A.T @ A)


def broadcast_to_sum(x):
    B = np.broadcast_to(x, (3, x.shape[0]))
    return np.sum(B * np.arange(3.0)[:, None])


def expand_squeeze(x):
    y = np.expand_dims(x, 0)
    z = np.squeeze(y, axis=0)
    return np.sum(y * z) + np.sum(x[np.newaxis, :, np.newaxis] ** 2)


# -- Tangent tests/functions.py style control flow --------------------------------------------------
def nested_if_in_while(x):
    y = x
    i = 0
    while i < 6:
        if y > 1.0:
            if y > 2.0:
                y = y * 0.5
            else:
                y = y - 0.3
        else:
            y = y * 1.7 + 0.1
        i += 1
    return y * x


def continue_break_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            continue
        if x[i] > 2.0:
            break
        s += x[i] * x[i]
    return s


def early_return_in_for(x):
    for i in range(x.shape[0]):
        if x[i] > 0.8:
            return x[i] * i + np.sum(x[:i])
    return np.sum(x ** 2)


def tuple_assignments(a, b):
    x, y = a, b
    for _ in range(4):
        x, y = y, x + 0.5 * y
    (u, v), w = (x * y, x - y), y
    return u + v * w


def stepped_slice_augassign(x):
    y = x.copy()
    y[::2] += 1.0
    y[1::3] *= x[1::3]
    y[::-1] -= 0.1 * x
    return np.sum(y ** 2)


def _poly(v, a=1.0, b=0.0, c=0.0):
    return a * v ** 2 + b * v + c


def keyword_default_helper(x):
    return np.sum(_poly(x) + _poly(x, b=2.0) + _poly(x, c=1.0, a=0.5))


SCALE = 1.5


def closure_over_constant(x):
    k = 0.25

    def inner(v):
        return np.tanh(k * v) * SCALE

    return np.sum(inner(x) ** 2)


def while_nested_for(x):
    total = 0.0
    k = 0
    while k < 3:
        for j in range(x.shape[0]):
            total = total + x[j] * (k + 1) * x[(j + k) % x.shape[0]]
        k += 1
    return total


def if_expression_chain(x):
    y = x * 2.0 if x > 0.0 else -x
    z = y ** 2 if y < 1.0 else math.sqrt(y)
    return z + (y if z > y else x)


def accumulate_rows_augassign(A):
    out = np.zeros(A.shape[1])
    for i in range(A.shape[0]):
        out[:] += A[i] * (i + 1)
        out[1:] *= 0.9
    return np.sum(out ** 2)


def enumerate_zip_loop(a, b):
    s = 0.0
    for i, (u, v) in enumerate(zip(a, b)):
        s += (i + 1) * u * v
    return s


def while_true_break(x):
    y = x
    n = 0
    while True:
        y = math.cos(y) + 0.1 * x
        n += 1
        if n >= 7:
            break
    return y


# -- API forms (used by tests/test_heldout13.py) ---------------------------------------------------
def field_cumulative(x, w):
    return np.cumsum(x * w) + np.diff(np.concatenate([x[:1], x]) ** 2)


def pair_energy(x, y):
    return np.sum(np.outer(x, y) ** 2) + np.sum(np.sort(x) * y) + np.polyval(y, x[0])


def fit_with_stats(w, X, y):
    r = X @ w - y
    return np.mean(r ** 2), {"median": np.median(np.abs(r)), "r": r}


def lambdas_in_a_tuple(x):
    fs = (lambda v: v ** 2, lambda v: np.sin(v))  # ERR: unsupported construct: lambda
    return np.sum(fs[0](x)) + np.sum(fs[1](x) * x)


def _apply_twice(f, v):
    return f(f(v))


def lambda_as_an_argument(x):
    return np.sum(_apply_twice(lambda v: np.sin(v) * 2.0, x))  # ERR: unsupported construct: lambda


def refused_forms():
    """Refused on purpose (each at its marked line, both modes): functions as values (a tuple
    of lambdas, a lambda handed to a helper) -- compiled code calls functions it knows by name;
    a lambda assigned to a name (`sq = lambda v: v * v`) is a nested definition and works."""
    return [(lambdas_in_a_tuple, (np.array([0.3, -0.5, 1.2]),)),
            (lambda_as_an_argument, (np.array([0.3, -0.5, 1.2]),))]


def suites(seed=13):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    P = np.abs(nrm(size=(3, 3))) + np.eye(3)
    return [
        (cumsum_axis0, (nrm(size=(3, 4)),), (0,)),
        (cumprod_axis1, (nrm(size=(3, 4)),), (0,)),
        (diff_second_order, (nrm(size=(3, 5)),), (0,)),
        (polyval_coeffs, (nrm(size=4), nrm(size=5)), (0, 1)),
        (interp_fixed_knots, (np.array([0.1, 0.7, 1.3, 1.9]),), (0,)),
        (interp_values_grad, (nrm(size=4),), (0,)),
        (sort_then_index, (nrm(size=5),), (0,)),
        (argmax_as_index, (nrm(size=5),), (0,)),
        (take_indices, (nrm(size=5),), (0,)),
        (take_axis1, (nrm(size=(2, 3)),), (0,)),
        (take_along_sorted, (nrm(size=(3, 4)),), (0,)),
        (solve_inv_det, (nrm(size=(3, 3)), nrm(size=3)), (0, 1)),
        (slogdet_sign, (nrm(size=(3, 3)),), (0,)),
        (cholesky_logdet, (nrm(size=(3, 3)),), (0,)),
        (eigh_extremes, (nrm(size=(3, 3)),), (0,)),
        (triu_tril_k, (nrm(size=(4, 4)),), (0,)),
        (meshgrid_surface, (nrm(size=3), nrm(size=4)), (0, 1)),
        (outer_inner_vdot, (nrm(size=3), nrm(size=3)), (0, 1)),
        (tensordot_axes, (nrm(size=(2, 3)), nrm(size=(3, 2))), (0, 1)),
        (tensordot_pairs, (nrm(size=(2, 3, 4)), nrm(size=(3, 4))), (0, 1)),
        (einsum_forms, (nrm(size=(3, 3)), nrm(size=(3, 3)), nrm(size=3)), (0, 1, 2)),
        (pad_constant, (nrm(size=4),), (0,)),
        (pad_edge_2d, (nrm(size=(2, 3)),), (0,)),
        (repeat_tile, (nrm(size=3),), (0,)),
        (repeat_axis, (nrm(size=(2, 3)),), (0,)),
        (split_concat, (nrm(size=6),), (0,)),
        (array_split_uneven, (nrm(size=7),), (0,)),
        (var_std_ddof_axis, (nrm(size=(3, 4)),), (0,)),
        (median_odd, (nrm(size=5),), (0,)),
        (median_axis, (nrm(size=(3, 4)),), (0,)),
        (percentile_q, (nrm(size=5),), (0,)),
        (nan_to_num_log, (np.abs(nrm(size=4)) + 0.1,), (0,)),
        (clip_arrays_both, (np.array([-1.0, 0.3, 0.9, 2.5]), np.array([-0.5, 0.0, 1.0, 1.0]),
                            np.array([0.5, 0.6, 1.5, 2.0])), (0, 1, 2)),
        (complex_abs, (nrm(size=3), nrm(size=3)), (0, 1)),
        (average_weights, (nrm(size=4), np.abs(nrm(size=4)) + 0.5), (0, 1)),
        (flip_axis_cummax, (nrm(size=5),), (0,)),
        (logaddexp2_exp2, (nrm(size=4),), (0,)),
        (sinc_hypot_expm1, (nrm(size=4),), (0,)),
        (sum_where_kwarg, (np.array([0.5, -0.3, 1.2, -1.0]),), (0,)),
        (trace_offset_diagonal, (nrm(size=(3, 3)),), (0,)),
        (vander_design, (nrm(size=4), nrm(size=3)), (0, 1)),
        (cross_product, (nrm(size=3), nrm(size=3)), (0, 1)),
        (norm_axis_keepdims, (nrm(size=(3, 2)),), (0,)),
        (matrix_power_builtin, (nrm(size=(3, 3)),), (0,)),
        (pinv_lstsq, (nrm(size=(4, 3)), nrm(size=4)), (0, 1)),
        (qr_r_diag, (nrm(size=(4, 3)),), (0,)),
        (svd_values, (nrm(size=(3, 2)),), (0,)),
        (special_family, (np.array([0.7, 1.5, 3.2]),), (0,)),
        (logit_expit_roundtrip, (np.array([0.2, 0.5, 0.9]),), (0,)),
        (xlogy_softplus, (nrm(size=3), np.abs(nrm(size=3))), (0, 1)),
        (norm_logpdf_cdf, (nrm(size=4), 0.3), (0, 1)),
        (norm_logcdf_sf, (nrm(size=4),), (0,)),
        (slogdet_sign, (P,), (0,)),
    ]


def edges(seed=26):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [
        (reduce_keepdims_broadcast, (nrm(size=(3, 4)),), (0,)),
        (size_one_axes, (nrm(size=(1, 3)), nrm(size=(2, 3))), (0, 1)),
        (zero_d_array, (nrm(size=3),), (0,)),
        (empty_loop_body, (nrm(size=3), 0), (0,)),
        (empty_loop_body, (nrm(size=3), 2), (0,)),
        (negative_stride_views, (nrm(size=6),), (0,)),
        (integer_powers, (np.array([0.5, 1.3, -0.8]),), (0,)),
        (zero_pow_positive, (np.array([0.5, 1.3, 2.0]),), (0,)),
        (abs_away_from_zero, (np.array([0.5, -1.3, 2.0]),), (0,)),
        (maximum_no_ties, (np.array([0.3, -1.0, 2.0]), np.array([0.5, -2.0, 1.2])), (0, 1)),
        (scalar_float_ops, (0.7,), (0,)),
        (prod_with_axis, (nrm(size=(2, 3)),), (0,)),
        (mean_of_transpose_view, (nrm(size=(3, 3)),), (0,)),
        (broadcast_to_sum, (nrm(size=4),), (0,)),
        (expand_squeeze, (nrm(size=3),), (0,)),
    ]


def flow(seed=39):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [
        (nested_if_in_while, (0.4,), (0,)),
        (nested_if_in_while, (2.3,), (0,)),
        (continue_break_loop, (np.array([0.5, -0.2, 1.1, 2.5, 0.3]),), (0,)),
        (early_return_in_for, (np.array([0.1, 0.3, 0.9, 0.2]),), (0,)),
        (early_return_in_for, (np.array([0.1, 0.3, 0.2]),), (0,)),
        (tuple_assignments, (0.3, 0.7), (0, 1)),
        (stepped_slice_augassign, (nrm(size=7),), (0,)),
        (keyword_default_helper, (nrm(size=4),), (0,)),
        (closure_over_constant, (nrm(size=4),), (0,)),
        (while_nested_for, (nrm(size=4),), (0,)),
        (if_expression_chain, (0.3,), (0,)),
        (if_expression_chain, (-1.7,), (0,)),
        (accumulate_rows_augassign, (nrm(size=(3, 4)),), (0,)),
        (enumerate_zip_loop, (nrm(size=4), nrm(size=4)), (0, 1)),
        (while_true_break, (0.6,), (0,)),
    ]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(suites() + edges() + flow(), sys.argv[1:])
