# seed: 660165 (size normal, --second), reduced by hand
# second: yes
# backend: python
# found: the Hessian-vector product through np.linalg.norm(u, 1) of a zero vector was nan in
#   every mode (compiled, eager, python backend): the 1-norm was the p-norm's rule, whose
#   adjoint's factor (|u| / y) ** (ord - 1) is nan ** 0 = 1 at u = 0, and whose derivative is
#   0 * nan ** -1 = nan; the first-order gradient was right.
# fixed: the 1-norm has its own rule (`norm_one`: g * np.sign(u)), as ord=inf has
import math

import numpy as np


def f(x, M, w, n):
    u0 = (M - M)[1].copy()
    s = math.atan(np.linalg.norm(u0, 1)) + np.linalg.norm(M[0] - x, 1)
    return s + np.sum(M * M) * w + np.linalg.norm(M[:, :n], 1, axis=0)[0]


WRT = (0, 1, 2)


def fuzz_args():
    x = np.array([-0.261, -0.1907, -1.1845, -0.3486])
    M = np.array([[0.2512, -0.8021, 0.3631, -0.3657], [-0.1435, 0.1389, -0.6964, -0.1055],
                  [0.8871, -1.1478, 0.1687, 0.7633]])
    return x, M, -0.263, 3
