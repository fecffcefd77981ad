"""Held-out corpus #7: everyday functions written from the README and docs alone (batch 1,
no jitad source read) and forms learnt from other AD projects' test suites (batch 2: JAX's
lax_numpy_test/api_test, PyTorch's autograd/functorch tests, Tangent's tests/functions.py,
autograd's tests; our own functions, none copied), each with a realistic argument set in
`corpus()` / `corpus2()`. `python -m tests.heldout7_funcs [--backend python] [names...]` runs
each through the compiled path and eager mode against central finite differences (and
autograd where it can run the function; tests/harness.py `triage`) and prints a triage line
per function; the default test run checks the functions listed in tests/test_heldout7.py."""
import math

import numpy as np
from scipy.special import expit, gammaln, logsumexp


# -- filters and state-space models -----------------------------------------------------------
def kalman_step_2d(F, Q, R, zs):
    # constant-velocity Kalman filter with matrix algebra, predictive log-likelihood
    n = F.shape[0]
    m = np.zeros(n)
    P = np.eye(n)
    H = np.array([[1.0, 0.0]])
    ll = 0.0
    for z in zs:
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        r = z - H @ m
        ll += -0.5 * (np.log(2 * np.pi * S[0, 0]) + r[0] ** 2 / S[0, 0])
        m = m + K @ r
        P = (np.eye(n) - K @ H) @ P
    return -ll


def gp_marginal_likelihood(log_params, X, y):
    ell, sf, sn = np.exp(log_params[0]), np.exp(log_params[1]), np.exp(log_params[2])
    sq = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf ** 2 * np.exp(-0.5 * sq / ell ** 2) + (sn ** 2 + 1e-6) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    sign, logdet = np.linalg.slogdet(K)
    n = y.shape[0]
    return 0.5 * y @ alpha + 0.5 * logdet + 0.5 * n * math.log(2 * math.pi) + 0.0 * np.sum(L)


def gp_predict_mean(ell, X, y, Xs):
    def kern(A, B):
        d = A[:, None] - B[None, :]
        return np.exp(-0.5 * d ** 2 / ell ** 2)
    K = kern(X, X) + 0.01 * np.eye(len(X))
    Ks = kern(Xs, X)
    mu = Ks @ np.linalg.solve(K, y)
    return np.sum(mu ** 2)


def ar1_loglik(phi, sigma, x):
    res = x[1:] - phi * x[:-1]
    n = len(res)
    return -0.5 * n * np.log(2 * np.pi * sigma ** 2) - np.sum(res ** 2) / (2 * sigma ** 2)


def exp_smoothing(alpha, ys):
    level = ys[0]
    sse = 0.0
    for t in range(1, len(ys)):
        err = ys[t] - level
        sse += err * err
        level = alpha * ys[t] + (1 - alpha) * level
    return sse


# -- regressions ----------------------------------------------------------------------------
def logistic_regression_l2(w, X, y, lam=0.1):
    z = X @ w
    loss = np.mean(np.logaddexp(0.0, -y * z))
    return loss + lam * np.sum(w ** 2) / 2


def poisson_regression(beta, X, counts):
    eta = X @ beta
    mu = np.exp(eta)
    return np.sum(mu - counts * eta + gammaln(counts + 1))


def softmax_regression_onehot(W, b, X, Y):
    logits = X @ W + b
    lse = logsumexp(logits, axis=1)
    return -np.sum(np.sum(Y * logits, axis=1) - lse) / X.shape[0]


def probit_regression(w, X, y):
    from_cdf = 0.5 * (1 + np.tanh(0.7978845608 * (X @ w)))
    p = np.clip(from_cdf, 1e-6, 1 - 1e-6)
    return -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))


def ridge_closed_form(lam, X, y):
    d = X.shape[1]
    w = np.linalg.solve(X.T @ X + lam * np.eye(d), X.T @ y)
    r = y - X @ w
    return r @ r + lam * w @ w


def quantile_loss(w, X, y, tau=0.3):
    r = y - X @ w
    return np.mean(np.maximum(tau * r, (tau - 1) * r))


def huber_regression(w, X, y, delta=1.0):
    r = X @ w - y
    a = np.abs(r)
    quad = 0.5 * r ** 2
    lin = delta * (a - 0.5 * delta)
    return np.sum(np.where(a <= delta, quad, lin))


def cauchy_loss(w, X, y, c=0.5):
    r = X @ w - y
    return np.sum(c ** 2 / 2 * np.log1p((r / c) ** 2))


def tukey_biweight(r, c=2.0):
    out = 0.0
    for v in r:
        if abs(v) < c:
            out += c ** 2 / 6 * (1 - (1 - (v / c) ** 2) ** 3)
        else:
            out += c ** 2 / 6
    return out


def elastic_net(w, X, y, alpha=0.1, l1_ratio=0.5):
    r = y - X @ w
    pen = l1_ratio * np.sum(np.abs(w)) + 0.5 * (1 - l1_ratio) * np.sum(w * w)
    return 0.5 * np.mean(r ** 2) + alpha * pen


# -- neural networks ----------------------------------------------------------------------------
def attention_layer(Wq, Wk, Wv, X):
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = s - s.max(axis=-1, keepdims=True)
    A = np.exp(s)
    A = A / A.sum(axis=-1, keepdims=True)
    return np.sum(np.tanh(A @ V))


def multihead_attention(W_qkv, X, heads=2):
    T, D = X.shape
    qkv = X @ W_qkv
    q, k, v = np.split(qkv, 3, axis=-1)
    dh = D // heads
    q = q.reshape(T, heads, dh).transpose(1, 0, 2)
    k = k.reshape(T, heads, dh).transpose(1, 0, 2)
    v = v.reshape(T, heads, dh).transpose(1, 0, 2)
    s = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
    s = s - np.max(s, axis=-1, keepdims=True)
    a = np.exp(s)
    a = a / np.sum(a, axis=-1, keepdims=True)
    o = (a @ v).transpose(1, 0, 2).reshape(T, D)
    return np.sum(o ** 2)


def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    sd = np.sqrt(((x - mu) ** 2).mean(axis=-1, keepdims=True) + eps)
    y = g * (x - mu) / sd + b
    return np.sum(y ** 3)


