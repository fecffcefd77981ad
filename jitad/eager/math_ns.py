"""``jitad.eager.math``: the math module with differentiable versions of every math function
the compiled mode has a rule for (sin cos tan exp expm1 log log1p log2 log10 sqrt tanh sinh
cosh atan asin acos asinh acosh atanh atan2 hypot fabs pow erf erfc lgamma gamma exp2
degrees radians copysign ...: read from the primitives, see ops.MATH), and
floor/ceil/trunc/isnan/... on values.

value_and_grad binds the user's ``math`` global (and names imported with
``from math import ...``) to these.  Every other attribute is math's own.
"""
import math as _math

from . import ops as _ops

globals().update(_ops.MATH)


def fsum(seq):
    """math.fsum of numbers (a list, a tuple, any iterable) or of an array: with Vars, compiled mode's primitive on them as
    one array (its value Python's correctly rounded sum)."""
    from .dispatch import contains_var
    if not isinstance(seq, (list, tuple)) and not hasattr(seq, "shape"):
        seq = list(seq)         # a generator (math.fsum(v * v for v in x)): its items
    if not contains_var(seq):
        return _math.fsum(seq)
    from ..primitives import get
    from .from_primitives import primitive_op
    x = _ops.array(seq) if type(seq) in (list, tuple) else seq
    return primitive_op(get("math.fsum"), {})(x)


def __getattr__(name):
    return getattr(_math, name)
