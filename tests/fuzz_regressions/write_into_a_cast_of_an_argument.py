# seed: 640284 (size normal, backend python), reduced by hand
# found: a wrong value in both modes, gradients agreeing with each other: `u0 = np.float64(x)`
#   then `u0[2] = ...`. NumPy's np.float64 of a float64 array gives the array itself, so the
#   write changed the argument x (read again after it); jitad took np.float64(x) for a new
#   array (x.astype(np.float64)) and accepted the write into it.
# fixed: np.float64(x) and np.asarray(x, dtype=...) are marked `copy=False` at normalize; of an
#   array of that dtype already they give the operand itself (`analysis.gives_operand`: another
#   name for it, as `u = x` is), so the write into the argument is refused in both modes.
#   (The generator took np.float64 of a name for a new array too: it now adds `.copy()`.)
# expect: refused
# backend: python
import numpy as np


def f(x, M, w, n):
    acc = 0.0
    u0 = np.float64(x)
    for i3 in range(2):
        y4 = -0.88 * u0[2]
        u0[2] = y4
        acc += y4
    return np.sum(x) + w + 0.66 * acc + np.sum(u0)


def fuzz_args():
    x = np.array([-0.0563, -0.4756, 0.2781, -0.1485])
    M = np.array([[0.8814, -0.9325, 1.1953, -1.1827], [-0.5597, -0.6478, 0.1739, 1.0833], [-0.1641, 0.3503, 0.7786, 0.5523]])
    return x, M, 0.8199, 1


WRT = (0, 1, 2)
