"""Held-out corpus #21: the surface of NumPy as people type it, and the control flow AD tools'
own test suites exercise, in forms corpora 15-20 did not use. (a) "test_systematic"-style:
ndarray methods with axis= / keepdims= / ddof= (x.sum, x.mean, x.std, x.var, x.prod, x.max,
x.min, x.cumsum, x.cumprod, x.dot, x.clip, x.T, x.reshape, x.flatten, x.ravel, x.squeeze,
x.transpose(1, 0, 2), x.astype, x.copy, x.trace, x.diagonal), broadcasting of every rank pair
through binary operators and np.maximum / np.minimum / np.where / np.power, negative-step and
ellipsis slices, boolean masks (x[x > 0], x * (x > 0), masked sums), integer-array gathers with
repeats, concatenate / stack / vstack / hstack / column_stack / block of mixed parts, tile, pad,
clip with array bounds, sort and argsort-then-gather, max / argmax with ties, abs at kinks
away from 0, sign and floor as constants; (b) the forms of Tangent / Zygote / Enzyme /
PyTorch-gradcheck tests: nested helpers with defaults and keyword calls, recursion (power by
squaring, a sum split in halves), while with break / continue in nested loops, an early return
from a for, for over zip / enumerate / reversed / range(a, b, -1), lists accumulated then
np.array(list) / sum(list), comprehensions, a lambda bound to a name, closures over module
constants, augmented operations on tuples; (c) everyday models (a Poisson GLM with an offset,
ordinal probit regression, Tukey's biweight regression, a small CNN by explicit loops, an
autoencoder, a VAE ELBO with the noise as argument, an RBF network, a Kalman filter
log-likelihood in 2-D, an HMM forward pass in log space, a Hawkes process log-likelihood,
matrix factorization with biases, a projectile with drag until it hits the ground, label-smoothed
softmax cross-entropy, a triplet loss). Written for this corpus (none copied from earlier
corpora or other projects).

`cases()` holds the scalar functions with their arguments and wrt (their gradients);
`jacobians()` vector functions for jacfwd / jacrev / jvp; `HESSIANS` names cases checked by
hessian / hvp too (tests/test_heldout21.py).

`python -m tests.heldout21_funcs [--backend python] [-v] [names...]` runs each gradient case
through the compiled path and eager mode against central finite differences
(tests/harness.py `triage`)."""
import math

import numpy as np
from scipy.special import expit, logsumexp, ndtr

# -- (a) the NumPy surface -------------------------------------------------------------------------


def method_reductions_keepdims(X):
    s = X.sum(axis=1, keepdims=True)
    m = X.mean(axis=0, keepdims=True)
    return np.sum((X - m) * s) + X.sum() + X.mean() + np.sum(X.max(axis=0, keepdims=True) * m)


def method_stats_ddof(X):
    return (X.std(ddof=1) + np.sum(X.var(axis=0)) + np.sum(X.std(axis=1, ddof=1))
            + X.var(ddof=1) + X.min() + np.sum(X.min(axis=1)))


def method_prod_cumulative(x):
    return (x.prod() + np.sum(x.cumsum() ** 2) + np.sum(x.cumprod())
            + x.reshape(2, 3).prod(axis=0)[1])


def method_shapes(T):
    A = T.transpose(1, 0, 2)
    B = A.reshape(3, 8)
    return (np.sum(B.T @ B[:, :2]) + T.flatten()[5] * T.ravel()[-1]
            + np.sum(T[:, :1, :].squeeze(axis=1) ** 2) + A.copy()[0, 1, 2])


def method_dot_trace_diagonal(A, x):
    y = A.dot(x)
    return (A.trace() + np.sum(A.diagonal() ** 2) + y.dot(y) + x.dot(A).dot(x)
            + np.sum(A.T.diagonal(1)))


