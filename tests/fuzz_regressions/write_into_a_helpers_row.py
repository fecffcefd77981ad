# seed: 94017 (normal)
# backend: python
# found: compiled-only refusal: a write into a helper's result that is a row of an array the
#   helper made (`return S1[0]`) was refused as a write into a shared array; nothing else
#   refers to that array.
# fixed: (a single result that views the callee's own array is the caller's)
import math

import numpy as np


def g1(r, a):
    S1 = (np.ones((3, 4)) + r) * a
    return S1[0]


def f(x, M, w, n):
    u0 = g1(x, math.tanh(w))
    u0[n - 1] = M[2, 2] * w
    return np.sum(u0 ** 2)


def fuzz_args():
    x = np.array([0.2392, -0.5676, -0.0202, -0.5242])
    M = np.array([[0.2919, -0.8711, -0.0545, 1.0614], [0.1771, 0.4399, 0.091, 0.1244],
                  [-0.6322, -0.3246, -0.7799, -0.146]])
    return (x, M, -0.5217, 2)


WRT = (0, 1, 2)
