"""Eager operations built from the rules table, and their wiring.

Builds the differentiable versions of the NumPy/math functions in rules.py,
installs the operators and array methods on Var, and fills the tables used by
Var.__array_ufunc__ / __array_function__ / __getattr__ (UFUNC_OPS,
FUNCTION_OPS, ATTR_OPS) so that plain NumPy calls on Vars work.  Arguments with
no rule (``initial=``, ``ord=``, ``order='F'``, an integer ``dtype=`` ...) go
to dispatch.fallback: plain NumPy, refused only on a Var that requires grad.
``out=`` is written with value semantics (views.write).  Also the builtins
``max``/``min`` that value_and_grad binds (ties split as np.maximum/np.max).
"""
import builtins
import math
import operator

import numpy as np

from . import dispatch, graph, rules, views
from .. import prelude
from .dispatch import unwrap
from .graph import Leaf
from .record import RULES, make_binary, make_nondiff, make_op, make_unary
from .refusal import refuse
from .var import Var
from .views import is_basic_index, register_view
from ..errors import UnsupportedError
from ..primitives.table import UFUNC_REDUCTIONS
from ..primitives.typerules import NP_DOT_STACKS

ndarray = np.ndarray
_builtin_float = builtins.float

# ---------------------------------------------------------------------------
# Elementwise NumPy functions
# ---------------------------------------------------------------------------
# the elementwise ufuncs with a primitive (rules.ELEMENTWISE/STEPS: NumPy's and scipy.special's)
# (_PARTIAL: differentiable in some operands only, np.copysign, or of three operands,
# scipy.special.betainc)
_UNARY = [u for u, _ in rules.ELEMENTWISE if isinstance(u, np.ufunc) and u.nin == 1]
_BINARY = [u for u, p in rules.ELEMENTWISE if isinstance(u, np.ufunc) and u.nin == 2
           and len(p.adjoints) == 2] + [np.matmul]
_PARTIAL = [u for u, p in rules.ELEMENTWISE if isinstance(u, np.ufunc) and u.nin >= 2
            and not (u.nin == 2 and len(p.adjoints) == 2)]
_BOOL_UFUNCS = [np.greater, np.greater_equal, np.less, np.less_equal, np.equal,
                np.not_equal, np.logical_and, np.logical_or, np.logical_not,
                np.isnan, np.isinf, np.isfinite]
_STEP_UFUNCS = [u for u, _ in rules.STEPS if isinstance(u, np.ufunc)] + [np.floor_divide]

ELEMENTWISE = {}      # NumPy's (jitad.eager.numpy)
SPECIAL = {}          # scipy.special's (jitad.eager.scipy_special)
for _group, _make in ((_UNARY, make_unary), (_BINARY, make_binary), (_PARTIAL, make_op),
                      (_BOOL_UFUNCS, lambda u: make_nondiff(u, wrap=False)),
                      (_STEP_UFUNCS, make_nondiff)):
    for _u in _group:
        _table = ELEMENTWISE if getattr(np, _u.__name__, None) is _u else SPECIAL
        _table[_u.__name__] = dispatch.UFUNC_OPS[_u] = _make(_u)
# elementwise NumPy functions that are not ufuncs (np.sinc): through __array_function__
for _f, _prim in rules.ELEMENTWISE:
    if not isinstance(_f, np.ufunc) and getattr(np, _f.__name__, None) is _f:
        ELEMENTWISE[_f.__name__] = dispatch.FUNCTION_OPS[_f] = make_unary(_f)
# The eager versions stand in for the ufuncs in jitad.eager.numpy: keep the ufunc's
# methods and attributes (np.add.reduce, np.maximum.accumulate, np.add.at ...), which
# reach Var.__array_ufunc__ and so run as NumPy or refuse cleanly.
for _u in _UNARY + _BINARY + _PARTIAL + _BOOL_UFUNCS + _STEP_UFUNCS:
    for _attr in ("reduce", "accumulate", "reduceat", "outer", "at", "nin", "nout", "nargs",
                  "ntypes", "types", "identity", "signature"):
        setattr(dispatch.UFUNC_OPS[_u], _attr, getattr(_u, _attr))


def _unwrap_axis(axis):
    if type(axis) is Var:
        axis = axis.value
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    return None if axis is None else int(axis)


def _given(**kwargs):
    return {k: v for k, v in kwargs.items() if v is not None}


