# seed: 660165 (size normal, --second), reduced by deleting lines while the fault stayed
# second: yes
# backend: python
# found: the compiled Hessian-vector product (both backends) was wrong at M[0, 0] and M[1, 2]
#   (eager and finite differences of the gradient agree; the gradient itself was right): the
#   tangent function's inner `for i6 in range(n): w *= 0.58` updates only w, which the Hessian
#   does not need, so dead-store removal emptied the loop and then dropped it -- but i6, its
#   last value, is read after it (S8[(2 * i6) % 3, i6]), and stayed 0.
# fixed: an emptied `for` whose variable is read after it stays (`for i6 in range(n): pass`)
import math

import numpy as np


def g0(A, a):
    u0 = A[1].copy()
    t1 = math.tanh((max(A[0, 2], 0.07) - (u0[0] - a)) * math.atan(np.linalg.norm(u0, 1)))
    return A * 1.0, math.tanh((t1 - u0[1]) + np.dot(A[0], A[1]))


def f(x, M, w, n):
    acc = 0.0
    u0 = M[1].copy()
    S1, t2 = g0(np.sin(M), acc)
    S3, t4 = g0(M - M, math.sin(np.sum(np.max(M, axis=1, keepdims=True))))
    k5 = 0
    while True:
        k5 += 1
        if k5 > 3 or (M[-1, 0] - M[n - 1][n - 1]) < (t4 - u0[n - 1]):
            break
        for i6 in range(n):
            w *= 0.58
        S8, t9 = g0(S1, t4)
        t4 -= math.tanh(S8[(2 * i6) % 3, i6])
    return 1.3 * np.mean(x) + np.sum(M) + w + acc + np.sum(u0) + 0.75 * np.mean(S1) + 1.08 * t2 + np.sum(S3) + t4


WRT = (0, 1, 2)


def fuzz_args():
    x = np.array([-0.261, -0.1907, -1.1845, -0.3486])
    M = np.array([[0.2512, -0.8021, 0.3631, -0.3657], [-0.1435, 0.1389, -0.6964, -0.1055],
                  [0.8871, -1.1478, 0.1687, 0.7633]])
    return x, M, -0.263, 3
