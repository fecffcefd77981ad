"""Held-out models written the way a user who read the README would write them
(tests/test_models.py). Plain math/NumPy, within docs/language.md; where a construct is
refused the model is rewritten inside the subset and the refusal is recorded in
/work/scratch/models-report.md.
"""
import math

import numpy as np

# ---------------------------------------------------------------------------
# ADBench GMM (Srajer, Baydin, Fitzgibbon 2018) with the Wishart prior
# ---------------------------------------------------------------------------


def gmm_logsumexp(v):
    mx = np.max(v)
    return math.log(np.sum(np.exp(v - mx))) + mx


def gmm_construct_L(d, icf_k):
    # lower-triangular factor, ADBench's column-major packing of the off-diagonal
    L = np.zeros((d, d))
    idx = d
    for j in range(d):
        for i in range(j + 1, d):
            L[i, j] = icf_k[idx]
            idx += 1
    return L


def gmm_objective(alphas, means, icf, x, wishart_gamma, wishart_m, log_gamma_const):
    n = x.shape[0]
    d = x.shape[1]
    K = alphas.shape[0]
    Qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    slse = 0.0
    for i in range(n):
        main_term = np.zeros(K)
        for k in range(K):
            L = gmm_construct_L(d, icf[k])
            xc = x[i] - means[k]
            Qxc = Qdiags[k] * xc + L @ xc
            main_term[k] = alphas[k] + sum_qs[k] - 0.5 * np.sum(Qxc * Qxc)
        slse += gmm_logsumexp(main_term)
    CONSTANT = -n * d * 0.5 * math.log(2.0 * math.pi)
    # Wishart prior
    wn = d + wishart_m + 1.0
    prior = 0.0
    for k in range(K):
        frobenius = np.sum(Qdiags[k] * Qdiags[k]) + np.sum(icf[k, d:] * icf[k, d:])
        prior += 0.5 * wishart_gamma * wishart_gamma * frobenius - wishart_m * sum_qs[k]
    C = wn * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - log_gamma_const
    return CONSTANT + slse - n * gmm_logsumexp(alphas) + prior - K * C


# ---------------------------------------------------------------------------
# ADBench LSTM
# ---------------------------------------------------------------------------


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_model(weight, bias, hidden, cell, inp):
    hsize = hidden.shape[0]
    gates = np.concatenate((inp, hidden, inp, hidden)) * weight + bias
    forget = sigmoid(gates[0:hsize])
    ingate = sigmoid(gates[hsize:2 * hsize])
    outgate = sigmoid(gates[2 * hsize:3 * hsize])
    change = np.tanh(gates[3 * hsize:])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def lstm_predict(w, w2, s, x):
    s2 = s.copy()
    x = x * w2[0]
    for i in range(0, s.shape[0], 2):
        h, c = lstm_model(w[i], w[i + 1], s[i], s[i + 1], x)
        # ADBench writes (s2[i], s2[i+1]) = lstm_model(...): subscript tuple targets are
        # refused (lstm_predict_tuple_targets below), so two writes
        s2[i] = h
        s2[i + 1] = c
        x = s2[i]       # the row read back as a view; the next iteration writes s2 again
    return x * w2[1] + w2[2], s2


def lstm_objective(main_params, extra_params, state, sequence):
    total = 0.0
    count = 0
    inp = sequence[0]
    for t in range(sequence.shape[0] - 1):
        ypred, state = lstm_predict(main_params, extra_params, state, inp)
        ynorm = ypred - math.log(np.sum(np.exp(ypred)))
        ygold = sequence[t + 1]
        total += np.sum(ygold * ynorm)
        count += ygold.shape[0]
        inp = ygold
    return -total / count


def lstm_layer_state(state, l):
    return state[2 * l], state[2 * l + 1]


def lstm_residual_helper(main_params, extra_params, state0, sequence):
    """The LSTM with the state updated in place and a residual connection; the previous state
    rows come from a helper, so h_prev is a view of `state` and sees the new h after the write
    (in plain Python too: x is 1.5 h). At cb97153 the compiled gradient was silently wrong
    (the helper's result was taken for a copy); since 0d04c00 it is refused like the same code
    with h_prev = state[2 * l] inline. tests/test_models.py accepts a refusal or the right
    gradient."""
    layers = state0.shape[0] // 2
    state = state0.copy()
    total = 0.0
    for t in range(sequence.shape[0] - 1):
        x = sequence[t] * extra_params[0]
        for l in range(layers):
            h_prev, c_prev = lstm_layer_state(state, l)
            h, c = lstm_model(main_params[2 * l], main_params[2 * l + 1], h_prev, c_prev, x)
            state[2 * l] = h
            state[2 * l + 1] = c
            x = h + 0.5 * h_prev
        ypred = x * extra_params[1] + extra_params[2]
        ynorm = ypred - math.log(np.sum(np.exp(ypred)))
        total += np.sum(sequence[t + 1] * ynorm)
    return -total / (sequence.shape[0] - 1)


