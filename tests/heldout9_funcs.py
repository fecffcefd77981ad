"""Held-out corpus #9: functions in the style of other projects' test suites -- autograd's
tests/test_numpy.py, test_systematic.py and test_scalar_ops.py (one NumPy function at a time,
with axis/keepdims/shape arguments, broadcasting, indexing forms), JAX's lax_numpy and grad
tests, Tangent's test functions (scalar math and control flow), PyTorch gradcheck-style
functional layers -- written for this corpus from what such suites typically test (none
copied), plus everyday models by people who read only the README. `suites()` holds the
first kind, `models()` the second, `refused_forms()` the ones found refused (each fixed one
moves to tests/test_heldout9.py).

`python -m tests.heldout9_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py
`triage`); tests/test_heldout9.py checks the reduced findings."""
import math

import numpy as np
from scipy.signal import lfilter
from scipy.special import digamma, erf, expit, gammaln, logsumexp


# -- autograd test_numpy style: one NumPy function, various axis/keepdims/shape arguments -------
def sum_axis_keep(x):
    return np.sum(np.sum(x, axis=1, keepdims=True) * x) + np.sum(x.sum(axis=(0, 2)) ** 2)


def mean_neg_axis_keep(x):
    m = np.mean(x, axis=-1, keepdims=True)
    return np.sum((x - m) ** 2) + np.sum(x.mean(0) ** 3)


def var_ddof(x):
    return np.var(x, axis=0, ddof=1).sum() + np.std(x, ddof=1) + np.var(x, axis=1, keepdims=True).sum()


def prod_axis(x):
    return np.sum(np.prod(x, axis=0)) + np.prod(x[0]) + np.sum(x.prod(axis=1, keepdims=True))


def max_min_axes(x):
    return np.sum(np.max(x, axis=1)) - np.sum(x.min(axis=0, keepdims=True) ** 2) + np.amax(x)


def cumsum_cumprod_axes(x):
    return np.sum(np.cumsum(x, axis=1) ** 2) + np.sum(np.cumprod(x, axis=0)) + np.sum(np.cumsum(x))


def transpose_axes(x):
    return np.sum(np.transpose(x, (2, 0, 1)) * np.arange(24.0).reshape(4, 2, 3)) \
        + np.sum(x.swapaxes(0, 2)[0] ** 2) + np.sum(np.moveaxis(x, 0, -1)[..., 0] ** 2)


def reshape_forms(x):
    a = x.reshape(3, -1)
    b = np.reshape(x, (2, 2, 3))
    c = x.reshape((-1,))
    return np.sum(a[1] ** 2) + np.sum(b[:, 1] * b[:, 0]) + np.sum(c[::3])


def concat_stack_forms(x, y):
    a = np.concatenate([x, y], axis=1)
    b = np.stack([x, y], axis=-1)
    c = np.vstack((x, y))
    d = np.hstack([x, y])
    return np.sum(a ** 2) + np.sum(b[..., 0] * b[..., 1]) + np.sum(c[::2]) + np.sum(np.sin(d))


def dstack_column_stack(x, y):
    return np.sum(np.column_stack((x, y)) ** 2) + np.sum(np.dstack((x, y)) ** 3)


def split_forms(x):
    a, b = np.split(x, 2)
    c, d, e = np.array_split(x[:6], 3)
    return np.sum(a * b) + np.sum(c * d * e)


def expand_squeeze(x):
    y = np.expand_dims(x, 1)
    return np.sum(np.squeeze(y, axis=1) ** 2) + np.sum(y * x[None, :, None])


def squeeze_no_axis(x):
    # x is (3, 1, 4): NumPy's squeeze drops the length-1 axis
    return np.sum(np.squeeze(x) * np.arange(12.0).reshape(3, 4)) + np.sum(x.squeeze()[0] ** 2)  # ERR: squeeze() needs axis=


def flip_roll(x):
    return np.sum(np.flip(x, axis=0) * np.arange(12.0).reshape(3, 4)) \
        + np.sum(np.roll(x, 2) * np.arange(12.0).reshape(3, 4)) \
        + np.sum(np.roll(x, -1, axis=1) * np.arange(12.0).reshape(3, 4))


