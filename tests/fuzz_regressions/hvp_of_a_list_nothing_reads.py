# seed: 1000515 (size normal, --second), minimized
# backend: python
# second: yes
# found: the Hessian-vector product of a function building a list nothing reads
#   (hs3 = [S1.T]) was refused in both modes (".append() is supported on a list the function
#   builds ... in its generated code `[].append(M.T)`"): codegen's single-use folding put the
#   empty list into the append that grows it, and the front end reading the generated gradient
#   again refused that form.
# fixed: codegen._use_of does not fold a list into the .append() that grows it
import math

import numpy as np


def f(x, M, w, n):
    S1 = M * w
    hs3 = [S1.T]
    hs4 = [np.tanh(x * w)]
    for i in range(n):
        hs4.append(x * math.tanh(w))
    return np.mean(x * w) + np.sum(S1 * M)


def fuzz_args():
    x = np.array([0.2507, -0.6565, -0.0946, -0.7558])
    M = np.array([[0.3516, -0.7668, 0.4853, 0.3896], [0.1825, -0.7094, -0.0784, -0.1417],
                  [-1.0134, 0.9673, 0.8145, 0.5526]])
    return x, M, 0.7038, 2


WRT = (0, 1, 2)
