"""Held-out corpus #24: everyday models in areas corpora 5-23 did not cover, written the way a
NumPy user writes them after reading the README only (dicts of parameters, tuples, list
comprehensions, helpers, early returns, while loops to convergence, keepdims, broadcasting,
fancy indexing, math.* functions), and the forms earlier sessions left refused: matrix norms
by singular values at second order (np.linalg.norm(A, 2) / 'nuc'), functools.reduce with a
number as its start over arrays, np.squeeze without axis=, x[np.nonzero(m)] /
x[np.where(m)], zip(*rows) of tuples, np.logaddexp.accumulate, f-string dict keys.
Areas: an Euler-Bernoulli beam FEM energy, a CTC-like forward recursion in log space, a
Bayesian linear regression evidence, a Cox partial likelihood, a 2PL item-response model,
Bradley-Terry ratings, a Hawkes process log-likelihood, a two-compartment pharmacokinetic
fit, Arrhenius kinetics, ListNet ranking, word2vec negative sampling, matrix completion with a
nuclear-norm penalty, a spectrally normalized layer, a masked attention block, a Student-t
regression, a Heston-like Monte Carlo with fixed normals, a mixture-density network loss.
Written for this corpus (none copied from earlier corpora or other projects).

`cases()` holds the scalar functions with their arguments and wrt (their gradients);
`jacobians()` vector functions for jacfwd / jacrev / jvp; `HESSIANS` names cases checked by
hessian / hvp too (tests/test_heldout24.py); `refused_forms()` the forms refused on purpose.

`python -m tests.heldout24_funcs [--backend python] [-v] [names...]` runs each gradient case
through the compiled path and eager mode against central finite differences
(tests/harness.py `triage`)."""
import functools
import math
import operator

import numpy as np
from scipy.special import gammaln, logsumexp

# -- (a) mechanics and physics ------------------------------------------------------------------


def _beam_element(EI, L):
    k = EI / L ** 3 * np.array([[12.0, 6 * L, -12.0, 6 * L],
                                [6 * L, 4 * L * L, -6 * L, 2 * L * L],
                                [-12.0, -6 * L, 12.0, -6 * L],
                                [6 * L, 2 * L * L, -6 * L, 4 * L * L]])
    return k


def beam_fem_energy(u, EI, q, L=0.5):
    """Strain energy minus load work of a cantilever in Euler-Bernoulli elements (u: the free
    nodes' deflections and rotations, interleaved)."""
    n_el = EI.shape[0]
    full = np.concatenate([np.zeros(2), u])
    energy = 0.0
    for e in range(n_el):
        dofs = full[2 * e:2 * e + 4]
        K = _beam_element(EI[e], L)
        energy += 0.5 * dofs @ K @ dofs
    work = np.sum(q * full[0::2]) * L
    return energy - work


def spring_chain_energy(x, k, rest):
    """A chain of springs between walls at 0 and len(x) + 1, nonlinear (quartic) stiffening."""
    pos = np.concatenate(([0.0], x, [float(x.shape[0] + 1)]))
    ext = np.diff(pos) - rest
    return np.sum(0.5 * k * ext ** 2 + 0.1 * ext ** 4)


def arrhenius_fit(params, T, rate):
    logA, Ea = params["logA"], params["Ea"]
    R = 8.314e-3
    pred = logA - Ea / (R * T)
    return np.mean((pred - np.log(rate)) ** 2)


def pk_two_compartment(theta, times, conc, dose=100.0):
    ka, ke, V = np.exp(theta)
    dt = 0.05
    gut, central = dose, 0.0
    t = 0.0
    sse = 0.0
    i = 0
    while i < times.shape[0]:
        while t < times[i] - 1e-9:
            absorbed = ka * gut * dt
            gut = gut - absorbed
            central = central + absorbed - ke * central * dt
            t += dt
        sse += (central / V - conc[i]) ** 2
        i += 1
    return sse


# -- (b) sequences and time ---------------------------------------------------------------------


