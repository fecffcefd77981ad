"""Held-out corpus #25: NumPy as other projects' test suites exercise it -- autograd's
test_numpy / test_systematic one-liners over many NumPy functions and argument forms
(tensordot and einsum variants, np.linalg.det / slogdet / inv / solve / cholesky / eigh / norm
with ord and axis, np.clip, np.maximum with ties, np.var / np.std with ddof, np.prod with
zeros, np.cumprod, np.diff(n=2), np.roll, np.tile, np.repeat, np.kron, np.trace with an
offset, np.triu / np.tril with k, np.outer, np.cross, np.atleast_2d, np.expand_dims,
np.moveaxis, np.swapaxes, the joins with axis, fancy indexing with repeated indices, boolean
masks, negative steps, Ellipsis), scipy.special (logsumexp with axis / keepdims / b, expit,
gammaln, digamma, erf), and JAX's autodiff-test style (tuple and dict outputs reduced by the
test, closures, nested helpers, while loops) -- and the forms earlier sessions left refused.
Written for this corpus (the forms read from those suites, none of their code copied).

`cases()` holds the scalar functions with their arguments and wrt (their gradients);
`jacobians()` vector functions for jacfwd / jacrev / jvp; `HESSIANS` names cases checked by
hessian / hvp too (tests/test_heldout25.py); `refused_forms()` the forms refused on purpose.

`python -m tests.heldout25_funcs [--backend python] [-v] [names...]` runs each gradient case
through the compiled path and eager mode against central finite differences
(tests/harness.py `triage`)."""
import functools

import numpy as np
from scipy.special import digamma, erf, expit, gammaln, logsumexp

# -- (a) autograd test_numpy / test_systematic style: one NumPy function, several forms -----------


def tensordot_axes_forms(A, B):
    a = np.tensordot(A, B, axes=1)                      # (2,3,4) . (4,3) -> (2,3,3)
    b = np.tensordot(A, B, axes=([2, 1], [0, 1]))       # -> (2,)
    c = np.tensordot(A, A, 3)                           # a number
    d = np.tensordot(B, B, axes=0)                      # outer product (4,3,4,3)
    return np.sum(a ** 2) + np.sum(np.sin(b)) + c + 0.01 * np.sum(d)


def einsum_variants(A, B, v):
    t = np.einsum("ij,jk->ik", A, B)
    tr = np.einsum("ii", A @ B[:, :3] if B.shape[1] >= 3 else A)
    bil = np.einsum("i,ij,j->", v, A, v)
    diag = np.einsum("ii->i", A)
    outer = np.einsum("i,j->ij", v, v)
    return np.sum(t ** 2) + tr + bil + np.sum(diag * v) + np.sum(np.cos(outer))


def einsum_batched(X, Y):
    bm = np.einsum("bij,bjk->bik", X, Y)
    tot = np.einsum("bij->", X * X)
    ell = np.einsum("...ij,...ij->...", X, X)
    return np.sum(np.tanh(bm)) + tot + np.sum(np.sqrt(ell))


def linalg_det_slogdet(A):
    M = A @ A.T + 3.0 * np.eye(A.shape[0])
    sign, logdet = np.linalg.slogdet(M)
    return np.linalg.det(A) ** 2 + sign * logdet + np.log(np.abs(np.linalg.det(M)))


def linalg_inv_solve(A, b):
    M = A @ A.T + np.eye(3)
    x = np.linalg.solve(M, b)
    Minv = np.linalg.inv(M)
    X = np.linalg.solve(M, np.outer(b, b))
    return np.sum(x ** 2) + np.trace(Minv) + np.sum(X) + b @ Minv @ b


def linalg_cholesky_eigh(A):
    S = A @ A.T + 2.0 * np.eye(A.shape[0])
    L = np.linalg.cholesky(S)
    w, V = np.linalg.eigh(S)
    return np.sum(np.log(np.diag(L))) + np.sum(w ** 1.5) + np.sum(V[:, -1] ** 4)


