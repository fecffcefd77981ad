"""Held-out corpus #14: standard optimisation / AD test objectives and everyday scientific
models, written from their definitions as a NumPy user would write them (none copied from
earlier corpora or other projects). `mgh()` holds the More-Garbow-Hillstrom problems (helical
valley with its arctan branch, Brown badly scaled, Jennrich-Sampson, Box 3-D, Penalty II,
Broyden banded, discrete boundary value, Chebyquad ...), `cutest()` CUTEst-style scalable ones
(ARWHEAD, DIXMAAN, EXTROSNB, FLETCHCR, NONDIA, TRIDIA, ENGVAL1, SROSENBR, LIARWHD, POWER,
QUARTC), each with explicit loops in one version and vectorized NumPy in another where natural;
`models()` everyday models (GP marginal likelihood, a minibatch MLP, a VAE ELBO, soft k-means,
Ising / XY energies with np.roll, a heat stepper, n-body leapfrog, an adaptive-step pendulum,
a neural ODE, logistic growth, Poisson regression, a Gaussian mixture, a small CNN by loops,
masked attention, a Lotka-Volterra fit, Black-Scholes, a spring chain, a Rosenbrock over a
list of arrays). `residuals()` are least-squares residual vectors for jacfwd / jacrev;
tests/test_heldout14.py checks the findings and the API forms.

`python -m tests.heldout14_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py
`triage`)."""
import math

import numpy as np
import scipy.optimize
import scipy.special
import scipy.stats
from numpy.lib.stride_tricks import sliding_window_view
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.special import erf, gammaln, logsumexp
from scipy.stats import norm


# -- More-Garbow-Hillstrom ---------------------------------------------------------------------
def mgh_helical_valley(x):
    if x[0] > 0.0:
        theta = math.atan(x[1] / x[0]) / (2.0 * math.pi)
    else:
        theta = math.atan(x[1] / x[0]) / (2.0 * math.pi) + 0.5
    r = math.sqrt(x[0] ** 2 + x[1] ** 2)
    return 100.0 * ((x[2] - 10.0 * theta) ** 2 + (r - 1.0) ** 2) + x[2] ** 2


def mgh_helical_valley_atan2(x):
    theta = np.arctan2(x[1], x[0]) / (2.0 * np.pi)
    theta = np.where(theta < 0.0, theta + 1.0, theta)
    r = np.hypot(x[0], x[1])
    f = np.array([10.0 * (x[2] - 10.0 * theta), 10.0 * (r - 1.0), x[2]])
    return f @ f


def mgh_powell_singular_loop(x):
    total = 0.0
    for k in range(0, x.shape[0], 4):
        a, b, c, d = x[k], x[k + 1], x[k + 2], x[k + 3]
        total += (a + 10.0 * b) ** 2 + 5.0 * (c - d) ** 2 + (b - 2.0 * c) ** 4 \
            + 10.0 * (a - d) ** 4
    return total


def mgh_wood(x):
    x1, x2, x3, x4 = x
    return (100.0 * (x2 - x1 ** 2) ** 2 + (1.0 - x1) ** 2 + 90.0 * (x4 - x3 ** 2) ** 2
            + (1.0 - x3) ** 2 + 10.0 * (x2 + x4 - 2.0) ** 2 + 0.1 * (x2 - x4) ** 2)


def mgh_brown_badly_scaled(x):
    f1 = x[0] - 1e6
    f2 = x[1] - 2e-6
    f3 = x[0] * x[1] - 2.0
    return f1 * f1 + f2 * f2 + f3 * f3


def mgh_beale_loop(x):
    y = (1.5, 2.25, 2.625)
    s = 0.0
    for i in range(3):
        r = y[i] - x[0] * (1.0 - x[1] ** (i + 1))
        s += r ** 2
    return s


def mgh_jennrich_sampson(x):
    i = np.arange(1, 11)
    f = 2.0 + 2.0 * i - (np.exp(i * x[0]) + np.exp(i * x[1]))
    return np.sum(f ** 2)


def mgh_box3d(x, m=10):
    t = 0.1 * np.arange(1, m + 1)
    f = np.exp(-t * x[0]) - np.exp(-t * x[1]) - x[2] * (np.exp(-t) - np.exp(-10.0 * t))
    return np.dot(f, f)


def mgh_penalty1(x):
    return 1e-5 * np.sum((x - 1.0) ** 2) + (np.sum(x ** 2) - 0.25) ** 2


def mgh_penalty2(x):
    n = x.shape[0]
    a = 1e-5
    i = np.arange(2, n + 1)
    y = np.exp(i / 10.0) + np.exp((i - 1) / 10.0)
    e = np.exp(x / 10.0)
    f1 = e[1:] + e[:-1] - y
    f2 = e[1:] - math.exp(-0.1)
    weights = np.arange(n, 0, -1)
    return (x[0] - 0.2) ** 2 + a * (np.sum(f1 ** 2) + np.sum(f2 ** 2)) \
        + (np.sum(weights * x ** 2) - 1.0) ** 2


