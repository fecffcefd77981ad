"""Library calls that mean a few statements of forms jitad already reads: `np.piecewise` with
lambdas, `functools.reduce`, `np.roll` over several axes, `np.concatenate(..., axis=None)`,
`np.vectorize`,
`np.apply_along_axis` (a `desugar` rewrite, at the user's lines).

Takes: a captured function's `def` tree (gast), `value(name)` (what a global, not shadowed,
holds: `capture`'s builtin test) and a fresh-name maker `fresh(base, shown)`.
Guarantees, each the computation the library performs, in the order it performs it:
  * `M.roll(x, (s0, s1), axis=(a0, a1))` (`shift=` and `axis=` by name or position; tuple displays of one length; a single shift with a
    tuple of axes shifts each by it) is `M.roll(M.roll(x, s0, axis=a0), s1, axis=a1)` (rolls
    along different axes commute; NumPy applies each pair);
  * `M.concatenate((a, b, ...), axis=None)` (a list or tuple display, `axis=None` by name or
    position) is `M.concatenate([M.ravel(a), M.ravel(b), ...])`: NumPy flattens each first;
  * `M.piecewise(x, [c0, ..., c{n-1}], [f0, ..., f{m-1}])` (list or tuple displays, m = n or
    n + 1; each f a lambda of one parameter, a number or a function's name) where the call is
    the whole value of an assignment, `return` or argument-free position of a simple statement
    (an assignment, augmented assignment, `return` or call statement, not under a lambda,
    comprehension, conditional or short-circuit expression) is, before that statement,
    `y = M.zeros_like(x)`; with m = n + 1 the last function's condition `M.logical_not` of
    the others' `M.logical_or`; then per condition in order `y[c] = f(x[c])` (a number:
    `y[c] = f`) -- NumPy's own loop: each function sees only the entries its condition selects
    (so its value and derivative elsewhere never enter), a later condition overrides an
    earlier one, entries no condition selects are 0; x and each condition evaluated once
    (into fresh names unless they are names); a lambda's body read with its parameter bound
    to `x[c]` (a fresh name);
  * `functools.reduce(f, xs)` / `functools.reduce(f, xs, init)` (f a lambda of two
    parameters, a function's name, or `operator.add`, `sub`, `mul`, `truediv`, `matmul`,
    `pow`), in such a position, is `acc = xs[0]` (or `init`), then
    `for k in range(1, len(xs)): acc = f(acc, xs[k])` (from 0 with `init`; with `init` and
    xs of a length known in the source -- a list or tuple display, or a comprehension of one
    `for` and no `if` over a display or over `range` of integer constants, or a name
    assigned once from one of those and read only indexed, iterated over, in `len` or by
    `functools.reduce` --,
    `acc = f(init, xs[0])` comes first and the loop from 1, so a number `init` and f's array
    results are one variable's values before the loop and in it), with xs evaluated once (a
    fresh name unless it is a name; a list display or comprehension then a list local);
  * `M.vectorize(f)(x)` (f a one-parameter lambda, a function's name or a module's function
    `np.sum`; also through a name
    `vf = M.vectorize(f)` assigned once and only called) is
    `M.array([f(u) for u in x.ravel()]).reshape(x.shape)`: f of each entry, in NumPy's
    order, the results in x's shape (x evaluated once);
  * `M.apply_along_axis(f, axis, X)` (axis 0, 1, -1 or -2; f as above) is, after a check
    that X is a matrix (a ValueError otherwise, at the call: jitad reads no other rank),
    `M.array([f(r) for k in range(X.shape[0]) for r in [X[k]]])` for rows (axis 1 / -1)
    and, for columns, `M.moveaxis` of the list of `f(X[:, k])` from 0 to -1: NumPy puts f's
    own dimensions where the axis was.
Anything else is left as it is (`normalize` refuses it at the user's call).
Invariants: the tree is rewritten in place; the fresh names come from `fresh`; the module
`M` (`np`) is the user's own name for NumPy; `functools` and `operator` are recognised by the
objects their names hold (`value`).
"""
from __future__ import annotations

