"""Held-out corpus #8: functions written from README.md and docs/*.md alone (what a user
believes works), in domains the earlier corpora cover less -- pharmacokinetic and epidemic
ODEs integrated until a tolerance, finance (Monte Carlo with fixed normals, GARCH, bonds),
robot kinematics with small matrices, signal processing (FIR/IIR filters, convolutions),
mixture and HMM forward algorithms in log space, scatter/gather indexing, sorting and
argmax selection, configuration dicts, tuple and list arguments, nested helpers with
defaults and keywords, recursion, early returns, `for ... else`, `while ... break`, shifts
written as slice assignments -- each with a realistic argument set: `corpus()` (batch 1),
`corpus2()` (riskier everyday forms), `corpus3()` (several features at once) and
`vector_cases()` (vector-valued functions for jvp, jacfwd and jacrev).

`python -m tests.heldout8_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py
`triage`); tests/test_heldout8.py checks the reduced findings."""
import math

import numpy as np
from scipy.special import logsumexp


# -- pharmacokinetics and epidemics -----------------------------------------------------------
def pk_one_compartment(ka, ke, V, dose, times, conc):
    # oral dose, first-order absorption and elimination; closed form; squared log error
    pred = dose * ka / (V * (ka - ke)) * (np.exp(-ke * times) - np.exp(-ka * times))
    return np.sum((np.log(pred) - np.log(conc)) ** 2)


def pk_euler_until_tol(ke, c0, tol=1e-3, dt=0.05):
    # integrate dc/dt = -ke c until the concentration falls below tol; area under the curve
    c = c0
    auc = 0.0
    t = 0.0
    while c > tol:
        auc += 0.5 * dt * (c + c * (1.0 - ke * dt))
        c = c * (1.0 - ke * dt)
        t += dt
        if t > 100.0:
            break
    return auc + c / ke


def sir_rk4_peak(beta, gamma, i0, days=30, h=0.25):
    def rhs(s, i):
        return -beta * s * i, beta * s * i - gamma * i

    s, i = 1.0 - i0, i0
    peak = i
    n = int(days / h)
    for _ in range(n):
        k1s, k1i = rhs(s, i)
        k2s, k2i = rhs(s + 0.5 * h * k1s, i + 0.5 * h * k1i)
        k3s, k3i = rhs(s + 0.5 * h * k2s, i + 0.5 * h * k2i)
        k4s, k4i = rhs(s + h * k3s, i + h * k3i)
        s = s + h / 6 * (k1s + 2 * k2s + 2 * k3s + k4s)
        i = i + h / 6 * (k1i + 2 * k2i + 2 * k3i + k4i)
        peak = max(peak, i)
    return peak + s


def seir_vector_euler(theta, y0, obs, dt=0.1):
    beta, sigma, gamma = theta[0], theta[1], theta[2]
    y = y0.copy()
    loss = 0.0
    steps = int(round(1.0 / dt))
    for t in range(obs.shape[0]):
        for _ in range(steps):
            s, e, i, r = y
            dy = np.array([-beta * s * i, beta * s * i - sigma * e, sigma * e - gamma * i, gamma * i])
            y = y + dt * dy
        loss += (y[2] - obs[t]) ** 2
    return loss


def two_compartment_matrix(k12, k21, k10, x0, ts):
    # linear ODE x' = A x solved with Euler steps on a 2x2 matrix, sum of central amounts
    A = np.array([[-(k12 + k10), k21], [k12, -k21]])
    x = x0
    total = 0.0
    t = 0.0
    for tt in ts:
        while t < tt:
            x = x + 0.02 * (A @ x)
            t += 0.02
        total += x[0]
    return total


def logistic_growth_fit(r, K, t, y):
    n0 = y[0]
    pred = K / (1.0 + (K - n0) / n0 * np.exp(-r * t))
    return np.mean((pred - y) ** 2)


# -- finance -----------------------------------------------------------------------------------
def mc_european_call(S0, sigma, r, T, z, K=1.0):
    ST = S0 * np.exp((r - 0.5 * sigma ** 2) * T + sigma * math.sqrt(T) * z)
    payoff = np.maximum(ST - K, 0.0)
    return math.exp(-r * T) * np.mean(payoff)


def mc_barrier_knockout(S0, sigma, z, barrier=1.3, K=1.0, dt=0.02):
    # up-and-out call: each path dies when it crosses the barrier (smoothed with a sigmoid)
    npaths, nsteps = z.shape
    S = np.full(npaths, S0)
    alive = np.ones(npaths)
    for t in range(nsteps):
        S = S * np.exp(-0.5 * sigma ** 2 * dt + sigma * math.sqrt(dt) * z[:, t])
        alive = alive / (1.0 + np.exp(20.0 * (S - barrier)))
    return np.mean(alive * np.maximum(S - K, 0.0))


def garch11_nll(params, returns):
    omega, alpha, beta = params
    var = np.var(returns)
    nll = 0.0
    for r in returns:
        nll += 0.5 * (math.log(2 * math.pi * var) + r * r / var)
        var = omega + alpha * r * r + beta * var
    return nll


def bond_price_ytm(ytm, coupons, times):
    df = np.exp(-ytm * times)
    price = np.sum(coupons * df)
    duration = np.sum(times * coupons * df) / price
    return price + 0.1 * duration


def implied_vol_newton(price, S, K, T):
    # Newton's method for the Black-Scholes implied volatility, differentiated through
    sigma = 0.3
    for it in range(50):
        d1 = (math.log(S / K) + 0.5 * sigma ** 2 * T) / (sigma * math.sqrt(T))
        d2 = d1 - sigma * math.sqrt(T)
        c = S * 0.5 * (1 + math.erf(d1 / math.sqrt(2))) - K * 0.5 * (1 + math.erf(d2 / math.sqrt(2)))
        vega = S * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(T)
        step = (c - price) / vega
        sigma -= step
        if abs(step) < 1e-12:
            break
    return sigma


