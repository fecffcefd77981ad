# seed: 618292 (size normal, --second), reduced by hand
# found: one mode only (the generated jvp raised IndexError, eager's was right): the tangent
#   of `x[np.newaxis, :] + np.ones((3, 4))` is the tangent of x[np.newaxis, :] alone, of
#   shape (1, 4); it was not broadcast onto the result's (3, 4) (only a tangent of lower
#   rank was), so reading its row 2 went out of bounds.
# fixed: an elementwise tangent that does not read every array operand is broadcast onto
#   the result (`ad.forward`)
# second: yes
# backend: python
import numpy as np


def f(x, M, w, n):
    u = (x[np.newaxis, :] + np.ones((3, 4)))[2]
    return np.sum(u * u) * w


def fuzz_args():
    x = np.array([0.0526, -0.7053, -0.5841, 0.838])
    M = np.array([[-0.511, -0.6967, -0.6673, 1.1529], [0.0059, -0.8854, 0.1115, 0.831],
                  [1.1689, -0.0099, -0.1441, 0.9349]])
    return (x, M, 0.958, 1)


WRT = (0, 2)
