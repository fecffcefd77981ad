"""Reads of a local that may not be assigned yet: Python's UnboundLocalError, kept.

Takes: a function's `def` tree (gast), after `desugar`'s other rewrites (no walrus, no loop
`else`), and a `Namer` over its names.
Guarantees: where a local variable is read at a point some path reaches without assigning it
(`if c: y = ...` then `return y`; a loop's variable read after a loop that may not run), a
fresh bool flag (`y_bound`) is False at the top of the function and set True after each
assignment of the variable (first in the body of a loop whose target it is), and the
statement reading it is preceded by `if not y_bound: UNBOUND(line)`, which raises Python's
UnboundLocalError. Without this a compiled function read the placeholder every variable
starts with (an empty array, a zero) and returned a value Python never returns: a gradient of
zero where the plain function raises. Eager mode runs the statements as written (Python's own
error).
Definitely assigned (the analysis): parameters; then forward through the statements, an
assignment adding its names, an `if` keeping what both branches assign (a branch that
returns, raises, breaks or continues keeps everything), a loop's body analyzed from what is
assigned before it and adding nothing after it (it may run zero times); a statement after a
return, raise, break or continue is not reached. Reads inside nested functions and lambdas
are not checked (they run when called), nor reads past a short circuit (`ok and y`, `y if c
else 0`, a comprehension's element): only what a statement surely evaluates; a
comprehension's own variables are not locals.
`del y` (of names) unassigns y: a read after it is checked like any other, and the statement
itself is the flag set False (or `pass`); `del` of anything else is left for `fence`.
Invariants: a function whose every read is of a definitely assigned local is left as it was
(but for its `del` statements of names);
the flags are bools no adjoint reads.
"""
from __future__ import annotations

import gast

UNBOUND = "__jitad_unbound__"       # bound by `capture` to `runtime.unbound_local`

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_COMPS = (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)


def unbound_reads(tree, namer) -> None:
    """Rewrite `tree` in place (see the module doc)."""
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs
              + [x for x in (tree.args.vararg, tree.args.kwarg) if x is not None]
              if isinstance(a, gast.Name)}
    local = _stores(tree.body) - params
    found = {}                      # id(stmt) -> names it may read unassigned
    _block(tree.body, frozenset(params), local, found)
    names = sorted({n for ns in found.values() for n in ns})
    if not names:
        tree.body = _rewrite(tree.body, {}, found)       # `del y` of names: nothing to run
        return
    flags = {n: namer.fresh(f"{n}_bound") for n in names}
    tree.body = _rewrite(tree.body, flags, found)
    first = tree.body[0] if tree.body else tree
    tree.body[:0] = [_set(flags[n], False, first) for n in names]


# ---------------------------------------------------------------------- the analysis
def _block(stmts, da, local, found):
    """What is definitely assigned after `stmts` given `da` before (None: not reached)."""
    for s in stmts:
        if da is None:
            return None
        header = _header(s)
        missing = {n for e in header for n in _reads(e) if n in local and n not in da}
        if missing:
            found[id(s)] = missing
        if isinstance(s, (gast.Assign, gast.AnnAssign, gast.AugAssign)):
            targets = s.targets if isinstance(s, gast.Assign) else [s.target]
            da = da | {n for t in targets for n in _names(t)}
        elif isinstance(s, gast.If):
            da = _meet(_block(s.body, da, local, found), _block(s.orelse, da, local, found))
        elif isinstance(s, gast.For):
            _block(s.body, da | set(_names(s.target)), local, found)
            da = _block(s.orelse, da, local, found) if s.orelse else da
        elif isinstance(s, gast.While):
            _block(s.body, da, local, found)
            da = _block(s.orelse, da, local, found) if s.orelse else da
        elif isinstance(s, gast.With):
            da = da | {n for it in s.items if it.optional_vars is not None
                       for n in _names(it.optional_vars)}
            da = _block(s.body, da, local, found)
        elif isinstance(s, gast.Delete) and _deletes_names(s):
            da = da - set(_names(s))
        elif isinstance(s, (gast.Return, gast.Raise, gast.Break, gast.Continue)):
            da = None
        elif isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            da = da | {s.name}
        elif isinstance(s, gast.Try):
            # (refused by `fence`): everything it assigns counts as assigned, nothing checked
            da = da | _stores([s])
    return da


