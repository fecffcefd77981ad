# seed: 30041 (size normal, at 854575a), reduced by `python -m tests.fuzz --minimize`, then
#   by hand
# found: compiled mode fails on a valid program with Numba (eager runs; backend="python" is
#   right): an `if` on a chained comparison of constants (always False here) around an
#   assignment: "Numba could not compile the generated code: Unsupported assignment
#   encountered: <class 'numba.core.ir.UndefinedType'> Undefined; # line ...: t = x[1] * t"
#   (in the original program: "Type of variable 'M_at.1' cannot be determined, operation:
#   phi(incoming_values=[Undefined, Undefined] ...").  A plain constant comparison
#   (if 0.5 > 1.0) and a chain with a data operand (0.12 < x[0] < 0.51) compile.  Guess:
#   the chain's later comparison, evaluated only when the earlier held (898c782), is folded
#   by Numba so the branch's adjoint reads values no path defines.
import numpy as np


def f(x):
    t = x[0]
    if 0.12 < 1.62 < 0.51:
        t = x[1] * t
    return t


def fuzz_args():
    return (np.array([0.25, -0.6, 1.05, 0.43]),)


WRT = (0,)
