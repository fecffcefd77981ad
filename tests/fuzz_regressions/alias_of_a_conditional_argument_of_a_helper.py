# found: seed 900118 (--second, the "ifexp" and "keywords" extensions), minimized: a helper
#   returning its argument, given `x if c else u0`, then a write into u0 and a read of x.
#   Both modes refused it: "this write into 'u0' would also change 'x'" -- the write check
#   followed every definition of the helper's temporary (`sel = x` on one path, `sel = u0`
#   on the other) as if each were another name of u0, so x became an alias of u0.
# fixed: only what the written array is another name for has its own definitions followed;
#   an alias made from it shares its buffer as that alias's statement made it
#   (`ad/analysis.py`, `Writes.check`); reading the helper's result after the write is
#   still refused (tests/test_writes_aliases.py)
# backend: python
import numpy as np


def gr0(a, k):
    return a


def f(x, M, w, n):
    u0 = M[2].copy()
    z1 = gr0(k=1, a=x if M[1, 1] < 0.21 else u0)
    u0[2] = w * w
    return np.sum(x * w) + np.sum(u0 * M[0])


def fuzz_args():
    x = np.array([-0.4491, 0.2546, 1.0833, 0.0799])
    M = np.array([[-1.1087, 1.0723, 0.8631, -1.099], [0.7323, -0.7184, -0.618, 0.6547],
                  [0.0232, -0.4308, 0.8389, 0.9279]])
    return (x, M, -1.0773, 3)


WRT = (0, 1, 2)
