"""Held-out corpus #10: functions in the style of other projects' test suites -- autograd's
test_numpy.py / test_systematic.py / test_linalg.py (one NumPy function at a time, with
axis/keepdims/dtype arguments), JAX's grad and lax_numpy tests, Tangent's scalar control-flow
functions, PyTorch gradcheck-style functional layers, standard AD objectives, random programs
-- written for this corpus (none copied from earlier corpora), plus everyday models by people
who read only the README, written the way people write NumPy. `suites()` holds the first
kind, `models()` the second, `refused_forms()` the ones that stay refused (fixed ones are
reduced in tests/test_heldout10.py).

`python -m tests.heldout10_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py
`triage`); tests/test_heldout10.py checks the reduced findings."""
import math

import numpy as np
from scipy.special import expit, log_softmax, logsumexp, softmax


# -- autograd test_numpy style ------------------------------------------------------------------
def sum_of_abs_keepdims(x):
    return np.sum(np.abs(x).sum(axis=0, keepdims=True) * x)


def mean_axis_tuple(x):
    return np.sum(np.mean(x, axis=(0, 2)) ** 2) + x.mean()


def std_keepdims_ddof(x):
    return np.sum(x.std(axis=1, keepdims=True, ddof=1) * x)


def max_keepdims_broadcast(x):
    return np.sum(np.exp(x - x.max(axis=-1, keepdims=True)))


def amin_amax_mix(x):
    return np.amax(x, axis=0).sum() - np.amin(x, axis=1).sum()


def nanfree_logsumexp_axis(x):
    return np.sum(logsumexp(x, axis=1)) + logsumexp(x)


def cumsum_reverse(x):
    return np.sum(np.cumsum(x[::-1])[::-1] * x)


def diff_twice(x):
    return np.sum(np.diff(x, n=2) ** 2) + np.sum(np.diff(x) ** 2)


def outer_and_kron(x, y):
    return np.sum(np.outer(x, y) ** 2) + np.sum(np.kron(x, y) * np.arange(12.0))


def inner_vdot_tensordot(x, y):
    A = np.outer(x, y)
    return np.inner(x, x) + np.vdot(A, A) + np.sum(np.tensordot(A, A, axes=([1], [1])))


def einsum_forms(A, B):
    return np.einsum("ij,jk->", A, B) + np.einsum("ii", A @ B.T) + np.sum(np.einsum("ij,ij->i", A, A))


def trace_diag_tri(A):
    return np.trace(A) + np.sum(np.diag(A) ** 2) + np.sum(np.triu(A) * np.tril(A.T)) + np.sum(np.diag(np.diag(A)))


def where_both_branches(x):
    return np.sum(np.where(x > 0, x ** 2, np.sin(x)))


def clip_forms(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2) + np.sum(x.clip(min=0.0))


def maximum_minimum_fmax(x, y):
    return np.sum(np.maximum(x, y) * np.minimum(x, 2 * y)) + np.sum(np.fmax(x, 0.1))


def hypot_arctan2(x, y):
    return np.sum(np.hypot(x, y)) + np.sum(np.arctan2(y, x + 3.0))


def logaddexp_forms(x, y):
    return np.sum(np.logaddexp(x, y)) + np.sum(np.logaddexp2(x, y))


def power_forms(x):
    return np.sum(np.power(np.abs(x) + 1, 1.5)) + np.sum(np.square(x)) + np.sum(np.sqrt(x ** 2 + 1))


def log_family(x):
    z = x ** 2 + 0.5
    return np.sum(np.log(z) + np.log2(z) + np.log10(z) + np.log1p(z) + np.expm1(-z))


def trig_family(x):
    return np.sum(np.sin(x) * np.cos(x) + np.tan(0.3 * x) + np.arcsin(0.4 * np.tanh(x))
                  + np.arccos(0.3 * np.tanh(x)) + np.arctan(x))


def hyperbolic_family(x):
    return np.sum(np.sinh(x) + np.cosh(x) + np.tanh(x) + np.arcsinh(x) + np.arctanh(0.5 * np.tanh(x)))


def sinc_and_deg(x):
    return np.sum(np.sinc(x + 0.3)) + np.sum(np.deg2rad(x) ** 2) + np.sum(np.radians(x))


def reciprocal_negative(x):
    return np.sum(np.reciprocal(x ** 2 + 1.0)) - np.sum(np.negative(x) ** 3)


def flatten_ravel(x):
    return np.sum(x.flatten() * np.arange(x.size)) + np.sum(np.ravel(x) ** 2)


def swap_roll(x):
    return np.sum(np.roll(x, 1, axis=1) * x) + np.sum(np.swapaxes(x, 0, 1)[0])


