"""Held-out corpus #6: 161 everyday functions written from the README and docs alone (no
jitad source read, batches 1-2; 3-4 probe hand-written kernels and one-line idioms), each with a
realistic argument set in `corpus()` ... `corpus4()`. `python -m
tests.heldout6_funcs [--backend python] [names...]` runs each through the compiled path and
eager mode against central finite differences and prints a triage line per function; the
default test run checks only the reduced functions at the end of this file
(tests/test_heldout6.py)."""
import math

import numpy as np
import scipy.special as sps
from scipy.special import expit, gammaln, logsumexp

from .harness import fd_struct as _fd_struct


# -- models ---------------------------------------------------------------------------------
def logreg_keepdims(w, b, X, y):
    z = X @ w + b
    p = expit(z)
    ll = y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)
    return -np.mean(ll) + 0.01 * np.dot(w, w)


def softmax_keepdims(W, X, y):
    logits = X @ W
    logits = logits - np.max(logits, axis=1, keepdims=True)
    e = np.exp(logits)
    p = e / np.sum(e, axis=1, keepdims=True)
    return -np.mean(np.log(p[np.arange(len(y)), y]))


def two_layer_relu(params, X, t):
    W1, b1, W2, b2 = params
    h = np.maximum(X @ W1 + b1, 0.0)
    out = h @ W2 + b2
    return 0.5 * np.mean((out.reshape(-1) - t) ** 2)


def mlp_list_of_arrays(weights, biases, x):
    h = x
    for i in range(len(weights)):
        h = np.tanh(weights[i] @ h + biases[i])
    return np.sum(h ** 2)


def elman_rnn(Wx, Wh, xs):
    h = np.zeros(Wh.shape[0])
    total = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(Wx @ xs[t] + Wh @ h)
        total += np.sum(h) / (t + 1)
    return total


def gru_cell_loss(Wz, Wr, Wh, xs):
    H = Wz.shape[0]
    h = np.zeros(H)
    for x in xs:
        hx = np.concatenate([h, x])
        z = expit(Wz @ hx)
        r = expit(Wr @ hx)
        hc = np.tanh(Wh @ np.concatenate([r * h, x]))
        h = (1 - z) * h + z * hc
    return np.sum(h ** 2)


def lstm_dict_params(p, xs):
    H = p["Wf"].shape[0]
    h = np.zeros(H)
    c = np.zeros(H)
    for x in xs:
        v = np.hstack([h, x])
        f = expit(p["Wf"] @ v)
        i = expit(p["Wi"] @ v)
        o = expit(p["Wo"] @ v)
        g = np.tanh(p["Wg"] @ v)
        c = f * c + i * g
        h = o * np.tanh(c)
    return np.sum(h) + 0.1 * np.sum(c ** 2)


def attention_broadcast(Q, K, V):
    d = Q.shape[1]
    scores = np.sum(Q[:, None, :] * K[None, :, :], axis=-1) / math.sqrt(d)
    scores = scores - scores.max(axis=1, keepdims=True)
    A = np.exp(scores)
    A = A / A.sum(axis=1, keepdims=True)
    return np.sum((A @ V) ** 2)


def layer_norm_affine(x, gamma, beta):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    xn = (x - mu) / np.sqrt(var + 1e-5)
    y = gamma * xn + beta
    return np.sum(y * np.arange(y.shape[1]))


def conv1d_valid_loops(x, k):
    n = len(x) - len(k) + 1
    out = np.zeros(n)
    for i in range(n):
        for j in range(len(k)):
            out[i] += x[i + j] * k[j]
    return np.sum(np.tanh(out))


def kalman_filter_1d(q, r, zs):
    m = 0.0
    P = 1.0
    nll = 0.0
    for z in zs:
        P = P + q
        S = P + r
        K = P / S
        innov = z - m
        nll += 0.5 * (math.log(2 * math.pi * S) + innov ** 2 / S)
        m = m + K * innov
        P = (1 - K) * P
    return nll


def hmm_forward_logsumexp(log_pi, log_A, log_B, obs):
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        alpha = logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return logsumexp(alpha)


def gp_nll_cholesky(log_ell, log_sf, X, y):
    ell = np.exp(log_ell)
    sf2 = np.exp(2 * log_sf)
    d = X[:, None] - X[None, :]
    K = sf2 * np.exp(-0.5 * d ** 2 / ell ** 2) + 0.1 * np.eye(len(X))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def gp_nll_slogdet(params, X, y):
    ell, sf, sn = np.exp(params)
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=2)
    K = sf ** 2 * np.exp(-sq / (2 * ell ** 2)) + sn ** 2 * np.eye(X.shape[0])
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * np.dot(y, np.linalg.solve(K, y)) + 0.5 * logdet


def black_scholes_erf(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    N1 = 0.5 * (1 + math.erf(d1 / math.sqrt(2)))
    N2 = 0.5 * (1 + math.erf(d2 / math.sqrt(2)))
    return S * N1 - K * math.exp(-r * T) * N2


def euler_until_time(k, x0):
    t = 0.0
    x = x0
    dt = 0.01
    while t < 1.0:
        x = x + dt * (-k * x + math.sin(t))
        t += dt
    return x


def rk4_vector_field(theta, y0):
    def f(y):
        return np.array([y[1], -theta[0] * y[0] - theta[1] * y[1]])
    y = y0.copy()
    h = 0.05
    for _ in range(40):
        k1 = f(y)
        k2 = f(y + 0.5 * h * k1)
        k3 = f(y + 0.5 * h * k2)
        k4 = f(y + h * k3)
        y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] ** 2 + y[1]


def leapfrog_harmonic(q0, p0, omega):
    q, p = q0, p0
    dt = 0.1
    for _ in range(50):
        p = p - 0.5 * dt * omega ** 2 * q
        q = q + dt * p
        p = p - 0.5 * dt * omega ** 2 * q
    return 0.5 * p ** 2 + 0.5 * omega ** 2 * q ** 2 + q


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def newton_kepler(M, e):
    E = M
    for _ in range(50):
        dE = (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
        E = E - dE
        if abs(dE) < 1e-14:
            break
    return E


def bisection_root(c):
    lo, hi = 0.0, 2.0
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if mid ** 3 + c * mid - 1.0 > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi) * c


def spring_network(pos, edges, rest):
    E = 0.0
    for k in range(edges.shape[0]):
        i, j = edges[k, 0], edges[k, 1]
        d = np.linalg.norm(pos[i] - pos[j])
        E += 0.5 * (d - rest[k]) ** 2
    return E


