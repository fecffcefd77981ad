"""The Var handle of jitad.eager: a value that records the operations applied to it.

Takes: a value (a Python/NumPy scalar or an ndarray) and ``requires_grad``.
Guarantees: ``Var(value, requires_grad=True)`` is a leaf: its value is copied as float (a
complex one is refused: complex values are intermediates, their operations recorded like any
other, and the leaves' gradients real; see docs/architecture.md) and
its ``.grad`` receives d(output)/d(this Var) after ``output.backward()``; ``Var(value)`` is a
constant and its value is not copied. Reading a Var for control flow (``bool``, ``int``,
comparisons, ``len``, iteration, formatting) reads its value; ``float()``, ``complex()``,
``.item()``, ``.tolist()`` and ``np.asarray()`` of a Var that requires grad (while recording)
are refused at the user's line, since they would silently cut it from the graph.
Invariants: a Var holds ``value``, ``_node`` (None for a constant, a `graph.Leaf` for a
leaf, a `graph.Node` recorded by an operation) and ``_views``/``_view_of`` (None unless
views are involved, see `views`); ``Var(value, None)`` / ``Var(value, node)`` is the
internal fast path that wraps an operation's result as is. This module defines the handle
only; the class is completed, when the package is imported, by `views` (item assignment,
``__setitem__``), `dispatch` (NumPy's protocols ``__array_ufunc__``/``__array_function__``
and ``__getattr__`` for ndarray attributes) and `ops` (operators and array methods), which
all need Var itself and so cannot be imported here.
"""
import numpy as np

from . import graph
from .graph import Leaf, Node, reverse_pass
from .refusal import refuse

ndarray = np.ndarray

_SCALAR_TYPES = (int, float, complex, bool, np.generic)


_COMPLEX_LEAF = ("jitad differentiates real arguments (complex values are fine inside the "
                 "function): pass the real and imaginary parts as two float arguments and make "
                 "the complex value there (z = re + 1j * im)")


def _float_value(value):
    if type(value) is Var:
        value = value.value
    if isinstance(value, ndarray):
        if value.dtype.kind == "c":
            raise refuse(_COMPLEX_LEAF, "complex argument")
        dt = value.dtype if value.dtype.kind == "f" else np.float64
        return np.array(value, dtype=dt, copy=True)
    if isinstance(value, (int, float, bool, np.integer, np.floating, np.bool_)):
        return float(value)
    a = np.asarray(value)
    if a.dtype.kind == "c":
        raise refuse(_COMPLEX_LEAF, "complex argument")
    if a.dtype.kind not in "biuf":
        raise refuse("cannot make a differentiable Var from a value of type %s (dtype %s)"
                     % (type(value).__name__, a.dtype), "requires_grad=True")
    return np.array(a, dtype=np.float64)


_CONVERSION_HINT = {
    "float()": "float() (which math.* functions and a write into a plain ndarray also call)",
    "complex()": "complex()",
    ".item()": ".item()",
    ".tolist()": ".tolist()",
    "np.asarray()": "np.asarray() (which np.array([...]) and a write into a plain ndarray "
                    "also call)",
}


def _conversion_error(what):
    return refuse(
        "%s of a Var that requires grad would drop it from the graph (its gradient would "
        "silently be zero). Keep it a Var (np.sin rather than math.sin, eager.numpy.zeros "
        "rather than a plain ndarray), read .value if you mean a constant, or run the function "
        "through jitad.grad(f, mode='eager'), which routes math.*, float() and np.* to "
        "differentiable versions" % _CONVERSION_HINT[what], what)


