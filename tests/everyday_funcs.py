"""Everyday models (issue 12's corpus), written the way a NumPy user who has read only the
README would write them, unedited to fit jitad (tests/test_everyday.py).

Each model is a scalar-returning loss ``name(*args)``; ``make_name(rng)`` builds the
arguments (small, float64); ``WRT[name]`` lists the argument indices to differentiate.
Nothing here is tailored to jitad's subset: these are ordinary NumPy/SciPy idioms.
"""
import math

import numpy as np
from scipy.special import erf, expit, gammaln, logsumexp, multigammaln, softmax
from scipy.stats import norm


# ----------------------------------------------------------------------------------------
# shared helpers (module level, as users write them)
# ----------------------------------------------------------------------------------------

def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def relu(x):
    return np.maximum(x, 0.0)


def log_softmax(z, axis=-1):
    zmax = np.max(z, axis=axis, keepdims=True)
    return z - zmax - np.log(np.sum(np.exp(z - zmax), axis=axis, keepdims=True))


def _onehot(labels, k):
    return np.eye(k)[labels]


# ----------------------------------------------------------------------------------------
# 1. linear regression (MSE)
# ----------------------------------------------------------------------------------------

def linear_regression(w, b, X, y):
    pred = X @ w + b
    return np.mean((pred - y) ** 2)


def make_linear_regression(rng):
    X = rng.normal(size=(20, 5))
    y = X @ rng.normal(size=5) + 0.1 * rng.normal(size=20)
    return (rng.normal(size=5), 0.3, X, y)


# ----------------------------------------------------------------------------------------
# 2. ridge regression, closed form with np.eye; tune the regulariser on validation data
# ----------------------------------------------------------------------------------------

def ridge_validation_loss(log_lam, X, y, X_val, y_val):
    lam = np.exp(log_lam)
    d = X.shape[1]
    A = X.T @ X + lam * np.eye(d)
    w = np.linalg.solve(A, X.T @ y)
    return np.mean((X_val @ w - y_val) ** 2)


def make_ridge_validation_loss(rng):
    w_true = rng.normal(size=4)
    X, X_val = rng.normal(size=(12, 4)), rng.normal(size=(8, 4))
    y = X @ w_true + 0.5 * rng.normal(size=12)
    y_val = X_val @ w_true + 0.5 * rng.normal(size=8)
    return (0.1, X, y, X_val, y_val)


# ----------------------------------------------------------------------------------------
# 3. logistic regression with scipy's expit and an L2 keyword argument
# ----------------------------------------------------------------------------------------

def logistic_regression(w, b, X, y, l2=1e-2):
    p = expit(X @ w + b)
    eps = 1e-12
    nll = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))
    return nll + l2 * np.dot(w, w)


def make_logistic_regression(rng):
    X = rng.normal(size=(16, 4))
    y = (X @ rng.normal(size=4) + 0.3 * rng.normal(size=16) > 0).astype(float)
    return (0.1 * rng.normal(size=4), 0.0, X, y)


# ----------------------------------------------------------------------------------------
# 4. logistic regression, numerically stable with np.logaddexp and +-1 labels
# ----------------------------------------------------------------------------------------

def logistic_regression_stable(w, X, y_pm):
    margins = y_pm * (X @ w)
    return np.mean(np.logaddexp(0.0, -margins)) + 0.5e-3 * np.sum(w ** 2)


def make_logistic_regression_stable(rng):
    X = rng.normal(size=(16, 5))
    y = np.sign(X @ rng.normal(size=5) + 0.2 * rng.normal(size=16))
    return (0.1 * rng.normal(size=5), X, y)


# ----------------------------------------------------------------------------------------
# 5. softmax regression with keepdims and fancy-index of the true class
# ----------------------------------------------------------------------------------------

def softmax_regression(W, b, X, labels):
    logits = X @ W + b
    logits = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    n = X.shape[0]
    return -np.log(probs[np.arange(n), labels]).mean()


def make_softmax_regression(rng):
    X = rng.normal(size=(12, 4))
    return (0.1 * rng.normal(size=(4, 3)), np.zeros(3), X, rng.integers(0, 3, 12))


# ----------------------------------------------------------------------------------------
# 6. softmax regression without keepdims: reshape(-1, 1) and one-hot targets
# ----------------------------------------------------------------------------------------

def softmax_regression_onehot(W, X, Y):
    logits = X @ W
    m = np.max(logits, axis=1).reshape(-1, 1)
    shifted = logits - m
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1)).reshape(-1, 1)
    return -np.sum(Y * log_probs) / X.shape[0]


def make_softmax_regression_onehot(rng):
    X = rng.normal(size=(12, 4))
    Y = _onehot(rng.integers(0, 3, 12), 3)
    return (0.1 * rng.normal(size=(4, 3)), X, Y)


# ----------------------------------------------------------------------------------------
# 7. softmax cross-entropy with scipy.special.logsumexp
# ----------------------------------------------------------------------------------------

def cross_entropy_logsumexp(W, b, X, labels):
    logits = X @ W + b
    lse = logsumexp(logits, axis=-1)
    correct = logits[np.arange(len(labels)), labels]
    return np.mean(lse - correct)


def make_cross_entropy_logsumexp(rng):
    X = rng.normal(size=(10, 5))
    return (0.2 * rng.normal(size=(5, 4)), 0.1 * rng.normal(size=4), X, rng.integers(0, 4, 10))


# ----------------------------------------------------------------------------------------
# 8. MLP classifier with tuple params and a log_softmax helper (keepdims, default axis)
# ----------------------------------------------------------------------------------------