def triu_tril_diag(x):
    return np.sum(np.triu(x) ** 2) + np.sum(np.tril(x, -1) * x.T) + np.sum(np.diag(x) ** 3) \
        + np.trace(x) + np.sum(np.diag(np.diag(x)) @ x)


def where_clip_abs(x):
    return np.sum(np.where(x > 0.1, x ** 2, -x)) + np.sum(np.clip(x, -0.5, 0.5)) + np.sum(np.abs(x) ** 1.5)


def logsumexp_axis(x):
    return np.sum(logsumexp(x, axis=1)) + logsumexp(x) + np.sum(logsumexp(x, axis=0, keepdims=True))


def tensordot_forms(a, b):
    return np.sum(np.tensordot(a, b, axes=1) ** 2) + np.tensordot(a, a, axes=2) \
        + np.sum(np.tensordot(a, b, axes=([0], [1])))


def kron_cross_inner(a, b):
    return np.sum(np.kron(a, b) ** 2) + np.sum(np.cross(a, b)) + np.inner(a, b)


def einsum_forms(A, B):
    return np.einsum("ij,jk->", A, B) + np.sum(np.einsum("ii->i", A @ B.T) ** 2) \
        + np.einsum("ij,ij", A, A) + np.sum(np.einsum("ij->ji", A) * A.T)


def outer_ufunc_subtract(x, y):
    # pairwise differences (kernel and distance code)
    D = np.subtract.outer(x, y)
    return np.sum(np.exp(-D ** 2))


def outer_ufunc_multiply_add(x, y):
    return np.sum(np.multiply.outer(x, y) ** 2) + np.sum(np.sin(np.add.outer(x, y)))


def sort_and_sorted(x):
    s = np.sort(x)
    t = sorted(x)
    return np.sum(s * np.arange(1.0, 5.0)) + t[0] * t[-1]


def sort_axis_minus_one(x):
    return np.sum(np.sort(x, axis=-1) * np.arange(4.0)) + np.sum(np.sort(x, axis=0)[0] ** 2)


def sum_where(x):
    return np.sum(x ** 2, where=x > 0) + np.mean(x, where=x < 0.5)


def block_matrix(A, B):
    M = np.block([[A, B], [B.T, np.eye(2)]])
    return np.sum(M @ M)


def delete_insert(x):
    a = np.delete(x, 1)
    b = np.insert(x, 2, 0.5)
    return np.sum(a ** 2) + np.sum(b * np.arange(6.0))


def divmod_scalar(t, period):
    q, r = divmod(t, period)
    return r * r + q


def piecewise_abs(x):
    return np.sum(np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]))


def lfilter_first_order(b, a, x):
    y = lfilter(b, a, x)
    return np.sum(y ** 2)


def augassign_argument(x, y):
    x += y
    return np.sum(x ** 2)


def augassign_scalar_argument(x, y):
    x *= 2.0
    x += y
    return x * x


def nan_functions(x):
    return np.nanmean(x) + np.nansum(x ** 2) + np.nanmax(x)


def linspace_arange_meshgrid(a, b):
    t = np.linspace(a, b, 5)
    X, Y = np.meshgrid(t, t)
    return np.sum(X * Y ** 2)


def atleast_forms(x, s):
    return np.sum(np.atleast_2d(x) ** 2) + np.sum(np.atleast_1d(s) * 2.0) + np.sum(np.atleast_3d(x))


def repeat_tile(x):
    return np.sum(np.repeat(x, 2) * np.arange(6.0)) + np.sum(np.tile(x, (2, 1)) ** 2) \
        + np.sum(np.repeat(x[None, :], 3, axis=0) ** 3)


def diff_gradient_forms(x):
    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2) ** 2) + np.sum(np.gradient(x) ** 2)


def ediff_convolve(x, w):
    return np.sum(np.convolve(x, w, mode="same") ** 2) + np.sum(np.convolve(x, w) * 0.5)


# -- broadcasting -----------------------------------------------------------------------------
def broadcast_ops(x, y, z):
    # x (3, 1), y (1, 4), z (4,)
    return np.sum(x * y + z) + np.sum((x - z) / (1.0 + y ** 2)) + np.sum(np.maximum(x, z))


