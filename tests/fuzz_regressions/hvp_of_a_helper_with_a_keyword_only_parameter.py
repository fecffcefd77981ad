# seed: 620066 (size normal, --second, backend python; also 620111, 620146, 620170), reduced
#   by hand
# found: hvp refused in both modes ("g0() takes 2 positional arguments, got 3"): the jvp calls
#   a helper it needs no tangent of (an `if` test) by its primal, which is the user's own
#   function, passing every parameter by position -- its keyword-only `s` too.
# fixed: in code read again, a call of a user's function gives its keyword-only parameters by
#   keyword (`higher._KeywordOnly`)
# second: yes
# backend: python
import math
import numpy as np


def g0(r, a, *, s=0.5):
    return np.sum(np.tanh(r * a)) + s


def g1(r, a, *, s):
    return r * math.tanh(a + s)


def f(x, M, w, n):
    t = w * x[0]
    if g0(x, w, s=x[1]) > 0.1:
        t = t * np.sum(M)
    if np.sum(g1(M[0], w, s=0.25)) < 0.4:
        t = t + w
    return t + g0(M[1], w) + np.sum(g1(x, t, s=w))


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