def norm_ord_axis(A, x):
    return (np.linalg.norm(x) + np.linalg.norm(x, ord=1) + np.linalg.norm(x, ord=3)
            + np.linalg.norm(x, np.inf) + np.linalg.norm(A, "fro")
            + np.sum(np.linalg.norm(A, axis=0)) + np.sum(np.linalg.norm(A, ord=1, axis=1))
            + np.linalg.norm(A, ord=1) + np.linalg.norm(A, np.inf)
            + np.sum(np.linalg.norm(A, axis=1, keepdims=True) * A))


def clip_and_ties(x, y):
    c = np.clip(x, -0.5, 0.5) + np.clip(y, a_min=None, a_max=0.3) + x.clip(-1.0, 1.0)
    m = np.maximum(x, y) + np.minimum(x, 0.2) + np.fmax(x, y)
    tie = np.maximum(x, x) + np.minimum(y, y)            # ties with itself: the gradient split evenly
    return np.sum(c * m) + np.sum(tie ** 2)


def var_std_ddof(X):
    return (np.var(X) + np.std(X, ddof=1) + np.sum(np.var(X, axis=0, ddof=1))
            + np.sum(X.std(axis=1, keepdims=True) * X) + np.sum(np.var(X, axis=(0, 1)))
            + X.var(ddof=2))


def prod_with_zeros_axes(x, X):
    z = x * np.array([1.0, 0.0, 1.0, 1.0])               # one zero
    zz = x * np.array([0.0, 1.0, 0.0, 1.0])              # two zeros
    return (np.prod(z) + np.prod(zz) + np.sum(np.prod(X, axis=0)) + np.prod(x)
            + np.sum(np.prod(X, axis=1, keepdims=True)))


def cumprod_diff(x, X):
    return (np.sum(np.cumprod(x)) + np.sum(np.cumprod(X, axis=1) ** 2) + np.sum(np.diff(x, n=2) ** 2)
            + np.sum(np.diff(X, axis=0) * np.diff(X, n=1, axis=0)) + np.sum(np.cumsum(X[::-1], axis=0)))


def roll_tile_repeat(x, X):
    r = np.roll(x, 2) * np.roll(x, -1)
    R = np.roll(X, 1, axis=1) - np.roll(X, shift=(1, 1), axis=(0, 1))
    t = np.tile(x, 2) @ np.tile(x[::-1], (1, 2)).ravel()
    p = np.repeat(x, 2) * np.arange(2 * x.shape[0])
    P = np.repeat(X, 2, axis=0)
    return np.sum(r) + np.sum(R ** 2) + t + np.sum(p) + np.sum(np.sin(P))


def kron_trace_tri(A, B):
    K = np.kron(A, B)
    return (np.sum(K ** 2) + np.trace(A, offset=1) + np.trace(K, offset=-2)
            + np.sum(np.triu(A, k=1) ** 2) + np.sum(np.tril(A, -1) * A) + np.sum(np.triu(K)))


def outer_cross(u, v):
    c = np.cross(u, v)
    C = np.cross(np.outer(u, v), np.outer(v, u))
    return np.sum(c ** 2) + np.sum(np.outer(u, v) * np.outer(v, v)) + np.sum(C)


def shape_helpers(x, X):
    a = np.atleast_2d(x)                                   # (1, n)
    e = np.expand_dims(x, axis=1) * np.expand_dims(x, 0)   # (n, n)
    T = np.arange(24.0).reshape(2, 3, 4) * X[None, :, :]
    m = np.moveaxis(T, 0, -1)                              # (3, 4, 2)
    s = np.swapaxes(T, 0, 2)                               # (4, 3, 2)
    return np.sum(a @ a.T) + np.sum(e ** 2) + np.sum(m[..., 0] * s[:, :, 1].T) + np.sum(np.sin(s))


def joins_with_axis(x, X):
    c0 = np.concatenate([X, X * 2.0], axis=0)
    c1 = np.concatenate((X, x[:, None]), axis=1)
    st = np.stack([x, x ** 2, np.sin(x)], axis=1)
    h = np.hstack([x, x[::-1]])
    v = np.vstack((X, x))
    cn = np.concatenate([X, X], axis=None)
    return (np.sum(c0 ** 2) + np.sum(np.cos(c1)) + np.sum(st[:, 2] * st[:, 0]) + h @ h
            + np.sum(v[-1] * v[0]) + np.sum(cn))