def ctc_forward(logits, labels):
    """-log p(labels | logits) of a CTC-like alignment (blank 0), the forward recursion in log
    space with np.logaddexp."""
    T = logits.shape[0]
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    ext = [0]
    for l in labels:
        ext += [int(l), 0]
    S = len(ext)
    neg = -1e30
    alpha = [neg] * S
    alpha[0] = logp[0, ext[0]]
    alpha[1] = logp[0, ext[1]]
    for t in range(1, T):
        new = []
        for s in range(S):
            a = alpha[s]
            if s >= 1:
                a = np.logaddexp(a, alpha[s - 1])
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2]:
                a = np.logaddexp(a, alpha[s - 2])
            new.append(a + logp[t, ext[s]])
        alpha = new
    return -np.logaddexp(alpha[-1], alpha[-2])


def ctc_forward_appends(logits, labels):
    """`ctc_forward` with its first column built by appends (a list written and then rebound
    in the loop was refused there; both forms are cases now)."""
    T = logits.shape[0]
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    ext = [0]
    for l in labels:
        ext += [int(l), 0]
    S = len(ext)
    alpha = [logp[0, ext[0]], logp[0, ext[1]]]
    for _ in range(2, S):
        alpha.append(-1e30)
    for t in range(1, T):
        new = []
        for s in range(S):
            a = alpha[s]
            if s >= 1:
                a = np.logaddexp(a, alpha[s - 1])
            if s >= 2 and ext[s] != 0 and ext[s] != ext[s - 2]:
                a = np.logaddexp(a, alpha[s - 2])
            new.append(a + logp[t, ext[s]])
        alpha = new
    return -np.logaddexp(alpha[-1], alpha[-2])


def hawkes_loglik(params, events, T_end):
    mu, alpha, beta = params
    ll = 0.0
    A = 0.0
    prev = None
    for t in events:
        if prev is not None:
            A = math.exp(-beta * (t - prev)) * (1.0 + A)
        ll += math.log(mu + alpha * A)
        prev = t
    comp = mu * T_end + alpha / beta * np.sum(1.0 - np.exp(-beta * (T_end - events)))
    return comp - ll


def hmm_forward_scaled(log_pi, log_A, log_B, obs):
    pi = np.exp(log_pi - logsumexp(log_pi))
    A = np.exp(log_A - logsumexp(log_A, axis=1, keepdims=True))
    B = np.exp(log_B - logsumexp(log_B, axis=1, keepdims=True))
    alpha = pi * B[:, obs[0]]
    ll = 0.0
    for t in range(1, len(obs)):
        c = alpha.sum()
        ll += np.log(c)
        alpha = (alpha / c) @ A * B[:, obs[t]]
    return -(ll + np.log(alpha.sum()))


def stochastic_vol_filter(params, r):
    """A Gaussian-approximation filter of a log-variance AR(1) (quasi-likelihood)."""
    mu, phi, sig = params["mu"], math.tanh(params["phi_raw"]), math.exp(params["log_sig"])
    m, P = mu, sig ** 2 / (1 - phi ** 2)
    nll = 0.0
    for t in range(r.shape[0]):
        m, P = mu + phi * (m - mu), phi ** 2 * P + sig ** 2
        y = np.log(r[t] ** 2 + 1e-8)
        S = P + np.pi ** 2 / 2
        v = y - (m - 1.27)
        nll += 0.5 * (math.log(2 * math.pi * S) + v ** 2 / S)
        K = P / S
        m, P = m + K * v, (1 - K) * P
    return nll


def lotka_volterra_rk4(theta, y0, obs, dt=0.1):
    a, b, c, d = theta

    def f(z):
        x, y = z
        return np.array([a * x - b * x * y, c * x * y - d * y])

    z = y0
    loss = 0.0
    for k in range(obs.shape[0]):
        k1 = f(z)
        k2 = f(z + 0.5 * dt * k1)
        k3 = f(z + 0.5 * dt * k2)
        k4 = f(z + dt * k3)
        z = z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        loss += np.sum((z - obs[k]) ** 2)
    return loss