def method_astype_clip_round(x, lo):
    k = x.astype(float)
    r = np.round(x * 3.0) / 3.0       # a constant: its derivative is 0 a.e.
    return np.sum(k.clip(-0.5, 0.6) ** 2) + np.sum(x.clip(lo, None) * x) + np.sum(r * x)


def broadcast_rank_pairs(s, v, R, C, M, T):
    # s scalar, v (n,), R (1, n), C (m, 1), M (m, n), T (k, m, n)
    a = s * v + R - C
    b = M * v + C * R
    c = T - M + v * s
    return np.sum(a * b) + np.sum(c ** 2) + np.sum(T / (2.0 + C))


def broadcast_maximum_where_power(M, C, v):
    a = np.maximum(M, C)
    b = np.minimum(v, M - 0.1)
    c = np.where(M > C, M * C, v ** 2)
    d = np.power(np.abs(M) + 1.0, v)
    e = np.power(2.0 + C, 1.5)
    return np.sum(a * b) + np.sum(c) + np.sum(d) + np.sum(e * M)


def slices_negative_ellipsis(x, T):
    return (np.sum(x[::-1] * x) + np.sum(x[1:-1:2] ** 2) + np.sum(T[..., 0] * T[..., -1])
            + np.sum(T[::-1, :, ::2]) * x[-2] + np.sum(T[1, ..., 1:]) + x[-1:-4:-1].dot(x[:3]))


def boolean_masks(x, M):
    pos = x[x > 0]
    relu = x * (x > 0)
    masked = np.sum(M[M < 0.3] ** 2)
    w = np.where(np.abs(x) > 0.5, x ** 3, -x)
    return np.sum(pos ** 2) + np.sum(relu) + masked + np.sum(w) + np.sum(x[M[0] > 0])


def integer_gathers(x, A):
    g = x[[0, 2, 1, 2]]
    idx = np.array([3, 3, 0, 1])
    rows = A[[2, 0, 2]]
    return (np.sum(g * g) + np.sum(x[idx] * np.arange(4.0)) + np.sum(rows ** 2)
            + np.sum(A[:, [1, 1]]))


def joins_mixed(x, M):
    a = np.concatenate([x, M.ravel(), [1.0, 2.0]])
    b = np.stack([x, x ** 2], axis=1)
    c = np.vstack([M, x])
    d = np.hstack([x, M[0]])
    e = np.column_stack([x[:3], M[:, 0], np.ones(3)])
    return np.sum(a ** 2) + np.sum(b[:, 0] * b[:, 1]) + np.sum(c ** 3) + np.sum(d) + np.sum(e @ M)


def block_tile_pad(A, B):
    K = np.block([[A, B], [B.T, np.eye(2)]])
    t = np.tile(A[0], 3)
    T2 = np.tile(B, (2, 1))
    p = np.pad(A, 1)
    return np.sum(K ** 2) + np.sum(t * np.arange(6.0)) + np.sum(T2 ** 2) + np.sum(p[1:, :-1])


def clip_array_bounds(x, lo, hi):
    return np.sum(np.clip(x, lo, hi) ** 2) + np.sum(np.clip(x, lo, None))


def clip_crossed_bounds(x, lo, hi):
    # some lower bounds above their upper bounds: NumPy gives the upper bound there
    return (np.sum(np.clip(x, lo, hi) ** 2) + np.sum(x.clip(lo, None))
            + np.sum(np.clip(x, None, hi) * x))


def prelude_surface(x, A):
    return (np.sum(np.diff(x, prepend=0.0) ** 2)
            + np.sum(np.diff(A, axis=0, append=A[:1] * 2.0) ** 2)
            + np.sum(np.ptp(A, axis=1) ** 2) + np.sum(np.diagflat(x[:3]) @ A[:, :3])
            + np.sum(np.logspace(0.0, x[0], 3)) + np.sum(x.take([0, 2, 2]) ** 2)
            + np.sum(A.take([1, 0], axis=1)))


