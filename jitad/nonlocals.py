"""`nonlocal` in a function defined inside the function (a counter, an accumulator in a closure),
as the values passed in and returned that it means (a `desugar` rewrite, at the user's lines).

Takes: a captured function's `def` tree (gast) and a fresh-name maker (`fresh(base, shown)`).
Guarantees: a nested `def g(...)` (in the function's own blocks, defining no function itself)
whose body declares `nonlocal n1, n2` is rewritten, when every use of `g` is a call of the
enclosing function's own statements -- a call statement, an assignment, an augmented
assignment, a `return` or an `if` test, which read none of n1, n2 outside g's calls -- into:
  * `def g(n1, n2, <its parameters>)`, without the `nonlocal` statement, each `return e` a
    `return e, n1, n2` (a `g` that returns no value: `return n1, n2`, also where its body
    ends);
  * each call, in the order Python evaluates the statement's calls, first a statement
    `t, n1, n2 = g(n1, n2, <its arguments>)` (`n1, n2 = ...` for a `g` that returns no value,
    the call then dropped from a call statement), the call in the statement then `t`.
So g sees, at each call, the values its closure would, and the enclosing function the values
g left: what Python's cell does. A list comprehension (one `for`, no `if`) whose item calls
such a `g`, in a simple statement that reads the state nowhere else, is first the loop it
runs, appending to a fresh list the statement then reads.
Anything else (a call in a `while` test, another comprehension, a
lambda, a short-circuit or conditional expression, another nested function; `g` passed as a
value; a read of n1 outside g's calls in the same statement, which Python evaluates at
another time; `global`) is left as it is, for `normalize` to refuse (its message says what to
write instead).
Invariants: the tree is rewritten in place; fresh names never collide (`fresh`).
"""
from __future__ import annotations

import gast

from .gast_build import DEFERRED as _DEFERRED
from .gast_build import always_returns as _always_returns
from .gast_build import blocks as _blocks
from .gast_build import located as _located
from .gast_build import name as _name

_SIMPLE = (gast.Expr, gast.Assign, gast.AugAssign, gast.Return)


def _replace(root, old, new):
    """Put `new` where the node `old` is under `root`."""
    for p in gast.walk(root):
        for field, value in gast.iter_fields(p):
            if value is old:
                setattr(p, field, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[:] = [new if v is old else v for v in value]
                return


def _calls_in_order(expr, g):
    """The calls of `g` in `expr` in Python's evaluation order (arguments first); None when one
    is where Python may not evaluate it, or evaluates it later (`_DEFERRED`)."""
    out = []

    def visit(n, deferred):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == g:
            if deferred:
                raise LookupError
            for a in n.args + [k.value for k in n.keywords]:
                visit(a, deferred)
            out.append(n)
            return
        if isinstance(n, gast.Name) and n.id == g:
            raise LookupError       # g as a value
        inner = deferred or isinstance(n, _DEFERRED)
        for c in gast.iter_child_nodes(n):
            visit(c, inner)
    try:
        visit(expr, False)
    except LookupError:
        return None
    return out


def rewrite(tree, fresh):
    """Rewrite the nested functions of `tree` that declare `nonlocal` (module docstring)."""
    stateful = {s.name: {n for d in s.body if isinstance(d, gast.Nonlocal) for n in d.names}
                for block in _blocks(tree) for s in block if isinstance(s, gast.FunctionDef)}
    stateful = {g: names for g, names in stateful.items() if names}
    if stateful:
        _comprehensions_as_loops(tree, stateful, fresh)
    for block in list(_blocks(tree)):
        for g in [s for s in block if isinstance(s, gast.FunctionDef)]:
            _rewrite_one(tree, g, fresh)


def _comprehensions_as_loops(tree, stateful, fresh):
    """A list comprehension `[e for v in it]` whose item e calls a function of `stateful`
    ({name: its nonlocal names}; one `for`, no `if`), the one such call of its statement (a
    simple statement, where Python evaluates it at once: not under a conditional, a lambda or
    another comprehension), which reads none of those names and calls no function defined in
    the function outside it: first `items = []`,
    `for v' in it: items.append(e')` (items and v' fresh, e' reading v'), the loop Python's
    comprehension runs, then the statement with `items` in its place -- the calls are then
    statements `_rewrite_one` threads the state through, in the same order."""
    def calls_stateful(node):
        return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
                   and n.func.id in stateful for n in gast.walk(node))

    # (any function defined in it may read the state through its closure: called in the
    # statement outside the comprehension, it would read it at another time)
    nested = {d.name for d in gast.walk(tree) if isinstance(d, gast.FunctionDef)}

    for block in list(_blocks(tree)):
        for s in list(block):
            if not isinstance(s, _SIMPLE):
                continue
            comps = [n for n in _immediate(s) if isinstance(n, gast.ListComp)
                     and calls_stateful(n.elt)]
            if len(comps) != 1:
                continue
            comp = comps[0]
            gen = comp.generators[0]
            inside = {id(n) for n in gast.walk(comp)}
            called = {n.func.id for n in gast.walk(comp.elt) if isinstance(n, gast.Call)
                      and isinstance(n.func, gast.Name)}
            state = {v for g in called & set(stateful) for v in stateful[g]}
            outside = [n for n in gast.walk(s) if id(n) not in inside]
            if len(comp.generators) != 1 or gen.ifs or gen.is_async or calls_stateful(gen.iter) \
                    or any(isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
                           and n.func.id in nested for n in outside) \
                    or any(isinstance(n, gast.Name) and n.id in state for n in outside):
                continue
            bound = {n.id for n in gast.walk(gen.target) if isinstance(n, gast.Name)}
            renamed = {v: fresh(v, v) for v in sorted(bound)}
            for part in (gen.target, comp.elt):
                for n in gast.walk(part):
                    if isinstance(n, gast.Name) and n.id in renamed:
                        n.id = renamed[n.id]
            items = fresh("items", "[... for ... in ...]")
            append = gast.Expr(gast.Call(
                gast.Attribute(_name(items), "append", gast.Load()), [comp.elt], []))
            loop = gast.For(gen.target, gen.iter, [_located(append, s)], [], None)
            _replace(s, comp, gast.copy_location(_name(items), comp))
            k = next(j for j, x in enumerate(block) if x is s)
            block[k:k] = [
                _located(gast.Assign([_name(items, True)], gast.List([], gast.Load()), None), s),
                _located(loop, s)]


