# seed: 410204 (size normal, new features), reduced by `python -m tests.fuzz --minimize`, then
#   by hand
# backend: python
# found: compiled mode refused (eager ran, and was right) a write into a helper's result that
#   is a view of an array the helper made (return ..., np.flip(u1); u3[[1, 3]] = 1.13): the
#   write rules, run on the functions as written, allow it; inlining bound the helper's local
#   view to the caller's name, and the rules met again on the inlined code refused it.
#   Checked without Numba: the refusal was in the front end.
# fixed: ad85186 (such a result is copied into the call's target when inlined)
import numpy as np


def g0(r, a):
    u1 = np.ones(4) * a
    return u1[3], np.flip(u1)


def g1(A, r):
    t2, u3 = g0(A[2], r)
    u3[[1, 3]] = 1.13
    return A[1] * np.sum(u3) * t2


def f(x, M, w, n):
    return np.sum(g1(M * w, 0.5))


def fuzz_args():
    x = np.array([-0.5147, 0.4696, 0.5241, 0.7678])
    M = np.array([[0.4569, 0.0591, -0.2105, -0.9353], [-0.1237, -0.4414, -0.7842, 0.6755],
                  [0.377, 1.089, 1.1795, 0.5252]])
    return x, M, -1.1702, 1


WRT = (0, 1, 2)