def mlp_classifier(params, X, labels):
    W1, b1, W2, b2 = params
    h = relu(X @ W1 + b1)
    logits = h @ W2 + b2
    logp = log_softmax(logits)
    return -np.mean(logp[np.arange(X.shape[0]), labels])


def make_mlp_classifier(rng):
    params = (0.5 * rng.normal(size=(4, 6)), 0.1 * rng.normal(size=6),
              0.5 * rng.normal(size=(6, 3)), np.zeros(3))
    return (params, rng.normal(size=(10, 4)), rng.integers(0, 3, 10))


# ----------------------------------------------------------------------------------------
# 9. deep MLP regression with a list of (W, b) layers and zip
# ----------------------------------------------------------------------------------------

def deep_mlp_regression(layers, X, y):
    h = X
    for W, b in layers[:-1]:
        h = np.tanh(h @ W + b)
    W_last, b_last = layers[-1]
    out = (h @ W_last + b_last).ravel()
    return np.mean((out - y) ** 2)


def make_deep_mlp_regression(rng):
    sizes = [3, 5, 5, 1]
    layers = [(rng.normal(size=(m, n)) / np.sqrt(m), np.zeros(n)) for m, n in zip(sizes[:-1], sizes[1:])]
    X = rng.normal(size=(10, 3))
    return (layers, X, np.sin(X[:, 0]) + X[:, 1])


# ----------------------------------------------------------------------------------------
# 10. two-layer net with layer norm (mean/var with keepdims)
# ----------------------------------------------------------------------------------------

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def layernorm_net(W1, b1, gamma, beta, w2, b2, X, y):
    h = np.tanh(layer_norm(X @ W1 + b1, gamma, beta))
    out = h @ w2 + b2
    return np.mean((out - y) ** 2)


def make_layernorm_net(rng):
    X = rng.normal(size=(10, 4))
    return (0.5 * rng.normal(size=(4, 6)), 0.1 * rng.normal(size=6), np.ones(6), np.zeros(6),
            0.5 * rng.normal(size=6), 0.0, X, rng.normal(size=10))


# ----------------------------------------------------------------------------------------
# 11. batch norm (std over the batch axis) + logistic output
# ----------------------------------------------------------------------------------------

def batchnorm_mlp(W1, gamma, beta, w2, X, y, eps=1e-5):
    z = X @ W1
    mu = z.mean(axis=0)
    sigma = z.std(axis=0)
    zhat = (z - mu) / np.sqrt(sigma ** 2 + eps)
    h = np.tanh(gamma * zhat + beta)
    logits = h @ w2
    return np.mean(np.log1p(np.exp(-y * logits)))


def make_batchnorm_mlp(rng):
    X = rng.normal(size=(12, 4))
    y = np.sign(rng.normal(size=12))
    return (rng.normal(size=(4, 5)), np.ones(5), np.zeros(5), 0.5 * rng.normal(size=5), X, y)


# ----------------------------------------------------------------------------------------
# 12. single-head causal self-attention (scipy softmax, np.triu mask, tuple assignment)
# ----------------------------------------------------------------------------------------

def causal_self_attention(Wq, Wk, Wv, X, target):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    n, d_k = Q.shape
    scores = Q @ K.T / np.sqrt(d_k)
    mask = np.triu(np.ones((n, n), dtype=bool), k=1)
    scores = np.where(mask, -np.inf, scores)
    weights = softmax(scores, axis=-1)
    out = weights @ V
    return 0.5 * np.sum((out - target) ** 2)


def make_causal_self_attention(rng):
    X = rng.normal(size=(5, 4))
    return (0.5 * rng.normal(size=(4, 4)), 0.5 * rng.normal(size=(4, 4)),
            0.5 * rng.normal(size=(4, 4)), X, rng.normal(size=(5, 4)))


# ----------------------------------------------------------------------------------------
# 13. multi-head attention with reshape/transpose and batched matmul
# ----------------------------------------------------------------------------------------

