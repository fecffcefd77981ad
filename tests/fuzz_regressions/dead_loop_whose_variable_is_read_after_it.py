# reduced from seed 660165 by hand
# second: yes
# backend: python
# found: a `for` loop whose body only updated a value the derivative does not need was
#   dropped whole by dead-store removal, though its variable's last value was read after the
#   loop: the Hessian-vector product read M[1, 0] for M[1, n - 1]
# fixed: an emptied `for` whose variable is read after it stays (`for i6 in range(n): pass`)
import math

import numpy as np


def f(x, M, w, n):
    t4 = 0.3
    for k5 in range(3):
        for i6 in range(n):
            w *= 0.58
        t4 -= math.tanh(M[1, i6] * t4)
    return t4 + w + np.sum(x)


WRT = (0, 1, 2)


def fuzz_args():
    x = np.array([-0.261, -0.1907, -1.1845, -0.3486])
    M = np.array([[0.2512, -0.8021, 0.3631, -0.3657], [-0.1435, 0.1389, -0.6964, -0.1055],
                  [0.8871, -1.1478, 0.1687, 0.7633]])
    return x, M, -0.263, 3
