"""Small builders for the gast trees the front end's rewrites make (`desugar` and the modules
it calls: `call_forms`, `nonlocals`, `inplace`, `list_edits`), and a fact about blocks they
and `fence` share.

Takes: gast nodes.
Guarantees: `name` and `assign` return fresh nodes, `with_item` a copy with a name read as a constant; `located(node, like)` gives each node of
`node` that has no position `like`'s (so an error in code a rewrite made points at the user's
statement); `always_returns(body)` tells a block every path of which ends in a `return`
(directly, or in both branches of an `if`); `blocks(node)` yields the statement lists of
`node` and of its statements (a `match` statement's cases too), not inside nested definitions; `DEFERRED` are the expressions whose parts Python
evaluates later or not at all (a lambda's body, a comprehension's element, an `if`-expression's
arms, `and`/`or`'s right side, a nested def).
Invariants: nothing here changes a node it did not make, except the positions `located` fills.
"""
from __future__ import annotations

import copy
from collections import Counter

import gast

DEFERRED = (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.DictComp, gast.SetComp,
            gast.IfExp, gast.BoolOp, gast.FunctionDef)


def name(n, store=False):
    return gast.Name(n, gast.Store() if store else gast.Load(), None, None)


def located(node, like):
    """`node` with `like`'s location on each of its nodes that has none."""
    for n in gast.walk(node):
        if getattr(n, "lineno", None) is None:
            gast.copy_location(n, like)
    return node


def assign(target, value, like):
    return located(gast.Assign([target], value, None), like)


def with_item(node, name, item):
    """A copy of `node` whose reads of `name` are the constant `item` (a `gast.Constant`)."""
    node = copy.deepcopy(node)
    for n in gast.walk(node):
        for field, child in gast.iter_fields(n):
            if isinstance(child, gast.Name) and child.id == name:
                setattr(n, field, gast.copy_location(gast.Constant(item.value, None), child))
            elif isinstance(child, list):
                child[:] = [gast.copy_location(gast.Constant(item.value, None), c)
                            if isinstance(c, gast.Name) and c.id == name else c for c in child]
    return node


def always_returns(body) -> bool:
    for s in body:
        if isinstance(s, gast.Return):
            return True
        if isinstance(s, gast.If) and always_returns(s.body) and always_returns(s.orelse):
            return True
    return False


def store_counts(tree) -> Counter:
    """How many times each name is assigned (or deleted) anywhere in `tree`."""
    return Counter(n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
                   and isinstance(n.ctx, (gast.Store, gast.Del)))


def param_names(tree) -> set:
    """The parameters of `tree` and of every function defined in it."""
    return {a.id for f in gast.walk(tree) if isinstance(f, gast.FunctionDef)
            for a in f.args.args + f.args.kwonlyargs if isinstance(a, gast.Name)}


def blocks(node):
    """The statement lists of `node` and of its statements (a `match` statement's cases too),
    not inside nested definitions."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield block
            for s in block:
                if not isinstance(s, gast.FunctionDef):
                    yield from blocks(s)
    for case in getattr(node, "cases", None) or ():     # (gast.Match: each case's body)
        yield from blocks(case)
