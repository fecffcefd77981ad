"""Lists the function builds (issue 12): `hs = []`, `hs.append(h)`, displays, comprehensions
and where lists go -- np.stack/np.array/np.concatenate/np.vstack/np.hstack, other NumPy
functions, len(), sum(), hs[i], for loops; and the indexing that selects or writes several
entries: boolean masks, writes through index arrays (tests/test_lists.py)."""
import math

import numpy as np


def rnn_states(x0, W, U, xs):
    hs = []
    h = x0
    for x in xs:
        h = np.tanh(W @ h + U @ x)
        hs.append(h)
    H = np.stack(hs)                       # (T, d)
    return np.sum(H ** 2) / len(hs) + np.sum(hs[-1] * hs[0])


def per_sample_losses(w, X, y):
    losses, margins = [], []
    for i in range(X.shape[0]):
        losses.append((np.dot(X[i], w) - y[i]) ** 2)
        margins.append(np.dot(X[i], w) * y[i])
    return np.mean(losses) + 0.1 * sum(losses) + np.std(losses) + max(losses) + sum(margins[1:])


def comprehensions(w, X):
    rows = [np.tanh(w * x) for x in X if np.sum(x) > 0]
    pairs = [a * b for a in w for b in w[:2]]
    total = sum(np.sum(r ** 2) for r in rows)
    return total + np.sum(np.array(rows)) + np.sum(np.array(pairs)) + len(rows)


def walk_a_list(w, X):
    hs = [w, 2.0 * w]                      # a display, then appends
    for x in X:
        hs.append(hs[-1] * x + hs[-2])
    tot = 0.0
    for k, h in enumerate(hs):
        tot = tot + k * np.sum(h ** 2)
    tot = tot + np.sum(np.concatenate(hs) ** 3) + np.sum(np.vstack(hs)) * np.sum(np.hstack(hs))
    rev = np.array(hs[::-1])               # slices of a list: of its stack
    for h in hs[1:]:
        tot = tot + np.sum(h * rev[0])
    hs = np.array(hs)                      # the name is an array from here on
    return tot + hs[-1, 0] * np.sum(hs)


def lists_made_in_loops(w, X):
    tot = 0.0
    for x in X:
        parts = []
        for k in range(3):
            parts.append(np.sin(w * x * (k + 1)))
        cols = np.stack([np.cos(w + k * x) for k in range(2)])
        tot = tot + np.sum(np.stack(parts) ** 2) * np.sum(parts[0]) + np.sum(cols ** 3)
    return tot


def _trajectory(y0, k, n):
    ys = [y0]
    for i in range(n):
        ys.append(ys[-1] - 0.1 * k * ys[-1] ** 3)
    return np.stack(ys)


def helper_builds_a_list(y0, k):
    Y = _trajectory(y0, k, 5)
    return np.sum(Y ** 2) + np.sum(_trajectory(Y[-1], k, 2))


def appends_in_branches_and_while(w, n):
    kept = []
    x = w
    i = 0
    while np.sum(x ** 2) < 50.0 and i < n:
        x = x * 1.3 + 0.1
        if i % 2 == 0:
            kept.append(x)
        else:
            kept.append(-0.5 * x)
        i += 1
    return np.sum(np.stack(kept) ** 2) + len(kept)


def masks(x, W):
    pos = x[x > 0]
    rows = W[np.sum(W, axis=1) > 0]
    Y = W * 2.0
    Y[W < 0] = 0.0
    z = x.copy()
    z[x < 0] = x[x < 0] ** 2
    a, b = np.split(np.outer(W[0], x), 2, axis=-1)      # along the last axis
    return np.sum(pos ** 2) + np.sum(rows ** 3) + np.sum(Y ** 2) + np.sum(z * x) + np.sum(a * b)


