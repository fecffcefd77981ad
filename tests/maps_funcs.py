"""Functions whose array code `jitad.maps` turns into loops over elements (tests/test_maps.py)."""
import math

import numpy as np


def slices_same_length(x, a):
    u = x[1:] - x[:-1] ** 2
    b = 1.0 - x[:-1]
    return np.sum(a * u * u + b * b)


def bias_tanh(X, W, b):
    h = np.tanh(X @ W + b)          # b: (H,) or (1,): the step is decided when the loop starts
    return np.sum(h * h) / X.shape[0]


def outer_difference(x, y, s):
    d = x[:, None] - y[None, :]
    k = np.exp(-0.5 * d * d / (s * s))
    return np.sum(k * d)


def divide_by_zero(x, y):
    z = x / y + np.sqrt(x)
    return np.sum(z * z)


def where_and_masks(x, y):
    p = np.where(x > 0.0, x * y, -x)
    m = (x > -0.5) & (y < 0.8)
    return np.sum(np.where(m, p * p, 2.0 * p))


def element_loop(x, w):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        t = math.sin(x[i]) * w
        y[i] = t * t + x[i]
    return np.sum(y * x)


def map_in_loop(W, b, h0):
    h = h0
    for k in range(3):
        h = np.tanh(W @ h + b) * 0.9 + 0.05 * h
    return np.sum(h ** 3)


def ints_and_floats(x, idx):
    return np.sum((x * idx + 1.5) * (x - idx))


def cell_update(gates, cell, bias):
    b = cell.shape[0]
    pre = np.concatenate((gates, gates)) * 0.5 + bias     # a concatenation's length is known
    forget = 1.0 / (1.0 + np.exp(-pre[:b]))
    new_cell = cell * forget + np.tanh(pre[b:])
    hidden = np.tanh(new_cell) * bias[0]
    return np.sum(hidden * hidden) + np.sum(new_cell)


def widening_chain(x, w, b):
    t = x * w                 # read again after the run: written at its own (narrower) index
    u = np.tanh(t + b)        # b's length decides the run's length when it starts
    return np.sum(u * u) + np.sum(t)


def unrelated_shapes(Y):
    s = np.sum(Y ** 2, axis=1)
    D = s[:, None] + s[None, :]       # (n, n)
    T = 2.0 * Y                       # (n, 2): not broadcast with D (NumPy never does)
    return np.sum(np.tanh(D)) + np.sum(T @ Y.T)


def stored_tanh(W, h0, xs):
    """A map's result stored in an array the adjoint keeps (h, read by the next step's
    product): the adjoint loop reads its numbers back from h instead of computing tanh again."""
    h = h0
    s = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
        s = s + h[0] * h[-1]
    return s


def row_norms(X, w, b):
    # a map under a sum along the rows' axis (`Qx * Qx` of ADBench's GMM): one loop nest
    # writing the row sums; w broadcast along the rows, b per row (keepdims=True)
    r = np.sum((X * w - b) * (X * w - b), axis=1)
    s = np.sum(np.tanh(X * w) + b, axis=-1, keepdims=True)
    return np.sum(r * r) + np.sum(s * b)


def column_means(X, w):
    # along axis 0 (the loop over the columns outside), mean and keepdims=True
    c = np.mean(np.exp(X * w) - X, axis=0)
    k = np.mean(X * X * w, axis=0, keepdims=True)
    return np.sum(c * w) + np.sum(k * X)


def vector_means(x, w):
    # a rank-1 map under a sum along its one axis (the whole mean: NumPy's, n = 0 is nan)
    return np.mean(x * x * w) + np.sum(np.sin(x) * w, axis=0)


def branchy_elements(x):
    """An element loop with a branch on the data: its adjoint pops what each iteration took,
    so it runs backwards."""
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s = s + x[i] * x[i]
        else:
            s = s - math.sin(x[i])
    return s
