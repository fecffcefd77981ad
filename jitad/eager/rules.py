"""Derivative table of jitad.eager: one line per primitive.

``defvjp(f, vjp_0, vjp_1, ...)``: ``vjp_i(g, ans, *args)`` returns the adjoint of
positional argument i of ``f(*args) == ans`` given the output adjoint ``g``
(``None``: argument not differentiable).  Broadcasting is undone by the engine
(graph.reverse_pass), so rules may return the broadcast shape.  ``save='shapes'``:
the rule only reads ``.shape``/``.dtype`` of array arguments and never ``ans``.
The same subset as the compiler: elementwise math, reductions, dot/matmul/outer,
reshape/transpose/concatenate, indexing reads and writes, and linspace/arange
(differentiable in their endpoints/start/step, not in their length).

At non-differentiable points the rules follow the compiled mode's convention
(jitad/rules.py), which is autograd's and JAX's for ties: a max/min reduction
splits g evenly among the entries equal to the result (per reduced slice);
maximum/minimum give each side g/2 at a tie; clip passes g where lo <= x <= hi (to hi where lo > hi, NumPy's result);
abs and fabs give g * sign(x).
"""
import ast
import importlib
import math
import operator

import numpy as np

from .. import runtime as rt
from ..primitives.core import callables
from ..primitives.templates import substitute
from .graph import Masked, Sparse
from .record import defvjp, defvjp_argnum, nondiff


# ---------------------------------------------------------------------------
# Forward functions that are not plain numpy/math functions (argument order is
# fixed and positional; the wrappers in ops.py / numpy_ns.py normalise calls).
# ---------------------------------------------------------------------------
def getitem(x, idx):
    return x[idx]


def setitem(x, idx, v):      # forward is views.write (copy-on-write); rule only
    raise AssertionError("setitem is applied by views.write")


def leading_arrays(idx):
    """The integer index arrays of `idx` if they lead it (y[idx], y[rows, cols]), else None."""
    parts = idx if type(idx) is tuple else (idx,)
    k = 0
    while k < len(parts) and type(parts[k]) is np.ndarray and parts[k].dtype.kind in "iu":
        k += 1
    if any(type(p) is np.ndarray and p.dtype.kind in "iu" for p in parts[k:]):
        return None
    return parts[:k]


def last_written(g, idx):
    """g[idx], the cotangent of what y[idx] = v stored: where the index arrays repeat an entry,
    the last occurrence is the value that stayed (as compiled code writes, and NumPy does),
    the earlier ones get 0."""
    out = np.array(g[idx])
    arrays = leading_arrays(idx)
    if not arrays:
        return out
    cols = [np.ravel(a) % g.shape[k] for k, a in enumerate(np.broadcast_arrays(*arrays))]
    keys = np.stack(cols, axis=1)
    n = len(keys)
    _, first = np.unique(keys[::-1], axis=0, return_index=True)
    kept = np.zeros(n, bool)
    kept[n - 1 - first] = True
    out.reshape((n,) + out.shape[len(arrays[0].shape):])[~kept] = 0.0
    return out


def sum_(x, axis, keepdims):
    return np.sum(x, axis=axis, keepdims=keepdims)


def mean_(x, axis, keepdims):
    return np.mean(x, axis=axis, keepdims=keepdims)


def max_(x, axis, keepdims):
    return np.max(x, axis=axis, keepdims=keepdims)


def min_(x, axis, keepdims):
    return np.min(x, axis=axis, keepdims=keepdims)


def logsumexp_(x, axis, keepdims):
    import scipy.special
    return scipy.special.logsumexp(x, axis=axis, keepdims=keepdims)


def reshape(x, shape):
    return np.reshape(x, shape)


def transpose(x, axes):
    return np.transpose(x, axes)


def concatenate(axis, *xs):
    return np.concatenate(xs, axis)


def identity(x):
    return x


def copy(x):
    return x.copy() if type(x) is np.ndarray else x


def to_float(x):             # float(x) inside a function run by value_and_grad
    return float(x)


def item(x):                 # x.item() inside a function run by value_and_grad
    return np.asarray(x).item()


def clip(x, lo, hi):
    return np.clip(x, lo, hi)


def where(c, x, y):
    return np.where(c, x, y)


def norm_(x, axis, keepdims):
    return np.linalg.norm(x, axis=axis, keepdims=keepdims)


