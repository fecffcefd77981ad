"""Finite generator functions as functions returning the list of what they yield (a `desugar`
rewrite, at the user's lines).

Takes: a captured function's `def` tree (gast) and a fresh-name maker `fresh(base, shown)`.
Guarantees: a function in the tree (the captured one or a nested one) whose own statements
(not those of functions nested in it) hold `yield`, where
  * every `yield` is a statement `yield v` (no `x = yield v`, no `yield from`, no bare
    `yield` read as a value),
  * it has no `while` loop of its own (its `for` loops run over sequences, ranges and arrays
    of known length: the generator is finite), and
  * its `return` statements return nothing,
becomes `items = []` (a fresh name) first, each `yield v` the statement `items.append(v)`,
each `return` `return items`, and `return items` at its end: the list of the values the
generator would produce, in order. A caller consuming the generator whole (`sum(gen(x))`,
`for v in gen(x)`, `list(gen(x))`) sees the same values (jitad's code has no side effects a
lazy evaluation would reorder). Any other generator is left as it is (`fence` refuses
`yield` at its line).
Invariants: the tree is rewritten in place; the new name comes from `fresh`.
"""
from __future__ import annotations

import gast

from .gast_build import assign, located, name

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def _own(node):
    """The nodes of `node`'s body, not inside nested scopes."""
    for s in node.body:
        yield from _walk(s)


def _walk(node):
    yield node
    if isinstance(node, _SCOPES):
        return
    for c in gast.iter_child_nodes(node):
        yield from _walk(c)


def rewrite(tree, fresh):
    """Rewrite the finite generator functions of `tree` (module docstring)."""
    for f in [n for n in gast.walk(tree) if isinstance(n, gast.FunctionDef)]:
        own = list(_own(f))
        yields = [n for n in own if isinstance(n, (gast.Yield, gast.YieldFrom))]
        if not yields:
            continue
        statements = [n for n in own if isinstance(n, gast.Expr)
                      and isinstance(n.value, gast.Yield) and n.value.value is not None]
        if len(statements) != len(yields) or any(isinstance(n, gast.While) for n in own) \
                or any(isinstance(n, gast.Return) and n.value is not None for n in own):
            continue
        items = fresh("items", f"the values {f.name} yields")

        class Yields(gast.NodeTransformer):
            def visit_Expr(self, node):
                if isinstance(node.value, gast.Yield):
                    call = gast.Call(gast.Attribute(name(items), "append", gast.Load()),
                                     [node.value.value], [])
                    return located(gast.Expr(call), node)
                return node

            def visit_Return(self, node):
                return located(gast.Return(name(items)), node)

            def generic_visit(self, node):
                if isinstance(node, _SCOPES) and node is not f:
                    return node
                return super().generic_visit(node)

        Yields().visit(f)
        first = f.body[0]
        f.body.insert(0, assign(name(items, True), located(gast.List([], gast.Load()), first),
                                first))
        last = f.body[-1]
        if not isinstance(last, gast.Return):
            f.body.append(located(gast.Return(name(items)), last))