def fancy_repeated_indices(x, X):
    idx = np.array([0, 2, 2, 1, 0, 0])
    g = x[idx]
    G = X[idx[:3], :]
    pairs = X[[0, 1, 1], [2, 0, 0]]
    return np.sum(g ** 2) + np.sum(np.exp(G)) + np.sum(pairs * g[:3])


def boolean_mask_reads(x, X):
    m = x > 0.0
    M = X > 0.1
    return np.sum(x[m] ** 2) + np.sum(X[M]) + np.sum(X[m[:X.shape[0]]] ** 2) + np.sum(x[~m])


def negative_steps_ellipsis(X):
    T = np.stack([X, 2.0 * X], axis=0)
    return (np.sum(X[::-1, ::-2] * X[:, ::2]) + np.sum(T[..., 0] ** 2) + np.sum(T[1, ..., ::-1] * X)
            + np.sum(X[-1:0:-1, 1]) + np.sum(T[..., -1, :] ** 3))


def sort_order_stats(x, X):
    s = np.sort(x)
    S = np.sort(X, axis=0)
    top = np.sort(x)[::-1][:2]
    return np.sum(s * np.arange(x.shape[0])) + np.sum(S[-1] - S[0]) + np.sum(top ** 2) + np.median(x)


# -- (b) scipy.special ----------------------------------------------------------------------------


def special_logsumexp_forms(X, w):
    a = logsumexp(X)
    b = np.sum(logsumexp(X, axis=1))
    c = np.sum(logsumexp(X, axis=0, keepdims=True) * X)
    d = logsumexp(X[0], b=np.abs(w) + 0.1)
    e = np.sum(logsumexp(X, axis=1, b=np.exp(X)))
    return a + b + c + d + e


def special_gamma_family(x):
    return (np.sum(gammaln(x)) + np.sum(digamma(x + 1.0)) + np.sum(erf(x - 1.0))
            + np.sum(expit(x) * expit(-x)))


def dirichlet_logpdf(log_alpha, p):
    alpha = np.exp(log_alpha)
    return gammaln(np.sum(alpha)) - np.sum(gammaln(alpha)) + np.sum((alpha - 1.0) * np.log(p))


def beta_mean_entropy(a, b):
    s = a + b
    ent = (gammaln(a) + gammaln(b) - gammaln(s) - (a - 1) * digamma(a) - (b - 1) * digamma(b)
           + (s - 2) * digamma(s))
    return np.sum(ent) + np.sum(a / s)


def probit_erf_loss(w, X, y):
    z = X @ w
    p = 0.5 * (1.0 + erf(z / np.sqrt(2.0)))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


# -- (c) JAX autodiff-test style: tuple / dict outputs reduced, closures, helpers, while -----------


def _pair_outputs(x):
    return np.sin(x), {"sq": x ** 2, "cube": np.sum(x ** 3)}


def tuple_dict_outputs(x):
    a, d = _pair_outputs(x)
    return np.sum(a) + np.sum(d["sq"]) * d["cube"]  # ERR: a helper's dict result


def closure_over_scale(x, s):
    def f(v):
        return np.sum(np.tanh(s * v))

    def g(v):
        return f(v) * f(2.0 * v)
    return g(x) + f(x) ** 2


def nested_helper_chain(x):
    def inner(a):
        def innermost(b):
            return b * np.exp(-b)
        return innermost(a) + innermost(a ** 2)
    return np.sum(inner(inner(x)))


def while_newton_cuberoot(a):
    x = a
    k = 0
    while k < 30 and np.abs(x ** 3 - a) > 1e-14:
        x = x - (x ** 3 - a) / (3.0 * x ** 2)
        k += 1
    return x * x


def while_vector_power_iteration(A):
    M = A @ A.T
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    it = 0
    while it < 200:
        w = M @ v
        lam_new = v @ w
        v = w / np.linalg.norm(w)
        if np.abs(lam_new - lam) < 1e-15:
            break
        lam = lam_new
        it += 1
    return lam


