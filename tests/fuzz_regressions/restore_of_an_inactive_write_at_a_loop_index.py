# seed: 410064 (size normal, new features), reduced by `python -m tests.fuzz --minimize`
# backend: python
# found: compiled gradient silently wrong (Numba and backend="python"; eager and finite
#   differences agree): S0 is not differentiated (np.zeros_like(M)) but the adjoint of
#   t1 = np.sum(M[1] * S0) reads it, so the loop's writes into S0 are undone in the adjoint --
#   at S0[S0_mod, 2] with S0_mod = i4 % 3 of the forward's last iteration: the index of a write
#   into an inactive array was not among the values the adjoint reads, so it was neither
#   recomputed nor taped.  d/dM[1] read the written S0 instead of zeros.
# fixed: 07f3073 (the index of an undone write is read by the adjoint, active array or not)
import math

import numpy as np


def f(x, M, w, n):
    S0 = np.zeros_like(M)
    t1 = np.sum(M[1] * S0)
    t2 = t1
    for i4 in range(2):
        S0[i4 % 3, 2] += math.exp(np.mean(S0[2]))
    return t2 + w * np.sum(S0)


def fuzz_args():
    x = np.array([-0.4346, -0.0334, -0.2887, -0.2674])
    M = np.array([[0.8067, -1.0734, -0.0937, -0.4478], [0.4724, -0.3804, 0.8159, -0.4165],
                  [0.6701, -0.7526, 0.7759, 0.9179]])
    return x, M, -0.0849, 1


WRT = (0, 1, 2)