def index_writes(x, W, rows, cols, idx):
    M = W.copy()
    M[rows, cols] = 0.0
    v = np.zeros(5)
    v[idx] = x[:3] * 2.0          # idx repeats 1: the last value stays, as NumPy writes
    u = x.copy()
    u[idx] += x[:3]
    T = np.zeros((5, 3))
    T[idx] = W[:3]
    S = W[:3] @ W[:3].T
    np.fill_diagonal(S, x[0] * 2.0)        # S[k, k] = v, in place
    L = np.zeros((3, 3))
    L[np.tril_indices(3)] = x              # a triangle filled from a vector
    r, c = np.triu_indices(3, 1)
    upper = S[r, c]
    return (np.sum(M ** 2) + np.sum(v * x[:5]) + np.sum(u ** 2) + np.sum(T * W[:5] ** 2)
            + np.sum(S ** 2) + np.sum((L @ L.T) ** 2) + np.sum(upper ** 3))


def masks_orders_and_options(beta, y, times, alpha=None):
    """Boolean and integer helpers (~, &, |, isnan, argsort, flatnonzero), `is None` on an
    optional argument, a list stacked along axis 1, copies made in a tuple assignment, and
    np.diff along an axis."""
    valid = ~np.isnan(y) & (np.isfinite(y) | False)
    r = y[valid] - beta[0]
    order = np.argsort(-times)
    w = 1.0 if alpha is None else alpha[0]
    p, v = beta.copy(), times.copy()
    for _ in range(2):
        v += 0.5 * beta
        p += v
    cols = np.stack([beta * k for k in range(3)], axis=1)
    return (np.sum(r ** 2) * w + np.sum(np.cumsum(np.exp(beta[order]))) + np.sum(p ** 2)
            + np.sum(cols[:, 2]) + np.sum(beta[np.flatnonzero(valid) % 3])
            + np.sum(np.diff(cols, axis=0) ** 2) + np.sum(np.diff(cols, 2, axis=-1) ** 3))


def nested_ode(p, y0):
    """An ODE right-hand side defined inside the function, reading its parameters (a closure),
    with a default argument, called in a `while` loop."""
    beta, gamma = p[0], p[1]

    def rhs(s, scale=1.0):
        S, I = s[0], s[1]
        return scale * np.array([-beta * S * I, beta * S * I - gamma * I, gamma * I])

    y, t, dt = y0.copy(), 0.0, 0.1
    while t < 0.5:
        k1 = rhs(y)
        y = y + dt * rhs(y + 0.5 * dt * k1)
        t += dt
    return np.sum(y ** 2) + math.sin(rhs(y, scale=2.0)[1])


# -- lists rebound, lists of tuples, np.split into a list, the median (issue 12, models13) --
def layered_states(x0, W, xs):
    # per-layer (h, c) states: a list of tuples rebound to the list the step builds
    state = [(x0, 0.5 * x0) for _ in range(2)]
    loss = 0.0
    for x in xs:
        new_state = []
        inp = x
        for name, (h, c) in zip(("a", "b"), state):
            c = np.tanh(W @ h + inp) + 0.5 * c
            h = np.tanh(c) * (1.0 if name == "a" else 0.5)
            new_state.append((h, c))
            inp = h
        state = new_state
        h0, c0 = state[0]
        loss = loss + np.sum(inp ** 2) + state[1][1][0] * np.sum(h0 * c0)
    for h, c in state:
        loss = loss + np.sum(h * c)
    return loss / len(state)


def rebound_lists(x0, W, xs):
    state = [x0, 2.0 * x0]
    loss = 0.0
    for x in xs:
        new_state = []
        inp = x
        for k in range(len(state)):
            h = np.tanh(W @ state[k] + inp)
            new_state.append(h)
            inp = h
        state = new_state
        h0, h1 = state
        loss = loss + np.sum(h1 ** 2) + 0.5 * np.sum(h0)
    return loss + np.sum(np.stack(state))


def split_lists(x, X, k):
    ps = np.array_split(x, k)              # k need not be constant; parts of 3, 3, 2
    qs = np.split(X, 2, axis=-1)
    folds = np.split(np.arange(len(x)), 2)
    tot = 0.0
    for i, p in enumerate(ps):
        tot = tot + np.sum(p ** 2) * (i + 1)
    for j in range(len(folds)):
        rest = np.concatenate([f for i, f in enumerate(folds) if i != j])
        tot = tot + np.sum(x[rest] * x[folds[j]])
    a, b = np.array_split(x[1:], 2)        # unpacked: parts of 4 and 3
    return tot + np.sum(np.stack(qs) ** 3) + len(ps) + np.sum(a) * np.sum(b ** 2)


