# seed: 31 (size small) and 664 (size normal), hand-reduced
# found: compiled crashes (eager runs): a helper called once is split into g_fwd/g_bwd, and
#   g_fwd returns, as saved state, a temporary of one arm of a conditional expression
#   (1.0 + a * a) that the other arm never assigned: with backend="python"
#   UnboundLocalError "cannot access local variable 't_add'".  With Numba the gradient
#   happens to be right: the saved slot is read uninitialized and not used on that path.
# backend: python
import numpy as np


def g(a, b):
    t = a / (1.0 + a * a) if b >= 0.0 else 2.0
    return t


def f(x):
    return g(x[0], x[1]) + x[2]


def fuzz_args():
    return (np.array([0.5, -0.25, 0.75]),)


WRT = (0,)