def nbody_potential(x):
    n = x.shape[0]
    U = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.sqrt(np.sum((x[i] - x[j]) ** 2))
            U -= 1.0 / r
    return U


def lennard_jones_vectorized(x):
    diff = x[:, None, :] - x[None, :, :]
    r2 = np.sum(diff ** 2, axis=-1)
    iu = np.triu_indices(x.shape[0], 1)
    r2 = r2[iu]
    inv6 = 1.0 / r2 ** 3
    return np.sum(4.0 * (inv6 ** 2 - inv6))


def ising_energy(s, J, h):
    n, m = s.shape
    E = 0.0
    for i in range(n):
        for j in range(m):
            E -= J * s[i, j] * (s[(i + 1) % n, j] + s[i, (j + 1) % m])
            E -= h * s[i, j]
    return E


def beale(p):
    x, y = p[0], p[1]
    return ((1.5 - x + x * y) ** 2 + (2.25 - x + x * y ** 2) ** 2
            + (2.625 - x + x * y ** 3) ** 2)


def himmelblau(x, y):
    return (x ** 2 + y - 11) ** 2 + (x + y ** 2 - 7) ** 2


def ackley_vec(x):
    n = x.size
    a = -20 * np.exp(-0.2 * np.sqrt(np.sum(x ** 2) / n))
    b = -np.exp(np.sum(np.cos(2 * np.pi * x)) / n)
    return a + b + 20 + np.e


def styblinski_tang(x):
    return 0.5 * np.sum(x ** 4 - 16 * x ** 2 + 5 * x)


def booth_tuple(p):
    x, y = p
    return (x + 2 * y - 7) ** 2 + (2 * x + y - 5) ** 2


# -- idioms ---------------------------------------------------------------------------------
def cumsum_drawdown(r):
    wealth = np.cumsum(r)
    return np.sum(wealth ** 2) - np.sum(np.cumprod(1.0 + 0.1 * r))


def eye_diag_outer(v, A):
    M = A + np.outer(v, v) + 2.0 * np.eye(len(v))
    return np.sum(np.diag(M) ** 2) + np.trace(M @ M)


def einsum_bilinear(x, W, y):
    return np.einsum("i,ij,j->", x, W, y) + np.einsum("ij,ij->", W, W)


def where_piecewise(x):
    y = np.where(x > 0, x ** 2, -0.5 * x)
    return np.sum(y)


def clip_and_abs(x, lo):
    return np.sum(np.clip(x, lo, 1.0) ** 2) + np.sum(np.abs(x))


def norm_axis_rows(X):
    n = np.linalg.norm(X, axis=1)
    return np.sum(n ** 3) + np.linalg.norm(X)


def standardize_std(X):
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    return np.sum(Z[:, 0] * Z[:, 1])


def sorted_trimmed_mean(x):
    s = np.sort(x)
    return np.mean(s[1:-1] ** 2)


def argmax_as_index(x, W):
    s = W @ x
    k = np.argmax(s)
    return s[k] ** 2 + np.sum(W[k])


def tuple_args_pair(ab, x):
    a, b = ab
    return np.sum((a * x + b) ** 2)


def dict_linear(params, x):
    return np.sum(np.tanh(params["w"] * x + params["b"]))


def enumerate_weighted(x):
    total = 0.0
    for i, v in enumerate(x):
        total += (i + 1) * v ** 2
    return total


def zip_pairs(a, b):
    s = 0.0
    for u, v in zip(a, b):
        s += u * v - u ** 2
    return s


def list_comprehension_powers(x):
    terms = [np.sum(x ** k) / k for k in range(1, 4)]
    return sum(terms)


def nested_helper_chain(x):
    def softplus(z):
        return np.log1p(np.exp(z))

    def layer(z):
        return softplus(2.0 * z) - softplus(z)
    return np.sum(layer(layer(x)))


def recursive_power(x, n):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def recursive_power_entry(x):
    return recursive_power(x, 5) + recursive_power(x, 2)


def early_return_branch(x):
    if x < 0:
        return x ** 2
    y = math.sqrt(x + 1.0)
    if y > 1.5:
        return y * x
    return y


def break_on_threshold(x):
    s = 0.0
    for i in range(100):
        s = s + x * math.cos(s)
        if s > 3.0:
            break
    return s


def continue_skip_odd(x):
    acc = 0.0
    for i in range(len(x)):
        if i % 2 == 1:
            continue
        acc += x[i] ** 3
    return acc


def slice_augassign(x):
    y = np.zeros(6)
    y[:3] += x
    y[3:] += x ** 2
    y[1:4] *= 2.0
    return np.sum(y ** 2)


def reverse_slice(x):
    r = x[::-1]
    return np.sum(x * r) + np.dot(x[::2], x[1::2])


def concat_stack_ops(a, b):
    c = np.concatenate([a, b])
    s = np.stack([a, b])
    h = np.hstack([a, b])
    v = np.vstack([a, b])
    return np.sum(c ** 2) + np.sum(s[0] * s[1]) + np.sum(h) + np.sum(v.T @ v)


def reshape_minus_one(x):
    M = x.reshape(2, -1)
    return np.sum(M.T @ M) + np.sum(M.reshape(-1) ** 3)


def astype_float_mask(x):
    m = (x > 0).astype(float)
    return np.sum(m * x ** 2)


def scipy_special_mix(x):
    return (np.sum(gammaln(x + 1.0)) + np.sum(sps.erf(x)) + logsumexp(x)
            + np.sum(expit(x)))


def var_std_ddof(x):
    return np.var(x, ddof=1) + np.std(x) * x.mean()


def mean_axis0_keepdims(X):
    mu = np.mean(X, axis=0, keepdims=True)
    C = (X - mu).T @ (X - mu) / (X.shape[0] - 1)
    return np.sum(C ** 2)


def triangular_mask(A):
    L = np.tril(A)
    U = np.triu(A, 1)
    return np.sum(L @ U) + np.sum(L ** 2)


def max_pool_loops(x):
    out = []
    for i in range(0, len(x) - 1, 2):
        out.append(max(x[i], x[i + 1]))
    return np.sum(np.array(out) ** 2)


def softplus_builtin_min(x):
    s = 0.0
    for v in x:
        s += min(v, 1.0) + max(v, -1.0) ** 2
    return s


def polyval_horner(c, x):
    y = np.zeros_like(x)
    for ci in c:
        y = y * x + ci
    return np.sum(y ** 2)


def moving_average(x):
    w = 3
    out = np.zeros(len(x) - w + 1)
    for i in range(len(out)):
        out[i] = np.mean(x[i:i + w])
    return np.sum(out * out)


