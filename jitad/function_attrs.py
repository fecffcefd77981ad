"""A function's attribute used as a variable of one call (`f.count = 0` then `f.count += n`,
ADBench's `constructL.Lparamidx`), as the local it means (a `desugar` rewrite, at the user's
lines).

Takes: a captured function's `def` tree (gast), whether a global name is that function
(`itself(name)`) and a fresh-name maker (`fresh(base, shown)`).
Guarantees: an attribute `F.a` of the function `F` being captured (`F` its own name, not
shadowed, the global holding this very function) is rewritten to a fresh local `F_a` when a
statement of the function's body, outside any branch or loop, assigns it (`F.a = e`, e not
reading it) before any other statement mentions it: each `F.a` in the function and in the
functions defined in it reads or writes that local, and a function defined in it that
mentions it declares it `nonlocal` (which `nonlocals` then passes in and out of its calls).
So every read sees the value Python's attribute would hold during the call. What the
rewrite leaves -- an attribute read before the call assigns it (state kept from an earlier
call), assigned in a branch, deleted -- stays as written, for `fence` to refuse.
Invariants: the tree is rewritten in place; the function object is not changed by a compiled
call (Python's would keep the attribute's last value: eager mode runs the function as
written and does keep it); fresh names never collide (`fresh`).
"""
from __future__ import annotations

import gast

from .gast_build import located as _located


def _uses(node, fname, attr):
    """The `F.attr` nodes under `node`."""
    return [n for n in gast.walk(node) if isinstance(n, gast.Attribute) and n.attr == attr
            and isinstance(n.value, gast.Name) and n.value.id == fname]


def rewrite(tree, itself, fresh):
    """Rewrite `tree`'s attributes of itself used as a call's variables (module docstring)."""
    fname = tree.name
    if not itself(fname):
        return
    attrs = {n.attr for n in gast.walk(tree) if isinstance(n, gast.Attribute)
             and isinstance(n.value, gast.Name) and n.value.id == fname}
    for attr in sorted(attrs):
        first = next(k for k, s in enumerate(tree.body) if _uses(s, fname, attr))
        s = tree.body[first]
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and _uses(s.targets[0], fname, attr) == [s.targets[0]]
                and not _uses(s.value, fname, attr)):
            continue
        uses = _uses(tree, fname, attr)
        if any(isinstance(n.ctx, gast.Del) for n in uses):
            continue
        local = fresh(f"{fname}_{attr}", f"{fname}.{attr}")
        _rename(tree, fname, attr, local)
        for d in gast.walk(tree):
            if isinstance(d, gast.FunctionDef) and d is not tree and any(
                    isinstance(n, gast.Name) and n.id == local for n in gast.walk(d)):
                d.body.insert(0, _located(gast.Nonlocal([local]), d.body[0]))


def _rename(node, fname, attr, local):
    """Each `F.attr` under `node` as the name `local`, in the same context."""
    for parent in gast.walk(node):
        for field, value in gast.iter_fields(parent):
            if isinstance(value, gast.Attribute) and _uses(value, fname, attr) == [value]:
                setattr(parent, field, gast.copy_location(
                    gast.Name(local, value.ctx, None, None), value))
            elif isinstance(value, list):
                for k, v in enumerate(value):
                    if isinstance(v, gast.Attribute) and _uses(v, fname, attr) == [v]:
                        value[k] = gast.copy_location(gast.Name(local, v.ctx, None, None), v)