# ---------------------------------------------------------------------------
# ADBench bundle adjustment
# ---------------------------------------------------------------------------

ROT_IDX = 0
C_IDX = 3
F_IDX = 6
X0_IDX = 7
RAD_IDX = 9


def cross(a, b):
    c = np.zeros(3)
    c[0] = a[1] * b[2] - a[2] * b[1]
    c[1] = a[2] * b[0] - a[0] * b[2]
    c[2] = a[0] * b[1] - a[1] * b[0]
    return c


def rodrigues_rotate_point(rot, X):
    sqtheta = np.sum(rot * rot)
    if sqtheta != 0.0:
        theta = math.sqrt(sqtheta)
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        theta_inverse = 1.0 / theta
        w = rot * theta_inverse
        w_cross_X = cross(w, X)
        tmp = np.dot(w, X) * (1.0 - costheta)
        return X * costheta + w_cross_X * sintheta + w * tmp
    else:
        return X + cross(rot, X)


def radial_distort(rad_params, proj):
    rsq = np.sum(proj * proj)
    L = 1.0 + rad_params[0] * rsq + rad_params[1] * rsq * rsq
    return proj * L


def project(cam, X):
    Xcam = rodrigues_rotate_point(cam[ROT_IDX:ROT_IDX + 3], X - cam[C_IDX:C_IDX + 3])
    distorted = radial_distort(cam[RAD_IDX:RAD_IDX + 2], Xcam[0:2] / Xcam[2])
    return distorted * cam[F_IDX] + cam[X0_IDX:X0_IDX + 2]


def ba_objective(cams, X, w, obs, feats):
    p = obs.shape[0]
    reproj_err = np.zeros((p, 2))
    w_err = np.zeros(p)
    for i in range(p):
        reproj_err[i] = (project(cams[obs[i, 0]], X[obs[i, 1]]) - feats[i]) * w[i]
        w_err[i] = 1.0 - w[i] * w[i]
    return np.sum(reproj_err * reproj_err) + np.sum(w_err * w_err)


# ---------------------------------------------------------------------------
# everyday models
# ---------------------------------------------------------------------------


def logistic_regression(w, b, X, y):
    z = X @ w + b
    # y in {0, 1}; log(1 + exp(-s z)) with s = 2y - 1
    s = 2.0 * y - 1.0
    return np.mean(np.log1p(np.exp(-s * z)))


def softmax_xent(W, b, X, labels):
    logits = X @ W + b
    n = X.shape[0]
    total = 0.0
    for i in range(n):
        row = logits[i]
        m = np.max(row)
        e = np.exp(row - m)
        total += -(row[labels[i]] - m - math.log(np.sum(e)))
    return total / n