def broadcast_to_forms(x):
    return np.sum(np.broadcast_to(x, (3, 4)) * np.arange(12.0).reshape(3, 4))


def scalar_array_mix(s, x):
    return np.sum(s ** x + x ** s + s / x + np.power(x, 2.0 * s))


# -- indexing forms ---------------------------------------------------------------------------
def index_forms(x):
    return x[1, 2] + np.sum(x[:, 1] ** 2) + np.sum(x[::2, ::-1]) + np.sum(x[-1]) \
        + np.sum(x[[0, 2], :] ** 2) + np.sum(x[..., -1])


def fancy_index_pairs(x):
    i = np.array([0, 2, 1, 2])
    j = np.array([1, 0, 3, 3])
    return np.sum(x[i, j] ** 2) + np.sum(x[i] * 0.5) + np.sum(x[:, j] ** 3)


def bool_mask_index(x):
    return np.sum(x[x > 0] ** 2) + np.sum(x[np.abs(x) < 0.5])


def newaxis_forms(x):
    return np.sum(x[:, None] * x[None, :]) + np.sum(x[np.newaxis, :, np.newaxis] ** 2)


def ellipsis_index(x):
    return np.sum(x[..., 1:] ** 2) + np.sum(x[0, ...]) + np.sum(x[..., None, 0])  # ERR: None and an index


def take_and_put(x):
    return np.sum(np.take(x, [0, 3, 1])) + np.sum(np.take(x.reshape(2, 3), [1, 0], axis=1) ** 2)


def argsort_take_along(x):
    idx = np.argsort(x, axis=1)
    return np.sum(np.take_along_axis(x, idx, axis=1) * np.arange(4.0))


def argmax_select(x):
    k = np.argmax(x)
    j = np.argmin(x)
    return x[k] ** 2 - x[j]


# -- linear algebra (autograd test_linalg / JAX linalg style) ----------------------------------
def linalg_inv_det(A):
    return np.sum(np.linalg.inv(A)) + np.linalg.det(A) + np.linalg.slogdet(A)[1]


def linalg_solve_forms(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2) + np.sum(np.linalg.solve(A, np.outer(b, b)))


def linalg_cholesky_eigh(A):
    S = A @ A.T + 3.0 * np.eye(3)
    L = np.linalg.cholesky(S)
    w, V = np.linalg.eigh(S)
    return np.sum(L ** 2) + np.sum(w ** 2) + np.sum(np.abs(V[:, -1]))


def linalg_norms(A, x):
    return np.linalg.norm(A) + np.linalg.norm(x) + np.linalg.norm(x, 1) + np.linalg.norm(A, axis=1).sum() \
        + np.linalg.norm(x, ord=np.inf) + np.linalg.norm(A, "fro")


def linalg_svd_pinv(A):
    s = np.linalg.svd(A, compute_uv=False)
    return np.sum(s ** 2) + np.sum(np.linalg.pinv(A) ** 2)


def linalg_qr(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.abs(np.diag(R))) + np.sum(Q[:, 0] ** 2)


def matrix_power_trace(A):
    return np.trace(np.linalg.matrix_power(A, 3)) + np.sum(np.linalg.matrix_power(A, 2))


def batched_matmul(A, B):
    return np.sum(A @ B) + np.sum(np.matmul(A, B) ** 2)


# -- scalar math (autograd test_scalar_ops, Tangent's test functions) ---------------------------
def scalar_math_mix(x, y):
    return math.sin(x) * math.cos(y) + math.exp(-x * x) + math.log1p(y * y) + math.atan2(y, x) \
        + math.hypot(x, y) + math.sqrt(x * x + 1.0) + math.tanh(x - y)


def scalar_numpy_ufuncs(x):
    return np.arcsinh(x) + np.arctan(x) + np.exp2(x) + np.log10(x + 2.0) + np.cbrt(x + 3.0) \
        + np.expm1(x) + np.deg2rad(x) + np.sinc(x) + np.logaddexp(x, 0.3) + np.square(x)


def scalar_special(x):
    return erf(x) + expit(x) + gammaln(x + 2.0) + digamma(x + 2.0)