def _other_form(np_func, construct, args, kwargs):
    """A call with arguments eager mode has no rule for (``initial=``, ``ord=``, an
    integer ``dtype=`` ...): plain NumPy, refused only on a Var that requires grad."""
    return dispatch.fallback(np_func, construct, np_func, args, kwargs)


def _float_dtype(dtype):
    return dtype is None or np.dtype(dtype).kind == "f"


def _lists(a):
    """A list/tuple -> one stacked Var (without grad unless one of its elements has it), as
    `np.array([...])` makes one: a result computed from it is then a Var too, which later
    writes of Vars go into (`u = np.mean([a, b], axis=0); u[m] = w`), as in compiled mode."""
    return _build(a) if isinstance(a, (list, tuple)) else a


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------
_sum = make_op(rules.sum_, "sum")
_mean = make_op(rules.mean_, "mean")
_max = make_op(rules.max_, "max")
_min = make_op(rules.min_, "min")


def _reduction(op, np_func, name, a, axis, keepdims, dtype, out, extra):
    if not _float_dtype(dtype):
        extra = dict(extra, dtype=dtype)
    if extra:
        return _other_form(np_func, "np.%s(..., %s=...)" % (name, next(iter(extra))), (a,),
                           dict(axis=axis, keepdims=keepdims, out=out, **extra))
    r = op(_lists(a), _unwrap_axis(axis), bool(keepdims))
    return r if out is None else dispatch.write_outputs(out, r)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    if initial is not None and where is None and out is None:    # as compiled mode reads it
        return sum(a, axis, dtype, None, keepdims) + initial
    if where is not None and (dtype, out, initial) == (None, None, None):
        return prelude.sum_where(a, axis, where=where, keepdims=keepdims)     # as compiled mode reads it
    return _reduction(_sum, np.sum, "sum", a, axis, keepdims, dtype, out,
                      _given(initial=initial, where=where))


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    if where is not None and (dtype, out) == (None, None):
        return prelude.mean_where(a, axis, where=where, keepdims=keepdims)
    return _reduction(_mean, np.mean, "mean", a, axis, keepdims, dtype, out,
                      _given(where=where))


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    if initial is not None and where is None and out is None:    # as compiled mode reads it
        return ELEMENTWISE["maximum"](max(a, axis, None, keepdims), initial)
    return _reduction(_max, np.max, "max", a, axis, keepdims, None, out,
                      _given(initial=initial, where=where))


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    if initial is not None and where is None and out is None:    # as compiled mode reads it
        return ELEMENTWISE["minimum"](min(a, axis, None, keepdims), initial)
    return _reduction(_min, np.min, "min", a, axis, keepdims, None, out,
                      _given(initial=initial, where=where))


_logsumexp = make_op(rules.logsumexp_, "logsumexp")


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """scipy.special.logsumexp; b= weights (shaped like the array, or one number) of a whole
    one (the compiled mode's primitive), else along axis= or with keepdims= as compiled mode
    composes it; return_sign=: dispatch.fallback."""
    if b is not None and axis is None and not keepdims and not return_sign:
        from ..primitives import get
        from .from_primitives import check_types, primitive_op
        prim = get("scipy.special.logsumexp_b")
        check_types(prim, {}, (a, b))
        return primitive_op(prim, {})(_lists(a), b)
    if b is not None and not return_sign:
        # along an axis or with keepdims: as compiled mode composes it (normalize's
        # weighted_logsumexp), log(sum(b * exp(x - m))) + m of m the max over the axis
        x = _lists(a)
        m = max(x, axis, None, True)
        s = sum(b * ELEMENTWISE["exp"](x - m), axis, None, None, bool(keepdims))
        return ELEMENTWISE["log"](s) + (m if keepdims else max(x, axis))
    if b is not None or return_sign:
        import scipy.special
        return _other_form(scipy.special.logsumexp, "scipy.special.logsumexp(..., %s=...)"
                           % ("b" if b is not None else "return_sign"), (a,),
                           dict(axis=axis, b=b, keepdims=keepdims, return_sign=return_sign))
    return _logsumexp(_lists(a), _unwrap_axis(axis), bool(keepdims))


_norm = make_op(rules.norm_, "norm")


