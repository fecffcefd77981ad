"""NumPy's protocols on Var: how a NumPy call, ufunc or ndarray attribute reaches eager mode.

Takes: any NumPy call with a Var among its arguments (through ``__array_ufunc__`` /
``__array_function__``) and any ndarray attribute Var lacks (through ``__getattr__``).
Guarantees: a call with an eager version (`UFUNC_OPS`, `FUNCTION_OPS`, `ATTR_OPS`, filled by
ops.py) runs it; anything else goes through `fallback`: plain NumPy on the values unless a
Var that requires grad is involved (while recording) and the result holds floats, which is
refused at the user's line before anything is recorded (a function in `record.NONDIFF`, or
a result of ints/bools/indices, comes back as is). NumPy operations that change an array in
place (``np.add.at(y, ...)``, ``y.sort()``) and ``out=`` naming Vars are applied with value
semantics through `views.write`. Layout metadata (``strides``, ``nbytes`` ...) is read from
the value and never refused.
Invariants: `unwrap` replaces Vars (also inside lists/tuples/dicts) by their values and
nothing else; this module installs ``Var.__array_ufunc__``, ``Var.__array_function__`` and
``Var.__getattr__`` (reached only when normal lookup fails).
"""
import numpy as np

from .. import prelude
from ..errors import UnsupportedError
from ..primitives.opaque import NEEDS_RULE, code_spelling
from . import graph
from .record import NONDIFF
from .refusal import refuse
from .var import Var
from .views import write

ndarray = np.ndarray

UFUNC_OPS = {}      # numpy ufunc -> eager op   (filled by ops.py)
ATTR_OPS = {}       # ndarray attribute name -> eager function of the Var (filled by ops.py)
# ndarray attributes that describe memory layout: read from the value, never refused
_METADATA = frozenset(("strides", "itemsize", "nbytes", "flags", "device"))
# ndarray methods that change the array in place (see _inplace_fallback)
_INPLACE_METHODS = frozenset(("sort", "partition", "put", "itemset", "setfield"))
_REFUSED_METHODS = {"resize": "it changes the shape in place; use np.resize(x, shape) or "
                              "x.reshape(shape)",
                    "setflags": "a Var's value is managed by jitad.eager (copy-on-write)"}
FUNCTION_OPS = {}   # numpy function -> eager op (filled by ops.py)
UFUNC_METHOD_OPS = {}   # (numpy ufunc, method name) -> eager op (filled by from_primitives)


def _contains_grad_var(obj):
    """Whether obj (or a list/tuple/dict inside it) holds a Var that requires grad."""
    return contains_var(obj, grad_only=True)


def unwrap(obj):
    """Replace Vars (also inside lists/tuples/dicts) by their values."""
    t = type(obj)
    if t is Var:
        return obj.value
    if t is tuple or t is list:
        return t(unwrap(o) for o in obj)
    if t is dict:
        return {k: unwrap(v) for k, v in obj.items()}
    return obj


def contains_var(obj, grad_only=False):
    """Whether obj (or a list/tuple/dict inside it) holds a Var (one that requires grad)."""
    t = type(obj)
    if t is Var:
        return obj._node is not None or not grad_only
    if t is tuple or t is list:
        return any(contains_var(o, grad_only) for o in obj)
    if t is dict:
        return any(contains_var(o, grad_only) for o in obj.values())
    return False


def is_constant_result(obj):
    """True if obj holds no float values: None, bools, ints, strings, dtypes, int/bool
    arrays, and tuples/lists of those.  Such a result has no derivative."""
    if obj is None:
        return True
    t = type(obj)
    if t is bool or t is int or t is str:
        return True
    if t is ndarray:
        return obj.dtype.kind in "biuSUmM"
    if isinstance(obj, (np.integer, np.bool_, np.dtype)):
        return True
    if isinstance(obj, (tuple, list)):
        return all(is_constant_result(o) for o in obj)
    return False


_NO_RULE = NEEDS_RULE.replace("{}", "%s")


def fallback(func, name, call, args, kwargs):
    """A NumPy function (ufunc method, array method) that has no eager rule.

    Without a Var that requires grad among its arguments (or under no_grad) it is
    plain NumPy on the values; a float array result comes back as a constant Var
    (so that a later ``y[i] = v`` into it is recorded).  With one, it still runs
    on the values, and a result with no float values (ints, bools, indices) or
    a function in NONDIFF comes back as is; a float result is refused with a
    NotDifferentiableError at the user's line, before anything is recorded.
    An ``out=`` naming Vars is written with value semantics (``write``).
    """
    out = kwargs.get("out")
    if out is not None and contains_var(out):
        kw = dict(kwargs)
        del kw["out"]
        return write_outputs(out, fallback(func, name, call, args, kw))
    if graph.grad_enabled and (_contains_grad_var(args) or _contains_grad_var(kwargs)):
        try:
            ans = call(*unwrap(args), **unwrap(kwargs))
        except Exception:
            if func in NONDIFF:
                raise
            raise refuse(_NO_RULE % name, name) from None
        if func in NONDIFF or is_constant_result(ans):
            return ans
        raise refuse(_NO_RULE % name, name)
    ans = call(*unwrap(args), **unwrap(kwargs))
    if type(ans) is ndarray and ans.dtype.kind in "fc" and (contains_var(args)
                                                             or contains_var(kwargs)):
        return Var(ans, None)
    return ans


