# seed: 1000025 (size normal), reduced by hand
# backend: python
# found: np.piecewise(u, [u < 0.31], [-0.56]) was refused in both modes ("np.piecewise has no
#   derivative rule"), and with a lambda beside it ("unsupported construct: lambda"): call_forms
#   took a function that is a number for a constant node only, and -0.56 is -(0.56) in the tree,
#   so the call was left as it was.  Checked without Numba: the rewrite is the front end's.
# fixed: call_forms._number (a constant, or a number with a sign)
import math

import numpy as np


def f(x, M, w, n):
    pa1 = np.sin(np.exp(np.tanh(M[2] * w)))
    pw1 = np.piecewise(pa1, [pa1 < 0.31], [-0.56])
    pw2 = np.piecewise(pa1, (pa1 < -0.2, pa1 > 0.7), (lambda v: v * -0.5, -1, +0.25))
    pw1[n - 1] += w
    return np.sum(pw1 * x) + np.sum(pw2 * M[0]) + math.tanh(np.sum(pw2 * pa1))


def fuzz_args():
    x = np.array([0.0414, 0.6721, -0.5262, -0.9071])
    M = np.array([[-0.6548, -0.7859, 0.2254, 1.0849], [0.2547, -0.5911, -1.0281, 0.5019],
                  [0.087, 0.3506, 0.0753, -0.7276]])
    return x, M, 0.6427, 3


WRT = (0, 1, 2)
