# seed: 621012 (size normal, --second, backend python), reduced by `python -m tests.fuzz
#   --second --backend python --minimize`
# found: crash in compiled mode's Hessian-vector product only (first order, jvp and eager
#   mode right): "operands could not be broadcast together with shapes (3,) (2,) (3,)". A
#   helper is called in a loop on a vector whose length changes between iterations
#   (M[1][i3:]) and given a keyword argument; reverse over forward mixes the lengths of two
#   iterations.
# fixed: the zero cotangent of a call's result without an adjoint is shaped like the result
#   (`np.zeros_like(p4)`), so the adjoint reads it: a loop that overwrites the result keeps it
#   (`Analysis.bind_reads`); before, p4 held the last iteration's shorter value there
# second: yes
# backend: python
import math
import numpy as np

def g0(r, a, s=0.25):
    S0 = np.zeros((3, 4))
    return 1.93 * -r

def f(x, M, w, n):
    acc = 0.0
    for i3 in range(n):
        p4 = g0(M[1][i3:], acc, s=M[i3, 3])
    return np.sum(p4)

def fuzz_args():
    x = np.array([0.2588, 0.5021, 0.8709, 0.5395])
    M = np.array([[0.974, 0.9797, -1.1841, -0.1494], [0.9039, -1.1489, 0.3108, 0.274], [-0.4333, 0.9686, 0.5427, 0.2697]])
    return (x, M, 0.0438, 3)
WRT = (0, 1, 2)