def norm(x, ord=None, axis=None, keepdims=False):
    """np.linalg.norm with ord=None (2-norm of a vector, Frobenius of a matrix), and the
    ord=2 of a vector / ord='fro' of a matrix that equal it; a vector's p-norms and a
    matrix's ord=2, -2, 'nuc', 1, -1, inf, -inf by compiled mode's rules; other ords:
    dispatch.fallback."""
    if ord is not None:
        nd = np.ndim(unwrap(x))
        vector = (axis is None and nd == 1) or isinstance(axis, (int, np.integer))
        matrix = (axis is None and nd == 2) or (isinstance(axis, tuple) and len(axis) == 2)
        if (ord == 2 and not isinstance(ord, str) and vector) or (ord == "fro" and matrix):
            ord = None
    if ord is not None and (isinstance(axis, (int, np.integer)) or (axis is None and nd == 1)) \
            and not isinstance(ord, (str, bool)) and ord != 0:
        # a vector norm's ord=: the rule compiled mode picks (`forms.norm_at`), per slice
        from ..primitives.forms import norm_axis_at
        from .from_primitives import primitive_op
        x = _lists(x)
        prim, statics = norm_axis_at((np.ndim(unwrap(x)),), {
            "ord": float(ord) if np.isinf(ord) else ord, "axis": 0 if axis is None else int(axis)})
        out = primitive_op(prim, statics)(x)
        return np.expand_dims(out, statics["axis"]) if keepdims else out
    if ord is not None and axis is None and nd == 2:
        # a matrix norm's ord=: the rule compiled mode picks (`forms.norm_at`)
        from ..primitives.forms import matrix_ord, norm_at
        from .from_primitives import primitive_op
        if matrix_ord(ord) is not None:
            prim, statics = norm_at((2,), {"ord": ord})
            out = primitive_op(prim, statics)(_lists(x))
            return np.reshape(out, (1, 1)) if keepdims else out
    if ord is not None:
        return _other_form(np.linalg.norm, "np.linalg.norm(..., ord=...)", (x,),
                           dict(ord=ord, axis=axis, keepdims=keepdims))
    return _norm(_lists(x), _unwrap_axis(axis), bool(keepdims))


# ---------------------------------------------------------------------------
# Linear algebra
# ---------------------------------------------------------------------------
_dot = make_binary(np.dot)
_outer = make_binary(np.outer)
matmul = dispatch.UFUNC_OPS[np.matmul]


def dot(a, b, out=None):
    ranks = (np.ndim(unwrap(a)), np.ndim(unwrap(b)))
    if max(ranks) > 2 and graph.grad_enabled and (_has_grad_var(a) or _has_grad_var(b)):
        if ranks not in ((3, 1), (1, 3), (3, 2)):     # where np.dot is not matmul's product
            raise refuse(NP_DOT_STACKS if ranks in ((3, 3), (2, 3)) else
                         "np.dot of an array with more than 3 dimensions has no derivative "
                         "rule (use np.matmul or @)", "np.dot", UnsupportedError)
        r = matmul(a, b)
        return r if out is None else dispatch.write_outputs(out, r)
    r = _dot(a, b)
    return r if out is None else dispatch.write_outputs(out, r)


def outer(a, b, out=None):
    if np.ndim(a.value if type(a) is Var else a) != 1:     # NumPy flattens a matrix first
        a = ravel(a)
    if np.ndim(b.value if type(b) is Var else b) != 1:
        b = ravel(b)
    r = _outer(a, b)
    return r if out is None else dispatch.write_outputs(out, r)


# ---------------------------------------------------------------------------
# Shape and structure (reshape/transpose/basic indexing give views, as in NumPy)
# ---------------------------------------------------------------------------
_reshape = make_op(rules.reshape, "reshape")
_transpose = make_op(rules.transpose, "transpose")
_concatenate = make_op(rules.concatenate, "concatenate")
_getitem = make_op(rules.getitem, "getitem")
copy = make_unary(rules.copy, name="copy")
identity = make_unary(rules.identity, name="identity")
to_float = make_unary(rules.to_float, name="float")
Var.ITEM = make_unary(rules.item, name="item")     # x.item() inside value_and_grad
_copy_op = copy


def _maybe_view(out, base, kind, info):
    if type(base) is Var and type(out) is Var:
        v = out.value
        if type(v) is ndarray and v.base is not None and np.may_share_memory(v, base.value):
            register_view(out, base, kind, info)
    return out