def scalar_abs_sign_mod(x, y):
    return abs(x) * np.sign(y) + x % 1.3 + math.fmod(x, 0.7) + math.copysign(x, y) + x // 0.5


def scalar_pow_forms(x, y):
    return x ** 3 + x ** y + 2.0 ** x + pow(x, 2) + math.pow(y, 1.5) + x ** -1


def scalar_min_max(x, y):
    return max(x, y) * min(x, 2.0 * y) + max(x, y, 0.1)


def tangent_if_else(x):
    if x > 0:
        y = x * x
    else:
        y = -x
    return y


def tangent_while(x):
    y = x
    while y < 10.0:
        y = y * 2.0
    return y


def tangent_for_nested(x, n=3):
    s = 0.0
    for i in range(n):
        for j in range(i + 1):
            s += x ** (i - j) * math.sin(j * x)
    return s


def tangent_call_helpers(x):
    return _sq(x) + _sq(_sq(x)) * 0.1


def _sq(v):
    return v * v


def tangent_early_return(x):
    for i in range(10):
        if x > 5.0:
            return x * i
        x = x * 1.5
    return x


def tangent_recursive(x, n=4):
    return _pw(x, n)


def _pw(x, n):
    if n == 0:
        return 1.0
    return x * _pw(x, n - 1)


def tangent_ternary_bool(x):
    y = x if x > 0.5 else 2.0 * x
    z = x * 2.0 if (x > 0 and x < 1.0) or x > 3.0 else x ** 3
    return y + z


def tangent_list_accumulate(x):
    vals = []
    for i in range(4):
        vals.append(x ** i)
    return sum(vals) + vals[2] * vals[3]


def tangent_tuple_unpack(x, y):
    a, b = x * y, x + y
    a, b = b, a
    return a * b ** 2


# -- PyTorch gradcheck-style functional layers -----------------------------------------------
def softmax_cross_entropy(logits, labels):
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(logits.shape[0]), labels])


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return np.sum(((x - mu) / np.sqrt(var + eps) * gamma + beta) ** 2)


def batch_norm_train(x, gamma, beta):
    mu = np.mean(x, axis=0)
    var = np.mean((x - mu) ** 2, axis=0)
    xh = (x - mu) / np.sqrt(var + 1e-5)
    return np.sum(np.tanh(gamma * xh + beta))


def conv1d_valid(x, w, b):
    # x (C, L), w (F, C, K)
    F, C, K = w.shape
    L = x.shape[1] - K + 1
    out = np.zeros((F, L))
    for f in range(F):
        for t in range(L):
            out[f, t] = np.sum(w[f] * x[:, t:t + K]) + b[f]
    return np.sum(np.maximum(out, 0.0) ** 2)


def conv2d_einsum_windows(x, k):
    win = np.lib.stride_tricks.sliding_window_view(x, k.shape)
    return np.sum(np.einsum("ijkl,kl->ij", win, k) ** 2)


def max_pool_1d(x):
    n = x.shape[0] // 2
    return np.sum(np.max(x[: 2 * n].reshape(n, 2), axis=1) ** 2)


def avg_pool_2d(x):
    return np.sum(x.reshape(2, 2, 3, 2).mean(axis=(1, 3)) ** 2)


def cosine_similarity(a, b, eps=1e-8):
    num = np.sum(a * b, axis=1)
    den = np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), eps)
    return np.sum(num / den)


def pairwise_distance(X, Y):
    D = np.sqrt(np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1) + 1e-12)
    return np.sum(np.exp(-D))


def smooth_l1(x, y, beta=1.0):
    d = np.abs(x - y)
    return np.mean(np.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta))


def gelu_silu_softplus(x):
    gelu = 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))
    silu = x / (1.0 + np.exp(-x))
    softplus = np.logaddexp(0.0, x)
    return np.sum(gelu * silu + softplus)


def kl_div_log_softmax(p_logits, q_logits):
    lp = p_logits - logsumexp(p_logits, axis=-1, keepdims=True)
    lq = q_logits - logsumexp(q_logits, axis=-1, keepdims=True)
    return np.sum(np.exp(lp) * (lp - lq))


