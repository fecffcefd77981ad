# seed: - (found by a targeted random search of copies, unpacking and writes in loops, written
#   for the tuple-write change; the first two programs nested `for i` in `for i`), reduced by
#   `python -m tests.fuzz --minimize`, then by hand
# found: compiled gradient wrong (eager and finite differences agree): a counted loop whose
#   body assigns its variable again -- an inner `for i in range(2)` in `for i in range(3)`,
#   or `if ...: i = i + 1` -- then writes v1[i]. The adjoint's reversed loop computes the
#   loop's index again, so the write was undone at the outer index instead of the value the
#   body left in i (compiled d/dx [0, 0, 0, 0.40], right [0.91, 0.62, 0, 0.40] for the first).
# fixed: such a loop counts with an index of its own (`for i_idx in range(3): i = i_idx`,
#   `normalize.structure.own_loop_indices`): i is an ordinary variable, kept by the tape
# backend: python
import numpy as np


def f(x, M, w, n):
    v1 = np.tanh(x)
    for i in range(3):
        for i in range(2):
            v1[i + 1] = v1[i] * w
        v1[i] = w * v1[i]
    for i in range(3):
        if v1[0] > 0.0:
            i = i + 1
        v1[i] = M[1, i] * v1[i]
    return np.sum(v1 * x)


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
