# seed: 620028 (size normal, --second, backend python), reduced by hand
# found: hvp refused in both modes ("polyval has no derivative rule in jitad"): the jvp calls
#   the primal of a NumPy function jitad defines by NumPy (`prelude.polyval`) where it needs
#   no tangent (an `if` test); read again as a function, that call by the definition's own
#   name was a call of a jitad function without a rule.
# fixed: a definition called by its own name is itself (`prelude.definition`)
# second: yes
# backend: python
import math
import numpy as np


def f(x, M, w, n):
    t = w * x[0]
    if np.polyval(x, math.tanh(w)) > 0.1:
        t = t * np.sum(M)
    return t + np.polyval(M[0], w) + np.ptp(x * w)


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
