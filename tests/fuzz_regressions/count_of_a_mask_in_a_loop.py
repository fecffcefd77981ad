# seed: 550009 (size large, --second), reduced by `python -m tests.fuzz --second --minimize`,
#   then by hand
# second: yes
# backend: python
# found: the generated Hessian-vector product was twice the right one at M[0, 0] (eager and
#   finite differences of the gradient agree): the tangent of np.max divides by the count of
#   tied entries, np.sum(t_tanh == t_max), which jitad typed as a bool (NumPy: an int), so
#   around the loop it was taped as uint8 and restored as True -- 1 for 2.  The same fault gave
#   a silently wrong first-order gradient: k = np.sum(M[i] > c); t += np.sum(M[i] * w) / k.
# fixed: c245f82 (np.sum/np.prod of a boolean array is an int)
import numpy as np


def f(x, M, w, n):
    t = 0.0
    for i in range(3):
        k = np.sum(M[i] > -0.9)
        t += np.sum(M[i] * w) / k
    for i6 in range(2):
        t += np.max(np.tanh(np.tile(M[i6][:n], 2)))
    return t


def fuzz_args():
    x = np.array([-0.6255, -0.9615, 0.6525, -0.7396])
    M = np.array([[-0.1787, 1.1593, -0.8781, -0.1683], [-1.0931, -0.1485, -0.5929, -0.6901],
                  [0.001, -0.9384, -0.0555, -1.0674]])
    return x, M, 0.8761, 1


WRT = (0, 1, 2)
