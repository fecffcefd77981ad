"""Index bounds: which reads and writes `x[i]` are provably in range, and checks for the rest.

Takes: one typed `Spec` (its IR and types).
Guarantees: `Bounds.checks(s)` gives, for an indexing `Bind` (`getitem`) or a `SetItem`, the
statements to run before it so that every integer index (or index array) not proven in range
raises `IndexError` -- as Python would -- instead of reading or writing outside the array.
Numba checks no bounds: without these an index from the caller's data reads garbage, and a
write corrupts the heap. `Bounds.hoisted(loop)` gives the checks that cover a whole counted
loop at once, run before it; the accesses they cover get no per-iteration check.
Proof: an index is in range when it is the variable of a counted loop `for i in range(a, n)`
(or `i - c`) with constant `a >= c >= 0` and `n` the length of that axis: `x.shape[k]`,
`len(x)` or the size an array was created with (`np.zeros(n)`, `np.zeros_like(x)`), all of
whose names are assigned once. Hoisting: an index that is an affine function `c * i + d`
(constants) of the variable of a counted loop, at the top level of its body (so it runs on
every iteration) on an array the loop does not reassign, is checked at the two ends of the
range before the loop (the valid indices form an interval, so the ends suffice).
Invariants: checks only read; a failing check raises `IndexError(site, index, size)` where
`site` is "file.py:line:column", which `backend.run` turns into `errors.IndexOutOfRange` at the
user's line. Slices need no check (they clamp, in Python and in Numba).
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass

from . import ir
from . import pyast as P
from .ir import Bind, Const, For, SetItem, Slice, TupleA, Var
from .primitives import COPY, GETITEM, SHAPE, get
from .types import TupleTy

ADD, SUB, MUL, DIM, LEN = (get(n) for n in ("add", "sub", "mul", "dim", "len"))


@dataclass(frozen=True)
class Check:
    index: object      # atom: an int, an int variable, or an int index array
    array: str
    axis: int
    site: str          # "file.py:line:column"


@dataclass(frozen=True)
class RangeCheck:
    """Every value of `scale * i + offset` for `i` in the loop's range indexes the axis."""

    loop: For
    scale: int
    offset: int
    array: str
    axis: int
    site: str


def site_of(loc) -> str:
    return f"{os.path.basename(loc.filename)}:{loc.line}:{loc.col}"


