"""Functions of tests/test_parallel.py: independent calls of costly helpers (jitad.parallel)."""
import numpy as np


def layer(W, b, X):
    return np.tanh(X @ W + b)


def two_layers(Wa, ba, Wb, bb, X):
    ha = layer(Wa, ba, X)
    hb = layer(Wb, bb, X)
    return np.sum(ha * hb) + np.sum(ha ** 2)


def three_columns(W, b, X):
    h0 = layer(W[0], b[0], X)
    h1 = layer(W[1], b[1], X)
    h2 = layer(W[2], b[2], X)
    return np.sum((h0 + h1) * h2)


def gated(Wa, ba, Wb, bb, X, t):
    ha = layer(Wa, ba, X)
    hb = layer(Wb, bb, X)
    if np.sum(ha) > t:                 # a data-dependent decision picks the branch after
        out = np.sum(ha * hb)
    else:
        out = np.sum(hb ** 2)
    if t > 0.0:                        # ... and which independent pair runs
        u = layer(Wa, ba, X)
        v = layer(Wb, bb, X)
        out = out + np.sum(u - v)
    return out


def small_vectors(u, v, w):
    return np.sum(np.tanh(u) * v) + np.sum(np.tanh(w) * v)


def spectrum(W, x):
    return np.sum(np.abs(np.fft.rfft(W @ x)) ** 2)


def two_spectra(Wa, Wb, x):
    return spectrum(Wa, x) + spectrum(Wb, x)


def plain_layer(W, X):
    return np.tanh(X @ W)


def one_weight_each(Wa, Wb, X):
    # each call has one differentiated argument: its gradient is read once, and codegen
    # folds the backward half into that addition (`d_Wa += layer_bwd(...)[0]`)
    return np.sum(plain_layer(Wa, X) * plain_layer(Wb, X))


def _step(W, h, x):
    return np.tanh(W @ h + x)


def recurrent(W, xs):
    """A recurrence through a helper, stopped by a `while` on the data (hessian(parallel=True))."""
    h = np.zeros(W.shape[0])
    t = 0
    while t < xs.shape[0] and np.sum(h * h) < 100.0:
        h = _step(W, h, xs[t])
        t += 1
    return np.sum(h * h) + 0.1 * np.sum(W * W)


def euler(k, y, steps):
    for _ in range(steps):
        y = y + 0.01 * (np.sin(y) - k * y)
    return y


def two_trajectories(k, Y0, steps):
    a = euler(k, Y0[0], steps)
    b = euler(k, Y0[1], steps)
    return np.sum(a * b)


def two_streams(Wa, Wb, xs):
    """Two recurrences stepped together in one loop: each iteration's two helper calls are
    independent (a group inside a loop: dispatched at every iteration, forward and adjoint)."""
    ha = np.zeros(Wa.shape[0])
    hb = np.zeros(Wb.shape[0])
    s = 0.0
    for t in range(xs.shape[0]):
        ha = _step(Wa, ha, xs[t])
        hb = _step(Wb, hb, xs[t])
        s = s + np.sum(ha * hb)
    return s + np.sum(ha ** 2)