def tile_repeat(x):
    return np.sum(np.tile(x, 2) * np.arange(2 * x.shape[0])) + np.sum(np.repeat(x, 2) ** 2)


def pad_constant(x):
    return np.sum(np.pad(x, 1) * np.arange(x.shape[0] + 2.0))


def sort_take_top(x):
    s = np.sort(x)
    return s[-1] * 2 + s[0] + np.sum(s[-3:])


def full_like_ones_like(x):
    return np.sum(np.full_like(x, 2.0) * x) + np.sum(np.ones_like(x) * x ** 2) + np.sum(np.zeros_like(x) + x)


def atleast_and_concat(x, s):
    return np.sum(np.concatenate([np.atleast_1d(s), x]) ** 2)


def fancy_index_2d(X):
    rows = np.array([0, 2, 1])
    cols = np.array([1, 1, 0])
    return np.sum(X[rows, cols] ** 2) + np.sum(X[rows] * 2) + np.sum(X[:, cols])


def boolean_mask_assign(x):
    y = x.copy()
    y[y < 0] = 0.0
    return np.sum(y ** 2)


def negative_strides(X):
    return np.sum(X[::-1, ::2] ** 2) + np.sum(X[-1, :] * X[0, ::-1])


def newaxis_broadcast(x, y):
    return np.sum((x[:, np.newaxis] - y[np.newaxis, :]) ** 2)


def dtype_zeros_like_input(x):
    out = np.zeros(x.shape[0], dtype=x.dtype)
    for i in range(x.shape[0]):
        out[i] = x[i] * (i + 1)
    return np.sum(out ** 2)


def astype_other_dtype(x, y):
    return np.sum(x.astype(y.dtype) * y)


def squeeze_without_axis(x):
    # (3, 1, 2): which axes have length 1 is not in the types jitad compiles for
    return np.sum(np.squeeze(x) ** 2) + np.sum(x.squeeze() * 2.0)  # ERR: squeeze() needs axis=


def multi_dot_chain(A, B, C):
    return np.sum(np.linalg.multi_dot([A, B, C]))


def linalg_det_slogdet(A):
    sign, logdet = np.linalg.slogdet(A @ A.T + np.eye(3))
    return np.linalg.det(A) + logdet


def linalg_inv_solve(A, b):
    M = A @ A.T + 3 * np.eye(A.shape[0])
    return np.sum(np.linalg.inv(M) @ b) + np.sum(np.linalg.solve(M, b) ** 2)


def linalg_norm_axes(X):
    return np.sum(np.linalg.norm(X, axis=1)) + np.linalg.norm(X) + np.linalg.norm(X[0], ord=1)


def matrix_power_forms(A):
    return np.sum(np.linalg.matrix_power(A, 3))


def cholesky_logdet(A):
    L = np.linalg.cholesky(A @ A.T + np.eye(A.shape[0]))
    return 2 * np.sum(np.log(np.diag(L)))


def eigh_top(A):
    S = A + A.T
    w, V = np.linalg.eigh(S)
    return w[-1] + np.sum(w ** 2)


# -- JAX grad-test style ------------------------------------------------------------------------
def jax_nested_tuple_out(x):
    a, b = jnp_like_split(x)
    return np.sum(a * b)


def jnp_like_split(x):
    return x[:2], x[2:4]


def jax_closure_over_constant(x):
    c = 3.0

    def inner(y):
        return c * np.sin(y)

    return np.sum(inner(x) * inner(2 * x))


def jax_kwargs_helper(x):
    return _scaled_norm(x, scale=2.0) + _scaled_norm(x)


def _scaled_norm(v, scale=1.0):
    return scale * np.sqrt(np.sum(v ** 2))


def jax_dict_params(params, x):
    return np.sum(np.tanh(x @ params["W"] + params["b"]) ** 2)


def jax_list_params(ws, x):
    h = x
    for w in ws:
        h = np.sin(h * w)
    return np.sum(h)


def jax_isinstance_dispatch(x, n):
    if isinstance(n, int):
        x = x * n
    if isinstance(x, np.ndarray):
        return np.sum(x ** 2)
    return x ** 2


def jax_star_list(x):
    parts = [x[0], x[1] ** 2]
    parts = [*parts, x[2] * 3.0]
    return sum(parts) + len(parts)


def jax_math_prod_isclose(x):
    n = math.prod(x.shape)
    s = np.sum(x ** 2) / n
    if math.isclose(s, 0.0):
        return s
    return s + np.sum(x) / n


def jax_reduce_with_initial(x):
    return np.sum(x, initial=1.0) + np.max(x, initial=-10.0)


def jax_where_scalar(x):
    return np.sum(np.where(x > 0.5, 1.0, x) * x)


