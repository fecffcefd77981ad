# found: by hand, checking the fix of helper_calling_a_library_function_without_operands:
#   `S = np.eye(3, 4) * a` inside a helper is fine, but a "view" with no array operand
#   (`np.eye(3, 4)` alone, an opaque call) had no origin at all, so `return S, S[0]` counted
#   as two results sharing nothing, and the write `S[0, 1] = ...` in the caller would not
#   have been seen through r.  Both modes must refuse it.
# fixed: such a call's result is an array of the callee's own, which both results share
#   (`ad.analysis.result_origins`)
# expect: refused
# backend: python
import numpy as np


def g0(a):
    S = np.eye(3, 4)
    return S, S[0]


def f(x, M, w, n):
    S, r = g0(w)
    S[0, 1] = w * 3.0
    return np.sum(x * r) + np.sum(S)


def fuzz_args():
    x = np.array([0.943, -0.3773, -0.8419, 0.6496])
    M = np.array([[-1.1195, 0.5668, 0.3177, -0.6668], [0.9314, 0.7914, 0.957, 0.2174],
                  [0.2153, 0.7316, 0.3939, -0.2746]])
    return (x, M, 0.5728, 1)


WRT = (0, 1, 2)
