# found: by hand, checking the fix of hvp_refused_tangent_alias_of_helper_result: one mode only
#   (compiled refused, eager gave a gradient): `a, b = g0(u0, w)` with b a view of u0, then a
#   write into u0 and a read of b.  The write check took the call's first target `a` as the
#   alias, so eager (which kept `a` unread) accepted the write, while the compiled mode
#   (which had dropped `a`) refused it naming `b`.
# fixed: a call's aliases are decided per target (`ad.analysis.result_sources`): both modes
#   refuse, naming b
# expect: refused
# backend: python
import numpy as np


def g0(r, a):
    return r * a, r[1:]


def f(x, M, w, n):
    u0 = x.copy()
    a, b = g0(u0, w)
    u0[2] = w * 3.0
    return np.sum(np.sin(b))


def fuzz_args():
    x = np.array([1.0407, -1.026, 0.4459, -0.6827])
    M = np.array([[-0.4842, -1.1253, -0.9478, 0.6258], [-1.0342, 0.6172, 1.1236, -0.0105],
                  [-0.589, -0.386, -0.8432, -0.3041]])
    return (x, M, 0.0849, 2)


WRT = (0, 1, 2)
