# seed: 620551 (size normal, --second, backend python), reduced by hand
# backend: python
# found: compiled mode only gave NaN gradients (eager mode and finite differences finite): g0
#   never lets its parameter `a` reach its result, but the caller gave the argument np.std(r)
#   an adjoint anyway; its rule then ran on a zero cotangent, 0 * (r - mean) / (n * std) with
#   std 0 (r's entries all equal): 0 * nan. Eager mode records no path from an unused value.
# fixed: a helper call's argument is useful (gets an adjoint) only where the callee's
#   parameter reaches the callee's result (`activity.useful_params`)
import math
import numpy as np


def g0(A, a):
    t0 = a
    return A * 2.0


def f(x, M, w, n):
    r = np.zeros(4) + math.sqrt(1.0 + w * w)
    S = g0(M * w, np.std(r))
    return np.sum(S) + np.sum(x)


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