def _shape_arg(shape):
    if type(shape) is Var:
        shape = shape.value
    if isinstance(shape, (list, tuple)):
        return tuple(int(s.value if type(s) is Var else s) for s in shape)
    return int(shape)


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if shape is None:
        shape = newshape
    if order != "C":
        return _other_form(np.reshape, "np.reshape(..., order=%r)" % (order,), (a, shape),
                           dict(order=order))
    shape = _shape_arg(shape)
    return _maybe_view(_reshape(a, shape), a, "reshape", shape)


def transpose(a, axes=None):
    if axes is not None:      # normalised: the adjoint inverts the permutation
        nd = np.ndim(unwrap(a))
        axes = tuple(int(i) % nd if nd else int(i) for i in axes)
    return _maybe_view(_transpose(a, axes), a, "transpose", axes)


def ravel(a, order="C"):
    return reshape(a, -1, order)


def concatenate(arrays, axis=0, out=None, dtype=None, casting=None):
    extra = _given(out=out, dtype=dtype, casting=casting)
    if extra:
        return _other_form(np.concatenate, "np.concatenate(..., %s=...)" % next(iter(extra)),
                           (arrays,), dict(axis=axis, **extra))
    # a part written as a list ([0.0]) is the array of it, as in NumPy
    arrays = [array(x) if isinstance(x, (list, tuple)) else x for x in arrays]
    if axis is None:
        arrays = [ravel(x) for x in arrays]
        axis = 0
    return _concatenate(int(axis), *arrays)


def stack(arrays, axis=0, out=None, dtype=None, casting=None):
    extra = _given(out=out, dtype=dtype, casting=casting)
    if extra:
        return _other_form(np.stack, "np.stack(..., %s=...)" % next(iter(extra)),
                           (arrays,), dict(axis=axis, **extra))
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    shape = np.shape(arrays[0].value if type(arrays[0]) is Var else arrays[0])
    ax = axis % (len(shape) + 1)
    new = shape[:ax] + (1,) + shape[ax:]
    return concatenate([_reshape(x, new) for x in arrays], ax)


_where = make_op(rules.where, "where")
_clip = make_op(rules.clip, "clip")


def where(condition, x=None, y=None):
    c = condition.value if type(condition) is Var else condition
    if x is None and y is None:
        return np.nonzero(c)
    return _where(c, x, y)


_NOVALUE = object()


def clip(a, a_min=_NOVALUE, a_max=_NOVALUE, out=None, *, min=_NOVALUE, max=_NOVALUE, **kw):
    lo = a_min if a_min is not _NOVALUE else (min if min is not _NOVALUE else None)
    hi = a_max if a_max is not _NOVALUE else (max if max is not _NOVALUE else None)
    if kw:
        return _other_form(np.clip, "np.clip(..., %s=...)" % next(iter(kw)), (a, lo, hi), kw)
    r = _clip(a, lo, hi)
    return r if out is None else dispatch.write_outputs(out, r)


def getitem(x, idx):
    idx = views.norm_index(idx)
    out = _getitem(x, idx)
    if type(out.value) is ndarray and is_basic_index(idx):
        register_view(out, x, "index", idx)
    return out


def _inverse_axes(axes):
    return None if axes is None else tuple(int(i) for i in np.argsort(axes))


views.VIEW_OPS.update({
    "index": lambda base, idx: _getitem(base, idx),
    "reshape": lambda base, shape: _reshape(base, shape),
    "transpose": lambda base, axes: _transpose(base, axes),
    "undo_reshape": lambda view, vi: _reshape(view, np.shape(vi.base.value)),
    "undo_transpose": lambda view, vi: _transpose(view, _inverse_axes(vi.info)),
})
views.SETITEM_RULE = RULES[rules.setitem]


# ---------------------------------------------------------------------------
# Creation functions: return constant Vars, so that `y = np.zeros(n); y[i] = v`
# records the write (a plain ndarray cannot hold a Var)
# ---------------------------------------------------------------------------
def _const(fn):
    def creator(*args, **kwargs):
        return Var(fn(*unwrap(args), **unwrap(kwargs)), None)
    creator.__name__ = creator.__qualname__ = fn.__name__
    creator.__doc__ = "np.%s returning a constant jitad.eager.Var" % fn.__name__
    return creator


zeros = _const(np.zeros)
ones = _const(np.ones)
empty = _const(np.empty)
eye = _const(np.eye)
_linspace = make_op(rules.linspace_, "linspace")
_arange = make_op(rules.arange_, "arange")