def linspace_(start, stop, num, endpoint, dtype, axis):
    return np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis)


def arange_(start, stop, step, dtype):
    return np.arange(start, stop, step, dtype=dtype)


# ---------------------------------------------------------------------------
# Rules read from the compiled mode's primitives
# ---------------------------------------------------------------------------
def _float64(v):
    """A Python float as np.float64, so that a rule divides by zero as NumPy and Numba do
    (inf, nan) instead of raising ZeroDivisionError."""
    return np.float64(v) if type(v) is float else v


def from_primitive(prim, statics=None):
    """(the eager rules, save=) of a primitive: `vjp(g, ans, *args)` per parameter (None where
    it has no adjoint), built from its adjoint templates -- the expression the compiled mode
    generates, evaluated on the operands' values (`y` is `ans`); `save="shapes"` when no
    template reads an operand or the result."""
    vjps = []
    for p in prim.params:
        if p not in prim.adjoints:
            vjps.append(None)
            continue
        template = prim.adjoints[p]
        # only a template that divides or raises to a power needs NumPy's scalar semantics
        # (an extra call per backward step otherwise)
        divides = any(isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Div, ast.Pow, ast.Mod))
                      for n in ast.walk(template))
        wrap = {q: ast.Call(ast.Name("_float64", ast.Load()), [ast.Name(q, ast.Load())], [])
                for q in prim.params} if divides else {}
        consts = {k: ast.parse(v, mode="eval").body if isinstance(v, str) else ast.Constant(v)
                  for k, v in (statics or {}).items()}
        body = substitute(template, {"y": ast.Name("ans", ast.Load()), **wrap, **consts})
        args = ast.arguments([], [ast.arg(a) for a in ("g", "ans", *prim.params)], None, [], [],
                             None, [])
        tree = ast.fix_missing_locations(ast.Expression(ast.Lambda(args, body)))
        code = compile(tree, f"<jitad rule {prim.name}: {p}>", "eval")
        vjps.append(eval(code, {"np": np, "math": math, "rt": rt, "_float64": _float64}))
    reads = any(prim.reads(p) for p in prim.adjoints)
    if prim.complex_form is not None:       # np.abs of a complex: the complex form's rules
        cvjps, _ = from_primitive(prim.complex_form, statics)
        vjps = [_by_dtype(r, c) for r, c in zip(vjps, cvjps)]
        reads = True
    return vjps, "values" if reads else "shapes"


def _by_dtype(real_vjp, complex_vjp):
    """A rule choosing, on the operands' values, the real or the complex form's rule."""
    if real_vjp is None or complex_vjp is None:
        return real_vjp if complex_vjp is None else complex_vjp

    def vjp(g, ans, *args):
        if any(np.iscomplexobj(a) for a in args):
            return complex_vjp(g, ans, *args)
        return real_vjp(g, ans, *args)
    return vjp


def refusals(prim):
    """{position: message} of the operands whose derivative `prim` refuses (`refused`)."""
    return {i: prim.refusal(p) for i, p in enumerate(prim.params) if p in prim.refused}


# ---------------------------------------------------------------------------
# Helpers used by the rules
# ---------------------------------------------------------------------------
def _shape(x):
    """Shape of a saved argument: an array, a graph.Meta or a scalar."""
    return getattr(x, "shape", ())


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axis = axis if type(axis) is tuple else (axis,)
    return tuple(a % ndim for a in axis)


def _expand(g, x, axis, keepdims):
    """Broadcast the adjoint of a reduction back to the shape of x."""
    shape = _shape(x)
    if not shape:
        return g
    if not keepdims:
        g = np.expand_dims(g, _axes(axis, len(shape)))
    return np.broadcast_to(g, shape)


def _count(x, axis):
    shape = _shape(x)
    return float(np.prod([shape[a] for a in _axes(axis, len(shape))])) if shape else 1.0


def _extreme_mask(x, ans, axis, keepdims):
    """1/k at each of the k positions attaining the max (min) of a reduction."""
    m = x == _expand(ans, x, axis, keepdims)
    return m / np.sum(m, axis=axis, keepdims=True)


def _lin_t(num, endpoint):
    """k / div for the samples of linspace (0 for the single sample of num=1)."""
    div = num - 1 if endpoint else num
    k = np.arange(num, dtype=np.float64)
    return k / div if div > 0 else k * 0.0


