# seed: 1003031 (size small, fuzz24's tempview extension), reduced by hand
# found: gradient right, Hessian-vector product refused in both modes: "'d_tv0' may alias
#   another array" (a name the user never wrote). hvp differentiates the generated tangent
#   function, where the tangent of np.sin(M * M) * c is d = np.zeros_like(t) filled by a loop,
#   then d_tv0 = d.T is written; only a map's loop counted as the definition of a temporary
#   whose view is written, and zeros_like reading t's shape as a second reader of t.
# fixed: a view of a new array is its only name when the array's other readers, between its
#   definition and the view, are writes into it or reads giving numbers or new arrays
#   (`Writes._view_of_a_temporary`, 038be04).
# expect: ok
# backend: python
# second: yes
import math

import numpy as np


def f(x, M, w):
    tv0 = (np.sin(M * M) * 0.07).T
    tv0[3] = math.tanh(math.sin(np.sum(x[::-1]) * w))
    return np.sum(tv0[:, 2] * x) + w * np.sum(tv0 * tv0)


def fuzz_args():
    return (np.array([0.31, -0.72, 0.55, 1.03]),
            np.array([[0.2, -0.4, 0.7, 0.1], [0.5, 0.3, -0.6, 0.9], [-0.3, 0.8, 0.2, -0.5]]),
            0.83)


WRT = (0, 1, 2)
