# seed: 618121 (size normal, --second, backend python; the generator of fce633c)
# found: hvp refused in both modes ("this write into 'd_S3' would also change 'S9'") in a
#   campaign, but not when the file was checked alone. No state leaked between programs: the
#   campaign's workers imported jitad from /work/main (the virtualenv's editable install, at
#   fce633c), the check alone from the fuzz8 worktree, which already had 71c898c. At
#   fce633c the file is refused alone too; it is the bug of
#   hvp_refused_tangent_alias_of_helper_result.py (g0's jvp returns `(...).T` of a product
#   it makes, and its tangent: one call made every result a possible alias of every argument).
# fixed: 71c898c (a call's results judged one by one, `ad.analysis.result_origins`); campaigns
#   now name the checkout their workers ran in the summary and in each failing file
#   (`tests.fuzz.ran_with`).
# second: yes
# backend: python
import math

import numpy as np


def g0(A, a):
    u0 = np.ones(4)
    u0[2] += math.cos(a if -0.33 < (u0[2] + -1.96) < 0.71 else -1.22)
    t1 = math.tanh((np.sum(A) * (A[0, 2] + a)) * abs(-1.33 if A[0, 1] < math.sqrt(1.0 + A[2, 0] * A[2, 0]) else 1.07))
    return ((A + A).T * np.expand_dims(np.maximum(A[-1], 0.56), 1)).T


def f(x, M, w, n):
    acc = 0.0
    u0 = np.log(1.0 + x * x)
    S1 = np.zeros_like(M)
    S2 = np.zeros((3, 4))
    acc += 0.43
    S2[0] += u0
    S3 = np.zeros_like(M)
    t4 = math.tanh(max(S2[1, 2], np.sum(u0)))
    if (w + M[2, 2]) > -0.34:
        u0 = S3[2].copy()
        st5 = (np.tanh(M[2]), math.tanh(np.dot(x, u0) - u0[1]))
        for i6 in reversed(range(3)):
            st5 = (np.tanh(st5[0] * -0.01 + (S3 @ u0) @ S1), math.tanh(st5[1] + w))
        u7, t8 = st5
        w -= (S1[0] * u7) @ x
    elif (acc * M[-1, 3]) < (u0[0] * t4):
        S9 = g0(S3, w)
        S3[1] = np.cumprod(1.0 + 0.5 * np.tanh(S9[2])) + (acc - S9[2, 1])
        t4, acc = acc, t4
    return np.sum(x) + np.sum(M) + w + 0.93 * acc + np.sum(u0) + np.sum(S1) + np.sum(S2) + np.sum(S3) + t4


def fuzz_args():
    x = np.array([0.5857, -0.0485, -0.9618, -0.728])
    M = np.array([[-0.1203, -0.775, -0.5915, 0.3449], [0.2928, -0.7284, -0.6639, 0.3938], [0.2966, 0.0779, -0.3006, 0.8087]])
    return x, M, 0.6982, 3


WRT = (0, 1, 2)
