# seed: 960100 (size normal, backend python; fuzz21's 'lists2'), reduced by hand
# found: compiled crash in both backends: np.array(ls) of a comprehension whose condition held
#   nowhere raised "need at least one array to stack" (rt.stack_list) where NumPy gives the
#   empty float array np.array([]) (its sum 0.0); the eager Hessian-vector product alike (its
#   generated tangent code spelled the stack np.stack).
# fixed: rt.empty_stack (an empty vector of the list's dtype for a list of numbers; a Numba
#   overload, as the element type of an empty list is known only to its type), the tangent
#   code's stack spelled np.array (`runtime_calls.AS_NUMPY`)
# second: yes
import math

import numpy as np


def f(x, M, w, n):
    acc = 0.0
    ls = [math.tanh(w) * x[j] for j in range(4) if x[j] > 5.0]
    acc += np.sum(np.array(ls)) * 0.1 + len(ls) * 0.1 + sum(ls) * w
    hs = [math.tanh(x[j] * w) for j in range(n)]
    for k in range(n):
        hs.append(np.sum(M[k]) * w)
    return acc + w * np.sum(x) + np.sum(np.array(hs) ** 2)


def fuzz_args():
    x = np.array([-0.1673, -1.104, -0.4585, -0.4473])
    M = np.array([[-0.906, -1.0685, 0.88, 1.0138], [0.8936, 0.0122, -0.8288, 0.8079],
                  [-0.9283, -0.8262, 0.6013, -1.0028]])
    return x, M, 0.6791, 2


WRT = (0, 1, 2)