def jax_polyval(c, x):
    return np.sum(np.polyval(c, x))


def jax_cross(x, y):
    return np.sum(np.cross(x, y) ** 2)


def jax_interp(x):
    xp = np.linspace(0.0, 1.0, 5)
    fp = np.array([0.0, 1.0, 0.5, 2.0, 1.5])
    return np.sum(np.interp(x, xp, fp) * x)


def jax_cumulative_logsumexp(x):
    m = np.maximum.accumulate(x)
    return np.sum(m * x)


# -- Tangent-style scalar control flow ------------------------------------------------------------
def tangent_while_halving(x):
    y = x
    n = 0
    while abs(y) > 0.1:
        y = y / 2.0
        n += 1
    return y * n + x


def tangent_nested_if(x, y):
    if x > 0:
        if y > 0:
            z = x * y
        else:
            z = x - y
    elif y > x:
        z = x ** 2
    else:
        z = -y
    return z * math.exp(x)


def tangent_for_with_break(x):
    acc = 0.0
    for i in range(10):
        acc = acc + math.sin(x * i)
        if acc > 1.5:
            break
    return acc * x


def tangent_continue(x):
    s = 0.0
    for i in range(6):
        if i % 2 == 0:
            continue
        s += x ** i
    return s


def tangent_bool_ops(x, y):
    if x > 0 and y > 0 or x < -1:
        return x * y
    return x + y


def tangent_ternary_chain(x):
    a = x if x > 0 else -x
    b = math.sqrt(a) if a > 1 else a ** 2
    return a * b


def tangent_for_else(x):
    for i in range(4):
        if x * i > 5:
            r = x * i
            break
    else:
        r = -x
    return r ** 2


def tangent_recursion_power(x, n):
    if n == 0:
        return 1.0
    return x * tangent_recursion_power(x, n - 1)


def tangent_aug_ops(x):
    y = x
    y *= 2
    y -= 0.5
    y /= 3.0
    y **= 2
    return y


def tangent_math_functions(x):
    return math.log(x) + math.exp(-x) + math.atan2(x, 2.0) + math.hypot(x, 1.0) + math.erf(x) \
        + math.gamma(x + 1) + math.lgamma(x + 2) + math.copysign(x, -1.0)


# -- PyTorch gradcheck style functional layers ----------------------------------------------------
def linear_layer(x, W, b):
    return np.sum((x @ W.T + b) ** 2)


def conv1d_same(x, k):
    n = x.shape[0]
    xp = np.pad(x, 1)
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.dot(xp[i:i + 3], k)
    return np.sum(out ** 2)


def group_norm(x, g, b):
    N, C = x.shape
    xg = x.reshape(N, 2, C // 2)
    mu = xg.mean(axis=-1, keepdims=True)
    var = xg.var(axis=-1, keepdims=True)
    xn = ((xg - mu) / np.sqrt(var + 1e-5)).reshape(N, C)
    return np.sum((xn * g + b) ** 2)


def dropout_fixed_mask(x):
    mask = (np.arange(x.size).reshape(x.shape) % 3 != 0).astype(float)
    return np.sum((x * mask / 0.67) ** 2)


def elu_selu(x):
    elu = np.where(x > 0, x, np.exp(x) - 1)
    selu = 1.0507 * np.where(x > 0, x, 1.6733 * (np.exp(x) - 1))
    return np.sum(elu * selu)


def softplus_logsigmoid(x):
    return np.sum(np.logaddexp(0, x)) + np.sum(-np.logaddexp(0, -x))


def nll_loss_weighted(logits, target, w):
    lp = log_softmax(logits, axis=1)
    picked = lp[np.arange(logits.shape[0]), target]
    return -np.sum(w[target] * picked) / np.sum(w[target])


def bce_with_logits(z, y):
    return np.mean(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z))))


def margin_ranking(a, b, y):
    return np.mean(np.maximum(0.0, -y * (a - b) + 0.1))


def cosine_embedding(x1, x2):
    num = np.sum(x1 * x2, axis=1)
    den = np.linalg.norm(x1, axis=1) * np.linalg.norm(x2, axis=1)
    return np.mean(1 - num / den)


def triplet_loss(a, p, n):
    dp = np.sqrt(np.sum((a - p) ** 2, axis=1) + 1e-9)
    dn = np.sqrt(np.sum((a - n) ** 2, axis=1) + 1e-9)
    return np.mean(np.maximum(dp - dn + 1.0, 0.0))


