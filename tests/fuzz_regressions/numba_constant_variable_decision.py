# seed: 70028 (size small, at 83f5f93), reduced by `python -m tests.fuzz --minimize`
# found: compiled mode fails on a valid program with Numba (eager runs; backend="python" is
#   right): `acc = 0.0; if acc <= 0.17: ... else: return ...` -- Numba prunes the branch
#   whose test follows from constants, and a value only that branch assigned (the early
#   return's result, its `go` flag) is then undefined where the adjoint reads it: "Unsupported
#   assignment encountered: Undefined".
# fixed: normalize.fold_constant_decisions decides such branches before Numba sees them
import numpy as np


def f(x, M, w, n):
    acc = 0.0
    if acc <= 0.17:
        for r0 in M:
            w -= M[2, 2]
        acc = np.sum(x) * w
    else:
        if np.sum(x) >= -0.43:
            return np.sum(x) + np.sum(M) + w + acc
        acc, w = w, acc
    return np.mean(x) + np.sum(M) + w + acc


def fuzz_args():
    x = np.array([0.3804, 0.8877, -0.9979, 0.6307])
    M = np.array([[0.2665, -0.0185, 0.9525, -1.0583], [0.0774, -0.8784, 0.7108, 1.1875],
                  [-0.7634, 1.022, 0.9187, -0.7344]])
    return x, M, -0.899, 3


WRT = (0, 1, 2)
