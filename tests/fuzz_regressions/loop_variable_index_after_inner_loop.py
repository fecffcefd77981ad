# seed: 40619 and 40916 (size normal, at 854575a), reduced by `python -m tests.fuzz
#   --minimize`, then by hand
# backend: python
# found: compiled gradient wrong, with Numba and with backend="python" (eager and finite
#   differences agree): an inner loop's variable read after that loop as a write index
#   (s[j] = x[i] after `for j`), inside an outer loop: compiled d/dx = [2.1, -0.8, 0.2,
#   0.86], right [4.0, 1.1, 2.1, 0.86].  With s[2] instead of s[j], or an inner loop whose
#   body does not use j, it is right.  Guess: in the outer loop's reverse sweep the adjoint
#   of s[j] = ... reads j as the reversed inner loop left it, not its value after the loop.
import numpy as np


def f(x):
    s = x * 1.0
    for i in range(2):
        for j in range(3):
            s[i] += x[j]
        s[j] = x[i]
    return np.sum(s * s)


def fuzz_args():
    return (np.array([0.25, -0.6, 1.05, 0.43]),)


WRT = (0,)