import copy
import functools
import operator
import types

import gast
import numpy as np

from .gast_build import DEFERRED as _DEFERRED
from .gast_build import assign as _assign
from .gast_build import blocks as _blocks
from .gast_build import located as _located
from .gast_build import name as _name
from .gast_build import store_counts

_STATEMENTS = (gast.Expr, gast.Assign, gast.AugAssign, gast.Return)
_OPERATORS = {operator.add: gast.Add, operator.sub: gast.Sub, operator.mul: gast.Mult,
              operator.truediv: gast.Div, operator.matmul: gast.MatMult, operator.pow: gast.Pow}


def _attr(mod, attr):
    return gast.Attribute(_name(mod), attr, gast.Load())


def _callee(func, value):
    """(module name, object) of `M.f` with M a global module, or (None, object of a global
    name), or (None, None)."""
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        mod = value(func.value.id)
        if mod is not None and hasattr(mod, "__name__"):
            return func.value.id, getattr(mod, func.attr, None)
    if isinstance(func, gast.Name):
        return None, value(func.id)
    return None, None


def _substitute(body, params, names):
    """A copy of a lambda's body with each parameter read as the name given for it."""
    body = copy.deepcopy(body)
    table = dict(zip(params, names))

    class Reads(gast.NodeTransformer):
        def visit_Name(self, n):
            if isinstance(n.ctx, gast.Load) and n.id in table:
                return gast.copy_location(_name(table[n.id]), n)
            return n

        def visit_Lambda(self, n):
            return n
    return Reads().visit(body)


def _lambda(f, arity):
    """The parameter names of a plain lambda of `arity` parameters, or None."""
    if not isinstance(f, gast.Lambda):
        return None
    a = f.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or len(a.args) != arity \
            or getattr(a, "posonlyargs", None):
        return None
    return [p.id for p in a.args]


def _once(expr, base, shown, fresh, out, like):
    """`expr` as a name: itself, or a fresh one assigned it (appended to `out`)."""
    if isinstance(expr, gast.Name):
        return expr.id
    n = fresh(base, shown)
    out.append(_assign(_name(n, True), expr, like))
    return n


def _roll(call, value):
    mod, obj = _callee(call.func, value)
    kw = {k.arg: k.value for k in call.keywords}
    if obj is not np.roll or not call.args or len(call.args) + len(kw) != 3 \
            or len(call.args) > 3:
        return None
    given = dict(zip(("a", "shift", "axis"), call.args))
    if set(given) & set(kw):
        return None
    kw.update(given)
    axis = kw.get("axis")
    if set(kw) != {"a", "shift", "axis"} or not isinstance(axis, gast.Tuple) or not axis.elts:
        return None
    shift = kw["shift"]
    shifts = shift.elts if isinstance(shift, gast.Tuple) else (
        [shift] * len(axis.elts) if isinstance(shift, (gast.Constant, gast.Name, gast.UnaryOp))
        else None)
    if shifts is None or len(shifts) != len(axis.elts):
        return None
    x = kw["a"]
    for s, a in zip(shifts, axis.elts):
        x = gast.Call(call.func, [x, copy.deepcopy(s)], [gast.keyword("axis", a)])
    return _located(x, call)


def _flat_concat(call, value):
    """`M.concatenate(display, axis=None)` as `M.concatenate([M.ravel(a), ...])`, or None."""
    mod, obj = _callee(call.func, value)
    if obj is not np.concatenate or mod is None or len(call.args) not in (1, 2):
        return None
    kw = {k.arg: k.value for k in call.keywords}
    axis = call.args[1] if len(call.args) == 2 else kw.pop("axis", None)
    seq = call.args[0]
    if kw or not (isinstance(axis, gast.Constant) and axis.value is None) \
            or not isinstance(seq, (gast.List, gast.Tuple)) or not seq.elts \
            or any(isinstance(e, gast.Starred) for e in seq.elts):
        return None
    flat = [gast.Call(gast.Attribute(_name(mod), "ravel", gast.Load()), [e], []) for e in seq.elts]
    return _located(gast.Call(call.func, [gast.List(flat, gast.Load())], []), call)


