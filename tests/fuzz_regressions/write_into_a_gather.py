# seed: 300034, 300073, 300108 (size normal, new feature gather), written by hand from them
# backend: python
# found: both modes refused writes into the result of a gather -- u = c[[2, -1, 2, 1]] then
#   u[[3, 0, 2]] += w; S = A[[2, 0, 1]] then S[k] = ... ("'S' may alias another array"): the
#   write rules took every multi-element subscript for a view, but an index array makes NumPy
#   (and Numba) copy.  Here the gathers' bases are also written and read after the writes.
# fixed: 78093c8 (a gather is a new array for the write rules)
import numpy as np


def f(x, M, w, n):
    u = np.cumprod(1.0 + 0.5 * np.tanh(x * w))[[2, -1, 2, 1]]
    u[[3, 0, 2]] += w
    S = (M - np.max(M, axis=0, keepdims=True))[[2, 0, 1]]
    for k in range(n):
        S[k % 3] = np.sin(S[k % 3] * w) + u
    T = S * 1.0
    G = T[:, [1, 1, 0, 3]]
    T[0] = T[1] * w
    G[1, 2] = w * T[0, 0]
    y = x[x > 0.0]
    y[0] = w * 3.0
    v = M[1, [0, 3]]
    v[1] = w
    return (np.sum(u ** 2) + np.sum(S ** 2) + np.sum(G ** 2) + np.sum(T ** 2) + np.sum(y ** 2)
            + np.sum(v ** 2))


def fuzz_args():
    x = np.array([1.0593, 0.7703, 1.071, -0.8227])
    M = np.array([[-0.0499, -0.8154, 0.7228, 0.6039], [0.9732, -0.935, -0.8528, 1.1218],
                  [0.5458, -0.3499, -0.5513, -0.9366]])
    return x, M, -0.28, 3


WRT = (0, 1, 2)
