"""Functions the Dask tests distribute (plain functions of a module, as a user's would be)."""
import math

import numpy as np

LAM = 0.01


def logistic(w, X, y):
    """Logistic loss summed over rows: additive, what jd.value_and_grad takes."""
    z = X @ w
    return np.sum(np.log1p(np.exp(-y * z)))


def logistic_bias(w, b, X, y, scale):
    """Two differentiated arguments and a scalar constant."""
    z = X @ w + b
    return scale * np.sum(np.log1p(np.exp(-y * z)))


def ridge(w):
    """A regulariser of the parameters alone (jd.value_and_grad's reg=)."""
    return LAM * np.sum(w * w)


def logistic_ridge(w, X, y):
    """The loss with its regulariser inside: not additive over row chunks."""
    return logistic(w, X, y) + ridge(w)


def logistic_mean(w, X, y):
    """A mean over rows: not additive over row chunks."""
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z)))


def bpr_loss(U, V, u, i, j):
    """Per-sample BPR with L2 on the three rows it reads (examples/bpr.py's loss)."""
    pu = U[u]
    qi = V[i]
    qj = V[j]
    x = np.dot(pu, qi) - np.dot(pu, qj)
    reg = 0.005 * (np.dot(pu, pu) + np.dot(qi, qi) + np.dot(qj, qj))
    return math.log1p(math.exp(-x)) + reg


def dense_sample(W, b, x, y):
    """A dense per-sample model: every step changes every row of W and b."""
    return np.sum((np.tanh(W @ x + b) - y) ** 2)


def embedding_regression(E, w, i, y):
    """A row of an embedding table (read by index: row-sparse) times a dense weight vector."""
    return (np.dot(E[i], w) - y) ** 2