def pairwise_distances(X):
    G = X @ X.T
    sq = np.diag(G)
    D = sq[:, None] + sq[None, :] - 2 * G
    return np.sum(np.exp(-D))


def cross_entropy_onehot(W, X, Y):
    Z = X @ W
    lse = logsumexp(Z, axis=1)
    return np.mean(lse - np.sum(Y * Z, axis=1))


def huber_where(r, delta):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def elastic_net(w, X, y, lam):
    res = X @ w - y
    return 0.5 * res @ res + lam * (0.5 * np.sum(w ** 2) + np.sum(np.abs(w)))


def log_det_inv(A):
    S = A @ A.T + np.eye(A.shape[0])
    return np.log(np.linalg.det(S)) + np.trace(np.linalg.inv(S))


def quadratic_form_solve(A, b):
    M = A.T @ A + 0.5 * np.eye(A.shape[1])
    x = np.linalg.solve(M, b)
    return b @ x


def cholesky_logdet(A):
    S = A @ A.T + 3.0 * np.eye(A.shape[0])
    L = np.linalg.cholesky(S)
    return 2.0 * np.sum(np.log(np.diagonal(L)))


def exponential_smoothing(alpha, x):
    s = x[0]
    sse = 0.0
    for t in range(1, len(x)):
        sse += (x[t] - s) ** 2
        s = alpha * x[t] + (1 - alpha) * s
    return sse


def ar2_loss(phi, x):
    pred = phi[0] * x[1:-1] + phi[1] * x[:-2]
    return np.mean((x[2:] - pred) ** 2)


def gaussian_mixture_1d(mu, log_sigma, logit_w, x):
    w = np.exp(logit_w - logsumexp(logit_w))
    sigma = np.exp(log_sigma)
    lp = (-0.5 * ((x[:, None] - mu[None, :]) / sigma) ** 2 - np.log(sigma)
          - 0.5 * np.log(2 * np.pi) + np.log(w))
    return -np.sum(logsumexp(lp, axis=1))


def poisson_loglik_gammaln(log_rate, k):
    lam = np.exp(log_rate)
    return -np.sum(k * log_rate - lam - gammaln(k + 1.0))


def rotation_2d(theta, pts):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    out = pts @ R.T
    return np.sum((out - pts[::-1]) ** 2)


def matrix_power_loop(A):
    P = np.eye(A.shape[0])
    for _ in range(4):
        P = P @ A
    return np.trace(P)


def soft_threshold(x, t):
    return np.sum(np.sign(x) * np.maximum(np.abs(x) - t, 0.0) * x)


def fixed_point_cos(a):
    x = 0.5
    it = 0
    while True:
        xn = math.cos(a * x)
        it += 1
        if abs(xn - x) < 1e-13 or it > 500:
            break
        x = xn
    return xn


def gradient_descent_inner(w0, A, b):
    w = w0
    for _ in range(20):
        g = A.T @ (A @ w - b)
        w = w - 0.05 * g
    return np.sum(w ** 2)


def lower_bound_hinge(W, X, y):
    margins = 1 - y * (X @ W)
    return np.sum(np.maximum(margins, 0) ** 2) / len(y)


def kl_diag_gaussians(mu1, logv1, mu2, logv2):
    v1, v2 = np.exp(logv1), np.exp(logv2)
    return 0.5 * np.sum(logv2 - logv1 + (v1 + (mu1 - mu2) ** 2) / v2 - 1.0)


def sinkhorn_small(C, eps):
    K = np.exp(-C / eps)
    n, m = C.shape
    u = np.ones(n) / n
    v = np.ones(m) / m
    a = np.ones(n) / n
    b = np.ones(m) / m
    for _ in range(30):
        u = a / (K @ v)
        v = b / (K.T @ u)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


def heat_explicit(kappa, u0):
    u = u0.copy()
    for _ in range(20):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + kappa * lap
    return np.sum(u ** 2)


def ode_adaptive_halving(k):
    y, t, h = 1.0, 0.0, 0.1
    while t < 1.0:
        if t + h > 1.0:
            h = 1.0 - t
        y1 = y + h * (-k * y)
        y2 = y + 0.5 * h * (-k * y)
        y2 = y2 + 0.5 * h * (-k * y2)
        if abs(y1 - y2) > 1e-3:
            h = h / 2
            continue
        y = y2
        t = t + h
    return y


def diff_smoothness(x):
    d = np.diff(x)
    dd = np.diff(x, n=2)
    return np.sum(d ** 2) + 0.1 * np.sum(dd ** 2)


def outer_product_rank1(u, v, M):
    return np.sum((M - np.outer(u, v)) ** 2)


def flatten_and_dot(W, x):
    return np.dot(W.flatten(), np.tile(x, W.shape[0]))


def logsumexp_keepdims(X):
    return np.sum(logsumexp(X, axis=1, keepdims=True) * X)


def gelu_tanh(x):
    return np.sum(0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))))


def batch_matvec_einsum(A, x):
    y = np.einsum("bij,j->bi", A, x)
    return np.sum(np.tanh(y))


def string_reduction(x, reduction="mean"):
    l = (x - 1.0) ** 2
    if reduction == "mean":
        return np.mean(l)
    return np.sum(l)


def while_counter_list(x):
    vals = []
    i = 0
    while i < len(x):
        vals.append(x[i] * x[(i + 1) % len(x)])
        i += 1
    return np.sum(np.array(vals))


