# seed: 93069 (normal)
# backend: python
# found: compiled-only refusal: np.sum of a number ("sum() of a scalar"); NumPy and eager mode
#   give the number.
# fixed: fc92b52 (a whole reduction of a number is the number)
import numpy as np


def f(x, M, w, n):
    hs = [w * x[0], w * x[1]]
    a = 0.0
    for h in hs:
        a += np.sum(np.sin(h)) + np.max(h * M[0, 0])
    return a + np.mean(x)


def fuzz_args():
    x = np.array([-0.9984, -0.1935, -0.0436, 0.5139])
    M = np.array([[-0.9209, 0.508, 0.5272, -0.5659], [0.9069, -0.7717, 1.0947, 0.1248],
                  [0.9779, -0.5807, 0.4585, 0.9098]])
    return (x, M, 0.1259, 3)


WRT = (0, 1, 2)