def _immediate(stmt):
    """The nodes of `stmt` Python evaluates when it runs the statement (not under a lambda, a
    conditional or short-circuit expression or inside a comprehension: `_DEFERRED`), the
    outermost deferred nodes themselves included."""
    out, todo = [], [stmt]
    while todo:
        n = todo.pop()
        out.append(n)
        if n is stmt or not isinstance(n, _DEFERRED):
            todo.extend(gast.iter_child_nodes(n))
    return out


def _rewrite_one(tree, g, fresh):
    decl = [s for s in g.body if isinstance(s, gast.Nonlocal)]
    if not decl or any(isinstance(n, (gast.Nonlocal, gast.Global)) for s in g.body
                       if not isinstance(s, gast.Nonlocal) for n in gast.walk(s)) \
            or any(isinstance(n, (gast.FunctionDef, gast.Lambda)) for s in g.body
                   for n in gast.walk(s)):
        return
    names = list(dict.fromkeys(n for s in decl for n in s.names))
    returns = [n for n in gast.walk(g) if isinstance(n, gast.Return)]
    valued = any(r.value is not None for r in returns)
    if valued and (any(r.value is None for r in returns) or not _always_returns(g.body)):
        return
    # every use of g: calls in the enclosing function's simple statements or if tests
    plan = []
    for block in _blocks(tree):
        for s in block:
            if s is g:
                continue
            if isinstance(s, gast.FunctionDef):
                if any(isinstance(n, gast.Name) and n.id == g.name for n in gast.walk(s)):
                    return
                continue
            parts = [s] if isinstance(s, _SIMPLE) else [s.test] if isinstance(s, gast.If) \
                else [getattr(s, f) for f in ("test", "iter", "target") if hasattr(s, f)]
            for part in parts:
                calls = _calls_in_order(part, g.name)
                if calls is None or (calls and not isinstance(s, (*_SIMPLE, gast.If))):
                    return
                if calls:
                    inside = {id(n) for c in calls for n in gast.walk(c)}
                    if any(isinstance(n, gast.Name) and n.id in names and id(n) not in inside
                           for n in gast.walk(part)):
                        return
                    plan.append((block, s, calls))
    # the function: the names first among its parameters, returned with its value
    g.body = [s for s in g.body if not isinstance(s, gast.Nonlocal)]
    g.args.args = [_located(_name(n), g) for n in names] + g.args.args
    for a in g.args.args[:len(names)]:
        a.ctx = gast.Param()
    state = [_name(n) for n in names]

    def with_state(r):
        value = [r.value] if valued else []
        items = value + [_name(n) for n in names]
        r.value = _located(gast.Tuple(items, gast.Load()) if len(items) > 1 else items[0], r)
    for r in returns:
        with_state(r)
    if not valued and not _always_returns(g.body):
        g.body.append(_located(gast.Return(gast.Tuple(state, gast.Load()) if len(state) > 1
                                           else state[0]), g.body[-1] if g.body else g))
    # the calls: hoisted in order, each passing the names in and assigning them back
    for block, s, calls in plan:
        before = []
        for call in calls:
            call.args = [_located(_name(n), call) for n in names] + call.args
            targets = [_name(n, True) for n in names]
            result = None
            if valued:
                result = fresh(f"{g.name}_result", f"{g.name}(...)")
                targets = [_name(result, True)] + targets
            target = gast.Tuple(targets, gast.Store()) if len(targets) > 1 else targets[0]
            hoisted = gast.Call(call.func, call.args, call.keywords)
            before.append(_located(gast.Assign([target], hoisted, None), s))
            # the call in the statement: its result
            _replace(s, call, gast.copy_location(
                _name(result) if valued else gast.Constant(None, None), s))
        k = next(j for j, x in enumerate(block) if x is s)
        keep = not (isinstance(s, gast.Expr) and isinstance(s.value, (gast.Name, gast.Constant)))
        block[k:k + 1] = before + ([s] if keep else [])
