"""Eager versions of the NumPy functions that have a compiled primitive and no hand-written
eager op: the same primitive objects, evaluated on values.

Takes: the primitive registry (`primitives.callables()`), after `rules` and `ops` filled
`dispatch.FUNCTION_OPS` with the hand-written ops.
Guarantees: every other NumPy (non-ufunc) function with a primitive gets an entry in
`dispatch.FUNCTION_OPS` that reads its call as compiled mode does -- the operand count picks an
arity form (`np.arange`), trailing operands take the primitive's defaults, arguments past the
operands (or named by keyword) are its statics (`np.expand_dims(x, 1)`), `axis=`/`keepdims=`
of a reduction follow `forms.reduction_steps`, the operands' ranks pick a variant -- then runs
the primitive's forward template on the values and records its adjoint templates
(`rules.from_primitive`) as the node's rules. A call form the primitive does not have is
refused with a `JitadError` at the user's line, as compiled mode refuses it.
`eager_callable` and `namespace` give the same for the functions of modules eager mode does
not replace whole (scipy.linalg, scipy.signal, np.fft), found when the user's code reaches
them, and a refusing stand-in for a function jitad refuses on purpose (`core.refusal_for`).
Invariants: one eager op per (primitive, statics), built on first use and cached.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from .. import prelude, runtime
from ..primitives import FUNCTION_METHODS, METHODS, callables, get
from ..primitives.core import lookup_callable, methods, refusal_for
from ..errors import JitadError, UnsupportedError
from ..primitives.forms import (axes_steps, read_statics, reduction_steps, rule_at, settle_statics,
                               split_axis)
from ..types import TupleTy, Ty
from ..primitives.templates import substitute
from . import graph
from .dispatch import (ATTR_OPS, FUNCTION_OPS, UFUNC_METHOD_OPS, UFUNC_OPS, contains_var, fallback,
                       unwrap)
from .record import defvjp, make_op, nondiff
from .refusal import refuse
from .var import Var
from .views import write
from .rules import from_primitive, refusals

_OPS: dict = {}


def _static_node(v):
    return ast.parse(v, mode="eval").body if isinstance(v, str) else ast.Constant(v)


def primitive_op(prim, statics):
    """The eager op computing `prim` with these statics on positional operands."""
    key = (prim.name, tuple(sorted(statics.items())))
    op = _OPS.get(key)
    if op is None:
        body = substitute(prim.forward, {k: _static_node(v) for k, v in statics.items()})
        args = ast.arguments([], [ast.arg(p) for p in prim.params], None, [], [], None, [])
        tree = ast.fix_missing_locations(ast.Expression(ast.Lambda(args, body)))
        fwd = eval(compile(tree, f"<jitad eager {prim.name}>", "eval"),
                   {"np": np, "math": math, "rt": runtime})
        if prim.adjoints:
            vjps, save = from_primitive(prim, statics)
            defvjp(fwd, *vjps, save=save, refused=refusals(prim))
            op = make_op(fwd, prim.name.split(".")[0])
        else:
            nondiff(fwd)
            defvjp(fwd, *([None] * len(prim.params)), save="shapes")
            op = _integers_plain(make_op(fwd, prim.name.split(".")[0]))
        _OPS[key] = op
    return op


def _integers_plain(op):
    """A non-differentiable op whose integer or boolean results (np.argsort, np.isnan) are plain
    NumPy values, as NumPy's own function would give (`.tolist()` works on them)."""
    def plain(*args, **kwargs):
        out = op(*args, **kwargs)
        v = unwrap(out)
        if getattr(v, "dtype", np.dtype(float)).kind in "biu" or isinstance(v, (bool, int)):
            return v
        return out
    return plain


def _settle(prim, statics, operands):
    """The rules and statics at the operands' ranks, as compiled code uses them."""
    ranks = [np.ndim(unwrap(a)) for a in operands]
    rule = rule_at(prim, ranks, statics)
    statics = settle_statics(prim, statics, ranks)
    return rule, {k: v for k, v in statics.items() if k in rule.statics}


