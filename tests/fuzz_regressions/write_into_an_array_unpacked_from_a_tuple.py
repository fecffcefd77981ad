# seed: 620141 (size normal, backend python; also 620174), reduced by hand
# found: a wrong refusal in both modes: an array unpacked from a tuple local (u, t = st, the
#   tuple made of a new array) is not an array jitad writes into ("'u' may alias another
#   array (it is assigned from a view or another variable)"), though no alias of it is read
#   afterwards: tuple_values makes `u = st_0`, and the write rule takes every array assigned
#   from another variable for a possible alias, without asking whether that variable is read
#   after the write (as it asks of views).
# fixed: a copy of a name (u = v, u = st_0) counts as an array the function created when
#   every value of v it can take was (`Writes._copies_created_here`), and v is an alias of u
#   for the alias rule (refused only where v, or an alias of v, is read after the write);
#   where v is needed by the adjoint, writes through u are undone too (`Analysis._fix`).
# backend: python
import math
import numpy as np


def g(r, a):
    return np.tanh(r * a), a * 2.0


def f(x, M, w, n):
    st = (x * w, 1.0)
    u, t = st
    u[0] = w
    pk = g(x, w)
    a, b = pk
    a[1] = b * w
    return np.sum(u) + t + np.sum(a)


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
