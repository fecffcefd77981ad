"""`A[np.ix_(r, c)]`: the open-mesh gather NumPy's `ix_` builds, written as the broadcast
integer-array index it means (a `desugar` rewrite, at the user's line).

Takes: a captured function's `def` tree (gast) and `value(name)` (what a global, not shadowed,
holds: `capture`'s builtin test).
Guarantees: a read `A[M.ix_(a0, ..., a{k-1})]` where `M.ix_` (an attribute chain from a global
module) is `np.ix_` is `A[a0[:, None, ...], a1[None, :, None, ...], ...]`: item j indexed by
`:` at position j and None at the k - 1 others, which broadcasts to the same k-dimensional
block NumPy's `ix_` gives for integer vectors. A list or tuple display among the items is
`M.array(display)` first (the same module `M`). A boolean item, which `ix_` would turn into
the indices of its true entries, makes a boolean mask with other indices, refused at the line
(never a wrong gather). Writes (`A[np.ix_(r, c)] = v`) are left as they are.
Invariants: the tree is rewritten in place; nothing is named but the user's own `M`.
"""
from __future__ import annotations

import gast
import numpy as np


def _module_attr(func, value):
    """(the module expression, the object) of an attribute call `M.name` of a global module."""
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        mod = value(func.value.id)
        if mod is not None and getattr(mod, "__name__", "").startswith("numpy"):
            return func.value, getattr(mod, func.attr, None)
    return None, None


def rewrite(tree, value):
    for node in gast.walk(tree):
        if not (isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load)
                and isinstance(node.slice, gast.Call)):
            continue
        call = node.slice
        mod, obj = _module_attr(call.func, value)
        if obj is not np.ix_ or call.keywords or not call.args or any(
                isinstance(a, gast.Starred) for a in call.args):
            continue
        k = len(call.args)
        items = []
        for j, a in enumerate(call.args):
            if isinstance(a, (gast.List, gast.Tuple)):
                a = gast.copy_location(gast.Call(
                    gast.Attribute(gast.Name(mod.id, gast.Load(), None, None), "array",
                                   gast.Load()), [a], []), a)
            idx = [gast.Slice(None, None, None) if i == j else gast.Constant(None, None)
                   for i in range(k)]
            sub = gast.Subscript(a, gast.Tuple(idx, gast.Load()) if k > 1 else idx[0],
                                 gast.Load())
            for n in gast.walk(sub):
                if getattr(n, "lineno", None) is None:
                    gast.copy_location(n, a)
            items.append(sub)
        node.slice = gast.copy_location(gast.Tuple(items, gast.Load()), call) if k > 1 \
            else items[0]