class _Call:
    """What a type rule reads of a call (its statics; no location: `refuse` finds the user's
    line)."""
    loc = None

    def __init__(self, statics):
        self.statics = statics


def check_types(prim, statics, operands):
    """The primitive's type rule on the operands' types: a form compiled mode refuses (a
    rank, a dtype) is refused here too, with the same message, at the user's line."""
    if prim.type_rule is None or not prim.checks_in_eager:
        return
    tys = [_type_of(unwrap(a)) for a in operands]
    try:
        prim.result_type(_Call(statics), tys)
    except UnsupportedError as e:
        raise refuse(e.message, e.construct, UnsupportedError) from None


def _type_of(v):
    """The type compiled mode gives a value: a tuple (a shape) the tuple of its items'."""
    if v is None:
        return None
    if isinstance(v, tuple):
        return TupleTy(tuple(_type_of(x) for x in v))
    v = np.asarray(v)
    kind = v.dtype.kind      # as compiled mode types arguments: every integer is i8
    return Ty("b1" if kind == "b" else "i8" if kind in "iu" else v.dtype.str[1:], v.ndim)


def _list_as_array(a):
    """An operand written as a list of numbers (`np.convolve(u, [1.0, -2.0, 1.0])`): the
    float array compiled mode stacks it into (`np.array([...])`); anything else (a list of
    arrays, of Vars) as it is."""
    if type(a) is not list or not a or not all(
            isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
            for x in a):
        return a
    return np.asarray(a, dtype=float)


def _refuse(name, message):
    return refuse(f"{name}: {message}", f"{name}()")


