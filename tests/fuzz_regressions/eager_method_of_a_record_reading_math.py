# seed: 940302 (size normal, backend python; 940350 too), reduced by hand
# found: a refusal in eager mode alone (compiled ran, and was right): a NamedTuple's method
#   reading math (rq.score(t): math.tanh(self.c)) ran as written in eager mode -- float() of
#   a Var -- as only a class's static methods were rebuilt with eager math; a dataclass's
#   method alike, and a record given as an argument (tests/test_eager.py).
# fixed: eager mode rebuilds a record class's methods too (`eager.functional._Patcher.
#   user_class`) and makes each record argument an object of that class (`eager_records`)
# backend: python
import dataclasses
import math
from typing import NamedTuple

import numpy as np


class Rec(NamedTuple):
    A: np.ndarray
    r: np.ndarray
    c: float

    def score(self, a):
        return np.sum(np.tanh(self.A @ self.r)) * math.tanh(self.c) + a


@dataclasses.dataclass
class Par:
    A: np.ndarray
    c: float = 0.5

    def power(self, s):
        return math.sin(self.c) * np.sum(self.A * self.A) * s


def f(x, M, w, n):
    rq0 = Rec(M + M, np.tanh(x), -1.32 / (2.0 + math.cos(w)))
    rq1 = rq0._replace(c=math.tanh(w * x[0]))
    pa = Par(M * w)
    return rq0.score(math.tanh(x[1])) + rq1.score(w) + pa.power(x[2]) + dataclasses.replace(pa, c=w).power(1.0)


def fuzz_args():
    x = np.array([-0.9472, -0.7432, -0.9051, 0.5797])
    M = np.array([[0.0963, 0.6644, 0.5638, 1.0768], [0.7983, 0.6056, 0.7374, -0.8532], [-0.7242, -0.2311, -0.9789, -0.7623]])
    return x, M, 0.5327, 2


WRT = (0, 1, 2)
