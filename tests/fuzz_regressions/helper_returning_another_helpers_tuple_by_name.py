# seed: 620246 (size normal, backend python), reduced by hand
# found: a wrong refusal in both modes ("g1() returns 2 value(s), unpacked into 1"): g1 returns
#   a name holding g0's tuple result (pk0 = g0(...); return pk0) and the caller assigns g1's
#   result to one name (pk2 = g1(...)). The arity of g1's return was unknown: the names the
#   helper binds were taken to be every name it reads, g0 included, so the call g0(...) was
#   never looked up.
# fixed: a helper's own names are those it binds (`normalize.tuple_values._returns_arity`)
# second: yes
# backend: python
import math
import numpy as np


def g0(r, a):
    return math.sin(a * r[-1]), r * a


def g1(r, a):
    pk0 = g0(r, a + 0.5)
    return pk0


def g2(p):
    r, a = p
    pk1 = g0(np.tanh(r), a)
    return pk1


def f(x, M, w, n):
    pk2 = g1(x, w)
    t2, u3 = pk2
    pk3 = g2((M[0], t2))
    t4, u5 = pk3
    return t2 + np.sum(u3) + t4 + np.sum(u5 * x)


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
