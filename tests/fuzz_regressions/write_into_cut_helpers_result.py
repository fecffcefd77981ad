# seed: 2409 (size normal, --backend python), reduced by `python -m tests.fuzz --minimize`,
#   then by hand
# backend: python
# found: compiled gradient silently wrong, with Numba and with backend="python" (eager and
#   finite differences agree): g is cut in two (a call at f's top level, or in a loop: g is
#   costly, its argument a matrix), and g_fwd's saved state holds its tanh output -- the very
#   array it returns.  f writes into that result (S[1] += ...) and, as np.sum's adjoint does
#   not read S, the write was not undone: g_bwd differentiated tanh at the written values.
# fixed: analysis treats a call's array results as read by its adjoint, so writes into them
#   are undone before the callee's backward half runs
import numpy as np


def g(A):
    return np.tanh(A)


def f(M, n):
    S = g(M)
    S[n] += np.sum(M, axis=0)
    for i in range(n):
        T = g(M * 0.5)
        T[i] += 1.0
    return np.sum(S) + np.sum(T)


def fuzz_args():
    M = np.array([[-1.1735, 0.9487, -0.8906, 0.4108], [0.2823, -1.1768, -0.3781, -0.037],
                  [0.2766, 1.1708, 0.1742, 0.9594]])
    return (M, 2)


WRT = (0,)
