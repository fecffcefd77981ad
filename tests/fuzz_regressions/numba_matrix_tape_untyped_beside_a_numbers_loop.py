# seed: 941016 (size normal, backend numba), reduced by hand
# found: a crash in compiled mode with Numba alone (eager and backend python right): "Cannot
#   infer the type of variable 'tape_f8_2d', have imprecise type: list(undefined)" -- a list
#   tape of float matrices no push types. It needs the loop calling g2 (g2 -> g1 -> g0, a cut
#   helper returning a matrix in a tuple, written into after the call) and g0 in f's loop, and
#   the numbers-only loop after it (without that loop, or without the g2 call, it compiles).
# fixed: dead code removal had taken every push and pop of that tape (`tapes.unread_pairs`),
#   but the checkpointed loop's size check still read len(tape_f8_2d), so `tape_f8_2d = []`
#   stayed, appended to nowhere; a list nothing appends to is empty: its len() is 0 and the
#   list goes (`codegen._never_appended`)
# expect: ok
# backend: numba
import dataclasses
import math
from typing import NamedTuple

import numpy as np


def g0(A, a):
    p0 = np.linspace(-1.0, 1.0, 2 + 1)
    a += a
    pk0 = (np.tanh((np.diag(A[-1][:3]) @ A) * np.mean(A * A[2], axis=1, keepdims=True)), math.tanh(np.sum(np.max(A + float(p0.shape[0]), axis=-1, keepdims=True) * A)))
    return pk0


def g1(r, a):
    S1, t2 = g0(a=a, A=np.ones((3, 4)) * r)
    a += np.sum(np.maximum(S1[0], 0.44)[1:3])
    S1[0] += np.tanh(np.sin(r))
    S1[[2, 2], [2, 2]] = np.max(-1.45 * S1[0])
    return np.sum(np.sin(r))


def g2(a, b):
    t3 = g1(-0.05 - np.ones(4), a)
    a -= t3
    S4, t5 = g0(np.ones((3, 4)) * np.ones(4), math.tanh(a))
    t3, b = b, t3
    t5 = math.sin(g1(np.tanh(S4[0]), math.tanh(a)))
    return t5


def gd0(p, a):
    s = a * 0.5
    for key, v in p.items():
        s = s + 0.1 * np.sum(np.tanh(v))
    return s


@dataclasses.dataclass
class Par:
    A: np.ndarray
    r: np.ndarray
    c: float = 0.5


class Rec(NamedTuple):
    A: np.ndarray
    r: np.ndarray
    c: float

    def score(self, a):
        return np.sum(np.tanh(self.A @ self.r)) * math.tanh(self.c) + a


def gq0(p, a):
    return np.sum(np.tanh(p.A @ p.r + p.c)) * a / 3.0


def f(x, M, w, n):
    acc = 0.0
    S0 = np.tanh(M) * np.cumsum(M, axis=0)[n - 1]
    u1 = x.copy()
    z2 = 0.0
    for i2 in range(1, n):
        u1[i2 - 1] += g2(b=M[i2, n // 2], a=x[(i2 + 1) % 4]) / (2.0 + math.cos(x[i2]))
        pk3 = g0(a=math.atan(np.sum(np.max(M, axis=1, keepdims=True))), A=np.tanh(M + S0))
        S6, t7 = pk3[0].copy(), pk3[1]
    c4 = np.sum(x) + np.sum(M) + w + acc + np.mean(S0) + np.dot(u1, u1) + z2
    for j4 in range(5):
        if j4 % 3 == 0:
            continue
        t4_c4 = c4 + (x[j4 % 4] - acc)
        t4_0 = math.sin(t4_c4 * (w - 0.1 * j4) * math.exp(-w * w))
        t4_1 = t4_0 + ((w - acc) + (0.71 + 0.1 * j4))
        t4_2 = math.sin(t4_1 * math.sqrt(1.0 + math.sqrt(1.0 + acc * acc) * math.sqrt(1.0 + acc * acc)))
        c4 = 0.6 * c4 + 0.4 * math.tanh(t4_2 + math.tanh(-0.54 * t4_0))
        if c4 > -0.03:
            break
    return c4


def fuzz_args():
    x = np.array([-0.7254, 1.1296, -0.0042, 0.2892])
    M = np.array([[-1.0148, 0.2345, -0.3346, -0.0445], [-0.9338, -0.5584, -0.6377, -0.7234], [0.0444, 0.8747, 0.89, -0.1253]])
    return x, M, 1.1704, 1


WRT = (0, 1, 2)
