# seed: - (found while reducing the nested-loop tape bug; the generator's loop-variable
#   leak now produces it)
# backend: python
# found: compiled gradient wrong (eager and finite differences agree): a variable assigned
#   in a loop body and read after the loop holds the last iteration's value, but the
#   adjoint sends d/dt to every iteration's assignment: compiled d/dx = [2, 2, 2], right is
#   [0, 0, 2].  Nested form: for i: (for j: t = x[j] * 2.0); s += t.
# fixed: 91c2d46 (reset a loop-local variable's adjoint after every iteration's assignment)
import numpy as np


def f(x):
    for j in range(3):
        t = x[j] * 2.0
    return t


def fuzz_args():
    return (np.array([0.1, 0.2, 0.3]),)


WRT = (0,)
