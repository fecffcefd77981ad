# seed: - (found by a targeted random search of copies, unpacking and writes, written for the
#   tuple-write change), reduced by `python -m tests.fuzz --minimize`
# found: compiled gradient wrong: st2 = (v1, ...); v3, tt = st2; v1[2] = w; then v1 = v3 in a
#   loop. v3 is another name for v1's buffer, read after the write. The alias search reached
#   v3 first through the copy after the write (v1 = v3, which does not reach the write) and
#   did not look at it again through the copies before it.
# fixed: the alias search keeps an alias once per statement it is judged from (`Writes.check`);
#   the write is refused in both modes.
# expect: refused
# backend: python
import numpy as np


def f(x, w):
    v1 = np.tanh(x)
    st2 = (v1, x[2])
    v3, tt = st2
    v1[2] = w
    for i in range(3):
        v1 = v3
    return np.sum(v1)


def fuzz_args():
    return (np.array([0.31, -0.72, 0.55, 1.03]), 0.83)


WRT = (0, 1)
