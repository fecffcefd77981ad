# seed: 221 (size large, --backend python), reduced by `python -m tests.fuzz --minimize`,
#   then by hand
# fixed: reverse.py takes the zero cotangent before the restore
# found: compiled raises ValueError with backend="python", gives NaN gradients with Numba
#   (eager and finite differences agree): S, the first result of the cut g0 (costly: rank 2),
#   is kept per iteration (it is written, and g0's saved state holds it: tanh's adjoint reads
#   its output), but S's value never reaches the result, so its cotangent is built as
#   np.zeros_like(S) -- after the adjoint restored S to the previous iteration's value (at the
#   first iteration, the (0, 0) placeholder): g0_bwd gets a cotangent of the wrong shape.
#   reverse.py (the CALL rule): zeros for a result without cotangent must be shaped like the
#   value the call returned, i.e. built before the targets are restored.
# backend: python
import numpy as np


def g0(A, a):
    return np.tanh(A * a), a * a


def f(x, M, w):
    for i in range(2):
        S, t = g0(np.zeros_like(M), w)
        w = np.tanh(t)
        S[2] += x * w
    return w


def fuzz_args():
    M = np.array([[-0.274, -0.0742, -0.6128, 0.3624], [-0.3837, -0.2492, -0.7881, 0.6682],
                  [-0.9968, 0.0467, -0.4041, 0.202]])
    return (np.array([-0.8325, 1.1172, 0.5601, -0.5039]), M, 0.7)


WRT = (0, 2)