def _number(f) -> bool:
    """A constant written out, a number with a sign too (`-0.5` is `-(0.5)` in the tree)."""
    if isinstance(f, gast.UnaryOp) and isinstance(f.op, (gast.USub, gast.UAdd)):
        return isinstance(f.operand, gast.Constant) and isinstance(f.operand.value, (int, float))
    return isinstance(f, gast.Constant)


def _piecewise(call, value, fresh, like):
    """(statements, the value's expression) of `np.piecewise(...)`, or None."""
    mod, obj = _callee(call.func, value)
    if obj is not np.piecewise or len(call.args) != 3 or call.keywords or mod is None:
        return None
    x, conds, funcs = call.args
    if not (isinstance(conds, (gast.List, gast.Tuple)) and isinstance(funcs, (gast.List, gast.Tuple))
            and len(funcs.elts) in (len(conds.elts), len(conds.elts) + 1) and conds.elts):
        return None
    if not all(_lambda(f, 1) is not None or _number(f) or isinstance(f, gast.Name)
               for f in funcs.elts):
        return None
    out = []
    xn = _once(x, "piecewise_x", "np.piecewise's x", fresh, out, like)
    cs = [_once(c, "piecewise_cond", "a condition of np.piecewise", fresh, out, like)
          for c in conds.elts]
    if len(funcs.elts) == len(cs) + 1:
        anyc = _name(cs[0])
        for c in cs[1:]:
            anyc = gast.Call(_attr(mod, "logical_or"), [anyc, _name(c)], [])
        other = fresh("piecewise_otherwise", "the otherwise condition of np.piecewise")
        out.append(_assign(_name(other, True), gast.Call(_attr(mod, "logical_not"), [anyc], []),
                           like))
        cs.append(other)
    y = fresh("piecewise", "np.piecewise(...)")
    out.append(_assign(_name(y, True), gast.Call(_attr(mod, "zeros_like"), [_name(xn)], []), like))
    for c, f in zip(cs, funcs.elts):
        target = gast.Subscript(_name(y), _name(c), gast.Store())
        if _number(f):
            v = f
        else:
            part = fresh("piecewise_part", "the entries np.piecewise gives a function")
            out.append(_assign(_name(part, True), gast.Subscript(_name(xn), _name(c), gast.Load()),
                               like))
            params = _lambda(f, 1)
            v = _substitute(f.body, params, [part]) if params is not None else \
                gast.Call(copy.deepcopy(f), [_name(part)], [])
        out.append(_assign(target, _located(v, like), like))
    return out, _name(y)


