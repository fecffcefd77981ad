"""`x[np.nonzero(m)]` and `x[np.where(m)]`: an index by the tuple of a mask's nonzero
positions, written as the boolean mask index it means (a `desugar` rewrite, at the user's
lines). NumPy defines `x[b]` of a boolean `b` as `x[np.nonzero(b)]`: the same entries in the
same order.

Takes: a captured function's `def` tree (gast), `value(name)` (what a global, not shadowed,
holds: `capture`'s builtin test) and `fresh(base, description)` (a fresh name).
Guarantees:
  * a read `E[M.nonzero(m)]` / `E[M.where(m)]` (one argument, `M` a global module that is
    NumPy) is `E[m != 0]` (for a boolean `m`, `m` itself; for numbers, their nonzero ones),
    the mask within E's shape (below);
  * a statement `p = M.nonzero(m)` / `p = M.where(m)` (one name target, `p` assigned nowhere
    else, not read by a nested function or lambda) where `p` is read as a whole index
    `E[p]` somewhere: `k = m != 0` (a fresh `k`) comes first, each `E[p]` is `E[k]`, and the
    statement stays as `p = M.nonzero(k)` where `p` is read otherwise (`p[0]`, `len(p[0])`),
    else it is dropped.
Where `E` is a name, the mask is `WITHIN(m != 0, E)` (`WITHIN` bound by `capture` to
`runtime.nonzero_within`, a primitive of no derivative): the mask of E's leading axes true at
m's nonzero positions, so an `m` shorter than `E` along an axis selects what NumPy's tuple
index selects, and a nonzero position outside `E` raises NumPy's IndexError; an expression
`E` (not evaluated twice) keeps `m != 0`, shaped like m. The mask index then has jitad's rules
(the entries selected, its gradient scattered back). Anything else is left as it is
(`typeinfer` refuses a tuple used as an index at its line).
Invariants: the tree is rewritten in place; a name introduced here is fresh; `m` is
evaluated once, where the user's call evaluated it.
"""
from __future__ import annotations

import gast
import numpy as np

from .gast_build import assign, located, name as _name

WITHIN = "__jitad_nonzero_within__"     # bound by `capture` to `runtime.nonzero_within`


def _positions_of(call, value):
    """`m` of `M.nonzero(m)` / `M.where(m)` (M a global NumPy module), or None."""
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and isinstance(call.func.value, gast.Name) and len(call.args) == 1
            and not call.keywords and not isinstance(call.args[0], gast.Starred)):
        return None
    mod = value(call.func.value.id)
    if mod is None or getattr(mod, "__name__", "") != "numpy":
        return None
    obj = getattr(mod, call.func.attr, None)
    return call.args[0] if obj is np.nonzero or obj is np.where else None


def _nonzero(m):
    return gast.Compare(m, [gast.NotEq()], [gast.Constant(0, None)])


def _within(mask, indexed):
    """`WITHIN(mask, E)` for a name `E` (the mask of E's leading axes the positions mean),
    else the mask itself (an expression is not evaluated twice)."""
    if not isinstance(indexed, gast.Name):
        return mask
    return gast.Call(_name(WITHIN), [mask, _name(indexed.id)], [])


def rewrite(tree, value, fresh):
    """Rewrite the tuple-of-positions indices of `tree` (module docstring)."""
    for node in gast.walk(tree):
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
            m = _positions_of(node.slice, value)
            if m is not None:
                node.slice = located(_within(_nonzero(m), node.value), node.slice)
    _named_positions(tree, value, fresh)


def _named_positions(tree, value, fresh):
    stores, nested = {}, set()
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        if isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not tree:
            nested |= {u.id for u in gast.walk(n) if isinstance(u, gast.Name)}
    for block_owner in list(gast.walk(tree)):
        for field in ("body", "orelse"):
            block = getattr(block_owner, field, None)
            if not isinstance(block, list):
                continue
            j = 0
            while j < len(block):
                s = block[j]
                j += 1
                if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                        and isinstance(s.targets[0], gast.Name)):
                    continue
                p = s.targets[0].id
                m = _positions_of(s.value, value)
                if m is None or stores.get(p) != 1 or p in nested:
                    continue
                whole = [n for n in gast.walk(tree) if isinstance(n, gast.Subscript)
                         and isinstance(n.ctx, gast.Load) and isinstance(n.slice, gast.Name)
                         and n.slice.id == p]
                if not whole:
                    continue
                reads = sum(1 for n in gast.walk(tree) if isinstance(n, gast.Name)
                            and n.id == p and isinstance(n.ctx, gast.Load))
                k = fresh("mask", f"the mask of {p}'s positions")
                for n in whole:
                    n.slice = located(_within(_name(k), n.value), n.slice)
                mask = assign(_name(k, True), _nonzero(m), s)
                if reads > len(whole):
                    s.value.args = [located(_name(k), m)]
                    block[j - 1:j] = [mask, s]
                    j += 1
                else:
                    block[j - 1:j] = [mask]
