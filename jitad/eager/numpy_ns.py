"""``jitad.eager.numpy``: NumPy with differentiable versions of the supported functions.

value_and_grad runs the user's function with its ``np``/``numpy`` global bound
to this module (the user's module is not changed).  Supported functions take
and return Vars; creation functions (zeros, ones, empty, eye, ...) return
constant Vars so that writes into them are recorded, and ``linspace``/``arange``
are differentiable in their float start/stop/step.  The elementwise functions
keep their ufunc methods (``np.add.reduce``, ``np.add.at`` ...).  ``linalg`` is
NumPy's with a differentiable ``norm``.  Every other attribute is NumPy's own
(np.pi, np.float64, ...); a NumPy function without a rule runs as NumPy on
values that are not differentiated and raises a ``jitad.JitadError`` at the
user's line on a Var that requires grad (see dispatch.fallback). A list or tuple holding
Vars given to any other NumPy function is read as ``np.array(list)``, as NumPy reads it
(``np.std(losses)`` of a list the function built).
"""
import functools as _functools
import types as _types

import numpy as _np

from . import from_primitives as _from_primitives
from . import ops as _ops
from .dispatch import contains_var

globals().update(_ops.ELEMENTWISE)

abs = _ops.ELEMENTWISE["absolute"]
true_divide = _ops.ELEMENTWISE["divide"]
sum = _ops.sum
mean = _ops.mean
max = amax = _ops.max
min = amin = _ops.min
dot = _ops.dot
matmul = _ops.matmul
outer = _ops.outer
reshape = _ops.reshape
transpose = _ops.transpose
ravel = _ops.ravel
concatenate = _ops.concatenate
stack = _ops.stack
where = _ops.where
clip = _ops.clip
copy = _ops.copy
zeros = _ops.zeros
ones = _ops.ones
empty = _ops.empty
full = _ops.full
eye = _ops.eye
arange = _ops.arange
linspace = _ops.linspace
zeros_like = _ops.zeros_like
ones_like = _ops.ones_like
empty_like = _ops.empty_like
full_like = _ops.full_like
array = _ops.array
asarray = _ops.asarray
shape = _ops.shape
ndim = _ops.ndim
size = _ops.size
vectorize = _from_primitives.vectorized


def prod(a, *args, initial=None, **kwargs):
    """np.prod as compiled mode reads it: initial= multiplies the product."""
    from .from_primitives import eager_callable
    if type(a) in (list, tuple) and contains_var(a):
        a = array(a)
    result = (eager_callable(_np.prod) or _np.prod)(a, *args, **kwargs)
    return result if initial is None else result * initial


class _Cast:
    """`np.float64` (np.float32, np.int64) in a function eager mode runs: called on a Var, x
    in that dtype, as the compiled mode's cast (differentiable into a float dtype); otherwise
    NumPy's own type -- called, or named as a dtype (`np.zeros(n, np.float64)`, `astype`,
    `np.issubdtype`: NumPy reads its `dtype`), or in `isinstance`."""

    def __init__(self, base):
        self.type, self.dtype, self.__name__ = base, _np.dtype(base), base.__name__

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and contains_var(args[0]):
            x = args[0]
            return _ops.astype(array(x) if type(x) in (list, tuple) else x, self.type)
        return self.type(*args, **kwargs)

    def __instancecheck__(self, obj):
        return isinstance(obj, self.type)

    def __subclasscheck__(self, cls):
        return issubclass(cls, self.type)

    def __repr__(self):
        return repr(self.type)


float64, float32, int64 = (_Cast(t) for t in (_np.float64, _np.float32, _np.int64))


class _IndexTrick:
    """`np.r_[a, 0.0, b]` / `np.c_[a, b]` as compiled mode reads them (`library.index_tricks`):
    np.concatenate of np.atleast_1d of each item / np.column_stack of the items; with a slice
    or a directive string among them, NumPy's own (it refuses cleanly on a Var)."""

    def __init__(self, base, stack):
        self.base, self.stack = base, stack

    def __getitem__(self, key):
        items = key if type(key) is tuple else (key,)
        if any(isinstance(k, (slice, str)) for k in items):
            return self.base[key]
        return self.stack(list(items))

    def __getattr__(self, name):
        return getattr(self.base, name)


r_ = _IndexTrick(_np.r_, lambda items: concatenate([__getattr__("atleast_1d")(a)
                                                     for a in items]))
c_ = _IndexTrick(_np.c_, lambda items: __getattr__("column_stack")(items))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """np.trace(A, offset=k) as compiled mode reads it: the sum of np.diagonal(A, k)."""
    if (axis1, axis2, dtype, out) == (0, 1, None, None):
        return sum(_np.diagonal(a, offset)) if offset != 0 and contains_var(a) else _np.trace(a)
    return _np.trace(a, offset, axis1, axis2, dtype, out)


class _Linalg:
    """``np.linalg`` with a differentiable ``norm`` (ord=None); the rest is NumPy's own
    (it refuses cleanly on a Var that requires grad)."""

    norm = staticmethod(_ops.norm)

    @staticmethod
    def multi_dot(arrays, *, out=None):
        """np.linalg.multi_dot as compiled mode reads it: the products left to right."""
        if out is not None or not contains_var(list(arrays)):
            return _np.linalg.multi_dot(arrays, out=out)
        result = arrays[0]
        for a in arrays[1:]:
            result = matmul(result, a)
        return result

    def __getattr__(self, name):
        return getattr(_np.linalg, name)


linalg = _Linalg()


def _lists_as_arrays(func):
    """`func` reading its list/tuple arguments that hold Vars as arrays of them."""
    @_functools.wraps(func)
    def call(*args, **kwargs):
        args = [array(a) if type(a) in (list, tuple) and contains_var(a) else a for a in args]
        return func(*args, **kwargs)
    return call


_WRAPPED = {}
# functions that take a sequence of arrays: NumPy's dispatch already sees the Vars inside it
_SEQUENCES = {"hstack", "vstack", "column_stack", "dstack", "row_stack", "block", "concatenate",
              "stack", "array", "asarray", "broadcast_arrays", "ix_", "select"}


def __getattr__(name):
    obj = getattr(_np, name)
    if not callable(obj) or isinstance(obj, (type, _np.ufunc, _types.ModuleType)) \
            or name in _SEQUENCES:
        return obj
    if name not in _WRAPPED:
        _WRAPPED[name] = _lists_as_arrays(obj)
    return _WRAPPED[name]
