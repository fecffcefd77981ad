# seed: 300001, 300005, 300036 (size normal, new feature gather), written by hand from them
# backend: python
# found: both modes refused index lists written out with a negative entry -- M[[2, 1], [-1, 0]],
#   u[[-3, 3]] += t, S[:, [2, 3, -3, -2]] ("unsupported construct: list"): only lists of
#   non-negative int literals were read as the integer array NumPy makes of them.
# fixed: 79d90b8 (an index list of integer constants, negative ones too)
#   Checked without Numba: the refusal was in the front end (checked with Numba once).
import numpy as np


def f(x, M, w, n):
    u = x * w
    u[[-3, 3]] += w * u[2]
    S = M * 1.0
    S[[-1], [1]] = np.sum(x)
    return (np.sum(M[[2, 1], [-1, 0]] * x[[-1, 0]]) + np.sum(S[:, [2, 3, -3, -2]] ** 2)
            + np.sum(u ** 2) + np.sum(S[[-2, 2]] ** 3))


def fuzz_args():
    x = np.array([1.0593, 0.7703, 1.071, -0.8227])
    M = np.array([[-0.0499, -0.8154, 0.7228, 0.6039], [0.9732, -0.935, -0.8528, 1.1218],
                  [0.5458, -0.3499, -0.5513, -0.9366]])
    return x, M, -0.28, 3


WRT = (0, 1, 2)
