# seed: none -- found by a helper reviewing scalarize (a generated row loop hung), reduced
#   to user code by hand
# backend: python
# found: compiled gradient refused at run time (IndexOutOfRange at d[k]) for correct code,
#   an endless loop where no index was checked: scalarize folded `k = 0` into the test of
#   the `while` that increments k (`while 0 < 2:`), as if the test were read once, before
#   the body, like an `if` test or a `for` iterable
# fixed: a `while` test sees only the constants its body leaves alone
import numpy as np


def f(x):
    d = np.zeros(2)
    s = 0.0
    k = 0
    while k < 2:
        d[k] = x[k] * 2.0
        s = s + d[0] * x[0] + d[1] * x[1]
        k += 1
    return s


WRT = (0,)


def fuzz_args():
    return (np.array([0.5, 1.5]),)