def batch_norm_train(x, gamma, beta):
    mu = np.mean(x, axis=0)
    var = np.var(x, axis=0)
    xh = (x - mu) / np.sqrt(var + 1e-5)
    out = gamma * xh + beta
    return np.sum(np.maximum(out, 0.0) ** 2)


def cnn_loops(x, K, w_out):
    H, W = x.shape
    kh, kw = K.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            out[i, j] = np.sum(x[i:i + kh, j:j + kw] * K)
    h = np.maximum(out, 0.0)
    return np.sum(h * w_out)


def cnn_einsum(x, K):
    win = np.lib.stride_tricks.sliding_window_view(x, K.shape[2:], axis=(1, 2))
    y = np.einsum('chwij,fcij->fhw', win, K)
    y = np.tanh(y)
    return np.mean(y ** 2)


def maxpool_loop(x):
    n = x.shape[0] // 2
    out = np.zeros(n)
    for i in range(n):
        out[i] = max(x[2 * i], x[2 * i + 1])
    return np.sum(out ** 2)


def mlp_dropout_mask(params, X, mask):
    W1, b1, W2, b2 = params
    h = np.tanh(X @ W1 + b1) * mask
    return np.sum((h @ W2 + b2) ** 2)


def gelu_mlp(W1, W2, x):
    h = x @ W1
    g = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
    return np.sum(g @ W2)


def residual_block_loop(Ws, x):
    h = x
    for W in Ws:
        h = h + np.tanh(W @ h)
    return np.sum(h ** 2)


def lstm_tuple_state(params, xs):
    Wf, Wi, Wo, Wc = params
    H = Wf.shape[0]
    state = (np.zeros(H), np.zeros(H))
    for x in xs:
        h, c = state
        v = np.concatenate((h, x))
        f = expit(Wf @ v)
        i = expit(Wi @ v)
        o = expit(Wo @ v)
        c = f * c + i * np.tanh(Wc @ v)
        state = (o * np.tanh(c), c)
    h, c = state
    return np.sum(h)


def seq2seq_list_stack(W, U, xs):
    hs = []
    h = np.zeros(W.shape[0])
    for x in xs:
        h = np.tanh(W @ h + U @ x)
        hs.append(h)
    H = np.stack(hs)
    return np.sum(H[-1]) + 0.1 * np.sum(H ** 2)


def embedding_bag(E, ids, offsets, w):
    total = 0.0
    for b in range(len(offsets) - 1):
        rows = E[ids[offsets[b]:offsets[b + 1]]]
        total += np.dot(np.mean(rows, axis=0), w)
    return total


def cross_entropy_label_smoothing(logits, labels, eps=0.1):
    n, k = logits.shape
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    nll = -logp[np.arange(n), labels]
    smooth = -np.mean(logp, axis=1)
    return np.mean((1 - eps) * nll + eps * smooth)


def focal_loss(z, y, gamma=2.0):
    p = expit(z)
    pt = np.where(y == 1, p, 1 - p)
    return -np.sum((1 - pt) ** gamma * np.log(pt))


def triplet_margin(a, p, n, margin=1.0):
    dp = np.sum((a - p) ** 2, axis=1)
    dn = np.sum((a - n) ** 2, axis=1)
    return np.mean(np.maximum(dp - dn + margin, 0.0))


def contrastive_infonce(Z1, Z2, tau=0.5):
    Z1 = Z1 / np.linalg.norm(Z1, axis=1, keepdims=True)
    Z2 = Z2 / np.linalg.norm(Z2, axis=1, keepdims=True)
    S = Z1 @ Z2.T / tau
    n = S.shape[0]
    return -np.mean(np.diag(S) - logsumexp(S, axis=1))


# -- physics and ODEs ---------------------------------------------------------------------------
def projectile_drag(v0, angle, k):
    pos = np.array([0.0, 0.0, 0.0])
    vel = np.array([v0 * math.cos(angle), 0.0, v0 * math.sin(angle)])
    g = np.array([0.0, 0.0, -9.81])
    dt = 0.01
    t = 0.0
    while pos[2] >= 0.0 and t < 5.0:
        acc = g - k * np.linalg.norm(vel) * vel
        vel = vel + dt * acc
        pos = pos + dt * vel
        t += dt
    return pos[0]


def nbody_energy(pos, vel, m):
    n = pos.shape[0]
    ke = 0.5 * np.sum(m * np.sum(vel ** 2, axis=1))
    pe = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(pos[i] - pos[j])
            pe -= m[i] * m[j] / r
    return ke + pe


def pendulum_rk4(theta0, omega0, L, T=2.0):
    g = 9.81

    def f(th, om):
        return om, -g / L * math.sin(th)
    th, om = theta0, omega0
    h = 0.05
    t = 0.0
    while t < T:
        k1 = f(th, om)
        k2 = f(th + 0.5 * h * k1[0], om + 0.5 * h * k1[1])
        k3 = f(th + 0.5 * h * k2[0], om + 0.5 * h * k2[1])
        k4 = f(th + h * k3[0], om + h * k3[1])
        th = th + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        om = om + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        t += h
    return th


def lotka_volterra(params, x0, T=3.0):
    a, b, c, d = params
    x = x0.copy()
    dt = 0.01
    t = 0.0
    while t < T:
        dx = np.array([a * x[0] - b * x[0] * x[1], c * x[0] * x[1] - d * x[1]])
        x = x + dt * dx
        t = t + dt
    return x[0] + 2 * x[1]


