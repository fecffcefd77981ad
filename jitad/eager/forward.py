"""Eager forward mode: `jvp(f, mode="eager")`, dual numbers over the normalized IR.

Takes: a plain function (its IR from the front end, the same `normalize` output the compiler
reads), its arguments, the positions to differentiate and their tangents.
Guarantees: `jvp_eager` runs the function statement by statement on NumPy values, each
variable carrying a (value, tangent) pair -- a dual number; a variable with no tangent has a
zero one -- and returns `(value, tangent)` like the compiled `jvp`. Every primitive's value is
its forward template and its tangent the sum of its tangent templates
(`primitives.tangents`), evaluated with NumPy and `jitad.runtime`'s Python helpers: the very
rules the compiled forward mode instantiates, so the two modes cannot drift on the rules,
while control flow, indexing, writes, helpers and recursion are interpreted here, independent
of the generated code and of Numba. A primitive with adjoints and no tangent rule is a
`JitadError` at the user's line, as in compiled mode. A structured argument (a tuple, list,
namedtuple or dict of arrays and scalars, nested too) is read as compiled mode reads it: the
front end made for its structure takes one parameter per leaf, and its tangent has the same
structure (checked, leaf shapes too).
Invariants: the caller's arrays are never written (parameters are copied before the run);
a tangent aliases what its value aliases (`u = y`, `y[k]`), and a fresh result gets a fresh
tangent, so `y[i] = v` writes the tangent of v into the tangent of y.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from .. import extend
from .. import runtime as rt
from ..errors import JitadError, NotDifferentiableError
from ..ir import Bind, Const, For, If, Return, SetItem, Slice, TupleA, Var, While
from ..primitives import CALL, CONCAT, COPY, GETITEM, SHAPE
from ..primitives import tangents as T
from ..primitives.forms import rule_at, settle_statics
from ..primitives.lists import LIST_APPEND, LIST_NEW
from ..primitives.opaque import NEEDS_RULE

_CODE: dict = {}          # id(template) -> (template, compiled code)
_GLOBALS = {"np": np, "math": math, "rt": rt}


def _eval(tree, names):
    got = _CODE.get(id(tree))
    if got is None or got[0] is not tree:
        code = compile(ast.fix_missing_locations(ast.Expression(tree)), "<jitad rule>", "eval")
        got = _CODE[id(tree)] = (tree, code)
    return eval(got[1], {**_GLOBALS, **extend.USER_FUNCTIONS}, names)   # user primitives too


def _static(v):
    if isinstance(v, str) and v.startswith(("np.", "math.")):
        return eval(v, dict(_GLOBALS))
    return v


def _is_float(v):
    """Whether v carries a tangent: float or complex (an intermediate), or a list of them."""
    if isinstance(v, list):
        return all(_is_float(e) for e in v) if v else True
    return np.asarray(v).dtype.kind in "fc"


def _holds_float(v):
    if isinstance(v, tuple):
        return any(_holds_float(e) for e in v)
    return _is_float(v)


def _rank(v):
    return np.ndim(v[0]) + 1 if isinstance(v, list) and v else np.ndim(v)


def _complex(v) -> bool:
    """Whether a value holds complex numbers: an array, a number, or a list of them (a list's
    arrays may differ in shape: `np.array_split`'s parts, no one array)."""
    if isinstance(v, (list, tuple)):
        return any(_complex(e) for e in v)
    return np.iscomplexobj(v)


def _zero(v):
    if isinstance(v, list):
        return [_zero(e) for e in v]
    kind = complex if np.iscomplexobj(v) else float
    return np.zeros(np.shape(v), dtype=kind) if np.ndim(v) else kind(0.0)


def check_types(op, s, values):
    """The primitive's type rule on the operands' values: a form compiled mode refuses (a
    complex eigenproblem, `np.linalg.norm(x, 1)`, a rank) is refused here too, at the
    statement's line. Not run, such a primitive's template ran as another form (norm's
    2-norm for ord=1) or got a silent zero tangent. A rule that cannot read these values (a
    list operand) is skipped: the reverse modes check those."""
    from ..errors import UnsupportedError
    from ..types import ty_of_value
    if op.type_rule is None or any(v is None or isinstance(v, list) for v in values):
        return
    try:
        tys = [ty_of_value(v) if isinstance(v, tuple)        # a shape stays a tuple
               else ty_of_value(np.asarray(v) if np.ndim(v) else v) for v in values]
        op.result_type(s, tys)
    except UnsupportedError as e:
        raise UnsupportedError(e.message, s.loc, e.construct) from None
    except Exception:       # noqa: BLE001  (a rule that needs what values do not say)
        return


class _Refused:
    """The tangent of a result whose derivative in a varying operand is refused
    (`Primitive.refused`): reading it raises the refusal, at the call's line (as compiled
    mode refuses such a call when its result is used)."""

    def __init__(self, error):
        self.error = error

    def __getitem__(self, index):
        raise self.error

    def __setitem__(self, index, value):
        raise self.error


class _Run:
    def __init__(self, fn, forms=(), args=()):
        from ..normalize.structs import specialized
        from ..pipeline import typed_frontend
        self.frontend = typed_frontend
        # the front end for these arguments' types (a parameter's dtype, isinstance)
        self.f = typed_frontend(specialized(fn, forms) if forms else fn, _types_of(args))
        self.val, self.tan = {}, {}

    def atom(self, a):
        if isinstance(a, Var):
            return self.val[a.name]
        if isinstance(a, Const):
            return a.value
        if isinstance(a, Slice):
            return slice(*(None if p is None else self.atom(p) for p in (a.lower, a.upper, a.step)))
        if isinstance(a, TupleA):
            return tuple(self.atom(x) for x in a.items)
        return a

    def t(self, a):
        d = self.tan.get(a.name) if isinstance(a, Var) else None
        if type(d) is _Refused:
            raise d.error
        return d

    def index(self, parts):
        idx = tuple(self.atom(p) for p in parts)
        return idx[0] if len(idx) == 1 else idx

    def new_tangent(self, name, loc):
        """A zero tangent for the array `name` that a write is about to move, and the same
        views of it for the variables that view `name`'s memory without a tangent of their own
        (`r = y[0]` made before y had one): they show the write, so their tangents must."""
        arr = self.val[name]
        darr = np.zeros(np.shape(arr), dtype=np.asarray(arr).dtype)
        if not (arr.flags.c_contiguous and arr.dtype == darr.dtype and arr.size):
            return darr
        start = arr.__array_interface__["data"][0]
        flat = darr.reshape(-1)
        for other, v in self.val.items():
            if other == name or self.tan.get(other) is not None or not isinstance(v, np.ndarray) \
                    or v.dtype != arr.dtype or not v.size or not np.shares_memory(v, arr):
                continue
            offset = v.__array_interface__["data"][0] - start
            if offset % arr.itemsize:
                continue
            self.tan[other] = np.lib.stride_tricks.as_strided(
                flat[offset // arr.itemsize:], shape=v.shape, strides=v.strides)
        return darr

    def set(self, name, value, tangent):
        self.val[name] = value
        if tangent is None or not _is_float(value):
            self.tan.pop(name, None)
        else:
            self.tan[name] = tangent

    # ------------------------------------------------------------------ statements
    def block(self, block):
        for s in block:
            if isinstance(s, Bind):
                self.bind(s)
            elif isinstance(s, SetItem):
                self.setitem(s)
            elif isinstance(s, If):
                self.block(s.body if self.val[s.test] else s.orelse)
            elif isinstance(s, While):
                while True:
                    self.block(s.cond)
                    if not self.val[s.test]:
                        break
                    self.block(s.body)
            elif isinstance(s, For):
                for k in range(self.atom(s.start), self.atom(s.stop), self.atom(s.step)):
                    self.set(s.var, k, None)
                    self.block(s.body)
            elif isinstance(s, Return):
                return

    def setitem(self, s: SetItem):
        idx = self.index(s.index)
        arr, v = self.val[s.array], self.atom(s.value)
        dv = self.t(s.value)
        darr = self.tan.get(s.array)
        if darr is None and dv is not None and _is_float(arr):
            darr = self.tan[s.array] = self.new_tangent(s.array, s.loc)
        arr[idx] = v
        if darr is not None:
            darr[idx] = 0.0 if dv is None else dv

    def bind(self, s: Bind):
        op, args = s.op, s.args
        if op is COPY:
            return self.set(s.target, self.atom(args[0]), self.t(args[0]))
        if op is GETITEM:
            idx = self.index(args[1:])
            d = self.t(args[0])
            return self.set(s.target, self.atom(args[0])[idx], None if d is None else d[idx])
        if op is SHAPE:
            for t, n in zip(s.targets, np.shape(self.atom(args[0]))):
                self.set(t, n, None)
            return
        if op is CALL:
            return self.call(s)
        if op is LIST_NEW:
            return self.set(s.target, [], [])
        if op is LIST_APPEND:
            lst, x = self.atom(args[0]), self.atom(args[1])
            dl = self.tan.get(args[0].name)
            if dl is None:
                dl = [_zero(e) for e in lst]
            lst.append(x)
            dx = self.t(args[1])
            dl.append(_zero(x) if dx is None else dx)
            return self.set(s.target, lst, dl)
        ranks = [_rank(self.atom(a)) for a in args]
        if op is CONCAT:
            axis = settle_statics(op, s.statics, ranks).get("axis", 0)
            vals = [self.atom(a) for a in args]
            y = np.concatenate(vals, axis=axis)
            if all(self.t(a) is None for a in args):
                return self.set(s.target, y, None)
            return self.set(s.target, y, np.concatenate(
                [_zero(v) if self.t(a) is None else self.t(a) for a, v in zip(args, vals)], axis=axis))
        check_types(op, s, [self.atom(a) for a in args])   # its refusals, as compiled mode
        rule = rule_at(op, ranks, s.statics,
                       any(_complex(self.atom(a)) for a in args if isinstance(a, Var)))
        statics = settle_statics(op, s.statics, ranks)
        names = {p: self.atom(a) for p, a in zip(rule.params, args)}
        for k in rule.statics:
            names[k] = _static(statics.get(k))
        y = _eval(rule.forward, names)
        if op.effect:
            return
        if op.needs_rule and any(self.t(a) is not None for a in args) and _holds_float(y):
            raise NotDifferentiableError(NEEDS_RULE.format(op.spelled.removesuffix("()")),
                                         s.loc, f"call to {op.spelled}")
        total = None
        for p, a in zip(rule.params, args):
            if p in rule.refused and self.t(a) is not None:     # refused if the tangent is read
                error = NotDifferentiableError(rule.refusal(p), s.loc, rule.name)
                return self.set(s.target, y, _Refused(error))
        moving = [(p, a) for p, a in zip(rule.params, args) if self.t(a) is not None
                  and p in rule.adjoints]
        rules = T.rules(rule) if moving else {}
        for p, a in moving:
            if p not in rules:
                raise JitadError(
                    f"forward mode (jvp) has no tangent rule for {rule.name}'s argument {p!r} "
                    "yet (its adjoint exists: use grad/vjp/jacrev, or add a rule to "
                    "jitad/primitives/tangents.py)", s.loc, rule.name)
            c = _eval(rules[p], {**names, "y": y, "t": self.t(a)})
            total = c if total is None else total + c
        if total is not None and np.ndim(y) and not (
                op.view and isinstance(total, np.ndarray) and total.shape == np.shape(y)):
            # fresh, shaped like y, of y's kind
            total = np.array(np.broadcast_to(total, np.shape(y)),
                             dtype=complex if np.iscomplexobj(y) else float)
        if total is not None and not np.iscomplexobj(y) and np.iscomplexobj(total):
            total = np.real(total)
        # (a view's tangent is the same view of its operand's tangent: `z = y.T` then a write
        # into y moves z too)
        old = self.val.get(s.target)
        if s.inplace and isinstance(old, np.ndarray) and old.shape == np.shape(y) \
                and _is_float(old):
            # `y += e`, np.add.at(y, ...): Python updates y's buffer, which its views show
            darr = self.tan.get(s.target)
            if darr is None and total is not None:
                darr = self.tan[s.target] = self.new_tangent(s.target, s.loc)
            old[...] = y
            if darr is not None:
                darr[...] = 0.0 if total is None else total
            return
        self.set(s.target, y, total)

    def call(self, s: Bind):
        callee = _Run.__new__(_Run)
        callee.frontend = self.frontend
        argtys = _types_of([self.atom(a) for a in s.args])
        # a transformed function called (`higher.called`: jitad.grad(g)(x)): the plain
        # function it is for these types, as compiled mode specializes it (`typeinfer`)
        fn = s.callee.function_for(argtys) if hasattr(s.callee, "function_for") else s.callee
        callee.f = self.frontend(fn, argtys)
        callee.val, callee.tan = {}, {}
        for p, a in zip(callee.f.params, s.args):
            callee.set(p, self.atom(a), self.t(a))
        values, tangents = callee.run()
        if len(s.targets) == 1:
            return self.set(s.target, values[0], tangents[0])
        for t, v, d in zip(s.targets, values, tangents):
            self.set(t, v, d)

    def run(self):
        self.block(self.f.body)
        ret = self.f.body[-1]
        values = [self.atom(a) for a in ret.values]
        tangents = [self.t(a) for a in ret.values]
        return values, tangents


def _types_of(values) -> tuple:
    from ..types import ty_of_value
    return tuple(ty_of_value(v) for v in values)


def _flatten(fn, args, wrt, tangents):
    """A structured argument (a tuple, list, namedtuple or dict of arrays and scalars, nested
    too) as its leaves, as compiled mode reads it (`Differentiable.job`): the front end made
    for those structures (`frontend(fn, forms)`) takes one parameter per leaf, and a None
    argument is a constant. Returns (forms, flat arguments, flat wrt, flat tangents); a
    tangent must have its argument's structure."""
    from ..types import NoneTy, is_structured, leaves, structure, ty_of_value
    tys = [ty_of_value(a) for a in args]
    from ..capture import capture
    params = list(capture(fn).params)       # the hidden ones too (`jvp_eager`)
    forms = tuple((p, t.form() if isinstance(t, NoneTy) else ("struct", structure(t)))
                  for p, t in zip(params, tys) if is_structured(t))
    flat, flat_wrt, flat_tans = [], [], []
    given = dict(zip(wrt, tangents))
    for i, (a, t) in enumerate(zip(args, tys)):
        items = leaves(a, t) if is_structured(t) else [a]
        if i in given:
            try:
                tans = leaves(given[i], t) if is_structured(t) else [given[i]]
            except JitadError:
                raise JitadError(f"the tangent of {params[i]!r} must have its structure "
                                 f"({t})") from None
            for v, d in zip(items, tans):
                if np.shape(v) != np.shape(d):
                    raise JitadError(f"the tangent of {params[i]!r} must have the shapes of its "
                                     f"arrays: {np.shape(d)} where the argument has {np.shape(v)}")
            flat_wrt += range(len(flat), len(flat) + len(items))
            flat_tans += tans
        flat += items
    return forms, flat, flat_wrt, flat_tans


def jvp_eager(fn, args, wrt, tangents):
    """(value, tangent) of `fn(*args)` along `tangents` (one per position in `wrt`, each shaped
    -- or, for a structured argument, structured -- like its argument)."""
    from ..capture import Hidden, capture
    from ..types import structured_value
    # the arrays (and structures) read from globals or closures follow the parameters, as
    # compiled mode passes them (`capture.Hidden`): the IR run here reads them as parameters
    args = tuple(args) + Hidden.read_all(capture(fn).hidden)
    forms = ()
    if any(structured_value(a) or isinstance(a, str) or a is None for a in args):
        forms, args, wrt, tangents = _flatten(fn, args, wrt, tangents)
    from .functional import _check_differentiable_args, _def_loc
    _check_differentiable_args(fn, args, wrt)
    run = _Run(fn, forms, args)
    given = dict(zip(wrt, tangents))
    for i, (p, a) in enumerate(zip(run.f.params, args)):
        a = np.array(a) if isinstance(a, np.ndarray) else a
        d = given.get(i)
        if d is not None:
            a = np.array(a, dtype=float) if np.ndim(a) else float(a)
            d = np.array(d, dtype=float) if np.ndim(a) else float(d)
        run.set(p, a, d)
    values, tans = run.run()
    if any(np.iscomplexobj(v) for v in values):
        raise NotDifferentiableError(
            f"{fn.__name__} returns a complex value: jitad differentiates real outputs (complex "
            "values are fine inside the function); return np.real(z), np.imag(z), "
            "np.abs(z) ** 2 or another real function of it", _def_loc(fn), "complex output")
    tans = [_zero(v) if d is None else d for v, d in zip(values, tans)]
    if len(values) == 1:
        return values[0], tans[0]
    return tuple(values), tuple(tans)
