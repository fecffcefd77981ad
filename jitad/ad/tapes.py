"""Tapes: typed stacks the forward sweep pushes to and the adjoint pops from.

Takes: the pushes a function's forward sweep makes (value and type).
Guarantees: one float64, complex128, int64 and uint8 buffer with an integer top each (arrays go
to a list
per dtype and rank; the saved states of a split callee called in a loop or a branch to a list
per callee), code to create, grow (`rt.reserve`, by doubling), push and pop them, and
the limits that bound them at run time: `max_tape_bytes` (`$JITAD_MAX_TAPE_BYTES`) for a
`while` loop's tapes and `max_recursion` (`$JITAD_MAX_RECURSION`) for compiled recursion.
With `keep` set (an adjoint sweep that runs several times on one forward's tapes: jacrev's
rows), a pop never changes a tape: a buffer's top is a local copy already, and a list is read
at a counter of its own (`n = len(lst)` at the sweep's start, `rewind`; then `n -= 1;
x = lst[n]`), so the next sweep finds every tape as the forward left it.
"""
from __future__ import annotations

import ast

from .. import pyast as P
from ..ir import Var

# a `while` loop reserves tape room for this many iterations at a time (`Reverse.chunked_while`)
TAPE_CHUNK = 64


class Tapes:
    """Names and push/pop code for the typed tapes of one generated function."""

    def __init__(self, namer):
        self.namer = namer
        self.buffers = {}   # kind -> (tape, top)
        self.lists = {}     # (dtype, ndim) -> list name
        self.keep = False   # pops leave the lists as they are (read at `counters`)
        self.counters = {}  # list name -> the local counting its unread entries (keep)

    SCALAR = {"f8": ("f", "np.float64"), "f4": ("f", "np.float64"), "i8": ("i", "np.int64"),
              "b1": ("b", "np.uint8"), "c16": ("c", "np.complex128")}

    def kind(self, ty):
        if ty.is_list:      # a list object (made again in a loop): on a list of lists
            return ("a", f"list_{ty.dtype}", ty.elem.ndim)
        if ty.ndim:
            return ("a", ty.dtype, ty.ndim)
        return self.SCALAR[ty.dtype][0]

    def buffer(self, k):
        if k not in self.buffers:
            self.buffers[k] = (self.namer.fresh(f"tape_{k}"), self.namer.fresh(f"top_{k}"))
        return self.buffers[k]

    def array_list(self, dtype, nd):
        key = (dtype, nd)
        if key not in self.lists:
            self.lists[key] = self.namer.fresh(f"tape_{dtype}_{nd}d")
        return self.lists[key]

    def states(self, fwd_name):
        """The list holding the states `fwd_name` (a split callee's forward half) returned at a
        call site in a loop or a branch; popped where its backward half is called."""
        key = ("states", fwd_name)
        if key not in self.lists:
            base = fwd_name[:-len("_fwd")] if fwd_name.endswith("_fwd") else fwd_name
            self.lists[key] = self.namer.fresh(f"states_{base}")
        return self.lists[key]

    def push(self, value_expr, ty):
        k = self.kind(ty)
        if k[0] == "a":
            lst = self.array_list(*k[1:])
            return [P.expr_stmt(P.call(P.dotted(f"{lst}.append"), value_expr))], None
        tape, top = self.buffer(k)
        return [P.assign(P.subscript(tape, [Var(top)], store=True), value_expr),
                P.aug(top, P.const(1))], k

    def pop(self, target, ty):
        """Statements restoring `target` (a name or a store expression) from its tape."""
        k = self.kind(ty)
        if k[0] == "a":
            return self.pop_list(target, self.array_list(*k[1:]))
        tape, top = self.buffer(k)
        val = P.subscript(tape, [Var(top)])
        if k == "b":
            val = P.call("bool", val)
        return [P.aug(top, P.const(1), ast.Sub()), P.assign(target, val)]

    def pop_list(self, target, lst):
        """`target = lst.pop()`; with `keep`, the entry below the list's counter, the list
        unchanged."""
        if not self.keep:
            return [P.assign(target, P.call(P.dotted(f"{lst}.pop")))]
        if lst not in self.counters:
            self.counters[lst] = self.namer.fresh(f"n_{lst}")
        n = self.counters[lst]
        return [P.aug(n, P.const(1), ast.Sub()), P.assign(target, P.subscript(lst, [Var(n)]))]

    def rewind(self):
        """(keep) The counters' start, before each run of the adjoint sweep: every list full."""
        return [P.assign(n, P.call("len", P.name(lst))) for lst, n in self.counters.items()]

    def init(self, counts):
        out = []
        for k, (tape, top) in self.buffers.items():
            dt = {"f": "np.float64", "i": "np.int64", "b": "np.uint8", "c": "np.complex128"}[k]
            out.append(P.assign(tape, P.call("np.empty", P.const(max(8, counts.get(k, 0))), P.dotted(dt))))
            out.append(P.assign(top, P.const(0)))
        for (_, _), lst in self.lists.items():
            out.append(P.assign(lst, ast.List([], ast.Load())))
        return out

    ITEM_BYTES = {"f": 8, "i": 8, "b": 1, "c": 16}
    LIST_ITEM_BYTES = 64    # an array pushed on a list: at least its header (its data unknown)

    def bytes_used(self):
        """An expression for the bytes the tapes hold now (arrays on lists counted at their
        header's size: a lower bound)."""
        terms = [P.binop(P.const(self.ITEM_BYTES[k]), ast.Mult(), P.name(top)) if self.ITEM_BYTES[k] > 1
                 else P.name(top) for k, (_, top) in sorted(self.buffers.items())]
        terms += [P.binop(P.const(self.LIST_ITEM_BYTES), ast.Mult(), P.call("len", P.name(lst)))
                  for _, lst in sorted(self.lists.items())]
        if not terms:
            return None
        out = terms[0]
        for t in terms[1:]:
            out = P.binop(out, ast.Add(), t)
        return out

    def reserve(self, counts, multiplier=None):
        out = []
        for k, n in sorted(counts.items()):
            if n == 0 or k not in self.buffers:
                continue
            tape, top = self.buffers[k]
            need = P.const(n) if multiplier is None else P.binop(multiplier, ast.Mult(), P.const(n))
            out.append(P.assign(tape, P.call("rt.reserve", P.name(tape),
                                             P.binop(P.name(top), ast.Add(), need))))
        return out


def _env_limit(name: str, default: int) -> int:
    import os
    text = os.environ.get(name, "").strip()
    return int(text) if text.isdigit() else default


def max_recursion() -> int:
    """How deep compiled recursion may go: `$JITAD_MAX_RECURSION`, else 20000 (deep enough for
    any recursion Python's default limit allows, shallow enough for the C stack)."""
    return _env_limit("JITAD_MAX_RECURSION", 20000)


def max_tape_bytes() -> int:
    """The most a `while` loop's tapes may hold: `$JITAD_MAX_TAPE_BYTES`, else 8 GiB (a fixed
    default, so generated code does not depend on the machine)."""
    return _env_limit("JITAD_MAX_TAPE_BYTES", 8 * 2 ** 30)