def rk4_vector_field(A, y0):
    def rhs(y):
        return np.tanh(A @ y)
    y = y0
    h = 0.1
    for _ in range(20):
        k1 = rhs(y)
        k2 = rhs(y + h / 2 * k1)
        k3 = rhs(y + h / 2 * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(y ** 2)


def spring_chain_verlet(k, x0, steps=30):
    x = x0.copy()
    v = np.zeros_like(x)
    dt = 0.05
    n = len(x)
    for _ in range(steps):
        f = np.zeros(n)
        f[1:] -= k * (x[1:] - x[:-1] - 1.0)
        f[:-1] += k * (x[1:] - x[:-1] - 1.0)
        v = v + 0.5 * dt * f
        x = x + dt * v
        f2 = np.zeros(n)
        f2[1:] -= k * (x[1:] - x[:-1] - 1.0)
        f2[:-1] += k * (x[1:] - x[:-1] - 1.0)
        v = v + 0.5 * dt * f2
    return np.sum(x * np.arange(n))


def cross_product_torque(r, F):
    tau = np.cross(r, F)
    return np.sum(tau * tau) + np.sum(np.cross(r[0], F[1]))


def heat_equation_explicit(u0, kappa):
    u = u0.copy()
    for _ in range(25):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + kappa * lap
    return np.sum(u ** 2)


def bouncing_ball(h0, e):
    y, v = h0, 0.0
    dt = 0.01
    bounces = 0
    while bounces < 3:
        v -= 9.81 * dt
        y += v * dt
        if y < 0.0:
            y = -y
            v = -e * v
            bounces += 1
    return y + v


# -- finance --------------------------------------------------------------------------------------
def black_scholes_call(S, K, T, r, sigma):
    def ncdf(x):
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * ncdf(d1) - K * math.exp(-r * T) * ncdf(d2)


def binomial_tree_american(S0, sigma, K=1.0, r=0.02, T=1.0, n=20):
    dt = T / n
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    j = np.arange(n + 1)
    V = np.maximum(K - S0 * u ** (n - j) * d ** j, 0.0)
    for i in range(n - 1, -1, -1):
        j = np.arange(i + 1)
        cont = disc * (p * V[:i + 1] + (1 - p) * V[1:i + 2])
        ex = K - S0 * u ** (i - j) * d ** j
        V = np.maximum(cont, ex)
    return V[0]


def monte_carlo_asian(S0, sigma, Z, K=1.0, r=0.01, dt=0.1):
    logS = np.log(S0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * math.sqrt(dt) * Z, axis=1)
    avg = np.mean(np.exp(logS), axis=1)
    payoff = np.maximum(avg - K, 0.0)
    return math.exp(-r * dt * Z.shape[1]) * np.mean(payoff)


def portfolio_sharpe(w, R):
    rp = R @ w
    return -np.mean(rp) / np.std(rp)


def mean_variance(w, mu, Sigma, risk=2.0):
    w = w / np.sum(w)
    return -(mu @ w) + 0.5 * risk * w @ Sigma @ w


# -- classic optimisation objectives --------------------------------------------------------------
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def beale(x, y):
    return ((1.5 - x + x * y) ** 2 + (2.25 - x + x * y ** 2) ** 2
            + (2.625 - x + x * y ** 3) ** 2)


def himmelblau(p):
    x, y = p
    return (x ** 2 + y - 11) ** 2 + (x + y ** 2 - 7) ** 2


def rastrigin(x, A=10.0):
    return A * len(x) + np.sum(x ** 2 - A * np.cos(2 * np.pi * x))


def ackley(x):
    n = x.size
    a = -20 * np.exp(-0.2 * np.sqrt(np.sum(x ** 2) / n))
    b = -np.exp(np.sum(np.cos(2 * math.pi * x)) / n)
    return a + b + 20 + math.e


def styblinski_tang(x):
    return 0.5 * sum(xi ** 4 - 16 * xi ** 2 + 5 * xi for xi in x)


def booth_matyas(x, y):
    booth = (x + 2 * y - 7) ** 2 + (2 * x + y - 5) ** 2
    matyas = 0.26 * (x ** 2 + y ** 2) - 0.48 * x * y
    return booth + matyas


def goldstein_price(x, y):
    a = 1 + (x + y + 1) ** 2 * (19 - 14 * x + 3 * x ** 2 - 14 * y + 6 * x * y + 3 * y ** 2)
    b = 30 + (2 * x - 3 * y) ** 2 * (18 - 32 * x + 12 * x ** 2 + 48 * y - 36 * x * y + 27 * y ** 2)
    return math.log(a * b)


def levy(x):
    w = 1 + (x - 1) / 4
    t1 = np.sin(np.pi * w[0]) ** 2
    t2 = np.sum((w[:-1] - 1) ** 2 * (1 + 10 * np.sin(np.pi * w[:-1] + 1) ** 2))
    t3 = (w[-1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[-1]) ** 2)
    return t1 + t2 + t3


# -- mixtures and probabilistic models ------------------------------------------------------------
def gmm_loglik_handwritten(means, log_sds, logits, x):
    w = logits - np.max(logits)
    logw = w - np.log(np.sum(np.exp(w)))
    sds = np.exp(log_sds)
    lp = (logw[None, :] - 0.5 * ((x[:, None] - means[None, :]) / sds) ** 2
          - np.log(sds) - 0.5 * np.log(2 * np.pi))
    m = np.max(lp, axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.sum(np.exp(lp - m), axis=1))
    return -np.sum(lse)


def em_responsibilities(mu, x, n_iter=3):
    for _ in range(n_iter):
        d = -(x[:, None] - mu[None, :]) ** 2
        r = np.exp(d - logsumexp(d, axis=1, keepdims=True))
        mu = (r * x[:, None]).sum(axis=0) / r.sum(axis=0)
    return np.sum(mu ** 2)


def bayesian_linreg_evidence(log_alpha, log_beta, X, y):
    a, b = np.exp(log_alpha), np.exp(log_beta)
    n, d = X.shape
    A = a * np.eye(d) + b * X.T @ X
    m = b * np.linalg.solve(A, X.T @ y)
    E = b / 2 * np.sum((y - X @ m) ** 2) + a / 2 * m @ m
    _, logdetA = np.linalg.slogdet(A)
    return -(d / 2 * log_alpha + n / 2 * log_beta - E - 0.5 * logdetA)


def dirichlet_multinomial(log_alpha, counts):
    a = np.exp(log_alpha)
    A = np.sum(a)
    N = np.sum(counts)
    return -(gammaln(A) - gammaln(N + A) + np.sum(gammaln(counts + a) - gammaln(a)))


def vae_elbo_gaussian(mu, log_var, x, eps, W):
    z = mu + np.exp(0.5 * log_var) * eps
    xr = expit(W @ z)
    rec = np.sum(x * np.log(xr) + (1 - x) * np.log(1 - xr))
    kl = -0.5 * np.sum(1 + log_var - mu ** 2 - np.exp(log_var))
    return -(rec - kl)


# -- language features ----------------------------------------------------------------------------
def recursive_power(x, n):
    if n == 0:
        return 1.0
    half = recursive_power(x, n // 2)
    if n % 2 == 0:
        return half * half
    return x * half * half


def recursive_tree_sum(x, lo, hi):
    if hi - lo == 1:
        return math.sin(x[lo])
    mid = (lo + hi) // 2
    return recursive_tree_sum(x, lo, mid) * recursive_tree_sum(x, mid, hi) + 1.0


def activation_by_name(x, act="relu"):
    if act == "relu":
        h = np.maximum(x, 0.0)
    elif act == "tanh":
        h = np.tanh(x)
    else:
        h = x / (1 + np.exp(-x))
    return np.sum(h ** 2)


def flags_and_keywords(x, w, normalize=True, power=2):
    y = x * w
    if normalize:
        y = y / np.linalg.norm(y)
    return np.sum(np.abs(y) ** power)


def lambda_helper(x, a):
    sq = lambda v: v * v  # noqa: E731
    soft = lambda v: np.log1p(np.exp(v))  # noqa: E731
    return np.sum(sq(x) + a * soft(x))


def lambda_in_comprehension(xs, t):
    f = lambda v: math.exp(-v * t)  # noqa: E731
    return sum([f(v) for v in xs])


def early_return_search(x, thresh):
    acc = 0.0
    for i in range(len(x)):
        acc += x[i] ** 2
        if acc > thresh:
            return acc * (i + 1)
    return acc


def break_continue_mix(x):
    s = 0.0
    for v in x:
        if v < -1.5:
            break
        if v < 0:
            continue
        s += math.sqrt(v + 1.0)
    return s


def list_then_array(x):
    feats = []
    for k in range(1, 4):
        feats.append(np.sin(k * x))
    F = np.array(feats)
    return np.sum(F @ x)


def tuples_swap_fib(a, b, n=6):
    for _ in range(n):
        a, b = b, a + 0.5 * b
    return a * b


def clip_where_maximum(x):
    y = np.clip(x, -0.5, 0.8)
    z = np.where(x > 0, y ** 2, np.maximum(x, -1.0))
    return np.sum(z) + np.sum(np.minimum(x, 0.3))


def cumsum_features(x):
    c = np.cumsum(x)
    return np.sum(c ** 2) + np.sum(np.cumprod(1 + 0.1 * x))


def sorted_trimmed_mean(x, k=1):
    s = np.sort(x)
    return np.mean(s[k:len(s) - k])


def spearman_like_soft(x, y):
    ix = np.argsort(x)
    xs = np.sort(x)
    return np.sum(xs * y[ix])


def wasserstein_1d(x, y):
    return np.mean(np.abs(np.sort(x) - np.sort(y)))


def top_k_loss(x, k=3):
    s = np.sort(x)[::-1]
    return np.sum(s[:k] ** 2)


def dict_params_model(p, x):
    h = np.tanh(p["W"] @ x + p["b"])
    return np.sum(h * p["v"]) + p["scale"] * np.sum(x)


def namedtuple_free_keywords(x, *, temperature=1.0, bias=0.0):
    z = x / temperature + bias
    return logsumexp(z) * temperature


def enumerate_zip_weights(ws, xs):
    total = 0.0
    for i, (w, x) in enumerate(zip(ws, xs)):
        total += (i + 1) * w * math.tanh(x)
    return total


def while_newton_sqrt(a):
    x = a
    it = 0
    while abs(x * x - a) > 1e-12 and it < 50:
        x = 0.5 * (x + a / x)
        it += 1
    return x


def bisection_root(c):
    lo, hi = 0.0, 3.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid ** 3 - c > 0:
            hi = mid
        else:
            lo = mid
    # the bracket is piecewise constant in c (its derivative 0): one Newton step from it
    # carries the root's dependence on c
    root = lo - (lo ** 3 - c) / (3 * lo ** 2)
    return root * c


def fixed_point_iteration(a):
    x = 0.5
    for _ in range(100):
        x_new = math.cos(a * x)
        if abs(x_new - x) < 1e-14:
            break
        x = x_new
    return x


def matrix_exponential_series(A):
    E = np.eye(A.shape[0])
    term = np.eye(A.shape[0])
    for k in range(1, 15):
        term = term @ A / k
        E = E + term
    return np.trace(E)


def pca_reconstruction(X, k=2):
    Xc = X - X.mean(axis=0)
    C = Xc.T @ Xc / X.shape[0]
    w, V = np.linalg.eigh(C)
    P = V[:, -k:]
    R = Xc @ P @ P.T
    return np.sum((Xc - R) ** 2)


def svd_nuclear_norm(A):
    s = np.linalg.svd(A, compute_uv=False)
    return np.sum(s)


def qr_least_squares(A, b):
    Q, R = np.linalg.qr(A)
    x = np.linalg.solve(R, Q.T @ b)
    return np.sum(x ** 2)


def logdet_barrier(x, A, b):
    s = b - A @ x
    return -np.sum(np.log(s)) + 0.5 * x @ x


def kl_categorical(p_logits, q_logits):
    p = np.exp(p_logits - logsumexp(p_logits))
    logq = q_logits - logsumexp(q_logits)
    logp = p_logits - logsumexp(p_logits)
    return np.sum(p * (logp - logq))


def softplus_stable(x):
    return np.sum(np.where(x > 0, x + np.log1p(np.exp(-x)), np.log1p(np.exp(x))))


def fsum_total(x):
    return math.fsum([v * v for v in x])


def dstack_channels(a, b):
    c = np.dstack([a, b])
    return np.sum(c ** 2 * np.arange(2))


def correlate_signal(x, k):
    return np.sum(np.correlate(x, k, mode="valid") ** 2)


def einsum_ellipsis(A, B):
    return np.sum(np.einsum('...ij,...jk->...ik', A, B))


def split_as_value(x):
    parts = np.split(x, 3)
    return np.sum(np.stack(parts) ** 2) + np.sum(parts[1])


def corpus(seed=77):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(6, 3))
    yb = (rng.uniform(size=6) > 0.5).astype(float)
    ypm = np.where(yb > 0, 1.0, -1.0)
    Y = np.eye(3)[rng.integers(0, 3, 6)]
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    A3 = nrm(size=(3, 3))
    return [
        (kalman_step_2d, (F, 0.01 * np.eye(2), np.array([[0.2]]), nrm(size=(5, 1))), (0, 1, 2)),
        (gp_marginal_likelihood, (np.array([0.1, -0.2, -1.0]), nrm(size=(5, 2)), nrm(size=5)), (0,)),
        (gp_predict_mean, (0.8, np.linspace(0, 2, 5), nrm(size=5), np.array([0.3, 1.7])), (0, 2)),
        (ar1_loglik, (0.5, 0.9, nrm(size=8)), (0, 1, 2)),
        (exp_smoothing, (0.3, nrm(size=8)), (0, 1)),
        (logistic_regression_l2, (nrm(size=3), X, ypm), (0,)),
        (poisson_regression, (0.3 * nrm(size=3), X, rng.poisson(2.0, 6).astype(float)), (0,)),
        (softmax_regression_onehot, (nrm(size=(3, 3)), nrm(size=3), X, Y), (0, 1, 2)),
        (probit_regression, (nrm(size=3), X, yb), (0,)),
        (ridge_closed_form, (0.7, X, nrm(size=6)), (0, 1, 2)),
        (quantile_loss, (nrm(size=3), X, nrm(size=6)), (0,)),
        (huber_regression, (nrm(size=3), X, 2 * nrm(size=6)), (0,)),
        (cauchy_loss, (nrm(size=3), X, nrm(size=6)), (0, 2)),
        (tukey_biweight, (np.array([0.3, -2.5, 1.1, 3.0, -0.7]),), (0,)),
        (elastic_net, (nrm(size=3), X, nrm(size=6)), (0,)),
        (attention_layer, (nrm(size=(4, 3)), nrm(size=(4, 3)), nrm(size=(4, 3)), nrm(size=(5, 4))),
         (0, 1, 2, 3)),
        (multihead_attention, (0.5 * nrm(size=(4, 12)), nrm(size=(3, 4))), (0, 1)),
        (layer_norm, (nrm(size=(3, 4)), nrm(size=4), nrm(size=4)), (0, 1, 2)),
        (batch_norm_train, (nrm(size=(5, 3)), nrm(size=3), nrm(size=3)), (0, 1, 2)),
        (cnn_loops, (nrm(size=(5, 5)), nrm(size=(2, 2)), nrm(size=(4, 4))), (0, 1)),
        (cnn_einsum, (nrm(size=(2, 5, 5)), nrm(size=(3, 2, 2, 2))), (0, 1)),
        (maxpool_loop, (nrm(size=8),), (0,)),
        (mlp_dropout_mask, ((nrm(size=(3, 4)), nrm(size=4), nrm(size=(4, 2)), nrm(size=2)), X,
                            (rng.uniform(size=(6, 4)) > 0.3).astype(float)), (0, 1)),
        (gelu_mlp, (nrm(size=(3, 5)), nrm(size=(5, 2)), X), (0, 1, 2)),
        (residual_block_loop, ([0.5 * nrm(size=(3, 3)) for _ in range(3)], nrm(size=3)), (0, 1)),
        (lstm_tuple_state, (tuple(0.5 * nrm(size=(3, 5)) for _ in range(4)), nrm(size=(4, 2))),
         (0, 1)),
        (seq2seq_list_stack, (0.5 * nrm(size=(3, 3)), nrm(size=(3, 2)), nrm(size=(4, 2))), (0, 1, 2)),
        (embedding_bag, (nrm(size=(6, 3)), np.array([0, 2, 5, 1, 1, 3]), np.array([0, 2, 3, 6]),
                         nrm(size=3)), (0, 3)),
        (cross_entropy_label_smoothing, (nrm(size=(5, 4)), np.array([0, 3, 1, 1, 2])), (0,)),
        (focal_loss, (nrm(size=6), (rng.uniform(size=6) > 0.5).astype(int)), (0,)),
        (triplet_margin, (nrm(size=(4, 3)), nrm(size=(4, 3)), nrm(size=(4, 3))), (0, 1, 2)),
        (contrastive_infonce, (nrm(size=(4, 3)), nrm(size=(4, 3))), (0, 1)),
        (projectile_drag, (12.0, 0.8, 0.05), (0, 1, 2)),
        (nbody_energy, (nrm(size=(3, 3)), nrm(size=(3, 3)), np.array([1.0, 2.0, 0.5])), (0, 1, 2)),
        (pendulum_rk4, (0.4, 0.1, 1.2), (0, 1, 2)),
        (lotka_volterra, (np.array([1.0, 0.5, 0.4, 0.8]), np.array([1.0, 0.7])), (0, 1)),
        (rk4_vector_field, (nrm(size=(3, 3)), nrm(size=3)), (0, 1)),
        (spring_chain_verlet, (2.0, np.array([0.0, 1.1, 1.9, 3.2])), (0, 1)),
        (cross_product_torque, (nrm(size=(4, 3)), nrm(size=(4, 3))), (0, 1)),
        (heat_equation_explicit, (nrm(size=8), 0.2), (0, 1)),
        (bouncing_ball, (1.0, 0.8), (0, 1)),
        (black_scholes_call, (1.1, 1.0, 0.5, 0.02, 0.3), (0, 1, 2, 3, 4)),
        (binomial_tree_american, (1.03, 0.25), (0, 1)),
        (monte_carlo_asian, (1.0, 0.3, nrm(size=(20, 5))), (0, 1)),
        (portfolio_sharpe, (rng.uniform(0.1, 1, 4), 0.01 + 0.05 * nrm(size=(10, 4))), (0, 1)),
        (mean_variance, (rng.uniform(0.1, 1, 3), nrm(size=3), A3 @ A3.T + np.eye(3)), (0, 1, 2)),
        (rosenbrock, (nrm(size=4),), (0,)),
        (beale, (1.2, 0.4), (0, 1)),
        (himmelblau, (np.array([1.3, -0.4]),), (0,)),
        (rastrigin, (nrm(size=4),), (0,)),
        (ackley, (nrm(size=4),), (0,)),
        (styblinski_tang, (nrm(size=4),), (0,)),
        (booth_matyas, (0.4, -1.1), (0, 1)),
        (goldstein_price, (0.3, -0.6), (0, 1)),
        (levy, (nrm(size=4),), (0,)),
        (gmm_loglik_handwritten, (nrm(size=3), 0.2 * nrm(size=3), nrm(size=3), nrm(size=7)),
         (0, 1, 2, 3)),
        (em_responsibilities, (np.array([-1.0, 0.2, 1.5]), nrm(size=8)), (0, 1)),
        (bayesian_linreg_evidence, (0.1, 0.5, X, nrm(size=6)), (0, 1, 2, 3)),
        (dirichlet_multinomial, (0.3 * nrm(size=4), np.array([3.0, 0.0, 5.0, 1.0])), (0,)),
        (vae_elbo_gaussian, (nrm(size=2), 0.3 * nrm(size=2), yb, nrm(size=2), nrm(size=(6, 2))),
         (0, 1, 4)),
        (recursive_power, (1.3, 11), (0,)),
        (recursive_tree_sum, (nrm(size=5), 0, 5), (0,)),
        (activation_by_name, (nrm(size=5), "swish"), (0,)),
        (flags_and_keywords, (nrm(size=4), 0.7, False, 3), (0, 1)),
        (lambda_helper, (nrm(size=4), 0.6), (0, 1)),
        (lambda_in_comprehension, (rng.uniform(size=4), 0.8), (0, 1)),
        (early_return_search, (nrm(size=6), 1.5), (0, 1)),
        (break_continue_mix, (np.array([0.3, -0.2, 1.1, 0.7, -2.0, 4.0]),), (0,)),
        (list_then_array, (nrm(size=4),), (0,)),
        (tuples_swap_fib, (0.3, 1.1), (0, 1)),
        (clip_where_maximum, (np.array([-1.3, -0.7, -0.2, 0.4, 0.9, 1.4]),), (0,)),
        (cumsum_features, (nrm(size=5),), (0,)),
        (sorted_trimmed_mean, (nrm(size=6),), (0,)),
        (spearman_like_soft, (nrm(size=5), nrm(size=5)), (0, 1)),
        (wasserstein_1d, (nrm(size=5), nrm(size=5)), (0, 1)),
        (top_k_loss, (nrm(size=6),), (0,)),
        (dict_params_model, ({"W": nrm(size=(2, 3)), "b": nrm(size=2), "v": nrm(size=2),
                              "scale": 0.4}, nrm(size=3)), (0, 1)),
        (namedtuple_free_keywords, (nrm(size=4),), (0,)),
        (enumerate_zip_weights, (nrm(size=4), nrm(size=4)), (0, 1)),
        (while_newton_sqrt, (2.7,), (0,)),
        (bisection_root, (2.2,), (0,)),
        (fixed_point_iteration, (0.9,), (0,)),
        (matrix_exponential_series, (0.3 * A3,), (0,)),
        (pca_reconstruction, (nrm(size=(6, 3)),), (0,)),
        (svd_nuclear_norm, (nrm(size=(4, 3)),), (0,)),
        (qr_least_squares, (nrm(size=(5, 3)), nrm(size=5)), (0, 1)),
        (logdet_barrier, (0.1 * nrm(size=3), nrm(size=(5, 3)), 2.0 + rng.uniform(size=5)), (0, 1, 2)),
        (kl_categorical, (nrm(size=4), nrm(size=4)), (0, 1)),
        (softplus_stable, (3 * nrm(size=6),), (0,)),
        (fsum_total, (nrm(size=4),), (0,)),
        (dstack_channels, (nrm(size=(2, 3)), nrm(size=(2, 3))), (0, 1)),
        (correlate_signal, (nrm(size=6), nrm(size=3)), (0, 1)),
        (einsum_ellipsis, (nrm(size=(2, 3, 2)), nrm(size=(2, 2, 3))), (0, 1)),
        (split_as_value, (nrm(size=6),), (0,)),
    ]


# -- batch 2: forms other AD projects' test suites exercise (our own functions) -------------------
# Tangent tests/functions.py: lists of constants and values summed, overwritten arguments,
# nested ifs, a tuple indexed by an argument, dicts of values, while on np.abs, row writes.
def sum_of_mixed_list(x):
    b = [1.0, x[0] * x[1] * x[2], 3.0]
    return np.sum(b) * x[0]


def nested_if_overwrite(a):
    if a > 0:
        a = a * 3.0
        if a < 10:
            a = a * a
        else:
            a = a * 2.0
    elif 0 > a:
        a = a * 2.0
    return a


def tuple_index_by_argument(a, b, c, i):
    t = (a * b, b * c, c * a)
    return t[i]  # ERR: tuple index


def nested_dict_argument(p):
    return p["i"]["j"] * p["i"]["k"] + p["m"]


def while_abs_halving(a):
    while np.abs(a) > 0.1:
        a = a * 0.5
    return a


def row_writes_broadcast(x):
    h = np.zeros((len(x), 3))
    for t in range(len(h)):
        h[t] = x[t]
    return np.sum(h * np.arange(3))


def rnn_row_writes(inputs, W):
    h = np.zeros((4, 3))
    for t in range(3):
        h[t + 1] = np.dot(inputs[t], W) + h[t]
    return np.sum(h[1:] ** 2)


def augassign_self(a):
    x = a * a
    x *= x
    x -= a
    x /= 2.0
    return x


def extended_slice_newaxis(x):
    return np.sum(x[::2, np.newaxis] * x[1::2])


def iterpower_nested_def_shadow(a, n):
    def _fn(a, n):
        return a * n

    for i in range(n):
        a = _fn(a, 0.9)
    return a


def listcomp_np_sum(a):
    return np.sum([v * 3.0 for v in a]) + np.sum(np.array([v ** 2 for v in a]))


# autograd tests (test_numpy.py, test_systematic.py): reductions with axes and keepdims,
# index updates, dot forms, tensordot axes, einsum forms, fancy indexing, cumsum axes.
def prod_axis_keepdims(x):
    return np.sum(np.prod(x, axis=1, keepdims=True) * x)


def var_ddof_axis(x):
    return np.sum(np.var(x, axis=0, ddof=1)) + np.std(x, ddof=1)


def cumsum_axis_matrix(x):
    return np.sum(np.cumsum(x, axis=0) * np.cumsum(x, axis=1))


def tensordot_axes_pairs(A, B):
    return np.sum(np.tensordot(A, B, axes=([0, 2], [1, 0])) ** 2)


def einsum_forms(A, B, v):
    return (np.einsum("ij,jk->ik", A, B).sum() + np.einsum("ij,ij->", A, A)
            + np.einsum("i,i", v, v) + np.einsum("ij->j", A) @ v[:A.shape[1]]
            + np.einsum("ijk->kji", np.einsum("ij,k->ijk", A, v)).sum())


def fancy_index_2d(x, rows, cols):
    return np.sum(x[rows][:, cols] ** 2) + np.sum(x[rows, cols])


def max_axis_ties(x):
    return np.sum(np.max(x, axis=0)) + np.min(x)


def diag_and_trace_offset(A):
    return np.sum(np.diag(A, 1)) + np.trace(A, 1) + np.sum(np.diag(np.diag(A)))


def triu_tril_k(A):
    return np.sum(np.triu(A, 1) ** 2) + np.sum(np.tril(A, -1) * A)


def flip_roll_axes(x):
    return np.sum(np.flip(x, axis=1) * np.roll(x, 1, axis=0))


def inner_outer_kron(a, b):
    return np.inner(a, b) + np.sum(np.outer(a, b) ** 2) + np.sum(np.kron(a, b))


def concatenate_axis1_and_split(A, B):
    C = np.concatenate([A, B], axis=1)
    left, right = np.split(C, 2, axis=1)
    return np.sum(left * right)


# JAX lax_numpy_test / api_test: elementwise binary ops, take_along_axis, select, cov,
# logaddexp2, nan-reductions, where with scalars, keyword arguments, closures, Python control flow.
def binary_elementwise(x, y):
    return np.sum(np.hypot(x, y) + np.arctan2(x, y) + np.logaddexp2(x, y)
                  + np.float_power(np.abs(x) + 1, y) + np.fmax(x, y))


def unary_elementwise(x):
    return np.sum(np.cbrt(x) + np.sinc(x) + np.expm1(x) * np.log1p(np.abs(x))
                  + np.arcsinh(x) + np.square(x) + np.reciprocal(2.0 + x ** 2))


def take_along_axis_max(x):
    idx = np.argsort(x, axis=1)
    return np.sum(np.take_along_axis(x, idx, axis=1) * np.arange(x.shape[1]))


def select_piecewise(x):
    return np.sum(np.select([x < -0.5, x > 0.5], [x ** 2, np.sin(x)], default=x))


def covariance_matrix(X):
    C = np.cov(X)
    return np.sum(C ** 2)


def corrcoef_loss(x, y):
    return np.corrcoef(x, y)[0, 1]


def nanmax_nanmin(x):
    return np.nanmax(x) - np.nanmin(x)


def where_scalar_branches(x):
    return np.sum(np.where(x > 0, x, 0.0)) + np.sum(np.where(x < 0, 1.0, x ** 2))


def keyword_call_helper(x):
    return helper_scaled(x, power=3, scale=0.5) + helper_scaled(x)


def helper_scaled(x, scale=1.0, power=2):
    return scale * np.sum(x ** power)


def closure_factory_value(x, k):
    def inner(y):
        return k * y ** 2
    return inner(x) + inner(2 * x)


def python_control_on_data(x):
    if x > 0:
        for i in range(3):
            x = x * 1.1
    else:
        x = -x
    return x


def argmax_gather(x, W):
    k = np.argmax(x)
    return W[k] @ x


def linalg_norm_axes(X):
    return np.linalg.norm(X, axis=(0, 1)) + np.sum(np.linalg.norm(X, axis=0))


def matmul_batched_3d(A, B):
    return np.sum(np.matmul(A, B) ** 2)


def det_inv_combo(A):
    return np.linalg.det(A) + np.sum(np.linalg.inv(A))


def expand_squeeze_swap(x):
    y = np.expand_dims(x, 0)
    z = np.swapaxes(y, 0, 2)
    return np.sum(np.squeeze(z, axis=2) ** 2)


# PyTorch autograd / functorch tests: index_add / scatter-add, gather, masked fill,
# cdist, logcumsumexp, cummax, renorm, per-sample loss.
def index_add_scatter(src, idx):
    out = np.zeros(4)
    np.add.at(out, idx, src)
    return np.sum(out ** 2)


def masked_fill(x, m):
    y = x.copy()
    y[m] = 0.0
    return np.sum(y ** 2)


def cdist_loss(A, B):
    D = np.sqrt(np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1))
    return np.sum(D)


