# seed: 940126 (size normal, backend python; 940175 and 940183 too), reduced by hand
# found: a crash in both modes: np.trace of a rank-3 array whose first two axes differ
#   (np.stack((S, T)) of 3 x 4 matrices: 2 x 3 x 4) raised "np.einsum: an operand's shape
#   does not match the subscripts" -- the rank-3+ trace was the einsum 'ii...->...', which
#   needs those axes equal, where NumPy sums the first min(n0, n1) diagonal entries.
# fixed: a rank-3+ trace is its own primitive, trace.n (`rt.trace3`, `rt.trace_adjoint3`;
#   `primitives/forms.py`: trace_at), linear for forward mode
# second: yes
import math
import numpy as np


def f(x, M, w, n):
    S = np.tanh(M * w)
    t = np.sum(np.sin(np.trace(np.stack((S, M)))) * x)
    u = np.trace(np.stack((M, S * x[0]), axis=1))
    return t + np.sum(u * u) + np.sum(np.trace(np.stack((M, M, M, M))[:, :2]))


def fuzz_args():
    x = np.array([0.5808, -0.1508, -0.2369, -0.0932])
    M = np.array([[-0.7736, -0.1937, 0.8592, 0.719], [0.3577, 1.0468, 0.3348, 0.7384], [-1.0164, 0.8357, 0.0168, 0.0706]])
    return x, M, 0.4827, 3


WRT = (0, 1, 2)
