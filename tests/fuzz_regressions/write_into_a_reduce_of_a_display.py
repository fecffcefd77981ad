# seed: 1000167 (size normal, --second), reduced by hand
# backend: python
# found: a write into rd = functools.reduce(lambda p, q: c * p + np.tanh(q), [a, b]) was refused
#   in both modes ("'rd' may alias another array"): call_forms looped over range(1, len(xs)),
#   which the write rules cannot tell runs, so rd might be the list's first item; and a tuple
#   display, functools.reduce(operator.mul, (a, b, c)), was refused ("index a tuple of 3 values
#   with a constant") as the loop indexed the tuple by its counter.
# fixed: call_forms loops over range(1, n) for a display of n items (a constant range: the
#   analyses know it runs) and reads a tuple display as the list of its items
import functools
import math
import operator

import numpy as np


def f(x, M, w, n):
    acc = 0.0
    for j0 in range(n):
        rd1 = functools.reduce(lambda p, q: 0.83 * p + np.tanh(q),
                               [np.arctan(M[1] * w), np.tanh(M[j0][[2, 3, 1, 1]])])
        rd1[j0] = math.tanh(np.dot(np.tanh(M[j0]), rd1 + M[max(j0 - 1, 0)]))
        acc += np.sum(rd1 * x)
    rd2 = functools.reduce(operator.mul, (np.tanh(x * w), 1.0 + 0.1 * np.sin(M[0]), x),
                           np.full(4, 0.9))
    rd2[1] = w * acc
    return acc + np.sum(rd2 * rd2)


def fuzz_args():
    x = np.array([-0.7111, 1.053, -1.0235, -0.9557])
    M = np.array([[0.5541, 0.3506, -0.5008, -0.3411], [-1.0811, 0.705, 1.1422, -0.7989],
                  [-0.5537, -0.2641, -0.1056, -0.5441]])
    return x, M, 0.6427, 3


WRT = (0, 1, 2)