def corpus(seed=6):
    """(function, args, wrt) for each corpus function."""
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    uni = rng.uniform
    X = nrm(size=(8, 3))
    ybin = (rng.uniform(size=8) > 0.5).astype(float)
    ycls = rng.integers(0, 3, 8)
    H = 3
    A_hmm = np.log(rng.dirichlet(np.ones(3), 3))
    B_hmm = np.log(rng.dirichlet(np.ones(4), 3))
    pts4 = nrm(size=(4, 2))
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])
    grid = np.linspace(0.0, 1.5, 4)
    lj = np.array([[0.0, 0.0, 0.0], [1.1, 0.1, 0.0], [0.2, 1.2, 0.1], [1.0, 1.0, 0.9]])
    Xgp = np.linspace(-1, 1, 6)
    ygp = np.sin(3 * Xgp)
    return [
        (logreg_keepdims, (nrm(size=3), 0.1, X, ybin), (0, 1)),
        (softmax_keepdims, (nrm(size=(3, 3)), X, ycls), (0,)),
        (two_layer_relu, ((nrm(size=(3, 5)), nrm(size=5), nrm(size=(5, 1)), nrm(size=1)), X,
                          nrm(size=8)), (0,)),
        (mlp_list_of_arrays, ([nrm(size=(4, 3)), nrm(size=(2, 4))], [nrm(size=4), nrm(size=2)],
                              nrm(size=3)), (0, 1)),
        (elman_rnn, (0.5 * nrm(size=(H, 2)), 0.5 * nrm(size=(H, H)), nrm(size=(5, 2))), (0, 1)),
        (gru_cell_loss, (0.5 * nrm(size=(H, H + 2)), 0.5 * nrm(size=(H, H + 2)),
                         0.5 * nrm(size=(H, H + 2)), nrm(size=(4, 2))), (0, 1, 2)),
        (lstm_dict_params, ({k: 0.5 * nrm(size=(H, H + 2)) for k in ("Wf", "Wi", "Wo", "Wg")},
                            nrm(size=(4, 2))), (0,)),
        (attention_broadcast, (nrm(size=(4, 3)), nrm(size=(5, 3)), nrm(size=(5, 2))), (0, 1, 2)),
        (layer_norm_affine, (nrm(size=(3, 4)), uni(0.5, 1.5, 4), nrm(size=4)), (0, 1, 2)),
        (conv1d_valid_loops, (nrm(size=8), nrm(size=3)), (0, 1)),
        (kalman_filter_1d, (0.1, 0.5, nrm(size=6)), (0, 1)),
        (hmm_forward_logsumexp, (np.log(np.array([0.5, 0.3, 0.2])), A_hmm, B_hmm,
                                 np.array([0, 3, 1, 2, 2])), (0, 1, 2)),
        (gp_nll_cholesky, (math.log(0.5), 0.0, Xgp, ygp), (0, 1)),
        (gp_nll_slogdet, (np.array([-0.5, 0.1, -1.0]), nrm(size=(5, 2)), nrm(size=5)), (0,)),
        (black_scholes_erf, (100.0, 95.0, 0.5, 0.02, 0.25), (0, 1, 2, 3, 4)),
        (euler_until_time, (0.7, 1.2), (0, 1)),
        (rk4_vector_field, (np.array([2.0, 0.3]), np.array([1.0, 0.0])), (0, 1)),
        (leapfrog_harmonic, (0.5, 0.1, 1.3), (0, 1, 2)),
        (newton_sqrt, (2.5,), (0,)),
        (newton_kepler, (1.0, 0.3), (0, 1)),
        (bisection_root, (0.8,), (0,)),
        (spring_network, (pts4, edges, uni(0.5, 1.5, 5)), (0, 2)),
        (nbody_potential, (pts4 * 2,), (0,)),
        (lennard_jones_vectorized, (lj,), (0,)),
        (ising_energy, (np.tanh(nrm(size=(3, 4))), 0.7, 0.2), (0, 1, 2)),
        (beale, (np.array([1.2, 0.4]),), (0,)),
        (himmelblau, (1.5, -0.7), (0, 1)),
        (ackley_vec, (nrm(size=4) * 0.7,), (0,)),
        (styblinski_tang, (nrm(size=4),), (0,)),
        (booth_tuple, ((0.3, 1.7),), (0,)),
        (cumsum_drawdown, (nrm(size=6) * 0.1,), (0,)),
        (eye_diag_outer, (nrm(size=3), nrm(size=(3, 3))), (0, 1)),
        (einsum_bilinear, (nrm(size=3), nrm(size=(3, 4)), nrm(size=4)), (0, 1, 2)),
        (where_piecewise, (nrm(size=7),), (0,)),
        (clip_and_abs, (nrm(size=7), -0.5), (0, 1)),
        (norm_axis_rows, (nrm(size=(4, 3)),), (0,)),
        (standardize_std, (nrm(size=(6, 2)),), (0,)),
        (sorted_trimmed_mean, (nrm(size=6),), (0,)),
        (argmax_as_index, (nrm(size=3), nrm(size=(4, 3))), (0, 1)),
        (tuple_args_pair, ((1.5, -0.3), nrm(size=4)), (0, 1)),
        (dict_linear, ({"w": nrm(size=3), "b": 0.2}, nrm(size=3)), (0,)),
        (enumerate_weighted, (nrm(size=5),), (0,)),
        (zip_pairs, (nrm(size=5), nrm(size=5)), (0, 1)),
        (list_comprehension_powers, (uni(0.2, 1.0, 4),), (0,)),
        (nested_helper_chain, (nrm(size=4),), (0,)),
        (recursive_power_entry, (1.1,), (0,)),
        (early_return_branch, (2.0,), (0,)),
        (break_on_threshold, (0.9,), (0,)),
        (continue_skip_odd, (nrm(size=7),), (0,)),
        (slice_augassign, (nrm(size=3),), (0,)),
        (reverse_slice, (nrm(size=6),), (0,)),
        (concat_stack_ops, (nrm(size=3), nrm(size=3)), (0, 1)),
        (reshape_minus_one, (nrm(size=6),), (0,)),
        (astype_float_mask, (nrm(size=6),), (0,)),
        (scipy_special_mix, (uni(0.3, 2.0, 4),), (0,)),
        (var_std_ddof, (nrm(size=6),), (0,)),
        (mean_axis0_keepdims, (nrm(size=(6, 3)),), (0,)),
        (triangular_mask, (nrm(size=(3, 3)),), (0,)),
        (max_pool_loops, (nrm(size=8),), (0,)),
        (softplus_builtin_min, (nrm(size=6) * 2,), (0,)),
        (polyval_horner, (nrm(size=4), nrm(size=5)), (0, 1)),
        (moving_average, (nrm(size=8),), (0,)),
        (pairwise_distances, (nrm(size=(4, 2)),), (0,)),
        (cross_entropy_onehot, (nrm(size=(3, 3)), X, np.eye(3)[ycls]), (0,)),
        (huber_where, (nrm(size=7) * 2, 1.0), (0, 1)),
        (elastic_net, (nrm(size=3), X, nrm(size=8), 0.3), (0, 3)),
        (log_det_inv, (nrm(size=(3, 3)),), (0,)),
        (quadratic_form_solve, (nrm(size=(4, 3)), nrm(size=3)), (0, 1)),
        (cholesky_logdet, (nrm(size=(3, 3)),), (0,)),
        (exponential_smoothing, (0.4, nrm(size=8)), (0, 1)),
        (ar2_loss, (np.array([0.5, -0.2]), nrm(size=10)), (0, 1)),
        (gaussian_mixture_1d, (nrm(size=2), 0.3 * nrm(size=2), nrm(size=2), nrm(size=7)),
         (0, 1, 2, 3)),
        (poisson_loglik_gammaln, (0.3 * nrm(size=5), rng.integers(0, 5, 5).astype(float)), (0,)),
        (rotation_2d, (0.4, nrm(size=(5, 2))), (0, 1)),
        (matrix_power_loop, (0.5 * nrm(size=(3, 3)),), (0,)),
        (soft_threshold, (nrm(size=7), 0.3), (0, 1)),
        (fixed_point_cos, (0.8,), (0,)),
        (gradient_descent_inner, (nrm(size=3), 0.5 * nrm(size=(4, 3)), nrm(size=4)), (0, 1, 2)),
        (lower_bound_hinge, (nrm(size=3), X, 2 * ybin - 1), (0,)),
        (kl_diag_gaussians, (nrm(size=3), 0.3 * nrm(size=3), nrm(size=3), 0.3 * nrm(size=3)),
         (0, 1, 2, 3)),
        (sinkhorn_small, (uni(0.0, 1.0, (3, 4)), 0.5), (0, 1)),
        (heat_explicit, (0.2, np.sin(np.linspace(0, 3, 7))), (0, 1)),
        (ode_adaptive_halving, (1.3,), (0,)),
        (diff_smoothness, (nrm(size=6),), (0,)),
        (outer_product_rank1, (nrm(size=3), nrm(size=4), nrm(size=(3, 4))), (0, 1, 2)),
        (flatten_and_dot, (nrm(size=(2, 3)), nrm(size=3)), (0, 1)),
        (logsumexp_keepdims, (nrm(size=(3, 4)),), (0,)),
        (gelu_tanh, (nrm(size=5),), (0,)),
        (batch_matvec_einsum, (nrm(size=(2, 3, 4)), nrm(size=4)), (0, 1)),
        (string_reduction, (nrm(size=5),), (0,)),
        (while_counter_list, (nrm(size=5),), (0,)),
    ]