def sort_argsort_gather(x, w):
    s = np.sort(x)
    order = np.argsort(x)
    ranked = w[order]
    return np.sum(s * np.arange(x.size)) + np.sum(ranked * x[order]) + np.sort(w)[::-1][0]


def max_argmax_ties(x, A):
    # np.max / np.min / x.max() at ties (the gradient split evenly, as central differences
    # see it); argmax / argmin of untied values, then gathered
    k = np.argmax(x * np.arange(1.0, 5.0))
    j = np.argmin(A + 0.01 * np.arange(3.0), axis=1)
    return (np.max(x) + x.max() + x[k] * 2.0 + np.sum(A[np.arange(3), j])
            + np.sum(np.max(A, axis=0)) + np.sum(np.min(A, axis=1)) + max(x[1], x[3]))


def sign_floor_abs(x):
    sg = np.sign(x)
    fl = np.floor(x * 2.0)
    return np.sum(sg * x ** 2) + np.sum(fl * x) + np.sum(np.abs(x - 0.05)) + np.sum(np.abs(x) * x)


def dot_ranks(s, v, A, T):
    # np.dot over rank pairs: scalar x array, matrix x vector, 3-D x vector, vector x vector
    return (np.sum(np.dot(s, A)) + np.sum(np.dot(A, v)) + np.sum(np.dot(T, v) ** 2)
            + np.dot(v, v) + np.sum(np.dot(A.T, A)))


def stat_axis_keepdims_combos(X):
    out = 0.0
    for ax in (None, 0, 1):
        out = out + np.sum(np.mean(X, axis=ax, keepdims=True) ** 2)
        out = out + np.sum(np.max(X, axis=ax, keepdims=True))
        out = out + np.sum(np.prod(X, axis=ax, keepdims=True))
    return out


def masked_mean_and_count(x, y):
    m = (y > 0.0)
    n = np.sum(m)
    return np.sum(x * m) / n + np.mean(x[~m]) + np.sum(np.where(m, x, 0.0) ** 2) / max(n, 1)


def operators_reflected(x, M):
    a = 2.0 - x
    b = 1.0 / (1.5 + x * x)
    c = (x ** 2) % 1.0 + 3.0 ** x
    d = -M @ x + abs(x) @ M.T
    return np.sum(a * b) + np.sum(c) + np.sum(d) + np.sum(+x) + float(np.sum(x @ M.T @ M))


# -- (b) AD tools' test forms ---------------------------------------------------------------------

SCALE = 0.5
COEFS = (1.0, -0.5, 0.25)