class Bounds:
    def __init__(self, spec):
        self.types = spec.types
        self.shapes = getattr(spec, "shapes", None)
        self.params = set(spec.ir.params)
        self.sites: dict = {}      # name -> the statements that assign it
        for s in ir.walk(spec.ir.body):
            for t in ir.writes(s):
                self.sites.setdefault(t, []).append(s)
        self.covered: set = set()          # id(access statement) checked by a hoisted check
        self.loop_checks: dict = {}        # id(For) -> [RangeCheck]
        self._loop_of: dict = {}           # loop variable -> its For (assigned only there)
        for s in ir.walk(spec.ir.body):
            if isinstance(s, For) and self._once(s.var):
                self._loop_of[s.var] = s
        for s in ir.walk(spec.ir.body):
            if isinstance(s, For):
                self._hoist(s)

    # -- facts -------------------------------------------------------------------------
    def _once(self, name) -> bool:
        """Assigned exactly once (a parameter: never), so its value is one fact."""
        n = len(self.sites.get(name, []))
        return n == 0 if name in self.params else n == 1

    def _def(self, name):
        if name in self.params or not self._once(name):
            return None
        return self.sites[name][0]

    def size(self, atom):
        """A symbol for an integer's value, equal for provably equal values, or None."""
        if isinstance(atom, Const):
            return ("const", atom.value)
        if not isinstance(atom, Var) or not self._once(atom.name):
            return None
        s = self._def(atom.name)
        if isinstance(s, Bind):
            if s.op is DIM and isinstance(s.args[0], Var):
                return self.dim(s.args[0].name, s.args[1].value)
            if s.op is LEN and isinstance(s.args[0], Var):
                return self.dim(s.args[0].name, 0)
            if s.op is SHAPE and isinstance(s.args[0], Var):
                return self.dim(s.args[0].name, s.targets.index(atom.name))
            if s.op is COPY and len(s.targets) == 1:
                return self.size(s.args[0])
        return ("var", atom.name)

    def dim(self, arr, k):
        """A symbol for the length of axis k of array `arr`, or None."""
        if not self._once(arr):
            return None
        s = self._def(arr)
        if s is None:
            return ("dim", arr, k)
        if isinstance(s, Bind) and len(s.targets) == 1:
            if s.op.from_shape:
                shape = s.args[0]
                if isinstance(shape, TupleA):
                    return self.size(shape.items[k]) if k < len(shape.items) else None
                return self.size(shape) if k == 0 else None
            if s.op.keeps_shape and isinstance(s.args[0], Var):
                return self.dim(s.args[0].name, k)
        return ("dim", arr, k)

    def _affine(self, name, loop, body_top):
        """(scale, offset) if `name` is `scale * loop.var + offset`, else None."""
        if name == loop.var:
            return (1, 0)
        s = self._def(name)
        if not (isinstance(s, Bind) and any(s is x for x in body_top) and len(s.args) == 2):
            return None
        a, b = s.args
        if s.op in (ADD, SUB, MUL) and isinstance(b, Const) and isinstance(a, Var):
            base, c = self._affine(a.name, loop, body_top), b.value
        elif s.op in (ADD, MUL) and isinstance(a, Const) and isinstance(b, Var):
            base, c = self._affine(b.name, loop, body_top), a.value
        else:
            return None
        if base is None or not isinstance(c, int) or isinstance(c, bool):
            return None
        scale, offset = base
        if s.op is MUL:
            return scale * c, offset * c
        return scale, s.op.impl(offset, c)

    # -- what to check -----------------------------------------------------------------
    def _index_parts(self, s):
        if isinstance(s, SetItem):
            return s.array, s.index, s.loc
        if isinstance(s, Bind) and s.op is GETITEM and isinstance(s.args[0], Var) \
                and not isinstance(self.types.get(s.args[0].name), TupleTy):
            return s.args[0].name, s.args[1:], s.loc     # (a tuple's constant index is typed)
        return None

    def _proven(self, arr, axis, index):
        if not isinstance(index, Var):
            return False
        for loop in self._loops_of_index(index.name):
            aff = self._affine(index.name, loop, loop.body)
            if aff is None or aff[0] != 1:
                continue
            start, step = loop.start, loop.step
            if not (isinstance(start, Const) and isinstance(step, Const) and step.value > 0):
                continue
            offset = aff[1]
            if not (offset <= 0 and start.value + offset >= 0):
                continue
            n = self.size(loop.stop)
            if n is not None and n == self.dim(arr, axis):
                return True
            if self.shapes is not None:     # lengths provably equal (`shapes`)
                sh = self.shapes.of(arr)
                v = self.shapes.val(loop.stop)
                if sh is not None and v is not None and axis < len(sh) and sh[axis] == v:
                    return True
        return False

    def _loops_of_index(self, name):
        seen, out = set(), []
        stack = [name]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            if n in self._loop_of:
                out.append(self._loop_of[n])
            s = self._def(n)
            if isinstance(s, Bind) and s.op in (ADD, SUB, MUL):
                stack += [a.name for a in s.args if isinstance(a, Var)]
        return out

    def _hoist(self, loop: For):
        if not (self._once(loop.var) and isinstance(loop.step, Const)):
            return
        assigned = {t for x in ir.walk(loop.body) for t in ir.writes(x)}
        for s in loop.body:
            parts = self._index_parts(s)
            if parts is None or getattr(s, "in_range", False):
                continue
            arr, index, loc = parts
            if arr in assigned:
                continue
            todo = []
            for axis, a in self._axes(index):
                if not isinstance(a, Var) or self.types[a.name].ndim:
                    continue
                if self._proven(arr, axis, a):
                    continue
                aff = self._affine(a.name, loop, loop.body)
                if aff is None:
                    break           # another index of this access needs its own check
                todo.append(RangeCheck(loop, aff[0], aff[1], arr, axis, site_of(loc)))
            else:
                if todo:
                    self.loop_checks.setdefault(id(loop), []).extend(todo)
                    self.covered.add(id(s))

    @staticmethod
    def _axes(index):
        return [(k, a) for k, a in enumerate(index) if not isinstance(a, Slice)]

    def checks(self, s) -> list:
        """Statements checking the indices of one access (none when proven or hoisted)."""
        parts = self._index_parts(s)
        if parts is None or id(s) in self.covered or getattr(s, "in_range", False):
            return []
        arr, index, loc = parts
        out = []
        for axis, a in self._axes(index):
            if self._proven(arr, axis, a):
                continue
            if isinstance(a, Var) and self.types[a.name].dtype == "b1" and self.types[a.name].ndim:
                continue            # a mask: rt.mask_get/mask_put check its shape
            if isinstance(a, Var) and self.types[a.name].ndim:
                fn = "rt.check_indices"
            elif isinstance(a, Const) and self._const_in(arr, axis, a.value):
                continue
            else:
                fn = "rt.check_index"
            out.append(P.expr_stmt(P.call(fn, P.atom(a), self._dim(arr, axis), P.const(site_of(loc)))))
        return out

    def _const_in(self, arr, axis, k):
        size = self.dim(arr, axis)
        return size is not None and size[0] == "const" and -size[1] <= k < size[1]

    def hoisted(self, loop: For) -> list:
        """Statements to run before `loop`, covering its accesses' indices over the range."""
        out = []
        for c in self.loop_checks.get(id(loop), []):
            out.append(P.expr_stmt(P.call(
                "rt.check_range", P.atom(loop.start), P.atom(loop.stop), P.atom(loop.step),
                P.const(c.scale), P.const(c.offset), self._dim(c.array, c.axis), P.const(c.site))))
        return out

    def _dim(self, arr, axis):
        """The length of an axis in generated code (a list's: its len)."""
        if getattr(self.types.get(arr), "is_list", False):
            return P.call("len", P.name(arr))
        return P.subscript(ast.Attribute(P.name(arr), "shape", ast.Load()), [Const(axis)])