def scan_like_cumulative(xs, c0):
    def step(c, x):
        c = 0.9 * c + np.sin(x)
        return c, c ** 2
    c = c0
    ys = []
    for x in xs:
        c, y = step(c, x)
        ys.append(y)
    return np.sum(np.array(ys)) + c


def tuple_of_reductions(x):
    stats = (np.mean(x), np.std(x), np.max(x), np.min(x))
    m, s, hi, lo = stats
    return m * s + hi - lo


def dict_comprehension_params(p, x):
    q = {k: np.tanh(v) for k, v in p.items()}
    return np.sum(q["a"] * x) + np.sum(q["b"] ** 2)


def grad_of_polynomial_coeffs(c, x):
    return np.sum(np.polyval(c, x) ** 2) + np.sum(np.vander(x, 3) @ c)


def where_both_branches(x):
    safe = np.where(x > 0.0, x, 1.0)
    return np.sum(np.where(x > 0.0, np.log(safe), x ** 2)) + np.sum(np.where(x < 0.5, 0.0, x))


def ufunc_methods(x, X):
    return (np.add.reduce(x) * np.multiply.reduce(x[:3]) + np.sum(np.add.accumulate(x) ** 2)
            + np.sum(np.maximum.reduce(X, axis=0)) + np.sum(np.multiply.outer(x, x[:2])))


def mean_axis_tuple(T):
    return (np.sum(np.mean(T, axis=(0, 2)) ** 2) + np.sum(np.max(T, axis=(1, 2)))
            + np.sum(np.min(T, axis=-1, keepdims=True) * T) + np.amax(T) - np.amin(T))


def abs_sign_power(x, y):
    return (np.sum(np.abs(x) ** 1.5) + np.sum(np.sign(x) * y ** 2) + np.sum(np.power(np.abs(y) + 1.0, x))
            + np.sum(np.square(x) + np.reciprocal(y + 3.0) + np.cbrt(y + 3.0)))


def hypot_arctan2(x, y):
    return np.sum(np.hypot(x, y)) + np.sum(np.arctan2(y, x)) + np.sum(np.log1p(x ** 2) + np.expm1(y / 4))


def trig_hyper_family(x):
    return np.sum(np.sinh(x) * np.cosh(x) + np.arcsinh(x) + np.arctan(x) + np.arccos(x / 2) + np.tan(x / 2)
                  + np.log10(x + 2.0) + np.log2(x + 2.0) + np.exp2(x))


def dot_vdot_inner_matmul(A, B, v):
    return (np.dot(v, A @ v) + np.vdot(A, B) + np.inner(v, v) + np.sum(np.inner(A, B))
            + np.sum(np.matmul(A, B.T)) + np.sum(v @ A @ B.T @ v))


# -- (d) the forms earlier sessions left refused ---------------------------------------------------


def squeeze_no_axis(x, W):
    h = W @ x[:, None]                 # (2, 1)
    z = np.squeeze(h)  # ERR: squeeze() needs axis=
    return np.sum(z ** 2) + np.squeeze(x[None, :1])


def fstring_layer_keys(p, x):
    h = x
    for i in range(2):
        h = np.tanh(p[f"W{i}"] @ h + p[f"b{i}"])
    return np.sum(h ** 2)


N_LAYERS = 3


def fstring_keys_global_range(p, x):
    h = x
    for i in range(N_LAYERS - 1):
        h = np.sin(p[f"layer_{i}"]["W"] @ h) + p[f"layer_{i!s}"]["b"]
    return np.sum(h ** 2) * i                      # i: the last value, as Python leaves it


def reduce_over_comprehension(w, X):
    preds = [X @ (w * s) for s in (1.0, 2.0, 3.0)]
    return np.sum(functools.reduce(lambda a, p: a + p * p, preds, 0.0))


def nonzero_shorter_mask(x, m):
    return np.sum(x[np.nonzero(m)] ** 2)            # m shorter than x: NumPy takes its indices


def view_of_branch_result(x, flag):
    if flag > 0:
        y = x * 2.0
    else:
        y = x + 1.0
    v = y[1:]
    v[0] = 0.0  # ERR: may alias another array
    return np.sum(y ** 2)


