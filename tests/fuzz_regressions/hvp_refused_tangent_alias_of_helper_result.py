# seed: 580007 (size normal, --second, Numba), partly reduced by `python -m tests.fuzz --second
#   --minimize` (stopped at its 400 checks)
# second: yes
# backend: python
# found: wrong refusal in both modes: g0's jvp returns its value, a row of an array it makes,
#   and its tangent; one result viewing the callee's own array made the whole call count as
#   possibly aliasing every argument, so `u4, d_u4 = g0_jvp(u0, ..., d_u0, ...)` made u4 an
#   alias of d_u0 and the tangent's write `d_u0[1] = ...` was refused.
# fixed: which arguments (or other results) a call's result may share storage with is decided
#   per result (`ad.analysis.result_origins`)
import math
import numpy as np

def g0(r, a, s=1.0):
    p0 = np.pad(r[2:], (1, 2))
    u1 = np.cumsum(r)
    return (np.cumsum(np.ones((3, 4)), axis=0) - np.cumsum(np.ones((3, 4)), axis=0).max(axis=0, keepdims=True))[0]

def f(x, M, w, n):
    acc = 0.0
    u0 = x.copy()
    S1 = np.zeros((3, 4))

    def h2(v, s):
        return np.tanh(v * math.tanh(acc) + s) * w
    u3 = h2(np.sin(M[0]), math.tanh(S1[2, n - 1]))
    u4 = g0(u0, w, s=math.atan(x.sum()))
    w = np.mean(S1[n - 1] / (1.0 + u4 * u4))
    u5 = u4 - S1[1] - np.mean(u4 - S1[1], keepdims=True)
    t6 = w + u3[1] * (w * S1[1, n - 1])
    b7 = None
    for i8 in range(n):
        u0 = np.tanh(g0(u0, w))
        w = 0.5 * w + 0.5 * math.atan(u3[i8])
        if b7 is None:
            b7 = np.sin(np.sum(S1, axis=0) + (S1 - S1.max(axis=0, keepdims=True))[i8])
        else:
            b7 = 0.5 * b7 + 0.5 * np.arctan((u5 + u0[(i8 + 1) % 4]) * (u5[(i8 + 1) % 4] + u3[2 * i8 % 4]))
    t9 = 0.0
    if b7 is not None:
        t9 = np.sum(b7)
    if x[1] > 0.02:
        for i10 in range(n):
            y11 = math.tanh(w) * S1[i10]
            S1[i10] = y11
            acc += np.sum(y11)
    elif np.sum(np.sum(S1, axis=0)) < -0.05:
        u0[1] = math.log1p(u3[n - 1] * u3[n - 1]) + np.sum(M)
        u0[2] += x[2]
    return np.dot(x, x) + np.sum(M) + 0.95 * w + 1.34 * acc + 0.79 * np.mean(u0) + np.sum(S1) + np.sum(u3) + 0.83 * np.mean(u4) + 0.98 * np.mean(u5) + t6 + 1.15 * t9

def fuzz_args():
    x = np.array([1.0407, -1.026, 0.4459, -0.6827])
    M = np.array([[-0.4842, -1.1253, -0.9478, 0.6258], [-1.0342, 0.6172, 1.1236, -0.0105], [-0.589, -0.386, -0.8432, -0.3041]])
    return (x, M, 0.0849, 2)
WRT = (0, 1, 2)