def _reduce(call, value, fresh, like, lengths):
    """(statements, the value's expression) of `functools.reduce(...)`, or None (`lengths`:
    `_named_lengths`)."""
    _, obj = _callee(call.func, value)
    if obj is not functools.reduce or call.keywords or len(call.args) not in (2, 3):
        return None
    f, xs = call.args[0], call.args[1]
    _, fobj = _callee(f, value) if isinstance(f, (gast.Attribute, gast.Name)) else (None, None)
    params = _lambda(f, 2)
    if params is None and fobj not in _OPERATORS and not (
            isinstance(f, gast.Name) and (value(f.id) is None
                                          or isinstance(value(f.id), types.FunctionType))):
        return None     # a function's name: a local (nested) function or a user helper
    if isinstance(xs, (gast.GeneratorExp,)):
        return None
    out = []
    if isinstance(xs, gast.Tuple):     # (a tuple display: the list of its items, read by index)
        xs = gast.List(xs.elts, gast.Load())
    seq = _once(xs, "reduced", "functools.reduce's sequence", fresh, out, like)
    acc = fresh("reduce_acc", "functools.reduce(...) (its start value, then f's results)")
    item = fresh("reduce_item", "an item functools.reduce combines")
    k = fresh("reduce_k", "functools.reduce's position")

    def combine(a, b):
        if params is not None:
            return _substitute(f.body, params, [a, b])
        if fobj in _OPERATORS:
            return gast.BinOp(_name(a), _OPERATORS[fobj](), _name(b))
        return gast.Call(copy.deepcopy(f), [_name(a), _name(b)], [])

    # (a display's length is a constant: the analyses then know the loop runs -- the result
    # of reduce(f, [a, b]) is f's value, a new array, not the list's first item)
    known = lengths.get(xs.id) if isinstance(xs, gast.Name) else _known_length(xs, value)
    stop = gast.Constant(known, None) if known is not None else \
        gast.Call(_name("len"), [_name(seq)], [])
    start = 0 if len(call.args) == 3 else 1
    if start == 0 and known:
        # a start value and a display: the first combination is made before the loop, so an
        # accumulator that starts as a number and becomes f's array keeps one type in it
        out.append(_assign(_name(acc, True), call.args[2], like))
        out.append(_assign(_name(item, True), gast.Subscript(_name(seq), gast.Constant(0, None),
                                                             gast.Load()), like))
        out.append(_assign(_name(acc, True), _located(combine(acc, item), like), like))
        start = 1
    else:
        first = call.args[2] if start == 0 else gast.Subscript(
            _name(seq), gast.Constant(0, None), gast.Load())
        out.append(_assign(_name(acc, True), first, like))
    combined = combine(acc, item)
    loop = gast.For(_name(k, True), gast.Call(_name("range"), [
        gast.Constant(start, None), stop], []),
        [_assign(_name(item, True), gast.Subscript(_name(seq), _name(k), gast.Load()), like),
         _assign(_name(acc, True), _located(combined, like), like)], [], None)
    out.append(_located(loop, like))
    return out, _name(acc)


def _named_lengths(tree, value):
    """{name: its length} of the list names assigned once, from a display or comprehension
    of a length `_known_length` knows, and read only where their length cannot change: as
    the sequence of a `functools.reduce` call, indexed (an item written too, never a slice or
    a `del`), iterated over, or in `len(...)`."""
    stores = store_counts(tree)
    known = {}
    for s in gast.walk(tree):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and stores[s.targets[0].id] == 1:
            n = _known_length(s.value, value)
            if n is not None:
                known[s.targets[0].id] = n
    if not known:
        return known
    for node in gast.walk(tree):
        for field, v in gast.iter_fields(node):
            for c in v if isinstance(v, list) else [v]:
                if not (isinstance(c, gast.Name) and c.id in known
                        and isinstance(c.ctx, gast.Load)):
                    continue
                fine = (isinstance(node, gast.Subscript) and field == "value" and (
                    isinstance(node.ctx, gast.Load) or (isinstance(node.ctx, gast.Store)
                                                        and not isinstance(node.slice, gast.Slice)))) or (
                    isinstance(node, (gast.For, gast.comprehension)) and field == "iter") or (
                    isinstance(node, gast.Call) and field == "args" and isinstance(
                        node.func, (gast.Name, gast.Attribute)) and (
                        _callee(node.func, value)[1] is functools.reduce
                        or (isinstance(node.func, gast.Name) and node.func.id == "len")))
                if not fine:
                    known.pop(c.id)
    return known


def _known_length(xs, value):
    """The length of a list or tuple display (no `*`), or of a comprehension with one `for`
    and no `if` over such a display or over `range` of integer constants; else None."""
    def display(d):
        return len(d.elts) if isinstance(d, (gast.List, gast.Tuple)) and not any(
            isinstance(e, gast.Starred) for e in d.elts) else None
    if not isinstance(xs, gast.ListComp):
        return display(xs)
    if len(xs.generators) != 1 or xs.generators[0].ifs:
        return None
    it = xs.generators[0].iter
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) \
            and value(it.func.id) is None and it.func.id == "range" and not it.keywords \
            and 1 <= len(it.args) <= 3 and all(isinstance(a, gast.Constant)
                                                and type(a.value) is int for a in it.args) \
            and it.args[-1].value != 0:
        return len(range(*(a.value for a in it.args)))
    return display(it)