def repeat_counts_rows(X):
    P = np.repeat(X, [1, 2, 1], axis=0)  # ERR: repeats (one constant for every entry)
    return np.sum(np.sin(P))


def tuple_dict_flat(x):
    a, sq, cube = _pair_flat(x)
    return np.sum(a) + np.sum(sq) * cube


def _pair_flat(x):
    return np.sin(x), x ** 2, np.sum(x ** 3)


def fstring_coefficients(a, b):
    coefs = {f"c{k}": float(k + 1) for k in range(3)}
    w = {f"w_{k:02d}": a * (k + 1) for k in range(1, 3)}
    return coefs["c0"] * a + coefs["c2"] * a * b + w["w_01"] * w["w_02"]


def concat_flat_stack(A, B):
    flat = np.concatenate((A, B.T), None)
    return np.sum(flat * np.arange(flat.shape[0])) + np.sum(np.concatenate([A, A], axis=None) ** 2)


def nonzero_named_short(X, keep):
    idx = np.nonzero(keep)
    return np.sum(np.sin(X[idx])) + len(idx[0])


def refused_forms():
    """Refused on purpose, both modes, at the marked line: np.squeeze without axis= (which
    axes have length one is not known when the front end reads it: ranks are fixed from the
    argument types, not their shapes); a helper returning a dict among its results (dicts are
    followed as locals built by displays and as arguments); a write through a view of a new
    array (`v = y[1:]; v[0] = 0.0`: jitad writes only into arrays it sees made, and a view
    made in either branch is no different); np.repeat with one count per row (a constant
    integer only)."""
    x = np.array([0.3, -0.6, 0.9, 0.2])
    return [(squeeze_no_axis, (x[:3], np.ones((2, 3)))),
            (tuple_dict_outputs, (x[:3],)),
            (view_of_branch_result, (x, 1.0)),
            (repeat_counts_rows, (np.ones((3, 2)),))]


def jacobians(seed=2525):
    rng = np.random.default_rng(seed)
    return [(cross_and_outer_vector, (rng.normal(size=3), rng.normal(size=3)), 0),
            (eigh_values, (rng.normal(size=(3, 3)),), 0)]


def cross_and_outer_vector(u, v):
    return np.concatenate([np.cross(u, v), np.outer(u, v)[0], np.cumprod(u)])


def eigh_values(A):
    w, _ = np.linalg.eigh(A + A.T)
    return w


