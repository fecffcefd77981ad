# seed: - (found by a targeted random search of copies, unpacking and writes, written for the
#   tuple-write change; also on main before it), reduced by `python -m tests.fuzz --minimize`
# found: a wrong value in compiled mode (eager right): c4 = v1; v1[1] = np.dot(c4, x); then
#   np.dot(c4, x) again. Normalize's common temporaries took the second np.dot for the first
#   (nothing in between writes c4 by name), so c4 was no longer read after the write and the
#   alias rule let the write through.
# fixed: `simplify.eliminate_common_temps` forgets an expression of any name that may share
#   storage with a written array (linked by a copy, a view, a call); the write is refused in
#   both modes, as a read of c4 after it is.
# expect: refused
# backend: python
import numpy as np


def f(x, w):
    acc = 0.0
    v1 = x * w
    c4 = v1
    v1[1] = np.dot(c4, x)
    acc = acc + np.dot(c4, x)
    return acc


def fuzz_args():
    return (np.array([0.31, -0.72, 0.55, 1.03]), 0.83)


WRT = (0, 1)