def _constant(value):
    return value if type(value) is Var else Var(value, None)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, **kw):
    """np.linspace, differentiable in start and stop:
    out[k] = start + (stop - start) * k / div, div = num - 1 (endpoint) or num."""
    num = operator.index(unwrap(num))
    diff = (graph.grad_enabled and (_has_grad_var(start) or _has_grad_var(stop))
            and _float_dtype(dtype) and not kw)
    if not diff:
        r = np.linspace(unwrap(start), unwrap(stop), num, endpoint, retstep,
                        dtype, axis, **kw)
        return (_constant(r[0]), r[1]) if retstep else _constant(r)
    out = _linspace(start, stop, num, bool(endpoint), dtype, int(axis))
    if not retstep:
        return out
    div = num - 1 if endpoint else num
    return out, ((stop - start) / div if div > 0 else np.nan)


def arange(*args, **kwargs):
    """np.arange, differentiable in a float start and step: out[k] = start + step * k.
    The length (a function of start, stop and step) is not differentiated."""
    names = ("start", "stop", "step", "dtype")
    given = dict(zip(names, args)) if len(args) != 1 else {"stop": args[0]}
    rest = dict(kwargs)
    for k in names:
        if k in rest:
            given[k] = rest.pop(k)
    start, stop, step = given.get("start"), given.get("stop"), given.get("step")
    if stop is None:                      # np.arange(start=5.0): the range [0, 5)
        start, stop = None, start
    if graph.grad_enabled and not rest and (_has_grad_var(start) or _has_grad_var(step)):
        out = _arange(0 if start is None else start, unwrap(stop),
                      1 if step is None else step, given.get("dtype"))
        if out.value.dtype.kind in "fc":
            return out
        return Var(out.value, None)       # an integer dtype: piecewise constant
    return Var(np.arange(*unwrap(args), **unwrap(kwargs)), None)


def _like(fn):
    def creator(a, dtype=None, *args, **kwargs):
        av = a.value if type(a) is Var else a
        if dtype is None and np.asarray(av).dtype.kind in "biu" and type(a) is Var \
                and a._node is not None:
            dtype = np.float64
        return Var(fn(av, dtype, *args, **kwargs), None)
    creator.__name__ = creator.__qualname__ = fn.__name__
    return creator


zeros_like = _like(np.zeros_like)
ones_like = _like(np.ones_like)
empty_like = _like(np.empty_like)


def full(shape, fill_value, dtype=None, order="C"):
    if type(fill_value) is Var and fill_value._node is not None:
        return zeros(shape, dtype if dtype is not None else np.float64) + fill_value
    return Var(np.full(_shape_arg(shape), unwrap(fill_value), dtype, order), None)


def full_like(a, fill_value, dtype=None, *args, **kwargs):
    return full(np.shape(a.value if type(a) is Var else a), fill_value,
                dtype if dtype is not None else np.asarray(unwrap(a)).dtype)


def _has_grad_var(obj):
    if type(obj) is Var:
        return obj._node is not None
    if isinstance(obj, (list, tuple)):
        return any(_has_grad_var(o) for o in obj)
    return False


def _build(obj):
    """Nested lists of scalars/Vars -> one (differentiable) array Var."""
    if isinstance(obj, (list, tuple)):
        return stack([_build(o) for o in obj])
    return obj if type(obj) is Var else Var(np.asarray(obj), None)


def array(obj, dtype=None, copy=True, **kwargs):
    if type(obj) is Var:
        out = _copy_op(obj) if copy else obj
        return out if dtype is None else astype(out, dtype)
    if _has_grad_var(obj):
        return _build(obj)
    return Var(np.array(unwrap(obj), dtype=dtype, **kwargs), None)


def asarray(obj, dtype=None, **kwargs):
    if type(obj) is Var:
        return obj if dtype is None else astype(obj, dtype)
    if _has_grad_var(obj):
        return _build(obj)
    return Var(np.asarray(unwrap(obj), dtype=dtype, **kwargs), None)


def astype(x, dtype, **kwargs):
    dt = np.dtype(dtype)
    if type(x) is not Var:
        return np.asarray(x).astype(dt, **kwargs)
    if dt.kind in "fc" and x._node is not None:
        return copy(x) if np.asarray(x.value).dtype == dt else \
            _astype_float(x, dt)
    return Var(np.asarray(x.value).astype(dt, **kwargs), None)


def _astype_float(x, dt):
    out = copy(x)
    out.value = np.asarray(out.value).astype(dt)
    return out