def gru_cell(h, x, Wz, Uz, Wh, Uh):
    z = 1.0 / (1.0 + np.exp(-(Wz @ x + Uz @ h)))
    hh = np.tanh(Wh @ x + Uh @ (z * h))
    return np.sum(((1.0 - z) * h + z * hh) ** 2)


def attention_head(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = s - s.max(axis=1, keepdims=True)
    a = np.exp(s)
    a = a / a.sum(axis=1, keepdims=True)
    return np.sum((a @ V) ** 2)


# -- kernels and distances (the ufunc .outer idioms) --------------------------------------------
def rbf_kernel_outer(x, ls):
    K = np.exp(-0.5 * np.subtract.outer(x, x) ** 2 / ls ** 2)
    return np.sum(K @ np.ones(x.shape[0])) + np.trace(K)


def gp_nll_outer(x, y, ls, noise):
    K = np.exp(-0.5 * np.subtract.outer(x, x) ** 2 / ls ** 2) + noise * np.eye(x.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def vandermonde_fit(c, x, y):
    V = np.power.outer(x, np.arange(c.shape[0]))
    return np.sum((V @ c - y) ** 2)


# -- everyday models (README-only users) ------------------------------------------------------
def linear_regression_l2(w, b, X, y, lam=0.1):
    pred = X @ w + b
    return np.mean((pred - y) ** 2) + lam * np.sum(w ** 2)


def logistic_regression(w, X, y):
    z = X @ w
    return np.sum(np.log1p(np.exp(-y * z)))


def two_layer_mlp(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out[:, 0] - y) ** 2)


def softmax_regression(W, X, labels):
    logits = X @ W
    logits -= np.max(logits, axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return -np.sum(np.log(p[np.arange(X.shape[0]), labels]))


def rnn_sequence(Wh, Wx, xs, h0):
    h = h0
    loss = 0.0
    for x in xs:
        h = np.tanh(Wh @ h + Wx @ x)
        loss += np.sum(h ** 2)
    return loss


def damped_oscillator_rk4(k, c, x0, v0, h=0.05, n=40):
    x, v = x0, v0
    for _ in range(n):
        a1, b1 = v, -k * x - c * v
        a2, b2 = v + 0.5 * h * b1, -k * (x + 0.5 * h * a1) - c * (v + 0.5 * h * b1)
        a3, b3 = v + 0.5 * h * b2, -k * (x + 0.5 * h * a2) - c * (v + 0.5 * h * b2)
        a4, b4 = v + h * b3, -k * (x + h * a3) - c * (v + h * b3)
        x += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4)
        v += h / 6 * (b1 + 2 * b2 + 2 * b3 + b4)
    return x * x + v * v


def newton_sqrt(a, tol=1e-12):
    x = a
    while abs(x * x - a) > tol:
        x = 0.5 * (x + a / x)
    return x


def portfolio_variance(w, Sigma, mu, risk=2.0):
    w = w / np.sum(w)
    return risk * w @ Sigma @ w - mu @ w


def kmeans_soft_assign(C, X, beta=5.0):
    d = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=2)
    r = np.exp(-beta * d)
    r = r / r.sum(axis=1, keepdims=True)
    return np.sum(r * d)


def poisson_glm(w, X, counts):
    eta = X @ w
    return np.sum(np.exp(eta) - counts * eta)


def huber_regression(w, X, y, delta=1.0):
    r = X @ w - y
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def matrix_factorization(U, V, rows, cols, vals, lam=0.05):
    pred = np.sum(U[rows] * V[cols], axis=1)
    return np.sum((pred - vals) ** 2) + lam * (np.sum(U ** 2) + np.sum(V ** 2))


def heat_equation_explicit(u0, kappa, steps=20, dx=0.1, dt=0.001):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx ** 2
        u = u + kappa * dt * lap
    return np.sum(u ** 2)


def projectile_range(v0, angle, drag=0.1, dt=0.01):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    while y >= 0.0:
        speed = math.sqrt(vx * vx + vy * vy)
        vx -= drag * speed * vx * dt
        vy -= (9.81 + drag * speed * vy) * dt
        x += vx * dt
        y += vy * dt
    return x


