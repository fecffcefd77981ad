# seed: 1006156 (size normal, backend python, --second), reduced by hand (fuzz26)
# found: wrong refusal in both modes, "this write into 'S' would also change 'r', an alias of
#   it made at line 19": functools.reduce(f, [M[2], S[1], x]) without a start is
#   `acc = xs[0]` then a loop of two trips `acc = f(acc, xs[k])`, so r is f's new array; but
#   analysis' alias closure (analysis.py, the write-through-an-alias check) follows
#   S -> S[1] -> the list -> acc = xs[0] -> r flow-insensitively, and does not see that the
#   loop's fresh `acc = ...` kills the alias made by `acc = xs[0]` before r = acc reads it.
# fixed: the alias closure follows a step src -> t at statement s only where the statement
#   that made src an alias reaches s without passing a definition of src by a new array
# backend: python
import functools

import numpy as np


def f(x, M, w, n):
    S = M * w
    r = functools.reduce(lambda p, q: 0.19 * p + np.tanh(q), [M[2], S[1], x])
    S[0] = np.tanh(r)
    return np.sum(S) + np.sum(r)


def fuzz_args():
    x = np.array([-0.1673, -1.104, 0.4585, 0.4473])
    M = np.array([[-0.906, -1.0685, 0.88, 1.0138], [0.8936, 0.0122, -0.8288, 0.8079],
                  [-0.9283, -0.8262, 0.6013, -1.0028]])
    return x, M, 0.6791, 3


WRT = (0, 1, 2)
