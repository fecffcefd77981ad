"""A function's attribute used as a variable of one call (`f.count = 0` then `f.count += n`,
ADBench's `constructL.Lparamidx`), as the local it means (a `desugar` rewrite, at the user's
lines).

Takes: a captured function's `def` tree (gast), whether a global name is that function
(`itself(name)`) and a fresh-name maker (`fresh(base, shown)`).
Guarantees: an attribute `F.a` of the function `F` being captured (`F` its own name, not
shadowed, the global holding this very function) is rewritten to a fresh local `F_a` when a
statement of the function's body, outside any branch or loop, assigns it (`F.a = e`, e not
reading it) before any other statement mentions it, and no call in it may run `F` again
before it returns (`_may_reenter`: itself, another function of the user's): each `F.a` in
the function and in the
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

import inspect
import types

import gast

from .gast_build import located as _located


def _uses(node, fname, attr):
    """The `F.attr` nodes under `node`."""
    return [n for n in gast.walk(node) if isinstance(n, gast.Attribute) and n.attr == attr
            and isinstance(n.value, gast.Name) and n.value.id == fname]


def rewrite(tree, builtin, fresh):
    """Rewrite `tree`'s attributes of itself used as a call's variables (module docstring).
    `builtin.itself(name)`: the name is the function's own; `builtin.value(name)`: what a
    global name holds."""
    fname = tree.name
    if not builtin.itself(fname) or _may_reenter(tree, builtin.value):
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


def _may_reenter(tree, value) -> bool:
    """Whether a call in the function may run it again before it returns -- itself, a
    function of the user's (a global holding a Python function, or jitad's wrapper of one) or
    a function of a module of theirs: there Python's attribute is one value shared by every
    run, which a local per run would not be (a recursion reading the attribute its inner call
    set). Calls of the functions defined in it, builtins, and NumPy / SciPy / math are safe."""
    nested = {d.name for d in gast.walk(tree) if isinstance(d, gast.FunctionDef)}
    for call in gast.walk(tree):
        if not isinstance(call, gast.Call):
            continue
        root = call.func
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name):
            continue
        if root.id == tree.name:
            return True
        if root is call.func and root.id in nested:
            continue
        held = value(root.id)
        if isinstance(held, types.ModuleType):
            if held.__name__.split(".")[0] not in _LIBRARIES:
                return True
        elif inspect.isfunction(held) or hasattr(held, "__jitad_function__"):
            return True
    return False


_LIBRARIES = frozenset({"numpy", "scipy", "math", "cmath", "functools", "itertools", "operator",
                        "builtins"})


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