def split_heads(t, n_heads):
    n, d = t.shape
    return t.reshape(n, n_heads, d // n_heads).transpose(1, 0, 2)


def multi_head_attention(Wq, Wk, Wv, Wo, X, target, n_heads=2):
    n, d_model = X.shape
    d_head = d_model // n_heads
    Q = split_heads(X @ Wq, n_heads)
    K = split_heads(X @ Wk, n_heads)
    V = split_heads(X @ Wv, n_heads)
    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(d_head)
    scores = scores - scores.max(axis=-1, keepdims=True)
    A = np.exp(scores)
    A = A / A.sum(axis=-1, keepdims=True)
    heads = A @ V
    concat = heads.transpose(1, 0, 2).reshape(n, d_model)
    out = concat @ Wo
    return np.mean((out - target) ** 2)


def make_multi_head_attention(rng):
    d = 4
    mats = tuple(0.5 * rng.normal(size=(d, d)) for _ in range(4))
    return mats + (rng.normal(size=(5, d)), rng.normal(size=(5, d)))


# ----------------------------------------------------------------------------------------
# 14. GRU over a sequence, params in a dict
# ----------------------------------------------------------------------------------------

def gru_sequence_loss(p, xs, ys):
    h = np.zeros(p["Uz"].shape[0])
    loss = 0.0
    for t in range(len(xs)):
        x = xs[t]
        z = sigmoid(p["Wz"] @ x + p["Uz"] @ h + p["bz"])
        r = sigmoid(p["Wr"] @ x + p["Ur"] @ h + p["br"])
        h_tilde = np.tanh(p["Wh"] @ x + p["Uh"] @ (r * h) + p["bh"])
        h = (1 - z) * h + z * h_tilde
        y_hat = p["w_out"] @ h
        loss += (y_hat - ys[t]) ** 2
    return loss / len(xs)


def make_gru_sequence_loss(rng):
    d, H, T = 3, 4, 6
    p = {}
    for g in "zrh":
        p["W" + g] = 0.5 * rng.normal(size=(H, d))
        p["U" + g] = 0.5 * rng.normal(size=(H, H))
        p["b" + g] = np.zeros(H)
    p["w_out"] = rng.normal(size=H)
    return (p, rng.normal(size=(T, d)), rng.normal(size=T))


# ----------------------------------------------------------------------------------------
# 15. LSTM language-model-ish loss: np.concatenate of a list, np.split, zip, logsumexp
# ----------------------------------------------------------------------------------------

def lstm_step(W, b, x, h, c):
    gates = W @ np.concatenate([x, h]) + b
    i, f, o, g = np.split(gates, 4)
    i, f, o = expit(i), expit(f), expit(o)
    c = f * c + i * np.tanh(g)
    h = o * np.tanh(c)
    return h, c


def lstm_sequence_loss(W, b, W_out, xs, targets):
    hidden = W.shape[0] // 4
    h = np.zeros(hidden)
    c = np.zeros(hidden)
    total = 0.0
    for x, target in zip(xs, targets):
        h, c = lstm_step(W, b, x, h, c)
        logits = W_out @ h
        total += logsumexp(logits) - logits[target]
    return total / len(xs)


def make_lstm_sequence_loss(rng):
    d, H, V, T = 3, 4, 5, 6
    return (0.4 * rng.normal(size=(4 * H, d + H)), np.zeros(4 * H), 0.5 * rng.normal(size=(V, H)),
            rng.normal(size=(T, d)), rng.integers(0, V, T))


# ----------------------------------------------------------------------------------------
# 16. vanilla RNN: hidden states appended to a list, then np.stack
# ----------------------------------------------------------------------------------------

def rnn_hidden_states_loss(Wx, Wh, b, xs, target_states):
    h = np.zeros(Wh.shape[0])
    hs = []
    for x in xs:
        h = np.tanh(Wx @ x + Wh @ h + b)
        hs.append(h)
    H = np.stack(hs)
    return np.mean((H - target_states) ** 2)


def make_rnn_hidden_states_loss(rng):
    d, H, T = 3, 4, 7
    return (0.5 * rng.normal(size=(H, d)), 0.5 * rng.normal(size=(H, H)), np.zeros(H),
            rng.normal(size=(T, d)), 0.5 * rng.normal(size=(T, H)))


# ----------------------------------------------------------------------------------------
# 17. Kalman filter negative log-likelihood (np.eye, inv, slogdet, `for y in ys`)
# ----------------------------------------------------------------------------------------

def kalman_negative_log_likelihood(log_q, log_r, F, H, ys, x0, P0):
    n = F.shape[0]
    Q = np.exp(log_q) * np.eye(n)
    R = np.exp(log_r) * np.eye(H.shape[0])
    x, P = x0, P0
    ll = 0.0
    for y in ys:
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        v = y - H @ x
        S_inv = np.linalg.inv(S)
        K = P @ H.T @ S_inv
        x = x + K @ v
        P = (np.eye(n) - K @ H) @ P
        sign, logdet = np.linalg.slogdet(S)
        ll += -0.5 * (logdet + v @ S_inv @ v + len(y) * np.log(2 * np.pi))
    return -ll


def make_kalman_negative_log_likelihood(rng):
    dt = 0.1
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    x = np.array([0.0, 1.0])
    ys = []
    for _ in range(10):
        x = F @ x + 0.05 * rng.normal(size=2)
        ys.append(H @ x + 0.1 * rng.normal(size=1))
    return (math.log(0.01), math.log(0.05), F, H, np.array(ys), np.zeros(2), np.eye(2))


# ----------------------------------------------------------------------------------------
# 18. GMM with Wishart prior (ADBench style): tril_indices, einsum, newaxis, multigammaln
# ----------------------------------------------------------------------------------------

def make_lower_triangular(diag, lower_entries, d):
    L = np.diag(diag)
    L[np.tril_indices(d, -1)] = lower_entries
    return L


def log_wishart_prior(Qdiags, sum_qs, icf_lower, wishart_gamma, wishart_m, d):
    K = Qdiags.shape[0]
    n = d + wishart_m + 1
    frobenius = np.sum(Qdiags ** 2, axis=1) + np.sum(icf_lower ** 2, axis=1)
    out = np.sum(0.5 * wishart_gamma ** 2 * frobenius - wishart_m * sum_qs)
    C = n * d * (math.log(wishart_gamma) - 0.5 * math.log(2)) - multigammaln(0.5 * n, d)
    return out - K * C


def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m):
    n, d = x.shape
    K = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    Ls = np.stack([make_lower_triangular(Qdiags[k], icf[k, d:], d) for k in range(K)])
    xcentered = x[:, np.newaxis, :] - means[np.newaxis, :, :]
    Lxcentered = np.einsum("kij,nkj->nki", Ls, xcentered)
    sqsum_Lx = np.sum(Lxcentered ** 2, axis=2)
    inner = alphas + sum_qs - 0.5 * sqsum_Lx
    slse = np.sum(logsumexp(inner, axis=1))
    const = -n * d * 0.5 * math.log(2 * math.pi)
    return (const + slse - n * logsumexp(alphas)
            + log_wishart_prior(Qdiags, sum_qs, icf[:, d:], wishart_gamma, wishart_m, d))