def cvar_loss(w, R, alpha=0.9):
    # conditional value at risk of a portfolio: mean of the worst (1 - alpha) losses
    losses = -(R @ w)
    srt = np.sort(losses)
    k = int(alpha * len(srt))
    return np.mean(srt[k:])


def kelly_growth(f, outcomes, probs):
    return -np.sum(probs * np.log1p(f * outcomes))


def vasicek_bond(r0, a, b, sig, T):
    B = (1 - math.exp(-a * T)) / a
    A = math.exp((b - sig ** 2 / (2 * a ** 2)) * (B - T) - sig ** 2 * B ** 2 / (4 * a))
    return A * math.exp(-B * r0)


# -- robotics ----------------------------------------------------------------------------------
def rot2(th):
    c, s = math.cos(th), math.sin(th)
    return np.array([[c, -s], [s, c]])


def planar_arm_fk(q, lengths, target):
    # forward kinematics of an n-link planar arm with 2x2 rotation matrices
    R = np.eye(2)
    p = np.zeros(2)
    for k in range(q.shape[0]):
        R = R @ rot2(q[k])
        p = p + R @ np.array([lengths[k], 0.0])
    return np.sum((p - target) ** 2)


def dh_transform(theta, d, a, alpha):
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def dh_chain_reach(q, dh, goal):
    T = np.eye(4)
    for j in range(len(q)):
        T = T @ dh_transform(q[j], dh[j, 0], dh[j, 1], dh[j, 2])
    return np.linalg.norm(T[:3, 3] - goal)


def jacobian_transpose_ik(q0, goal, iters=20, lr=0.2):
    # damped IK iterations with a hand-written 2-link Jacobian; differentiate the end error
    q = q0.copy()
    for _ in range(iters):
        c1, s1 = np.cos(q[0]), np.sin(q[0])
        c12, s12 = np.cos(q[0] + q[1]), np.sin(q[0] + q[1])
        p = np.array([c1 + c12, s1 + s12])
        J = np.array([[-s1 - s12, -s12], [c1 + c12, c12]])
        q = q + lr * J.T @ (goal - p)
    c1, s1 = np.cos(q[0]), np.sin(q[0])
    c12, s12 = np.cos(q[0] + q[1]), np.sin(q[0] + q[1])
    return (c1 + c12 - goal[0]) ** 2 + (s1 + s12 - goal[1]) ** 2


