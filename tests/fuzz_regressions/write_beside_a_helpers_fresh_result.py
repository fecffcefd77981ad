# found: by hand, checking the fix of hvp_refused_tangent_alias_of_helper_result: wrong
#   refusal in both modes: `a, b = g0(u0, w)` returns a new array a and a view b of u0; u0 is
#   written, then a is read and b rebound.  The call counted as making every target an alias
#   of every array argument, so the write was refused as changing a.
# fixed: a call's aliases are decided per target (`ad.analysis.result_sources`)
# backend: python
import numpy as np


def g0(r, a):
    return r * a, r[1:]


def f(x, M, w, n):
    u0 = x.copy()
    a, b = g0(u0, w)
    u0[2] = w * 3.0
    b = a * 2.0
    return np.sum(np.sin(a)) + b[0]


def fuzz_args():
    x = np.array([1.0407, -1.026, 0.4459, -0.6827])
    M = np.array([[-0.4842, -1.1253, -0.9478, 0.6258], [-1.0342, 0.6172, 1.1236, -0.0105],
                  [-0.589, -0.386, -0.8432, -0.3041]])
    return (x, M, 0.0849, 2)


WRT = (0, 1, 2)