# -- second batch: idioms past the first 91 -------------------------------------------------
def reverse_range_negative_step(x):
    acc = 0.0
    for i in range(len(x) - 1, -1, -1):
        acc = acc * 0.9 + x[i] ** 2
    return acc


def discounted_returns_reverse_cumsum(r, gamma):
    T = len(r)
    disc = gamma ** np.arange(T)
    G = np.cumsum((r * disc)[::-1])[::-1] / disc
    return np.sum(G ** 2)


def row_writes_in_loop(X, w):
    out = np.zeros_like(X)
    for i in range(X.shape[0]):
        out[i, :] = np.tanh(X[i] * w)
    return np.sum(out ** 2)


def chained_index(A):
    s = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            s += A[i][j] * (i - j)
    return s


def while_and_condition(x):
    y = x
    k = 0
    while y < 5.0 and k < 20:
        y = y * 1.3 + 0.1
        k += 1
    return y


def norms_with_ord(x, A):
    return np.linalg.norm(x, ord=1) + np.linalg.norm(A, "fro") + np.linalg.norm(x, np.inf)


def sum_axis_tuple(T):
    return np.sum(np.sum(T ** 2, axis=(0, 1)) * np.arange(1.0, T.shape[2] + 1))


def fibonacci_swap(a, b):
    for _ in range(6):
        a, b = b, a + 0.5 * b
    return a * b


def topk_sorted(x):
    s = np.sort(x)[::-1][:3]
    return np.sum(s * np.array([3.0, 2.0, 1.0]))


def masked_sum_and_where(x):
    pos = x[x > 0].sum()
    idx = np.where(x < 0)[0]
    return pos ** 2 + np.sum(x[idx] ** 3)


def nested_list_matrix(x):
    M = np.array([[x[i] * x[j] + (i == j) for j in range(len(x))] for i in range(len(x))])
    return np.sum(M @ M)


def builtin_sum_of_array(x):
    return sum(x) ** 2 + float(np.sum(x)) + x.size * x.ndim + x.shape[-1]


def empty_then_fill(x):
    y = np.empty(len(x))
    for i in range(len(x)):
        y[i] = x[i] * i
    z = np.full(3, 2.0) * x[:3]
    return np.sum(y ** 2) + np.sum(z)


def keyword_only_scale(x, *, scale=2.0):
    return np.sum((scale * x) ** 2)


def keyword_only_entry(x):
    return keyword_only_scale(x, scale=0.5) + keyword_only_scale(x)


def inverse_kinematics_2link(theta):
    l1, l2 = 1.0, 0.7
    x = l1 * math.cos(theta[0]) + l2 * math.cos(theta[0] + theta[1])
    y = l1 * math.sin(theta[0]) + l2 * math.sin(theta[0] + theta[1])
    return math.hypot(x - 1.2, y - 0.5) + math.atan2(y, x)


def ensemble_mean_stack(Ws, x):
    preds = [np.tanh(W @ x) for W in Ws]
    return np.sum(np.mean(np.stack(preds), axis=0) ** 2)


def trapezoid_integral(y, dx):
    return np.trapezoid(y ** 2, dx=dx)


def interp_table(x):
    xp = np.linspace(0.0, 1.0, 5)
    fp = xp ** 2
    return np.sum(np.interp(x, xp, fp) * x)


def polyval_numpy(c, x):
    return np.sum(np.polyval(c, x) ** 2)


def lstsq_residual(A, b):
    x, res, rank, sv = np.linalg.lstsq(A, b, rcond=None)
    return np.sum(x ** 2)


def covariance_cov(X):
    C = np.cov(X, rowvar=False)
    return np.trace(C @ C)


def matrix_power_numpy(A):
    return np.trace(np.linalg.matrix_power(A, 3))


def scipy_softmax_axis(Z, y):
    P = sps.softmax(Z, axis=1)
    return -np.sum(np.log(P[np.arange(Z.shape[0]), y]))


def eigh_smallest(A):
    S = A + A.T
    w, V = np.linalg.eigh(S)
    return w[0] + np.sum(V[:, -1] ** 4)


def kalman_matrix(F, Q, zs):
    n = F.shape[0]
    m = np.zeros(n)
    P = np.eye(n)
    Hm = np.eye(n)[:1]
    R = np.array([[0.2]])
    nll = 0.0
    for z in zs:
        m = F @ m
        P = F @ P @ F.T + Q
        S = Hm @ P @ Hm.T + R
        Sinv = np.linalg.inv(S)
        Kg = P @ Hm.T @ Sinv
        innov = z - Hm @ m
        nll += 0.5 * (np.log(np.linalg.det(S)) + innov @ Sinv @ innov)
        m = m + Kg @ innov
        P = (np.eye(n) - Kg @ Hm) @ P
    return nll


def copy_then_augment(x):
    y = x.copy()
    y += 1.0
    y *= x
    return np.sum(y)


