# found: by hand, beside write_into_a_cast_of_an_argument (not a failure): its fix keeps
#   accepting a write through np.float64(v) of a new float64 array v, which is v itself: the
#   write rules take it for `u = v`, fine while v is not read after the write (the adjoint
#   reads v for np.dot: the write is undone for it too).
# backend: python
import numpy as np


def f(x, M, w, n):
    v = np.tanh(M[1] * w)
    q = np.dot(v, x)
    u = np.float64(v)
    u[2] = q * w
    return np.sum(u * x) + q


def fuzz_args():
    x = np.array([-0.0563, -0.4756, 0.2781, -0.1485])
    M = np.array([[0.8814, -0.9325, 1.1953, -1.1827], [-0.5597, -0.6478, 0.1739, 1.0833], [-0.1641, 0.3503, 0.7786, 0.5523]])
    return x, M, 0.8199, 1


WRT = (0, 1, 2)
