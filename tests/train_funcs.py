"""Losses the training tests compile."""
import math

import numpy as np


def bpr(U, V, u, i, j):
    x = np.dot(U[u], V[i]) - np.dot(U[u], V[j])
    return math.log1p(math.exp(-x))


def linreg(w, b, x, y):
    """A dense parameter (w) and a 1-element bias."""
    e = np.dot(w, x) + b[0] - y
    return e * e


def mlp_batch(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2
    return np.mean((z - y) ** 2)


def scalar_param(a, x):
    return a * a * x


def triplet(U, V, u, i, j, l):
    """Three reads of one table whose rows may coincide in any pattern."""
    a = np.dot(U[u], V[i])
    b = np.dot(U[u], V[j] * V[l])
    return math.log1p(math.exp(-(a - b))) + 0.1 * np.sum(V[l] * V[l])


def two_lengths(U, W, u, w):
    """Rows of different lengths: their loops must not be merged."""
    return np.sum(np.sin(U[u])) * np.sum(np.cos(W[w]))


def rebinds_its_weights(W, x, y):
    """The loss rebinds a parameter's name: the update must go to the array it was given
    (it went to the rebound temporary: the parameters never moved), and an accumulated
    gradient must not be the restarting adjoint of the name."""
    W = W * 2.0
    return (np.sum(np.tanh(W @ x)) - y) ** 2