def power_int_arg(x, n):
    return np.sum(x ** n) + np.sum(np.power(x, 3)) + np.sum(x ** -1.0)


def max_of_max(x):
    return max(np.max(x), 0.0) + min(np.min(x), 0.0) ** 2 + np.abs(x).max()


def norm_keepdims_normalize(X):
    U = X / np.linalg.norm(X, axis=-1, keepdims=True)
    return np.sum((U @ U.T) ** 2)


def reassign_param_chain(x):
    y = x
    y = y * 2
    y = np.exp(y) - 1
    return np.sum(y / (1 + y ** 2))


def global_const_scale(x):
    return SCALE * np.sum(np.sin(x) ** 2)


SCALE = 3.0


def corpus2(seed=66):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [
        (reverse_range_negative_step, (nrm(size=5),), (0,)),
        (discounted_returns_reverse_cumsum, (nrm(size=6), 0.9), (0, 1)),
        (row_writes_in_loop, (nrm(size=(3, 4)), nrm(size=4)), (0, 1)),
        (chained_index, (nrm(size=(3, 4)),), (0,)),
        (while_and_condition, (0.7,), (0,)),
        (norms_with_ord, (nrm(size=4), nrm(size=(2, 3))), (0, 1)),
        (sum_axis_tuple, (nrm(size=(2, 3, 4)),), (0,)),
        (fibonacci_swap, (0.3, 0.8), (0, 1)),
        (topk_sorted, (nrm(size=6),), (0,)),
        (masked_sum_and_where, (nrm(size=7),), (0,)),
        (nested_list_matrix, (nrm(size=3),), (0,)),
        (builtin_sum_of_array, (nrm(size=4),), (0,)),
        (empty_then_fill, (nrm(size=5),), (0,)),
        (keyword_only_entry, (nrm(size=4),), (0,)),
        (inverse_kinematics_2link, (np.array([0.3, 0.9]),), (0,)),
        (ensemble_mean_stack, ([nrm(size=(2, 3)) for _ in range(3)], nrm(size=3)), (0, 1)),
        (trapezoid_integral, (nrm(size=6), 0.1), (0, 1)),
        (interp_table, (rng.uniform(0.05, 0.95, 4),), (0,)),
        (polyval_numpy, (nrm(size=3), nrm(size=4)), (0, 1)),
        (lstsq_residual, (nrm(size=(5, 3)), nrm(size=5)), (0, 1)),
        (covariance_cov, (nrm(size=(6, 3)),), (0,)),
        (matrix_power_numpy, (0.5 * nrm(size=(3, 3)),), (0,)),
        (scipy_softmax_axis, (nrm(size=(4, 3)), np.array([0, 2, 1, 1])), (0,)),
        (eigh_smallest, (nrm(size=(3, 3)),), (0,)),
        (kalman_matrix, (np.array([[1.0, 0.1], [0.0, 0.9]]), 0.05 * np.eye(2),
                         nrm(size=(4, 1))), (0, 1)),
        (copy_then_augment, (nrm(size=4),), (0,)),
        (power_int_arg, (rng.uniform(0.5, 1.5, 4), 3), (0,)),
        (max_of_max, (nrm(size=5),), (0,)),
        (norm_keepdims_normalize, (nrm(size=(3, 4)),), (0,)),
        (reassign_param_chain, (0.3 * nrm(size=4),), (0,)),
        (global_const_scale, (nrm(size=4),), (0,)),
    ]


# -- fourth batch: one-line idioms (builtins, masks, slices, float32, helpers' tuples) -----
def float32_tanh(x):
    return np.sum(np.tanh(x) ** 2)
def builtins_mix(x):
    return pow(x[0], 2) + abs(x[1]) + pow(x[2], 0.5 * x[0]) + pow(2, 3) * x[0]
def item_float64(x):
    return np.float64(x[0]) * x.item(1) + float(x[2]) ** 2
def neg_step(x):
    return np.sum(x[::-2] * x[-1::-2]) + np.sum(x[4:0:-1])
def mask_assign(x):
    y = x.copy()
    y[y < 0] = 0.0
    return np.sum(y ** 2)
def accumulate_max(x):
    return np.sum(np.maximum.accumulate(x))
def descending(x):
    return np.sum(-np.sort(-x) * np.arange(len(x)))
def chained_cmp(x):
    s = 0.0
    for v in x:
        if -0.5 < v < 0.5:
            s += v ** 2
        else:
            s += abs(v)
    return s
def leaky(x):
    return np.sum(np.where(x > 0, x, 0.01 * x) ** 2)
def col_slice(X):
    return np.sum(X[:, 0:1] * X) + np.sum(np.squeeze(X[:, 1:2], axis=1))
def clip_none(x):
    return np.sum(np.clip(x, None, 0.5)) + np.sum(x.clip(min=-0.2))
def zeros_shape(X):
    Z = np.zeros(X.shape)
    Z += X * 2
    return np.sum(Z[0]) * len(X)
def tdot(X, y):
    return np.sum(X.T.dot(y) ** 2)
def prod_det(x):
    return np.prod(x) + np.linalg.det(np.array([[x[0], x[1]], [x[2], x[0]]]))
def log_sum_exp_naive(x):
    return np.log(np.sum(np.exp(x)))
def stable_sigmoid(x):
    return np.sum(np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(-np.abs(x)) / (1 + np.exp(-np.abs(x)))))
def isclose_guard(x):
    return np.sum(np.where(np.isclose(x, 0.0), 0.0, np.sin(x) / x))
def sum_axis_none(X):
    return np.sum(X, axis=None) ** 2 + np.mean(X, axis=(0, 1))
def int_mixed(x, n):
    return np.sum(x ** 2) * n + x[n % len(x)]
def tuple_return_helper(x):
    def stats(v):
        return v.mean(), v.std()
    m, s = stats(x)
    return m * s
def array_of_scalars(a, b):
    v = np.array([a, b, a * b])
    return np.sum(v ** 2)
def enumerate_reversed(x):
    s = 0.0
    for i, v in enumerate(reversed(x)):
        s += i * v
    return s
def nested_loops_break(X):
    s = 0.0
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            if X[i, j] > 1.0:
                break
            s += X[i, j] ** 2
    return s
def einsum_trace_outer(A, x):
    return np.einsum("ii", A) + np.einsum("i,j->ij", x, x).sum() + np.einsum("ij,j", A, x).sum()
def hstack_scalars(a, b):
    v = np.hstack([a, b, np.array([a * b])])
    return np.sum(v ** 2)
def float32_args(x):
    return np.sum(x * x)


