# found: fuzz21's most common refusal: "'y' may alias another array" at a write into a
#   helper's result when the helper reassigns its parameter in a loop of a constant count
#   (def g(z, a): for j in range(3): z = np.tanh(z * 0.9 + a); return z): what a helper's
#   result may share storage with (analysis.result_origins) was the union over every
#   assignment of the returned name, the parameter's own value among them, although no run
#   returns it.
# fixed: result_origins is flow-sensitive: the definitions that reach the return
#   (flow.Flow(trips=True) knows a range(3) loop runs).  A helper whose result may be its
#   parameter (a loop that may not run, `v = u` after the loop, a view u[1:]) is still an
#   alias: tests/test_writes_aliases.py refuses those.
# second: yes
# backend: python
#   (a refusal by the front end's alias analysis, no Numba in it: the python backend checks it
#   without Numba's compiles, 38 s of them)
import math

import numpy as np


def g0(z, a):
    s = 0.0
    for j in range(3):
        s = s + np.sum(np.tanh(z * a)) * 0.1
        z = np.tanh(z * 0.9 + a)
    return z, s


def g1(r, a):
    for j in range(2):
        if a > 0.0:
            r = r * a
        else:
            r = np.sin(r)
    return r


def f(x, M, w, n):
    u, s = g0(x, w)
    u[n - 1] = math.tanh(s + w)
    S = g1(M, w)
    S[1] += np.tanh(u[:3] @ M)
    acc = 0.0
    for i in range(n):
        v = g1(M[i], w * 0.5)
        v[i] = v[i] * w
        acc += np.sum(v * u)
    return np.sum(u * u) + np.sum(S * S) * 0.3 + acc


def fuzz_args():
    x = np.array([0.53, -0.81, 0.27, 1.02])
    M = np.array([[-0.3145, 0.6659, -0.8642, -0.0599], [1.0268, -1.0455, 1.1309, -1.1583],
                  [-1.1324, 0.9195, -1.0171, 0.2237]])
    return x, M, 0.74, 3


WRT = (0, 1, 2)