def logcumsumexp_manual(x):
    out = np.zeros_like(x)
    acc = x[0]
    out[0] = acc
    for i in range(1, len(x)):
        acc = np.logaddexp(acc, x[i])
        out[i] = acc
    return np.sum(out)


def cummax_loss(x):
    return np.sum(np.maximum.accumulate(x) * np.arange(1, len(x) + 1))


def renorm_rows(W, maxnorm=1.0):
    n = np.linalg.norm(W, axis=1, keepdims=True)
    scale = np.where(n > maxnorm, maxnorm / n, 1.0)
    return np.sum((W * scale) ** 3)


def per_sample_losses(w, X, y):
    losses = []
    for i in range(X.shape[0]):
        losses.append((X[i] @ w - y[i]) ** 2)
    return np.mean(losses) + max(losses)


def smooth_l1(x, y, beta=1.0):
    d = np.abs(x - y)
    return np.mean(np.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta))


def kl_div_logtarget(logp, logq):
    return np.sum(np.exp(logq) * (logq - logp))


def nll_gather_2d(logits, target):
    lp = logits - logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(lp[np.arange(len(target)), target])


def corpus2(seed=78):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    A = nrm(size=(3, 3)) + 3 * np.eye(3)
    return [
        (sum_of_mixed_list, (nrm(size=3),), (0,)),
        (nested_if_overwrite, (1.3,), (0,)),
        (tuple_index_by_argument, (0.5, 1.5, -0.7, 2), (0, 1, 2)),
        (nested_dict_argument, ({"i": {"j": 0.5, "k": -1.2}, "m": 2.0},), (0,)),
        (while_abs_halving, (3.7,), (0,)),
        (row_writes_broadcast, (nrm(size=4),), (0,)),
        (rnn_row_writes, (nrm(size=(3, 2)), nrm(size=(2, 3))), (0, 1)),
        (augassign_self, (1.3,), (0,)),
        (extended_slice_newaxis, (nrm(size=6),), (0,)),
        (iterpower_nested_def_shadow, (1.2, 4), (0,)),
        (listcomp_np_sum, (nrm(size=4),), (0,)),
        (prod_axis_keepdims, (nrm(size=(3, 4)),), (0,)),
        (var_ddof_axis, (nrm(size=(4, 3)),), (0,)),
        (cumsum_axis_matrix, (nrm(size=(3, 4)),), (0,)),
        (tensordot_axes_pairs, (nrm(size=(2, 3, 4)), nrm(size=(4, 2, 3))), (0, 1)),
        (einsum_forms, (nrm(size=(3, 4)), nrm(size=(4, 2)), nrm(size=4)), (0, 1, 2)),
        (fancy_index_2d, (nrm(size=(4, 4)), np.array([0, 2, 3]), np.array([1, 1, 0])), (0,)),
        (max_axis_ties, (nrm(size=(3, 4)),), (0,)),
        (diag_and_trace_offset, (nrm(size=(4, 4)),), (0,)),
        (triu_tril_k, (nrm(size=(4, 4)),), (0,)),
        (flip_roll_axes, (nrm(size=(3, 4)),), (0,)),
        (inner_outer_kron, (nrm(size=3), nrm(size=3)), (0, 1)),
        (concatenate_axis1_and_split, (nrm(size=(3, 2)), nrm(size=(3, 2))), (0, 1)),
        (binary_elementwise, (nrm(size=4), nrm(size=4)), (0, 1)),
        (unary_elementwise, (nrm(size=5),), (0,)),
        (take_along_axis_max, (nrm(size=(3, 4)),), (0,)),
        (select_piecewise, (np.array([-1.2, -0.3, 0.2, 0.8, 1.5]),), (0,)),
        (covariance_matrix, (nrm(size=(3, 6)),), (0,)),
        (corrcoef_loss, (nrm(size=6), nrm(size=6)), (0, 1)),
        (nanmax_nanmin, (nrm(size=6),), (0,)),
        (where_scalar_branches, (nrm(size=6),), (0,)),
        (keyword_call_helper, (nrm(size=4),), (0,)),
        (closure_factory_value, (0.7, 1.3), (0, 1)),
        (python_control_on_data, (0.6,), (0,)),
        (argmax_gather, (nrm(size=3), nrm(size=(3, 3))), (0, 1)),
        (linalg_norm_axes, (nrm(size=(3, 4)),), (0,)),
        (matmul_batched_3d, (nrm(size=(2, 3, 4)), nrm(size=(2, 4, 2))), (0, 1)),
        (det_inv_combo, (A,), (0,)),
        (expand_squeeze_swap, (nrm(size=(2, 3)),), (0,)),
        (index_add_scatter, (nrm(size=5), np.array([0, 2, 2, 3, 0])), (0,)),
        (masked_fill, (nrm(size=6), np.array([True, False, True, False, False, True])), (0,)),
        (cdist_loss, (nrm(size=(3, 2)), nrm(size=(4, 2))), (0, 1)),
        (logcumsumexp_manual, (nrm(size=5),), (0,)),
        (cummax_loss, (nrm(size=6),), (0,)),
        (renorm_rows, (2 * nrm(size=(3, 4)),), (0,)),
        (per_sample_losses, (nrm(size=3), nrm(size=(5, 3)), nrm(size=5)), (0, 1, 2)),
        (smooth_l1, (nrm(size=6), nrm(size=6)), (0, 1)),
        (kl_div_logtarget, (nrm(size=4), nrm(size=4)), (0, 1)),
        (nll_gather_2d, (nrm(size=(4, 3)), np.array([2, 0, 1, 1])), (0,)),
    ]


