# seed: - (the pattern of issue 9; the fuzzer's s_view_pattern generates it)
# backend: python
# found: compiled d/dw wrong (eager and finite differences agree): a row read into a new
#   value, then written back, in a loop (y = w * s[0]; s[0] = y).  Compiled d/dw is
#   [0.625, 15.75], eager and finite differences [2.0, 8.0].
# fixed: 96b90d6 (a value read through a view makes the view's base needed)
import numpy as np


def f(st, w):
    s = st.copy()
    total = 0.0
    for t in range(2):
        y = w * s[0]
        s[0] = y
        total += np.sum(y)
    return total


def fuzz_args():
    return np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.5, 1.5])


WRT = (0, 1)