def elastic_net(w, X, y, l1=0.1, l2=0.2):
    r = y - X @ w
    return 0.5 * r @ r / X.shape[0] + l1 * np.sum(np.sqrt(w ** 2 + 1e-8)) + 0.5 * l2 * w @ w


def lotka_volterra_euler(theta, x0, n=50, dt=0.02):
    a, b, c, d = theta
    prey, pred = x0[0], x0[1]
    traj = np.zeros((n, 2))
    for t in range(n):
        dprey = a * prey - b * prey * pred
        dpred = d * prey * pred - c * pred
        prey, pred = prey + dt * dprey, pred + dt * dpred
        traj[t, 0] = prey
        traj[t, 1] = pred
    return np.sum(traj[:, 1] ** 2) + np.mean(traj[:, 0])


def exp_smoothing(alpha, y):
    level = y[0]
    sse = 0.0
    for t in range(1, y.shape[0]):
        err = y[t] - level
        sse += err * err
        level = level + alpha * err
    return sse


def gaussian_mixture_nll(means, log_sig, logits, x):
    w = np.exp(logits - logsumexp(logits))
    sig = np.exp(log_sig)
    comp = -0.5 * ((x[:, None] - means) / sig) ** 2 - np.log(sig) - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(comp + np.log(w), axis=1))


def spring_chain_energy(pos, k=2.0, rest=1.0):
    d = np.diff(pos, axis=0)
    lengths = np.sqrt(np.sum(d ** 2, axis=1))
    return 0.5 * k * np.sum((lengths - rest) ** 2)


def inplace_normalize_copy(x):
    y = x.copy()
    y -= y.mean()
    y /= y.std()
    return np.sum(y ** 3)


