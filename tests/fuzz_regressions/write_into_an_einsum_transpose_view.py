# seed: 1006476 (size normal, backend python), reduced by `python -m tests.fuzz --minimize`
#   then by hand (fuzz26)
# found: eager value silently wrong (with backend="python" the compiled value right, as its
#   generated code calls np.einsum; with Numba the compiled value wrong too) and the gradient
#   SILENTLY WRONG in both modes (d/dM[2] is 1, not 1 - tanh(M[2])**2): NumPy's einsum of a pure axis permutation ('ij->ji', also 'ii->i')
#   returns a VIEW of its operand, so S2[2] = ... writes into S1 (and M's copy's sum sees
#   it); jitad takes einsum's result for a new array, so the write is neither refused as a
#   write through an alias nor seen by S1.
# fixed: a one-operand einsum that sums no letter ('ij->ji', 'ii->i', 'ij->ij') is a view
#   primitive (`primitives.einsum.of`: view, not fresh), so the write rules take S2 for a
#   view of S1 and refuse the write seen through it, in both modes.
# backend: python
# expect: refused
import numpy as np


def f(x, M, w, n):
    S1 = M.copy()
    S2 = np.einsum('ij->ji', S1.T)
    S2[2] = np.tanh(S1[2])
    return np.sum(S1)


def fuzz_args():
    x = np.array([0.3248, 0.7178, 1.0214, -0.9937])
    M = np.array([[1.0129, -0.4546, -0.636, 0.6358], [-0.3591, -0.9424, 0.4049, 1.0287],
                  [1.0582, -1.1791, 0.4493, -0.979]])
    return x, M, -0.4439, 1


WRT = (0, 1, 2)
