# seed: 1962 (size normal, --backend python), reduced by `python -m tests.fuzz --minimize`,
#   then by hand
# found: compiled raises IndexError under Numba's bounds checking (reads the wrong tape
#   entries without it): in g_bwd (g is cut in two: called at f's top level), the pop
#   `t_matmul = tape_f8_1d.pop()` is gone while g_fwd still pushes t_matmul, so every later
#   pop of that tape gets the wrong value.  t_matmul (shape-variant: r[::1]) is kept so its
#   adjoint's zeros get its shape, but the zeros were folded away (`d_t_matmul = t_ones @ d_t`)
#   and codegen's dead-code pass then removed the assignment `t_matmul = tape.pop()` (nothing
#   in g_bwd reads t_matmul; in an unsplit vjp the forward's own reads keep it alive).
#   codegen._dce: a dead `x = lst.pop()` must stay as the statement `lst.pop()`.
# backend: python

import numpy as np


def g(r, a):
    for i in range(2):
        u = r[::1] + a
        t = np.ones((3, 4)) @ u @ np.ones((3, 4))
        a = np.dot(t, u)
    return a


def f(x, w):
    return g(x, w)


def fuzz_args():
    return (np.array([-0.0076, -0.2651, 0.9899, 0.2362]), 0.1)


WRT = (0, 1)
