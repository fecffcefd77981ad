# seed: 5139, 5211, 5417 (size normal, --without leak), reduced by
#   `python -m tests.fuzz --minimize`, then by hand
# backend: python
# found: compiled gradient wrong, with Numba and with backend="python" (eager and finite
#   differences agree): a helper that reassigns a parameter (a = math.atan(a)) gets an
#   adjoint that reads the parameter's value at entry: compiled d/dx[0] is 0.5 (= a),
#   right is atan(0.5) = 0.4636.  Other forms seen: c = a; a = b; return a * c, and the
#   swap b, a = a, b.  The same statements in f itself are right.
# fixed: 6770109 (a split helper's saved state holds the parameter's last value)
import math

import numpy as np


def g(r, a):
    a = math.atan(a)
    return a * r


def f(x):
    return g(x[0], 0.5)


def fuzz_args():
    return (np.array([0.25, -0.6, 1.05, 0.43]),)


WRT = (0,)