def cases(seed=25):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(3, 4))
    x4 = nrm(size=4)
    x3 = nrm(size=3)
    A3 = nrm(size=(3, 3))
    Xc = nrm(size=(6, 3))
    yc = (Xc @ np.array([0.5, -1.0, 0.3]) > 0).astype(float)
    return [
        (tensordot_axes_forms, (nrm(size=(2, 3, 4)), nrm(size=(4, 3))), (0, 1)),
        (einsum_variants, (A3, nrm(size=(3, 3)), x3), (0, 1, 2)),
        (einsum_batched, (nrm(size=(2, 3, 3)), nrm(size=(2, 3, 2))), (0, 1)),
        (linalg_det_slogdet, (A3,), (0,)),
        (linalg_inv_solve, (A3, x3), (0, 1)),
        (linalg_cholesky_eigh, (A3,), (0,)),
        (norm_ord_axis, (X, x4), (0, 1)),
        (clip_and_ties, (np.array([-0.8, 0.1, 0.4, 0.9]), np.array([0.2, 0.15, -0.3, 0.5])), (0, 1)),
        (var_std_ddof, (X,), (0,)),
        (prod_with_zeros_axes, (x4, X), (0, 1)),
        (cumprod_diff, (x4, X), (0, 1)),
        (roll_tile_repeat, (x4, nrm(size=(3, 4))), (0, 1)),
        (kron_trace_tri, (A3, nrm(size=(2, 2))), (0, 1)),
        (outer_cross, (x3, nrm(size=3)), (0, 1)),
        (shape_helpers, (x3, nrm(size=(3, 4))), (0, 1)),
        (joins_with_axis, (x4, nrm(size=(4, 4))), (0, 1)),
        (fancy_repeated_indices, (x4, X), (0, 1)),
        (boolean_mask_reads, (np.array([0.5, -0.3, 1.2, -0.9]), X), (0, 1)),
        (negative_steps_ellipsis, (nrm(size=(4, 5)),), (0,)),
        (sort_order_stats, (np.array([0.3, -1.2, 2.2, 0.7, -0.1]), X), (0, 1)),
        (special_logsumexp_forms, (X, x4), (0, 1)),
        (special_gamma_family, (np.array([0.7, 1.5, 2.9, 4.2]),), (0,)),
        (dirichlet_logpdf, (0.3 * x4, np.array([0.1, 0.2, 0.3, 0.4])), (0, 1)),
        (beta_mean_entropy, (np.array([0.8, 2.0, 3.5]), np.array([1.5, 0.9, 2.2])), (0, 1)),
        (probit_erf_loss, (0.5 * x3, Xc, yc), (0,)),
        (tuple_dict_flat, (x3,), (0,)),
        (closure_over_scale, (x4, 0.7), (0, 1)),
        (nested_helper_chain, (x3,), (0,)),
        (while_newton_cuberoot, (2.7,), (0,)),
        (while_vector_power_iteration, (A3,), (0,)),
        (scan_like_cumulative, (x4, 0.3), (0, 1)),
        (tuple_of_reductions, (np.array([0.3, -1.2, 2.2, 0.7, -0.1]),), (0,)),
        (dict_comprehension_params, ({"a": x3, "b": nrm(size=2)}, nrm(size=3)), (0, 1)),
        (grad_of_polynomial_coeffs, (x3, nrm(size=4)), (0, 1)),
        (where_both_branches, (np.array([0.6, -0.4, 1.3, 0.2, -1.1]),), (0,)),
        (ufunc_methods, (x4, X), (0, 1)),
        (mean_axis_tuple, (nrm(size=(2, 3, 4)),), (0,)),
        (abs_sign_power, (np.array([0.6, -0.4, 1.3]), np.array([0.2, 0.9, -1.1])), (0, 1)),
        (hypot_arctan2, (np.array([0.6, -0.4, 1.3]), np.array([0.2, 0.9, -1.1])), (0, 1)),
        (trig_hyper_family, (np.array([0.6, -0.4, 1.3, 0.2]),), (0,)),
        (dot_vdot_inner_matmul, (A3, nrm(size=(3, 3)), x3), (0, 1, 2)),
        (fstring_layer_keys, ({"W0": 0.5 * nrm(size=(3, 3)), "b0": 0.1 * x3,
                               "W1": 0.5 * nrm(size=(2, 3)), "b1": 0.1 * nrm(size=2)}, x3), (0, 1)),
        (reduce_over_comprehension, (x3, Xc), (0,)),
        (nonzero_shorter_mask, (nrm(size=5), np.array([1.0, 0.0, 2.0])), (0,)),
        (fstring_coefficients, (0.4, -1.3), (0, 1)),
        (fstring_keys_global_range, ({"layer_0": {"W": 0.5 * nrm(size=(3, 3)), "b": 0.1 * x3},
                                      "layer_1": {"W": 0.5 * nrm(size=(2, 3)), "b": 0.1 * nrm(size=2)}},
                                     x3), (0, 1)),
        (concat_flat_stack, (nrm(size=(2, 3)), nrm(size=(3, 2))), (0, 1)),
        (nonzero_named_short, (X, np.array([[1.0, 0.0], [0.0, 2.0]])), (0,)),
    ]


HESSIANS = ["nonzero_shorter_mask", "joins_with_axis", "reduce_over_comprehension",
            "tensordot_axes_forms", "einsum_variants", "linalg_det_slogdet", "linalg_inv_solve",
            "linalg_cholesky_eigh", "var_std_ddof", "kron_trace_tri", "special_gamma_family",
            "dirichlet_logpdf", "probit_erf_loss", "closure_over_scale", "nested_helper_chain",
            "special_logsumexp_forms", "cumprod_diff"]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