# -- standard AD objectives ------------------------------------------------------------------------
def rosenbrock_nd(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def rastrigin(x):
    return 10 * x.shape[0] + np.sum(x ** 2 - 10 * np.cos(2 * np.pi * x))


def ackley(x):
    n = x.size
    return -20 * np.exp(-0.2 * np.sqrt(np.sum(x ** 2) / n)) - np.exp(np.sum(np.cos(2 * np.pi * x)) / n) + 20 + np.e


def beale(x, y):
    return (1.5 - x + x * y) ** 2 + (2.25 - x + x * y ** 2) ** 2 + (2.625 - x + x * y ** 3) ** 2


def styblinski_tang(x):
    return 0.5 * np.sum(x ** 4 - 16 * x ** 2 + 5 * x)


def brownian_bridge_energy(x):
    d = np.diff(np.concatenate(([0.0], x, [0.0])))
    return 0.5 * np.dot(d, d)


# -- random programs --------------------------------------------------------------------------------
def random_prog_1(a, b):
    t = a * b
    for i in range(3):
        if t > 1.0:
            t = math.sqrt(t) + b
        else:
            t = t * 2.0 - a
    return t * math.cos(a)


def random_prog_2(x):
    v = np.zeros(4)
    for k in range(4):
        v[k] = np.sum(x[:k + 1] ** 2)
    return np.prod(v + 1.0) ** 0.25


def random_prog_3(x, y):
    m = np.stack([x, y, x * y])
    z = m.T @ m
    return np.sum(np.tanh(z)) - np.sum(z.diagonal())


def random_prog_4(x):
    acc = []
    for v in x:
        acc.append(v * v if v > 0 else -v)
    return max(acc) + min(acc) + sum(acc)


def random_prog_5(x):
    k = 0
    s = 0.0
    while k < x.shape[0] and s < 2.0:
        s += abs(x[k])
        k += 1
    return s * k + x[0]


def repeated_index_iadd(x, v):
    # NumPy's y[idx] += v with a repeated index adds once (buffered), not twice
    y = x * 1.0
    idx = np.array([0, 1, 1, 2])
    y[idx] += v
    return np.sum(y ** 2)


def overlapping_view_iadd(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y ** 2)


def swap_rows_fancy(X):
    Y = X.copy()
    Y[[0, 1]] = Y[[1, 0]]
    return np.sum(Y * np.arange(6.0).reshape(3, 2))


def mask_imul(x):
    y = x.copy()
    y[y > 0] *= 2.0
    return np.sum(y ** 3)


def while_float_counter(x):
    t = 0.0
    s = 0.0
    while t < x:
        s += math.sin(t) * x
        t += 0.25
    return s


def row_updates_in_loop(W, x):
    W2 = W.copy()
    for i in range(W2.shape[0]):
        W2[i] = W2[i] - 0.1 * W2[i] * x
        W2[i, 0] = W2[i, 1] * W2[i, 0]
    return np.sum(W2 ** 2)


# -- everyday idioms (README readers) --------------------------------------------------------------
def soft_threshold(x, t):
    return np.sum((np.sign(x) * np.maximum(np.abs(x) - t, 0)) ** 2)


def clip_kw(p):
    return -np.sum(np.log(np.clip(p, a_min=1e-12, a_max=None)))


def norm_keepdims(X):
    return np.sum(X / np.linalg.norm(X, axis=-1, keepdims=True))


def scipy_softmax(z):
    return np.sum(softmax(z, axis=1) * np.arange(3.0))


def batched_einsum(A, B):
    return np.sum(np.einsum("bij,bjk->bik", A, B) ** 2)


def triu_pairs(X):
    i, j = np.triu_indices(X.shape[0], k=1)
    d = X[i] - X[j]
    return np.sum(np.sqrt(np.sum(d ** 2, axis=1)))


def where_index(x):
    idx = np.where(x > 0)[0]
    return np.sum(x[idx] ** 2)


def axis_none(x):
    return np.sum(x, axis=None) + np.max(x, axis=None) + x.mean(axis=None)


def float64_scalar(x):
    return np.sum(np.float64(2.0) * x) + len(x) * x.size * x.shape[-1]


def abs_max(x):
    return np.abs(x).max() + np.abs(x).argmax()


def sum_generator(x):
    return sum(v ** 2 for v in x)


def enumerate_zip(x, y):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        s += i * a * b
    return s


def dict_loop(x):
    d = {"a": x[0], "b": x[1] ** 2}
    s = 0.0
    for k, v in d.items():
        s += v
    return s


def fstring_assert(x):
    assert x.shape[0] == 3, f"bad shape {x.shape}"
    return np.sum(x ** 2)


def lambda_inside(x):
    f = lambda v: v ** 2 + 1
    return np.sum(f(x))


def map_builtin(x):
    return sum(map(lambda v: v * v, x))


def tuple_return_helper(x):
    m, s = _moments(x)
    return m * s


def _moments(x):
    return np.mean(x), np.std(x)


def global_const(x):
    return np.sum(x * SCALE)


SCALE = 3.0


def np_pi_e(x):
    return np.sum(np.sin(np.pi * x)) + np.e * x[0]


def any_all(x):
    if np.any(x > 2.0) or np.all(x < -5):
        return np.sum(x)
    return np.sum(x ** 2)


def nan_safe(x):
    return np.sum(np.where(np.isfinite(x), x, 0.0) ** 2)


# -- everyday models ------------------------------------------------------------------------------
def logistic_l2(w, b, X, y, lam):
    z = X @ w + b
    p = 1.0 / (1.0 + np.exp(-z))
    eps = 1e-12
    loss = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))
    return loss + lam * np.dot(w, w)