def suites(seed=9):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    A3 = nrm(size=(3, 3)) + 3.0 * np.eye(3)
    pos = lambda *s: rng.uniform(0.5, 1.5, size=s)  # noqa: E731
    return [
        (sum_axis_keep, (nrm(size=(2, 3, 4)),), (0,)),
        (mean_neg_axis_keep, (nrm(size=(2, 3, 4)),), (0,)),
        (var_ddof, (nrm(size=(4, 3)),), (0,)),
        (prod_axis, (pos(3, 4),), (0,)),
        (max_min_axes, (nrm(size=(3, 4)),), (0,)),
        (cumsum_cumprod_axes, (pos(3, 4),), (0,)),
        (transpose_axes, (nrm(size=(2, 3, 4)),), (0,)),
        (reshape_forms, (nrm(size=12),), (0,)),
        (concat_stack_forms, (nrm(size=(2, 3)), nrm(size=(2, 3))), (0, 1)),
        (dstack_column_stack, (nrm(size=4), nrm(size=4)), (0, 1)),
        (split_forms, (nrm(size=8),), (0,)),
        (expand_squeeze, (nrm(size=4),), (0,)),
        (squeeze_no_axis, (nrm(size=(3, 1, 4)),), (0,)),
        (flip_roll, (nrm(size=(3, 4)),), (0,)),
        (triu_tril_diag, (nrm(size=(3, 3)),), (0,)),
        (where_clip_abs, (nrm(size=6),), (0,)),
        (logsumexp_axis, (nrm(size=(3, 4)),), (0,)),
        (tensordot_forms, (nrm(size=(3, 4)), nrm(size=(4, 3))), (0, 1)),
        (kron_cross_inner, (nrm(size=3), nrm(size=3)), (0, 1)),
        (einsum_forms, (nrm(size=(3, 3)), nrm(size=(3, 3))), (0, 1)),
        (outer_ufunc_subtract, (nrm(size=4), nrm(size=3)), (0, 1)),
        (outer_ufunc_multiply_add, (nrm(size=4), nrm(size=3)), (0, 1)),
        (sort_and_sorted, (nrm(size=4),), (0,)),
        (sort_axis_minus_one, (nrm(size=(3, 4)),), (0,)),
        (sum_where, (nrm(size=6),), (0,)),
        (block_matrix, (nrm(size=(2, 2)), nrm(size=(2, 2))), (0, 1)),
        (delete_insert, (nrm(size=5),), (0,)),
        (divmod_scalar, (7.3, 2.1), (0, 1)),
        (piecewise_abs, (nrm(size=5),), (0,)),
        (lfilter_first_order, (np.array([0.5, 0.2]), np.array([1.0, -0.3]), nrm(size=8)), (0, 1, 2)),
        (augassign_argument, (nrm(size=3), nrm(size=3)), (0, 1)),
        (augassign_scalar_argument, (0.7, 1.3), (0, 1)),
        (nan_functions, (nrm(size=5),), (0,)),
        (linspace_arange_meshgrid, (0.2, 1.3), (0, 1)),
        (atleast_forms, (nrm(size=3), 0.7), (0, 1)),
        (repeat_tile, (nrm(size=3),), (0,)),
        (diff_gradient_forms, (nrm(size=6),), (0,)),
        (ediff_convolve, (nrm(size=6), nrm(size=3)), (0, 1)),
        (broadcast_ops, (nrm(size=(3, 1)), nrm(size=(1, 4)), nrm(size=4)), (0, 1, 2)),
        (broadcast_to_forms, (nrm(size=4),), (0,)),
        (scalar_array_mix, (1.3, pos(4)), (0, 1)),
        (index_forms, (nrm(size=(3, 4)),), (0,)),
        (fancy_index_pairs, (nrm(size=(3, 4)),), (0,)),
        (bool_mask_index, (nrm(size=6),), (0,)),
        (newaxis_forms, (nrm(size=3),), (0,)),
        (ellipsis_index, (nrm(size=(2, 3, 4)),), (0,)),
        (take_and_put, (nrm(size=6),), (0,)),
        (argsort_take_along, (nrm(size=(3, 4)),), (0,)),
        (argmax_select, (nrm(size=5),), (0,)),
        (linalg_inv_det, (A3,), (0,)),
        (linalg_solve_forms, (A3, nrm(size=3)), (0, 1)),
        (linalg_cholesky_eigh, (nrm(size=(3, 3)),), (0,)),
        (linalg_norms, (nrm(size=(3, 4)), nrm(size=4)), (0, 1)),
        (linalg_svd_pinv, (nrm(size=(4, 3)),), (0,)),
        (linalg_qr, (nrm(size=(4, 3)),), (0,)),
        (matrix_power_trace, (0.5 * nrm(size=(3, 3)),), (0,)),
        (batched_matmul, (nrm(size=(2, 3, 4)), nrm(size=(2, 4, 2))), (0, 1)),
        (scalar_math_mix, (0.7, 1.3), (0, 1)),
        (scalar_numpy_ufuncs, (0.4,), (0,)),
        (scalar_special, (0.4,), (0,)),
        (scalar_abs_sign_mod, (1.9, -0.8), (0, 1)),
        (scalar_pow_forms, (1.3, 0.8), (0, 1)),
        (scalar_min_max, (0.7, 0.4), (0, 1)),
        (tangent_if_else, (0.7,), (0,)),
        (tangent_if_else, (-0.7,), (0,)),
        (tangent_while, (0.7,), (0,)),
        (tangent_for_nested, (0.7,), (0,)),
        (tangent_call_helpers, (0.7,), (0,)),
        (tangent_early_return, (0.7,), (0,)),
        (tangent_recursive, (0.7,), (0,)),
        (tangent_ternary_bool, (0.7,), (0,)),
        (tangent_ternary_bool, (3.5,), (0,)),
        (tangent_list_accumulate, (0.7,), (0,)),
        (tangent_tuple_unpack, (0.7, 1.2), (0, 1)),
        (softmax_cross_entropy, (nrm(size=(4, 3)), np.array([0, 2, 1, 2])), (0,)),
        (layer_norm, (nrm(size=(3, 4)), nrm(size=4), nrm(size=4)), (0, 1, 2)),
        (batch_norm_train, (nrm(size=(5, 3)), nrm(size=3), nrm(size=3)), (0, 1, 2)),
        (conv1d_valid, (nrm(size=(2, 7)), nrm(size=(3, 2, 3)), nrm(size=3)), (0, 1, 2)),
        (conv2d_einsum_windows, (nrm(size=(5, 5)), nrm(size=(2, 3))), (0, 1)),
        (max_pool_1d, (nrm(size=7),), (0,)),
        (avg_pool_2d, (nrm(size=(4, 6)),), (0,)),
        (cosine_similarity, (nrm(size=(3, 4)), nrm(size=(3, 4))), (0, 1)),
        (pairwise_distance, (nrm(size=(3, 2)), nrm(size=(4, 2))), (0, 1)),
        (smooth_l1, (nrm(size=6), nrm(size=6)), (0, 1)),
        (gelu_silu_softplus, (nrm(size=5),), (0,)),
        (kl_div_log_softmax, (nrm(size=(2, 4)), nrm(size=(2, 4))), (0, 1)),
        (gru_cell, (nrm(size=3), nrm(size=2), nrm(size=(3, 2)), nrm(size=(3, 3)),
                    nrm(size=(3, 2)), nrm(size=(3, 3))), (0, 1, 2, 3, 4, 5)),
        (attention_head, (nrm(size=(3, 4)), nrm(size=(5, 4)), nrm(size=(5, 2))), (0, 1, 2)),
        (rbf_kernel_outer, (nrm(size=4), 0.8), (0, 1)),
        (gp_nll_outer, (np.linspace(0.0, 2.0, 5), nrm(size=5), 0.7, 0.1), (0, 1, 2, 3)),
        (vandermonde_fit, (nrm(size=3), nrm(size=6), nrm(size=6)), (0, 1)),
    ]


