# seed: 1023 (size normal, an earlier generator), reduced by `python -m tests.fuzz --minimize`
# backend: python
# found: eager gradient wrong (compiled and finite differences agree): an element of u is
#   read (u[3] * M) before `u[2] += 0.39`; eager loses part of the gradient of x and M.
#   Likely the same root cause as eager_elem_iadd_after_saved_reference.py (copy-on-write
#   of an element `+=` while a recorded node references the array).
# fixed: the root cause was in the reverse pass, not copy-on-write: the setitem node's
#   adjoint of the overwritten array (g with g[idx] = 0, zeroed in place when the engine
#   owns g) was formed before the adjoint of the written value (g[idx]) whenever the array's
#   node already had another consumer; backward() now visits a node's inputs last to first
import numpy as np


def f(x, M, w, n):
    u0 = M[1, 0] - x
    S1 = u0[3] * M
    u0[2] += 0.39
    t2 = np.mean(u0)
    return np.sum(u0) + np.sum(S1) + t2


def fuzz_args():
    x = np.array([0.4237, 0.0154, 0.9515, -1.1748])
    M = np.array([[0.6947, 0.5639, -0.8239, 1.1505], [1.0569, 0.4382, 1.0995, -0.1313],
                  [-0.5147, -0.2679, -0.8519, -0.1233]])
    return (x, M, -1.099, 3)


WRT = (0, 1, 2)