def shape(a):
    return np.shape(a.value if type(a) is Var else a)


def ndim(a):
    return np.ndim(a.value if type(a) is Var else a)


def size(a, axis=None):
    return np.size(a.value if type(a) is Var else a, axis)


for _name, _f in [("sum", sum), ("mean", mean), ("max", max), ("amax", max), ("min", min),
                  ("amin", min), ("dot", dot), ("outer", outer), ("reshape", reshape),
                  ("transpose", transpose), ("ravel", ravel), ("concatenate", concatenate),
                  ("stack", stack), ("where", where), ("clip", clip), ("copy", copy),
                  ("zeros_like", zeros_like), ("ones_like", ones_like),
                  ("empty_like", empty_like), ("full_like", full_like), ("shape", shape),
                  ("ndim", ndim), ("size", size), ("array", array), ("asarray", asarray),
                  ("linspace", linspace)]:
    if hasattr(np, _name):
        dispatch.FUNCTION_OPS[getattr(np, _name)] = _f
dispatch.FUNCTION_OPS[np.linalg.norm] = norm
# NumPy functions jitad defines by NumPy (np.ptp, np.vdot ...): their one definition, on Vars
# (a ufunc's through __array_ufunc__, np.ldexp)
def _undefined_form(obj, args, kwargs):
    own = _OWN_OPS.get(obj)             # np.sum without where=: its own op
    if own is not None:
        return own(*args, **kwargs)
    name = "np.linalg." + obj.__name__ if obj is np.linalg.matrix_power else "np." + obj.__name__
    return dispatch.fallback(obj, name, obj, args, kwargs)


_OWN_OPS = {o: dispatch.FUNCTION_OPS[o] for o in prelude.DEFINITIONS if o in dispatch.FUNCTION_OPS}
for _obj, _f in prelude.eager_functions(_undefined_form).items():
    (dispatch.UFUNC_OPS if isinstance(_obj, np.ufunc) else dispatch.FUNCTION_OPS)[_obj] = _f
_take_flat = dispatch.FUNCTION_OPS[np.take]


def take(a, indices, axis=None, out=None, mode="raise"):
    """np.take(a, idx, axis=k) as compiled mode reads it: a[:, ..., idx] (k colons); without
    axis=, the prelude's definition."""
    if axis is None or out is not None or mode != "raise":
        plain = (axis, out, mode) == (None, None, "raise")
        return _take_flat(a, indices, **({} if plain else {"axis": axis, "out": out, "mode": mode}))
    axis = int(axis) % np.ndim(unwrap(a))
    return a[(slice(None),) * axis + (indices,)]


dispatch.FUNCTION_OPS[np.take] = take


# ---------------------------------------------------------------------------
# Python operators on Var (Python semantics on values, NumPy's rules)
# ---------------------------------------------------------------------------
def _reflected(op):
    def r(self, other):
        return op(other, self)
    return r


def _inplace(op):
    """a += b: NumPy updates an array in place (aliases see it); scalars rebind."""
    def i(self, other):
        new = op(self, other)
        if type(self.value) is ndarray:
            return _set_whole(self, new)
        return new
    return i


def _set_whole(var, new):
    nv = new.value if type(new) is Var else new
    if (var._view_of is None and type(nv) is ndarray
            and nv.shape == var.value.shape and nv.dtype == var.value.dtype
            and type(new) is Var and type(var._node) is not Leaf):
        # whole-array update of a non-view: just rebind (value semantics)
        var.value = nv
        if graph.grad_enabled:
            var._node = new._node
        views.refresh_views(var)
        return var
    return views.set_whole(var, new)


def _cmp(f):
    def c(self, other):
        return f(self.value, other.value if type(other) is Var else other)
    return c


for _name, _opf, _key in [("add", operator.add, np.add), ("sub", operator.sub, np.subtract),
                          ("mul", operator.mul, np.multiply),
                          ("truediv", operator.truediv, np.divide),
                          ("pow", operator.pow, np.power), ("mod", operator.mod, np.mod),
                          ("matmul", operator.matmul, np.matmul)]:
    _op = make_binary(_opf, _key, "__%s__" % _name)
    setattr(Var, "__%s__" % _name, _op)
    setattr(Var, "__r%s__" % _name, _reflected(_op))
    setattr(Var, "__i%s__" % _name, _inplace(_op))

