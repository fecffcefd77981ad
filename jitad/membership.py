"""Membership in a constant collection, `kind in {"l1", "l2"}`, as the comparisons it means (a
`desugar` rewrite, at the user's lines), and global or closure collections of constants read
only that way (`SMOOTH = {"tanh", "softplus"}`; `name in SMOOTH`), compiled in.

Takes: a captured function's `def` tree (gast) and `capture`'s builtin test.
Guarantees:
  * `constant_collections(free, tree)` (before `desugar`): a free name holding a set,
    frozenset or tuple of at most 64 constants (str, int, bool, None; floats other than NaN),
    read in the function only as the right operand of `in` / `not in`, is replaced there by
    the set display of its items (sorted by type name and repr: deterministic code); returns
    {name: snapshot} where the snapshot is a frozenset of the items, which `capture` watches
    in place of the object (`same_constants`: a set changed in place is a changed name, a
    set rebound to one of the same items is not);
  * `rewrite(tree, builtin)`: a comparison `a in C` / `a not in C` (one operator) where `C`
    is a set, tuple or list display of such constants or of names (`i in (0, k)`), or a call
    of the builtin `set`, `frozenset`, `tuple` or `list` of one (or of nothing), is
    `a == c0 or a == c1 ...` / `a != c0 and a != c1 ...` in the display's order (an empty
    collection: False / True) -- Python's `in` compares by `==` after identity: the same
    but for a NaN name tested against itself (`x in (x,)`: True in Python, False here);
    `a` is read once per item (jitad's expressions have no side effects).
Anything else is left as it is (`fence` refuses `in` at its line).
Invariants: the tree is rewritten in place; nothing here depends on types (an array `a` is
compared as Python would, and `or` of arrays is refused or raises as Python's does).
"""
from __future__ import annotations

import math

import gast

from .gast_build import located

_LIMIT = 64


def _constant(v) -> bool:
    if v is None or type(v) in (str, int, bool):
        return True
    return type(v) is float and not math.isnan(v)


def _items(node, builtin):
    """The constants of a display (or of `set(display)` ...), or None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and not node.keywords \
            and len(node.args) <= 1 and any(builtin(node.func.id, f)
                                            for f in (set, frozenset, tuple, list)):
        if not node.args:
            return []
        node = node.args[0]
    if not isinstance(node, (gast.Set, gast.Tuple, gast.List)):
        return None
    if not all(isinstance(e, gast.Name) or isinstance(e, gast.Constant) and _constant(e.value)
               for e in node.elts):
        return None
    return node.elts


def rewrite(tree, builtin):
    """Rewrite each membership test of a constant collection (module docstring)."""
    class Tests(gast.NodeTransformer):
        def visit_Compare(self, node):
            self.generic_visit(node)
            if len(node.ops) != 1 or not isinstance(node.ops[0], (gast.In, gast.NotIn)):
                return node
            items = _items(node.comparators[0], builtin)
            if items is None:
                return node
            inside = isinstance(node.ops[0], gast.In)
            if not items:
                return located(gast.Constant(not inside, None), node)
            op = gast.Eq if inside else gast.NotEq
            tests = [gast.Compare(_copy(node.left), [op()], [_copy(v)]) for v in items]
            made = tests[0] if len(tests) == 1 else \
                gast.BoolOp(gast.Or() if inside else gast.And(), tests)
            return located(made, node)

    Tests().visit(tree)


def _copy(node):
    import copy
    return copy.deepcopy(node)


def _collection(v) -> bool:
    return type(v) in (set, frozenset, tuple) and len(v) <= _LIMIT \
        and all(_constant(x) for x in v)


def constant_collections(free, tree) -> dict:
    """Compile in the free names holding collections of constants read only by `in`
    (module docstring); {name: frozenset snapshot}."""
    names = {n for n, v in free.items() if _collection(v)}
    if not names:
        return {}
    at_in = set()
    for node in gast.walk(tree):
        if isinstance(node, gast.Compare) and len(node.ops) == 1 \
                and isinstance(node.ops[0], (gast.In, gast.NotIn)) \
                and isinstance(node.comparators[0], gast.Name):
            at_in.add(id(node.comparators[0]))
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and node.id in names and id(node) not in at_in:
            names.discard(node.id)
    if not names:
        return {}
    for node in gast.walk(tree):
        if isinstance(node, gast.Compare) and id(node.comparators[0]) in at_in \
                and node.comparators[0].id in names:
            v = free[node.comparators[0].id]
            items = sorted(set(v), key=lambda x: (type(x).__name__, repr(x)))
            node.comparators[0] = located(
                gast.Set([gast.Constant(x, None) for x in items]), node.comparators[0])
    return {n: frozenset(free[n]) for n in names}


def same_constants(now, was) -> bool:
    """`now` holds the constants the snapshot `was` (a frozenset) does."""
    return type(was) is frozenset and type(now) in (set, frozenset, tuple) \
        and len(now) <= _LIMIT and frozenset(now) == was
