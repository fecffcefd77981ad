"""Lists the function builds (issue 12): `hs = []`, `hs.append(h)`, displays, comprehensions
and where lists go -- np.stack/np.array/np.concatenate/np.vstack/np.hstack, other NumPy
functions, len(), sum(), hs[i], for loops (tests/test_lists.py)."""
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
    losses = []
    for i in range(X.shape[0]):
        losses.append((np.dot(X[i], w) - y[i]) ** 2)
    return np.mean(losses) + 0.1 * sum(losses) + np.std(losses) + max(losses)


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
