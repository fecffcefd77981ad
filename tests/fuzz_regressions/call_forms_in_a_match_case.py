# seed: 1000401 (size normal), reduced by hand
# backend: python
# found: functools.reduce(...) and np.piecewise(...) in a case of a `match` statement were
#   refused in both modes ("functools.reduce has no derivative rule", "unsupported construct:
#   lambda"), and so was a call of a nested function updating f's float by nonlocal there
#   ("expression statements have no effect"): the rewrites (call_forms, nonlocals) visit the
#   statement lists gast_build.blocks gives, which did not include a match's cases.
# fixed: gast_build.blocks yields each case's body too
import functools
import math
import operator

import numpy as np


def f(x, M, w, n):
    acc = 0.0
    t1 = 0.0

    def up(t):
        nonlocal acc
        acc = 0.5 * acc + math.tanh(t)

    for i in range(n):
        match i:
            case 0 if np.sum(M[2]) < 0.16:
                rd3 = functools.reduce(operator.add, [math.tanh(max(x[n - 1], x[3])), w], 0.81)
                t1 += math.tanh(rd3 * 0.64)
                up(x[0] * w)
            case 1 | 2:
                y = np.piecewise(M[i], [M[i] < 0.1], [lambda v: np.tanh(v) * w, -0.5])
                t1 += np.sum(y * x)
                up(t1)
            case _:
                t1 += w
    return t1 + acc * w


def fuzz_args():
    x = np.array([0.4511, 1.1131, 0.6627, -0.2284])
    M = np.array([[-0.1996, -0.8342, -0.135, 1.0072], [0.5541, 0.3506, -0.5008, -0.3411],
                  [-1.0811, 0.705, 1.1422, -0.7989]])
    return x, M, 0.6427, 3


WRT = (0, 1, 2)
