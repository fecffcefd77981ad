# seed: 964152 (size normal, fuzz21's campaign), reduced by hand
# backend: python
# found: both modes refused `w = w` in f (a statement the generator writes for a helper's
#   argument "assigned its result") with an internal-sounding "shape_cat takes shapes (tuples
#   of integers), not float", at the later `w + ...`; `u = u[1:]` of a parameter in a loop
#   gave "shape_slice takes shapes ...".  Shape locals (normalize/shape_values.py) are the
#   names every assignment of which is a shape expression, and a parameter's argument was
#   not counted as an assignment: a parameter assigned only from itself (or a slice of
#   itself) was taken for a tuple of integers.
# fixed: shape_locals counts a parameter as assigned (its argument).
import numpy as np


def g0(u, a):
    for k in range(2):
        u = u[1:]               # a view of the parameter, shorter each time
    return np.sum(u * u) * a


def f(x, M, w, n):
    acc = 0.0
    for i in range(n):
        w = w                   # the parameter, assigned from itself
        acc += np.sum(M[i] * x) * w
    t = w + 0.5 * acc
    return t * t + g0(x * w, w) + g0(M[n - 1], acc)


def fuzz_args():
    x = np.array([-0.0796, -1.1068, -1.1004, -0.6142])
    M = np.array([[-0.3145, 0.6659, -0.8642, -0.0599], [1.0268, -1.0455, 1.1309, -1.1583],
                  [-1.1324, 0.9195, -1.0171, 0.2237]])
    return x, M, 1.0632, 3


WRT = (0, 1, 2)