class Var:
    """A value (float or ndarray) that records the operations applied to it.

    ``Var(value, requires_grad=True)`` makes a leaf: ``.grad`` receives
    d(output)/d(this Var) after ``output.backward()``.  The value of a leaf is
    copied (as float); a constant ``Var(value)`` is not copied.
    """

    __slots__ = ("value", "_node", "_views", "_view_of", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, value, requires_grad=False):
        # _views/_view_of always exist (None: no views / not a view): reading them never
        # reaches __getattr__
        self._views = self._view_of = None
        if requires_grad is None or type(requires_grad) is Node:
            # internal fast path: result of an operation (None: constant)
            self.value = value
            self._node = requires_grad
            return
        if requires_grad:
            value = _float_value(value)
            self._node = Leaf(value.shape if type(value) is ndarray else None)
        else:
            if type(value) is Var:
                value = value.value
            elif not isinstance(value, (ndarray,) + _SCALAR_TYPES):
                value = np.asarray(value)
            self._node = None
        self.value = value

    # -- graph ---------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._node is not None

    @property
    def is_leaf(self):
        return type(self._node) is not Node

    @property
    def grad(self):
        n = self._node
        return n.grad if type(n) is Leaf else None

    @grad.setter
    def grad(self, g):
        n = self._node
        if type(n) is not Leaf:
            raise AttributeError("only leaf Vars (requires_grad=True inputs) have .grad")
        n.grad = g

    def backward(self, cotangent=None, retain_graph=False):
        """Accumulate gradients into the .grad of every leaf this Var depends on.

        cotangent: required for a non-scalar Var (same shape).  The graph is
        freed afterwards unless retain_graph=True.
        """
        if type(cotangent) is Var:
            cotangent = cotangent.value
        reverse_pass(self._node, self.value, cotangent, retain_graph)

    def detach(self):
        return Var(self.value, None)

    # -- plain-value protocol (control flow reads values) -------------------
    def __bool__(self):
        return bool(self.value)

    def __int__(self):
        return int(self.value)

    def __index__(self):
        import operator
        return operator.index(self.value)

    def __float__(self):
        if self._node is not None and graph.grad_enabled:
            raise _conversion_error("float()")
        return float(self.value)

    def __complex__(self):
        if self._node is not None and graph.grad_enabled:
            raise _conversion_error("complex()")
        return complex(self.value)

    def item(self, *args):
        if self._node is not None and graph.grad_enabled:
            if graph.converting and not args and np.size(self.value) == 1:
                return Var.ITEM(self)       # as float() is there (compiled mode's `item`)
            raise _conversion_error(".item()")
        return np.asarray(self.value).item(*args)

    def tolist(self):
        if self._node is not None and graph.grad_enabled:
            raise _conversion_error(".tolist()")
        return np.asarray(self.value).tolist()

    def __array__(self, dtype=None, copy=None):
        if self._node is not None and graph.grad_enabled:
            raise _conversion_error("np.asarray()")
        return np.asarray(self.value, dtype=dtype)

    def __format__(self, spec):
        return format(self.value, spec)

    def __str__(self):
        """The value, as the function's own `print(y)` shows it run without jitad."""
        return str(self.value)

    def __round__(self, ndigits=None):
        return round(self.value, ndigits) if ndigits is not None else round(self.value)

    def __floor__(self):
        import math
        return math.floor(self.value)

    def __ceil__(self):
        import math
        return math.ceil(self.value)

    def __trunc__(self):
        import math
        return math.trunc(self.value)

    __hash__ = object.__hash__

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        for i in range(len(self.value)):
            yield self[i]

    def __repr__(self):
        rg = ", requires_grad=True" if self._node is not None else ""
        return "Var(%r%s)" % (self.value, rg)

    # -- array attributes ----------------------------------------------------
    @property
    def shape(self):
        return np.shape(self.value)

    @property
    def ndim(self):
        return np.ndim(self.value)

    @property
    def size(self):
        return np.size(self.value)

    @property
    def dtype(self):
        return np.asarray(self.value).dtype if type(self.value) is not ndarray else self.value.dtype

    # Installed by the modules that need Var itself (see the module docstring): __setitem__
    # by views.py; __array_ufunc__, __array_function__ and __getattr__ by dispatch.py;
    # operators and methods (__add__, __getitem__, sum, reshape, ...) by ops.py.


def backward(var, cotangent=None, retain_graph=False):
    """Accumulate d(var)/d(leaf) (times cotangent) into every leaf's .grad."""
    if type(cotangent) is Var:
        cotangent = cotangent.value
    reverse_pass(var._node, var.value, cotangent, retain_graph)