def call_op(target, prim, name=None):
    """The eager version of the library function `target`, which means `prim` (`name`: how
    messages spell it)."""
    module = (getattr(target, "__module__", "") or "numpy").replace("numpy", "np", 1)
    if name is None:
        name = module.split(".")[0] + "." + getattr(target, "__name__", prim.name)
        if module.startswith("scipy"):      # scipy.linalg._basic -> scipy.linalg
            name = ".".join(module.split(".")[:2]) + "." + getattr(target, "__name__", prim.name)

    def op(*args, **kwargs):
        p, args, kwargs = prim, list(args), dict(kwargs)
        if p.from_subscripts is not None:         # np.einsum("ij,jk->ik", a, b)
            kwargs.pop("optimize", None)    # a contraction order: the same result, to rounding
            if kwargs or not args:
                raise _refuse(name, "takes the constant subscripts and the operands (no "
                                    "keyword arguments)")
            try:
                spec = p.from_subscripts(args[0], len(args) - 1)
            except ValueError as e:
                raise _refuse(name, str(e)) from None
            check_types(spec, {}, args[1:])
            spec, statics = _settle(spec, {}, args[1:])     # `...`: the summation at the ranks
            return primitive_op(spec, statics)(*args[1:])
        if (p.one_arg_form is not None and min(len(args), p.positional or len(args)) == 1
                and not set(kwargs) & set(p.params)):
            p = p.one_arg_form
        if p.arity_forms is not None:
            n = len(args) + sum(k in kwargs for k in ("start", "stop", "step"))
            if n not in p.arity_forms:
                raise _refuse(name, "takes 1 to 3 arguments here")
            p = p.arity_forms[n]
        if p.axis_form is not None:
            if not args or len(args) - 1 > len(p.call_order):
                raise _refuse(name, "takes one array (and axis=, keepdims=)")
            for k, a in zip(p.call_order, args[1:]):
                kwargs[k] = a
            args = args[:1]
            if kwargs.get("dtype") is not None:     # of x in that dtype, as compiled mode reads it
                from .ops import astype
                args = (astype(args[0], kwargs.pop("dtype")),)
            kwargs.pop("dtype", None)
            axis = kwargs.pop("axis", None)
            keepdims = kwargs.pop("keepdims", False)
            statics = {k: kwargs.pop(k, p.defaults.get(k)) for k in p.statics if k != "axis"}
            if kwargs:
                raise _refuse(name, f"keyword argument {next(iter(kwargs))}= is not supported")
            try:
                steps = reduction_steps(p, axis, keepdims, statics)
            except ValueError as e:
                raise _refuse(name, str(e)) from None
            values = [args[0]]
            for q, statics, refs in steps:
                operands = tuple(values[i] for i in refs)
                q, statics = _settle(q, statics, operands)
                values.append(primitive_op(q, statics)(*operands))
            return values[-1]
        if p.static_first:      # solve_banded((l, u), ab, b): constants before the operands
            for s, a in zip(p.static_first, args):
                if s in kwargs:
                    raise _refuse(name, f"{s} given twice")
                kwargs[s] = a
            args = args[len(p.static_first):]
        nparams = len(p.params) if p.positional is None else p.positional
        if len(args) > nparams + len(p.statics):
            raise _refuse(name, f"takes at most {nparams + len(p.statics)} argument(s) here")
        for s, a in zip(p.statics, args[nparams:]):
            kwargs.setdefault(s, a)
        operands = args[:nparams]
        statics = {s: kwargs.pop(s) if s in kwargs else p.defaults[s] for s in p.statics
                   if s in kwargs or s in p.defaults}
        for q in p.params[len(operands):]:
            if q in kwargs:
                operands.append(kwargs.pop(q))
            elif q in p.defaults:
                operands.append(p.defaults[q])
        if kwargs or len(operands) != len(p.params) or len(statics) != len(p.statics):
            raise _refuse(name, "this form of the call is not supported (see docs/language.md)")
        try:
            chain = axes_steps(p, statics)      # np.squeeze(x, axis=(1, 2)): one axis a call
            chain = [read_statics(p, statics)] if chain is None else chain
        except ValueError as e:
            raise _refuse(name, str(e)) from None
        operands = [_list_as_array(a) for a in operands]
        for statics in chain:
            check_types(p, statics, operands)
            q, settled = _settle(p, statics, operands)
            operands = [primitive_op(q, settled)(*operands)] + operands[1:]
        return operands[0]

    if not prim.differentiable:
        # np.argmax(x, axis=1): a form the rule does not read is NumPy's own (as compiled mode
        # runs it as a library call without a rule): its result is never differentiated
        read = op

        def op(*args, **kwargs):
            try:
                return read(*args, **kwargs)
            except JitadError:
                return fallback(target, name, target, args, kwargs)

    op.__name__ = op.__qualname__ = getattr(target, "__name__", prim.name)
    return op


def diff(x, n=1, axis=-1):
    """np.diff(x, n, axis=k) as compiled mode computes it: n differences of slices along k."""
    shape = np.shape(unwrap(x))
    if not isinstance(n, int) or n < 0 or not isinstance(axis, int) \
            or not -len(shape) <= axis < len(shape):
        raise refuse("np.diff: n and axis= must be constants (an axis of the array)", "np.diff()")
    axis %= len(shape)
    for _ in range(n):
        x = x[(slice(None),) * axis + (slice(1, None),)] - x[(slice(None),) * axis + (slice(None, -1),)]
    return x


