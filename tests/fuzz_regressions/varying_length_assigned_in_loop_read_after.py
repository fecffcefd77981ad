# seed: 428, 666, 891 (size normal, --backend python), reduced by
#   `python -m tests.fuzz --minimize`, then by hand
# found: compiled gradient wrong (IndexError under Numba's bounds checking, garbage without
#   it): a vector whose length changes between iterations (x[:4 - i], x[i:]), assigned in a
#   loop and read after it.  Its adjoint, owned outside the loop, restarts as np.zeros_like(p)
#   after each iteration's assignment is undone, but p was not kept per iteration: the zeros
#   had the last iteration's length, and the earlier iterations' adjoints were added into them.
# fixed: analysis keeps such a variable per iteration (it was kept only when its adjoint is
#   owned inside a loop)
import numpy as np


def f(x, n):
    for i in range(n):
        p = x[:4 - i].copy()
        q = np.sin(x[i:])
    return np.sum(p) + np.sum(q)


def fuzz_args():
    return (np.array([0.83, -0.1563, -0.0164, 0.8277]), 3)


WRT = (0,)
