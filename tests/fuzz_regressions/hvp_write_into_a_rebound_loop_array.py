# seed: 230084 (size normal, --second), reduced by `python -m tests.fuzz --second --minimize`
# second: yes
# backend: python
# found: the Hessian-vector product refused, in both modes, a program whose gradient is right:
#   "'u0' may alias another array ... (while differentiating f a second time: in its generated
#   code `u0[n] = u0_add`)".  The generated tangent code of `u0 = np.tanh(u0)` was
#   `u0_new = np.tanh(u0); d_u0 = ...; u0 = u0_new`, so u0 was another variable's buffer when
#   the next iteration wrote into it.  Checked without Numba: the refusal is in the front end.
# fixed: 8d2490b (u0_old = u0; u0 = np.tanh(u0_old): the result is assigned to u0 itself)
import math

import numpy as np


def f(x, M, w, n):
    acc = 0.0
    u0 = M[0] + acc
    for i2 in range(2):
        u0[n] += acc
        u0 = np.tanh(u0)
    return np.sum(u0)


def fuzz_args():
    x = np.array([-0.4563, 0.2248, -0.5168, -0.133])
    M = np.array([[0.6244, 0.2265, -0.9826, 0.7928], [-0.6637, -0.4473, 0.84, 0.2574],
                  [-1.1697, -0.5079, -0.6124, 0.67]])
    return x, M, 0.5673, 3


WRT = (0, 1, 2)
