"""Stage 4b' — assemble: a vector written out from numbers is made by writing its elements.

Takes: a typed `Spec` (after `inline`, before `maps`).
Guarantees: `np.array([a, b, c])` of numbers -- which the front end reads as a stack of
one-element arrays joined by a concatenation (`stack_part` of each number, then `concat`) --
becomes one `np.empty(k)` and k element writes (`SetItem` with `init=True`: each element's
first write), computing the same vector: one allocation instead of k + 1, and an adjoint that
reads k numbers out of one cotangent instead of slicing it k times (`cross`'s three products,
a camera's parameters put back together). Other concatenations are left as they are.
Invariants: the shared IR is never changed (the spec gets a new `ir.Function` only when a
vector was rewritten); a one-element part is rewritten only where the concatenation is its
only reader.
"""
from __future__ import annotations

import dataclasses

from . import ir
from .ir import Bind, Const, For, If, SetItem, TupleA, While
from .primitives import CONCAT, get

_STACK_PART, _EMPTY = get("stack_part"), get("empty")
_NP_DTYPE = {"f8": "np.float64", "f4": "np.float32", "i8": "np.int64", "b1": "np.bool_"}


def assemble(spec) -> bool:
    """Rewrite the spec's vectors written out from numbers (see the module docstring)."""
    f = spec.ir
    reads = {}
    for s in ir.walk(f.body):
        for n in ir.own_reads(s):
            reads[n] = reads.get(n, 0) + 1
    changed = [False]

    def part_of(a, defs):
        """(its bind, the number) of a one-element part only the concatenation reads, or None."""
        if not hasattr(a, "name") or reads.get(a.name) != 1:
            return None
        d = defs.get(a.name)
        if d is None or d.op is not _STACK_PART or d.statics.get("axis", 0) != 0:
            return None
        x = d.args[0]
        t = spec.types.get(x.name) if hasattr(x, "name") else None
        if isinstance(x, Const) or (t is not None and not getattr(t, "is_list", False)
                                    and getattr(t, "ndim", 1) == 0):
            return d, x
        return None

    def block(stmts):
        defs = {s.target: s for s in stmts if isinstance(s, Bind) and len(s.targets) == 1}
        out, drop = [], set()
        plan = {}
        for s in stmts:
            if isinstance(s, Bind) and s.op is CONCAT and s.statics.get("axis", 0) == 0:
                t = spec.types.get(s.target)
                parts = [part_of(a, defs) for a in s.args]
                if t is not None and getattr(t, "ndim", 0) == 1 and t.dtype in _NP_DTYPE \
                        and all(p is not None for p in parts):
                    plan[id(s)] = parts
                    drop |= {id(d) for d, _ in parts}
        for s in stmts:
            if id(s) in drop:
                continue
            if id(s) in plan:
                changed[0] = True
                parts = plan[id(s)]
                out.append(Bind((s.target,), _EMPTY, (TupleA((Const(len(parts)),)),), s.loc,
                                {"dtype": _NP_DTYPE[spec.types[s.target].dtype]}))
                for k, (_, x) in enumerate(parts):
                    out.append(SetItem(s.target, (Const(k),), x, s.loc, init=True, in_range=True))
                continue
            subs = ir.sub_blocks(s)
            if subs:
                new = [block(b) for b in subs]
                if isinstance(s, If):
                    s = dataclasses.replace(s, body=new[0], orelse=new[1])
                elif isinstance(s, While):
                    s = dataclasses.replace(s, cond=new[0], body=new[1])
                elif isinstance(s, For):
                    s = dataclasses.replace(s, body=new[0])
            out.append(s)
        return out

    body = block(f.body)
    if changed[0]:
        spec.ir = dataclasses.replace(f, body=body)
    return changed[0]