def mlp_tanh(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    h2 = np.tanh(h @ W2 + b2)
    out = np.sum(h2, axis=1)
    return np.mean((out - y) ** 2)


def gru_loss(Wz, Uz, Wr, Ur, Wh, Uh, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        x = xs[t]
        z = sigmoid(Wz @ x + Uz @ h)
        r = sigmoid(Wr @ x + Ur @ h)
        hh = np.tanh(Wh @ x + Uh @ (r * h))
        h = (1.0 - z) * h + z * hh
    return np.sum(h * h)


def rnn_loss(Wx, Wh, b, xs, targets):
    h = np.zeros(Wh.shape[0])
    loss = 0.0
    t = 0
    for x in xs:
        h = np.tanh(Wx @ x + Wh @ h + b)
        loss += (np.sum(h) - targets[t]) ** 2
        t += 1
    return loss


def kalman_nll(q, r, ys, F, H, x0):
    n = x0.shape[0]
    x = x0.copy()
    P = np.zeros((n, n))
    Q = np.zeros((n, n))
    for i in range(n):
        P[i, i] = 1.0
        Q[i, i] = q
    nll = 0.0
    for t in range(ys.shape[0]):
        x = F @ x
        P = F @ P @ F.T + Q
        yhat = np.dot(H, x)
        S = np.dot(H, P @ H) + r
        v = ys[t] - yhat
        nll += 0.5 * (math.log(2.0 * math.pi * S) + v * v / S)
        K = P @ H / S
        x = x + K * v
        P = P - np.outer(K, H @ P)
    return nll


def kalman_scalar(a, q, r, ys):
    m = 0.0
    P = 1.0
    nll = 0.0
    for y in ys:
        m = a * m
        P = a * a * P + q
        S = P + r
        v = y - m
        nll += 0.5 * (math.log(2.0 * math.pi * S) + v * v / S)
        K = P / S
        m = m + K * v
        P = (1.0 - K) * P
    return nll


def erf_approx(x):
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7). It reassigns its parameter (x = -x): called
    # outside a loop (norm_cdf), the compiled gradient for x < 0 is wrong (see the report)
    sign = 1.0
    if x < 0.0:
        sign = -1.0
        x = -x
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * math.exp(-x * x)
    return sign * y


def norm_cdf(x):
    return 0.5 * (1.0 + erf_approx(x / math.sqrt(2.0)))


def black_scholes_call(S, K, T, r, sigma):
    sqrtT = math.sqrt(T)
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


def cholesky(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        s = A[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / L[j, j]
    return L


def solve_lower(L, b):
    n = L.shape[0]
    z = np.zeros(n)
    for i in range(n):
        s = b[i]
        for k in range(i):
            s -= L[i, k] * z[k]
        z[i] = s / L[i, i]
    return z


def gp_nll(log_ell, log_sf, log_sn, X, y):
    n = X.shape[0]
    ell = math.exp(log_ell)
    sf2 = math.exp(2.0 * log_sf)
    sn2 = math.exp(2.0 * log_sn)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            diff = X[i] - X[j]
            K[i, j] = sf2 * math.exp(-0.5 * np.dot(diff, diff) / (ell * ell))
        K[i, i] += sn2
    L = cholesky(K)
    z = solve_lower(L, y)
    logdet = 0.0
    for i in range(n):
        logdet += math.log(L[i, i])
    return 0.5 * np.dot(z, z) + logdet + 0.5 * n * math.log(2.0 * math.pi)


def lotka_volterra(u, theta):
    du = np.zeros(2)
    du[0] = theta[0] * u[0] - theta[1] * u[0] * u[1]
    du[1] = -theta[2] * u[1] + theta[3] * u[0] * u[1]
    return du


def ode_rk4_loss(theta, u0, target, dt, nsteps):
    u = u0.copy()
    for k in range(nsteps):
        k1 = lotka_volterra(u, theta)
        k2 = lotka_volterra(u + 0.5 * dt * k1, theta)
        k3 = lotka_volterra(u + 0.5 * dt * k2, theta)
        k4 = lotka_volterra(u + dt * k3, theta)
        u = u + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum((u - target) ** 2)


def ode_euler_loss(k, x0, dt, nsteps):
    x = x0
    v = 0.0
    for i in range(nsteps):
        a = -k * x - 0.1 * v
        x = x + dt * v
        v = v + dt * a
    return x * x + v


def projectile_range(v0, angle, drag, dt):
    # explicit Euler until the projectile hits the ground: the number of steps depends on the
    # data; the last step is interpolated so the range is smooth in the parameters
    x = 0.0
    y = 0.0
    vx = v0 * math.cos(angle)
    vy = v0 * math.sin(angle)
    t = 0.0
    while y >= 0.0:
        speed = math.sqrt(vx * vx + vy * vy)
        ax = -drag * speed * vx
        ay = -9.81 - drag * speed * vy
        xn = x + dt * vx
        yn = y + dt * vy
        vx = vx + dt * ax
        vy = vy + dt * ay
        if yn < 0.0:
            frac = y / (y - yn)
            return x + frac * (xn - x) + 0.0 * t
        x = xn
        y = yn
        t += dt
    return x


def newton_cuberoot_loss(a, b):
    # x solves x**3 + a x - b = 0; the objective uses the solution
    x = 1.0
    fx = x ** 3 + a * x - b
    it = 0
    while abs(fx) > 1e-13 and it < 50:
        x = x - fx / (3.0 * x * x + a)
        fx = x ** 3 + a * x - b
        it += 1
    return x * x + a * x


def huber_loss(w, X, y, delta):
    r = X @ w - y
    total = 0.0
    for i in range(r.shape[0]):
        ri = r[i]
        if abs(ri) <= delta:
            total += 0.5 * ri * ri
        else:
            total += delta * (abs(ri) - 0.5 * delta)
    return total / r.shape[0]


def attention_loss(Wq, Wk, Wv, X):
    n = X.shape[0]
    d = Wq.shape[1]
    Q = X @ Wq
    Kx = X @ Wk
    V = X @ Wv
    S = Q @ Kx.T / math.sqrt(d)
    S = S - np.max(S, axis=1).reshape(n, 1)
    A = np.exp(S)
    A = A / np.sum(A, axis=1).reshape(n, 1)
    out = A @ V
    return np.sum(out * out)


def poisson_regression(w, b, X, y):
    eta = X @ w + b
    return np.sum(np.exp(eta) - y * eta) / X.shape[0]


def bpr_total(U, V, users, pos, neg, reg):
    total = 0.0
    for s in range(users.shape[0]):
        pu = U[users[s]]
        qi = V[pos[s]]
        qj = V[neg[s]]
        x = np.dot(pu, qi) - np.dot(pu, qj)
        total += math.log1p(math.exp(-x)) + reg * (np.dot(pu, pu) + np.dot(qi, qi) + np.dot(qj, qj))
    return total / users.shape[0]


# ---------------------------------------------------------------------------
# as first written, refused (kept to reproduce the refusals in the report)
# ---------------------------------------------------------------------------


def lstm_predict_tuple_targets(w, w2, s, x):
    # ADBench's (s2[i], s2[i+1]) = lstm_model(...): "tuple assignment targets must be plain names"
    s2 = s.copy()
    x = x * w2[0]
    for i in range(0, s.shape[0], 2):
        (s2[i], s2[i + 1]) = lstm_model(w[i], w[i + 1], s[i], s[i + 1], x)
        x = s2[i]
    return np.sum(x * w2[1] + w2[2]) + np.sum(s2)


def cross_np(a, b):
    # "np.cross has no derivative rule in jitad"; np.array([...]): "unsupported construct: list"
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def rodrigues_np_cross(rot, X):
    return np.sum(X + np.cross(rot, X))


def gmm_lgamma_inside(alphas, d, wishart_m):
    # "math.lgamma has no derivative rule in jitad" -> the constant is passed in
    a = 0.5 * (d + wishart_m + 1.0)
    return np.sum(alphas) - math.lgamma(a)


def black_scholes_call_erf(S, K, T, r, sigma):
    # math.erf: "math.erf has no derivative rule in jitad" -> erf_approx
    sqrtT = math.sqrt(T)
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    return (S * 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
            - K * math.exp(-r * T) * 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0))))