# -- (c) statistics -----------------------------------------------------------------------------


def bayes_linreg_evidence(log_alpha, log_beta, X, y):
    alpha, beta = np.exp(log_alpha), np.exp(log_beta)
    N, M = X.shape
    A = alpha * np.eye(M) + beta * X.T @ X
    L = np.linalg.cholesky(A)
    m = beta * np.linalg.solve(A, X.T @ y)
    E = beta / 2 * np.sum((y - X @ m) ** 2) + alpha / 2 * m @ m
    logdet = 2 * np.sum(np.log(np.diag(L)))
    return -(M / 2 * log_alpha + N / 2 * log_beta - E - 0.5 * logdet - N / 2 * math.log(2 * math.pi))


def gp_marginal_cholesky(log_ls, log_sf, log_sn, X, y):
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(2 * log_sf) * np.exp(-0.5 * d2 / np.exp(2 * log_ls))
    K = K + (np.exp(2 * log_sn) + 1e-8) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    a = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ a + np.sum(np.log(np.diag(L)))


def cox_partial_likelihood(beta, X, times, events):
    order = np.argsort(-times)
    eta = X[order] @ beta
    ev = events[order]
    log_risk = np.logaddexp.accumulate(eta)
    return -np.sum((eta - log_risk) * ev)


def cox_partial_cumsum(beta, X, times, events):
    order = np.argsort(-times)
    eta = X[order] @ beta
    ev = events[order]
    m = np.max(eta)
    log_risk = np.log(np.cumsum(np.exp(eta - m))) + m
    return -np.sum((eta - log_risk) * ev)


def irt_2pl(ability, disc, diff, responses):
    logits = disc[None, :] * (ability[:, None] - diff[None, :])
    ll = responses * logits - np.logaddexp(0.0, logits)
    prior = -0.5 * np.sum(ability ** 2)
    return -(np.sum(ll) + prior)


def bradley_terry(ratings, games):
    nll = 0.0
    for winner, loser in games:
        d = ratings[winner] - ratings[loser]
        nll += math.log1p(math.exp(-d))
    return nll + 0.01 * np.sum(ratings ** 2)


def student_t_regression(w, log_sigma, X, y, nu=4.0):
    r = (y - X @ w) / np.exp(log_sigma)
    ll = (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - log_sigma
          - (nu + 1) / 2 * np.log1p(r ** 2 / nu))
    return -np.sum(ll)


def mdn_loss(params, x, y):
    h = np.tanh(params["W1"] @ x + params["b1"])
    logits = params["Wp"] @ h
    mu = params["Wm"] @ h
    log_s = params["Ws"] @ h
    log_pi = logits - logsumexp(logits)
    comp = -0.5 * ((y - mu) / np.exp(log_s)) ** 2 - log_s - 0.5 * np.log(2 * np.pi)
    return -logsumexp(log_pi + comp)


def heston_mc(v0, kappa, theta, xi, Z1, Z2, rho=-0.6, dt=0.02, K=1.0):
    n_paths, n_steps = Z1.shape
    S = np.ones(n_paths)
    v = np.full(n_paths, v0)
    for t in range(n_steps):
        vp = np.maximum(v, 0.0)
        dW2 = rho * Z1[:, t] + math.sqrt(1 - rho ** 2) * Z2[:, t]
        S = S * np.exp(-0.5 * vp * dt + np.sqrt(vp * dt) * Z1[:, t])
        v = v + kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * dW2
    payoff = np.log1p(np.exp(10.0 * (S - K))) / 10.0
    return np.mean(payoff)


def bayes_logistic_laplace(w, X, y, prior_prec=1.0):
    z = X @ w
    p = 1 / (1 + np.exp(-z))
    nll = -np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)) + 0.5 * prior_prec * w @ w
    H = (X.T * (p * (1 - p))) @ X + prior_prec * np.eye(w.shape[0])
    sign, logdet = np.linalg.slogdet(H)
    return nll + 0.5 * logdet


