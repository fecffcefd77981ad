# seed: 260095 (size normal, --second, new features), reduced by the minimizer, then by hand
# backend: python
# found: compiled mode crashed (ValueError "non-broadcastable output operand" with
#   backend="python", IndexError with Numba; eager ran and was right) on u[u > c] += v in a
#   loop where the mask's count of true entries changes between iterations: the masked read
#   u[u > c] was not known to change shape, so it was not taped, and the adjoint's
#   zeros_like of it took the last iteration's length.
# fixed: c2082b2 (a boolean-mask read is shape-variant)
import numpy as np


def f(x, M, w, n):
    u0 = np.exp(x)
    for r7 in M:
        u0[0] += r7[0]
        u0[u0 > 1.0] += r7[n]
    return np.sum(u0)


def fuzz_args():
    x = np.array([0.2027, -0.4617, -0.132, 0.6331])
    M = np.array([[-0.739, 0.8079, 0.7692, 0.3104], [0.6974, -0.6429, 0.2977, -0.3414],
                  [-0.5574, -1.0945, -0.2807, -0.0844]])
    return x, M, 0.6872, 2


WRT = (0, 1, 2)