def projectile_range_while_true(v0, angle, drag, dt):
    # as first written: refused ("must return a value on every path": the `while True` loop
    # only leaves by return); rewritten as projectile_range
    x = 0.0
    y = 0.0
    vx = v0 * math.cos(angle)
    vy = v0 * math.sin(angle)
    t = 0.0
    while True:
        speed = math.sqrt(vx * vx + vy * vy)
        ax = -drag * speed * vx
        ay = -9.81 - drag * speed * vy
        xn = x + dt * vx
        yn = y + dt * vy
        vx = vx + dt * ax
        vy = vy + dt * ay
        if yn < 0.0:
            frac = y / (y - yn)
            return x + frac * (xn - x) + 0.0 * t
        x = xn
        y = yn
        t += dt


def rk_stage_buffers(theta, u0, dt, nsteps):
    # two state buffers swapped each step: "'b' may alias another array (it is assigned from a
    # view or another variable)"; rewritten with u = u + ... (ode_rk4_loss)
    a = u0.copy()
    b = np.zeros(2)
    for k in range(nsteps):
        b[0] = a[0] + dt * (theta[0] * a[0] - theta[1] * a[0] * a[1])
        b[1] = a[1] + dt * (-theta[2] * a[1] + theta[3] * a[0] * a[1])
        a, b = b, a
    return np.sum(a * a)


def normalize_rows_copy_param(X):
    # the refusal's own advice for writing into an argument, followed literally: "'X' is an
    # argument of normalize_rows_copy_param; jitad only writes into arrays the function creates
    # (e.g. X = X.copy() or np.zeros(...))"; works as Y = X.copy()
    X = X.copy()
    for i in range(X.shape[0]):
        X[i] = X[i] / np.linalg.norm(X[i])
    return np.sum(X @ X.T)
