# seed: - (written by hand while minimizing seed 230084 of the --second campaign)
# second: yes
# backend: python
# found: forward mode silently wrong (jitad.jvp compiled, with Numba and without, and so the
#   Hessian-vector product, generated and eager alike: the finite differences of the gradient
#   disagree): for `u = u ** w` the tangent d_u * w * u ** (w - 1) + d_w * y * log(u) read the
#   new u in place of the old one -- when the result overwrote an operand, the tangent was
#   moved after the primal statement and every `u` in it renamed to the result.  Any rule
#   whose tangent reads both the result and the overwritten operand was hit (x ** w, norm,
#   std, logsumexp, det, solve ...).  Checked without Numba: the fault is in the generated
#   source, and the Hessian's compilation would cost seconds here.
# fixed: 8d2490b (the operand's old value is named u_old, read by the primal statement and
#   the tangent; the result is assigned to u itself)
import numpy as np


def f(x, M, w, n):
    u = x * x + 1.5
    t = w * w + 1.2
    for i in range(2):
        u = u ** w
        t = t ** w
    return np.sum(u) + t


def fuzz_args():
    x = np.array([1.0593, 0.7703, 1.071, -0.8227])
    M = np.array([[-0.0499, -0.8154, 0.7228, 0.6039], [0.9732, -0.935, -0.8528, 1.1218],
                  [0.5458, -0.3499, -0.5513, -0.9366]])
    return x, M, 0.78, 3


WRT = (0, 1, 2)