# -- (d) learning -------------------------------------------------------------------------------


def sinkhorn_distance(log_a, log_b, C, eps=0.5, tol=1e-10):
    a = np.exp(log_a) / np.sum(np.exp(log_a))
    b = np.exp(log_b) / np.sum(np.exp(log_b))
    K = np.exp(-C / eps)
    u = np.ones_like(a)
    it = 0
    while it < 200:
        v = b / (K.T @ u)
        u_new = a / (K @ v)
        if np.max(np.abs(u_new - u)) < tol:
            u = u_new
            break
        u = u_new
        it += 1
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


def triplet_margin(emb, anchors, positives, negatives, margin=0.5):
    losses = []
    for a, p, n in zip(anchors, positives, negatives):
        dp = np.sum((emb[a] - emb[p]) ** 2)
        dn = np.sum((emb[a] - emb[n]) ** 2)
        losses.append(max(dp - dn + margin, 0.0))
    return sum(losses) / len(losses)


def listnet_loss(w, X, rel):
    scores = X @ w
    p_true = np.exp(rel) / np.sum(np.exp(rel))
    log_p = scores - logsumexp(scores)
    return -np.sum(p_true * log_p)


def word2vec_negative(W_in, W_out, center, context, negatives):
    v = W_in[center]
    pos = np.dot(W_out[context], v)
    loss = np.logaddexp(0.0, -pos)
    for k in negatives:
        loss += np.logaddexp(0.0, W_out[k] @ v)
    return loss


def masked_attention(params, X, mask):
    Q, K, V = X @ params["Wq"], X @ params["Wk"], X @ params["Wv"]
    d = Q.shape[-1]
    scores = Q @ K.T / math.sqrt(d)
    scores = np.where(mask, scores, -1e9)
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    A = np.exp(scores)
    A = A / np.sum(A, axis=-1, keepdims=True)
    out = A @ V
    return np.sum(np.tanh(out) ** 2)


def matrix_completion(U, V, R, observed, lam=0.1):
    P = U @ V.T
    err = (P - R)[observed]
    return 0.5 * np.sum(err ** 2) + lam * np.linalg.norm(P, "nuc")


def spectral_norm_layer(W, x, target):
    sigma = np.linalg.norm(W, 2)
    h = np.tanh((W / sigma) @ x)
    return np.sum((h - target) ** 2) + 0.1 * sigma ** 2


def contrastive_infonce(Z1, Z2, tau=0.5):
    Z1 = Z1 / np.linalg.norm(Z1, axis=1, keepdims=True)
    Z2 = Z2 / np.linalg.norm(Z2, axis=1, keepdims=True)
    S = Z1 @ Z2.T / tau
    return -np.mean(np.diag(S) - logsumexp(S, axis=1))


# -- (e) the forms left refused (both modes) and their neighbours ---------------------------------


def reduce_vector_from_zero(x, Ws):
    h = functools.reduce(lambda acc, W: acc + np.tanh(W @ x), [Ws[0], Ws[1], Ws[2]], 0.0)
    return np.sum(h ** 2)


def reduce_stack_of_layers(x, W):
    h = functools.reduce(lambda acc, k: acc + np.sin(W[k] @ x) * (k + 1), (0, 1, 2), 0.0)
    return np.sum(h ** 2) + functools.reduce(operator.mul, [x[0], x[1], 2.0], 1.0)


def repeated_name_item(x):
    lo = -math.inf
    best = [lo] * x.shape[0]
    run = -1e30
    for i in range(x.shape[0]):
        run = max(run, x[i])
        best[i] = run
    scale = [0.5] * 2
    return sum(best) * scale[0] + best[-1] * x[0]


def reduce_ensemble_average(w, X, y):
    preds = [X @ (w * s) for s in (1.0, 0.5, 2.0)]
    avg = functools.reduce(lambda a, p: a + p / 3.0, preds, 0.0)
    return np.mean((avg - y) ** 2)