def corpus4(seed=7):
    rng = np.random.default_rng(seed)
    return [
    (float32_tanh, (rng.normal(size=4).astype(np.float32),), (0,)),
    (builtins_mix, (rng.normal(size=3),), (0,)),
    (item_float64, (rng.normal(size=3),), (0,)),
    (neg_step, (rng.normal(size=6),), (0,)),
    (mask_assign, (rng.normal(size=6),), (0,)),
    (accumulate_max, (rng.normal(size=6),), (0,)),
    (descending, (rng.normal(size=6),), (0,)),
    (chained_cmp, (rng.normal(size=6),), (0,)),
    (leaky, (rng.normal(size=6),), (0,)),
    (col_slice, (rng.normal(size=(3, 2)),), (0,)),
    (clip_none, (rng.normal(size=6),), (0,)),
    (zeros_shape, (rng.normal(size=(3, 2)),), (0,)),
    (tdot, (rng.normal(size=(3, 2)), rng.normal(size=3)), (0, 1)),
    (prod_det, (rng.normal(size=3),), (0,)),
    (log_sum_exp_naive, (rng.normal(size=4),), (0,)),
    (stable_sigmoid, (rng.normal(size=4),), (0,)),
    (isclose_guard, (np.array([0.0, 0.5, -1.0]),), (0,)),
    (sum_axis_none, (rng.normal(size=(2, 3)),), (0,)),
    (int_mixed, (rng.normal(size=3), 4), (0,)),
    (tuple_return_helper, (rng.normal(size=4),), (0,)),
    (array_of_scalars, (0.3, -1.2), (0, 1)),
    (enumerate_reversed, (rng.normal(size=4),), (0,)),
    (nested_loops_break, (rng.normal(size=(3, 3)),), (0,)),
    (einsum_trace_outer, (rng.normal(size=(3, 3)), rng.normal(size=3)), (0, 1)),
    (hstack_scalars, (0.3, -1.2), (0, 1)),
]


# -- the tested set (tests/test_heldout6.py): what the corpus found, reduced ----------------
def string_argument(x, reduction="mean"):
    # an entry's string argument is a constant of the specialization, as None is
    l = (x - 1.0) ** 2
    if reduction == "mean":
        return np.mean(l)
    elif reduction == "sum":
        return np.sum(l)
    return np.max(l)


def builtin_sum_of_arrays(x, X):
    # Python's sum over an array's rows: np.sum(x, axis=0)
    return sum(x) ** 2 + np.sum(sum(X) * x[:3]) + sum(x * x)


def where_one_argument(x):
    # np.where(c) is np.nonzero(c)
    idx = np.where(x < 0)[0]
    (pos,) = np.where(x > 0)
    return np.sum(x[idx] ** 3) + np.sum(x[pos]) ** 2


def nested_calls_nested(x, w):
    # a nested function calling ones defined before it: each reads the enclosing function's
    # variables when it runs (scale changes between the calls), and one defines its own
    def act(z):
        return np.tanh(z * w)

    def layer(z):
        return act(z) * scale + act(2.0 * z)

    def block(z):
        def square(u):
            return u * u
        return layer(z) - square(act(z))
    scale = 1.5
    out = block(x)
    scale = 0.5
    return np.sum(out) + np.sum(layer(x))


def nested_calls_later(x):
    def g(z):  # ERR: a nested function defined after it
        return f(z) * 2.0

    def f(z):
        return z ** 2
    return np.sum(g(x))


def nested_shadows_closure(x, w):
    def f(z):
        return z * w

    def g(z, w):  # ERR: of its own; rename it
        return f(z) + w
    return np.sum(g(x, 2.0))


def norms_of_vectors(w, X):
    # L1 / L-inf / p-norm penalties and row norms: a vector's ord= of np.linalg.norm
    return (np.linalg.norm(w, 1) + 0.5 * np.linalg.norm(w, ord=np.inf)
            + np.sum(np.linalg.norm(X, ord=1, axis=1) ** 2) + np.linalg.norm(X @ w, 3))


def matrix_norm_ord_three(A):
    # (a matrix's ord=1 is supported since corpus 12; ord=3 is no matrix norm, NumPy refuses it)
    return np.linalg.norm(A, 3)  # ERR: norm(ord=3) is not supported


def matrix_from_nested_comprehension(x, ell):
    # a kernel matrix written element by element, the rows comprehensions or lists
    K = np.array([[math.exp(-(a - b) ** 2 / ell) for b in x] for a in x])
    R = np.asarray([[x[0], -x[1] * t] for t in range(3)])
    return np.sum(np.linalg.solve(K + np.eye(len(x)), x)) + np.sum(R ** 2)


def keyword_only_loss(w, X, *, l2=0.1, p=2):
    # keyword-only parameters, of the entry and of a helper
    return np.sum(keyword_only_scale(X @ w, scale=0.5)) + l2 * np.sum(np.abs(w) ** p)


REDUCE_AXIS = 1
P_NORM = 3


def module_constants_as_statics(X):
    # module-level constants where a call needs one
    return np.sum(np.mean(X, axis=REDUCE_AXIS) ** 2) + np.linalg.norm(X[0], P_NORM)


# -- third batch: hand-written numerical kernels (writes and reads of arrays in loops) ------
def soft_dtw(x, y, gamma):
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), 1e10)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            c = (x[i - 1] - y[j - 1]) ** 2
            r = np.array([R[i - 1, j - 1], R[i - 1, j], R[i, j - 1]])
            R[i, j] = c - gamma * logsumexp(-r / gamma)
    return R[n, m]


def cholesky_by_hand(A):
    S = A @ A.T + 2.0 * np.eye(A.shape[0])
    n = S.shape[0]
    L = np.zeros_like(S)
    for j in range(n):
        s = S[j, j] - np.sum(L[j, :j] ** 2)
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            L[i, j] = (S[i, j] - np.dot(L[i, :j], L[j, :j])) / L[j, j]
    return np.sum(np.log(np.diag(L))) + np.sum(L)


def gram_schmidt(V):
    Q = np.zeros_like(V)
    for k in range(V.shape[1]):
        q = V[:, k].copy()
        for j in range(k):
            q = q - np.dot(Q[:, j], V[:, k]) * Q[:, j]
        Q[:, k] = q / np.linalg.norm(q)
    return np.sum(Q * np.arange(Q.size).reshape(Q.shape))


def power_iteration(A):
    S = A + A.T
    v = np.ones(S.shape[0]) / math.sqrt(S.shape[0])
    for _ in range(60):
        w = S @ v
        v = w / np.linalg.norm(w)
    return v @ S @ v


