"""Functions the API tests compile (kept in a file: jitad reads source)."""
import math

import numpy as np


def recurrence(x, a, n):
    for k in range(n):
        x = a * x + 0.01 * math.sin(x)
    return x


def bpr_loss(U, V, u, i, j):
    """Per-sample BPR loss: -log sigmoid(<U[u], V[i]> - <U[u], V[j]>)."""
    x = np.dot(U[u], V[i]) - np.dot(U[u], V[j])
    return math.log1p(math.exp(-x))


def two_outputs(x, w):
    return x * w, np.sin(w) * x


def vector_out(x, v):
    return np.tanh(v * x)


def with_helper(x, v):
    s = scale(v, x)
    return np.sum(s * s)


def scale(v, x):
    return v * x


def reassigned_weights(W, x, c):
    """A parameter the body assigns: its adjoint is not the caller's buffer until the end."""
    W = W * c
    return np.sum(np.tanh(W @ x)) * c
