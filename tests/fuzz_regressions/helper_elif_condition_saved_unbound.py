# seed: 41130 (size normal, at 854575a), reduced by `python -m tests.fuzz --backend python
#   --minimize`, then by hand
# found: compiled crashes with backend="python" (eager runs; with Numba the gradient happens
#   to be right): a split helper's saved state includes the `elif` condition (cond_ge),
#   which is never evaluated when the first branch is taken: UnboundLocalError 'cond_ge'.
#   Same family as helper_ternary_saved_value_unbound.py: saved values assigned on some
#   paths only.
# backend: python
import numpy as np


def g(r, a):
    if r[2] < r[0]:
        pass
    elif a >= 0.39:
        a += a
    return a


def f(x):
    return g(x, x[3]) * x[1]


def fuzz_args():
    return (np.array([0.25, -0.6, 0.05, 0.43]),)


WRT = (0,)
