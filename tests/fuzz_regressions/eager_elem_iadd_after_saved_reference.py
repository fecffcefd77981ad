# seed: 15 (size small), hand-reduced
# backend: python
# found: eager gradient wrong (compiled and finite differences agree): after a recorded
#   node keeps a reference to u (s = u * 2.0), the copy-on-write of `u[2] += 1.0` loses
#   the history of element 2: eager d/dx[2] is 4.0, right is 2.1.  In the original
#   program the reference was s = np.tanh(u[::-1]); the order of the terms of the return
#   matters (np.sum(s) + np.sum(u * u) happens to be right).
# fixed: the root cause was in the reverse pass, not copy-on-write: the setitem node's
#   adjoint of the overwritten array (g with g[idx] = 0, zeroed in place when the engine
#   owns g) was formed before the adjoint of the written value (g[idx]) whenever the array's
#   node already had another consumer; backward() now visits a node's inputs last to first
import numpy as np


def f(x):
    u = x.copy()
    s = u * 2.0
    u[2] += 1.0
    return np.sum(u * u) + np.sum(s)


def fuzz_args():
    return (np.array([0.8, 0.9, -0.95, -0.1]),)


WRT = (0,)
