# seed: 750053 (size normal, --backend python --second), reduced by hand
# backend: python
# found: refused in both modes ("'S9' may alias another array (it is assigned from a view or
#   another variable)"): S9 = np.take(np.maximum(S1, M), (3, 1, -4, 1), axis=-1) is a new
#   array in NumPy, but jitad reads a take along a negative axis as a gather between two
#   np.moveaxis calls, and the last moveaxis (a view) made S9 look shared
# fixed: a view of a new array nothing else reads, assigned once, is the only name of that
#   buffer: a new array for the write rules (`Writes._view_of_a_temporary`)
import numpy as np


def f(x, M, w, n):
    S1 = np.zeros((3, 4))
    S1[n] = w * x
    S9 = np.take(np.maximum(S1, M), (3, 1, -4, 1), axis=-1)
    S9[0, 0] += np.mean(x[-1] * S1[0])
    T = (M * w).T
    T[1, 0] = T[0, 1] * x[0]
    return np.sum(x) + np.sum(M) + 0.41 * np.sum(S9 ** 2) + np.sum(T ** 2)


def fuzz_args():
    x = np.array([0.7364, -0.5945, 0.136, -0.8685])
    M = np.array([[-0.8939, -1.1941, -0.3091, -0.9305], [-0.6113, 0.6554, 1.0225, -0.1558],
                  [-0.7457, 0.7802, 0.8694, 0.6328]])
    return x, M, 0.9292, 1


WRT = (0, 1, 2)
