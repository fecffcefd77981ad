# seed: 992004 (size normal, fuzz22's called extension, --second), reduced by hand
# backend: python
# second: yes
# found: eager jvp raised "jitad can only transform plain Python functions, got Derived" at
#   a call of jitad.grad(ge0, wrt=1)(...) inside f (compiled jvp, and grad and hvp in both
#   modes, were right): eager forward mode gave the front end the Derived object itself.
# fixed: eager/forward.py runs `Derived.function_for` of the call's types, as typeinfer does.
import math

import jitad
import numpy as np


def ge0(r, a):
    return np.sum(np.tanh(r * a)) * 0.5 + 0.1 * a * a


def ge1(r, a):
    return np.tanh(r * a + np.sum(r) * 0.1) + 0.1 * r


ge0_grad = jitad.grad(ge0)


def f(x, M, w, n, p):
    pu, (pt, pq) = p
    acc = math.atan(jitad.grad(ge0, wrt=1)(pu, math.tanh(w)))
    for i in range(n):
        acc += np.sum(ge0_grad(M[i], math.tanh(pt)) * x) * 0.3
    J = jitad.jacfwd(ge1)(x, math.tanh(pq))
    return acc + np.trace(J) * 0.2 + np.sum(J[:3] * M) * 0.1


def fuzz_args():
    x = np.array([0.53, -0.81, 0.27, 1.02])
    M = np.array([[-0.3145, 0.6659, -0.8642, -0.0599], [1.0268, -1.0455, 1.1309, -1.1583],
                  [-1.1324, 0.9195, -1.0171, 0.2237]])
    return x, M, 0.74, 3, (np.array([0.2, -0.4, 0.9, 0.1]), (0.35, -0.6))


WRT = (0, 1, 2, 4)