def mlp_tanh(params, X, y):
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out.ravel() - y) ** 2)


def kalman_filter_nll(q, r, ys):
    x, P = 0.0, 1.0
    nll = 0.0
    for t in range(len(ys)):
        P = P + q
        S = P + r
        K = P / S
        innov = ys[t] - x
        nll += 0.5 * (math.log(2 * math.pi * S) + innov ** 2 / S)
        x = x + K * innov
        P = (1 - K) * P
    return nll


def gp_negative_log_likelihood(log_ls, log_sf, X, y):
    ls, sf2 = np.exp(log_ls), np.exp(2 * log_sf)
    d = X[:, None, :] - X[None, :, :]
    K = sf2 * np.exp(-0.5 * np.sum(d ** 2, axis=-1) / ls ** 2) + 1e-2 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


def poisson_glm_offset(beta, X, counts, exposure):
    eta = X @ beta + np.log(exposure)
    mu = np.exp(eta)
    return np.sum(mu - counts * eta)


def softmax_regression_keepdims(W, X, labels):
    logits = X @ W
    logits = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return -np.mean(np.log(probs[np.arange(len(labels)), labels]))


def rk4_adaptive_decay(k, y0):
    t, y, h = 0.0, y0, 0.1
    while t < 1.0 - 1e-9:
        f1 = -k * y
        f2 = -k * (y + 0.5 * h * f1)
        f3 = -k * (y + 0.5 * h * f2)
        f4 = -k * (y + h * f3)
        y = y + h / 6.0 * (f1 + 2 * f2 + 2 * f3 + f4)
        t += h
    return y


def newton_inside_objective(a):
    # solve x**3 + x = a by Newton, then use the root
    x = 1.0
    for _ in range(50):
        fx = x ** 3 + x - a
        if abs(fx) < 1e-12:
            break
        x = x - fx / (3 * x ** 2 + 1)
    return x ** 2 + a


def minibatch_cross_entropy(W, X, labels, batch):
    Xb = X[batch]
    yb = labels[batch]
    logits = Xb @ W
    lse = logsumexp(logits, axis=1)
    return np.mean(lse - logits[np.arange(len(batch)), yb])


def spring_mass_sim(k, c, x0):
    x, v = x0, 0.0
    dt = 0.05
    E = 0.0
    for _ in range(40):
        a = -k * x - c * v
        v += a * dt
        x += v * dt
        E += x * x
    return E * dt


def attention_softmax(Q, K, V):
    d = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d)
    scores -= scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return np.sum((w @ V) ** 2)


def layer_norm_affine(x, gamma, beta):
    mu = x.mean(-1, keepdims=True)
    sigma = np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
    return np.sum(np.tanh(gamma * (x - mu) / sigma + beta))


def mixture_density_nll(logits, mus, log_sigmas, y):
    log_pi = logits - logsumexp(logits)
    sig = np.exp(log_sigmas)
    comp = -0.5 * ((y[:, None] - mus[None, :]) / sig) ** 2 - log_sigmas - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(log_pi + comp, axis=1))


def huber_loss_model(w, X, y, delta):
    r = X @ w - y
    a = np.abs(r)
    quad = np.minimum(a, delta)
    lin = a - quad
    return np.mean(0.5 * quad ** 2 + delta * lin)


