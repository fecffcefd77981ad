# seed: 616071 (size normal), reduced by hand
# found: crash in both modes (IndexError inside the analysis): a helper calling a library
#   function jitad has no rule for with constants only (`np.eye(3, 4)`, an opaque call, which
#   counts as a possible view of its first operand) made the per-result alias analysis read
#   the operand it does not have.
# fixed: a "view" with no array operand is an array of the callee's own
#   (`ad.analysis.result_origins`)
# backend: python
import numpy as np


def g0(A, a):
    return A * a + np.eye(3, 4), a * 2.0


def f(x, M, w, n):
    S, t = g0(M, w)
    S[0, 1] = t
    return np.sum(x) + np.sum(S * S)


def fuzz_args():
    x = np.array([0.943, -0.3773, -0.8419, 0.6496])
    M = np.array([[-1.1195, 0.5668, 0.3177, -0.6668], [0.9314, 0.7914, 0.957, 0.2174],
                  [0.2153, 0.7316, 0.3939, -0.2746]])
    return (x, M, 0.5728, 1)


WRT = (0, 1, 2)
