# seed: 620871 (size normal, backend numba), reduced by hand
# found: a SILENT WRONG VALUE AND GRADIENT in compiled mode with Numba (backend python and
#   eager mode right): np.linalg.norm(x[::-1], 2) gave 0.7336 for 1.1818 -- Numba's
#   np.linalg.norm of a view with a negative stride is wrong (it read |x[-1]| alone here).
# fixed: the 2-norm's forward is np.linalg.norm(np.ascontiguousarray(x))
#   (`primitives/table.py`: norm)
import math
import numpy as np


def f(x, M, w, n):
    return np.linalg.norm(x[::-1], 2) * w + np.linalg.norm(M[::-1, ::-1]) + np.linalg.norm(x[::-2])


def fuzz_args():
    x = np.array([-1.0298, -0.5086, -0.5199, 0.7833])
    M = np.array([[1.1737, 0.0366, -0.5912, -0.6981], [-0.5948, -0.9755, 0.9609, -0.2081], [-0.1669, 0.7935, -0.69, 1.1927]])
    return x, M, 0.6394, 3


WRT = (0, 1, 2)
