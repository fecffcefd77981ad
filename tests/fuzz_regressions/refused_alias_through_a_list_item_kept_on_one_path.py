# written by hand (fuzz26) beside reduce_of_a_display_holding_a_view_then_a_write: the
#   alias closure now stops at a definition by a new array on every path; here r = hs[0] is
#   S[1] (an append to the list does not end that), and u is r on the path n <= 1, so the
#   write into S must still be refused (r and u are read after it)
# backend: python
# expect: refused
import numpy as np


def f(x, M, w, n):
    S = M * w
    hs = [S[1]]
    hs.append(x * 1.0)
    r = hs[0]
    u = r
    if n > 1:
        u = x * 2.0
    S[1] = np.tanh(x)
    return np.sum(S) + np.sum(r * w) + np.sum(u)


def fuzz_args():
    x = np.array([-0.1673, -1.104, 0.4585, 0.4473])
    M = np.array([[-0.906, -1.0685, 0.88, 1.0138], [0.8936, 0.0122, -0.8288, 0.8079],
                  [-0.9283, -0.8262, 0.6013, -1.0028]])
    return x, M, 0.6791, 3


WRT = (0, 1, 2)