def _one_arg_function(f, value):
    """`make(arg)`: the expression calling `f` (a one-parameter lambda, whose body is read
    with its parameter bound to `arg`, a function's name, or a module's function `np.sum`)
    on the name `arg`, or None."""
    params = _lambda(f, 1)
    if params is not None:
        return lambda arg: _substitute(f.body, params, [arg])
    if isinstance(f, gast.Name) and (value(f.id) is None
                                     or isinstance(value(f.id), types.FunctionType)) \
            or isinstance(f, gast.Attribute) and _callee(f, value)[0] is not None:
        return lambda arg: gast.Call(copy.deepcopy(f), [_name(arg)], [])
    return None


def _vectorize(call, value, fresh, like):
    """(statements, the value's expression) of `M.vectorize(f)(x)`, or None."""
    inner = call.func
    if not (isinstance(inner, gast.Call) and len(inner.args) == 1 and not inner.keywords
            and len(call.args) == 1 and not call.keywords
            and not isinstance(call.args[0], gast.Starred)):
        return None
    mod, obj = _callee(inner.func, value)
    make = _one_arg_function(inner.args[0], value)
    if obj is not np.vectorize or mod is None or make is None:
        return None
    out = []
    x = _once(call.args[0], "vectorized", "np.vectorize's argument", fresh, out, like)
    u = fresh("entry", "an entry np.vectorize's function is called on")
    items = gast.ListComp(make(u), [gast.comprehension(
        _name(u, True), gast.Call(gast.Attribute(_name(x), "ravel", gast.Load()), [], []),
        [], 0)])
    made = gast.Call(gast.Attribute(gast.Call(_attr(mod, "array"), [items], []), "reshape",
                                    gast.Load()),
                     [gast.Attribute(_name(x), "shape", gast.Load())], [])
    return out, _located(made, like)


def _apply_along_axis(call, value, fresh, like):
    """(statements, the value's expression) of `M.apply_along_axis(f, axis, X)`, or None."""
    mod, obj = _callee(call.func, value)
    if obj is not np.apply_along_axis or mod is None:
        return None
    kw = {k.arg: k.value for k in call.keywords}
    args = list(call.args) + [kw.pop(n) for n in ("func1d", "axis", "arr")[len(call.args):]
                              if n in kw]
    if kw or len(args) != 3 or any(isinstance(a, gast.Starred) for a in args):
        return None
    f, axis, arr = args
    a = axis.value if isinstance(axis, gast.Constant) else \
        -axis.operand.value if isinstance(axis, gast.UnaryOp) and isinstance(
            axis.op, gast.USub) and isinstance(axis.operand, gast.Constant) else None
    make = _one_arg_function(f, value)
    if make is None or type(a) is not int or a not in (0, 1, -1, -2):
        return None
    out = []
    X = _once(arr, "along", "np.apply_along_axis's array", fresh, out, like)
    rank = gast.Compare(gast.Attribute(_name(X), "ndim", gast.Load()), [gast.NotEq()],
                        [gast.Constant(2, None)])
    fail = gast.Raise(gast.Call(_name("ValueError"), [gast.Constant(
        "jitad reads np.apply_along_axis of a matrix only", None)], []), None)
    out.append(_located(gast.If(rank, [fail], []), like))
    k = fresh("along_k", "np.apply_along_axis's position")
    row = fresh("along_slice", "a slice np.apply_along_axis's function is called on")
    rows = a in (1, -1)
    piece = gast.Subscript(_name(X), _name(k) if rows else gast.Tuple(
        [gast.Slice(None, None, None), _name(k)], gast.Load()), gast.Load())
    n = gast.Subscript(gast.Attribute(_name(X), "shape", gast.Load()),
                       gast.Constant(0 if rows else 1, None), gast.Load())
    # the slice bound to its name by an inner one-item loop: [f(r) for k in .. for r in [X[k]]]
    items = gast.ListComp(make(row), [
        gast.comprehension(_name(k, True), gast.Call(_name("range"), [n], []), [], 0),
        gast.comprehension(_name(row, True), gast.List([piece], gast.Load()), [], 0)])
    made = gast.Call(_attr(mod, "array"), [items], [])
    if not rows:        # NumPy puts f's own dimensions where the axis was: first
        made = gast.Call(_attr(mod, "moveaxis"), [made, gast.Constant(0, None),
                                                   gast.UnaryOp(gast.USub(),
                                                                gast.Constant(1, None))], [])
    return out, _located(made, like)


