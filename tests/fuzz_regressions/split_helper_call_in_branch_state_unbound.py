# seed: 1102, 1352, 1904 (size normal, --backend python), reduced by
#   `python -m tests.fuzz --minimize`, then by hand
# found: compiled raises UnboundLocalError with backend="python" (Numba happens to run it):
#   g1 is cut in two (called at f's top level); in g1 the call of the costly g0 is under an
#   `if` (also seen: in a `while` loop, in a conditional expression), so g0's state goes on a
#   tape (`t_saved = ...; states_g0.append(t_saved)`) -- but g1_fwd's own state pack also
#   lists `t_saved` (g1_bwd pops it before reading it), an unbound name when the branch is not
#   taken.  reverse.py split_functions: a call's `_saved` local that goes on a tape is not
#   part of the state (or needs a dummy like the other maybe-unassigned locals).
# backend: python

import numpy as np


def g0(a):
    u = np.tanh(np.ones((3, 4)) * a)
    return u[1, 1]


def g1(r, a):
    t = r[3]
    if t <= 0.09:
        t = g0(t)
    return t * a


def f(x, w):
    return g1(x, w)


def fuzz_args():
    return (np.array([0.5, -0.25, 0.75, 1.0]), 0.5)


WRT = (0, 1)