def write_outputs(out, ans):
    """``out=`` of a NumPy call: write each result into its target (Vars by ``write``)."""
    single = type(out) is not tuple
    targets = (out,) if single else out
    results = (ans,) if (single or len(out) == 1) else ans
    for t, r in zip(targets, results):
        if type(t) is Var:
            write(t, Ellipsis, r)
        else:
            t[...] = r       # a plain ndarray: only constants convert (else a JitadError)
    return out if single or len(out) > 1 else out[0]


def _inplace_fallback(func, name, target, apply, args, kwargs):
    """A NumPy operation that changes ``target`` in place (``np.add.at(y, ...)``,
    ``y.sort()``, ``y.fill(v)`` ...) and has no eager rule.

    With a Var that requires grad involved it is refused; otherwise it is applied
    to a copy of the value, which is then written back with ``write`` (so values
    saved by recorded nodes never change).  Returns what the operation returned."""
    if type(target) is not Var:
        if graph.grad_enabled and (_contains_grad_var(args) or _contains_grad_var(kwargs)):
            raise refuse(_NO_RULE % name, name)
        return apply(target)
    if graph.grad_enabled and (target._node is not None or _contains_grad_var(args)
                          or _contains_grad_var(kwargs)):
        raise refuse("%s changes an array in place and has no eager derivative rule; it "
                     "was called with a Var that requires grad" % name, name)
    a = np.array(target.value, copy=True)
    ans = apply(a)
    write(target, Ellipsis, a)
    return ans


# ----------------------------------------------------------------------------
# Var's side of NumPy's protocols
# ----------------------------------------------------------------------------
def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    if method == "__call__":
        op = UFUNC_OPS.get(ufunc)
        if op is None and prelude.defines(ufunc):     # scipy.special.log_expit: its definition
            from .from_primitives import eager_callable
            op = eager_callable(ufunc)
        if op is not None:
            if not kwargs:
                return op(*inputs)
            if len(kwargs) == 1 and "out" in kwargs:      # np.add(x, y, out=z)
                return write_outputs(kwargs["out"], op(*inputs))
    else:
        op = UFUNC_METHOD_OPS.get((ufunc, method))     # np.maximum.accumulate(x)
        if op is not None and "out" not in kwargs:
            return op(*inputs, **kwargs)
    name = "np.%s%s" % (ufunc.__name__, "" if method == "__call__" else "." + method)
    if method == "at":                                    # np.add.at(y, idx, v)
        return _inplace_fallback(ufunc, name, inputs[0],
                                 lambda a: getattr(ufunc, method)(a, *unwrap(inputs[1:]),
                                                                  **unwrap(kwargs)),
                                 inputs[1:], kwargs)
    return fallback(ufunc, name, getattr(ufunc, method), inputs, kwargs)


def _array_function(self, func, types, args, kwargs):
    op = FUNCTION_OPS.get(func)
    if op is not None:
        return op(*args, **kwargs)
    mod = (getattr(func, "__module__", None) or "numpy").replace("numpy", "np", 1)
    name = code_spelling(func) or "%s.%s" % (mod, func.__name__)
    return fallback(func, name, func, args, kwargs)


def _getattr(self, name):
    # Reached only when normal lookup fails: an ndarray attribute or method that
    # Var has no eager version of (see the module docstring of jitad.eager).
    if name[:1] == "_":
        raise AttributeError(name)
    if name in Var.__dict__:          # a Var property raised AttributeError: re-raise it
        return object.__getattribute__(self, name)
    if not hasattr(ndarray, name):
        raise AttributeError("'Var' object has no attribute %r" % name)
    op = ATTR_OPS.get(name)
    if op is not None:
        return op(self)
    v = self.value
    attr = getattr(v if type(v) is ndarray else np.asarray(v), name)
    if not callable(attr):
        if (name in _METADATA or is_constant_result(attr) or self._node is None
                or not graph.grad_enabled):
            return attr
        raise refuse(".%s of a Var that requires grad has no eager derivative rule"
                     % name, "." + name)
    construct = ".%s()" % name
    if name in _INPLACE_METHODS:
        if type(v) is not ndarray:
            raise AttributeError("'%s' object (the value of this Var) has no attribute %r"
                                 % (type(v).__name__, name))
        return lambda *args, **kwargs: _inplace_fallback(
            None, construct, self,
            lambda a: getattr(a, name)(*unwrap(args), **unwrap(kwargs)), args, kwargs)
    if name in _REFUSED_METHODS:
        raise refuse("%s is not supported by jitad.eager: %s" % (construct,
                                                                 _REFUSED_METHODS[name]),
                     construct, UnsupportedError)
    func = getattr(np, name, None)
    return lambda *args, **kwargs: fallback(
        func, construct, lambda a, *r, **k: getattr(np.asarray(a), name)(*r, **k),
        (self,) + args, kwargs)


Var.__array_ufunc__ = _array_ufunc
Var.__array_function__ = _array_function
Var.__getattr__ = _getattr