# -- the tested set (tests/test_heldout7.py): what the corpus found, reduced ----------------
def loops_and_lambdas(ws, xs, t):
    # `for i, (a, b) in enumerate(zip(A, B))`, `zip(reversed(A), B)`, lambdas assigned to
    # names, called, math.fsum
    sq = lambda v: v * v  # noqa: E731
    decay = lambda v, k=1.0: math.exp(-k * v * t)  # noqa: E731
    total = 0.0
    for i, (w, x) in enumerate(zip(ws, xs)):
        total += (i + 1) * sq(w) * math.tanh(x) + decay(x, k=0.5)
    for i, (w, x) in enumerate(zip(reversed(ws), xs)):     # reversed inside zip too
        total += i * w * x
    return (total + sum([decay(v) for v in ws]) + sum([a * b for a, b in zip(ws, reversed(xs))])
            + math.fsum([w * w for w in ws]) + math.fsum(np.tanh(xs)))


def numpy_forms_in_one(x, k, A, B):
    # np.flip(x, axis=), np.dstack, np.select, np.correlate, np.nanmax/nanmin, np.cov,
    # np.corrcoef, np.einsum with '...' and np.split(x, k)[i], in one function (one compile)
    c = np.dstack([A, np.flip(A, axis=1)])
    s = np.select([x < -0.5, x > 0.5], [x ** 2, np.sin(x)], default=x)
    r = np.correlate(x, k) ** 2 + np.correlate(x, k, mode="same")[0]
    C = np.cov(A)
    R = np.corrcoef(x[:3], k)
    e = np.einsum("...ij,...jk->...ik", B, B) + np.einsum("...i,i", B, k)[..., None] \
        + np.split(A, 4, axis=1)[-1][:, 0]
    return (np.sum(c ** 2 * np.arange(2)) + np.sum(s) + np.sum(r) + np.nanmax(x) - np.nanmin(x)
            + np.sum(C ** 2) + R[0, 1] + np.sum(np.flip(B, -2) * e))


def everyday_models(theta, W, X, y):
    # a few of the corpus's everyday kinds that were right at once, in one function: an RK4
    # loop with a nested helper, a Kalman-like recursion, a GP-style solve and slogdet
    def f(th, om):
        return om, -9.81 * math.sin(th)
    th, om = theta, 0.0
    h = 0.05
    t = 0.0
    while t < 0.5:
        k1 = f(th, om)
        k2 = f(th + h * k1[0], om + h * k1[1])
        th = th + h / 2 * (k1[0] + k2[0])
        om = om + h / 2 * (k1[1] + k2[1])
        t += h
    K = X @ X.T + np.exp(theta) * np.eye(X.shape[0])
    alpha = np.linalg.solve(K, y)
    _, logdet = np.linalg.slogdet(K)
    m, P = 0.0, 1.0
    for z in y:
        P = P + 0.1
        g = P / (P + 0.2)
        m = m + g * (z - m)
        P = (1 - g) * P
    return th + 0.5 * y @ alpha + 0.5 * logdet + m + np.sum(np.tanh(X @ W) ** 2)


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(corpus() + corpus2(), sys.argv[1:])
