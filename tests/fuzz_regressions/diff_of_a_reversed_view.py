# seed: 680093 (size normal), reduced by hand
# backend: numba
# found: compiled mode could not compile np.diff of a reversed view (np.diff(x[::-1])): Numba's
#   np.diff takes contiguous arrays only (a JitadError naming Numba's typing failure; eager ran)
# fixed: np.diff reads a contiguous copy of a non-contiguous operand (np.ascontiguousarray)
import numpy as np


def f(x, M, w, n):
    u0 = x.copy()
    u0[2] = np.sum(np.diff(x[::-1]) ** 2) + np.sum(np.diff(M[:, ::2], axis=0))
    return np.sum(u0 * w) + np.sum(np.diff(M[::-1, 1]) * x[:2])


WRT = (0, 1, 2)


def fuzz_args():
    x = np.array([0.6479, 1.0189, 0.0135, -0.6262])
    M = np.array([[0.5541, 0.3506, -0.5008, -0.3411], [-1.0811, 0.705, 1.1422, -0.7989],
                  [-0.5537, -0.2641, -0.1056, -0.5441]])
    return x, M, 1.1347, 1