def mgh_variably_dimensioned_loop(x):
    n = x.shape[0]
    s = 0.0
    q = 0.0
    for j in range(n):
        s += (x[j] - 1.0) ** 2
        q += (j + 1) * (x[j] - 1.0)
    return s + q ** 2 + q ** 4


def mgh_trigonometric_loop(x):
    n = x.shape[0]
    c = np.cos(x)
    total = 0.0
    csum = np.sum(c)
    for i in range(n):
        fi = n - csum + (i + 1) * (1.0 - c[i]) - np.sin(x[i])
        total += fi * fi
    return total


def mgh_broyden_tridiagonal_pad(x):
    xp = np.pad(x, 1)
    f = (3.0 - 2.0 * x) * x - xp[:-2] - 2.0 * xp[2:] + 1.0
    return np.sum(f ** 2)


def mgh_broyden_banded(x):
    n = x.shape[0]
    total = 0.0
    for i in range(n):
        fi = x[i] * (2.0 + 5.0 * x[i] ** 2) + 1.0
        for j in range(max(0, i - 5), min(n, i + 2)):
            if j != i:
                fi -= x[j] * (1.0 + x[j])
        total += fi ** 2
    return total


def mgh_discrete_bvp(x):
    n = x.shape[0]
    h = 1.0 / (n + 1)
    t = h * np.arange(1, n + 1)
    left = np.concatenate(([0.0], x[:-1]))
    right = np.concatenate((x[1:], [0.0]))
    f = 2.0 * x - left - right + 0.5 * h ** 2 * (x + t + 1.0) ** 3
    return np.sum(f ** 2)


def mgh_chebyquad(x):
    n = x.shape[0]
    y = 2.0 * x - 1.0
    t_prev = np.ones(n)
    t_cur = y
    total = 0.0
    for i in range(1, n + 1):
        if i % 2 == 0:
            target = -1.0 / (i * i - 1.0)
        else:
            target = 0.0
        fi = np.mean(t_cur) - target
        total += fi ** 2
        t_prev, t_cur = t_cur, 2.0 * y * t_cur - t_prev
    return total


def mgh_freudenstein_roth(x):
    f1 = -13.0 + x[0] + ((5.0 - x[1]) * x[1] - 2.0) * x[1]
    f2 = -29.0 + x[0] + ((x[1] + 1.0) * x[1] - 14.0) * x[1]
    return f1 ** 2 + f2 ** 2


def mgh_brown_dennis(x):
    t = np.arange(1, 21) / 5.0
    f = (x[0] + t * x[1] - np.exp(t)) ** 2 + (x[2] + x[3] * np.sin(t) - np.cos(t)) ** 2
    return np.sum(f ** 2)


# -- CUTEst-style scalable -----------------------------------------------------------------------
def cute_arwhead_loop(x):
    n = x.shape[0]
    f = 0.0
    for i in range(n - 1):
        f += -4.0 * x[i] + 3.0 + (x[i] ** 2 + x[n - 1] ** 2) ** 2
    return f


def cute_arwhead_vec(x):
    return np.sum(-4.0 * x[:-1] + 3.0) + np.sum((x[:-1] ** 2 + x[-1] ** 2) ** 2)


def cute_dixmaan(x, alpha=1.0, beta=0.125, gamma=0.125, delta=0.125, k=(0, 0, 0, 0)):
    n = x.shape[0]
    m = n // 3
    w = np.arange(1, n + 1) / n
    f = 1.0 + np.sum(alpha * x ** 2 * w ** k[0])
    f += np.sum(beta * x[:-1] ** 2 * (x[1:] + x[1:] ** 2) ** 2 * w[:-1] ** k[1])
    f += np.sum(gamma * x[:2 * m] ** 2 * x[m:3 * m] ** 4 * w[:2 * m] ** k[2])
    f += np.sum(delta * x[:m] * x[2 * m:3 * m] * w[:m] ** k[3])
    return f


def cute_dixmaan_loop(x):
    n = x.shape[0]
    m = n // 3
    f = 1.0
    for i in range(n):
        f += x[i] ** 2 * ((i + 1) / n) ** 2
    for i in range(n - 1):
        f += 0.26 * x[i] ** 2 * (x[i + 1] + x[i + 1] ** 2) ** 2
    for i in range(2 * m):
        f += 0.26 * x[i] ** 2 * x[i + m] ** 4
    for i in range(m):
        f += 0.26 * x[i] * x[i + 2 * m] * ((i + 1) / n) ** 2
    return f


def cute_extrosnb(x):
    return (x[0] - 1.0) ** 2 + 100.0 * np.sum((x[1:] - x[:-1] ** 2) ** 2)


def cute_fletchcr_loop(x):
    f = 0.0
    for i in range(len(x) - 1):
        f = f + 100.0 * (x[i + 1] - x[i] + 1.0 - x[i] ** 2) ** 2
    return f


def cute_nondia(x):
    return (x[0] - 1.0) ** 2 + 100.0 * np.sum((x[0] - x ** 2) ** 2)


def cute_tridia_loop(x, alpha=2.0, beta=1.0, gamma=1.0, delta=1.0):
    f = gamma * (delta * x[0] - 1.0) ** 2
    for i in range(1, x.shape[0]):
        f += (i + 1) * (alpha * x[i] - beta * x[i - 1]) ** 2
    return f