_floordiv = make_nondiff(operator.floordiv)
Var.__floordiv__ = _floordiv
Var.__rfloordiv__ = _reflected(_floordiv)
Var.__neg__ = make_unary(operator.neg, np.negative, "__neg__")
Var.__abs__ = make_unary(operator.abs, np.absolute, "__abs__")
Var.__pos__ = lambda self: self
for _name, _opf in [("lt", operator.lt), ("le", operator.le), ("gt", operator.gt),
                    ("ge", operator.ge), ("eq", operator.eq), ("ne", operator.ne)]:
    setattr(Var, "__%s__" % _name, _cmp(_opf))
Var.__getitem__ = getitem


# ---------------------------------------------------------------------------
# Array methods
# ---------------------------------------------------------------------------
def _shape_from_args(args):
    return args[0] if len(args) == 1 else args


Var.sum = lambda self, axis=None, dtype=None, out=None, keepdims=False, **kw: \
    sum(self, axis, dtype, out, keepdims, **kw)
Var.mean = lambda self, axis=None, dtype=None, out=None, keepdims=False, **kw: \
    mean(self, axis, dtype, out, keepdims, **kw)
Var.max = lambda self, axis=None, out=None, keepdims=False, **kw: \
    max(self, axis, out, keepdims, **kw)
Var.min = lambda self, axis=None, out=None, keepdims=False, **kw: \
    min(self, axis, out, keepdims, **kw)
Var.reshape = lambda self, *shape, order="C": reshape(self, _shape_from_args(shape), order)
def _var_transpose(self, *axes):
    if not axes or (len(axes) == 1 and axes[0] is None):
        axes = None
    elif len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
        axes = tuple(axes[0])
    return transpose(self, axes)


Var.transpose = _var_transpose
Var.T = property(lambda self: transpose(self))
Var.ravel = lambda self, order="C": ravel(self, order)
Var.flatten = lambda self, order="C": copy(ravel(self, order))
Var.copy = lambda self: copy(self)
Var.dot = lambda self, other: dot(self, other)
Var.clip = lambda self, *args, **kwargs: clip(self, *args, **kwargs)
Var.astype = lambda self, dtype, **kw: astype(self, dtype, **kw)
Var.fill = lambda self, value: views.write(self, Ellipsis, value)   # returns None, as NumPy


def _sort_in_place(self, axis=-1, kind=None, order=None):
    """y.sort(axis): the write y[...] = np.sort(y, axis) (compiled mode's `inplace` rewrite)."""
    if order is not None:
        raise refuse(".sort(order=) of a Var is not supported", ".sort()", UnsupportedError)
    views.write(self, Ellipsis, np.sort(self, axis=axis))


def _copyto(dst, src, casting="same_kind", where=True):
    """np.copyto(dst, src): the write dst[...] = src (a `where=` mask: np.where(where, src, dst))."""
    if type(dst) is not Var:
        if type(src) is Var and src._node is not None and graph.grad_enabled:
            raise refuse("np.copyto() into a plain array of a Var that requires grad",
                         "np.copyto()")
        return np.copyto(dst, unwrap(src), casting=casting, where=unwrap(where))
    views.write(dst, Ellipsis, src if where is True else np.where(where, src, dst))


Var.sort = _sort_in_place


def _ufunc_reduction(fn):
    def run(x, axis=0, **kwargs):    # np.add.reduce(x, axis): np.sum(x, axis=axis)
        return fn(x, axis=axis, **kwargs)
    return run


for (_ufunc, _method), _fn in UFUNC_REDUCTIONS.items():
    dispatch.UFUNC_METHOD_OPS.setdefault((_ufunc, _method), _ufunc_reduction(_fn))
dispatch.FUNCTION_OPS[np.copyto] = _copyto
for _name in ("argmax", "argmin", "argsort", "nonzero", "any", "all"):
    setattr(Var, _name, (lambda n: lambda self, *a, **k: getattr(np.asarray(self.value), n)(*a, **k))(_name))


def _matrix_transpose(x):
    nd = np.ndim(x.value)
    if nd < 2:
        raise ValueError("matrix transpose with ndim < 2 is undefined")
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


