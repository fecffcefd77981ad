# seed: 1003 (size normal, an earlier generator), reduced by `python -m tests.fuzz --minimize`
# backend: python
# found: eager gradient wrong (compiled and finite differences agree): the view pattern
#   y3 = t1 * S0[i]; S0[i] = y3 in a loop, after an element read acc = tanh(S0[1, 2]).
#   Each of these removed (the element read, the w accumulator, np.sum(S0) in the return)
#   makes eager right again: likely eager's copy-on-write of row writes (reference counts).
# fixed: the root cause was in the reverse pass, not copy-on-write: the setitem node's
#   adjoint of the overwritten array (g with g[idx] = 0, zeroed in place when the engine
#   owns g) was formed before the adjoint of the written value (g[idx]) whenever the array's
#   node already had another consumer; backward() now visits a node's inputs last to first
import math

import numpy as np


def f(x, M, w, n):
    S0 = M * 1.9
    t1 = math.tanh(x[1])
    acc = math.tanh(S0[1, 2])
    for i2 in range(3):
        y3 = t1 * S0[i2]
        S0[i2] = y3
        w += np.sum(y3)
    return w + acc + np.sum(S0)


def fuzz_args():
    x = np.array([-0.7071, -0.1842, -0.3799, -0.9695])
    M = np.array([[1.1554, 0.9207, 0.1071, 0.0761], [0.3112, -0.1358, 0.489, -0.7803],
                  [0.1942, -0.4522, 0.9857, -0.8857]])
    return (x, M, -0.9893, 3)


WRT = (0, 1, 2)