def cute_tridia_vec(x):
    i = np.arange(2, x.shape[0] + 1)
    return (x[0] - 1.0) ** 2 + np.sum(i * (2.0 * x[1:] - x[:-1]) ** 2)


def cute_engval1(x):
    s = x[:-1] ** 2 + x[1:] ** 2
    return np.sum(s * s) + np.sum(3.0 - 4.0 * x[:-1])


def cute_engval1_loop(x):
    total = 0.0
    for a, b in zip(x[:-1], x[1:]):
        total += (a * a + b * b) ** 2 - 4.0 * a + 3.0
    return total


def cute_srosenbr(x):
    odd, even = x[0::2], x[1::2]
    return np.sum(100.0 * (even - odd ** 2) ** 2 + (odd - 1.0) ** 2)


def cute_srosenbr_loop(x):
    f = 0.0
    for i in range(x.shape[0] // 2):
        f += 100.0 * (x[2 * i + 1] - x[2 * i] ** 2) ** 2 + (x[2 * i] - 1.0) ** 2
    return f


def cute_liarwhd(x):
    return np.sum(4.0 * (x ** 2 - x[0]) ** 2 + (x - 1.0) ** 2)


def cute_liarwhd_loop(x):
    s = 0.0
    for xi in x:
        s += 4.0 * (xi * xi - x[0]) ** 2 + (xi - 1.0) ** 2
    return s


def cute_power(x):
    i = np.arange(1.0, x.size + 1.0)
    return np.sum(i * x ** 2) ** 2


def cute_quartc(x):
    return np.sum((x - np.arange(1, len(x) + 1)) ** 4)


def cute_quartc_loop(x):
    f = 0.0
    for i, xi in enumerate(x):
        f += (xi - (i + 1)) ** 4
    return f


# -- everyday models -----------------------------------------------------------------------------
def gp_nlml_solve(log_params, X, y):
    ell, sf2, sn2 = np.exp(log_params)
    sq = np.sum(X ** 2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    K = sf2 * np.exp(-0.5 * d2 / ell ** 2) + sn2 * np.eye(len(y))
    alpha = np.linalg.solve(K, y)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ alpha + 0.5 * logdet + 0.5 * len(y) * np.log(2.0 * np.pi)


def gp_nlml_ard_cholesky(log_ell, log_sn, X, y):
    Z = X / np.exp(log_ell)
    diff = Z[:, None, :] - Z[None, :, :]
    K = np.exp(-0.5 * np.sum(diff ** 2, axis=2)) + np.exp(2.0 * log_sn) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    v = np.linalg.solve(L, y)
    return 0.5 * np.sum(v ** 2) + np.sum(np.log(np.diagonal(L)))


def mlp_minibatch_xent(W1, b1, W2, b2, X, labels):
    n_classes = W2.shape[1]
    onehot = np.eye(n_classes)[labels]
    total = 0.0
    batch = 4
    for start in range(0, X.shape[0], batch):
        xb = X[start:start + batch]
        yb = onehot[start:start + batch]
        h = np.tanh(xb @ W1 + b1)
        logits = h @ W2 + b2
        m = np.max(logits, axis=1, keepdims=True)
        logp = logits - m - np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
        total = total - np.sum(yb * logp)
    return total / X.shape[0]


def vae_elbo_fixed_eps(We, Wd, x, eps):
    d = eps.shape[0]
    stats = We @ x
    mu, logvar = stats[:d], stats[d:]
    z = mu + np.exp(0.5 * logvar) * eps
    logits = Wd @ z
    # Bernoulli log-likelihood written with logaddexp
    loglik = np.sum(x * logits - np.logaddexp(0.0, logits))
    kl = 0.5 * np.sum(np.exp(logvar) + mu ** 2 - 1.0 - logvar)
    return -(loglik - kl)


def kmeans_soft_energy(C, X, temp):
    d2 = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    return -temp * np.sum(logsumexp(-d2 / temp, axis=1))


def ising_roll_energy(field, J, h):
    s = np.tanh(field)
    bonds = s * np.roll(s, 1, axis=0) + s * np.roll(s, 1, axis=1)
    return -J * np.sum(bonds) - h * np.sum(s)


def xy_model_energy(theta):
    e = np.cos(theta - np.roll(theta, -1, axis=0)) + np.cos(theta - np.roll(theta, -1, axis=1))
    return -np.sum(e)


def heat_periodic_roll(u0, kappa, steps=6):
    u = u0.copy()
    for _ in range(steps):
        u = u + kappa * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
    return np.sum((u - np.mean(u)) ** 2)


def heat_2d_stepper(u0, kappa):
    u = u0
    for _ in range(3):
        lap = np.zeros_like(u)
        lap[1:-1, 1:-1] = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                           - 4.0 * u[1:-1, 1:-1])
        u = u + kappa * lap
    return np.sum(u ** 2)


def nbody_leapfrog(q0, p0, masses, dt=0.01, steps=5):
    def accel(q):
        diff = q[None, :, :] - q[:, None, :]
        r2 = np.sum(diff ** 2, axis=-1) + 0.01
        inv3 = r2 ** -1.5
        return np.sum(masses[None, :, None] * diff * inv3[:, :, None], axis=1)

    q, p = q0, p0
    for _ in range(steps):
        p = p + 0.5 * dt * accel(q)
        q = q + dt * p
        p = p + 0.5 * dt * accel(q)
    return 0.5 * np.sum(masses[:, None] * p ** 2) + np.sum(q[0] * q[1])


def pendulum_adaptive_while(theta0, damping, t_end=1.0):
    th, om = theta0, 0.0
    t = 0.0
    dt = 0.1
    while t < t_end:
        if t + dt > t_end:
            dt = t_end - t
        a1 = -math.sin(th) - damping * om
        th_e, om_e = th + dt * om, om + dt * a1
        a2 = -math.sin(th_e) - damping * om_e
        th_h = th + 0.5 * dt * (om + om_e)
        om_h = om + 0.5 * dt * (a1 + a2)
        err = abs(th_h - th_e) + abs(om_h - om_e)
        if err > 1e-3:
            dt = 0.5 * dt
            continue
        th, om = th_h, om_h
        t += dt
        dt = min(1.5 * dt, 0.2)
    return th ** 2 + 0.5 * om ** 2


def neural_ode_euler(W, b, h0, n_steps=10):
    h = h0
    dt = 1.0 / n_steps
    for _ in range(n_steps):
        h = h + dt * np.tanh(W @ h + b)
    return np.sum(h ** 2)


def logistic_growth_fit(params, t, obs):
    r, K, P0 = params
    pred = K / (1.0 + (K / P0 - 1.0) * np.exp(-r * t))
    return np.mean((pred - obs) ** 2)


def poisson_regression_exposure(beta, X, counts, exposure):
    eta = X @ beta + np.log(exposure)
    return np.sum(np.exp(eta) - counts * eta + gammaln(counts + 1.0)) + 0.01 * beta @ beta


def mog_2d_loglik(logits, means, log_scales, X):
    logw = logits - logsumexp(logits)
    s = np.exp(log_scales)                                  # (k, 2)
    z = (X[:, None, :] - means[None, :, :]) / s[None, :, :]
    comp = -0.5 * np.sum(z ** 2, axis=2) - np.sum(log_scales, axis=1) - np.log(2.0 * np.pi)
    return -np.sum(logsumexp(comp + logw, axis=1))


def cnn_loops_maxpool(K, w_out, img):
    kh, kw = K.shape
    H, W = img.shape[0] - kh + 1, img.shape[1] - kw + 1
    fmap = np.zeros((H, W))
    for i in range(H):
        for j in range(W):
            acc = 0.0
            for a in range(kh):
                for b in range(kw):
                    acc += K[a, b] * img[i + a, j + b]
            fmap[i, j] = max(acc, 0.0)
    pooled = np.zeros((H // 2, W // 2))
    for i in range(H // 2):
        for j in range(W // 2):
            pooled[i, j] = np.max(fmap[2 * i:2 * i + 2, 2 * j:2 * j + 2])
    return np.dot(w_out, pooled.ravel())


def masked_attention(Wq, Wk, Wv, X):
    Q, Kt, V = X @ Wq, X @ Wk, X @ Wv
    T = X.shape[0]
    scores = Q @ Kt.T / math.sqrt(Q.shape[1])
    mask = np.triu(np.ones((T, T)), k=1) > 0
    scores = np.where(mask, -1e9, scores)
    scores = scores - scores.max(axis=1, keepdims=True)
    A = np.exp(scores)
    A = A / A.sum(axis=1, keepdims=True)
    return np.sum((A @ V) ** 2)


def lotka_volterra_heun_fit(theta, y0, obs):
    a, b, c, d = theta
    dt = 0.1

    def f(u):
        return np.array([a * u[0] - b * u[0] * u[1], d * u[0] * u[1] - c * u[1]])

    u = y0
    loss = 0.0
    for k in range(obs.shape[0]):
        k1 = f(u)
        k2 = f(u + dt * k1)
        u = u + 0.5 * dt * (k1 + k2)
        loss += np.sum((u - obs[k]) ** 2)
    return loss


def _ncdf(z):
    return 0.5 * (1.0 + erf(z / math.sqrt(2.0)))


def black_scholes_put(S, K, r, sigma, T):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return K * math.exp(-r * T) * _ncdf(-d2) - S * _ncdf(-d1)


def black_scholes_vec(S, K, r, sigma, T):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    call = S * _ncdf(d1) - K * np.exp(-r * T) * _ncdf(d2)
    return np.sum(call)


def spring_mass_fixed_ends(y, k, g=9.81):
    full = np.concatenate(([0.0], y, [y.shape[0] + 1.0]))
    stretch = np.diff(full) - 1.0
    return 0.5 * np.sum(k * stretch ** 2) + g * 0.1 * np.sum(y)


def rosenbrock_list_of_arrays(x):
    parts = [x[0:2], x[2:4], x[4:6]]
    total = 0.0
    for p in parts:
        total = total + 100.0 * (p[1] - p[0] ** 2) ** 2 + (1.0 - p[0]) ** 2
    return total


def rosenbrock_list_arg(blocks):
    total = 0.0
    for b in blocks:
        total += np.sum(100.0 * (b[1:] - b[:-1] ** 2) ** 2 + (1.0 - b[:-1]) ** 2)
    return total


def advection_upwind(u0, c):
    u = u0
    for _ in range(4):
        back = u - np.roll(u, 1)
        fwd = np.roll(u, -1) - u
        u = u - np.where(c > 0.0, c * back, c * fwd)
    return np.sum(u ** 3)


def wave_leapfrog(u0, v0, c2):
    u_prev = u0
    u = u0 + 0.1 * v0
    for _ in range(5):
        lap = np.roll(u, 1) + np.roll(u, -1) - 2.0 * u
        u_prev, u = u, 2.0 * u - u_prev + c2 * lap
    return np.sum(u ** 2) + np.sum((u - u_prev) ** 2)


def lqr_rollout_cost(K, x0, A, B):
    x = x0
    cost = 0.0
    for _ in range(8):
        u = -K @ x
        cost += x @ x + 0.1 * u @ u
        x = A @ x + B @ u
    return cost + 10.0 * x @ x


def kde_loo_loglik(log_bw, x):
    bw = np.exp(log_bw)
    d = (x[:, None] - x[None, :]) / bw
    K = np.exp(-0.5 * d ** 2) / (bw * np.sqrt(2.0 * np.pi))
    n = x.shape[0]
    loo = (np.sum(K, axis=1) - np.diag(K)) / (n - 1)
    return -np.sum(np.log(loo))


def negbin_regression(beta, log_alpha, X, y):
    mu = np.exp(X @ beta)
    r = np.exp(-log_alpha)
    ll = gammaln(y + r) - gammaln(r) - gammaln(y + 1.0) + r * np.log(r / (r + mu)) \
        + y * np.log(mu / (r + mu))
    return -np.sum(ll)


def sinusoid_fit(p, t, obs):
    amp, freq, phase = p[0], p[1], p[2]
    pred = amp * np.sin(2.0 * np.pi * freq * t + phase)
    return 0.5 * np.sum((pred - obs) ** 2)


def damped_spring_verlet(k, c, x0):
    x, v = x0, 0.0
    dt = 0.05
    a = -k * x - c * v
    energy = 0.0
    for _ in range(20):
        x = x + dt * v + 0.5 * dt * dt * a
        a_new = -k * x - c * v
        v = v + 0.5 * dt * (a + a_new)
        a = a_new
        energy += 0.5 * v * v + 0.5 * k * x * x
    return energy


def smooth_max_logsumexp(x, beta):
    return logsumexp(beta * x) / beta + np.sum(np.maximum(x, -0.5))


def sir_euler_fit(log_beta, log_gamma, obs_infected):
    beta, gamma = math.exp(log_beta), math.exp(log_gamma)
    S, I, R = 0.99, 0.01, 0.0
    dt = 0.5
    loss = 0.0
    for k in range(obs_infected.shape[0]):
        new_inf = beta * S * I * dt
        new_rec = gamma * I * dt
        S, I, R = S - new_inf, I + new_inf - new_rec, R + new_rec
        loss += (I - obs_infected[k]) ** 2
    return loss


# -- a second round: the library calls such code reaches for ------------------------------------
def rosen_by_scipy(x):
    return scipy.optimize.rosen(x) + 0.1 * scipy.optimize.rosen(x[::-1])


def gp_nlml_cho_factor(log_ell, X, y):
    d2 = np.sum((X[:, None] - X[None]) ** 2, -1)
    K = np.exp(-0.5 * d2 / np.exp(2.0 * log_ell)) + 0.1 * np.eye(len(y))
    c, low = cho_factor(K)
    alpha = cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


def gp_nlml_cho_factor_kept(log_ell, X, y):
    d2 = np.sum((X[:, None] - X[None]) ** 2, -1)
    K = np.exp(-0.5 * d2 / np.exp(2.0 * log_ell)) + 0.1 * np.eye(len(y))
    cf = cho_factor(K, lower=True)
    alpha = cho_solve(cf, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(cf[0])))


def gp_nlml_solve_triangular(log_ell, X, y):
    d2 = np.sum((X[:, None] - X[None]) ** 2, -1)
    K = np.exp(-0.5 * d2 / np.exp(2.0 * log_ell)) + 0.1 * np.eye(len(y))
    L = np.linalg.cholesky(K)
    v = solve_triangular(L, y, lower=True)
    return 0.5 * v @ v + np.log(np.diag(L)).sum()


def logistic_log_expit(w, X, y):
    z = X @ w
    return -np.sum(y * scipy.special.log_expit(z) + (1.0 - y) * scipy.special.log_expit(-z))


def heat_by_convolve(u0):
    u = u0
    for _ in range(3):
        u = u + 0.2 * np.convolve(u, [1.0, -2.0, 1.0], mode="same")
    return np.sum(u ** 2)


def nbody_potential_fill_diagonal(q, m):
    d = q[:, None, :] - q[None, :, :]
    r = np.linalg.norm(d, axis=-1)
    np.fill_diagonal(r, 1.0)
    return -np.sum(np.triu(np.outer(m, m) / r, 1))


def black_scholes_norm_cdf(S, sigma):
    d1 = (np.log(S / 100.0) + 0.5 * sigma ** 2) / sigma
    return S * norm.cdf(d1) - 100.0 * norm.cdf(d1 - sigma)


def cnn_sliding_windows(K, img):
    win = sliding_window_view(img, K.shape)
    fmap = np.maximum(np.einsum("ijkl,kl->ij", win, K), 0.0)
    H, W = fmap.shape
    pooled = fmap[:H // 2 * 2, :W // 2 * 2].reshape(H // 2, 2, W // 2, 2).max(axis=(1, 3))
    return np.sum(pooled ** 2)


def attention_neg_inf_mask(Wq, Wk, X):
    Q, Kt = X @ Wq, X @ Wk
    s = Q @ Kt.T
    T = s.shape[0]
    s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a = a / a.sum(axis=1, keepdims=True)
    return np.sum(a * np.clip(s, -5.0, 5.0))


def xent_take_along_axis(W, X, labels):
    logits = X @ W
    lp = logits - logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(np.take_along_axis(lp, labels[:, None], axis=1))


def mgh_brown_almost_linear(x):
    n = x.size
    f = x + np.sum(x) - (n + 1)
    f[-1] = np.prod(x) - 1.0
    return f @ f


def poisson_by_scipy_stats(beta, X, y):
    return -np.sum(scipy.stats.poisson.logpmf(y, np.exp(X @ beta)))


def mixture_by_norm_logpdf(mu, x):
    return -np.sum(logsumexp(norm.logpdf(x[:, None], mu[None, :], 1.0), axis=1))


def mgh_biggs_exp6(x):
    t = 0.1 * np.arange(1, 14)
    y = np.exp(-t) - 5.0 * np.exp(-10.0 * t) + 3.0 * np.exp(-4.0 * t)
    f = x[2] * np.exp(-t * x[0]) - x[3] * np.exp(-t * x[1]) + x[5] * np.exp(-t * x[4]) - y
    return np.sum(f ** 2)


def mgh_osborne1(x):
    t = 10.0 * np.arange(33)
    y = 0.5 + 0.3 * np.exp(-0.01 * t)
    f = y - (x[0] + x[1] * np.exp(-t * x[3]) + x[2] * np.exp(-t * x[4]))
    return np.sum(f ** 2)


def mgh_gulf(x):
    t = np.arange(1, 11) / 100.0
    y = 25.0 + (-50.0 * np.log(t)) ** (2.0 / 3.0)
    f = np.exp(-np.abs(y - x[1]) ** x[2] / x[0]) - t
    return f @ f


def survival_cumprod(h):
    return np.sum(np.cumprod(1.0 - 0.1 * np.tanh(h) ** 2))


# -- least-squares residual vectors (for jacfwd / jacrev) -----------------------------------------
def powell_residuals(x):
    return np.array([x[0] + 10.0 * x[1], math.sqrt(5.0) * (x[2] - x[3]), (x[1] - 2.0 * x[2]) ** 2,
                     math.sqrt(10.0) * (x[0] - x[3]) ** 2])


def box3d_residuals(x):
    t = 0.1 * np.arange(1, 7)
    return np.exp(-t * x[0]) - np.exp(-t * x[1]) - x[2] * (np.exp(-t) - np.exp(-10.0 * t))


def broyden_tridiagonal_residuals(x):
    f = (3.0 - 2.0 * x) * x + 1.0
    f[1:] -= x[:-1]
    f[:-1] -= 2.0 * x[1:]
    return f


def jennrich_residuals_loop(x):
    out = np.zeros(10)
    for i in range(10):
        out[i] = 2.0 + 2.0 * (i + 1) - math.exp((i + 1) * x[0]) - math.exp((i + 1) * x[1])
    return out


def helical_residuals(x):
    theta = np.arctan2(x[1], x[0]) / (2.0 * np.pi)
    return np.array([10.0 * (x[2] - 10.0 * theta), 10.0 * (np.hypot(x[0], x[1]) - 1.0), x[2]])


def refused_forms():
    """Refused on purpose (each at its marked line, both modes)."""
    return []


def mgh(seed=14):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [
        (mgh_helical_valley, (np.array([-1.0, 0.3, 0.2]),), (0,)),
        (mgh_helical_valley, (np.array([0.8, -0.4, 0.5]),), (0,)),
        (mgh_helical_valley_atan2, (np.array([-1.0, 0.3, 0.2]),), (0,)),
        (mgh_helical_valley_atan2, (np.array([0.6, -0.7, 0.1]),), (0,)),
        (mgh_powell_singular_loop, (np.array([3.0, -1.0, 0.0, 1.0, 0.5, 0.2, -0.3, 0.9]),), (0,)),
        (mgh_wood, (np.array([-3.0, -1.0, -3.0, -1.0]),), (0,)),
        (mgh_brown_badly_scaled, (np.array([1e6 - 0.5, 3e-6]),), (0,)),
        (mgh_beale_loop, (np.array([1.0, 0.8]),), (0,)),
        (mgh_jennrich_sampson, (np.array([0.3, 0.4]),), (0,)),
        (mgh_box3d, (np.array([0.0, 10.0, 20.0]),), (0,)),
        (mgh_penalty1, (nrm(size=6),), (0,)),
        (mgh_penalty2, (0.5 * np.ones(5) + 0.1 * nrm(size=5),), (0,)),
        (mgh_variably_dimensioned_loop, (1.0 - np.arange(1, 6) / 5.0,), (0,)),
        (mgh_trigonometric_loop, (np.full(5, 0.2) + 0.05 * nrm(size=5),), (0,)),
        (mgh_broyden_tridiagonal_pad, (-np.ones(6) + 0.1 * nrm(size=6),), (0,)),
        (mgh_broyden_banded, (-np.ones(8) + 0.1 * nrm(size=8),), (0,)),
        (mgh_discrete_bvp, (nrm(size=6) * 0.2,), (0,)),
        (mgh_chebyquad, (np.arange(1, 6) / 6.0 + 0.02 * nrm(size=5),), (0,)),
        (mgh_freudenstein_roth, (np.array([0.5, -2.0]),), (0,)),
        (mgh_brown_dennis, (np.array([25.0, 5.0, -5.0, -1.0]) * 0.1,), (0,)),
    ]


def cutest(seed=41):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    x6 = nrm(size=6)
    return [
        (cute_arwhead_loop, (x6,), (0,)),
        (cute_arwhead_vec, (x6,), (0,)),
        (cute_dixmaan, (nrm(size=6),), (0,)),
        (cute_dixmaan_loop, (nrm(size=6),), (0,)),
        (cute_extrosnb, (nrm(size=5),), (0,)),
        (cute_fletchcr_loop, (nrm(size=5),), (0,)),
        (cute_nondia, (nrm(size=5),), (0,)),
        (cute_tridia_loop, (nrm(size=5),), (0,)),
        (cute_tridia_vec, (nrm(size=5),), (0,)),
        (cute_engval1, (nrm(size=5),), (0,)),
        (cute_engval1_loop, (nrm(size=5),), (0,)),
        (cute_srosenbr, (nrm(size=6),), (0,)),
        (cute_srosenbr_loop, (nrm(size=6),), (0,)),
        (cute_liarwhd, (nrm(size=5),), (0,)),
        (cute_liarwhd_loop, (nrm(size=5),), (0,)),
        (cute_power, (nrm(size=5),), (0,)),
        (cute_quartc, (nrm(size=5),), (0,)),
        (cute_quartc_loop, (nrm(size=5),), (0,)),
    ]


def models(seed=1414):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(6, 2))
    Xc = nrm(size=(8, 3))
    t = np.linspace(0.0, 5.0, 8)
    A = np.array([[1.0, 0.1], [0.0, 1.0]])
    B = np.array([[0.0], [0.1]])
    return [
        (gp_nlml_solve, (np.array([0.1, 0.2, -1.0]), X, nrm(size=6)), (0,)),
        (gp_nlml_ard_cholesky, (np.array([0.2, -0.1]), -1.0, X, nrm(size=6)), (0, 1, 3)),
        (mlp_minibatch_xent, (0.5 * nrm(size=(3, 5)), 0.1 * nrm(size=5), 0.5 * nrm(size=(5, 3)),
                              np.zeros(3), Xc, rng.integers(0, 3, 8)), (0, 1, 2, 3)),
        (vae_elbo_fixed_eps, (0.3 * nrm(size=(4, 5)), 0.3 * nrm(size=(5, 2)),
                              (nrm(size=5) > 0) * 1.0, nrm(size=2)), (0, 1)),
        (kmeans_soft_energy, (nrm(size=(3, 2)), X, 0.7), (0, 1, 2)),
        (ising_roll_energy, (nrm(size=(4, 4)), 1.0, 0.3), (0, 1, 2)),
        (xy_model_energy, (nrm(size=(4, 5)),), (0,)),
        (heat_periodic_roll, (nrm(size=8), 0.2), (0, 1)),
        (heat_2d_stepper, (nrm(size=(5, 5)), 0.15), (0, 1)),
        (nbody_leapfrog, (nrm(size=(3, 2)), 0.1 * nrm(size=(3, 2)), np.array([1.0, 0.5, 2.0])),
         (0, 1, 2)),
        (pendulum_adaptive_while, (0.8, 0.3), (0, 1)),
        (neural_ode_euler, (0.5 * nrm(size=(3, 3)), 0.1 * nrm(size=3), nrm(size=3)), (0, 1, 2)),
        (logistic_growth_fit, (np.array([0.9, 10.0, 1.0]), t,
                               10.0 / (1.0 + 9.0 * np.exp(-t)) + 0.1 * nrm(size=8)), (0,)),
        (poisson_regression_exposure, (0.2 * nrm(size=3), Xc, rng.poisson(2.0, 8) * 1.0,
                                       rng.uniform(0.5, 2.0, 8)), (0, 3)),
        (mog_2d_loglik, (nrm(size=3), nrm(size=(3, 2)), 0.2 * nrm(size=(3, 2)), X), (0, 1, 2)),
        (cnn_loops_maxpool, (nrm(size=(2, 2)), nrm(size=4), nrm(size=(5, 5))), (0, 1, 2)),
        (masked_attention, (nrm(size=(3, 2)), nrm(size=(3, 2)), nrm(size=(3, 2)),
                            nrm(size=(4, 3))), (0, 1, 2, 3)),
        (lotka_volterra_heun_fit, (np.array([1.0, 0.4, 0.8, 0.3]), np.array([2.0, 1.0]),
                                   np.abs(nrm(size=(5, 2))) + 1.0), (0, 1)),
        (black_scholes_put, (100.0, 95.0, 0.03, 0.25, 0.5), (0, 1, 2, 3, 4)),
        (black_scholes_vec, (np.array([90.0, 100.0, 110.0]), 100.0, 0.02,
                             np.array([0.2, 0.3, 0.25]), 1.0), (0, 1, 2, 3, 4)),
        (spring_mass_fixed_ends, (np.arange(1.0, 5.0) + 0.1 * nrm(size=4),
                                  np.array([1.0, 2.0, 1.5, 1.0, 3.0])), (0, 1)),
        (rosenbrock_list_of_arrays, (nrm(size=6),), (0,)),
        (rosenbrock_list_arg, ([nrm(size=3), nrm(size=4)],), (0,)),
        (advection_upwind, (nrm(size=6), 0.3), (0, 1)),
        (wave_leapfrog, (nrm(size=6), nrm(size=6), 0.2), (0, 1, 2)),
        (lqr_rollout_cost, (np.array([[0.5, 1.0]]), np.array([1.0, -0.5]), A, B), (0, 1)),
        (kde_loo_loglik, (-0.5, nrm(size=7)), (0, 1)),
        (negbin_regression, (0.2 * nrm(size=3), -0.5, Xc, rng.poisson(2.0, 8) * 1.0), (0, 1)),
        (sinusoid_fit, (np.array([1.2, 0.4, 0.3]), t, np.sin(0.8 * np.pi * t)), (0,)),
        (damped_spring_verlet, (2.0, 0.3, 1.0), (0, 1, 2)),
        (smooth_max_logsumexp, (nrm(size=5), 3.0), (0, 1)),
        (sir_euler_fit, (math.log(0.6), math.log(0.2), np.linspace(0.01, 0.05, 6)), (0, 1)),
    ]


def residuals(seed=114):
    rng = np.random.default_rng(seed)
    return [
        (powell_residuals, (np.array([3.0, -1.0, 0.0, 1.0]),)),
        (box3d_residuals, (np.array([0.5, 8.0, 1.5]),)),
        (broyden_tridiagonal_residuals, (-np.ones(5) + 0.1 * rng.normal(size=5),)),
        (jennrich_residuals_loop, (np.array([0.3, 0.4]),)),
        (helical_residuals, (np.array([-1.0, 0.3, 0.2]),)),
    ]


def more(seed=1441):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(5, 2))
    Xc = nrm(size=(6, 3))
    r0 = np.random.default_rng(0)       # no ReLU or pooling tie within the differences' step
    cnn_args = (r0.normal(size=(2, 2)), r0.normal(size=(5, 6)))
    return [
        (rosen_by_scipy, (nrm(size=5),), (0,)),
        (gp_nlml_cho_factor, (0.1, X, nrm(size=5)), (0, 2)),
        (gp_nlml_cho_factor_kept, (-0.2, X, nrm(size=5)), (0, 2)),
        (gp_nlml_solve_triangular, (0.1, X, nrm(size=5)), (0, 2)),
        (logistic_log_expit, (nrm(size=3), Xc, (nrm(size=6) > 0) * 1.0), (0,)),
        (heat_by_convolve, (nrm(size=7),), (0,)),
        (nbody_potential_fill_diagonal, (nrm(size=(4, 2)), np.array([1.0, 2.0, 0.5, 1.5])),
         (0, 1)),
        (black_scholes_norm_cdf, (105.0, 0.3), (0, 1)),
        (cnn_sliding_windows, cnn_args, (0, 1)),
        (attention_neg_inf_mask, (nrm(size=(3, 2)), nrm(size=(3, 2)), nrm(size=(4, 3))), (0, 1, 2)),
        (xent_take_along_axis, (nrm(size=(3, 4)), Xc, rng.integers(0, 4, 6)), (0,)),
        (mgh_brown_almost_linear, (0.5 + 0.1 * nrm(size=5),), (0,)),
        (poisson_by_scipy_stats, (0.2 * nrm(size=2), X, rng.poisson(2, 5)), (0,)),
        (mixture_by_norm_logpdf, (nrm(size=3), nrm(size=6)), (0,)),
        (mgh_biggs_exp6, (np.array([1.0, 2.0, 1.0, 1.0, 1.0, 1.0]),), (0,)),
        (mgh_osborne1, (np.array([0.5, 1.5, -1.0, 0.01, 0.02]),), (0,)),
        (mgh_gulf, (np.array([5.0, 2.5, 0.15]),), (0,)),
        (survival_cumprod, (nrm(size=5),), (0,)),
    ]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(mgh() + cutest() + models() + more(), sys.argv[1:])
