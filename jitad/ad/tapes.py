"""Tapes: typed stacks the forward sweep pushes to and the adjoint pops from.

Takes: the pushes a function's forward sweep makes (value and type).
Guarantees: one float64, complex128, int64 and uint8 buffer with an integer top each (arrays go
to a list
per dtype and rank; the saved states of a split callee called in a loop or a branch to a list
per callee), code to create, grow (`rt.reserve`, by doubling), push and pop them, and
the limits that bound them at run time: `max_tape_bytes` (`$JITAD_MAX_TAPE_BYTES`) for a
`while` loop's tapes and `max_recursion` (`$JITAD_MAX_RECURSION`) for compiled recursion.
A push and the pop that undoes it may carry one `tag` (`Reverse` gives a bind target's its
statement and name): every node they make gets `jitad_tape = (tag, role)` -- role "push" (a
push's statements), "pop" (what moves the top: `top -= 1`, the list's `pop()` call) or "read"
(the assignment of the restored value) -- so `codegen` can drop a pair whose restored value
nothing reads (`unread_pairs`). A list's `[]` is marked `jitad_tape_list`: the numba back end's
module text pushes and pops it with Numba methods of its own (`codegen.tape_methods`), every
pass before sees list code.
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

    def push(self, value_expr, ty, tag=None):
        k = self.kind(ty)
        if k[0] == "a":
            lst = self.array_list(*k[1:])
            return _tagged([P.expr_stmt(P.call(P.dotted(f"{lst}.append"), value_expr))],
                           tag, "push"), None
        tape, top = self.buffer(k)
        return _tagged([P.assign(P.subscript(tape, [Var(top)], store=True), value_expr),
                        P.aug(top, P.const(1))], tag, "push"), k

    def pop(self, target, ty, tag=None):
        """Statements restoring `target` (a name or a store expression) from its tape."""
        k = self.kind(ty)
        if k[0] == "a":
            return self.pop_list(target, self.array_list(*k[1:]), tag)
        tape, top = self.buffer(k)
        val = P.subscript(tape, [Var(top)])
        if k == "b":
            val = P.call("bool", val)
        return _tagged([P.aug(top, P.const(1), ast.Sub())], tag, "pop") + \
            _tagged([P.assign(target, val)], tag, "read")

    def pop_list(self, target, lst, tag=None):
        """`target = lst.pop()`; with `keep`, the entry below the list's counter, the list
        unchanged."""
        if not self.keep:
            call = P.call(P.dotted(f"{lst}.pop"))
            _tagged([call], tag, "pop")
            return _tagged([P.assign(target, call)], tag, "read")
        if lst not in self.counters:
            self.counters[lst] = self.namer.fresh(f"n_{lst}")
        n = self.counters[lst]
        return _tagged([P.aug(n, P.const(1), ast.Sub())], tag, "pop") + \
            _tagged([P.assign(target, P.subscript(lst, [Var(n)]))], tag, "read")

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
            made = P.assign(lst, ast.List([], ast.Load()))
            made.jitad_tape_list = True     # its pushes and pops: `codegen.tape_methods`
            out.append(made)
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


def _tagged(nodes, tag, role):
    """`nodes`, each marked `jitad_tape = (tag, role)` (nothing without a tag)."""
    if tag is not None:
        for n in nodes:
            n.jitad_tape = (tag, role)
    return nodes


def unread_pairs(fdef) -> bool:
    """Remove from `fdef` every tagged push and pop (see `Tapes`) whose restored value nothing
    reads any more -- dead code removal took each "read" of the tag, leaving its pops moving
    the top (or popping the list) for nothing -- and say whether any went. A pair goes only
    whole: its statements are counted first (a buffer's push is two statements per pop, a
    list's one), and a tag whose counts do not match, or with a read left, stays."""
    roles = {}
    for node in ast.walk(fdef):
        mark = getattr(node, "jitad_tape", None)
        if mark is not None:
            roles.setdefault(mark[0], []).append((mark[1], node))
    dead = set()
    for tag, marks in roles.items():
        push = [n for r, n in marks if r == "push"]
        pops = [n for r, n in marks if r == "pop"]
        if not push or not pops or any(r == "read" for r, _ in marks):
            continue
        per = 1 if isinstance(push[0], ast.Expr) else 2        # a list's append; a buffer's two
        if len(push) == per * len(pops):
            dead.add(tag)
    if not dead:
        return False

    def gone(s):
        for n in (s, getattr(s, "value", None)):
            mark = getattr(n, "jitad_tape", None)
            if mark is not None and mark[0] in dead and mark[1] in ("push", "pop"):
                return True
        return False

    def strip(node):
        for field_name in ("body", "orelse"):
            block = getattr(node, field_name, None)
            if isinstance(block, list):
                kept = [s for s in block if not gone(s)]
                for s in kept:
                    strip(s)
                setattr(node, field_name, kept or ([ast.Pass()] if field_name == "body" else []))

    strip(fdef)
    return True


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
