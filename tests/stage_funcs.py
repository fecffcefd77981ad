"""A handful of functions whose output after each pass is kept as golden text (tests/golden/)."""
import math

import numpy as np


def loop_branch(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            s += np.tanh(x[i] * w)
        else:
            s -= w * x[i]
    return s


def while_break(x, w):
    k = 0
    while x < 10.0:
        x = x * w + math.sin(x)
        k += 1
        if k > 20:
            break
    return x


def _layer(W, h):
    return np.tanh(W @ h)


def helper_rows(W, X):
    total = 0.0
    for i in range(X.shape[0]):
        h = _layer(W, X[i])
        total += np.sum(h * h)
    return total


def array_writes(x):
    y = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] * 0.5 + x[i] ** 2
    return np.sum(y)


def axis_reductions(x, M):
    return np.sum(x, axis=-1) + np.sum(np.max(M, axis=-1)) + np.mean(M, axis=0)[1]


def helper_twice(W, X):
    """_layer called at two places: it stays a helper (split forward/backward in the loop),
    where helper_rows' only call of it is inlined."""
    total = np.sum(_layer(W, X[0]))
    for i in range(X.shape[0]):
        h = _layer(W, X[i])
        total += np.sum(h * h)
    return total