def _power(x, n):
    if n == 0:
        return 1.0
    if n % 2 == 0:
        h = _power(x, n // 2)
        return h * h
    return x * _power(x, n - 1)


def recursive_power(x, y):
    return _power(x, 5) + _power(y, 6) * x + _power(x * y, 3)


def _rsum(v, lo, hi):
    if hi - lo == 1:
        return v[lo] ** 2
    mid = (lo + hi) // 2
    return _rsum(v, lo, mid) + _rsum(v, mid, hi)


def recursive_halves(v):
    return _rsum(v, 0, v.shape[0]) * math.sin(v[0])


def nested_break_continue(x):
    total = 0.0
    for i in range(x.shape[0]):
        j = 0
        while True:
            j += 1
            if j > 5:
                break
            if j % 2 == 0:
                continue
            total = total + x[i] * j * math.cos(total * 0.1)
        if total > 4.0:
            break
    return total


def early_return_in_for(x, w):
    acc = 0.0
    for k in range(x.shape[0]):
        acc = acc + w * x[k] ** 2
        if acc > 2.5:
            return acc * x[k]
    return -acc


def loops_zip_enumerate_reversed(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b
    for i, a in enumerate(x):
        s = s + i * a ** 2
    for a in reversed(y):
        s = s * 0.9 + a
    for k in range(x.shape[0] - 1, 0, -1):
        s = s + x[k] * x[k - 1]
    return s


def list_accumulate_then_array(x):
    vals = []
    for i in range(x.shape[0]):
        vals.append(x[i] * x[(i + 1) % x.shape[0]])
    arr = np.array(vals)
    parts = [np.sin(x[i]) for i in range(x.shape[0])]
    return np.sum(arr ** 2) + sum(parts) + sum([a * a for a in x if a > 0])


def lambdas_closures_globals(x, w):
    act = lambda z: np.tanh(SCALE * z)
    poly = lambda t: COEFS[0] + COEFS[1] * t + COEFS[2] * t * t

    def inner(v, bias=0.1, *, gain=1.0):
        return gain * act(v * w + bias)
    return np.sum(poly(inner(x))) + np.sum(inner(x, gain=2.0)) + np.sum(inner(x, 0.3) ** 2)


def tuple_rebound(x, y):
    p = (x, y)
    q = (p[0] * 2.0, p[1] * 2.0, x * y)
    a, b, c = q
    t = (a + b, c)
    t = (t[0] * t[1], t[1] - 1.0)
    return t[0] + t[1] ** 2


def comprehension_enumerate_extend(x):
    # enumerate(..., start) inside comprehensions; a list grown by += and .extend of displays
    s = sum(i * v ** 2 for i, v in enumerate(x, 1))
    w = [v / k for k, v in enumerate(x, start=2) if v > -0.5]
    hs = []
    for v in x:
        hs.extend([v, np.sin(v)])
        hs += [v * v]
    return s + sum(w) + sum(hs) * hs[1]


def _helper_defaults(x, p=2.0, shift=0.0):
    return np.sum(np.abs(x - shift) ** p)


def _helper_calls_helper(x, scale=1.0):
    return scale * _helper_defaults(x, shift=0.2) + _helper_defaults(x * scale, p=3.0)


def nested_helpers_keywords(x):
    return _helper_calls_helper(x) + _helper_calls_helper(x, scale=0.5) + _helper_defaults(x)


def while_newton_sqrt(a):
    # Newton's iteration for sqrt(a) until converged: derivative through the fixed point
    x = a
    it = 0
    while abs(x * x - a) > 1e-12 and it < 50:
        x = 0.5 * (x + a / x)
        it += 1
    return x * a


# -- (c) everyday models --------------------------------------------------------------------------


def poisson_glm_offset(beta, X, y, exposure):
    eta = X @ beta + np.log(exposure)
    mu = np.exp(eta)
    return np.sum(mu - y * eta) + 0.01 * beta @ beta


def ordinal_probit(beta, cuts, X, y):
    # cut points as a first cut and positive increments
    th = np.concatenate([cuts[:1], cuts[:1] + np.cumsum(np.exp(cuts[1:]))])
    eta = X @ beta
    upper = np.concatenate([th, [np.inf]])
    lower = np.concatenate([[-np.inf], th])
    p = ndtr(upper[y] - eta) - ndtr(lower[y] - eta)
    return -np.sum(np.log(p))


def ordinal_logit_cuts(beta, X):
    # labels written out, read through `cuts[labels + 1]`; the outer cut points infinite
    labels = np.array([0, 1, 2, 1, 0, 2, 2, 1])
    cuts = np.array([-np.inf, -0.4, 0.7, np.inf])
    eta = X @ beta
    p = expit(cuts[labels + 1] - eta) - expit(cuts[labels] - eta)
    q = ndtr(cuts[labels + 1] - eta) - ndtr(cuts[labels] - eta)
    return -np.sum(np.log(p)) - 0.5 * np.sum(np.log(q))


def tukey_biweight(w, X, y, c):
    r = (y - X @ w) / c
    inside = np.abs(r) < 1.0
    rho = np.where(inside, 1.0 - (1.0 - r ** 2) ** 3, 1.0)
    return c * c / 6.0 * np.sum(rho)


def small_cnn_loops(K, W, img):
    # conv2d (valid, 3x3) -> relu -> 2x2 max pool -> dense
    H, Wd = img.shape
    oh, ow = H - 2, Wd - 2
    conv = np.zeros((oh, ow))
    for i in range(oh):
        for j in range(ow):
            conv[i, j] = np.sum(img[i:i + 3, j:j + 3] * K)
    act = np.maximum(conv, 0.0)
    ph, pw = oh // 2, ow // 2
    pool = np.zeros((ph, pw))
    for i in range(ph):
        for j in range(pw):
            pool[i, j] = np.max(act[2 * i:2 * i + 2, 2 * j:2 * j + 2])
    return np.sum(np.tanh(pool.ravel() @ W))


def conv1d_avgpool(k, x):
    n = x.shape[0] - k.shape[0] + 1
    out = np.array([np.dot(x[i:i + k.shape[0]], k) for i in range(n)])
    pooled = out[: n - n % 2].reshape(-1, 2).mean(axis=1)
    return np.sum(np.log(1.0 + np.exp(pooled)))


def autoencoder(W1, W2, X):
    H = np.tanh(X @ W1)
    R = H @ W2
    return np.mean((R - X) ** 2) + 1e-3 * (np.sum(W1 ** 2) + np.sum(W2 ** 2))


def vae_elbo(enc, dec, x, eps):
    h = np.tanh(enc @ x)
    d = h.shape[0] // 2
    mu, logvar = h[:d], h[d:]
    z = mu + np.exp(0.5 * logvar) * eps
    logits = dec @ z
    rec = np.sum(x * logits - np.logaddexp(0.0, logits))
    kl = 0.5 * np.sum(np.exp(logvar) + mu ** 2 - 1.0 - logvar)
    return -(rec - kl)


def rbf_network(centers, widths, w, X, y):
    d2 = np.sum((X[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
    Phi = np.exp(-d2 / (2.0 * widths ** 2))
    return np.mean((Phi @ w - y) ** 2)


def kalman_2d(q, r, ys):
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    Hm = np.array([[1.0, 0.0]])
    Q = q * np.eye(2)
    m = np.zeros(2)
    P = np.eye(2)
    ll = 0.0
    for t in range(ys.shape[0]):
        m = F @ m
        P = F @ P @ F.T + Q
        S = (Hm @ P @ Hm.T)[0, 0] + r
        v = ys[t] - (Hm @ m)[0]
        K = (P @ Hm.T)[:, 0] / S
        m = m + K * v
        P = P - np.outer(K, K) * S
        ll = ll - 0.5 * (math.log(2 * math.pi * S) + v * v / S)
    return -ll


def hmm_forward_log(logA, logpi, mus, obs):
    def emit(o):
        return -0.5 * (o - mus) ** 2 - 0.5 * math.log(2 * math.pi)
    A = logA - logsumexp(logA, axis=1, keepdims=True)
    la = logpi - logsumexp(logpi) + emit(obs[0])
    for t in range(1, obs.shape[0]):
        la = logsumexp(la[:, None] + A, axis=0) + emit(obs[t])
    return -logsumexp(la)


def hawkes_loglik(mu, alpha, beta, times, T):
    ll = 0.0
    for i in range(times.shape[0]):
        lam = mu
        for j in range(i):
            lam = lam + alpha * math.exp(-beta * (times[i] - times[j]))
        ll = ll + math.log(lam)
    comp = mu * T
    for j in range(times.shape[0]):
        comp = comp + alpha / beta * (1.0 - math.exp(-beta * (T - times[j])))
    return comp - ll


def mf_with_biases(U, V, bu, bv, users, items, r):
    pred = np.sum(U[users] * V[items], axis=1) + bu[users] + bv[items] + 3.0
    return np.mean((pred - r) ** 2) + 0.05 * (np.sum(U ** 2) + np.sum(V ** 2)) + 0.01 * bu @ bu


def projectile_drag(v0, angle, k):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    dt = 0.01
    while True:
        speed = math.sqrt(vx * vx + vy * vy)
        vx = vx - dt * k * speed * vx
        vy = vy - dt * (9.81 + k * speed * vy)
        x = x + dt * vx
        y_new = y + dt * vy
        if y_new < 0.0:
            x = x - dt * vx * (y_new / (y_new - y))   # back to the crossing
            break
        y = y_new
    return x


def label_smoothed_ce(W, X, labels, eps):
    logits = X @ W
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    k = W.shape[1]
    target = np.full(logits.shape, eps / k)
    target[np.arange(labels.shape[0]), labels] += 1.0 - eps
    return -np.mean(np.sum(target * logp, axis=1))


def triplet_loss(E, anchors, pos, neg, margin):
    da = np.sum((E[anchors] - E[pos]) ** 2, axis=1)
    dn = np.sum((E[anchors] - E[neg]) ** 2, axis=1)
    return np.mean(np.maximum(da - dn + margin, 0.0))


def gp_ard_kernel_solve(log_ls, log_sf, X, y):
    Z = X / np.exp(log_ls)
    sq = np.sum(Z ** 2, axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T
    K = np.exp(2.0 * log_sf) * np.exp(-0.5 * D) + 0.1 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def pendulum_until_swing(theta0, damping):
    th, om, t = theta0, 0.0, 0.0
    dt = 0.005
    while om <= 0.0 or t < 0.05:           # until it swings back (angular velocity turns positive)
        om = om - dt * (9.81 * math.sin(th) + damping * om)
        th = th + dt * om
        t = t + dt
        if t > 5.0:
            break
    return th * th + t * 0.0


# -- vector functions for Jacobians --------------------------------------------------------------


def softmax_methods(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def stack_broadcast_map(x):
    return np.concatenate([x[::-1] * x, np.maximum(x, 0.1) ** 2, x[[0, 0, 2]]])


def cumulative_map(x):
    return np.cumsum(x * x)[::-1] + x.cumprod()


def loss_with_aux(w, X, y):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    return loss, {"acc": np.mean((p > 0.5) == (y > 0.5))}


# -- refused on purpose (tests/test_heldout21.py: both modes, at the marked line) ----------------


def tuple_augmented(x, y):
    p = (x, y)
    p += (x * y,)
    return p[0] * p[2] + p[1]


def tuple_of_generator(x):
    q = tuple(v * 2.0 for v in x)
    return q[0] * q[1]


def list_pop(x):
    stack = [x[0], x[1], x[2]]
    top = stack.pop()
    return top * stack[0]


def nested_star_args(x):
    def total(*vs):  # ERR: nested function
        return sum(np.sum(v ** 2) for v in vs)
    return total(x, x[:2])


def refused_forms():
    """Refused on purpose: a nested function taking *args. (Augmented assignment to a tuple,
    the builtin tuple() of a generator and list.pop() were, until corpus 22: `now_accepted`.)"""
    x = np.array([0.3, -0.6, 0.9])
    return [(nested_star_args, (x,))]


def now_accepted():
    """Forms refused here until corpus 22 made them the list forms jitad builds
    (`jitad/list_edits.py`): (fn, args, wrt)."""
    x = np.array([0.3, -0.6, 0.9])
    return [(tuple_augmented, (0.7, -0.4), (0, 1)), (tuple_of_generator, (x,), (0,)),
            (list_pop, (x,), (0,))]


def jacobians(seed=2121):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    return [(softmax_methods, (nrm(size=4),), 0),
            (stack_broadcast_map, (np.array([0.4, -0.3, 0.8]),), 0),
            (cumulative_map, (nrm(size=4),), 0)]


def cases(seed=21):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X = nrm(size=(8, 3))
    A3 = nrm(size=(3, 3))
    M = nrm(size=(3, 4))
    img = nrm(size=(6, 6))
    users = np.array([0, 1, 2, 3, 1, 0])
    items = np.array([1, 0, 2, 2, 3, 3])
    return [
        (method_reductions_keepdims, (nrm(size=(3, 4)),), (0,)),
        (method_stats_ddof, (nrm(size=(4, 3)),), (0,)),
        (method_prod_cumulative, (rng.uniform(0.5, 1.5, size=6),), (0,)),
        (method_shapes, (nrm(size=(2, 3, 4)),), (0,)),
        (method_dot_trace_diagonal, (A3, nrm(size=3)), (0, 1)),
        (method_astype_clip_round, (np.array([0.31, -0.72, 0.55, 0.9, -0.2]), -0.4), (0, 1)),
        (broadcast_rank_pairs, (0.7, nrm(size=4), nrm(size=(1, 4)), nrm(size=(3, 1)), M,
                                nrm(size=(2, 3, 4))), (0, 1, 2, 3, 4, 5)),
        (broadcast_maximum_where_power, (M, nrm(size=(3, 1)), nrm(size=4)), (0, 1, 2)),
        (slices_negative_ellipsis, (nrm(size=6), nrm(size=(3, 2, 4))), (0, 1)),
        (boolean_masks, (np.array([0.3, -0.8, 1.2, 0.05, -0.4, 0.7]), nrm(size=(6, 6))), (0, 1)),
        (integer_gathers, (nrm(size=4), nrm(size=(3, 2))), (0, 1)),
        (joins_mixed, (nrm(size=4), nrm(size=(3, 4))), (0, 1)),
        (block_tile_pad, (nrm(size=(2, 2)), nrm(size=(2, 2))), (0, 1)),
        (clip_array_bounds, (np.array([0.3, -0.8, 1.2, 0.05]), np.array([-0.5, -0.5, 0.0, 0.1]),
                             np.array([0.2, 0.5, 1.0, 0.9])), (0, 1, 2)),
        (clip_crossed_bounds, (np.array([0.3, -0.8, 1.2, 0.05, 0.5]),
                               np.array([0.5, -0.5, 1.4, 0.1, -0.2]),
                               np.array([0.2, 0.5, 1.0, 0.9, 0.4])), (0, 1, 2)),
        (prelude_surface, (np.array([0.3, -0.6, 0.9, 0.2, -0.1]), nrm(size=(3, 4))), (0, 1)),
        (sort_argsort_gather, (np.array([0.3, -0.8, 1.2, 0.05, 0.6]), nrm(size=5)), (0, 1)),
        (max_argmax_ties, (np.array([0.3, 0.9, 0.2, 0.9]), np.array([[0.1, 0.5, 0.1],
                                                                     [0.7, 0.2, 0.3],
                                                                     [0.4, 0.4, 0.9]])), (0, 1)),
        (sign_floor_abs, (np.array([0.31, -0.72, 0.55, 1.13, -0.2]),), (0,)),
        (dot_ranks, (0.6, nrm(size=3), A3, nrm(size=(2, 4, 3))), (0, 1, 2, 3)),
        (stat_axis_keepdims_combos, (nrm(size=(2, 3)),), (0,)),
        (masked_mean_and_count, (nrm(size=6), np.array([0.5, -1.0, 2.0, -0.3, 0.1, -0.2])), (0,)),
        (operators_reflected, (np.array([0.3, -0.6, 0.9, 0.2]), nrm(size=(3, 4))), (0, 1)),
        (recursive_power, (0.9, -1.1), (0, 1)),
        (recursive_halves, (nrm(size=7),), (0,)),
        (nested_break_continue, (np.array([0.3, 0.5, 0.8, 0.2, 0.9]),), (0,)),
        (early_return_in_for, (np.array([0.6, -0.9, 1.1, 0.7, 1.3]), 0.8), (0, 1)),
        (loops_zip_enumerate_reversed, (nrm(size=5), nrm(size=5)), (0, 1)),
        (list_accumulate_then_array, (np.array([0.3, -0.6, 0.9, 0.2, -0.1]),), (0,)),
        (lambdas_closures_globals, (nrm(size=4), 0.7), (0, 1)),
        (tuple_rebound, (0.7, -0.4), (0, 1)),
        (comprehension_enumerate_extend, (np.array([0.3, -0.6, 0.9, 0.2, -0.1]),), (0,)),
        (nested_helpers_keywords, (np.array([0.9, -0.6, 1.4, 0.5]),), (0,)),
        (while_newton_sqrt, (2.3,), (0,)),
        (poisson_glm_offset, (0.2 * nrm(size=3), X, rng.poisson(2.0, size=8).astype(float),
                              rng.uniform(0.5, 2.0, size=8)), (0,)),
        (ordinal_probit, (0.3 * nrm(size=3), np.array([-0.5, 0.0, -0.3]), X,
                          np.array([0, 1, 2, 3, 1, 2, 0, 3])), (0, 1)),
        (ordinal_logit_cuts, (0.3 * nrm(size=3), X), (0,)),
        (tukey_biweight, (0.3 * nrm(size=3), X, X @ np.array([1.0, -0.5, 0.2]) + nrm(size=8), 1.8),
         (0, 3)),
        (small_cnn_loops, (0.3 * nrm(size=(3, 3)), nrm(size=(4, 2)), img), (0, 1)),
        (conv1d_avgpool, (nrm(size=3), nrm(size=9)), (0, 1)),
        (autoencoder, (0.5 * nrm(size=(3, 2)), 0.5 * nrm(size=(2, 3)), X), (0, 1)),
        (vae_elbo, (0.5 * nrm(size=(4, 5)), 0.5 * nrm(size=(5, 2)),
                    (rng.uniform(size=5) > 0.5).astype(float), nrm(size=2)), (0, 1)),
        (rbf_network, (nrm(size=(3, 2)), np.array([0.8, 1.1, 1.4]), nrm(size=3), nrm(size=(6, 2)),
                       nrm(size=6)), (0, 1, 2)),
        (kalman_2d, (0.1, 0.5, np.cumsum(nrm(size=6))), (0, 1)),
        (hmm_forward_log, (nrm(size=(3, 3)), nrm(size=3), np.array([-1.0, 0.0, 1.5]),
                           nrm(size=5)), (0, 1, 2)),
        (hawkes_loglik, (0.5, 0.3, 1.2, np.array([0.2, 0.9, 1.1, 2.5, 3.0]), 4.0), (0, 1, 2)),
        (mf_with_biases, (0.3 * nrm(size=(4, 2)), 0.3 * nrm(size=(4, 2)), 0.1 * nrm(size=4),
                          0.1 * nrm(size=4), users, items, rng.uniform(1, 5, size=6)),
         (0, 1, 2, 3)),
        (projectile_drag, (20.0, 0.7, 0.02), (0, 1, 2)),
        (label_smoothed_ce, (0.3 * nrm(size=(3, 4)), X, np.array([0, 1, 2, 3, 1, 2, 0, 3]), 0.1),
         (0, 3)),
        (triplet_loss, (nrm(size=(5, 2)), np.array([0, 1, 2]), np.array([1, 2, 3]),
                        np.array([4, 0, 1]), 0.5), (0, 4)),
        (gp_ard_kernel_solve, (np.array([0.1, -0.2]), 0.3, nrm(size=(5, 2)), nrm(size=5)),
         (0, 1)),
        (pendulum_until_swing, (0.8, 0.3), (0, 1)),
    ]


HESSIANS = ["method_stats_ddof", "broadcast_rank_pairs", "recursive_power", "hawkes_loglik",
            "ordinal_probit", "ordinal_logit_cuts", "vae_elbo", "kalman_2d"]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