def make_gmm_objective(rng):
    n, d, K = 10, 3, 3
    return (rng.normal(size=K), rng.normal(size=(K, d)), 0.3 * rng.normal(size=(K, d + d * (d - 1) // 2)),
            rng.normal(size=(n, d)), 1.0, 0)


# ----------------------------------------------------------------------------------------
# 19. bundle adjustment (ADBench layout): rodrigues with np.cross, projection, residual list
# ----------------------------------------------------------------------------------------

def rodrigues_rotate(rot, X):
    theta = np.linalg.norm(rot)
    if theta < 1e-12:
        return X + np.cross(rot, X)
    w = rot / theta
    cos, sin = np.cos(theta), np.sin(theta)
    return X * cos + np.cross(w, X) * sin + w * np.dot(w, X) * (1 - cos)


def project(cam, X):
    # cam = [rotation(3), center(3), focal, principal point(2), k1, k2]
    Xcam = rodrigues_rotate(cam[:3], X - cam[3:6])
    p = Xcam[:2] / Xcam[2]
    r2 = np.sum(p ** 2)
    distortion = 1 + cam[9] * r2 + cam[10] * r2 ** 2
    return p * distortion * cam[6] + cam[7:9]


def bundle_adjustment_loss(cams, X, w, obs_cam, obs_pt, feats):
    residuals = []
    for i in range(len(obs_cam)):
        proj = project(cams[obs_cam[i]], X[obs_pt[i]])
        residuals.append(w[i] * (proj - feats[i]))
    w_err = 1 - w ** 2
    r = np.concatenate(residuals)
    return np.sum(r ** 2) + np.sum(w_err ** 2)


def make_bundle_adjustment_loss(rng):
    n_cams, n_pts, n_obs = 2, 3, 5
    cams = np.zeros((n_cams, 11))
    cams[:, :3] = 0.1 * rng.normal(size=(n_cams, 3))
    cams[:, 3:6] = np.array([0.0, 0.0, -5.0]) + 0.1 * rng.normal(size=(n_cams, 3))
    cams[:, 6] = 1.0 + 0.1 * rng.random(n_cams)
    cams[:, 7:9] = 0.01 * rng.normal(size=(n_cams, 2))
    cams[:, 9:11] = 0.01 * rng.normal(size=(n_cams, 2))
    X = rng.normal(size=(n_pts, 3))
    w = 1.0 + 0.1 * rng.normal(size=n_obs)
    obs_cam = np.array([0, 1, 0, 1, 0])
    obs_pt = np.array([0, 1, 2, 0, 1])
    feats = 0.2 * rng.normal(size=(n_obs, 2))
    return (cams, X, w, obs_cam, obs_pt, feats)


# ----------------------------------------------------------------------------------------
# 20. Black-Scholes call, scalar, normal cdf through math.erf (greeks = gradient)
# ----------------------------------------------------------------------------------------

def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_call(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


def make_black_scholes_call(rng):
    return (100.0, 95.0, 0.5, 0.02, 0.25)


# ----------------------------------------------------------------------------------------
# 21. Black-Scholes option book, vectorised with scipy.stats.norm.cdf (vol smile)
# ----------------------------------------------------------------------------------------

def option_book_value(sigma, S, strikes, T, r, positions):
    d1 = (np.log(S / strikes) + (r + sigma ** 2 / 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    calls = S * norm.cdf(d1) - strikes * np.exp(-r * T) * norm.cdf(d2)
    return float(np.dot(positions, calls))


def make_option_book_value(rng):
    strikes = np.linspace(80.0, 120.0, 5)
    sigma = 0.2 + 0.001 * (strikes - 100.0) ** 2 / 10
    return (sigma, 100.0, strikes, 0.75, 0.01, rng.integers(-3, 4, 5).astype(float))


# ----------------------------------------------------------------------------------------
# 22. Gaussian process negative log marginal likelihood, RBF via broadcasting, Cholesky
# ----------------------------------------------------------------------------------------

def rbf_kernel(X1, X2, lengthscale, variance):
    sqdist = np.sum((X1[:, None, :] - X2[None, :, :]) ** 2, axis=-1)
    return variance * np.exp(-0.5 * sqdist / lengthscale ** 2)


def gp_negative_log_marginal_likelihood(log_params, X, y):
    ell, sf2, sn2 = np.exp(log_params)
    n = len(y)
    K = rbf_kernel(X, X, ell, sf2) + (sn2 + 1e-8) * np.eye(n)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * n * np.log(2 * np.pi)


def make_gp_negative_log_marginal_likelihood(rng):
    X = rng.uniform(-2, 2, size=(8, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=8)
    return (np.log(np.array([1.0, 1.0, 0.1])), X, y)


# ----------------------------------------------------------------------------------------
# 23. Poisson regression with an exposure offset (gammaln constant)
# ----------------------------------------------------------------------------------------

def poisson_regression_nll(beta, X, counts, offset):
    eta = X @ beta + offset
    return np.sum(np.exp(eta) - counts * eta + gammaln(counts + 1)) / len(counts)


def make_poisson_regression_nll(rng):
    X = rng.normal(size=(15, 3))
    offset = np.log(rng.uniform(0.5, 2.0, size=15))
    counts = rng.poisson(np.exp(X @ np.array([0.3, -0.2, 0.1]) + offset)).astype(float)
    return (0.1 * rng.normal(size=3), X, counts, offset)


# ----------------------------------------------------------------------------------------
# 24. Huber regression with np.where and a keyword delta
# ----------------------------------------------------------------------------------------

def huber_loss(w, X, y, delta=1.0):
    r = X @ w - y
    abs_r = np.abs(r)
    quad = 0.5 * r ** 2
    lin = delta * (abs_r - 0.5 * delta)
    return np.mean(np.where(abs_r <= delta, quad, lin))


def make_huber_loss(rng):
    X = rng.normal(size=(15, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.standard_t(2, size=15)
    return (rng.normal(size=3), X, y)


# ----------------------------------------------------------------------------------------
# 25. portfolio: cumulative log return (np.cumsum), wealth (np.cumprod), max drawdown
# ----------------------------------------------------------------------------------------

def portfolio_objective(logits, returns, risk_aversion=2.0):
    w = np.exp(logits) / np.sum(np.exp(logits))
    port = returns @ w
    wealth = np.cumprod(1.0 + port)
    peak = np.maximum.accumulate(wealth)
    max_drawdown = np.max(1.0 - wealth / peak)
    log_growth = np.cumsum(np.log1p(port))[-1]
    return -log_growth + risk_aversion * max_drawdown


def make_portfolio_objective(rng):
    return (0.1 * rng.normal(size=4), 0.01 + 0.05 * rng.normal(size=(20, 4)))


# ----------------------------------------------------------------------------------------
# 26. damped oscillator, RK4 in a while loop, rhs builds np.array([...])
# ----------------------------------------------------------------------------------------

def oscillator_rhs(state, k, c):
    x, v = state
    return np.array([v, -k * x - c * v])


def rk4_oscillator_loss(params, y0, t_end, target, dt=0.05):
    k, c = params
    t = 0.0
    y = y0.copy()
    while t < t_end - 1e-12:
        k1 = oscillator_rhs(y, k, c)
        k2 = oscillator_rhs(y + 0.5 * dt * k1, k, c)
        k3 = oscillator_rhs(y + 0.5 * dt * k2, k, c)
        k4 = oscillator_rhs(y + dt * k3, k, c)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += dt
    return np.sum((y - target) ** 2)


def make_rk4_oscillator_loss(rng):
    return (np.array([4.0, 0.3]), np.array([1.0, 0.0]), 0.75, np.array([0.2, -1.5]))


# ----------------------------------------------------------------------------------------
# 27. Lotka-Volterra fit: explicit Euler, trajectory list -> np.array, log-space error
# ----------------------------------------------------------------------------------------

def lotka_volterra_fit(theta, u0, observed, dt=0.1):
    alpha, beta, gamma, delta = theta
    prey, pred = u0
    traj = [u0]
    for _ in range(len(observed) - 1):
        dprey = alpha * prey - beta * prey * pred
        dpred = delta * prey * pred - gamma * pred
        prey, pred = prey + dt * dprey, pred + dt * dpred
        traj.append(np.array([prey, pred]))
    traj = np.array(traj)
    return np.mean((np.log(traj) - np.log(observed)) ** 2)


def make_lotka_volterra_fit(rng):
    T = 15
    observed = np.exp(0.1 * rng.normal(size=(T, 2))) * np.array([10.0, 5.0])
    return (np.array([1.1, 0.4, 0.4, 0.1]), np.array([10.0, 5.0]), observed)


# ----------------------------------------------------------------------------------------
# 28. spring-mass chain, semi-implicit Euler, np.diff + np.pad for the forces
# ----------------------------------------------------------------------------------------

def spring_chain_loss(k_springs, masses, x0, v0, x_target, dt=0.02, steps=20, rest=1.0):
    x = x0.copy()
    v = v0.copy()
    for _ in range(steps):
        tension = k_springs * (np.diff(x) - rest)
        force = np.pad(tension, (0, 1)) - np.pad(tension, (1, 0))
        v = v + dt * force / masses
        x = x + dt * v
    kinetic = 0.5 * np.sum(masses * v ** 2)
    potential = 0.5 * np.sum(k_springs * (np.diff(x) - rest) ** 2)
    return np.sum((x - x_target) ** 2) + 0.01 * (kinetic + potential)


def make_spring_chain_loss(rng):
    n = 5
    x0 = np.arange(n, dtype=float) * 1.1
    return (rng.uniform(5.0, 10.0, size=n - 1), rng.uniform(0.5, 1.5, size=n), x0,
            np.zeros(n), np.arange(n, dtype=float))


# ----------------------------------------------------------------------------------------
# 29. polynomial fit with np.vander
# ----------------------------------------------------------------------------------------

def polynomial_fit_vander(coeffs, x, y):
    A = np.vander(x, len(coeffs), increasing=True)
    return np.mean((A @ coeffs - y) ** 2) + 1e-3 * np.sum(coeffs[1:] ** 2)


def make_polynomial_fit_vander(rng):
    x = np.linspace(-1, 1, 12)
    return (rng.normal(size=4), x, np.cos(2 * x))


# ----------------------------------------------------------------------------------------
# 30. polynomial features via x[:, None] ** np.arange(...)
# ----------------------------------------------------------------------------------------

def polynomial_features_regression(w, bias, x, y, degree=3):
    feats = x[:, None] ** np.arange(1, degree + 1)
    return np.mean((feats @ w + bias - y) ** 2)


def make_polynomial_features_regression(rng):
    x = rng.uniform(-1, 1, size=12)
    return (rng.normal(size=3), 0.0, x, x ** 3 - x + 0.1 * rng.normal(size=12))


# ----------------------------------------------------------------------------------------
# 31. 1-D convolution by an explicit loop into np.zeros
# ----------------------------------------------------------------------------------------

def conv1d_loop_loss(kernel, bias, signal, target):
    k = len(kernel)
    n_out = len(signal) - k + 1
    out = np.zeros(n_out)
    for i in range(n_out):
        out[i] = np.dot(signal[i:i + k], kernel) + bias
    out = np.tanh(out)
    return np.sum((out - target) ** 2)


def make_conv1d_loop_loss(rng):
    return (0.5 * rng.normal(size=3), 0.0, rng.normal(size=12), 0.5 * rng.normal(size=10))


# ----------------------------------------------------------------------------------------
# 32. 1-D convolution with np.convolve, softplus activation
# ----------------------------------------------------------------------------------------

def conv1d_numpy_loss(kernel, signal, target):
    out = np.convolve(signal, kernel[::-1], mode="valid")
    act = np.log1p(np.exp(out))
    return np.mean((act - target) ** 2)


def make_conv1d_numpy_loss(rng):
    return (0.5 * rng.normal(size=3), rng.normal(size=12), rng.uniform(0, 1, size=10))


# ----------------------------------------------------------------------------------------
# 33. matrix factorisation with a mask and Frobenius-norm regulariser
# ----------------------------------------------------------------------------------------

def matrix_factorization_loss(U, V, R, mask, lam=0.1):
    pred = U @ V.T
    err = mask * (R - pred)
    reg = np.linalg.norm(U, "fro") ** 2 + np.linalg.norm(V, "fro") ** 2
    return np.sum(err ** 2) / mask.sum() + lam * reg


def make_matrix_factorization_loss(rng):
    R = rng.integers(1, 6, size=(6, 5)).astype(float)
    mask = (rng.random((6, 5)) < 0.6).astype(float)
    return (0.3 * rng.normal(size=(6, 2)), 0.3 * rng.normal(size=(5, 2)), R, mask)


# ----------------------------------------------------------------------------------------
# 34. triplet loss with row norms (np.linalg.norm(axis=1)) and a hinge
# ----------------------------------------------------------------------------------------

def triplet_loss(W, anchors, positives, negatives, margin=0.5):
    ea, ep, en = anchors @ W, positives @ W, negatives @ W
    d_pos = np.linalg.norm(ea - ep, axis=1)
    d_neg = np.linalg.norm(ea - en, axis=1)
    return np.mean(np.maximum(d_pos - d_neg + margin, 0.0))


def make_triplet_loss(rng):
    a = rng.normal(size=(8, 4))
    return (rng.normal(size=(4, 3)), a, a + 0.3 * rng.normal(size=(8, 4)), a + 0.5 * rng.normal(size=(8, 4)))


# ----------------------------------------------------------------------------------------
# 35. contrastive (siamese) loss
# ----------------------------------------------------------------------------------------

def contrastive_loss(W, x1, x2, same, margin=2.0):
    d = np.sqrt(np.sum((x1 @ W - x2 @ W) ** 2, axis=-1) + 1e-9)
    return np.mean(same * d ** 2 + (1 - same) * np.maximum(margin - d, 0) ** 2) / 2


def make_contrastive_loss(rng):
    x1 = rng.normal(size=(8, 4))
    same = (rng.random(8) < 0.5).astype(float)
    x2 = np.where(same[:, None] > 0, x1 + 0.2 * rng.normal(size=(8, 4)), rng.normal(size=(8, 4)))
    return (0.5 * rng.normal(size=(4, 3)), x1, x2, same)


# ----------------------------------------------------------------------------------------
# 36. cosine-similarity embedding loss (row norms with keepdims)
# ----------------------------------------------------------------------------------------

def cosine_embedding_loss(W, X, Y):
    a = X @ W
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    cos = np.sum(a * b, axis=1)
    return np.mean(1.0 - cos)


def make_cosine_embedding_loss(rng):
    return (rng.normal(size=(5, 3)), rng.normal(size=(8, 5)), rng.normal(size=(8, 3)))


# ----------------------------------------------------------------------------------------
# 37. mixture density network (1-D input/output), logsumexp(keepdims), np.newaxis
# ----------------------------------------------------------------------------------------

def mdn_nll(w_h, b_h, W_pi, W_mu, W_sigma, x, y):
    h = np.tanh(np.outer(x, w_h) + b_h)
    log_pi = h @ W_pi
    log_pi = log_pi - logsumexp(log_pi, axis=1, keepdims=True)
    mu = h @ W_mu
    log_sigma = h @ W_sigma
    z = (y[:, np.newaxis] - mu) / np.exp(log_sigma)
    log_comp = -0.5 * z ** 2 - log_sigma - 0.5 * np.log(2 * np.pi)
    return -np.mean(logsumexp(log_pi + log_comp, axis=1))


def make_mdn_nll(rng):
    H, K, n = 5, 3, 12
    x = rng.uniform(-1, 1, size=n)
    return (rng.normal(size=H), 0.1 * rng.normal(size=H), 0.5 * rng.normal(size=(H, K)),
            rng.normal(size=(H, K)), 0.3 * rng.normal(size=(H, K)), x,
            np.sin(3 * x) + 0.1 * rng.normal(size=n))


# ----------------------------------------------------------------------------------------
# 38. VAE negative ELBO with fixed noise (reparameterisation), np.split on the last axis
# ----------------------------------------------------------------------------------------

def vae_negative_elbo(enc_W, enc_b, dec_W, dec_b, x, eps):
    h = x @ enc_W + enc_b
    mu, logvar = np.split(h, 2, axis=-1)
    z = mu + np.exp(0.5 * logvar) * eps
    p = expit(z @ dec_W + dec_b)
    recon = -np.sum(x * np.log(p) + (1 - x) * np.log1p(-p), axis=-1)
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar), axis=-1)
    return np.mean(recon + kl)


def make_vae_negative_elbo(rng):
    n, D, L = 6, 8, 2
    x = (rng.random((n, D)) < 0.4).astype(float)
    return (0.3 * rng.normal(size=(D, 2 * L)), np.zeros(2 * L), 0.3 * rng.normal(size=(L, D)),
            np.zeros(D), x, rng.normal(size=(n, L)))


# ----------------------------------------------------------------------------------------
# 39. multivariate normal NLL with a Cholesky log-determinant (tril_indices fill)
# ----------------------------------------------------------------------------------------

def mvn_nll_cholesky(L_flat, mu, X):
    d = mu.shape[0]
    L = np.zeros((d, d))
    L[np.tril_indices(d)] = L_flat
    Sigma = L @ L.T + 1e-6 * np.eye(d)
    C = np.linalg.cholesky(Sigma)
    logdet = 2.0 * np.sum(np.log(np.diagonal(C)))
    diff = X - mu
    sol = np.linalg.solve(C, diff.T)
    maha = np.sum(sol ** 2, axis=0)
    return 0.5 * np.mean(maha) + 0.5 * logdet + 0.5 * d * np.log(2 * np.pi)


def make_mvn_nll_cholesky(rng):
    d = 3
    L0 = np.eye(d) + 0.2 * np.tril(rng.normal(size=(d, d)), -1)
    return (L0[np.tril_indices(d)], 0.1 * rng.normal(size=d), rng.normal(size=(10, d)))


# ----------------------------------------------------------------------------------------
# 40. graphical-lasso-style objective: slogdet, trace, L1
# ----------------------------------------------------------------------------------------

def graphical_lasso_objective(A, S, alpha=0.1):
    Theta = A @ A.T + np.eye(len(A))
    sign, logdet = np.linalg.slogdet(Theta)
    return -logdet + np.trace(S @ Theta) + alpha * np.abs(Theta).sum()


def make_graphical_lasso_objective(rng):
    Z = rng.normal(size=(20, 4))
    return (0.3 * rng.normal(size=(4, 4)), np.cov(Z, rowvar=False))


# ----------------------------------------------------------------------------------------
# 41. binary linear SVM, hinge with np.maximum
# ----------------------------------------------------------------------------------------

def linear_svm_loss(w, b, X, y, C=1.0):
    margins = y * (X @ w + b)
    return 0.5 * w @ w + C * np.sum(np.maximum(0, 1 - margins))


def make_linear_svm_loss(rng):
    X = rng.normal(size=(16, 4))
    y = np.sign(X @ rng.normal(size=4) + 0.5 * rng.normal(size=16))
    return (0.3 * rng.normal(size=4), 0.05, X, y)


# ----------------------------------------------------------------------------------------
# 42. multiclass SVM (CS231n style): [:, np.newaxis], write into a computed array
# ----------------------------------------------------------------------------------------

def multiclass_svm_loss(W, X, labels, reg=1e-3):
    scores = X @ W
    n = len(labels)
    correct = scores[np.arange(n), labels][:, np.newaxis]
    margins = np.maximum(0, scores - correct + 1.0)
    margins[np.arange(n), labels] = 0
    return margins.sum() / n + reg * np.sum(W * W)


def make_multiclass_svm_loss(rng):
    return (0.3 * rng.normal(size=(5, 4)), rng.normal(size=(10, 5)), rng.integers(0, 4, 10))


# ----------------------------------------------------------------------------------------
# 43. policy gradient surrogate with an entropy regulariser (scipy softmax)
# ----------------------------------------------------------------------------------------

def entropy_regularized_policy_loss(theta, features, actions, advantages, beta=0.01):
    logits = features @ theta
    probs = softmax(logits, axis=1)
    log_probs = np.log(probs)
    chosen = log_probs[np.arange(len(actions)), actions]
    entropy = -np.sum(probs * log_probs, axis=1)
    return -np.mean(chosen * advantages) - beta * np.mean(entropy)


def make_entropy_regularized_policy_loss(rng):
    return (0.3 * rng.normal(size=(4, 3)), rng.normal(size=(10, 4)), rng.integers(0, 3, 10),
            rng.normal(size=10))


# ----------------------------------------------------------------------------------------
# 44. multi-quantile (pinball) loss with np.linspace quantile levels and y[:, None]
# ----------------------------------------------------------------------------------------

def quantile_regression_loss(W, X, y):
    taus = np.linspace(0.1, 0.9, W.shape[1])
    pred = X @ W
    err = y[:, None] - pred
    return np.mean(np.maximum(taus * err, (taus - 1) * err))


def make_quantile_regression_loss(rng):
    X = rng.normal(size=(12, 3))
    return (0.3 * rng.normal(size=(3, 5)), X, X @ np.array([1.0, 0.5, -0.5]) + rng.normal(size=12))


# ----------------------------------------------------------------------------------------
# 45. 1-D finite-difference energy with Dirichlet boundaries (np.concatenate of literals, np.diff)
# ----------------------------------------------------------------------------------------

def dirichlet_energy(u, f, h=0.1, kappa=1.0):
    u_full = np.concatenate(([0.0], u, [0.0]))
    grad_u = np.diff(u_full) / h
    return 0.5 * kappa * np.sum(grad_u ** 2) * h - np.sum(f * u) * h + 0.25 * np.sum(u ** 4) * h


def make_dirichlet_energy(rng):
    n = 8
    return (0.1 * rng.normal(size=n), np.ones(n) + 0.1 * rng.normal(size=n))


# ----------------------------------------------------------------------------------------
# 46. inverse heat problem: tridiagonal Laplacian by np.diag(..., k), np.linalg.solve
# ----------------------------------------------------------------------------------------

def heat_inverse_problem(log_kappa, source, u_obs, h=0.1):
    n = len(source)
    kappa = np.exp(log_kappa)
    main = 2.0 * np.ones(n)
    off = -np.ones(n - 1)
    A = kappa / h ** 2 * (np.diag(main) + np.diag(off, 1) + np.diag(off, -1))
    u = np.linalg.solve(A, source)
    return np.sum((u - u_obs) ** 2)


def make_heat_inverse_problem(rng):
    n = 7
    return (0.2, np.ones(n) + 0.1 * rng.normal(size=n), 0.05 * rng.random(n))


# ----------------------------------------------------------------------------------------
# 47. t-SNE KL objective (van der Maaten's tsne.py style, np.fill_diagonal)
# ----------------------------------------------------------------------------------------

def tsne_kl(Y, P):
    sum_Y = np.sum(np.square(Y), axis=1)
    num = 1.0 / (1.0 + np.add(np.add(-2.0 * np.dot(Y, Y.T), sum_Y).T, sum_Y))
    np.fill_diagonal(num, 0.0)
    Q = np.maximum(num / np.sum(num), 1e-12)
    return np.sum(P * np.log(np.maximum(P, 1e-12) / Q))


def make_tsne_kl(rng):
    n = 7
    Xh = rng.normal(size=(n, 5))
    D = np.sum((Xh[:, None, :] - Xh[None, :, :]) ** 2, axis=-1)
    P = np.exp(-D / 2.0)
    np.fill_diagonal(P, 0.0)
    P = P / P.sum(axis=1, keepdims=True)
    P = (P + P.T) / (2 * n)
    return (rng.normal(size=(n, 2)), P)


# ----------------------------------------------------------------------------------------
# 48-50. optimisation benchmark functions
# ----------------------------------------------------------------------------------------

def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def make_rosenbrock(rng):
    return (rng.uniform(-1.5, 1.5, size=6),)


def rastrigin(x, A=10):
    return A * len(x) + np.sum(x ** 2 - A * np.cos(2 * np.pi * x))


def make_rastrigin(rng):
    return (rng.uniform(-2, 2, size=5),)


def ackley(x, a=20, b=0.2, c=2 * np.pi):
    d = len(x)
    return (-a * np.exp(-b * np.sqrt(np.sum(x ** 2) / d))
            - np.exp(np.sum(np.cos(c * x)) / d) + a + np.e)


def make_ackley(rng):
    return (rng.uniform(-2, 2, size=5),)


# ----------------------------------------------------------------------------------------
# 51. bilinear scoring with np.einsum
# ----------------------------------------------------------------------------------------

def bilinear_einsum_loss(W, X, Z, y):
    scores = np.einsum("ni,ij,nj->n", X, W, Z)
    return np.mean(np.logaddexp(0.0, -y * scores))


def make_bilinear_einsum_loss(rng):
    return (0.3 * rng.normal(size=(4, 3)), rng.normal(size=(10, 4)), rng.normal(size=(10, 3)),
            np.sign(rng.normal(size=10)))


# ----------------------------------------------------------------------------------------
# 52. GELU MLP with scipy.special.erf (exact GELU)
# ----------------------------------------------------------------------------------------

def gelu(x):
    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


def gelu_mlp_regression(W1, b1, w2, X, y):
    h = gelu(X @ W1 + b1)
    return np.mean((h @ w2 - y) ** 2)


def make_gelu_mlp_regression(rng):
    X = rng.normal(size=(10, 3))
    return (rng.normal(size=(3, 6)), 0.1 * rng.normal(size=6), 0.5 * rng.normal(size=6), X,
            np.tanh(X[:, 0] * X[:, 1]))


# ----------------------------------------------------------------------------------------
# argument indices to differentiate
# ----------------------------------------------------------------------------------------

WRT = {
    "linear_regression": (0, 1),
    "ridge_validation_loss": (0,),
    "logistic_regression": (0, 1),
    "logistic_regression_stable": (0,),
    "softmax_regression": (0, 1),
    "softmax_regression_onehot": (0,),
    "cross_entropy_logsumexp": (0, 1),
    "mlp_classifier": (0,),
    "deep_mlp_regression": (0,),
    "layernorm_net": (0, 1, 2, 3, 4, 5),
    "batchnorm_mlp": (0, 1, 2, 3),
    "causal_self_attention": (0, 1, 2),
    "multi_head_attention": (0, 1, 2, 3),
    "gru_sequence_loss": (0,),
    "lstm_sequence_loss": (0, 1, 2),
    "rnn_hidden_states_loss": (0, 1, 2),
    "kalman_negative_log_likelihood": (0, 1, 5),
    "gmm_objective": (0, 1, 2),
    "bundle_adjustment_loss": (0, 1, 2),
    "black_scholes_call": (0, 2, 3, 4),
    "option_book_value": (0, 1),
    "gp_negative_log_marginal_likelihood": (0,),
    "poisson_regression_nll": (0,),
    "huber_loss": (0,),
    "portfolio_objective": (0,),
    "rk4_oscillator_loss": (0, 1),
    "lotka_volterra_fit": (0,),
    "spring_chain_loss": (0, 1),
    "polynomial_fit_vander": (0,),
    "polynomial_features_regression": (0, 1),
    "conv1d_loop_loss": (0, 1),
    "conv1d_numpy_loss": (0,),
    "matrix_factorization_loss": (0, 1),
    "triplet_loss": (0,),
    "contrastive_loss": (0,),
    "cosine_embedding_loss": (0,),
    "mdn_nll": (0, 1, 2, 3, 4),
    "vae_negative_elbo": (0, 1, 2, 3),
    "mvn_nll_cholesky": (0, 1),
    "graphical_lasso_objective": (0,),
    "linear_svm_loss": (0, 1),
    "multiclass_svm_loss": (0,),
    "entropy_regularized_policy_loss": (0,),
    "quantile_regression_loss": (0,),
    "dirichlet_energy": (0,),
    "heat_inverse_problem": (0, 1),
    "tsne_kl": (0,),
    "rosenbrock": (0,),
    "rastrigin": (0,),
    "ackley": (0,),
    "bilinear_einsum_loss": (0,),
    "gelu_mlp_regression": (0, 1, 2),
}
