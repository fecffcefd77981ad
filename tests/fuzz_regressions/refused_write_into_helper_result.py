# seed: 284 and 316 (size normal), hand-reduced
# backend: python
# found: compiled refuses, eager runs (a JitadError in one mode only): a write into the
#   array a helper returns is refused even when the helper created it (y = r * 1.0):
#   "'u' may alias another array (it is assigned from a view or another variable)".  An
#   in-place update of it (u -= x) is refused the same way ("in-place update of a shared
#   array").  The helper's result is a fresh array, so the write is safe.
import numpy as np


def g(r):
    y = r * 1.0
    return y


def f(x):
    u = g(x)
    u[1] = 0.0
    return np.sum(u * u)


def fuzz_args():
    return (np.array([0.5, -0.25, 0.75, 1.0]),)


WRT = (0,)