def _meet(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def _header(s):
    """The expressions a statement evaluates before (or without) its blocks."""
    if isinstance(s, (gast.If, gast.While)):
        return [s.test]
    if isinstance(s, gast.For):
        return [s.iter]
    if isinstance(s, gast.With):
        return [it.context_expr for it in s.items]
    if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Try)):
        return []
    return [s]


def _reads(node):
    """The names `node` surely loads when it runs: outside nested scopes, and only the parts
    Python always evaluates -- the first operand of `and`/`or`, the test of `a if c else b`,
    the first iterable of a comprehension (a name read only past a short circuit may be
    unassigned there on purpose: `if ok and y > 0`, with y assigned where ok is set)."""
    if isinstance(node, _SCOPES):
        return set()
    if isinstance(node, _COMPS):
        return _reads(node.generators[0].iter)
    if isinstance(node, gast.BoolOp):
        return _reads(node.values[0])
    if isinstance(node, gast.IfExp):
        return _reads(node.test)
    if isinstance(node, gast.Name):
        return {node.id} if isinstance(node.ctx, gast.Load) else set()
    if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
        return {node.target.id} | _reads(node.value)       # `y += e` reads y first
    return {n for c in gast.iter_child_nodes(node) for n in _reads(c)}


def _names(target):
    return [n.id for n in gast.walk(target) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Del))]


def _stores(stmts):
    """Names a block assigns (a loop target, a def's name too), outside nested scopes."""
    out = set()
    for s in stmts:
        for node in _walk(s):
            if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                out.add(node.id)
            elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
                out.add(node.name)
    return out


def _walk(node):
    """The nodes of `node`, not entering a nested def, class, lambda or comprehension (their
    variables are their own; a def's or class's name is the enclosing function's)."""
    yield node
    if isinstance(node, _SCOPES + _COMPS):
        return
    for c in gast.iter_child_nodes(node):
        yield from _walk(c)


# ---------------------------------------------------------------------- the rewrite
def _deletes_names(s) -> bool:
    return all(isinstance(t, gast.Name) for t in s.targets)


def _rewrite(stmts, flags, found):
    out = []
    for s in stmts:
        if isinstance(s, gast.Delete) and _deletes_names(s):
            # `del y`: y unassigned from here (its flag False); nothing else to run
            unset = [_set(flags[n], False, s) for n in _names(s) if n in flags]
            out += unset or [gast.copy_location(gast.Pass(), s)]
            continue
        for n in sorted(found.get(id(s), ())):
            out.append(_check(flags[n], s))
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and not isinstance(s, _SCOPES):
                setattr(s, field, _rewrite(block, flags, found))
        if isinstance(s, gast.For):
            s.body[:0] = [_set(flags[n], True, s) for n in _names(s.target) if n in flags]
        if isinstance(s, gast.With):
            s.body[:0] = [_set(flags[n], True, s) for it in s.items if it.optional_vars is not None
                          for n in _names(it.optional_vars) if n in flags]
        out.append(s)
        if isinstance(s, (gast.Assign, gast.AnnAssign, gast.AugAssign)):
            targets = s.targets if isinstance(s, gast.Assign) else [s.target]
            out += [_set(flags[n], True, s) for t in targets for n in _names(t) if n in flags]
        elif isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) \
                and s.name in flags:
            out.append(_set(flags[s.name], True, s))
    return out


def _set(flag, value, like):
    st = gast.Assign([gast.Name(flag, gast.Store(), None, None)], gast.Constant(value, None))
    return gast.copy_location(st, like)


def _check(flag, s):
    call = gast.Call(gast.Name(UNBOUND, gast.Load(), None, None), [gast.Constant(s.lineno, None)], [])
    test = gast.UnaryOp(gast.Not(), gast.Name(flag, gast.Load(), None, None))
    st = gast.If(test, [gast.Expr(call)], [])
    for node in gast.walk(st):
        gast.copy_location(node, s)
    return st