def gauss_elimination_solve(A, b):
    M = A + 4.0 * np.eye(A.shape[0])
    n = len(b)
    U = M.copy()
    c = b.copy()
    for k in range(n):
        for i in range(k + 1, n):
            f = U[i, k] / U[k, k]
            U[i, k:] = U[i, k:] - f * U[k, k:]
            c[i] = c[i] - f * c[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (c[i] - np.dot(U[i, i + 1:], x[i + 1:])) / U[i, i]
    return np.sum(x ** 2)


def viterbi_score_soft(log_A, emissions):
    T, K = emissions.shape
    delta = emissions[0].copy()
    for t in range(1, T):
        scores = delta[:, None] + log_A
        delta = np.max(scores, axis=0) + emissions[t]
    return np.max(delta)


def particle_swarm_like(x):
    best = x[0]
    best_val = (best - 1.0) ** 2
    for i in range(1, len(x)):
        v = (x[i] - 1.0) ** 2
        if v < best_val:
            best_val = v
            best = x[i]
    return best_val + 0.1 * best


def histogram_soft(x, centers, width):
    h = np.zeros(len(centers))
    for v in x:
        h += np.exp(-0.5 * ((v - centers) / width) ** 2)
    h = h / np.sum(h)
    return -np.sum(h * np.log(h))


def tridiagonal_thomas(a, b, c, d):
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m if i < n - 1 else 0.0
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return np.sum(x ** 2)


def swap_rows_in_loop(A):
    M = A.copy()
    for k in range(M.shape[0] - 1):
        if abs(M[k + 1, 0]) > abs(M[k, 0]):
            tmp = M[k].copy()
            M[k] = M[k + 1]
            M[k + 1] = tmp
    return np.sum(M * np.arange(M.size).reshape(M.shape))


def running_stats_welford(x):
    mean = 0.0
    m2 = 0.0
    n = 0
    for v in x:
        n += 1
        d = v - mean
        mean += d / n
        m2 += d * (v - mean)
    return m2 / (n - 1) + mean ** 2


def bilinear_interp_grid(G, px, py):
    i = int(math.floor(px))
    j = int(math.floor(py))
    tx = px - i
    ty = py - j
    return ((1 - tx) * (1 - ty) * G[i, j] + tx * (1 - ty) * G[i + 1, j]
            + (1 - tx) * ty * G[i, j + 1] + tx * ty * G[i + 1, j + 1])


def list_of_states_rnn(W, xs):
    hs = [np.zeros(W.shape[0])]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + x))
    H = np.stack(hs[1:])
    return np.sum(H[-1] ** 2) + np.mean(H)


def while_grow_array_list(x):
    vals = []
    v = x
    while v < 8.0:
        vals.append(v)
        v = v * 1.7 + 0.2
    return sum(vals) + len(vals) * v


def corpus3(seed=666):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [
        (soft_dtw, (nrm(size=4), nrm(size=3), 0.5), (0, 1, 2)),
        (cholesky_by_hand, (nrm(size=(3, 3)),), (0,)),
        (gram_schmidt, (nrm(size=(3, 3)),), (0,)),
        (power_iteration, (np.array([[2.0, 0.3, 0.1], [0.0, 1.0, 0.2], [0.1, 0.0, 0.5]]),), (0,)),
        (gauss_elimination_solve, (nrm(size=(3, 3)), nrm(size=3)), (0, 1)),
        (viterbi_score_soft, (nrm(size=(3, 3)), nrm(size=(4, 3))), (0, 1)),
        (particle_swarm_like, (nrm(size=6),), (0,)),
        (histogram_soft, (nrm(size=5), np.linspace(-1, 1, 4), 0.7), (0, 1, 2)),
        (tridiagonal_thomas, (nrm(size=5), 4.0 + rng.uniform(size=5), nrm(size=5), nrm(size=5)),
         (0, 1, 2, 3)),
        (swap_rows_in_loop, (nrm(size=(4, 2)),), (0,)),
        (running_stats_welford, (nrm(size=6),), (0,)),
        (bilinear_interp_grid, (nrm(size=(4, 4)), 1.3, 2.6), (0, 1, 2)),
        (list_of_states_rnn, (0.5 * nrm(size=(3, 3)), nrm(size=(4, 3))), (0, 1)),
        (while_grow_array_list, (0.7,), (0,)),
    ]


def builtin_pow(x, a):
    # the builtin pow(a, b) is a ** b (pow(a, b, m) is refused: no derivative)
    return pow(x[0], 2) + np.sum(pow(np.abs(x) + 1.0, a)) + pow(2, 3) * x[1]


def _run(names, backend):
    """Triage each corpus function: compiled (or backend=python) and eager vs finite diffs."""
    import traceback

    import jitad

    def flat(g):
        if isinstance(g, dict):
            return np.concatenate([flat(v) for v in g.values()]) if g else np.zeros(0)
        if isinstance(g, (tuple, list)):
            return np.concatenate([flat(v) for v in g]) if g else np.zeros(0)
        return np.atleast_1d(np.asarray(g, dtype=float)).ravel()

    for fn, args, wrt in corpus() + corpus2() + corpus3() + corpus4():
        if names and fn.__name__ not in names:
            continue
        fd = flat([_fd_struct(fn, args, k) for k in wrt])
        res = {}
        for label, kw in (("compiled", {} if backend == "numba" else {"backend": backend}),
                          ("eager", {"mode": "eager"})):
            try:
                if label == "compiled" and backend != "numba":
                    f2 = jitad.differentiable(backend=backend)(fn)
                    vg = jitad.value_and_grad(f2, wrt=wrt)
                else:
                    vg = jitad.value_and_grad(fn, wrt=wrt, **({} if label == "compiled" else kw))
                _, g = vg(*args)
                g = flat(g)
                err = np.max(np.abs(g - fd)) / (1e-8 + np.max(np.abs(fd))) if g.size else 0.0
                res[label] = "ok" if err < 1e-6 else f"WRONG({err:.2g})"
            except jitad.JitadError as e:
                res[label] = "refused: " + str(e).splitlines()[0][:110]
            except Exception as e:  # noqa: BLE001 - triage
                res[label] = f"CRASH {type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}"
                if "-v" in __import__("sys").argv:
                    traceback.print_exc()
        print(f"{fn.__name__:28s} compiled={res['compiled']} | eager={res['eager']}", flush=True)


if __name__ == "__main__":
    import sys
    argv = [a for a in sys.argv[1:] if a != "-v"]
    backend = "numba"
    if "--backend" in argv:
        i = argv.index("--backend")
        backend = argv[i + 1]
        del argv[i:i + 2]
    _run(set(argv), backend)