def squeeze_column(x, W):
    col = (W @ x)[:, None]
    s = np.sum(W, axis=1, keepdims=True)
    return np.sum(np.squeeze(col) * np.squeeze(s))  # ERR: squeeze() needs axis=


def selected_returns(w, R, keep):
    idx = np.nonzero(keep)
    port = R[:, idx[0]] @ w[idx[0]]
    return -np.mean(port) + 2.0 * np.var(port)


def positive_part_where(x):
    pos = np.where(x > 0.0)
    return np.sum(np.log1p(x[pos])) + np.sum(x ** 2)


def nonzero_rows_and_entries(X, weights):
    active = np.nonzero(weights)
    Xa = X[active]
    big = X[np.where(np.abs(X) > 0.5)]
    return np.sum(Xa ** 2 * weights[active][:, None]) + np.sum(np.sin(big)) * len(active[0])


def zip_star_transpose(a, b):
    rows = [(a, b * a), (b, a + b), (a * b, 2.0)]
    xs, ys = zip(*rows)
    return sum(xs) * sum(ys)


def running_logsumexp(x):
    return np.sum(np.logaddexp.accumulate(x))


def fstring_layer_params(Ws, x):
    params = {}
    for i in range(len(Ws)):
        params[f"W{i}"] = Ws[i]  # ERR: f-string
    h = x
    for i in range(len(Ws)):
        h = np.tanh(params[f"W{i}"] @ h)
    return np.sum(h)


def nested_terms_through_name(x):
    def terms(v):
        out = []
        for k in range(v.shape[0]):
            out.append(np.sin(v[k]) ** 2)
        return out
    ts = terms(x)
    return sum(ts)


def params_dict_tuple_loop(params, x):
    h = x
    for W, b in params["layers"]:
        h = np.maximum(W @ h + b, 0.0)
    return np.sum(h ** 2)


def early_return_threshold(x, W):
    z = W @ x
    if np.max(z) > 5.0:
        return np.sum(z ** 2)
    norm = math.sqrt(np.sum(z ** 2) + 1e-9)
    return norm + np.sum(np.cos(z))


def fixed_point_sqrt(a):
    x = 1.0
    for _ in range(50):
        x_new = 0.5 * (x + a / x)
        if abs(x_new - x) < 1e-14:
            x = x_new
            break
        x = x_new
    return x * np.tanh(a)


def batch_norm_loss(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=0, keepdims=True)
    var = x.var(axis=0, keepdims=True)
    xh = (x - mu) / np.sqrt(var + eps)
    y = gamma * xh + beta
    return np.sum(y ** 3) / x.shape[0]


# -- cases --------------------------------------------------------------------------------------


def refused_forms():
    """Refused on purpose, both modes, at the marked line: np.squeeze without axis= (which axes
    have length one is not known when the front end reads it); f-strings as dict keys (keys are
    constants jitad reads in the source); functools.reduce with a number as its start over a comprehension's
    arrays (the accumulator is a number, then an array: its length is not known, so the first
    combination cannot be made before the loop; over a comprehension of a length known in the
    source, `reduce_ensemble_average`, a case since reach25). (A list written by index (`alpha[0] = v`)
    and rebound to another list in a later loop, `ctc_forward`, is a case since lead24:
    `list_edits.written_before_rebound`.)"""
    rng = np.random.default_rng(240)
    x = np.array([0.3, -0.6, 0.9, 0.2, -1.1])
    X = rng.normal(size=(5, 3))
    return [(squeeze_column, (x[:3], np.ones((2, 3)))),
            (fstring_layer_params, ([np.eye(3), np.ones((2, 3))], x[:3]))]


def jacobians(seed=2424):
    rng = np.random.default_rng(seed)
    return [(lv_trajectory, (np.array([1.0, 0.4, 0.3, 0.8]), np.array([1.2, 0.9])), 0),
            (svd_polar, (rng.normal(size=(3, 2)),), 0)]