def skew(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def rodrigues_exp(w, p):
    th = np.linalg.norm(w)
    K = skew(w / th)
    R = np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K
    return np.sum((R @ p) ** 2 * np.array([1.0, 2.0, 3.0]))


def quaternion_rotate_loss(qv, pts):
    q = qv / np.linalg.norm(qv)
    w, x, y, z = q[0], q[1], q[2], q[3]
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                  [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                  [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
    out = pts @ R.T
    return np.sum(out[:, 0] * out[:, 2])


def diff_drive_odometry(v, omega, dt=0.1):
    x = y = th = 0.0
    for k in range(v.shape[0]):
        x += v[k] * math.cos(th) * dt
        y += v[k] * math.sin(th) * dt
        th += omega[k] * dt
    return (x - 1.0) ** 2 + (y - 0.5) ** 2 + th ** 2


# -- signal processing ----------------------------------------------------------------------------
def fir_filter_loop(h, x):
    n, m = x.shape[0], h.shape[0]
    y = np.zeros(n)
    for i in range(n):
        for k in range(m):
            if i - k >= 0:
                y[i] += h[k] * x[i - k]
    return np.sum(y ** 2)


def fir_convolve(h, x, target):
    y = np.convolve(x, h)[: x.shape[0]]
    return np.sum((y - target) ** 2)


def iir_biquad(b, a, x):
    y = np.zeros_like(x)
    x1 = x2 = y1 = y2 = 0.0
    for n in range(x.shape[0]):
        yn = b[0] * x[n] + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, yn
        y[n] = yn
    return np.sum(y * y)


def delay_line_shift(x, g):
    # a comb filter with a delay buffer shifted by slice assignment
    buf = np.zeros(4)
    out = 0.0
    for n in range(x.shape[0]):
        buf[1:] = buf[:-1]
        buf[0] = x[n] + g * buf[3]
        out += buf[0] ** 2
    return out


def moving_rms_cumsum(x, w=3):
    c = np.cumsum(np.concatenate([np.zeros(1), x * x]))
    ms = (c[w:] - c[:-w]) / w
    return np.sum(np.sqrt(ms + 1e-9))


def spectral_power(x, lo=1, hi=4):
    X = np.fft.rfft(x * np.hanning(x.shape[0]))
    p = np.abs(X) ** 2
    return np.sum(p[lo:hi]) / np.sum(p)


def conv2d_valid_einsum(img, K):
    kh, kw = K.shape
    H, W = img.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for di in range(kh):
        for dj in range(kw):
            out += K[di, dj] * img[di:di + H - kh + 1, dj:dj + W - kw + 1]
    return np.sum(np.tanh(out))


def zero_crossing_energy(x):
    d = np.diff(np.sign(x))
    mask = d != 0
    e = x[1:] ** 2
    return np.sum(e[mask]) + 0.1 * np.sum(e)


# -- mixtures and hidden Markov models -------------------------------------------------------------
def hmm_forward_log(log_pi, log_A, log_B, obs):
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        alpha = logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return -logsumexp(alpha)


def hmm_forward_scaled(pi, A, B, obs):
    alpha = pi * B[:, obs[0]]
    ll = 0.0
    for o in obs[1:]:
        c = np.sum(alpha)
        ll += np.log(c)
        alpha = (alpha / c) @ A * B[:, o]
    return -(ll + np.log(np.sum(alpha)))


def gmm_1d_em_step(mu, x, sd=1.0, w=None):
    # one soft-EM update of the means, then the log-likelihood at the new means
    K = mu.shape[0]
    if w is None:
        w = np.ones(K) / K
    logp = -0.5 * ((x[:, None] - mu[None, :]) / sd) ** 2 + np.log(w)
    r = np.exp(logp - logsumexp(logp, axis=1, keepdims=True))
    mu_new = (r * x[:, None]).sum(axis=0) / r.sum(axis=0)
    logp2 = -0.5 * ((x[:, None] - mu_new) / sd) ** 2 + np.log(w)
    return -np.sum(logsumexp(logp2, axis=1))


def mixture_of_experts(Wg, We, X, y):
    gates = X @ Wg
    gates = np.exp(gates - gates.max(axis=1, keepdims=True))
    gates = gates / gates.sum(axis=1, keepdims=True)
    experts = X @ We
    pred = np.sum(gates * experts, axis=1)
    return np.mean((pred - y) ** 2)


def viterbi_path_score(log_A, log_B, obs):
    # hard Viterbi: the best path's score is differentiable almost everywhere
    S = log_A.shape[0]
    delta = log_B[:, obs[0]].copy()
    for t in range(1, obs.shape[0]):
        cand = delta[:, None] + log_A
        delta = np.max(cand, axis=0) + log_B[:, obs[t]]
    return np.max(delta) + 0.0 * S


def categorical_mixture_ll(logits_w, logits_c, counts):
    lw = logits_w - logsumexp(logits_w)
    lc = logits_c - logsumexp(logits_c, axis=1, keepdims=True)
    return -logsumexp(lw + lc @ counts)


# -- scatter, gather, sort, select ------------------------------------------------------------------
def segment_sum_add_at(v, seg, w):
    out = np.zeros(3)
    np.add.at(out, seg, v * w)
    return np.sum(out ** 2)


def gather_pairs_energy(x, i, j):
    d = x[i] - x[j]
    return np.sum(np.sqrt(np.sum(d * d, axis=1) + 1e-6))


def masked_mean_threshold(x, thresh=0.0):
    pos = x[x > thresh]
    neg = x[x <= thresh]
    return np.sum(pos ** 2) / max(len(pos), 1) - np.mean(neg)


def argmax_selected_logit(W, X):
    z = X @ W
    k = np.argmax(z, axis=1)
    return np.sum(z[np.arange(z.shape[0]), k])


def sort_weighted_rank(x, w):
    s = np.sort(x)
    return np.dot(s, w)


def argsort_reorder(x, y):
    order = np.argsort(x)
    return np.sum(np.diff(y[order]) ** 2)


def bool_mask_write(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[y > 1.0] = 1.0 + 0.1 * y[y > 1.0]
    return np.sum(y ** 2)


def topk_indices_loop(x, k=2):
    idx = np.argsort(-x)[:k]
    total = 0.0
    for j in idx:
        total += x[j] ** 2
    return total


def where_index_int_mixed(x, n):
    i = np.arange(x.shape[0])
    w = np.where(i % 2 == 0, 1.0, -1.0) * (i + 1) / n
    return np.sum(w * np.clip(x, -1.0, 1.0))


# -- Python structure ----------------------------------------------------------------------------
def config_dict_model(w, X, y, cfg):
    z = X @ w
    if cfg["loss"] == "logistic":
        loss = np.mean(np.log1p(np.exp(-y * z)))
    else:
        loss = np.mean((z - y) ** 2)
    return loss + cfg["l2"] * np.sum(w ** 2)


def tuple_list_args(params, xs):
    (a, b), c = params
    total = 0.0
    for x in xs:
        total += a * x ** 2 + b * x + c
    return total


def nested_helpers_defaults(x, y):
    def affine(v, scale=2.0, shift=0.0):
        return scale * v + shift

    def both(v, *, p=1.0):
        return affine(v, shift=p) * affine(v, scale=0.5)

    return np.sum(both(x, p=0.3) + affine(y))


def recursive_bisect_sum(x, lo, hi):
    if hi - lo == 1:
        return x[lo] ** 2
    mid = (lo + hi) // 2
    return recursive_bisect_sum(x, lo, mid) * 0.5 + recursive_bisect_sum(x, mid, hi)


def recursive_bisect_entry(x):
    return recursive_bisect_sum(x, 0, x.shape[0])


def early_return_in_loop(x, limit=3.0):
    acc = 0.0
    for v in x:
        acc += v * v
        if acc > limit:
            return acc * 2.0
    return acc


def for_else_search(x, target=0.9):
    total = 0.0
    for v in x:
        if v > target:
            total += v
            break
    else:
        total = np.sum(x) * 0.1
    return total


def while_break_accumulate(a, x):
    k = 0
    s = 0.0
    while True:
        s += a ** k * x[k]
        k += 1
        if k >= x.shape[0] or abs(a ** k) < 1e-3:
            break
    return s


def enum_zip_reversed(ws, xs):
    total = 0.0
    for i, (w, x) in enumerate(zip(ws, xs)):
        total += (i + 1) * w * x
    for v in reversed(ws):
        total = 0.5 * total + v
    return total


def listcomp_stack_concat(x, W):
    rows = [np.tanh(W @ x * k) for k in range(1, 4)]
    M = np.stack(rows)
    V = np.vstack([M, x[None, :]])
    c = np.concatenate([V.ravel(), np.array([np.sum(x)])])
    return np.sum(c ** 2)


def inplace_row_updates(W, x):
    A = np.zeros((3, 3))
    for i in range(3):
        A[i] += W[i] * x
        A[i, i] += 1.0
    return np.linalg.det(A)


def bool_int_arith(x, flags):
    n_on = np.sum(flags)
    total = 0.0
    for i in range(x.shape[0]):
        total += (flags[i] + 1) * x[i] ** 2 + (i > 1) * x[i]
    return total / (n_on + 1)


# -- linear algebra ------------------------------------------------------------------------------
def mahalanobis_chol(x, mu, A):
    S = A @ A.T + np.eye(A.shape[0])
    L = np.linalg.cholesky(S)
    z = np.linalg.solve(L, x - mu)
    return 0.5 * z @ z + np.sum(np.log(np.diag(L)))


def logdet_inverse_trace(A, B):
    M = A @ A.T + 0.5 * np.eye(3)
    sign, ld = np.linalg.slogdet(M)
    return ld + np.trace(np.linalg.inv(M) @ B)


def einsum_bilinear_attention(Q, K, W):
    s = np.einsum("id,de,je->ij", Q, W, K)
    a = np.exp(s - np.max(s, axis=1, keepdims=True))
    a = a / np.sum(a, axis=1, keepdims=True)
    return np.einsum("ij,ij->", a, s)


def normalize_columns_keepdims(X):
    n = np.linalg.norm(X, axis=0, keepdims=True)
    Y = X / n
    G = Y.T @ Y
    return np.sum((G - np.eye(G.shape[0])) ** 2)


def det_rotation_penalty(M):
    return (np.linalg.det(M) - 1.0) ** 2 + np.sum((M.T @ M - np.eye(3)) ** 2)


def tridiag_solve_build(d, off, b):
    n = d.shape[0]
    A = np.diag(d) + np.diag(off, 1) + np.diag(off, -1)
    x = np.linalg.solve(A, b)
    return np.sum(x ** 2) + 0.0 * n


def erf_cdf_matrix(x, mu, s):
    z = (x - mu) / s
    total = 0.0
    for i in range(z.shape[0]):
        total += math.erf(z[i] / math.sqrt(2.0))
    return total


# -- vector-valued (jvp, jacfwd, jacrev) --------------------------------------------------------------
def sir_trajectory(theta, y0, steps=12, h=0.2):
    beta, gamma = theta[0], theta[1]
    s, i = y0[0], y0[1]
    out = np.zeros(steps)
    for t in range(steps):
        ds = -beta * s * i
        di = beta * s * i - gamma * i
        s, i = s + h * ds, i + h * di
        out[t] = i
    return out


def arm_endpoint(q, lengths):
    angle = np.cumsum(q)
    return np.array([np.sum(lengths * np.cos(angle)), np.sum(lengths * np.sin(angle))])


def iir_output(a, x):
    y = np.zeros_like(x)
    prev = 0.0
    for n in range(x.shape[0]):
        prev = x[n] + a * prev
        y[n] = prev
    return y


def hmm_filtering(log_A, log_B, obs):
    alpha = log_B[:, obs[0]] - math.log(log_A.shape[0])
    for t in range(1, obs.shape[0]):
        alpha = logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return alpha - logsumexp(alpha)


def segment_means(v, seg):
    tot = np.zeros(3)
    cnt = np.zeros(3)
    np.add.at(tot, seg, v)
    np.add.at(cnt, seg, 1.0)
    return tot / np.maximum(cnt, 1.0)


def shifted_buffer(x, g):
    buf = np.zeros(x.shape[0])
    for n in range(x.shape[0]):
        buf[1:] = buf[:-1].copy()
        buf[0] = x[n] + g * buf[-1]
    return buf


def vector_cases(seed=89):
    rng = np.random.default_rng(seed)
    return [
        (sir_trajectory, (np.array([1.5, 0.4]), np.array([0.95, 0.05])), (0, 1)),
        (arm_endpoint, (np.array([0.3, -0.5, 0.8]), np.array([1.0, 0.7, 0.4])), (0, 1)),
        (iir_output, (0.6, rng.normal(size=6)), (0, 1)),
        (hmm_filtering, (np.log(np.array([[0.7, 0.3], [0.2, 0.8]])),
                         np.log(np.array([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]])),
                         np.array([0, 2, 1, 2])), (0, 1)),
        (segment_means, (rng.normal(size=7), np.array([0, 1, 1, 2, 0, 2, 2])), (0,)),
        (shifted_buffer, (rng.normal(size=5), 0.5), (0, 1)),
    ]


def corpus(seed=88):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(6, 3))
    ypm = np.where(nrm(size=6) > 0, 1.0, -1.0)
    times = np.array([0.5, 1.0, 2.0, 4.0, 8.0])
    conc = 10.0 * (np.exp(-0.2 * times) - np.exp(-1.5 * times)) + 0.1
    pi = np.array([0.6, 0.4])
    A2 = np.array([[0.7, 0.3], [0.2, 0.8]])
    B2 = np.array([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]])
    obs = np.array([0, 2, 1, 2, 0])
    return [
        (pk_one_compartment, (1.3, 0.25, 0.9, 10.0, times, conc), (0, 1, 2)),
        (pk_euler_until_tol, (0.4, 2.0), (0, 1)),
        (sir_rk4_peak, (0.5, 0.2, 0.01), (0, 1, 2)),
        (seir_vector_euler, (np.array([0.6, 0.3, 0.2]), np.array([0.97, 0.01, 0.02, 0.0]),
                             np.array([0.03, 0.05, 0.07])), (0, 1)),
        (two_compartment_matrix, (0.3, 0.2, 0.1, np.array([1.0, 0.0]), np.array([0.5, 1.0, 1.5])),
         (0, 1, 2, 3)),
        (logistic_growth_fit, (0.8, 10.0, np.linspace(0, 5, 8),
                               10.0 / (1 + 9 * np.exp(-0.7 * np.linspace(0, 5, 8)))), (0, 1)),
        (mc_european_call, (1.0, 0.2, 0.03, 1.0, nrm(size=50)), (0, 1, 2, 3)),
        (mc_barrier_knockout, (1.0, 0.25, nrm(size=(20, 10))), (0, 1)),
        (garch11_nll, ((0.05, 0.1, 0.8), 0.5 * nrm(size=12)), (0,)),
        (bond_price_ytm, (0.04, np.array([5.0, 5.0, 5.0, 105.0]), np.array([1.0, 2.0, 3.0, 4.0])),
         (0, 1)),
        (implied_vol_newton, (0.1, 1.0, 1.05, 0.5), (0, 1, 2)),
        (cvar_loss, (np.array([0.5, 0.3, 0.2]), 0.05 * nrm(size=(20, 3))), (0,)),
        (kelly_growth, (0.3, np.array([1.0, -1.0, 0.5]), np.array([0.5, 0.3, 0.2])), (0,)),
        (vasicek_bond, (0.03, 0.5, 0.04, 0.01, 5.0), (0, 1, 2, 3)),
        (planar_arm_fk, (np.array([0.3, -0.5, 0.8]), np.array([1.0, 0.7, 0.4]), np.array([1.2, 0.9])),
         (0, 1)),
        (dh_chain_reach, (np.array([0.2, -0.4, 0.6]), np.array([[0.3, 0.0, 1.57], [0.0, 0.5, 0.0],
                                                              [0.0, 0.4, 0.0]]),
                          np.array([0.5, 0.3, 0.4])), (0, 1)),
        (jacobian_transpose_ik, (np.array([0.3, 0.7]), np.array([1.2, 0.8])), (0, 1)),
        (rodrigues_exp, (np.array([0.3, -0.2, 0.5]), np.array([1.0, 0.5, -0.3])), (0, 1)),
        (quaternion_rotate_loss, (np.array([0.9, 0.1, -0.3, 0.2]), nrm(size=(4, 3))), (0, 1)),
        (diff_drive_odometry, (np.full(8, 1.2), np.linspace(-0.5, 0.5, 8)), (0, 1)),
        (fir_filter_loop, (np.array([0.5, 0.3, 0.2]), nrm(size=8)), (0, 1)),
        (fir_convolve, (np.array([0.5, 0.3, 0.2]), nrm(size=8), nrm(size=8)), (0, 1)),
        (iir_biquad, (np.array([0.3, 0.2, 0.1]), np.array([-0.4, 0.1]), nrm(size=10)), (0, 1, 2)),
        (delay_line_shift, (nrm(size=9), 0.5), (0, 1)),
        (moving_rms_cumsum, (nrm(size=8),), (0,)),
        (spectral_power, (nrm(size=16),), (0,)),
        (conv2d_valid_einsum, (nrm(size=(5, 6)), nrm(size=(2, 3))), (0, 1)),
        (zero_crossing_energy, (nrm(size=10),), (0,)),
        (hmm_forward_log, (np.log(pi), np.log(A2), np.log(B2), obs), (0, 1, 2)),
        (hmm_forward_scaled, (pi, A2, B2, obs), (0, 1, 2)),
        (gmm_1d_em_step, (np.array([-1.0, 0.5, 2.0]), nrm(size=10) * 1.5), (0, 1)),
        (mixture_of_experts, (nrm(size=(3, 2)), nrm(size=(3, 2)), X, nrm(size=6)), (0, 1, 2)),
        (viterbi_path_score, (np.log(A2), np.log(B2), obs), (0, 1)),
        (categorical_mixture_ll, (nrm(size=2), nrm(size=(2, 3)), np.array([3.0, 1.0, 2.0])), (0, 1)),
        (segment_sum_add_at, (nrm(size=7), np.array([0, 1, 1, 2, 0, 2, 2]), nrm(size=7)), (0, 2)),
        (gather_pairs_energy, (nrm(size=(5, 2)), np.array([0, 1, 2, 3]), np.array([1, 2, 3, 4])), (0,)),
        (masked_mean_threshold, (nrm(size=9),), (0,)),
        (argmax_selected_logit, (nrm(size=(3, 4)), X), (0, 1)),
        (sort_weighted_rank, (nrm(size=5), np.linspace(0.1, 0.5, 5)), (0, 1)),
        (argsort_reorder, (nrm(size=6), nrm(size=6)), (0, 1)),
        (bool_mask_write, (1.5 * nrm(size=8),), (0,)),
        (topk_indices_loop, (nrm(size=6),), (0,)),
        (where_index_int_mixed, (1.5 * nrm(size=7), 3), (0,)),
        (config_dict_model, (nrm(size=3), X, ypm, {"loss": "logistic", "l2": 0.1}), (0, 1)),
        (tuple_list_args, (((0.5, -0.3), 1.2), [0.3, 1.5, -0.7]), (0, 1)),
        (nested_helpers_defaults, (nrm(size=3), nrm(size=3)), (0, 1)),
        (recursive_bisect_entry, (nrm(size=5),), (0,)),
        (early_return_in_loop, (np.array([0.5, 1.0, 1.2, 0.8, 0.3]),), (0,)),
        (for_else_search, (np.array([0.5, 0.3, 0.95, 0.2]),), (0,)),
        (while_break_accumulate, (0.6, nrm(size=20)), (0, 1)),
        (enum_zip_reversed, (nrm(size=4), nrm(size=4)), (0, 1)),
        (listcomp_stack_concat, (nrm(size=3), nrm(size=(3, 3))), (0, 1)),
        (inplace_row_updates, (nrm(size=(3, 3)), nrm(size=3)), (0, 1)),
        (bool_int_arith, (nrm(size=5), np.array([True, False, True, True, False])), (0,)),
        (mahalanobis_chol, (nrm(size=3), nrm(size=3), nrm(size=(3, 3))), (0, 1, 2)),
        (logdet_inverse_trace, (nrm(size=(3, 3)), nrm(size=(3, 3))), (0, 1)),
        (einsum_bilinear_attention, (nrm(size=(4, 3)), nrm(size=(5, 3)), nrm(size=(3, 3))), (0, 1, 2)),
        (normalize_columns_keepdims, (nrm(size=(5, 3)),), (0,)),
        (det_rotation_penalty, (rot2(0.3)[[0, 1, 1]][:, [0, 1, 1]] + 0.1 * nrm(size=(3, 3)),), (0,)),
        (tridiag_solve_build, (4.0 + nrm(size=5), nrm(size=4), nrm(size=5)), (0, 1, 2)),
        (erf_cdf_matrix, (nrm(size=6), 0.2, 1.3), (0, 1, 2)),
    ]


# -- batch 2: riskier everyday forms ------------------------------------------------------------------
def survival_cumprod(h, t_event):
    # discrete-time hazard model: survival by cumulative products, log-likelihood of events
    haz = 1.0 / (1.0 + np.exp(-h))
    surv = np.cumprod(1.0 - haz)
    ll = 0.0
    for t in t_event:
        ll += math.log(haz[t]) + (math.log(surv[t - 1]) if t > 0 else 0.0)
    return -ll


def newton_tolerance_loop(a, x0, tol=1e-10):
    # solve x^3 + a x - 1 = 0 by Newton until the step is small or 50 iterations
    x = x0
    it = 0
    dx = 1.0
    while abs(dx) > tol and it < 50:
        dx = (x ** 3 + a * x - 1.0) / (3 * x ** 2 + a)
        x = x - dx
        it += 1
    return x


def fixed_point_all_converged(A, b, tol=1e-9):
    # Jacobi iterations on a vector until every component converged
    x = np.zeros(b.shape[0])
    D = np.diag(A)
    R = A - np.diag(D)
    for k in range(200):
        x_new = (b - R @ x) / D
        if np.all(np.abs(x_new - x) < tol):
            x = x_new
            break
        x = x_new
    return np.sum(x ** 2)


def augassign_on_argument(x, y):
    # Python's += on an argument array writes into the caller's array; jitad computes the
    # same value into a new array (the caller's array stays as it was: tests/test_heldout9.py)
    x += y
    x *= 2.0
    return np.sum(x ** 2)


def reverse_range_loop(x):
    acc = 0.0
    for i in range(len(x) - 1, -1, -1):
        acc = acc * 0.5 + x[i]
    return acc


def builtin_max_abs_of_array(x):
    return max(abs(x)) + sum(x) / len(x)


def recursive_depth_default(x, depth=3):
    if depth == 0:
        return x
    return recursive_depth_default(np.sin(x) + 0.5 * x, depth - 1)


def recursive_depth_entry(x):
    return np.sum(recursive_depth_default(x) ** 2)


def int_power_argument(x, n):
    return np.sum(x ** n) + 2.0 ** x[0] + np.power(x, 3)[1]


def concat_with_python_list(x):
    z = np.concatenate((x, [1.0]))
    h = np.hstack([x, 2.0 * x[0]])
    return np.sum(z * z) + np.sum(h)


def ellipsis_newaxis_indexing(X):
    a = X[..., 0]
    b = X[None] * X[:, np.newaxis]
    return np.sum(a ** 2) + np.sum(b[..., 1])


def triu_pairs_repulsion(P):
    i, j = np.triu_indices(P.shape[0], k=1)
    d = np.sqrt(np.sum((P[i] - P[j]) ** 2, axis=1))
    return np.sum(1.0 / d)


def chol_double_solve(A, y):
    K = A @ A.T + np.eye(A.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return y @ alpha + 2.0 * np.sum(np.log(np.diag(L)))


def eigvalsh_spread(A):
    S = A + A.T
    w = np.linalg.eigvalsh(S)
    return w[-1] - w[0]


def norm_ords(x, A):
    return np.linalg.norm(x, 1) + np.linalg.norm(x, ord=np.inf) + np.linalg.norm(A, "fro")


def clip_array_bounds(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2)


def row_dot_einsum(X, Y):
    return np.sum(np.einsum("ij,ij->i", X, Y) ** 2)


def quadratic_form_1d(x, A):
    return x.T @ A @ x + np.trace(np.outer(x, x) @ A)


def inverse_2x2_literal(a, b, c, d):
    M = np.array([[a, b], [c, d]])
    Minv = np.linalg.inv(M)
    return np.sum(Minv) + math.log(abs(np.linalg.det(M)))


def stack_axis1(a, b):
    M = np.stack([a, b], axis=1)
    return np.sum(M @ np.array([1.0, -1.0])) + np.sum(M ** 2)


def size_ndim_len(x):
    return np.sum(x) * x.size / (x.ndim + len(x))


def masked_prod_positive(x):
    return np.prod(x[x > 0]) + np.mean(x, axis=0, keepdims=True)[0] * 0.0


def var_ddof_one(x):
    return np.var(x, ddof=1) + np.std(x, ddof=1)


def argmin_early_exit(x, tol=0.1):
    k = np.argmin(x)
    if x[k] < tol:
        return x[k] ** 2
    return np.sum(x)


def any_guard(x):
    if np.any(x > 5.0):
        return np.sum(x)
    return np.sum(x ** 3)


def bool_flag_argument(w, x, use_bias=True):
    y = w[:-1] @ x
    if use_bias:
        y = y + w[-1]
    return math.tanh(y)


def closure_reads_loop_variable(xs, k):
    total = 0.0
    for i in range(xs.shape[0]):
        def term(v):
            return v * i + k
        total += term(xs[i]) ** 2
    return total


def while_counter_break(x):
    i = 0
    s = 0.0
    while i < x.shape[0]:
        if x[i] < -1.0:
            break
        s += x[i] ** 2
        i += 2
    return s


def reversed_write(x):
    y = np.zeros_like(x)
    y[::-1] = x * np.arange(1.0, x.shape[0] + 1)
    return np.sum(y * np.linspace(0, 1, x.shape[0]))


def sort_descending_slice(x):
    s = np.sort(x)[::-1]
    return np.sum(s[:3] * np.array([3.0, 2.0, 1.0]))


def where_nonzero_index(x):
    idx = np.where(x > 0)[0]
    return np.sum(x[idx] ** 2)


def add_at_2d(V, rows, cols):
    G = np.zeros((3, 3))
    np.add.at(G, (rows, cols), V)
    return np.sum(G ** 2)


def argmax_row_gather(S, X):
    k = np.argmax(S @ X[0])
    return np.sum(X[k] ** 2) + np.sum(S[k])


def float_of_sum(x):
    t = float(np.sum(x))
    return t * t + float(x[0])


def corpus2(seed=90):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    A = nrm(size=(3, 3)) + 4 * np.eye(3)
    return [
        (survival_cumprod, (nrm(size=6) - 1.0, np.array([0, 2, 5, 3])), (0,)),
        (newton_tolerance_loop, (1.5, 0.8), (0, 1)),
        (fixed_point_all_converged, (A, nrm(size=3)), (0, 1)),
        (augassign_on_argument, (nrm(size=4), nrm(size=4)), (0, 1)),
        (reverse_range_loop, (nrm(size=5),), (0,)),
        (builtin_max_abs_of_array, (nrm(size=5),), (0,)),
        (recursive_depth_entry, (nrm(size=3),), (0,)),
        (int_power_argument, (np.abs(nrm(size=3)) + 0.5, 3), (0,)),
        (concat_with_python_list, (nrm(size=3),), (0,)),
        (ellipsis_newaxis_indexing, (nrm(size=(3, 2)),), (0,)),
        (triu_pairs_repulsion, (nrm(size=(4, 2)),), (0,)),
        (chol_double_solve, (nrm(size=(3, 3)), nrm(size=3)), (0, 1)),
        (eigvalsh_spread, (nrm(size=(3, 3)),), (0,)),
        (norm_ords, (nrm(size=4), nrm(size=(2, 3))), (0, 1)),
        (clip_array_bounds, (nrm(size=5), -0.5 * np.ones(5), np.array([0.2, 0.5, 1.0, 0.1, 0.3])),
         (0, 1, 2)),
        (row_dot_einsum, (nrm(size=(3, 4)), nrm(size=(3, 4))), (0, 1)),
        (quadratic_form_1d, (nrm(size=3), nrm(size=(3, 3))), (0, 1)),
        (inverse_2x2_literal, (2.0, 0.3, -0.4, 1.5), (0, 1, 2, 3)),
        (stack_axis1, (nrm(size=3), nrm(size=3)), (0, 1)),
        (size_ndim_len, (nrm(size=4),), (0,)),
        (masked_prod_positive, (nrm(size=6),), (0,)),
        (var_ddof_one, (nrm(size=5),), (0,)),
        (argmin_early_exit, (np.array([0.5, 0.05, 0.7]),), (0,)),
        (argmin_early_exit, (np.array([0.5, 0.25, 0.7]),), (0,)),
        (any_guard, (nrm(size=4),), (0,)),
        (bool_flag_argument, (nrm(size=4), nrm(size=3)), (0, 1)),
        (closure_reads_loop_variable, (nrm(size=4), 0.3), (0, 1)),
        (while_counter_break, (np.array([0.5, 2.0, 0.3, -2.0, 0.7, 0.1]),), (0,)),
        (reversed_write, (nrm(size=5),), (0,)),
        (sort_descending_slice, (nrm(size=6),), (0,)),
        (where_nonzero_index, (nrm(size=6),), (0,)),
        (add_at_2d, (nrm(size=5), np.array([0, 1, 1, 2, 0]), np.array([2, 1, 1, 0, 2])), (0,)),
        (argmax_row_gather, (nrm(size=(3, 2)), nrm(size=(3, 2))), (0, 1)),
        (float_of_sum, (nrm(size=3),), (0,)),
    ]


# -- batch 3: several features at once ------------------------------------------------------------------
def pk_adaptive_rk(ka, ke, dose=1.0, T=6.0, tol=1e-6):
    # absorption/elimination ODE with an embedded Euler/Heun pair and step-size control
    def rhs(g, c):
        return -ka * g, ka * g - ke * c
    g, c, t, h = dose, 0.0, 0.0, 0.1
    auc = 0.0
    while t < T:
        h = min(h, T - t)
        k1g, k1c = rhs(g, c)
        k2g, k2c = rhs(g + h * k1g, c + h * k1c)
        g_new = g + 0.5 * h * (k1g + k2g)
        c_new = c + 0.5 * h * (k1c + k2c)
        err = abs(c_new - (c + h * k1c)) + abs(g_new - (g + h * k1g))
        if err <= tol:
            auc += 0.5 * h * (c + c_new)
            g, c, t = g_new, c_new, t + h
        h = h * min(2.0, max(0.2, 0.9 * math.sqrt(tol / (err + 1e-15))))
    return auc


def csr_matvec_loss(data, x, indptr, indices, target):
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]
    return np.sum((y - target) ** 2)


def graph_laplacian_smooth(f, src, dst, w):
    deg = np.zeros(f.shape[0])
    np.add.at(deg, src, w)
    np.add.at(deg, dst, w)
    Lf = deg * f
    np.add.at(Lf, src, -w * f[dst])
    np.add.at(Lf, dst, -w * f[src])
    return f @ Lf + 0.1 * np.sum(f ** 4)


def forward_backward(pi, A, B, obs):
    T, S = obs.shape[0], pi.shape[0]
    alpha = np.zeros((T, S))
    beta = np.ones((T, S))
    alpha[0] = pi * B[:, obs[0]]
    for t in range(1, T):
        alpha[t] = (alpha[t - 1] @ A) * B[:, obs[t]]
    for t in range(T - 2, -1, -1):
        beta[t] = A @ (B[:, obs[t + 1]] * beta[t + 1])
    gamma = alpha * beta
    gamma = gamma / gamma.sum(axis=1, keepdims=True)
    return np.sum(gamma[:, 0] ** 2) + math.log(np.sum(alpha[-1]))


def particle_filter_fixed(theta, ys, z, u):
    # bootstrap filter with fixed normals z and uniforms u; systematic resampling by searchsorted
    n = z.shape[1]
    x = np.zeros(n)
    ll = 0.0
    for t in range(ys.shape[0]):
        x = theta[0] * x + theta[1] * z[t]
        logw = -0.5 * (ys[t] - x) ** 2
        m = np.max(logw)
        w = np.exp(logw - m)
        ll += m + math.log(np.mean(w))
        cdf = np.cumsum(w) / np.sum(w)
        idx = np.searchsorted(cdf, (u[t] + np.arange(n)) / n)
        x = x[np.minimum(idx, n - 1)]
    return ll


def damped_ls_ik(q, goal, lam=0.1):
    # one damped-least-squares step of a 3-link planar arm, then the remaining error
    L = np.array([1.0, 0.8, 0.5])
    a = np.cumsum(q)
    p = np.array([np.sum(L * np.cos(a)), np.sum(L * np.sin(a))])
    J = np.zeros((2, 3))
    for j in range(3):
        J[0, j] = -np.sum(L[j:] * np.sin(a[j:]))
        J[1, j] = np.sum(L[j:] * np.cos(a[j:]))
    dq = J.T @ np.linalg.solve(J @ J.T + lam * np.eye(2), goal - p)
    a2 = np.cumsum(q + dq)
    p2 = np.array([np.sum(L * np.cos(a2)), np.sum(L * np.sin(a2))])
    return np.sum((p2 - goal) ** 2)


def goertzel_power(x, k=2):
    n = x.shape[0]
    w = 2.0 * math.pi * k / n
    coeff = 2.0 * math.cos(w)
    s1 = s2 = 0.0
    for v in x:
        s0 = v + coeff * s1 - s2
        s2 = s1
        s1 = s0
    return s1 * s1 + s2 * s2 - coeff * s1 * s2


def dilated_conv1d(x, w, dilation=2, stride=1):
    k = w.shape[0]
    n = (x.shape[0] - dilation * (k - 1) - 1) // stride + 1
    out = np.zeros(n)
    for j in range(k):
        out += w[j] * x[j * dilation: j * dilation + n * stride: stride]
    return np.sum(np.tanh(out) ** 2)


def heston_full_truncation(kappa, theta_v, xi, z1, z2, S0=1.0, v0=0.04, dt=0.05):
    S = np.full(z1.shape[0], S0)
    v = np.full(z1.shape[0], v0)
    for t in range(z1.shape[1]):
        vp = np.maximum(v, 0.0)
        S = S * np.exp(-0.5 * vp * dt + np.sqrt(vp * dt) * z1[:, t])
        v = v + kappa * (theta_v - vp) * dt + xi * np.sqrt(vp * dt) * z2[:, t]
    return np.mean(np.maximum(S - 1.0, 0.0))


def lsm_regression_step(S, payoff, disc=0.9):
    # one Longstaff-Schwartz regression by normal equations on in-the-money paths
    itm = payoff > 0
    Xb = np.stack([np.ones(S.shape[0]), S, S ** 2], axis=1)[itm]
    yb = disc * payoff[itm]
    beta = np.linalg.solve(Xb.T @ Xb + 1e-8 * np.eye(3), Xb.T @ yb)
    cont = Xb @ beta
    return np.mean(np.maximum(yb, cont))


def quaternion_integrate(omega, q0, dt=0.05):
    q = q0 / np.linalg.norm(q0)
    for t in range(omega.shape[0]):
        wx, wy, wz = omega[t]
        Om = np.array([[0.0, -wx, -wy, -wz], [wx, 0.0, wz, -wy],
                       [wy, -wz, 0.0, wx], [wz, wy, -wx, 0.0]])
        q = q + 0.5 * dt * (Om @ q)
        q = q / np.linalg.norm(q)
    return q[0] ** 2 - q[3]


def sir_until_extinct(beta, gamma, i0, dt=0.1):
    s, i, r = 1.0 - i0, i0, 0.0
    t = 0.0
    peak_t = 0.0
    peak = i
    while i > 1e-3 and t < 200.0:
        new_inf = beta * s * i * dt
        rec = gamma * i * dt
        s, i, r = s - new_inf, i + new_inf - rec, r + rec
        t += dt
        if i > peak:
            peak, peak_t = i, t
    return r + 0.01 * peak


def corpus3(seed=91):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    indptr = np.array([0, 2, 3, 6])
    indices = np.array([0, 2, 1, 0, 1, 2])
    pi = np.array([0.6, 0.4])
    A2 = np.array([[0.7, 0.3], [0.2, 0.8]])
    B2 = np.array([[0.5, 0.3, 0.2], [0.1, 0.3, 0.6]])
    S = np.exp(0.2 * nrm(size=12))
    return [
        (pk_adaptive_rk, (1.2, 0.3), (0, 1)),
        (csr_matvec_loss, (nrm(size=6), nrm(size=3), indptr, indices, nrm(size=3)), (0, 1)),
        (graph_laplacian_smooth, (nrm(size=4), np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3]),
                                  np.abs(nrm(size=4))), (0, 3)),
        (forward_backward, (pi, A2, B2, np.array([0, 2, 1, 2, 0])), (0, 1, 2)),
        (particle_filter_fixed, (np.array([0.8, 0.5]), nrm(size=4), nrm(size=(4, 6)),
                                 rng.uniform(size=4) / 6), (0,)),
        (damped_ls_ik, (np.array([0.3, 0.4, -0.2]), np.array([1.2, 1.1])), (0, 1)),
        (goertzel_power, (nrm(size=8),), (0,)),
        (dilated_conv1d, (nrm(size=12), nrm(size=3)), (0, 1)),
        (heston_full_truncation, (1.5, 0.04, 0.3, nrm(size=(16, 6)), nrm(size=(16, 6))), (0, 1, 2)),
        (lsm_regression_step, (S, 4.0 * np.maximum(1.1 - S, 0.0) ** 3), (0,)),
        (quaternion_integrate, (nrm(size=(6, 3)), np.array([1.0, 0.1, -0.2, 0.05])), (0, 1)),
        (sir_until_extinct, (0.5, 0.25, 0.01), (0, 1, 2)),
    ]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(corpus() + corpus2() + corpus3(), sys.argv[1:])
