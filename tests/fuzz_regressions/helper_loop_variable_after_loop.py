# seed: 40083 (size normal, at 854575a), reduced by `python -m tests.fuzz --backend python
#   --minimize`, then by hand
# backend: python
# found: compiled mode fails on a valid program (eager runs): a helper reads its loop
#   variable after the loop.  With Numba: JitadError "Numba could not compile the generated
#   code: ... Variable 'i' is not defined"; with backend="python": UnboundLocalError 'i'.
#   The split helper's generated code does not define the loop variable where the code
#   after the loop (or the saved state) reads it.  The same statements in f are right.
import numpy as np


def g(r):
    for i in range(3):
        t = r[i] * 2.0
    return t * r[i]


def f(x):
    return g(x)


def fuzz_args():
    return (np.array([0.25, -0.6, 1.05, 0.43]),)


WRT = (0,)