def lv_trajectory(theta, y0):
    a, b, c, d = theta
    z = y0
    out = []
    for _ in range(3):
        x, y = z
        z = z + 0.1 * np.array([a * x - b * x * y, c * x * y - d * y])
        out.append(z[0])
    return np.array(out)


def svd_polar(A):
    return np.linalg.norm(A, "nuc") * A[0] + np.linalg.norm(A, 2) * A[1]


def cases(seed=24):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(7, 3))
    y = X @ np.array([0.5, -1.0, 0.3]) + 0.2 * nrm(size=7)
    T = np.array([300.0, 320.0, 340.0, 360.0, 380.0])
    rate = np.exp(5.0 - 40.0 / (8.314e-3 * T)) * (1 + 0.05 * nrm(size=5))
    Ws = [0.5 * nrm(size=(3, 3)) for _ in range(3)]
    mdn = {"W1": 0.5 * nrm(size=(4, 2)), "b1": 0.1 * nrm(size=4), "Wp": 0.5 * nrm(size=(3, 4)),
           "Wm": nrm(size=(3, 4)), "Ws": 0.3 * nrm(size=(3, 4))}
    att = {"Wq": 0.5 * nrm(size=(3, 2)), "Wk": 0.5 * nrm(size=(3, 2)), "Wv": nrm(size=(3, 2))}
    mask = np.tril(np.ones((4, 4), dtype=bool))
    layers = {"layers": [(0.5 * nrm(size=(4, 3)), 0.1 * nrm(size=4)),
                         (0.5 * nrm(size=(2, 4)), 0.1 * nrm(size=2))]}
    C = np.abs(nrm(size=(3, 4)))
    observed = rng.uniform(size=(4, 3)) < 0.7
    return [
        (beam_fem_energy, (0.01 * nrm(size=6), np.array([2.0, 1.5, 1.0]), np.array([1.0, 0.5, 0.2, 0.1])),
         (0, 1)),
        (spring_chain_energy, (np.array([1.1, 1.9, 3.2]), np.array([1.0, 2.0, 1.5, 0.5]), 0.9),
         (0, 1)),
        (arrhenius_fit, ({"logA": 4.5, "Ea": 38.0}, T, rate), (0,)),
        (pk_two_compartment, (np.log(np.array([1.2, 0.3, 10.0])), np.array([0.5, 1.0, 2.0, 3.0]),
                              np.array([3.0, 5.5, 6.0, 4.8])), (0,)),
        (ctc_forward_appends, (nrm(size=(5, 3)), np.array([1, 2])), (0,)),
        (hawkes_loglik, ((0.5, 0.4, 1.5), np.array([0.3, 0.9, 1.1, 2.4, 3.0]), 4.0), (0,)),
        (hmm_forward_scaled, (nrm(size=2), nrm(size=(2, 2)), nrm(size=(2, 3)),
                              np.array([0, 2, 1, 1, 0])), (0, 1, 2)),
        (stochastic_vol_filter, ({"mu": -1.0, "phi_raw": 1.2, "log_sig": -1.0},
                                 0.1 * nrm(size=6)), (0,)),
        (lotka_volterra_rk4, (np.array([1.0, 0.4, 0.3, 0.8]), np.array([1.2, 0.9]),
                              np.array([[1.25, 0.85], [1.3, 0.82], [1.33, 0.8]])), (0, 1)),
        (bayes_linreg_evidence, (0.1, 1.0, X, y), (0, 1)),
        (gp_marginal_cholesky, (0.2, 0.1, -1.0, nrm(size=(5, 2)), nrm(size=5)), (0, 1, 2)),
        (cox_partial_cumsum, (0.3 * nrm(size=3), X, rng.uniform(1, 5, size=7),
                              np.array([1.0, 0, 1, 1, 0, 1, 1])), (0,)),
        (irt_2pl, (nrm(size=4), np.exp(0.3 * nrm(size=3)), nrm(size=3),
                   (rng.uniform(size=(4, 3)) < 0.5).astype(float)), (0, 1, 2)),
        (bradley_terry, (nrm(size=4), [(0, 1), (2, 1), (3, 0), (1, 3), (2, 0)]), (0,)),
        (student_t_regression, (nrm(size=3), -0.3, X, y), (0, 1)),
        (mdn_loss, (mdn, nrm(size=2), 0.4), (0,)),
        (heston_mc, (0.04, 1.5, 0.05, 0.3, nrm(size=(6, 5)), nrm(size=(6, 5))), (0, 1, 2, 3)),
        (bayes_logistic_laplace, (0.3 * nrm(size=3), X, (y > 0).astype(float)), (0,)),
        (sinkhorn_distance, (nrm(size=3), nrm(size=4), C), (0, 1, 2)),
        (triplet_margin, (nrm(size=(5, 2)), [0, 1, 2], [3, 4, 0], [4, 2, 1]), (0,)),
        (listnet_loss, (nrm(size=3), X, rng.uniform(0, 3, size=7)), (0,)),
        (word2vec_negative, (0.5 * nrm(size=(5, 3)), 0.5 * nrm(size=(5, 3)), 1, 3, [0, 2, 4]),
         (0, 1)),
        (masked_attention, (att, nrm(size=(4, 3)), mask), (0, 1)),
        (matrix_completion, (nrm(size=(4, 2)), nrm(size=(3, 2)), nrm(size=(4, 3)), observed), (0, 1)),
        (spectral_norm_layer, (nrm(size=(3, 3)), nrm(size=3), 0.3 * nrm(size=3)), (0,)),
        (contrastive_infonce, (nrm(size=(4, 3)), nrm(size=(4, 3))), (0, 1)),
        (reduce_vector_from_zero, (nrm(size=3), Ws), (0, 1)),
        (reduce_stack_of_layers, (nrm(size=3), 0.5 * nrm(size=(3, 3, 3))), (0, 1)),
        (repeated_name_item, (nrm(size=5),), (0,)),
        (selected_returns, (nrm(size=4), 0.1 * nrm(size=(6, 4)), np.array([1, 0, 1, 1])), (0,)),
        (positive_part_where, (nrm(size=5),), (0,)),
        (running_logsumexp, (nrm(size=5),), (0,)),
        (cox_partial_likelihood, (0.3 * nrm(size=3), X, rng.uniform(1, 5, size=7),
                                  np.array([1.0, 0, 1, 1, 0, 1, 1])), (0,)),
        (nonzero_rows_and_entries, (nrm(size=(4, 3)), np.array([1.0, 0.0, 2.0, 1.0])), (0,)),
        (params_dict_tuple_loop, (layers, nrm(size=3)), (0, 1)),
        (early_return_threshold, (nrm(size=3), 0.5 * nrm(size=(2, 3))), (0, 1)),
        (fixed_point_sqrt, (2.3,), (0,)),
        (batch_norm_loss, (nrm(size=(5, 3)), 1.0 + 0.1 * nrm(size=3), 0.1 * nrm(size=3)),
         (0, 1, 2)),
        (zip_star_transpose, (0.7, -0.4), (0, 1)),
        (nested_terms_through_name, (np.array([0.4, -0.9, 1.3, 0.2]),), (0,)),
        (reduce_ensemble_average, (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)),
         (0,)),
        (ctc_forward, (np.array([[0.2, -0.5, 1.1], [0.7, 0.1, -0.3], [-0.4, 0.9, 0.2],
                                  [0.3, 0.3, -1.0], [1.2, -0.6, 0.4]]), np.array([1, 2])), (0,)),
    ]


HESSIANS = ["spring_chain_energy", "beam_fem_energy", "matrix_completion", "spectral_norm_layer",
            "gp_marginal_cholesky", "student_t_regression", "irt_2pl", "reduce_stack_of_layers",
            "bradley_terry", "bayes_linreg_evidence", "listnet_loss"]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
