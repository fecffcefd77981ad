# seed: 1000069 (size normal; 1000072, 1000086 too), reduced by hand
# backend: python
# found: le.insert(1, v) in a loop nested in another loop was refused in both modes ("'le_inserted'
#   is used after `le = le_inserted`: the two names would be one list"), naming a list the user
#   never wrote, and so was `le2 = [...]; le = le2` written by hand there: normalize.lists'
#   dead_after took the inner loop, which gives the list a new value before reading it, for a
#   read of it when it asked whether the outer loop's next iteration reads it first.
# fixed: lists._next_touch looks into if, for and while statements (a loop kills the name
#   when its body does first and it surely runs, a range(3); else what follows decides)
import math

import numpy as np


def f(x, M, w, n):
    acc = 0.0
    for i in range(2):
        k = 0
        while k < 3 and i % 2 == 0:
            k += 1
            le = [math.tanh(w * x[k]), x[1] * w]
            le.insert(1, math.tanh(float(k) + M[0, k]))
            acc += math.tanh(sum(le) * 0.84)
    for j in range(n):
        for k in range(3):
            ls = [np.tanh(M[j] * w), x * w]
            ls2 = [v * 0.5 for v in ls]
            ls2.append(M[k] * x[j])
            ls = ls2
            acc += np.sum(np.stack(ls)) * 0.3
    return acc


def fuzz_args():
    x = np.array([-0.9616, 1.034, 0.337, -0.9977])
    M = np.array([[0.8978, 0.8895, -0.7736, -0.8454], [-0.6833, -0.6523, -0.6737, -0.5176],
                  [-0.7271, -0.9854, -0.3306, 0.3913]])
    return x, M, -0.2779, 2


WRT = (0, 1, 2)
