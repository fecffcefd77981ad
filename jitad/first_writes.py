"""Stage 4d — first writes: element writes that fill an array just made, marked as such.

Takes: a typed `Spec` (after `maps`).
Guarantees: a `SetItem` gets `init=True` (no statement reads what the element held before:
reverse mode neither tapes nor restores it, see `ir.SetItem`) when it is the loop `y[i] = v`
filling an array made by a constant maker just before:
    y = np.empty(shape)         (or np.zeros, np.ones, np.zeros_like(x), ... : no adjoint)
    ...                         (nothing mentions y but its shape: y.shape, len(y), zeros_like(y))
    for i in range(...):        (i not assigned in the body)
        ...
        y[i] = v                (at the body's top level; the body mentions y nowhere else)
Each iteration writes an element no earlier one wrote (`range` never repeats a value), and
nothing read y's values before, so every such write is an element's first. The maker has no
adjoint, so no cotangent left in `d_y[i]` would reach anything (reverse mode does not zero it).
This is what `maps` marks in the loops it makes; code that writes the loop itself -- the
user's `out = np.empty(n); for i in range(n): out[i] = ...`, or jitad's generated forward
code read again for second derivatives (`higher`), where the tangent function's loops fill
`h` and `d_h` -- gets the same adjoint: no tape of the old elements, no restores.
Invariants: the shared IR is never changed (the spec's `ir` is replaced by a copy with the
new flags, only if one changed); values computed are the same.
"""
from __future__ import annotations

import dataclasses

from . import ir
from .ir import Bind, For, Par, SetItem, Var
from .primitives import SHAPE, get

_LIKE = (get("zeros_like"), get("ones_like"), get("empty_like"))
_MAKERS = (get("empty"), get("zeros"), get("ones")) + _LIKE
_SHAPE_ONLY = (get("dim"), get("len")) + _LIKE


def first_writes(spec) -> bool:
    """Mark the first writes of `spec`'s IR (see the module doc); whether any was marked."""
    marked = set()
    for block in ir.blocks(spec.ir.body):
        for k, s in enumerate(block):
            for y in _made(s):
                w = _filling_write(block, k, y)
                if w is not None and not w.init:
                    marked.add(id(w))
    if not marked:
        return False
    spec.ir = dataclasses.replace(spec.ir, body=_copy(spec.ir.body, marked))
    return True


def _made(s):
    """The arrays statement `s` makes with a constant maker (no adjoint, a new array)."""
    binds = s.binds if isinstance(s, Par) else [s]
    return [b.target for b in binds if isinstance(b, Bind) and len(b.targets) == 1
            and b.op in _MAKERS and not b.op.adjoints]


def _mentions(s, y) -> bool:
    return any(y in ir.reads(x) or y in ir.writes(x) or y in ir.own_reads(x)
               for x in ir.walk([s]))


def _shape_only(s, y) -> bool:
    """Whether `s` reads y's shape alone (or does not mention y)."""
    if not _mentions(s, y):
        return True
    binds = s.binds if isinstance(s, Par) else [s]
    return all(isinstance(b, Bind) and (not _mentions(b, y) or (
        (b.op is SHAPE or b.op in _SHAPE_ONLY) and y not in b.targets)) for b in binds)


def _filling_write(block, k, y):
    """The first write filling y made at block[k] (see the module doc), or None."""
    for s in block[k + 1:]:
        if isinstance(s, For):
            return _write_in(s, y)
        if not _shape_only(s, y):
            return None
    return None


def _write_in(loop: For, y):
    if y in ir.own_reads(loop) or loop.var == y:
        return None
    if any(loop.var in ir.writes(x) for x in ir.walk(loop.body)):
        return None
    found = None
    for s in loop.body:
        if not _mentions(s, y):
            continue
        if found is not None or not isinstance(s, SetItem) or s.array != y \
                or tuple(s.index) != (Var(loop.var),) or y in ir.atom_names(s.value):
            return None
        found = s
    return found


def _copy(block, marked):
    out = []
    for s in block:
        if isinstance(s, SetItem) and id(s) in marked:
            s = dataclasses.replace(s, init=True)
        elif isinstance(s, For):
            s = dataclasses.replace(s, body=_copy(s.body, marked))
        elif isinstance(s, ir.If):
            s = dataclasses.replace(s, body=_copy(s.body, marked), orelse=_copy(s.orelse, marked))
        elif isinstance(s, ir.While):
            s = dataclasses.replace(s, cond=_copy(s.cond, marked), body=_copy(s.body, marked))
        out.append(s)
    return out
