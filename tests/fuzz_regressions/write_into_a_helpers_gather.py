# seed: 240177 (size normal, new feature gather), reduced by hand
# backend: python
# found: both modes refused a write into a helper's result that is a gather of its argument
#   (return A[:, [2, 1, 3, 2]]; S, t = g(...); S[2] += ...: "'S' may alias another array"):
#   a helper's result counted as its own array only when made by a fresh primitive.  Here the
#   helper also runs in a loop (cut: its state on a tape) and its result is written there.
# fixed: b3e72b9 (a gather is a new array for returns_fresh too)
#   Checked without Numba: the refusal was in the front end (checked with Numba once).
import math

import numpy as np


def g0(A, a):
    t1 = math.sin(np.sum(A[2] * A[1]) + a)
    return A[:, [2, 1, 3, 2]] * t1, math.tanh((A[-1] * A[0]) @ A[0])


def g1(A):
    return A[[2, 0, 1]]


def f(x, M, w, n):
    S0 = M.copy()
    S5, t6 = g0(np.tanh(M), math.fabs(S0[n - 1][2]))
    S5[2] += math.tanh(t6) * (S0[0] * M[n - 1])
    acc = 0.0
    for i in range(n):
        T = g1(S5 * w)
        T[i] = np.sin(T[i] + x)
        acc += np.sum(T ** 2)
    return np.sum(S5 ** 2) + 0.85 * t6 + acc


def fuzz_args():
    x = np.array([1.0593, 0.7703, 1.071, -0.8227])
    M = np.array([[-0.0499, -0.8154, 0.7228, 0.6039], [0.9732, -0.935, -0.8528, 1.1218],
                  [0.5458, -0.3499, -0.5513, -0.9366]])
    return x, M, -0.28, 3


WRT = (0, 1, 2)
