# seed: 93046 (normal, the first campaign with lists)
# found: compiled crash (IndexError under bounds checking; without them, reads past an array):
#   a list made in each iteration and grown under a test has a different length in each
#   iteration; the adjoint of its stack started as zeros shaped like the last iteration's.
# fixed: fc92b52 (arrays whose shape may change between assignments keep each value)
import math

import numpy as np


def f(x, M, w, n):
    acc = 0.0
    for i2, r1 in enumerate(M):
        hs3 = [math.sin(i2) * w]
        if r1[3] >= acc:
            hs3.append(w * x[i2])
        t5 = np.sum(np.stack(hs3) ** 2)
        acc = acc + t5
    return acc


def fuzz_args():
    x = np.array([-0.7238, -1.1384, -0.1132, 1.0655])
    M = np.array([[-0.9868, -0.7408, -0.4588, 0.5758], [-1.0004, 0.8224, -0.5103, -1.1581],
                  [-1.1028, 0.1098, -0.8008, -0.2526]])
    return (x, M, -0.1276, 1)


WRT = (0, 1, 2)