def _lin_sum(g, t, axis):
    """sum over the sample axis of g * t: the adjoint of an endpoint of linspace."""
    c = np.tensordot(t, np.moveaxis(g, axis, 0), axes=(0, 0))
    return c[()] if c.ndim == 0 else c


def _below(x, lo, hi):
    # clip's result is lo: x under it, and lo not above hi (crossed bounds give hi)
    return (x < lo) & (True if hi is None else lo <= hi)


def _above(x, lo, hi):
    # clip's result is hi: max(x, lo) above it
    return (x if lo is None else np.maximum(x, lo)) > hi


def _inside(x, lo, hi):
    ok = np.ones(np.shape(x), bool)
    if lo is not None:
        ok &= x >= lo
    if hi is not None:
        ok &= x <= hi
    return ok


def _mm_dx(g, x, y):
    """Adjoint of x in x @ y (matmul semantics, 1-D operands allowed)."""
    if y.ndim == 1:
        return g * y if x.ndim == 1 else np.multiply.outer(g, y)
    if x.ndim == 1:
        return np.matmul(y, g[..., None])[..., 0]
    return np.matmul(g, np.swapaxes(y, -1, -2))


def _mm_dy(g, x, y):
    """Adjoint of y in x @ y."""
    if x.ndim == 1:
        return g * x if y.ndim == 1 else x[:, None] * g[..., None, :]
    if y.ndim == 1:
        return np.matmul(np.swapaxes(x, -1, -2), g[..., None])[..., 0]
    return np.matmul(np.swapaxes(x, -1, -2), g)


def _dot_dx(g, x, y):
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return g * y
    if max(np.ndim(x), np.ndim(y)) > 2:    # refused when recorded (ops.dot): unreachable
        raise AssertionError("np.dot with >2-D operands reached the reverse pass")
    return _mm_dx(g, x, y)


def _dot_dy(g, x, y):
    if np.ndim(x) == 0 or np.ndim(y) == 0:
        return g * x
    return _mm_dy(g, x, y)


def _part(g, axis, xs, k):
    """Slice k of g along axis, for concatenate(xs, axis)."""
    start = sum(x.shape[axis] for x in xs[:k])
    idx = [slice(None)] * g.ndim
    idx[axis] = slice(start, start + xs[k].shape[axis])
    return g[tuple(idx)]


def _inverse_perm(axes):
    return tuple(np.argsort(axes)) if axes is not None else None


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------
# elementwise math and the Python operators + - * / ** % (the ufuncs Var's operators call):
# every elementwise primitive with a library callable (a NumPy or scipy.special ufunc, a math
# function), its rules the adjoint templates of the compiled mode's primitive, evaluated on
# NumPy values -- one rule for both modes. ELEMENTWISE: [(callable, primitive)] of those with
# adjoints; STEPS: those without (floor, sign, round ...), zero gradient.
def _elementwise_callables():
    diff, steps = [], []
    for f, prim in callables():
        if f in _BY_HAND:
            continue
        if isinstance(f, np.ufunc) or getattr(math, getattr(f, "__name__", ""), None) is f:
            if not (prim.elementwise or prim.kind in ("float", "int")):
                continue
        elif not (getattr(np, getattr(f, "__name__", ""), None) is f and prim.elementwise
                  and (prim.kind in ("ew", "ewf") or not prim.differentiable)):
            continue      # NumPy functions that are not ufuncs: np.sinc, np.round, np.fix
        (diff if prim.differentiable else steps).append((f, prim))
    return diff, steps


try:        # scipy.special's ufuncs are bound to their primitives once it is imported
    importlib.import_module("scipy.special")
except ImportError:
    pass
# math.log(x[, base]) and math.hypot(*xs) take a varying number of arguments: rules below
_BY_HAND = (math.log, math.hypot)
ELEMENTWISE, STEPS = _elementwise_callables()
for _f, _prim in ELEMENTWISE:
    _vjps, _save = from_primitive(_prim)
    defvjp(_f, *_vjps, save=_save, refused=refusals(_prim))
defvjp(where,         None, lambda g, ans, c, x, y: np.where(c, g, 0.0), lambda g, ans, c, x, y: np.where(c, 0.0, g))
defvjp(clip,          lambda g, ans, x, lo, hi: np.where(_inside(x, lo, hi), g, 0.0), lambda g, ans, x, lo, hi: np.where(_below(x, lo, hi), g, 0.0), lambda g, ans, x, lo, hi: np.where(_above(x, lo, hi), g, 0.0))

