# seed: 620261 (size normal, backend python), reduced by hand
# backend: python
# found: a SILENT WRONG GRADIENT in eager mode: np.take(M, (-3, 0, 0), axis=0) read M[0]
#   three times, but its adjoint added the cotangent to M[0] once (d/dM[0] 1 instead of 3);
#   compiled mode was right. Eager np.take indexes M[:, ..., indices]; a tuple inside an
#   index is an integer array to NumPy's read, but `views.norm_index` kept it a tuple, and
#   the adjoint's scatter treated it as no index array (no accumulation of repeats).
# fixed: a list or tuple inside an index is normalized to the integer array NumPy reads
#   (`eager.views.norm_index`)
import numpy as np


def f(x, M, w, n):
    a = np.sum(np.take(M, (-3, 0, 0), axis=0) * x)
    b = np.sum(np.take(M * w, (1, 1, 3), axis=1))
    return a + b + np.sum(np.take(x, (2, 2)))


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
