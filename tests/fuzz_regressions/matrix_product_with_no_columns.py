# seed: none -- found by a helper's scalarize tests (a 4 x 4 transform times an array of no
#   points), reduced by hand
# found: compiled gradient raised IndexError ("index is out of bounds", no user line) under
#   Numba's bounds checking, which the tests turn on: the small-product loops (rt.matmat,
#   matvec, vecmat) took NumPy's result dtype from `a[:0, 0] * b[:0, 0]`, whose index 0 is
#   out of range for a matrix with no columns
# fixed: the dtype comes from empty slices (`a[:0, :0] * b[:0, :0]`), which index nothing
import numpy as np


def f(theta, X):
    T = np.eye(4)
    T[:3, 3] = theta[1:4]
    Y = T @ X
    Z = X.T @ T
    return np.sum(Y * Y) + np.sum(Z[:, :3] * theta[1]) + theta[0] ** 2


WRT = (0,)


def fuzz_args():
    return (np.array([0.3, 0.5, -0.2, 0.7]), np.zeros((4, 0)))