# reductions (axis: None, int or tuple)
defvjp(sum_,          lambda g, ans, x, axis, keepdims: _expand(g, x, axis, keepdims), save="shapes")
defvjp(mean_,         lambda g, ans, x, axis, keepdims: _expand(g, x, axis, keepdims) / _count(x, axis), save="shapes")
defvjp(max_,          lambda g, ans, x, axis, keepdims: _expand(g, x, axis, keepdims) * _extreme_mask(x, ans, axis, keepdims))
defvjp(min_,          lambda g, ans, x, axis, keepdims: _expand(g, x, axis, keepdims) * _extreme_mask(x, ans, axis, keepdims))
defvjp(logsumexp_,     lambda g, ans, x, axis, keepdims: _expand(g, x, axis, keepdims) * np.exp(x - _expand(ans, x, axis, keepdims)))
defvjp(norm_,         lambda g, ans, x, axis, keepdims: _expand(g, x, axis, keepdims) * x / _expand(ans + (ans == 0.0), x, axis, keepdims))  # slope 0 at x = 0, as table.norm

# linear algebra
defvjp(np.dot,        lambda g, ans, x, y: _dot_dx(g, x, y), lambda g, ans, x, y: _dot_dy(g, x, y))
defvjp(np.matmul,     lambda g, ans, x, y: _mm_dx(g, x, y), lambda g, ans, x, y: _mm_dy(g, x, y))
defvjp(np.outer,      lambda g, ans, x, y: np.reshape(g @ np.ravel(y), np.shape(x)), lambda g, ans, x, y: np.reshape(np.ravel(x) @ g, np.shape(y)))

# shape and structure
defvjp(reshape,       lambda g, ans, x, shape: np.reshape(g, _shape(x)), save="shapes")
defvjp(transpose,     lambda g, ans, x, axes: np.transpose(g, _inverse_perm(axes)), save="shapes")
defvjp_argnum(concatenate, lambda i, g, ans, axis, *xs: _part(g, axis, xs, i - 1), save="shapes")
defvjp(identity,      lambda g, ans, x: g, save="shapes")
defvjp(copy,          lambda g, ans, x: g, save="shapes")
defvjp(to_float,      lambda g, ans, x: g, save="shapes")
defvjp(item,          lambda g, ans, x: g, save="shapes")

# creation with differentiable endpoints (the length is not differentiated)
defvjp(linspace_,     lambda g, ans, start, stop, num, endpoint, dtype, axis: _lin_sum(g, 1.0 - _lin_t(num, endpoint), axis),
                      lambda g, ans, start, stop, num, endpoint, dtype, axis: _lin_sum(g, _lin_t(num, endpoint), axis),
                      None, None, None, None, save="shapes")
defvjp(arange_,       lambda g, ans, start, stop, step, dtype: np.sum(g), None,
                      lambda g, ans, start, stop, step, dtype: np.dot(g, np.arange(g.shape[0], dtype=g.dtype)),
                      None, save="shapes")

# indexing: x[idx] (repeated integer indices accumulate) and y[idx] = v
defvjp(getitem,       lambda g, ans, x, idx: Sparse(x, idx, g), save="shapes")
defvjp(setitem,       lambda g, ans, x, idx, v: Masked(g, idx), None, lambda g, ans, x, idx, v: last_written(g, idx), save="shapes")

# math functions eager mode calls in forms compiled mode does not have (yet): math.log(x, base),
# math.hypot(*xs)
defvjp(math.log,      lambda g, ans, x, base=math.e: g / (x * math.log(base)), lambda g, ans, x, base: -g * ans / (base * math.log(base)))
defvjp_argnum(math.hypot, lambda i, g, ans, *xs: g * xs[i] / ans)

# zero derivative almost everywhere: computed on values, recorded as constants
nondiff(*(f for f, _ in STEPS))
nondiff(np.sign, np.floor, np.ceil, np.trunc, np.rint, np.round, np.floor_divide,
        np.argmax, np.argmin, np.argsort, np.nonzero, np.shape, np.ndim, np.size,
        np.isnan, np.isinf, np.isfinite, np.greater, np.greater_equal, np.less,
        np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or,
        np.logical_not, np.all, np.any, np.count_nonzero,
        math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
        operator.floordiv)
