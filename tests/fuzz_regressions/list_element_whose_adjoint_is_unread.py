# seed: 960323 (size normal, backend python; fuzz21's 'poly'/'starred'), reduced by hand
# found: a wrong gradient in compiled mode (both backends), silently: in `ls = [acc, g0(w)]`
#   the helper's result varies with w but its adjoint reaches nothing (g0 returns a constant),
#   so dead-code removal dropped `d_ls_g0 += d_ls.pop()` whole -- pop and all -- and the next
#   pop gave acc the adjoint of the list's last element (d/dx[3] was x[3], not -0.34).
# fixed: codegen._dce keeps the pop of a dead update (`d_t += d_hs.pop()`) as a statement, as
#   it did for a dead assignment
# backend: python
# second: yes
import math

import numpy as np


def g0(a):
    c0 = 0.0
    for j0 in range(3):
        c0 = math.tanh(a)
    return -0.34


def f(x, M, w, n):
    acc = x[3]
    ls = [acc, g0(w)]
    hs = []
    for k in range(n):
        hs.append(M[k, 0] * x[k])
        hs.append(g0(x[k] * w))
    sa, *mid = (x[0], acc, g0(w))
    return ls[0] * ls[-1] + np.sum(np.array(hs) * np.arange(2 * n)) + sa * mid[0] * mid[-1]


def fuzz_args():
    x = np.array([0.2432, -0.2238, 0.2696, 1.0368])
    M = np.array([[0.0936, 0.5656, -1.0206, 0.8106], [0.0984, -1.0845, 0.7526, 0.8898],
                  [-0.6428, -0.9975, -0.3412, 0.4878]])
    return x, M, 0.4751, 3


WRT = (0, 1, 2)
