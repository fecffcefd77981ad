"""Slice objects: `sl = slice(h * dh, (h + 1) * dh)` then `Q[:, sl]`, and `x[slice(a, b, s)]`
(the part of ANF lowering that knows which names hold slices).

Takes: the `Normalizer` state (a mixin of it: `expr`, `expr_into`, `err`, `namer`, `locals`,
`resolve_func`).
Guarantees: a slice is not a value of the IR: it is replaced, where it is used, by the
`ir.Slice` it stands for. A name every assignment of which is `name = slice(...)`
(`slice_names`) gets one fresh variable per bound it has (`sl_start`, `sl_stop`, `sl_step`),
assigned where the name is assigned; a use `x[sl]` (in a read or a write, alone or among other
indices) is `x[sl_start:sl_stop]`. The bounds live exactly as long as the name's value (they
are assigned together, and only there), so the subscript sees the bounds the slice was made
with even when the variables its bounds were computed from change later. `slice(...)` written
in a subscript is that slice. A slice name used anywhere else (an operand, a helper's argument,
a return value), assigned anything but a `slice(...)` call, or assigned slices that differ in
which bounds are given (`slice(a, b)` here, `slice(a, b, 2)` there) is a `JitadError` at that
line.
Invariants: nothing here depends on types (the bounds are checked to be integers with the
subscript's).
"""
from __future__ import annotations

import builtins

import gast

from ..ir import Slice, Var

_PARTS = ("start", "stop", "step")


def own_nodes(tree):
    """The nodes of a function body, not descending into nested function definitions (or
    lambdas)."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (gast.FunctionDef, gast.Lambda)):
            todo.extend(gast.iter_child_nodes(node))


class SliceValues:
    def init_slices(self):
        """Find the names assigned `slice(...)` calls (see the module docstring)."""
        assigned = {}       # name -> [(node, which bounds are given)]
        for node in own_nodes(self.tree):
            if isinstance(node, gast.Assign) and self.is_slice_call(node.value):
                targets = node.targets[0]
                if not isinstance(targets, gast.Name):
                    self.err(node, "a slice is assigned to one name (sl = slice(a, b))",
                             "slice value")
                assigned.setdefault(targets.id, []).append((node, self.slice_bounds(node.value)))
        self.slices = {}
        for name, sites in assigned.items():
            given = [tuple(b is not None for b in bounds) for _, bounds in sites]
            for (node, _), g in zip(sites, given):
                if g != given[0]:
                    self.err(node, f"'{name}' is given slices with different bounds (one has a "
                                   "step, another not): use one form or two names",
                             "slice value")
            self.slices[name] = Slice(*(Var(self.namer.fresh(f"{name}_{part}")) if g else None
                                        for part, g in zip(_PARTS, given[0])))
            self.locals |= {a.name for a in (self.slices[name].lower, self.slices[name].upper,
                                             self.slices[name].step) if a is not None}
        for node in own_nodes(self.tree):
            bad = None
            if isinstance(node, gast.Assign) and not self.is_slice_call(node.value):
                bad = [n for n in gast.walk(node.targets[0]) if isinstance(n, gast.Name)
                       and isinstance(n.ctx, gast.Store)]
            elif isinstance(node, (gast.For, gast.AugAssign, gast.NamedExpr)):
                bad = [n for n in gast.walk(node.target) if isinstance(n, gast.Name)
                       and isinstance(n.ctx, gast.Store)]
            bad = [n for n in bad or () if n.id in self.slices]
            if bad:
                self.err(node, f"'{bad[0].id}' holds a slice elsewhere in this function; a "
                               "slice variable is only assigned slice(...)", "slice value")
        for p in self.params:
            if p in self.slices:
                self.err(self.tree, f"the parameter '{p}' is assigned a slice: use a new name "
                                    "for the slice", "slice value")

    def is_slice_call(self, node):
        return isinstance(node, gast.Call) and self.resolve_func(node.func) is builtins.slice

    def slice_bounds(self, call):
        """(start, stop, step) expressions of a slice(...) call (None where not given)."""
        if call.keywords or not 1 <= len(call.args) <= 3:
            self.err(call, "slice() takes one to three bounds: slice(stop), slice(start, stop) "
                           "or slice(start, stop, step)", "slice()")
        args = [None if isinstance(a, gast.Constant) and a.value is None else a
                for a in call.args]
        return (None, args[0], None) if len(args) == 1 else tuple(args + [None] * (3 - len(args)))

    def assign_slice(self, name, value, node):
        """sl = slice(a, b, s): its bounds to sl's variables."""
        for bound, var in zip(self.slice_bounds(value), (self.slices[name].lower,
                                                         self.slices[name].upper,
                                                         self.slices[name].step)):
            if var is not None:
                self.expr_into(bound, var.name)

    def slice_in_index(self, node, hint):
        """The `Slice` an index element means (a slice name, or slice(...) written there), or
        None when it is not a slice object."""
        if isinstance(node, gast.Name) and node.id in getattr(self, "slices", {}):
            return self.slices[node.id]
        if self.is_slice_call(node):
            return Slice(*(None if b is None else self.expr(b, hint)
                           for b in self.slice_bounds(node)))
        return None

    def slice_misuse(self, node):
        self.err(node, f"'{node.id}' is a slice: it is supported as an index (x[{node.id}], "
                       f"x[:, {node.id}]), not as a value", "slice value")
