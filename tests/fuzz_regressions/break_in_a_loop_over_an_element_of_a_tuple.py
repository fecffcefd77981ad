# seed: 690055 (size normal, --backend python --second), reduced by hand
# backend: python
# found: refused in both modes ("break/continue in a loop over a tuple argument (which jitad
#   unrolls) is not supported"): a helper given a tuple unpacks it (`A, a = p`) and loops
#   over range(2) indexing A with a `break`; A stands for an array, but indexing it counted
#   as indexing the structure, so the loop was unrolled and its `break` refused
# fixed: only a structure indexed by the loop variable unrolls the loop
import math

import numpy as np


def g1(p):
    A, a = p
    hs = [math.sin(a)]
    for i in range(2):
        hs.append(math.sin(A[(i + 1) % 3, 2]))
        if (A[0, 3] - a) <= (a - A[i, i]):
            break
    return np.sum(np.stack(hs) ** 2) * np.sum(A)


def f(M, w):
    return g1((np.tanh(M), w))


WRT = (0, 1)


def fuzz_args():
    M = np.array([[0.1078, 0.8458, 0.3222, 1.1936], [0.7501, 1.0811, -0.3194, 0.1222],
                  [-0.0563, 0.7852, 0.8384, -1.1768]])
    return (M, 0.7209)