def lstm_cell_seq(Wx, Wh, b, xs):
    H = Wh.shape[1]
    h = np.zeros(H)
    c = np.zeros(H)
    for x in xs:
        z = Wx @ x + Wh @ h + b
        i = expit(z[:H])
        f = expit(z[H:2 * H])
        o = expit(z[2 * H:3 * H])
        g = np.tanh(z[3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum(h ** 2)


def ridge_closed_form(lam, X, y):
    A = X.T @ X + lam * np.eye(X.shape[1])
    w = np.linalg.solve(A, X.T @ y)
    return np.sum((X @ w - y) ** 2)


def pendulum_energy_loop(theta0, L):
    g = 9.81
    th, om = theta0, 0.0
    dt = 0.01
    for _ in range(30):
        om = om - g / L * math.sin(th) * dt
        th = th + om * dt
    return 0.5 * L ** 2 * om ** 2 + g * L * (1 - math.cos(th))


def bayes_linreg_evidence(alpha, beta, X, y):
    N, D = X.shape
    A = alpha * np.eye(D) + beta * X.T @ X
    m = beta * np.linalg.solve(A, X.T @ y)
    E = 0.5 * beta * np.sum((y - X @ m) ** 2) + 0.5 * alpha * m @ m
    sign, logdet = np.linalg.slogdet(A)
    return -(0.5 * D * np.log(alpha) + 0.5 * N * np.log(beta) - E - 0.5 * logdet)


def tsne_like_kl(Y, P):
    d = np.sum((Y[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    num = 1.0 / (1.0 + d)
    np.fill_diagonal(num, 0.0)
    Q = num / np.sum(num)
    Q = np.maximum(Q, 1e-12)
    return np.sum(P * np.log(P / Q))


def class_model_stepper(w, xs):
    m = _Stepper(0.1)
    return m.run(w, xs)


class _Stepper:
    def __init__(self, lr):
        self.lr = lr

    def run(self, w, xs):
        for x in xs:
            w = w - self.lr * (w - x)
        return np.sum(w ** 2)


def refused_forms():
    """What stays refused, and why: squeeze() without axis= (a shape's unit axes are not
    in the types jitad compiles for), isinstance of a parameter the function assigns (its type
    may change), an object made inside the function."""
    nrm = np.random.default_rng(11).normal
    return [
        (squeeze_without_axis, (nrm(size=(3, 1, 2)),), (0,)),
        (jax_isinstance_dispatch, (nrm(size=3), 2), (0,)),
        (class_model_stepper, (nrm(size=3), nrm(size=(4, 3))), (0, 1)),
    ]


def suites(seed=10):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    A3 = nrm(size=(3, 3))
    return [
        (sum_of_abs_keepdims, (nrm(size=(3, 4)),), (0,)),
        (mean_axis_tuple, (nrm(size=(2, 3, 4)),), (0,)),
        (std_keepdims_ddof, (nrm(size=(3, 4)),), (0,)),
        (max_keepdims_broadcast, (nrm(size=(3, 4)),), (0,)),
        (amin_amax_mix, (nrm(size=(3, 4)),), (0,)),
        (nanfree_logsumexp_axis, (nrm(size=(3, 4)),), (0,)),
        (cumsum_reverse, (nrm(size=5),), (0,)),
        (diff_twice, (nrm(size=6),), (0,)),
        (outer_and_kron, (nrm(size=3), nrm(size=4)), (0, 1)),
        (inner_vdot_tensordot, (nrm(size=3), nrm(size=4)), (0, 1)),
        (einsum_forms, (nrm(size=(3, 3)), nrm(size=(3, 3))), (0, 1)),
        (trace_diag_tri, (A3,), (0,)),
        (where_both_branches, (nrm(size=6),), (0,)),
        (clip_forms, (nrm(size=6),), (0,)),
        (maximum_minimum_fmax, (nrm(size=5), nrm(size=5)), (0, 1)),
        (hypot_arctan2, (nrm(size=4), nrm(size=4)), (0, 1)),
        (logaddexp_forms, (nrm(size=4), nrm(size=4)), (0, 1)),
        (power_forms, (nrm(size=5),), (0,)),
        (log_family, (nrm(size=5),), (0,)),
        (trig_family, (nrm(size=5),), (0,)),
        (hyperbolic_family, (nrm(size=5),), (0,)),
        (sinc_and_deg, (nrm(size=5),), (0,)),
        (reciprocal_negative, (nrm(size=5),), (0,)),
        (flatten_ravel, (nrm(size=(2, 3)),), (0,)),
        (swap_roll, (nrm(size=(3, 4)),), (0,)),
        (tile_repeat, (nrm(size=3),), (0,)),
        (pad_constant, (nrm(size=4),), (0,)),
        (sort_take_top, (nrm(size=6),), (0,)),
        (full_like_ones_like, (nrm(size=4),), (0,)),
        (atleast_and_concat, (nrm(size=3), 0.7), (0, 1)),
        (fancy_index_2d, (nrm(size=(3, 3)),), (0,)),
        (boolean_mask_assign, (nrm(size=6),), (0,)),
        (negative_strides, (nrm(size=(4, 4)),), (0,)),
        (newaxis_broadcast, (nrm(size=3), nrm(size=4)), (0, 1)),
        (dtype_zeros_like_input, (nrm(size=4),), (0,)),
        (astype_other_dtype, (nrm(size=4), nrm(size=4)), (0, 1)),
        (squeeze_without_axis, (nrm(size=(3, 1, 2)),), (0,)),
        (multi_dot_chain, (nrm(size=(2, 3)), nrm(size=(3, 4)), nrm(size=(4, 2))), (0, 1, 2)),
        (linalg_det_slogdet, (A3,), (0,)),
        (linalg_inv_solve, (A3, nrm(size=3)), (0, 1)),
        (linalg_norm_axes, (nrm(size=(3, 4)),), (0,)),
        (matrix_power_forms, (0.5 * A3,), (0,)),
        (cholesky_logdet, (A3,), (0,)),
        (eigh_top, (A3,), (0,)),
        (jax_nested_tuple_out, (nrm(size=4),), (0,)),
        (jax_closure_over_constant, (nrm(size=4),), (0,)),
        (jax_kwargs_helper, (nrm(size=4),), (0,)),
        (jax_dict_params, ({"W": nrm(size=(3, 2)), "b": nrm(size=2)}, nrm(size=(4, 3))), (0,)),
        (jax_list_params, ([0.5, 1.2, -0.7], nrm(size=3)), (0, 1)),
        (jax_isinstance_dispatch, (nrm(size=3), 2), (0,)),
        (jax_star_list, (nrm(size=3),), (0,)),
        (jax_math_prod_isclose, (nrm(size=(2, 3)),), (0,)),
        (jax_reduce_with_initial, (nrm(size=4),), (0,)),
        (jax_where_scalar, (rng.uniform(size=5),), (0,)),
        (jax_polyval, (nrm(size=3), nrm(size=4)), (0, 1)),
        (jax_cross, (nrm(size=3), nrm(size=3)), (0, 1)),
        (jax_interp, (np.array([0.1, 0.35, 0.6, 0.9]),), (0,)),
        (jax_cumulative_logsumexp, (nrm(size=5),), (0,)),
        (tangent_while_halving, (3.7,), (0,)),
        (tangent_nested_if, (0.7, -0.4), (0, 1)),
        (tangent_nested_if, (-0.7, 0.4), (0, 1)),
        (tangent_for_with_break, (0.9,), (0,)),
        (tangent_continue, (0.8,), (0,)),
        (tangent_bool_ops, (0.5, 0.3), (0, 1)),
        (tangent_ternary_chain, (-2.3,), (0,)),
        (tangent_for_else, (1.1,), (0,)),
        (tangent_for_else, (3.0,), (0,)),
        (tangent_recursion_power, (1.1, 4), (0,)),
        (tangent_aug_ops, (0.9,), (0,)),
        (tangent_math_functions, (1.3,), (0,)),
        (linear_layer, (nrm(size=(4, 3)), nrm(size=(2, 3)), nrm(size=2)), (0, 1, 2)),
        (conv1d_same, (nrm(size=6), nrm(size=3)), (0, 1)),
        (group_norm, (nrm(size=(2, 4)), nrm(size=4), nrm(size=4)), (0, 1, 2)),
        (dropout_fixed_mask, (nrm(size=(3, 4)),), (0,)),
        (elu_selu, (nrm(size=6),), (0,)),
        (softplus_logsigmoid, (nrm(size=5),), (0,)),
        (nll_loss_weighted, (nrm(size=(4, 3)), np.array([0, 2, 1, 2]), rng.uniform(0.5, 1.5, 3)),
         (0, 2)),
        (bce_with_logits, (nrm(size=5), (rng.uniform(size=5) > 0.5).astype(float)), (0,)),
        (margin_ranking, (nrm(size=5), nrm(size=5), np.sign(nrm(size=5))), (0, 1)),
        (cosine_embedding, (nrm(size=(3, 4)), nrm(size=(3, 4))), (0, 1)),
        (triplet_loss, (nrm(size=(3, 2)), nrm(size=(3, 2)), nrm(size=(3, 2))), (0, 1, 2)),
        (rosenbrock_nd, (nrm(size=5),), (0,)),
        (rastrigin, (nrm(size=4),), (0,)),
        (ackley, (nrm(size=3),), (0,)),
        (beale, (1.2, 0.4), (0, 1)),
        (styblinski_tang, (nrm(size=4),), (0,)),
        (brownian_bridge_energy, (nrm(size=5),), (0,)),
        (random_prog_1, (0.8, 1.3), (0, 1)),
        (random_prog_2, (nrm(size=4),), (0,)),
        (random_prog_3, (nrm(size=3), nrm(size=3)), (0, 1)),
        (random_prog_4, (nrm(size=5),), (0,)),
        (random_prog_5, (nrm(size=6),), (0,)),
        (repeated_index_iadd, (nrm(size=4), nrm(size=4)), (0, 1)),
        (overlapping_view_iadd, (nrm(size=5),), (0,)),
        (swap_rows_fancy, (nrm(size=(3, 2)),), (0,)),
        (mask_imul, (nrm(size=5),), (0,)),
        (while_float_counter, (1.3,), (0,)),
        (row_updates_in_loop, (nrm(size=(3, 2)), nrm(size=2)), (0, 1)),
        (soft_threshold, (nrm(size=5), 0.3), (0, 1)),
        (clip_kw, (rng.uniform(0.1, 1, size=4),), (0,)),
        (norm_keepdims, (nrm(size=(3, 2)),), (0,)),
        (scipy_softmax, (nrm(size=(2, 3)),), (0,)),
        (batched_einsum, (nrm(size=(2, 2, 3)), nrm(size=(2, 3, 2))), (0, 1)),
        (triu_pairs, (nrm(size=(4, 2)),), (0,)),
        (where_index, (nrm(size=5),), (0,)),
        (axis_none, (nrm(size=4),), (0,)),
        (float64_scalar, (nrm(size=4),), (0,)),
        (abs_max, (nrm(size=4),), (0,)),
        (sum_generator, (nrm(size=4),), (0,)),
        (enumerate_zip, (nrm(size=4), nrm(size=4)), (0, 1)),
        (dict_loop, (nrm(size=3),), (0,)),
        (fstring_assert, (nrm(size=3),), (0,)),
        (lambda_inside, (nrm(size=3),), (0,)),
        (tuple_return_helper, (nrm(size=4),), (0,)),
        (global_const, (nrm(size=3),), (0,)),
        (np_pi_e, (nrm(size=3),), (0,)),
        (any_all, (nrm(size=3),), (0,)),
        (nan_safe, (nrm(size=3),), (0,)),
        (map_builtin, (nrm(size=3),), (0,)),
    ]


def models(seed=20):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X, y = nrm(size=(8, 3)), nrm(size=8)
    yb = (rng.uniform(size=8) > 0.5).astype(float)
    P = rng.uniform(size=(4, 4))
    np.fill_diagonal(P, 0.0)
    P = P / P.sum()
    np.fill_diagonal(P, 1.0)  # P's diagonal: log(P/Q) with Q's zero diagonal clipped; constant
    return [
        (logistic_l2, (nrm(size=3), 0.1, X, yb, 0.05), (0, 1)),
        (mlp_tanh, ((nrm(size=(3, 5)), nrm(size=5), nrm(size=(5, 1)), nrm(size=1)), X, y), (0,)),
        (kalman_filter_nll, (0.1, 0.5, nrm(size=10)), (0, 1, 2)),
        (gp_negative_log_likelihood, (0.2, -0.1, nrm(size=(5, 2)), nrm(size=5)), (0, 1, 2, 3)),
        (poisson_glm_offset, (0.3 * nrm(size=3), X, rng.poisson(2.0, 8).astype(float),
                              rng.uniform(0.5, 2.0, 8)), (0,)),
        (softmax_regression_keepdims, (nrm(size=(3, 4)), X, rng.integers(0, 4, 8)), (0,)),
        (rk4_adaptive_decay, (0.7, 1.5), (0, 1)),
        (newton_inside_objective, (2.5,), (0,)),
        (minibatch_cross_entropy, (nrm(size=(3, 4)), X, rng.integers(0, 4, 8), np.array([1, 3, 3, 6])),
         (0,)),
        (spring_mass_sim, (4.0, 0.3, 1.0), (0, 1, 2)),
        (attention_softmax, (nrm(size=(3, 4)), nrm(size=(5, 4)), nrm(size=(5, 2))), (0, 1, 2)),
        (layer_norm_affine, (nrm(size=(3, 4)), nrm(size=4), nrm(size=4)), (0, 1, 2)),
        (mixture_density_nll, (nrm(size=3), nrm(size=3), 0.3 * nrm(size=3), nrm(size=6)),
         (0, 1, 2)),
        (huber_loss_model, (nrm(size=3), X, y, 0.5), (0,)),
        (lstm_cell_seq, (0.5 * nrm(size=(8, 2)), 0.5 * nrm(size=(8, 2)), nrm(size=8), nrm(size=(4, 2))),
         (0, 1, 2)),
        (ridge_closed_form, (0.5, X, y), (0,)),
        (pendulum_energy_loop, (0.4, 1.2), (0, 1)),
        (bayes_linreg_evidence, (1.2, 3.0, X, y), (0, 1)),
        (tsne_like_kl, (nrm(size=(4, 2)), P), (0,)),
        (class_model_stepper, (nrm(size=3), nrm(size=(4, 3))), (0, 1)),
    ]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(suites() + models(), sys.argv[1:])