def _splitter(equal):
    """np.split (`equal`) / np.array_split of a Var into a number of sections, as compiled mode
    cuts them: equal parts (the length must divide), or the first n % k parts one longer; or
    at constant split points (a list or tuple of ints: the slices between them)."""
    what = "np.split" if equal else "np.array_split"

    def split(x, sections, axis=0):
        shape = np.shape(unwrap(x))
        if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
            raise refuse(f"{what}: axis= must be a constant axis of the array", f"{what}()")
        axis %= len(shape)
        n = shape[axis]
        lead = (slice(None),) * axis
        if isinstance(sections, (list, tuple)) and all(
                isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in sections):
            bounds = (None,) + tuple(int(i) for i in sections) + (None,)     # split points
            return [x[lead + (slice(bounds[k], bounds[k + 1]),)] for k in range(len(bounds) - 1)]
        if isinstance(sections, bool) or not isinstance(sections, (int, np.integer)):
            raise refuse(f"{what}(x, k) is supported with k a number of sections or constant "
                         "split points", f"{what}()")
        sections = int(sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and n % sections:
            raise ValueError("array split does not result in an equal division")
        m, rem = divmod(n, sections)
        starts = [k * m + min(k, rem) for k in range(sections + 1)]
        return [x[lead + (slice(starts[k], starts[k + 1]),)] for k in range(sections)]
    return split


def _axis_splitter(which):
    """np.hsplit / vsplit / dsplit of a Var: np.split along the axis its rank sets, with
    NumPy's refusal of too low a rank."""
    split = _splitter(True)
    need = {"h": 1, "v": 2, "d": 3}[which]

    def op(x, sections):
        r = np.ndim(unwrap(x))
        if r < need:
            raise ValueError(f"{which}split only works on arrays of {need} or more dimensions")
        return split(x, sections, axis=split_axis(which, r))
    return op


def _stacker(part, axis):
    """np.vstack / np.hstack / np.dstack / np.column_stack: each part to the rank the result needs, then
    one np.concatenate (as compiled mode builds them)."""
    def op(tup):
        parts = [part(p) for p in tup]
        ax = axis if axis is not None else (0 if np.ndim(unwrap(parts[0])) == 1 else 1)
        return FUNCTION_OPS[np.concatenate](parts, axis=ax)
    return op


def _select(condlist, choicelist, default=0.0):
    """np.select as compiled mode builds it: nested np.where, the first condition that holds
    choosing."""
    if not (isinstance(condlist, (list, tuple)) and isinstance(choicelist, (list, tuple))
            and len(condlist) == len(choicelist) and condlist):
        raise refuse("np.select takes a list of conditions and a list of as many choices, "
                     "written out (and default=)", "np.select")
    rest = default
    for c, v in zip(reversed(condlist), reversed(choicelist)):
        rest = FUNCTION_OPS[np.where](c, v, rest)
    return rest


def _append(arr, values, axis=None):
    """np.append as compiled mode builds it: no axis, each part made at least a vector and
    flattened; then one np.concatenate."""
    parts = (arr, values)
    if axis is None:
        parts = [FUNCTION_OPS[np.ravel](FUNCTION_OPS[np.atleast_1d](p)) for p in parts]
        axis = 0
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise refuse("np.append's axis= must be a constant integer or None", "np.append()")
    return FUNCTION_OPS[np.concatenate](list(parts), axis=axis)


def _gradient(f, *varargs, axis=None, edge_order=1):
    """np.gradient as compiled mode reads it: one spacing (1.0 when left out), edge_order=1;
    a vector's gradient, along an axis, or a tuple of them (every axis of a matrix or more,
    or a tuple axis=), each the primitive `gradient_axis`."""
    if len(varargs) > 1 or edge_order != 1:
        raise refuse("np.gradient(f, h, axis=k) takes one spacing (a number for every axis) "
                     "and edge_order=1", "np.gradient()", UnsupportedError)
    h = varargs[0] if varargs else 1.0
    r = np.ndim(unwrap(f))
    axes = tuple(range(r)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    prim = get("gradient_axis")
    out = []
    for a in axes:
        statics = {"axis": a, "count": 0}
        check_types(prim, statics, (f, h))
        out.append(primitive_op(prim, {"axis": a % r, "count": 0})(f, h))
    return out[0] if r == 1 and axis is None or isinstance(axis, int) else tuple(out)


def _column(p):
    return np.expand_dims(p, 1) if np.ndim(unwrap(p)) == 1 else p


def tuple_parts(target, parts):
    """A call returning a tuple (np.linalg.slogdet, np.meshgrid): the tuple of its parts' eager
    ops, its statics read as compiled mode reads them."""
    first = parts[0]
    name = "np." + getattr(target, "__name__", first.name)

    def op(*args, **kwargs):
        prim = lookup_callable(target)
        if prim is not None and prim.single_form is not None:    # svd(A, compute_uv=False)
            key, value, one = prim.single_form
            if kwargs.get(key, not value) is value:
                for s in first.statics:
                    kwargs.pop(s, None)
                return call_op(target, one, name)(*args, **kwargs)
        args = list(args)
        for s, a in zip(first.statics, args[len(first.params):]):
            kwargs.setdefault(s, a)
        args = args[:len(first.params)]
        if set(kwargs) - set(first.statics) or len(args) != len(first.params):
            raise _refuse(name, "this form of the call is not supported (see docs/language.md)")
        statics = {s: kwargs[s] if s in kwargs else first.defaults[s] for s in first.statics}
        try:
            statics = read_statics(first, statics)
        except ValueError as e:
            raise _refuse(name, str(e)) from None
        check_types(first, statics, args)
        out = []
        for p in parts:
            q, st = _settle(p, statics, args)
            out.append(primitive_op(q, st)(*args))
        return tuple(out)
    return op


def library_ops(package):
    """{callable: eager op} for the non-ufunc functions of `package` ("scipy") with a primitive,
    for the namespaces value_and_grad binds (scipy.special.softmax ...)."""
    return {target: call_op(target, prim) for target, prim in callables()
            if (getattr(target, "__module__", "") or "").startswith(package)
            and not isinstance(target, np.ufunc) and prim.forward is not None
            and not prim.structural}


def _fill_diagonal(a, val, wrap=False):
    """np.fill_diagonal(A, v) of a matrix: the recorded write A[k, k] = v (as compiled mode)."""
    if wrap or np.ndim(a) != 2:
        raise refuse("np.fill_diagonal(A, v) takes a matrix (no wrap=)", "np.fill_diagonal()",
                     UnsupportedError)
    k = np.arange(min(np.shape(a)))
    a[k, k] = val


def _block(arrays):
    """np.block of lists nested once or twice, as compiled mode reads it (`library.index_tricks`):
    the innermost lists' items (np.atleast_1d/np.atleast_2d by the depth) concatenated along
    the last axis, those along the one before."""
    depth, probe = 0, arrays
    while isinstance(probe, list):
        depth, probe = depth + 1, probe[0] if probe else None
    if depth not in (1, 2):
        raise refuse("np.block takes one list of arrays or numbers written out, or a list of "
                     "such lists (no deeper nesting)", "np.block", UnsupportedError)
    lift = np.atleast_1d if depth == 1 else np.atleast_2d

    def build(lst, level):
        items = [lift(e) if level == depth else build(e, level + 1) for e in lst]
        return FUNCTION_OPS[np.concatenate](items, axis=level - depth - 1)
    return build(arrays, 1)


def _ufunc_outer(op):
    """np.<ufunc>.outer(a, b) as compiled mode reads it: the ufunc of a with b.ndim axes of
    length one appended, and b."""
    def outer(a, b):
        ra, rb = np.ndim(a), np.ndim(b)
        return op(np.reshape(a, tuple(np.shape(a)) + (1,) * rb) if ra and rb else a, b)
    return outer


def _ufunc_at(negate):
    """np.add.at(a, idx, v) / np.subtract.at as compiled mode reads it: `a` takes the value
    of the primitive `add_at` (a copy with v added at idx, repeated indices adding each time),
    written back into a with value semantics (`views.write`, recorded)."""
    name = "np.subtract.at" if negate else "np.add.at"

    def op(a, indices, b=None, **kwargs):
        if b is None or kwargs:
            raise refuse(f"{name}(a, idx, v) takes an array, an index and the values", name + "()",
                         UnsupportedError)
        parts = list(indices) if type(indices) is tuple else [indices]
        if type(a) is not Var:
            if graph.grad_enabled and contains_var(b, grad_only=True):
                raise refuse(f"{name} into an array jitad does not track (a NumPy function's "
                             "result): make it with np.zeros(...) or .copy()", name + "()")
            (np.subtract if negate else np.add).at(a, tuple(unwrap(parts)) if len(parts) > 1
                                                   else unwrap(parts[0]), unwrap(b))
            return None
        if len(parts) > 2 or any(type(p) is slice for p in parts):
            raise refuse(f"{name}(a, idx, v) takes an index array or two (rows, cols)",
                         name + "()", UnsupportedError)
        v = -b if negate else b
        prim = get("add_at") if len(parts) == 1 else get("add_at2")
        operands = [a, *parts, v]
        check_types(prim, {}, operands)
        write(a, Ellipsis, primitive_op(prim, {})(*operands))
        return None
    return op


def _bincount(x, weights=None, minlength=0):
    """np.bincount: the weighted counts recorded (differentiable in the weights, as compiled
    mode's `bincount_weights`); the counts alone are NumPy's."""
    if weights is None:
        return np.bincount(unwrap(x), minlength=unwrap(minlength))
    prim = get("bincount_weights")
    check_types(prim, {}, (x, weights, minlength))
    return primitive_op(prim, {})(x, weights, minlength)


def method_ops(owner):
    """{attribute: eager op} of the primitives that are methods of `owner` (scipy.stats.norm's
    cdf, pdf, logpdf, logcdf), spelled as `owner`'s module spells them."""
    where = getattr(type(owner), "__module__", "").split(".")[0]
    label = getattr(owner, "name", type(owner).__name__)
    return {attr: call_op(getattr(owner, attr), prim, f"{where}.stats.{label}.{attr}")
            for o, attr, prim in methods() if o is owner}


_CALLABLE_OPS: dict = {}     # id(library callable) -> (callable, its eager op or None)
_NAMESPACES: dict = {}       # id(module) -> Namespace


def eager_callable(obj):
    """The eager version of a library callable that has a primitive (a SciPy or NumPy function
    compiled mode differentiates: scipy.linalg.solve_triangular, np.fft.rfft), a function
    refusing at the user's line one that jitad refuses on purpose (scipy.integrate.odeint),
    or None for any other callable."""
    got = _CALLABLE_OPS.get(id(obj))
    if got is not None and got[0] is obj:
        return got[1]
    op = None
    prim = lookup_callable(obj) if callable(obj) else None
    if prim is None and prelude.defines(obj):   # scipy.signal.lfilter: its definition
        op = prelude.eager_function(obj, lambda o, args, kwargs: fallback(
            o, f"{o.__module__}.{o.__name__}", o, args, kwargs))
    elif prim is not None and prim.parts:
        op = tuple_parts(obj, prim.parts)
    elif prim is not None and prim.forward is not None and not prim.structural:
        op = call_op(obj, prim)
    else:
        why = refusal_for(obj) if callable(obj) else None
        if why is not None:
            label = f"{(getattr(obj, '__module__', '') or '').split('._')[0]}.{obj.__name__}"

            def op(*args, **kwargs):
                raise refuse(f"{label}: {why}", f"{label}()")
    _CALLABLE_OPS[id(obj)] = (obj, op)
    return op


class Namespace:
    """A library module (scipy.linalg, np.fft ...) whose functions with a primitive are their
    eager ops (`eager_callable`); every other attribute is the module's own."""

    def __init__(self, module):
        self._module = module

    def __getattr__(self, name):
        obj = getattr(self._module, name)
        op = eager_callable(obj)
        return obj if op is None else op


def namespace(module):
    """The `Namespace` of a module (one per module)."""
    got = _NAMESPACES.get(id(module))
    if got is None:
        got = _NAMESPACES[id(module)] = Namespace(module)
    return got


def install():
    """Add an eager op for every NumPy function with a primitive and no hand-written op."""
    for target, prim in callables():
        if prim.parts and target not in FUNCTION_OPS:
            FUNCTION_OPS[target] = tuple_parts(target, prim.parts)
            continue
        if (target in FUNCTION_OPS or isinstance(target, np.ufunc) or prim.forward is None
                or prim.structural or not (getattr(target, "__module__", "") or "").startswith("numpy")):
            continue
        FUNCTION_OPS[target] = call_op(target, prim)
    for owner, attr, prim in methods():     # np.maximum.accumulate
        if isinstance(owner, np.ufunc):
            UFUNC_METHOD_OPS[(owner, attr)] = call_op(getattr(owner, attr), prim,
                                                      f"np.{owner.__name__}.{attr}")
    FUNCTION_OPS[np.fill_diagonal] = _fill_diagonal
    FUNCTION_OPS[np.block] = _block
    for uf, op in list(UFUNC_OPS.items()):       # np.subtract.outer(x, y)
        if uf.nin == 2 and lookup_callable(uf) is not None:
            UFUNC_METHOD_OPS[(uf, "outer")] = _ufunc_outer(op)
    UFUNC_METHOD_OPS[(np.add, "at")] = _ufunc_at(False)
    UFUNC_METHOD_OPS[(np.subtract, "at")] = _ufunc_at(True)
    FUNCTION_OPS[np.bincount] = _bincount
    FUNCTION_OPS[np.split], FUNCTION_OPS[np.array_split] = _splitter(True), _splitter(False)
    for fn, which in (("hsplit", "h"), ("vsplit", "v"), ("dsplit", "d")):
        FUNCTION_OPS[getattr(np, fn)] = _axis_splitter(which)
    # (np.diff's entry is the `prelude` dispatcher, for prepend= / append=: the op of the
    # primitive itself, for the plain call)
    plain_diff = next((call_op(t, p) for t, p in callables() if t is np.diff), None)

    def diff_op(a, n=1, axis=-1, **ends):
        if ends:        # prepend= / append=: the definition compiled mode reads (`prelude`)
            fn = prelude.definition(np.diff, 1, dict(ends, n=n, axis=axis))
            if fn is None:
                raise TypeError(f"np.diff() got an unexpected keyword argument "
                                f"{sorted(set(ends) - {'prepend', 'append'})[0]!r}")
            return fn(a, n=n, axis=axis, **ends)
        return plain_diff(a) if n == 1 and axis == -1 and plain_diff is not None \
            else diff(a, n, axis)
    FUNCTION_OPS[np.diff] = diff_op
    FUNCTION_OPS[np.vstack] = _stacker(np.atleast_2d, 0)
    FUNCTION_OPS[np.hstack] = _stacker(np.atleast_1d, None)
    FUNCTION_OPS[np.dstack] = _stacker(np.atleast_3d, 2)
    FUNCTION_OPS[np.column_stack] = _stacker(_column, 1)
    FUNCTION_OPS[np.append] = _append
    FUNCTION_OPS[np.select] = _select
    FUNCTION_OPS[np.gradient] = _gradient
    FUNCTION_OPS[np.piecewise] = _piecewise
    FUNCTION_OPS[np.apply_along_axis] = _apply_along_axis
    FUNCTION_OPS[np.roll] = _roll_axes(FUNCTION_OPS[np.roll])
    # the array methods compiled mode has (x.prod(), x.cumsum(axis=0) ...) as the functions
    by_prim = {prim.name: target for target, prim in callables()
               if FUNCTION_OPS.get(target) is not None}
    for method, pname in METHODS.items():
        target = by_prim.get(pname)
        if method not in ATTR_OPS and method not in Var.__dict__ and target is not None:
            ATTR_OPS[method] = _method(FUNCTION_OPS[target])
    for method, fn in FUNCTION_METHODS.items():
        ATTR_OPS.setdefault(method, _function_method(fn))


def _piecewise(x, condlist, funclist, *args, **kw):
    """np.piecewise as NumPy computes it (compiled mode's `call_forms` rewrite): zeros, then
    per condition in order y[c] = f(x[c]) (a number: y[c] = f), the last function's condition
    with m = n + 1 none of the others."""
    if type(x) is not Var:
        return np.piecewise(x, [unwrap(c) for c in condlist], funclist, *args, **kw)
    single = not isinstance(condlist, (list, tuple)) or np.ndim(unwrap(condlist[0])) == 0
    conds = [np.asarray(unwrap(c), dtype=bool)
             for c in ([condlist] if single and np.ndim(x.value) else condlist)]
    if len(funclist) == len(conds) + 1:
        conds.append(~np.any(conds, axis=0))
    y = Var(np.zeros_like(x.value), None)
    for c, f in zip(conds, funclist):
        if callable(f):
            vals = x[c]
            if np.size(vals.value):
                y[c] = f(vals, *args, **kw)
        else:
            y[c] = f
    return y


def _apply_along_axis(func1d, axis, arr, *args, **kw):
    """np.apply_along_axis of a matrix as compiled mode's `call_forms` rewrite reads it: f
    of each row (axis 1 / -1) or column (axis 0 / -2), `np.array` of the results, for
    columns f's own dimensions moved first."""
    from .ops import array
    from .var import Var
    if type(arr) is not Var or args or kw or axis not in (0, 1, -1, -2):
        return np.apply_along_axis(func1d, axis, arr, *args, **kw)
    if arr.ndim != 2:
        raise ValueError("jitad reads np.apply_along_axis of a matrix only")
    rows = axis in (1, -1)
    out = array([func1d(arr[k] if rows else arr[:, k])
                 for k in range(arr.shape[0 if rows else 1])])
    return out if rows else np.moveaxis(out, 0, -1)


def vectorized(pyfunc, *args, **kwargs):
    """np.vectorize(pyfunc) as compiled mode's `call_forms` rewrite reads it: called on one
    array holding a differentiated value, pyfunc of each entry, `np.array` of the results in
    the argument's shape; NumPy's own vectorize otherwise."""
    from .ops import array, ravel, reshape
    from .var import Var
    plain = np.vectorize(pyfunc, *args, **kwargs)
    if args or kwargs:
        return plain

    def call(x, *more, **kw):
        if type(x) is not Var or more or kw:
            return plain(x, *more, **kw)
        flat = ravel(x)
        return reshape(array([pyfunc(flat[k]) for k in range(flat.shape[0])]), x.shape)
    return call


def _roll_axes(plain):
    """np.roll over a tuple of axes: a roll per axis, in order (compiled mode's `call_forms`)."""
    def roll(a, shift, axis=None):
        if isinstance(axis, (tuple, list)):
            shifts = shift if isinstance(shift, (tuple, list)) else [shift] * len(axis)
            if len(shifts) != len(axis):
                raise ValueError("'shift' and 'axis' should be scalars or 1D sequences of "
                                 "the same length")
            for s_, ax in zip(shifts, axis):
                a = plain(a, s_, axis=ax)
            return a
        return plain(a, shift, axis=axis)
    return roll


def _function_method(fn):
    # x.take(idx): the NumPy function's op at the call (ops may install theirs later)
    return lambda var: lambda *args, **kwargs: FUNCTION_OPS[fn](var, *args, **kwargs)


def _method(op):
    return lambda var: lambda *args, **kwargs: op(var, *args, **kwargs)


install()
