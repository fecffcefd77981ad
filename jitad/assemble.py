"""Stage 4b' — assemble: an array written out from numbers is made by writing its elements.

Takes: a typed `Spec` (after `inline`, before `maps`).
Guarantees: `np.array([a, b, c])` of numbers -- which the front end reads as a stack of
one-element arrays joined by a concatenation (`stack_part` of each number, then `concat`) --
becomes one `np.empty(k)` and k element writes (`SetItem` with `init=True`: each element's
first write), computing the same vector: one allocation instead of k + 1, and an adjoint that
reads k numbers out of one cotangent instead of slicing it k times (`cross`'s three products,
a camera's parameters put back together). A matrix written out from numbers
(`np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])`: rows made as above, each given an
axis by `stack_part`, then joined) becomes one `np.empty((m, k))` and m * k element writes in
the same way: a rotation matrix is one allocation instead of 3 * 3 + 3 * 2 + 1, and a few
lines of Numba instead of a dozen concatenations of tuples. Other concatenations are left
as they are.
Invariants: the shared IR is never changed (the spec gets a new `ir.Function` only when an
array was rewritten); a part (a number's one-element array, a row, a row given its axis) is
removed only where every reader of it was rewritten; a number read by several rows (the
front end computes a repeated `0.0` once) is written into each.
"""
from __future__ import annotations

import dataclasses

from . import ir
from .ir import Bind, Const, For, If, SetItem, TupleA, While
from .primitives import CONCAT, get

_STACK_PART, _EMPTY = get("stack_part"), get("empty")
_NP_DTYPE = {"f8": "np.float64", "f4": "np.float32", "i8": "np.int64", "b1": "np.bool_"}


def assemble(spec) -> bool:
    """Rewrite the spec's vectors and matrices written out from numbers (see the module
    docstring)."""
    f = spec.ir
    reads = {}
    for s in ir.walk(f.body):
        for n in ir.own_reads(s):
            reads[n] = reads.get(n, 0) + 1
    changed = [False]

    def single(a, defs, op, axis=0):
        """The bind of `a` if it is made by `op` along `axis` in this block, else None."""
        d = defs.get(a.name) if hasattr(a, "name") else None
        if d is None or d.op is not op or d.statics.get("axis", 0) != axis:
            return None
        return d

    def number_part(a, defs):
        """(its bind, the number) of a one-element part (`stack_part` of a number), or None."""
        d = single(a, defs, _STACK_PART)
        if d is None:
            return None
        x = d.args[0]
        t = spec.types.get(x.name) if hasattr(x, "name") else None
        if isinstance(x, Const) or (t is not None and not getattr(t, "is_list", False)
                                    and getattr(t, "ndim", 1) == 0):
            return d, x
        return None

    def numbers_of(s, defs):
        """The (part bind, number) pairs a vector concatenation joins, or None."""
        if not (isinstance(s, Bind) and s.op is CONCAT and s.statics.get("axis", 0) == 0):
            return None
        parts = [number_part(a, defs) for a in s.args]
        return None if any(p is None for p in parts) else parts

    def rows_of(s, defs):
        """The rows (lists of (part bind, number)) and the binds they are made by, of a matrix
        concatenation whose every part is a row of numbers given its axis, read only there."""
        if not (isinstance(s, Bind) and s.op is CONCAT and s.statics.get("axis", 0) == 0):
            return None
        rows, binds = [], []
        for a in s.args:
            up = single(a, defs, _STACK_PART)
            if up is None or reads.get(a.name) != 1 or not hasattr(up.args[0], "name"):
                return None
            row = defs.get(up.args[0].name)
            numbers = numbers_of(row, defs) if row is not None else None
            if numbers is None or reads.get(row.target) != 1:
                return None
            rows.append(numbers)
            binds += [up, row]
        if len({len(r) for r in rows}) != 1:
            return None
        return rows, binds

    def block(stmts):
        defs = {s.target: s for s in stmts if isinstance(s, Bind) and len(s.targets) == 1}
        plan, made, used = {}, set(), {}
        for rank in (2, 1):         # matrices first: their rows are theirs, not vectors
            for s in stmts:
                t = spec.types.get(s.target) if isinstance(s, Bind) else None
                if t is None or getattr(t, "dtype", None) not in _NP_DTYPE \
                        or getattr(t, "ndim", None) != rank or id(s) in made:
                    continue
                if rank == 2:
                    got = rows_of(s, defs)
                    if got is None:
                        continue
                    rows, binds = got
                    plan[id(s)] = [((i, j), x) for i, r in enumerate(rows)
                                   for j, (_, x) in enumerate(r)]
                    made |= {id(b) for b in binds}
                    parts = [d for r in rows for d, _ in r]
                else:
                    numbers = numbers_of(s, defs)
                    if numbers is None:
                        continue
                    plan[id(s)] = [((k,), x) for k, (_, x) in enumerate(numbers)]
                    parts = [d for d, _ in numbers]
                for d in parts:
                    used[d.target] = used.get(d.target, 0) + 1
        # a part goes where every reader of it was rewritten
        drop = made | {id(defs[n]) for n, k in used.items() if reads.get(n) == k}
        out = []
        for s in stmts:
            if id(s) in drop and id(s) not in plan:
                continue
            if id(s) in plan:
                changed[0] = True
                cells = plan[id(s)]
                shape = tuple(max(ix[a] for ix, _ in cells) + 1 for a in range(len(cells[0][0])))
                out.append(Bind((s.target,), _EMPTY, (TupleA(tuple(Const(n) for n in shape)),),
                                s.loc, {"dtype": _NP_DTYPE[spec.types[s.target].dtype]}))
                for ix, x in cells:
                    out.append(SetItem(s.target, tuple(Const(i) for i in ix), x, s.loc,
                                       init=True, in_range=True))
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
