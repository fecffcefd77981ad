# seed: 56 (size normal), reduced by `python -m tests.fuzz --minimize`, then by hand
# backend: python
# found: eager gradient wrong (compiled and finite differences agree): after an element
#   read u = s[0] * 1.0 (a recorded node referencing s), two element writes s[0] = x[3];
#   s[1] = x[3] keep only the second write's history: eager d/dx[3] is 1.0, right is 2.0.
#   One write, or no element read before them, is right.  Likely the root cause of the
#   other eager_* regressions too (copy-on-write of writes into a referenced array).
# fixed: the root cause was in the reverse pass, not copy-on-write: the setitem node's
#   adjoint of the overwritten array (g with g[idx] = 0, zeroed in place when the engine
#   owns g) was formed before the adjoint of the written value (g[idx]) whenever the array's
#   node already had another consumer; backward() now visits a node's inputs last to first
import numpy as np


def f(x):
    s = x.copy()
    u = s[0] * 1.0
    s[0] = x[3]
    s[1] = x[3]
    return np.sum(s) + u


def fuzz_args():
    return (np.array([-0.1471, 0.3183, -0.3932, -0.5835]),)


WRT = (0,)
