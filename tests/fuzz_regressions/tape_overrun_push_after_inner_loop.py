# seed: - (the pattern of issue 9)
# found: compiled raises IndexError (NUMBA_BOUNDSCHECK=1; garbage without it): the tape is
#   written past its end in nested counted loops with a push after an inner loop
#   (main[j] = t * x[i] after `for a`).
# fixed: 96b90d6 (tape capacity proven per segment)
import numpy as np


def f(x, n):
    main = np.zeros(n)
    for i in range(n):
        for j in range(n):
            t = 0.0
            for a in range(n):
                t += x[a] * x[j]
            main[j] = t * x[i]
    return np.sum(main)


def fuzz_args():
    return np.array([0.1, 0.2, 0.3]), 3


WRT = (0,)
