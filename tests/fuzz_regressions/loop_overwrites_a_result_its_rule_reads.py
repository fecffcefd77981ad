# seed: 960636 (size normal, backend python; fuzz21's 'zerotrip'), reduced by hand
# found: a wrong gradient in compiled mode (both backends), silently: z = math.tanh(w * M[2, 1])
#   then a loop of numbers only updating z (z = 0.5 * z + 0.5 * zq): the loop is checkpointed
#   (its adjoint computes the iteration again), and the state it kept left out z -- read before
#   the loop by no statement, but by tanh's adjoint (1 - z * z), which then read the value the
#   last iteration left (on main before fuzz21 too; the first-stream numloop starts its carried
#   floats at constants or reads them, so it never showed).
# fixed: recompute._read_before counts the result of a statement before the loop whose rule
#   reads its result (`Primitive.reads_result`) as read there: z is pushed per iteration
# backend: python
# second: yes
import math

import numpy as np


def f(x, M, w, n):
    z = math.tanh(w * M[2, 1])
    for j in range(1, n):
        zq = math.tanh(np.sum(M))
        z = 0.5 * z + 0.5 * zq
    e = np.exp(x[0] * w)
    k = 0
    while k < 3:
        k += 1
        e = 0.7 * e + 0.1 * x[k]
    return z + e


def fuzz_args():
    x = np.array([1.1231, 1.158, 1.1087, 0.5927])
    M = np.array([[-1.0703, 0.3028, -0.6889, 0.1566], [0.3724, 0.2107, 0.0659, 0.5315],
                  [-0.2866, -0.1016, 0.7646, -0.8857]])
    return x, M, 0.6269, 2


WRT = (0, 1, 2)
