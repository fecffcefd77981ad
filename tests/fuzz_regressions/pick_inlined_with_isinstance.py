# seed: 170000, 170004 (size normal, backend numba), reduced by hand
# found: compiled raised AttributeError: 'UndefinedType' object has no attribute 'name' inside
#   Numba (eager ran): rt.pick -- np.maximum's cotangent chosen by its mask -- was inlined
#   into the generated adjoint, and its compiled form reads `isinstance`, so Numba ran its
#   literal-propagation pass over the whole adjoint, which crashes on a variable undefined
#   on some path into a join (t below, assigned only in one branch of a loop).
# fixed: rt.pick is called, not inlined (runtime.INLINE holds no helper reading isinstance)
import numpy as np


def f(x, M, w, n):
    u0 = np.tanh(np.maximum(x[::-1], 0.33) - w)
    for i in range(3):
        if x[i] > 0.2:
            t = M[i] * np.mean(x)
            w -= t[0]
        u0[i] = np.sin(np.sum(u0) + w)
    return np.sum(x) + w + 0.61 * np.mean(u0)


def fuzz_args():
    x = np.array([-0.2143, 0.7934, 0.3607, 1.1538])
    M = np.array([[-0.0745, 0.0189, 0.9858, 0.6573], [0.8496, -1.1599, 0.1048, 0.4349],
                  [-1.0, 0.5065, -0.3072, -0.2283]])
    return x, M, -0.8428, 3


WRT = (0, 1, 2)
