# seed: 620082 (size normal, --second, backend python), reduced by hand
# found: hvp refused in both modes ("rt.sort_axis has no derivative rule"): the jvp calls the
#   primal of a helper given a structure (here a tuple) where it needs no tangent of it (an
#   `if` test); that primal was generated for Numba (np.sort(.., axis=1) as rt.sort_axis,
#   np.max(.., keepdims=True) as rt.max_axis(..).reshape) and read again as a function.
# fixed: the primal pass generates code read again (`job.reentrant`) in forms the front end
#   reads, as the jvp itself is (`ad.reverse.Reverse(reentrant=...)`)
# second: yes
# backend: python
import math
import numpy as np


def g0(p):
    r, a = p
    return np.sum(np.sort(np.ones((3, 4)) * r[0], axis=1)) + np.sum(np.max(np.ones((3, 4)), axis=0, keepdims=True) * a)


def f(x, M, w, n):
    t = w * x[0]
    if g0((x, w)) > 0.3:
        t = t * np.sum(M)
    return t + np.sum(M * w)


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
