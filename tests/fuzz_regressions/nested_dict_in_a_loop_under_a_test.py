# seed: 990187 (size normal, fuzz22's dicts2 extension), reduced by hand
# backend: python
# found: both modes refused a nested dict display made in a loop under a test, its inner
#   dict read through a name (dd = {"enc": {"W": .., "b": ..}, "gain": c}; enc = dd["enc"])
#   with "the dict 'dd_enc' is assigned once, outside branches", a name the user never wrote.
#   dict_locals merged the alias `enc = dd_enc` only for a dict made outside loops.
# fixed: the alias is merged in a loop too when it follows the display in its block with
#   only simple statements between (none reading it).
import math

import numpy as np


def f(x, M, w, n):
    acc = 0.0
    if w + M[n // 2, 3] > -5.0:
        for i in range(n):
            for j in reversed(range(2)):
                dd = {"enc": {"W": np.tanh(M * w), "b": x[:3] * (j + 1.0)}, "gain": 0.5}
                enc = dd["enc"]
                acc += math.tanh(dd["gain"] * np.sum(np.tanh(enc["W"] @ x * 0.3 + enc["b"])))
    return acc * w


def fuzz_args():
    x = np.array([0.53, -0.81, 0.27, 1.02])
    M = np.array([[-0.3145, 0.6659, -0.8642, -0.0599], [1.0268, -1.0455, 1.1309, -1.1583],
                  [-1.1324, 0.9195, -1.0171, 0.2237]])
    return x, M, 0.74, 3


WRT = (0, 1, 2)