def robust_scale(beta, X, y):
    valid = ~np.isnan(y)
    r = y[valid] - X[valid] @ beta
    scale = 1.4826 * np.median(np.abs(r - np.median(r))) + 1e-8
    u = r / scale
    return np.sum(np.minimum(u ** 2, 4.0)) + np.quantile(r, 0.3) + np.percentile(X, 60.0)


def index_arrays_masks_and_slices(W, x, neg, keep, labels, colmask, nh):
    """NumPy's indexing as people write it: a matrix of indices (W[negatives]: one row per
    entry, repeated rows accumulate), on a vector too; a mask with an index array
    (logp[keep, labels[keep]]), with a slice (X[keep, :], X[:, mask]); an index array with an
    integer; slice objects bound to names (per-head columns, the heads concatenated along the
    last axis) or written in the subscript."""
    u = W[neg]
    v = x[neg]
    picked = W[keep, labels[keep]]
    dh = W.shape[1] // nh
    heads = []
    for h in range(nh):
        sl = slice(h * dh, (h + 1) * dh)
        heads.append(np.tanh(W[:, sl] @ W[:, sl].T) @ W[:, sl])
    every_other = slice(None, None, 2)
    return (np.sum(np.sin(u) * u) + np.sum(v ** 3) + np.sum(picked ** 2)
            + np.sum(np.cos(W[keep, :])) + np.sum(W[:, colmask] ** 3) + np.sum(W[neg[0], 1] ** 2)
            + np.sum(np.concatenate(heads, axis=-1) ** 2) + np.sum(W[every_other, slice(1, None)] ** 2))


# -- lists between helpers: made in one, read in another --------------------------------------
def _layers(x, Ws):
    hs = []
    for W in Ws:
        x = np.tanh(W @ x)
        hs.append(x)
    return hs


def _energy(hs, scale):
    total = 0.0
    for k, h in enumerate(hs):
        total = total + scale * (k + 1) * np.sum(h ** 2)
    return total


def _pairs(a, b):
    return [a * b, a + b, np.sin(a)]


def _mean_of(hs):
    hs = np.array(hs)
    return np.mean(hs, axis=0)


def _last_two(hs):
    n = len(hs)
    return hs[n - 1] * hs[n - 2]


def _relatives(Ms, t):
    out = []
    for i in range(Ms.shape[0]):
        R = np.eye(2)
        R[0, 0] = np.cos(t[i])
        R[1, 1] = np.cos(t[i])
        R[0, 1] = -np.sin(t[i])
        R[1, 0] = np.sin(t[i])
        out.append(Ms[i] @ R)
    return out


def _chain(rel, parents):
    absolute = []
    for i in range(len(rel)):
        if parents[i] < 0:
            absolute.append(rel[i])
        else:
            absolute.append(absolute[parents[i]] @ rel[i])
    return absolute


def lists_between_helpers(x, W, Ms, t, parents):
    """A helper returns a list, others read one: in a loop, through two levels, unpacked,
    as a comprehension, as `np.array` of a list parameter (the hand model's bone chain)."""
    Ws = [W, W.T, 0.5 * W]
    hs = _layers(x, Ws)
    e = _energy(hs, 0.5) + _energy([h * 2.0 for h in hs], 0.1)
    a, b, c = _pairs(x, hs[0])
    e = e + np.sum(a * b + c) + np.sum(_mean_of(hs) ** 2) + np.sum(_last_two(_layers(x, Ws)))
    for k in range(2):
        e = e + 0.1 * _energy(_layers(hs[k], Ws), 1.0 + k)
    absolute = _chain(_relatives(Ms, t), parents)
    for A in absolute:
        e = e + np.sum(A @ x[:2])
    return e


def _build_and_sum(x, n):
    out = []
    for i in range(n):
        out.append(x * (i + 1))
    return out, np.sum(x)


def _rsum(hs, k):
    if k == 0:
        return 0.0
    return np.sum(hs[k - 1] ** 2) + _rsum(hs, k - 1)


def lists_returned_with_values(x):
    """A list returned beside a number, and a list given to a recursive helper."""
    hs, s = _build_and_sum(x, 3)
    return s * _rsum(hs, len(hs)) + _rsum([h * h for h in hs], 2)