def models(seed=19):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X, y = nrm(size=(8, 3)), nrm(size=8)
    Sig = nrm(size=(3, 3))
    Sig = Sig @ Sig.T + np.eye(3)
    return [
        (linear_regression_l2, (nrm(size=3), 0.3, X, y), (0, 1)),
        (logistic_regression, (nrm(size=3), X, np.sign(y)), (0,)),
        (two_layer_mlp, (nrm(size=(3, 4)), nrm(size=4), nrm(size=(4, 1)), nrm(size=1), X, y),
         (0, 1, 2, 3)),
        (softmax_regression, (nrm(size=(3, 4)), X, rng.integers(0, 4, 8)), (0,)),
        (rnn_sequence, (0.5 * nrm(size=(3, 3)), nrm(size=(3, 2)), nrm(size=(5, 2)), nrm(size=3)),
         (0, 1, 3)),
        (damped_oscillator_rk4, (2.0, 0.3, 1.0, 0.0), (0, 1, 2)),
        (newton_sqrt, (2.0,), (0,)),
        (portfolio_variance, (np.array([0.2, 0.5, 0.3]), Sig, nrm(size=3)), (0, 1, 2)),
        (kmeans_soft_assign, (nrm(size=(2, 3)), X), (0, 1)),
        (poisson_glm, (0.3 * nrm(size=3), X, rng.poisson(2.0, 8).astype(float)), (0,)),
        (huber_regression, (nrm(size=3), X, y), (0,)),
        (matrix_factorization, (nrm(size=(4, 2)), nrm(size=(5, 2)), rng.integers(0, 4, 6),
                                rng.integers(0, 5, 6), nrm(size=6)), (0, 1)),
        (heat_equation_explicit, (np.sin(np.linspace(0.0, 3.0, 8)), 1.2), (0, 1)),
        (projectile_range, (10.0, 0.7), (0, 1)),
        (elastic_net, (nrm(size=3), X, y), (0,)),
        (lotka_volterra_euler, (np.array([1.0, 0.4, 0.8, 0.3]), np.array([1.5, 1.0])), (0, 1)),
        (exp_smoothing, (0.3, nrm(size=10)), (0, 1)),
        (gaussian_mixture_nll, (np.array([-1.0, 1.0]), np.array([0.1, -0.2]), np.array([0.3, -0.1]),
                                nrm(size=7)), (0, 1, 2, 3)),
        (spring_chain_energy, (np.cumsum(nrm(size=(5, 2)), axis=0),), (0,)),
        (inplace_normalize_copy, (nrm(size=6),), (0,)),
    ]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(suites() + models(), sys.argv[1:])