def _module_vectorize(func, value) -> bool:
    """Whether `func` is `M.vectorize` of a global module M that is NumPy's."""
    mod, obj = _callee(func, value)
    return mod is not None and obj is np.vectorize


def _named_vectorize(tree, value):
    """`vf = M.vectorize(f)` assigned once, `vf` read only as the function of calls: each
    call `vf(x)` is `M.vectorize(f)(x)` (the same object made once or per call: it holds no
    state), the assignment a `pass`."""
    stores, called = {}, set()
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
            called.add(id(n.func))
    made = {}
    for n in gast.walk(tree):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], gast.Name) and isinstance(n.value, gast.Call) \
                and len(n.value.args) == 1 and not n.value.keywords \
                and stores.get(n.targets[0].id) == 1 and _module_vectorize(n.value.func, value):
            made[n.targets[0].id] = n
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and n.id in made and isinstance(n.ctx, gast.Load) \
                and id(n) not in called:
            del made[n.id]
    if not made:
        return
    for n in gast.walk(tree):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in made:
            n.func = _located(copy.deepcopy(made[n.func.id].value), n.func)
    for block in _blocks(tree):
        block[:] = [gast.copy_location(gast.Pass(), x) if any(x is a for a in made.values())
                    else x for x in block]


def rewrite(tree, value, builtin, fresh):
    """Rewrite the calls of the module docstring in `tree`."""
    for n in gast.walk(tree):       # np.roll over several axes: anywhere
        if isinstance(n, gast.Call):
            for field, v in gast.iter_fields(n):
                if isinstance(v, list):
                    v[:] = [_roll(a, value) or _flat_concat(a, value) or a
                            if isinstance(a, gast.Call) else a for a in v]
        for field, v in gast.iter_fields(n):
            if isinstance(v, gast.Call):
                made = _roll(v, value) or _flat_concat(v, value)
                if made is not None:
                    setattr(n, field, made)
    _named_vectorize(tree, value)
    loops = builtin("range", range) and builtin("len", len)
    lengths = _named_lengths(tree, value) if loops else {}
    for block in list(_blocks(tree)):
        out = []
        for s in block:
            if isinstance(s, _STATEMENTS):
                out.extend(_hoisted(s, value, fresh, loops, lengths))
            out.append(s)
        block[:] = out


def _hoisted(s, value, fresh, loops, lengths):
    """The statements computing the piecewise / reduce calls of statement `s` (replaced in it
    by their values), in Python's evaluation order."""
    before = []

    def visit(node, deferred):
        for field, v in gast.iter_fields(node):
            items = v if isinstance(v, list) else [v]
            for j, c in enumerate(items):
                if not isinstance(c, gast.AST):
                    continue
                inner = deferred or isinstance(c, _DEFERRED)
                visit(c, inner)
                if isinstance(c, gast.Call) and not inner:
                    made = _piecewise(c, value, fresh, s) or (
                        _reduce(c, value, fresh, s, lengths) if loops else None) or (
                        _vectorize(c, value, fresh, s)) or (
                        _apply_along_axis(c, value, fresh, s) if loops else None)
                    if made is not None:
                        before.extend(made[0])
                        gast.copy_location(made[1], c)
                        if isinstance(v, list):
                            v[j] = made[1]
                        else:
                            setattr(node, field, made[1])
    visit(s, False)
    return before