# ndarray attributes that Var computes through Var.__getattr__ (dispatch.ATTR_OPS)
dispatch.ATTR_OPS.update({
    "real": lambda x: (dispatch.FUNCTION_OPS[np.real](x) if np.iscomplexobj(x.value) else
                       getitem(x, Ellipsis) if type(x.value) is ndarray else identity(x)),
    "imag": lambda x: (dispatch.FUNCTION_OPS[np.imag](x) if np.iscomplexobj(x.value) else
                       Var(np.zeros_like(x.value), None)),
    "mT": _matrix_transpose,
    "conj": lambda x: lambda: dispatch.UFUNC_OPS[np.conjugate](x),
    "conjugate": lambda x: lambda: dispatch.UFUNC_OPS[np.conjugate](x),
})


# ---------------------------------------------------------------------------
# Bitwise operators (bool/int arrays given as arguments) and divmod: not differentiated
# ---------------------------------------------------------------------------
for _name, _opf in [("and", operator.and_), ("or", operator.or_), ("xor", operator.xor),
                    ("lshift", operator.lshift), ("rshift", operator.rshift)]:
    _op = make_nondiff(_opf, "__%s__" % _name)
    setattr(Var, "__%s__" % _name, _op)
    setattr(Var, "__r%s__" % _name, _reflected(_op))
Var.__invert__ = make_nondiff(operator.invert, "__invert__")
Var.__divmod__ = lambda self, other: (self // other, self % other)
Var.__rdivmod__ = lambda self, other: (other // self, other % self)


# ---------------------------------------------------------------------------
# Builtins max(a, b) and min(a, b) inside value_and_grad (ties split the cotangent)
# ---------------------------------------------------------------------------
def _extreme_builtin(builtin, pair, reduce, name):
    def extreme(*args, **kwargs):
        if kwargs or not args:
            return builtin(*args, **kwargs)
        if len(args) == 1:
            a = args[0]
            if type(a) is Var:        # max(x) over a vector Var: the reduction np.max(x)
                return reduce(a) if np.ndim(a.value) == 1 else builtin(a)
            items = a if isinstance(a, (list, tuple)) else list(a)
        else:
            items = args
        if not any(type(i) is Var for i in items) or \
                any(np.ndim(i.value if type(i) is Var else i) != 0 for i in items):
            return builtin(items)     # Python's own semantics (and errors)
        if len(items) == 1:
            return items[0]
        if len(items) == 2:
            return pair(items[0], items[1])
        return reduce(_build(list(items)))

    extreme.__name__ = extreme.__qualname__ = name
    extreme.__doc__ = ("builtin %s inside value_and_grad: on scalar Vars it is np.%s (two "
                       "arguments: np.%simum), so a tie splits the cotangent evenly."
                       % (name, name, name))
    return extreme


max_builtin = _extreme_builtin(builtins.max, dispatch.UFUNC_OPS[np.maximum], max, "max")
min_builtin = _extreme_builtin(builtins.min, dispatch.UFUNC_OPS[np.minimum], min, "min")


# ---------------------------------------------------------------------------
# math module
# ---------------------------------------------------------------------------
MATH = {}
for _f, _prim in rules.ELEMENTWISE:
    if getattr(math, getattr(_f, "__name__", ""), None) is _f:
        MATH[_f.__name__] = (make_unary if len(_prim.params) == 1 else make_binary
                             if len(_prim.adjoints) == 2 else make_op)(_f)
MATH["log"] = make_op(math.log, "log")
MATH["hypot"] = make_op(math.hypot, "hypot")
for _f in [f for f, _ in rules.STEPS if getattr(math, f.__name__, None) is f] + \
        [math.isnan, math.isinf, math.isfinite]:
    MATH[_f.__name__] = make_nondiff(_f, wrap=False)


def float_(x=0.0):
    """float() inside a function run by value_and_grad: keeps Vars differentiable."""
    if type(x) is Var:
        return to_float(x)
    return _builtin_float(x)


float_.dtype = np.dtype(np.float64)     # still a dtype where float is one: x.astype(float)


_builtin_isinstance = isinstance


def _as_class(c):
    """A class as the user named it: float for eager mode's `float_`, NumPy's type for an
    `np.float64` stand-in (numpy_ns._Cast), tuples of them."""
    if type(c) is tuple:
        return tuple(_as_class(x) for x in c)
    if c is float_:
        return float
    return getattr(c, "type", c) if type(c).__name__ == "_Cast" else c


def isinstance_(obj, cls):
    """isinstance() inside a function run by value_and_grad: of a Var, its value's answer
    (compiled mode decides it from the argument's type when it compiles)."""
    return _builtin_isinstance(obj.value if type(obj) is Var else obj, _as_class(cls))
