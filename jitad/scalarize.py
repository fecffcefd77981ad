"""Stage 7c — scalarize: small arrays whose shape is known when the code is generated become
numbers, one per element.

Takes: a generated function (Python `ast.FunctionDef`, after `fuse`, before `codegen`'s
dead-code removal) and the types of the user's names (`typeinfer`).
Guarantees: the function computes the same values, and raises where it raised (a broadcast
error, an index out of range), with two additions: a slice with constant bounds of an array
whose length is not known (`cam[3:6]` of a parameter) is checked to be complete
(`rt.check_slice_end`: IndexError otherwise), since the code after it is written for its
length; an operand of a product with a known matrix or vector, of a length not known, is
checked to fit (`rt.check_length`: ValueError, as NumPy's, with another message). Where no
array becomes numbers, the function is left as it came (no check).
What changes: a rank-1 float64 array of 2 to `MAX_LEN` elements, made in the function
(`np.array([a, b, c])`, `X - cam[3:6]`, `np.zeros_like(w)`, a 3-vector's adjoint), used only
element by element, in elementwise arithmetic, `np.cross`, sums, dot products and 2-norms, and
accumulated into other arrays, is written as `MAX_LEN` or fewer local numbers (`w_1`, `w_1_1`,
`w_1_2` for `w`); a rank-2 float64 array of 2 to `MAX_ELEMENTS` elements (a 3 x 3 rotation, a
4 x 4 transform: `np.empty((3, 3))`, `np.eye(4)`, `np.zeros_like(R)`, a copy), read and
written by element, row (`R[i]`, `R[i, :]`, `R[:, j]`) or constant block (`T[:3, :3]`), in
elementwise arithmetic, `.T`, `np.sum`, and products (`rt.matmat`, `rt.matvec`, `rt.vecmat`,
`rt.outer`: the terms written out), is written as local numbers `R_0_0`, `R_0_1`, ... (row
by row). No allocation per call, and Numba keeps them in registers. Per call, a Rodrigues
rotation's vector-Jacobian product made some 40 such vectors (~40 ns each): the
bundle-adjustment residual of ADBench spent most of its time allocating; the hand-tracking
jvp built and multiplied 3 x 3 and 4 x 4 matrices 22 times (jacfwd x0.75 with them as
numbers). `MAX_ELEMENTS` is 16: a written-out product has rows x columns x inner terms, and
LLVM's time grows faster than that (grad of `M @ M.T @ M`, its first call: 3 x 3 and 4 x 4
about as before, 5 x 5 6 -> 22 s, 6 x 6 10 -> 59 s, for 20-30 % per call).

How:
1. *Shapes*: a name's length (rank 1) or shape (rank 2) is known when every assignment gives
   the same constant one: `np.empty((3,))`, `np.empty((3, 3))`, `np.eye(3)`,
   `np.zeros_like(x)` of a known `x`, `x.copy()`, a constant slice of a known array or
   (checked at run time) of any rank-1 array, a row or block of a known matrix, a product of
   known operands, elementwise arithmetic with a known operand of length > 1 (NumPy's
   broadcasting: the other is 1 or the same; for a matrix, an operand of unknown shape only
   against one with no axis of length 1). A matrix whose assignments read it (`M = M @ R` in a
   loop) has its shape guessed from the others and kept if every assignment then agrees. The
   function-level `w = np.empty(0, np.float64)` (`np.empty((0, 0), ...)`) that makes a name
   defined on every path (read only where its real assignment ran) does not count.
2. *Folding*: `x.shape[k]`, `len(x)`, `x.size` of a known `x`, integer names assigned once
   from constants, `rt.broadcast_step` of constants; then loops with a constant trip count of
   at most `MAX_LEN` that index a known array with their variable are unrolled.
3. *Candidates*: the known names (rank-1 float64 of length 2..MAX_LEN, rank-2 float64 of
   2..MAX_ELEMENTS elements, not parameters); a candidate is dropped when any statement uses it
   in a way not listed above (returned, pushed on a tape, passed to a function, indexed by a
   variable, ...), and the rewrite is retried until every statement is rewritten. A product of
   a candidate matrix and an array of unknown shape (`base[i] @ T`) becomes a new array filled
   by a loop over the array's free axis, the candidate's elements written out.
4. *Aliases*: `b = a`, `b = a[i:j]`, a row `b = A[0]`, `b = A.T` make `b` the same memory as
   `a` in NumPy; as numbers they are copies. Such a statement keeps `a` and `b` candidates
   only when neither, nor any name joined to them by such a statement anywhere in the
   function (`c = b.T`), is written after it (in program order) or anywhere in a loop around
   it.

Invariants: only float64 arrays are rewritten (a float32 array stays: its arithmetic would
change precision); sums, dot products and each element of a product add their terms in index
order, as Numba's loops and `rt.matmat`'s do; an array that stays an array reads and writes
elements it would have (through `rt.broadcast_step` where its length or shape is not known).
The kind (rank, dtype) of a generated name is read from its assignments; a jvp's tangent
`d_y` of `y, d_y = f_jvp(...)` has `y`'s. Off: `JITAD_NO_SCALARIZE=1`;
`JITAD_SCALARIZE_DEBUG=1` prints which statement keeps a candidate an array.
"""
from __future__ import annotations

import ast
import copy
import os

from . import pyast as P
from .names import Namer

MAX_LEN = 8
MAX_ELEMENTS = 16       # a matrix's elements (rows x columns): 3 x 3 and 4 x 4 become numbers

# elementwise functions of numbers: element k of f(x, y) is f(x[k], y[k])
_ELEMENTWISE = frozenset({
    "rt.divide", "rt.remainder", "rt.floor_divide", "np.sqrt", "np.exp", "np.log", "np.sin",
    "np.cos", "np.tan", "np.tanh", "np.sinh", "np.cosh", "np.arctan", "np.arcsin", "np.arccos",
    "np.abs", "np.absolute", "np.negative", "np.square", "np.log1p", "np.expm1", "np.maximum",
    "np.minimum", "np.sign", "np.floor", "np.ceil", "np.arctan2", "np.hypot", "np.power",
})
_SCALAR_RESULT = frozenset({"math", "float", "int", "abs", "min", "max", "len"})
# allocations and the number each element starts as (np.empty's: 0.0, never read before set)
_ALLOC = {"np.empty": 0.0, "np.zeros": 0.0, "np.ones": 1.0}
_LIKE = {"np.empty_like": 0.0, "np.zeros_like": 0.0, "np.ones_like": 1.0}
_COPY = frozenset({"np.copy", "np.ascontiguousarray"})
_ACCUM = frozenset({"rt.add_into", "rt.accum1", "rt.accum2"})
# products of small matrices and vectors, written out: the operands' ranks, the result's
_PRODUCTS = {"rt.matmat": (2, 2, 2), "rt.matvec": (2, 1, 1), "rt.vecmat": (1, 2, 1),
             "rt.outer": (1, 1, 2)}


class _Unsupported(Exception):
    """A statement uses a candidate in a way this pass does not rewrite."""


def scalarize(fdef, types):
    """Rewrite `fdef` in place (see the module docstring)."""
    if os.environ.get("JITAD_NO_SCALARIZE", "") not in ("", "0"):
        return fdef
    if not _has_constant_lengths(fdef):
        return fdef
    params = {a.arg for a in fdef.args.args}
    types = {**(types or {}), **getattr(fdef, "jitad_param_types", {})}
    kinds = _Kinds(fdef, types, params)
    lengths = _lengths(fdef, kinds, params)
    if not lengths and not lengths.shapes:
        return fdef
    while True:                      # folding shapes makes more lengths known (np.empty((n,)))
        variable = _variable_allocations(fdef)
        _fold(fdef, lengths)
        if not variable:
            break
        more = _lengths(fdef, kinds, params)
        if more.keys() <= lengths.keys() and more.shapes.keys() <= lengths.shapes.keys():
            break
        lengths = more
    _unroll(fdef, lengths)
    _fold(fdef, lengths)
    cands = {n for n, c in lengths.items()
             if n not in params and 2 <= c <= MAX_LEN and kinds.is_f8_vector(n)}
    cands |= {n for n, (r, c) in lengths.shapes.items()
              if n not in params and 2 <= r * c <= MAX_ELEMENTS and kinds.ndim.get(n) == 2
              and kinds.f8.get(n, False)}
    cands -= _returned(fdef)
    taken = {n.id for n in _walk(fdef) if isinstance(n, ast.Name)} | params
    places = _mutations(fdef.body)
    while cands:                    # each round drops every candidate some statement refused
        rw = _Rewrite(kinds, lengths, cands, taken, places, fdef.body)
        body = rw.block(fdef.body)
        if not rw.failed:
            fdef.body = body
            break
        if os.environ.get("JITAD_SCALARIZE_DEBUG"):
            for stmt, names in rw.reasons:
                print("scalarize", fdef.name, "drops", sorted(names), stmt)
        cands = cands - rw.failed
    unguarded = fdef.__dict__.pop("jitad_unguarded", None)
    fdef.__dict__.pop("jitad_guarded", None)
    if not cands and unguarded is not None:
        # no vector became numbers: the slices' checks (IndexError where NumPy gives a shorter
        # slice) would buy nothing
        fdef.body = unguarded
    return fdef


def _walk(node):
    """Every node under `node`, itself first, in `ast.walk`'s order (breadth first), without
    its generators (the pass walks much: several times faster)."""
    out, i = [node], 0
    while i < len(out):
        x = out[i]
        i += 1
        for f in x._fields:
            v = getattr(x, f, None)
            if isinstance(v, ast.AST):
                out.append(v)
            elif isinstance(v, list):
                out.extend(c for c in v if isinstance(c, ast.AST))
    return out


def _names_in(node):
    """Every name a node mentions (loaded or stored): `pyast.names_in`, by `_walk`."""
    return {n.id for n in _walk(node) if isinstance(n, ast.Name)}


def _copy(x):
    """A deep copy of an AST (node, list of nodes), several times faster than `copy.deepcopy`:
    contexts (`Load`, `Store`) and source locations are shared, being never changed."""
    if isinstance(x, list):
        return [_copy(v) for v in x]
    if isinstance(x, ast.AST) and not isinstance(x, ast.expr_context):
        new = x.__class__.__new__(x.__class__)
        new.__dict__ = {k: _copy(v) for k, v in x.__dict__.items()}
        return new
    return x


def _variable_allocations(fdef):
    """Whether an allocation's length is a name (folding may make it a constant)."""
    return any(isinstance(n, ast.Call) and _fname(n) in _ALLOC and n.args
               and not isinstance(n.args[0], ast.Constant)
               and any(isinstance(x, ast.Name) for x in _walk(n.args[0]))
               for n in _walk(fdef))


def _has_constant_lengths(fdef):
    """Whether anything in fdef can give a vector a constant length (an allocation or a slice
    with constant bounds): most functions have none, and are left at once."""
    for node in _walk(fdef):
        if isinstance(node, ast.Slice) and node.upper is not None and _const_int(node.upper) is not None:
            return True
        if isinstance(node, ast.Call) and (_fname(node) in _ALLOC and node.args
                                           and not _placeholder(node) or _fname(node) == "np.eye"):
            return True
    return False


# ---------------------------------------------------------------- kinds of names
class _Kinds:
    """Rank and dtype of each name: the user's from `types`, generated ones from the
    expressions assigned to them (None: not known, never rewritten)."""

    def __init__(self, fdef, types, params):
        self.ndim, self.f8, self.cplx = {}, {}, set()
        types = types or {}
        for n, ty in types.items():
            if hasattr(ty, "ndim") and hasattr(ty, "dtype"):
                self.ndim[n], self.f8[n] = ty.ndim, ty.dtype == "f8"
                if ty.dtype == "c16":
                    self.cplx.add(n)
        assigns, other, stores, pairs = {}, set(), {}, {}
        for node in _walk(fdef):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                assigns.setdefault(node.targets[0].id, []).append(node.value)
            elif not isinstance(node, ast.AugAssign):     # x += e keeps x's kind
                stored = _stored_names(node)
                other.update(stored)
                for n in stored:
                    stores[n] = stores.get(n, 0) + 1
                t = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    else None
                if isinstance(t, ast.Tuple) and len(t.elts) == 2 \
                        and all(isinstance(x, ast.Name) for x in t.elts) \
                        and t.elts[1].id == "d_" + t.elts[0].id:
                    pairs.setdefault(t.elts[1].id, []).append(t.elts[0].id)
        for n in other - set(types):
            self.ndim[n] = None
        # `y, d_y = f_jvp(...)`: a tangent has its value's kind (the generated names only)
        for n, values in pairs.items():
            v = values[0]
            if n not in types and stores[n] == len(values) and v in types and hasattr(types[v], "ndim"):
                self.ndim[n], self.f8[n] = self.ndim.get(v), self.f8.get(v, False)
                if v in self.cplx:
                    self.cplx.add(n)
        for node in _walk(fdef):         # `for i in range(...)`: i is an int
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name) \
                    and isinstance(node.iter, ast.Call) and _fname(node.iter) == "range" \
                    and node.target.id not in types and node.target.id not in assigns:
                self.ndim[node.target.id] = 0
        infer = sorted(n for n in assigns if n not in types and n not in params and n not in other)
        for n in infer:             # optimistic: `acc = acc + x` has x's rank
            self.ndim[n] = _PENDING
        for _ in range(8):
            before = [(self.ndim[n], self.f8.get(n)) for n in infer]
            for n in infer:
                got = {self.expr_ndim(v) for v in assigns[n] if not _placeholder(v)} - {_PENDING}
                self.ndim[n] = (got.pop() if len(got) == 1 else None) if got else _PENDING
                self.f8[n] = all(self.expr_f8(v) for v in assigns[n] if not _placeholder(v))
            if before == [(self.ndim[n], self.f8.get(n)) for n in infer]:
                break
        for n in infer:
            if self.ndim[n] == _PENDING:
                self.ndim[n] = None

    def is_f8_vector(self, n):
        return self.ndim.get(n) == 1 and self.f8.get(n, False)

    def expr_ndim(self, e):
        if isinstance(e, ast.Constant):
            return 0 if isinstance(e.value, (int, float)) else None
        if isinstance(e, ast.Name):
            return self.ndim.get(e.id)
        if isinstance(e, ast.BinOp):
            return _join([self.expr_ndim(e.left), self.expr_ndim(e.right)])
        if isinstance(e, ast.UnaryOp):
            return self.expr_ndim(e.operand)
        if isinstance(e, ast.Subscript):
            base = self.expr_ndim(e.value)
            if base is None or base == _PENDING:
                return base
            parts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
            if any(not isinstance(p, ast.Slice) and self.expr_ndim(p) not in (0, _PENDING)
                   for p in parts):
                return None
            return base - sum(not isinstance(p, ast.Slice) for p in parts)
        if isinstance(e, ast.Call):
            fn = _fname(e)
            if fn is None:
                return None
            if fn.split(".")[0] in _SCALAR_RESULT or fn == "rt.dot1" \
                    or fn in ("np.sum", "np.linalg.norm") and len(e.args) == 1 and not e.keywords:
                return 0
            if fn == "np.dot" and len(e.args) == 2 and all(self.expr_ndim(a) == 1 for a in e.args):
                return 0
            if fn in _ELEMENTWISE:
                return _join([self.expr_ndim(a) for a in e.args])
            if fn == "np.cross" and len(e.args) == 2 and not e.keywords:
                return 1 if all(self.expr_ndim(a) in (1, _PENDING) for a in e.args) else None
            if fn in _ALLOC:
                shape = e.args[0] if e.args else None
                if isinstance(shape, ast.Tuple):
                    return len(shape.elts)
                return 1 if isinstance(shape, (ast.Constant, ast.Name)) else None
            if fn in _LIKE or fn in _COPY:
                return self.expr_ndim(e.args[0]) if len(e.args) == 1 else None
            if fn.endswith(".copy") and not e.args:
                return self.expr_ndim(e.func.value)
            if fn in _PRODUCTS and len(e.args) == 2 and not e.keywords:
                want = _PRODUCTS[fn]
                got = tuple(self.expr_ndim(a) for a in e.args)
                if all(g == w or g == _PENDING for g, w in zip(got, want[:2])):
                    return want[2]
                return None
            if fn == "np.eye" and _eye_n(e) is not None:
                return 2
            if fn == "np.transpose" and len(e.args) == 1 and not e.keywords:
                nd = self.expr_ndim(e.args[0])
                return nd if nd in (1, 2, _PENDING) else None
        if isinstance(e, ast.Attribute) and e.attr == "T":
            nd = self.expr_ndim(e.value)
            return nd if nd in (1, 2, _PENDING) else None
        return None

    def expr_f8(self, e):
        """Whether an array expression is float64 (scalars: whether they could make it not)."""
        if isinstance(e, ast.Constant):
            return isinstance(e.value, (int, float))
        if isinstance(e, ast.Name):
            if self.ndim.get(e.id) == 0:
                return e.id not in self.cplx
            return self.f8.get(e.id, False)
        if isinstance(e, ast.BinOp):
            return self.expr_f8(e.left) and self.expr_f8(e.right) and (
                self._f8_array(e.left) or self._f8_array(e.right))
        if isinstance(e, ast.UnaryOp):
            return self.expr_f8(e.operand)
        if isinstance(e, ast.Subscript):
            return self.expr_f8(e.value)
        if isinstance(e, ast.Call):
            fn = _fname(e)
            if fn in _ALLOC:
                dt = [k.value for k in e.keywords if k.arg == "dtype"] + e.args[1:2]
                return not dt or ast.unparse(dt[0]) in ("np.float64", "float")
            if fn in _LIKE or fn in _COPY:
                return len(e.args) == 1 and not e.keywords and self.expr_f8(e.args[0])
            if fn is not None and fn.endswith(".copy"):
                return self.expr_f8(e.func.value)
            if fn in _ELEMENTWISE or fn == "np.cross":
                return all(self.expr_f8(a) for a in e.args) and any(self._f8_array(a) for a in e.args)
            if fn in _PRODUCTS or fn == "np.transpose":
                return all(self._f8_array(a) for a in e.args)
            if fn == "np.eye":
                return _eye_n(e) is not None
        if isinstance(e, ast.Attribute) and e.attr == "T":
            return self.expr_f8(e.value)
        return False

    def _f8_array(self, e):
        return (self.expr_ndim(e) or 0) >= 1 and self.expr_f8(e)


_PENDING = -1      # a rank not inferred yet (see _Kinds)


def _join(dims):
    """The rank of an elementwise result: the largest, None if one is unknown."""
    if not dims or None in dims:
        return None
    known = [d for d in dims if d != _PENDING]
    return max(known) if known else _PENDING


def _eye_n(call):
    """n for `np.eye(n)` (float64, n a constant), else None."""
    kw = {k.arg: k.value for k in call.keywords}
    if len(call.args) != 1 or set(kw) - {"dtype"} or \
            ("dtype" in kw and ast.unparse(kw["dtype"]) not in ("np.float64", "float")):
        return None
    return _const_int(call.args[0])


def _fname(call):
    f, parts = call.func, []
    while isinstance(f, ast.Attribute):     # a dotted name (most): without ast.unparse's cost
        parts.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        parts.append(f.id)
        return ".".join(reversed(parts))
    try:
        return ast.unparse(call.func)
    except Exception:   # noqa: BLE001 -- an odd callee: not one of ours
        return None


def _placeholder(v):
    """`np.empty(0, np.float64)` (`np.empty((0, 0), ...)` for a matrix): a name defined on
    every path, read only where it is set."""
    if not (isinstance(v, ast.Call) and _fname(v) == "np.empty" and v.args):
        return False
    shape = v.args[0]
    dims = shape.elts if isinstance(shape, ast.Tuple) and len(shape.elts) == 2 else [shape]
    return all(isinstance(d, ast.Constant) and d.value == 0 for d in dims)


# ---------------------------------------------------------------- lengths
def _const_int(e):
    v = P._num(e)
    return v if isinstance(v, int) else None


def _slice_len(s, n):
    """The length of x[s] for len(x) == n (None: not a constant slice)."""
    lo = 0 if s.lower is None else _const_int(s.lower)
    hi = n if s.upper is None else _const_int(s.upper)
    st = 1 if s.step is None else _const_int(s.step)
    if lo is None or hi is None or st != 1 or n is None:
        return None
    return len(range(n)[lo:hi])


def _guarded_slice(s):
    """For x[lo:hi] with 0 <= lo <= hi constants: (hi - lo, hi), else None."""
    if s.step is not None and _const_int(s.step) != 1:
        return None
    lo = 0 if s.lower is None else _const_int(s.lower)
    hi = None if s.upper is None else _const_int(s.upper)
    if lo is None or hi is None or lo < 0 or hi < lo:
        return None
    return hi - lo, hi


def _lengths(fdef, kinds, params):
    """name -> its constant length, for rank-1 names every assignment of which agrees."""
    assigns, bad = {}, set(params)
    top = {id(s) for s in fdef.body}
    for node in _walk(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            if not (_placeholder(node.value) and id(node) in top):
                assigns.setdefault(node.targets[0].id, []).append(node)
        elif not isinstance(node, ast.AugAssign):         # x += e keeps x's length
            bad.update(_stored_names(node))
    lengths, guards = _Lengths(), {}
    shapes = lengths.shapes
    changed = True
    while changed:
        changed = False
        for n, nodes in assigns.items():
            if n in bad or n in lengths or n in shapes or kinds.ndim.get(n) not in (1, 2):
                continue
            if kinds.ndim[n] == 2:
                got = {_shape(s.value, lengths, kinds) for s in nodes}
                if len(got) == 1 and None not in got:
                    shapes[n] = got.pop()
                    changed = True
                continue
            got = {_length(s.value, lengths, kinds) for s in nodes}
            if len(got) == 1 and None not in got:
                lengths[n] = got.pop()
                changed = True
    # a matrix whose assignments read it (`M = M @ R` in a loop): its shape guessed from the
    # others, kept if every assignment then gives that shape (guesses dropped until they hold)
    open_ = [n for n in assigns if n not in bad and n not in shapes and kinds.ndim.get(n) == 2]
    never = set()
    while open_:
        guess, grew = {}, True
        while grew:                 # guesses from guesses (`T = M @ R; M = T`)
            grew = False
            for n in open_:
                if n in guess or n in never:
                    continue
                got = {_shape(s.value, lengths, kinds) for s in assigns[n]} - {None}
                if len(got) == 1:
                    guess[n] = shapes[n] = got.pop()
                    grew = True
        wrong = {n for n in guess if any(_shape(s.value, lengths, kinds) != guess[n]
                                         for s in assigns[n])}
        if not wrong:
            break
        for n in guess:
            del shapes[n]
        never |= wrong
    for n in lengths:
        for s in assigns[n]:
            v = s.value
            if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) \
                    and v.value.id not in lengths and isinstance(v.slice, ast.Slice):
                guards[id(s)] = (v.value.id, _guarded_slice(v.slice)[1])
    done = getattr(fdef, "jitad_guarded", set())
    guards = {k: v for k, v in guards.items() if k not in done}
    if guards:
        if not done:                # the function before any check: kept in case none pays
            fdef.jitad_unguarded = _copy(fdef.body)
        fdef.jitad_guarded = done | set(guards)
        _insert_guards(fdef, guards)
    return lengths


class _Lengths(dict):
    """name -> the constant length of a rank-1 name; `shapes`: name -> the constant shape
    (rows, columns) of a rank-2 one."""

    def __init__(self):
        super().__init__()
        self.shapes = {}


def _length(e, lengths, kinds):
    """The constant length of a rank-1 expression, or None."""
    if isinstance(e, ast.Name):
        return lengths.get(e.id)
    if isinstance(e, ast.Subscript) and kinds.expr_ndim(e.value) == 2:
        sel = _select(e, lengths, kinds)           # a row or a column of a known matrix
        return None if sel is None or sel[1] is None or len(sel[1]) != 1 else sel[1][0]
    if isinstance(e, ast.Attribute) and e.attr == "T":
        return _length(e.value, lengths, kinds) if kinds.expr_ndim(e.value) == 1 else None
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice):
        if isinstance(e.value, ast.Name) and e.value.id in lengths:
            return _slice_len(e.slice, lengths[e.value.id])
        if kinds.expr_ndim(e.value) == 1 and isinstance(e.value, ast.Name):
            g = _guarded_slice(e.slice)
            return None if g is None else g[0]
        return None
    if isinstance(e, ast.Call):
        fn = _fname(e)
        if fn in _ALLOC and e.args:
            shape = e.args[0]
            if isinstance(shape, ast.Tuple) and len(shape.elts) == 1:
                shape = shape.elts[0]
            return _const_int(shape)
        if (fn in _LIKE or fn in _COPY) and len(e.args) == 1:
            return _length(e.args[0], lengths, kinds)
        if fn is not None and fn.endswith(".copy") and not e.args:
            return _length(e.func.value, lengths, kinds)
        if fn in _ELEMENTWISE:
            return _broadcast([a for a in e.args], lengths, kinds)
        if fn == "np.cross" and len(e.args) == 2 and not e.keywords \
                and 3 in {_length(a, lengths, kinds) for a in e.args}:
            return 3                # of 3-vectors (an operand of another length raises)
        if fn in ("rt.matvec", "rt.vecmat") and len(e.args) == 2 and not e.keywords:
            return _product_shape(fn, e.args, lengths, kinds)
        if fn == "np.transpose" and len(e.args) == 1 and not e.keywords:
            return _length(e.args[0], lengths, kinds)
        return None
    if isinstance(e, ast.BinOp):
        return _broadcast([e.left, e.right], lengths, kinds)
    if isinstance(e, ast.UnaryOp):
        return _length(e.operand, lengths, kinds)
    return None


def _shape(e, lengths, kinds):
    """The constant shape (rows, columns) of a rank-2 float64 expression, or None."""
    if kinds.expr_ndim(e) != 2:
        return None
    if isinstance(e, ast.Name):
        return lengths.shapes.get(e.id)
    if isinstance(e, ast.Attribute) and e.attr == "T":
        s = _shape(e.value, lengths, kinds)
        return None if s is None else s[::-1]
    if isinstance(e, ast.Subscript):
        sel = _select(e, lengths, kinds)
        return None if sel is None or sel[1] is None or len(sel[1]) != 2 else sel[1]
    if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
        return _broadcast2([e.left, e.right], lengths, kinds)
    if isinstance(e, ast.UnaryOp):
        return _shape(e.operand, lengths, kinds)
    if isinstance(e, ast.Call):
        fn = _fname(e)
        if fn in _ALLOC and e.args and isinstance(e.args[0], ast.Tuple) \
                and len(e.args[0].elts) == 2:
            got = tuple(_const_int(x) for x in e.args[0].elts)
            return None if None in got or min(got) < 0 else got
        if fn == "np.eye":
            n = _eye_n(e)
            return None if n is None or n < 0 else (n, n)
        if (fn in _LIKE or fn in _COPY) and len(e.args) == 1 and not e.keywords:
            return _shape(e.args[0], lengths, kinds)
        if fn is not None and fn.endswith(".copy") and not e.args:
            return _shape(e.func.value, lengths, kinds)
        if fn == "np.transpose" and len(e.args) == 1 and not e.keywords:
            s = _shape(e.args[0], lengths, kinds)
            return None if s is None else s[::-1]
        if fn in _ELEMENTWISE and not e.keywords:
            return _broadcast2(e.args, lengths, kinds)
        if fn in ("rt.matmat", "rt.outer") and len(e.args) == 2 and not e.keywords:
            return _product_shape(fn, e.args, lengths, kinds)
    return None


def _product_shape(fn, args, lengths, kinds):
    """The result's shape (a length for a vector) of a product of operands of known shapes
    whose inner lengths agree; None otherwise (the array code raises NumPy's error)."""
    want = _PRODUCTS[fn]
    dims = []
    for a, nd in zip(args, want):
        if kinds.expr_ndim(a) != nd:
            return None
        d = _shape(a, lengths, kinds) if nd == 2 else (_length(a, lengths, kinds),)
        if d is None or (None in d and not (fn != "rt.outer" and isinstance(a, ast.Name)
                                            and kinds.f8.get(a.id, False))):
            return None     # (rt.outer: both lengths needed)
        dims.append(d)
    if fn == "rt.outer":
        return (dims[0][0], dims[1][0])
    # a vector (a name) of a length not known against a known matrix: checked to fit
    if fn == "rt.matvec" and dims[1] == (None,):
        dims[1] = (dims[0][1],)
    if fn == "rt.vecmat" and dims[0] == (None,):
        dims[0] = (dims[1][0],)
    if dims[0][-1] != dims[1][0]:
        return None
    out = dims[0][:-1] + dims[1][1:]
    return out if len(out) == 2 else out[0]


def _broadcast2(operands, lengths, kinds):
    """The shape of an elementwise result with a rank-2 operand: every rank-2 operand of one
    known shape, every vector of the columns' length (or 1); an operand of unknown shape only
    against a known one without axes of length 1 (NumPy's broadcasting: it is that shape or
    raises)."""
    known, unknown = set(), False
    vectors = []
    for a in operands:
        nd = kinds.expr_ndim(a)
        if nd is None or nd > 2 or nd == _PENDING:
            return None
        if nd == 2:
            s = _shape(a, lengths, kinds)
            if s is None:
                if not (isinstance(a, ast.Name) and kinds.f8.get(a.id, False)):
                    return None
                unknown = True
            else:
                known.add(s)
        elif nd == 1:
            vectors.append(_length(a, lengths, kinds))
    if len(known) != 1:
        return None
    s = known.pop()
    if (unknown or None in vectors) and min(s) < 2:
        return None
    if any(v is not None and v not in (1, s[1]) for v in vectors):
        return None
    return s


def _select(e, lengths, kinds):
    """For a subscript of a rank-2 name of known shape with constant indices and slices (step
    1 or none): (the flat indices it reads, its shape: () an element, (n,) a row or column,
    (r, c) a block); None otherwise."""
    if not isinstance(e.value, ast.Name) or e.value.id not in lengths.shapes:
        return None
    r, c = lengths.shapes[e.value.id]
    parts = list(e.slice.elts) if isinstance(e.slice, ast.Tuple) else [e.slice]
    if len(parts) == 1:
        parts.append(ast.Slice(None, None, None))
    if len(parts) != 2:
        return None
    axes, shape = [], []
    for p, n in zip(parts, (r, c)):
        if isinstance(p, ast.Slice):
            if (p.step is not None and _const_int(p.step) != 1) \
                    or any(b is not None and _const_int(b) is None for b in (p.lower, p.upper)):
                return None
            idx = list(range(n))[_slice_obj(p)]
            axes.append(idx)
            shape.append(len(idx))
        else:
            k = _const_int(p)
            if k is None or not -n <= k < n:
                return None
            axes.append([k % n])
    return [i * c + j for i in axes[0] for j in axes[1]], tuple(shape)


def _broadcast(operands, lengths, kinds):
    known = []
    for a in operands:
        nd = kinds.expr_ndim(a)
        if nd is None or nd > 1:
            return None
        if nd == 1:
            known.append(_length(a, lengths, kinds))
    fixed = {c for c in known if c is not None and c != 1}
    if len(fixed) == 1:
        return fixed.pop()
    if None in known or fixed:
        return None
    return 1 if known else None


# ---------------------------------------------------------------- folding and unrolling
class _Folder(ast.NodeTransformer):
    def __init__(self, lengths, ints):
        self.lengths, self.ints = lengths, ints
        self.shapes = getattr(lengths, "shapes", {})
        self.hits = 0               # names replaced by their constant

    def visit_Subscript(self, node):
        self.generic_visit(node)
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape" and isinstance(v.value, ast.Name):
            k = _const_int(node.slice)
            if v.value.id in self.lengths and k == 0:
                return ast.Constant(self.lengths[v.value.id])
            shape = self.shapes.get(v.value.id)
            if shape is not None and k in (0, 1):
                return ast.Constant(shape[k])
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "size" and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.value.id in self.lengths:
                return ast.Constant(self.lengths[node.value.id])
            if node.value.id in self.shapes:
                r, c = self.shapes[node.value.id]
                return ast.Constant(r * c)
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.ints:
            self.hits += 1
            return P.const(self.ints[node.id])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = _fname(node)
        if fn == "len" and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            if node.args[0].id in self.lengths:
                return ast.Constant(self.lengths[node.args[0].id])
            if node.args[0].id in self.shapes:
                return ast.Constant(self.shapes[node.args[0].id][0])
        if fn == "rt.broadcast_dim" and len(node.args) == 2:
            a, b = (_const_int(x) for x in node.args)
            if a is not None and b is not None and (a == b or 1 in (a, b)):
                return ast.Constant(a if b == 1 else b)
        if fn == "rt.broadcast_step" and len(node.args) == 2:
            d, n = (_const_int(a) for a in node.args)
            if d is not None and n is not None and (d == n or d == 1):
                return ast.Constant(1 if d == n else 0)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return P.fold(node)


def _fold_broadcast_dims(block, changed):
    """`n = rt.broadcast_dim(c, m)` with a constant c != 1 -> `rt.check_broadcast(m, c)` (the
    same check: m is c or 1) and `n = c`."""
    def fold(s):
        v = getattr(s, "value", None)
        if isinstance(s, ast.Expr) and isinstance(v, ast.Constant):
            changed[0] = True
            return []                # a check folded away (`rt.broadcast_step(3, 3)`)
        if isinstance(s, ast.Assign) and isinstance(v, ast.Call) and _fname(v) == "rt.broadcast_dim" \
                and len(v.args) == 2:
            a, b = (_const_int(x) for x in v.args)
            c, other = (a, v.args[1]) if a is not None and a != 1 else (b, v.args[0])
            if c is not None and c != 1:
                s.value = ast.Constant(c)
                changed[0] = True
                return [ast.Expr(P.call("rt.check_broadcast", other, ast.Constant(c))), s]
        return [s]
    return _map_blocks(block, fold)


def _fold(fdef, lengths):
    """Fold shapes of known names, broadcasts of constants and integer names holding
    constants (forward, in program order); twice, since a folded broadcast makes a constant."""
    for _ in range(3):
        _propagate_ints(fdef.body, {}, lengths)
        changed = [False]
        fdef.body = _fold_broadcast_dims(fdef.body, changed)
        # a name bound once, to a constant, holds it wherever it is read (a step set in the
        # forward's branch, read in the adjoint's branch of the same condition)
        stores = {a.arg: 1 for a in fdef.args.args}     # a parameter holds the caller's value
        consts = {}
        for node in _statements(fdef.body):
            for n in _stored_names(node):
                stores[n] = stores.get(n, 0) + 1
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                c = _const_int(node.value)
                if c is not None:
                    consts[node.targets[0].id] = c
        ints = {n: c for n, c in consts.items() if stores.get(n) == 1}
        if ints:
            folder = _Folder(lengths, ints)
            folder.visit(fdef)
            changed[0] = changed[0] or folder.hits > 0
        if not changed[0]:
            return


def _propagate_ints(block, env, lengths):
    """Forward substitution of `t = <int constant>` (`n = x.shape[0]` of a known x, an
    unrolled loop's `at = 2 * step`), shapes of known names folded on the way: a name's
    constant holds until it is stored again; a compound statement sees the constants before
    it and forgets every name it stores."""
    for s in block:
        if isinstance(s, (ast.If, ast.For, ast.While)):
            stored = _block_stores([s])
            inner = {k: v for k, v in env.items() if k not in stored} \
                if isinstance(s, (ast.For, ast.While)) else dict(env)
            # an `if` test and a `for` iterable are read once, before the body; a `while`
            # test again after each pass through it: only what the body leaves alone
            head = "test" if hasattr(s, "test") else "iter"
            seen = inner if isinstance(s, ast.While) else env
            setattr(s, head, _Folder(lengths, seen).visit(getattr(s, head)))
            _propagate_ints(s.body, dict(inner), lengths)
            _propagate_ints(s.orelse, dict(inner), lengths)
            for n in stored:
                env.pop(n, None)
            continue
        if isinstance(s, ast.FunctionDef):
            continue
        for field, value in ast.iter_fields(s):
            if isinstance(value, ast.expr) and not (isinstance(s, (ast.Assign, ast.AugAssign))
                                                    and field in ("targets", "target")
                                                    and isinstance(value, ast.Name)):
                setattr(s, field, _Folder(lengths, env).visit(value))
        if isinstance(s, ast.Assign):
            for t in s.targets:
                if isinstance(t, ast.Subscript):
                    _Folder(lengths, env).visit(t.slice)
        for n in _stored_names(s):
            env.pop(n, None)
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            c = _const_int(s.value)
            if c is not None:
                env[s.targets[0].id] = c


def _sub_blocks(s):
    """The statement lists nested in s (`body`, `orelse`), as (field, block) pairs."""
    if isinstance(s, ast.FunctionDef):
        return []
    return [(f, getattr(s, f)) for f in ("body", "orelse") if isinstance(getattr(s, f, None), list)]


def _map_blocks(block, f):
    """block with each statement s replaced by f(s) (a list), nested blocks first."""
    out = []
    for s in block:
        for field, sub in _sub_blocks(s):
            setattr(s, field, _map_blocks(sub, f))
        out.extend(f(s))
    return out or ([ast.Pass()] if block else [])     # a block emptied keeps a `pass`


def _statements(block):
    """Every statement of a block, at any depth, in program order."""
    for s in block:
        yield s
        for _, sub in _sub_blocks(s):
            yield from _statements(sub)


def _block_stores(block):
    """Every name the statements of a block (at any depth) bind."""
    return {n for s in _statements(block) for n in _stored_names(s)}


def _stored_names(node):
    if isinstance(node, ast.Assign):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            return [node.targets[0].id]
        return [n.id for t in node.targets for n in _walk(t) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Store)]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target.id] if isinstance(node.target, ast.Name) else []
    if isinstance(node, ast.For):
        return [n.id for n in _walk(node.target) if isinstance(n, ast.Name)]
    return []


def _unroll(fdef, lengths):
    """Loops of a constant trip count <= MAX_LEN that index a known array by their variable
    (a variable read only inside loops that bind it: nothing reads its last value)."""
    inside, loads = {}, {}

    def count(node, bound):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads[node.id] = loads.get(node.id, 0) + 1
            if node.id in bound:
                inside[node.id] = inside.get(node.id, 0) + 1
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            count(node.iter, bound)
            for t in node.body + node.orelse:
                count(t, bound | {node.target.id})
            return
        for child in ast.iter_child_nodes(node):
            count(child, bound)
    count(fdef, frozenset())
    safe = {n for n in inside if inside[n] == loads[n]}

    def unrolled(s):
        trips = _trips(s)
        if trips is None or s.target.id not in safe or not _worth(s, lengths) \
                or s.target.id in _block_stores(s.body):
            return [s]
        out = []
        for i in trips:
            for t in s.body:
                t = _copy(t)
                _Subst(s.target.id, i).visit(t)
                out.append(t)
        return out

    fdef.body = _map_blocks(fdef.body, unrolled)


def _trips(s):
    if not (isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse
            and isinstance(s.iter, ast.Call) and _fname(s.iter) == "range" and not s.iter.keywords):
        return None
    args = [_const_int(a) for a in s.iter.args]
    if None in args or not 1 <= len(args) <= 3 or (len(args) == 3 and args[2] == 0):
        return None
    r = range(*args)
    if len(r) > MAX_LEN or any(isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.FunctionDef))
                               for t in s.body for n in _walk(t)):
        return None
    return list(r)


def _worth(loop, lengths):
    """Whether the loop indexes an array of a known length (by its variable or by a name
    computed from it: `at = i * step`)."""
    return any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
               and (n.value.id in lengths or n.value.id in lengths.shapes)
               and _const_int(n.slice) is None for n in _walk(loop))


class _Subst(ast.NodeTransformer):
    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        return P.const(self.value) if node.id == self.name and isinstance(node.ctx, ast.Load) else node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return P.fold(node)


def _returned(fdef):
    out = set()
    for node in _walk(fdef):
        if isinstance(node, (ast.Return, ast.Yield)) and node.value is not None:
            out |= _names_in(node.value)
    return out


def _insert_guards(fdef, guards):
    """Before `v = x[lo:hi]` whose length is taken as hi - lo: check that x has hi elements."""
    def guarded(s):
        g = guards.get(id(s))
        if g is None:
            return [s]
        return [ast.Expr(P.call("rt.check_slice_end", _shape0(g[0]), ast.Constant(g[1]))), s]

    fdef.body = _map_blocks(fdef.body, guarded)


# ---------------------------------------------------------------- the rewrite
def _mutations(body):
    """name -> preorder positions of statements writing into it in place, and each
    statement's position and enclosing loops."""
    muts, pos, loops = {}, {}, {}
    counter = [0]

    def mark(n, i):
        muts.setdefault(n, []).append(i)

    def visit(block, enclosing):
        for s in block:
            i = counter[0]
            counter[0] += 1
            pos[id(s)] = i
            loops[id(s)] = enclosing
            if isinstance(s, ast.Assign):
                for t in s.targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        mark(t.value.id, i)
            elif isinstance(s, ast.AugAssign):
                t = s.target.value if isinstance(s.target, ast.Subscript) else s.target
                if isinstance(t, ast.Name):
                    mark(t.id, i)
            elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and s.value.args:
                a = s.value.args[0]
                a = a.value if isinstance(a, ast.Subscript) else a
                if isinstance(a, ast.Name):
                    mark(a.id, i)
            sub_loops = enclosing + ((s,) if isinstance(s, (ast.For, ast.While)) else ())
            for _, sub in _sub_blocks(s):
                visit(sub, sub_loops)
            if isinstance(s, (ast.For, ast.While)):
                s.jitad_end = counter[0]
    visit(body, ())
    return muts, pos, loops


class _Rewrite:
    def __init__(self, kinds, lengths, cands, taken, places, body):
        self.kinds, self.lengths, self.cands = kinds, lengths, cands
        namer = Namer(taken)
        self.shapes = lengths.shapes
        # the matrices among the candidates: their elements in row-major order (`R_0_0`, `R_0_1`)
        self.mats = {a: self.shapes[a] for a in cands if a in self.shapes}
        self.elts = {}
        for a in sorted(cands):
            if a in self.mats:
                r, c = self.mats[a]
                self.elts[a] = [namer.fresh(f"{a}_{i}_{j}") for i in range(r) for j in range(c)]
            else:
                self.elts[a] = [namer.fresh(a) if k == 0 else namer.fresh(f"{a}_{k}")
                                for k in range(lengths[a])]
        # a product's operand computed once into temporaries: name -> (shape, their names)
        self.virt, self.memo = {}, {}
        self.namer = namer
        self.muts, self.pos, self.loops = places
        self.body, self.classes = body, None
        self.failed, self.reasons = set(), []

    # -- statements
    def block(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out or [ast.Pass()]

    def stmt(self, s):
        """s rewritten; or, if it uses a candidate in a way not rewritten, s itself, and the
        candidates it names are recorded in `failed` (the caller drops them and starts again)."""
        try:
            return self._stmt(s)
        except _Unsupported as e:
            names = self.cands & e.args[0] or self.cands & _names_in(s)
            if not names:           # cannot happen: a refusal names what it refused
                raise AssertionError(f"scalarize: {ast.unparse(s)[:200]}") from None
            self.failed |= names
            self.reasons.append((ast.unparse(s)[:200], names))
            return [s]

    def _stmt(self, s):
        """The statements for s. The input is never changed (a round that fails leaves it as
        it was): a compound statement is rebuilt around its new blocks, a simple one that
        names a candidate is copied before it is rewritten."""
        if isinstance(s, (ast.If, ast.For, ast.While)):
            new = copy.copy(s)
            new.body, new.orelse = self.block(s.body), self.block(s.orelse) if s.orelse else []
            head = "iter" if isinstance(s, ast.For) else "test"
            pre = []
            if self.mentions(getattr(s, head)):
                setattr(new, head, self.scalar(_copy(getattr(s, head)), pre))
            if isinstance(s, ast.For):
                self.no_cands(s.target)
            if pre and isinstance(s, ast.While):
                raise _Unsupported(self.cands & _names_in(getattr(s, head)))  # read at every test
            return pre + [new]
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) \
                and _fname(s.value) == "rt.check_index":
            i, n = (_const_int(a) for a in s.value.args[:2])
            if i is not None and n is not None and -n <= i < n:
                return []
        if isinstance(s, P.Comment) or not self.mentions(s):
            return [s]
        self.current = s                    # its place in the function, for `check_alias`
        s = _copy(s)
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            return self.assign(s, s.targets[0], s.value)
        if isinstance(s, ast.AugAssign):
            return self.augassign(s)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and _fname(s.value) in _ACCUM:
            return self.accum(s.value)
        return self.scalar_stmt(s)

    def scalar_stmt(self, s):
        """A simple statement whose candidate uses are all element reads (`a[2]`) or reductions."""
        pre = []
        for field, value in ast.iter_fields(s):
            if isinstance(value, ast.expr):
                setattr(s, field, self.scalar(value, pre))
            elif isinstance(value, list) and value and isinstance(value[0], ast.expr):
                setattr(s, field, [self.scalar(v, pre) for v in value])
        return pre + [s]

    def assign(self, s, target, value):
        if isinstance(target, ast.Name) and target.id in self.mats:
            a = target.id
            shape = self.mats[a]
            if _placeholder(value):
                return [P.assign(e, ast.Constant(0.0)) for e in self.elts[a]]
            self.check_alias(s, a, value)
            pre = []
            elems = [self.elem2(value, i, j, shape, pre)
                     for i in range(shape[0]) for j in range(shape[1])]
            return self.emit(pre, [P.name(e, True) for e in self.elts[a]], elems)
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and target.value.id in self.mats:
            return self.part_write(s, target, value, None)
        if isinstance(target, ast.Name) and self.mentions(value) and self.kinds.ndim.get(target.id) == 2:
            self.check_alias(s, target.id, value)
            shape = _shape(value, self.lengths, self.kinds)
            if shape is None and isinstance(value, ast.Call) and _fname(value) == "rt.matmat":
                return self.scalar_stmt(s)          # a product with an array of any shape
            if shape is None or not self.kinds.f8.get(target.id, False):
                self.refuse(s)
            pre = []
            elems = self.settled(pre, {target.id}, [self.elem2(value, i, j, shape, pre)
                                                    for i in range(shape[0]) for j in range(shape[1])])
            dims = ast.Tuple([ast.Constant(d) for d in shape], ast.Load())
            return pre + [P.assign(target.id, P.call("np.empty", dims, P.dotted("np.float64")))] + [
                P.assign(ast.Subscript(P.name(target.id), ast.Tuple(
                    [ast.Constant(k // shape[1]), ast.Constant(k % shape[1])], ast.Load()),
                    ast.Store()), v) for k, v in enumerate(elems)]
        if isinstance(target, ast.Name) and target.id in self.cands:
            a = target.id
            if _placeholder(value):
                return [P.assign(e, ast.Constant(0.0)) for e in self.elts[a]]
            self.check_alias(s, a, value)
            fill = self.fill(value)
            if fill is not False:
                return [P.assign(e, ast.Constant(fill)) for e in self.elts[a]]
            pre = []
            elems = [self.elem(value, k, len(self.elts[a]), pre) for k in range(len(self.elts[a]))]
            return self.emit(pre, [P.name(e, True) for e in self.elts[a]], elems)
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and target.value.id in self.cands:
            pre = []
            e = self.element_ref(target, store=True)
            return [P.assign(e, self.scalar(value, pre))] if not pre else self.refuse(s)
        if isinstance(target, ast.Name) and self.mentions(value) and self.kinds.ndim.get(target.id) == 1:
            self.check_alias(s, target.id, value)
            c = _length(value, self.lengths, self.kinds)
            fill = self.fill(value)
            if fill is not False and c is not None:
                return [P.assign(target.id, P.call("np.full", ast.Tuple([ast.Constant(c)], ast.Load()),
                                                   ast.Constant(fill)))]
            if c is None or not self.kinds.is_f8_vector(target.id):
                self.refuse(s)
            pre = []
            elems = self.settled(pre, {target.id}, [self.elem(value, k, c, pre) for k in range(c)])
            return pre + [P.assign(target.id, P.call("np.empty", ast.Tuple([ast.Constant(c)], ast.Load()),
                                                      P.dotted("np.float64")))] + [
                P.assign(ast.Subscript(P.name(target.id), ast.Constant(k), ast.Store()), v)
                for k, v in enumerate(elems)]
        if isinstance(target, ast.Name) and _view_of(value, self.kinds) is not None:
            self.check_alias(s, target.id, value)
        return self.scalar_stmt(s)

    def part_write(self, s, target, value, op):
        """`M[i, j] = v`, `M[i] = row`, `M[:3, :3] = block` (or `op=`) into a matrix
        candidate: its elements there, the value broadcast to the part's shape as NumPy does."""
        sel = _select(target, self.lengths, self.kinds)
        if sel is None:
            self.refuse(s)
        idx, shape = sel
        pre = []
        if shape == ():
            if self.kinds.expr_ndim(value) not in (0, None, _PENDING):
                self.refuse(s)
            elems = [self.scalar(value, pre)]
            if pre:
                self.refuse(s)
        elif len(shape) == 1:
            elems = [self.elem(value, k, shape[0], pre) for k in range(shape[0])]
        else:
            elems = [self.elem2(value, i, j, shape, pre)
                     for i in range(shape[0]) for j in range(shape[1])]
        elts = self.elts[target.value.id]
        return self.emit(pre, [P.name(elts[k], True) for k in idx], elems, op)

    def augassign(self, s):
        t = s.target
        if isinstance(t, ast.Name) and t.id in self.mats:
            shape = self.mats[t.id]
            pre = []
            elems = [self.elem2(s.value, i, j, shape, pre)
                     for i in range(shape[0]) for j in range(shape[1])]
            return self.emit(pre, [P.name(e, True) for e in self.elts[t.id]], elems, s.op)
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in self.mats:
            return self.part_write(s, t, s.value, s.op)
        if isinstance(t, ast.Name) and self.mentions(s.value) and self.kinds.ndim.get(t.id) == 2:
            # an array updated in place by a matrix expression of known shape: element by
            # element (the array of that shape, checked, as NumPy's in-place update needs)
            shape = _shape(s.value, self.lengths, self.kinds)
            if shape is None and isinstance(s.value, ast.Call) and _fname(s.value) == "rt.matmat":
                return self.scalar_stmt(s)          # a product with an array of any shape
            if shape is None or (self.shapes.get(t.id) != shape and min(shape) < 2):
                self.refuse(s)      # (an axis of length 1 is broadcast over the array's)
            pre = []
            if self.shapes.get(t.id) != shape:
                for axis, n in enumerate(shape):
                    dim = ast.Subscript(ast.Attribute(P.name(t.id), "shape", ast.Load()),
                                        ast.Constant(axis), ast.Load())
                    pre.append(ast.Expr(P.call("rt.check_length", dim, ast.Constant(n))))
            elems = [self.elem2(s.value, i, j, shape, pre) for i in range(shape[0]) for j in range(shape[1])]
            return self.emit(pre, [ast.Subscript(P.name(t.id), ast.Tuple(
                [ast.Constant(i), ast.Constant(j)], ast.Load()), ast.Store())
                for i in range(shape[0]) for j in range(shape[1])], elems, s.op)
        if isinstance(t, ast.Name) and t.id in self.cands:
            c = len(self.elts[t.id])
            pre = []
            elems = [self.elem(s.value, k, c, pre) for k in range(c)]
            return self.emit(pre, [P.name(e, True) for e in self.elts[t.id]], elems, s.op)
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in self.cands:
            pre = []
            v = self.scalar(s.value, pre)
            if pre:
                self.refuse(s)
            return [ast.AugAssign(self.element_ref(t, store=True), s.op, v)]
        if isinstance(t, ast.Name) and self.mentions(s.value) and self.kinds.ndim.get(t.id) == 1:
            c = _length(s.value, self.lengths, self.kinds)
            if c is None or c < 2:
                self.refuse(s)
            pre = []
            self.require_length(t.id, c, pre)
            elems = [self.elem(s.value, k, c, pre) for k in range(c)]
            return self.emit(pre, [ast.Subscript(P.name(t.id), ast.Constant(k), ast.Store())
                                   for k in range(c)], elems, s.op)
        return self.scalar_stmt(s)

    def accum(self, call):
        """`rt.add_into(view, g)` (view += g) and `rt.accum1(d, g)` (d += g, d maybe of length 1)."""
        fn = _fname(call)
        dst, g = call.args
        if not (self.mentions(g) or self.mentions(dst)):
            return self.scalar_stmt(ast.Expr(call))
        base = dst.value if isinstance(dst, ast.Subscript) else dst
        if (isinstance(base, ast.Name) and (base.id in self.mats or self.kinds.ndim.get(base.id) == 2)) \
                or self.kinds.expr_ndim(g) == 2:
            return self.accum_matrix(call)
        c = _length(g, self.lengths, self.kinds)
        if c is None or self.kinds.expr_ndim(g) != 1:
            self.refuse(ast.Expr(call))
        pre = []
        # the destination's elements, as targets
        if isinstance(dst, ast.Name) and dst.id in self.cands:
            targets = [P.name(e, True) for e in self.elts[dst.id]]
        elif isinstance(dst, ast.Subscript) and isinstance(dst.value, ast.Name) \
                and dst.value.id in self.cands and isinstance(dst.slice, ast.Slice):
            n = len(self.elts[dst.value.id])
            idx = list(range(n))[_slice_obj(dst.slice)]
            targets = [P.name(self.elts[dst.value.id][i], True) for i in idx]
        elif isinstance(dst, ast.Subscript) and isinstance(dst.value, ast.Name) \
                and self.kinds.ndim.get(dst.value.id) == 1 and isinstance(dst.slice, ast.Slice) \
                and not self.mentions(dst) and _guarded_slice(dst.slice) is not None:
            lo = 0 if dst.slice.lower is None else _const_int(dst.slice.lower)
            width, hi = _guarded_slice(dst.slice)
            base = dst.value.id
            if self.lengths.get(base, -1) < hi:
                pre.append(ast.Expr(P.call("rt.check_slice_end", _shape0(base), ast.Constant(hi))))
            targets = [ast.Subscript(P.name(base), ast.Constant(lo + j), ast.Store())
                       for j in range(width)]
        elif isinstance(dst, ast.Name) and self.kinds.ndim.get(dst.id) == 1 and dst.id not in self.cands:
            if fn == "rt.accum1" and self.lengths.get(dst.id) != c:
                # d may be a broadcast operand of length 1: NumPy's sum over the broadcast axis
                elems = [self.elem(g, k, c, pre) for k in range(c)]
                tmps = [self.namer.fresh("g") for _ in elems]
                pre += [P.assign(t, e) for t, e in zip(tmps, elems)]
                full = [ast.AugAssign(ast.Subscript(P.name(dst.id), ast.Constant(k), ast.Store()),
                                      ast.Add(), P.name(t)) for k, t in enumerate(tmps)]
                total = P.name(tmps[0])
                for t in tmps[1:]:
                    total = ast.BinOp(total, ast.Add(), P.name(t))
                one = [ast.AugAssign(ast.Subscript(P.name(dst.id), ast.Constant(0), ast.Store()),
                                     ast.Add(), total)]
                test = ast.Compare(_shape0(dst.id), [ast.Eq()], [ast.Constant(c)])
                return pre + [ast.If(test, full, [ast.If(
                    ast.Compare(_shape0(dst.id), [ast.Eq()], [ast.Constant(1)]), one,
                    [ast.Expr(P.call("rt.check_length", _shape0(dst.id), ast.Constant(c)))])])]
            self.require_length(dst.id, c, pre)
            targets = [ast.Subscript(P.name(dst.id), ast.Constant(k), ast.Store()) for k in range(c)]
        else:
            self.refuse(ast.Expr(call))
        if len(targets) != c and c != 1:        # (one element: added to every target)
            self.refuse(ast.Expr(call))
        elems = [self.elem(g, k, len(targets), pre) for k in range(len(targets))]
        return self.emit(pre, targets, elems, ast.Add())

    def accum_matrix(self, call):
        """`rt.add_into(part, g)` / `rt.accum2(d, g)` into a matrix candidate (or a part of
        one), g of the destination's shape: element by element."""
        fn = _fname(call)
        dst, g = call.args
        if isinstance(dst, ast.Name) and dst.id in self.mats and fn in ("rt.add_into", "rt.accum2"):
            shape = self.mats[dst.id]
            idx = range(shape[0] * shape[1])
        elif isinstance(dst, ast.Subscript) and isinstance(dst.value, ast.Name) \
                and dst.value.id in self.mats and fn == "rt.add_into":
            sel = _select(dst, self.lengths, self.kinds)
            if sel is None or sel[1] == ():
                self.refuse(ast.Expr(call))
            idx, shape = sel
        else:
            self.refuse(ast.Expr(call))
        got = _shape(g, self.lengths, self.kinds) if len(shape) == 2 else \
            (_length(g, self.lengths, self.kinds),)
        if self.kinds.expr_ndim(g) != len(shape) or got != shape:
            self.refuse(ast.Expr(call))     # a broadcast operand's adjoint (summed): kept
        pre = []
        if len(shape) == 2:
            elems = [self.elem2(g, i, j, shape, pre) for i in range(shape[0]) for j in range(shape[1])]
        else:
            elems = [self.elem(g, k, shape[0], pre) for k in range(shape[0])]
        elts = self.elts[(dst.value if isinstance(dst, ast.Subscript) else dst).id]
        return self.emit(pre, [P.name(elts[k], True) for k in idx], elems, ast.Add())

    def emit(self, pre, targets, elems, op=None):
        """`targets[k] = elems[k]` (or `op=`), every element computed before any is written
        (NumPy computes the right side first: `a = a[1] * w` reads the old a[1] three times)."""
        written = set().union(*(_names_in(t) for t in targets))
        elems = self.settled(pre, written, elems)
        return pre + [P.assign(t, v) if op is None else ast.AugAssign(t, op, v)
                      for t, v in zip(targets, elems)]

    def settled(self, pre, written, elems):
        """elems, through temporaries (assigned in `pre`) if one of them reads a name written."""
        if len(elems) < 2 or not written & set().union(*(_names_in(e) for e in elems)):
            return elems
        tmps = [self.namer.fresh("t") for _ in elems]
        pre += [P.assign(t, e) for t, e in zip(tmps, elems)]
        return [P.name(t) for t in tmps]

    def require_length(self, name, c, pre):
        """Add to `pre` the check that array `name` has c elements (once per statement; none
        where its length is known)."""
        if self.lengths.get(name) == c or any(getattr(st, "jitad_check", None) == (name, c)
                                               for st in pre):
            return
        chk = ast.Expr(P.call("rt.check_length", _shape0(name), ast.Constant(c)))
        chk.jitad_check = (name, c)
        pre.append(chk)

    def fill(self, value):
        """The number an allocation's elements start as, or False."""
        if isinstance(value, ast.Call):
            fn = _fname(value)
            return _ALLOC.get(fn, _LIKE.get(fn, False))
        return False

    def check_alias(self, s, a, value):
        """`a = b` / `a = b[i:j]` share memory in NumPy: keep them candidates only if neither is
        written in place after this statement or in a loop around it."""
        b = _view_of(value, self.kinds)
        if b is None:
            return
        if not ({a, b} & self.cands):
            return
        p = self.pos.get(id(self.current))
        if p is None:
            raise _Unsupported({a, b})
        loops = self.loops.get(id(self.current), ())
        for n in self.shared(a) | self.shared(b):
            for m in self.muts.get(n, ()):
                if m > p or any(self.pos[id(lp)] < m < lp.jitad_end for lp in loops):
                    raise _Unsupported({a, b})

    def shared(self, n):
        """The names that may hold n's memory: n and, through views made anywhere in the
        function (`b = a`, `c = b.T`: a write into c is seen in a), every name joined to it."""
        if self.classes is None:
            parent = {}

            def find(x):
                while parent.get(x, x) != x:
                    x = parent[x]
                return x
            for st in _statements(self.body):
                if isinstance(st, ast.Assign) and len(st.targets) == 1 \
                        and isinstance(st.targets[0], ast.Name):
                    v = _view_of(st.value, self.kinds)
                    if v is not None:
                        parent[find(st.targets[0].id)] = find(v)
            self.classes = {}
            for x in list(parent):
                self.classes.setdefault(find(x), set()).add(x)
            for root, members in list(self.classes.items()):
                members.add(root)
                for x in members:
                    self.classes[x] = members
        return self.classes.get(n, {n})

    def refuse(self, s):
        raise _Unsupported(self.cands & _names_in(s) or {None})

    def mentions(self, e):
        return bool(self.cands & _names_in(e))

    def no_cands(self, e):
        if self.mentions(e):
            raise _Unsupported(self.cands & _names_in(e))

    def element_ref(self, sub, store=False):
        a = sub.value.id
        if a in self.mats:
            sel = _select(sub, self.lengths, self.kinds)
            if sel is None or sel[1] != ():
                raise _Unsupported({a} | (self.cands & _names_in(sub.slice)))
            return P.name(self.elts[a][sel[0][0]], store)
        k = _const_int(sub.slice)
        n = len(self.elts[a])
        if k is None or not -n <= k < n:
            raise _Unsupported({a} | (self.cands & _names_in(sub.slice)))
        return P.name(self.elts[a][k % n], store)

    # -- expressions
    def elem(self, e, k, c, pre):
        """Element k of the rank-1 expression e of length c (or e itself if it is a number)."""
        if isinstance(e, ast.Name) and e.id in self.virt:
            return self.virtual(e.id, (c,), k)
        nd = self.kinds.expr_ndim(e)
        if nd == 0:
            return self.scalar(e, pre)
        if nd != 1:
            raise _Unsupported(self.cands & _names_in(e) or {None})
        if isinstance(e, ast.Name):
            if e.id in self.cands:
                n = len(self.elts[e.id])
                if n == c:
                    return P.name(self.elts[e.id][k])
                raise _Unsupported({e.id})
            known = self.lengths.get(e.id)
            if known == c:
                return ast.Subscript(P.name(e.id), ast.Constant(k), ast.Load())
            if known == 1:
                return ast.Subscript(P.name(e.id), ast.Constant(0), ast.Load())
            step = self._step(e.id, c, pre)
            return ast.Subscript(P.name(e.id), P.fold(ast.BinOp(ast.Constant(k), ast.Mult(),
                                                                  P.name(step))), ast.Load())
        if isinstance(e, ast.BinOp):
            return ast.BinOp(self.elem(e.left, k, c, pre), e.op, self.elem(e.right, k, c, pre))
        if isinstance(e, ast.UnaryOp):
            return ast.UnaryOp(e.op, self.elem(e.operand, k, c, pre))
        if isinstance(e, ast.Subscript) and self.kinds.expr_ndim(e.value) == 2:
            sel = _select(e, self.lengths, self.kinds)      # a row or a column of a matrix
            if sel is None or len(sel[1]) != 1 or sel[1][0] not in (c, 1):
                raise _Unsupported(self.cands & _names_in(e) or {None})
            return self.flat(e.value.id, sel[0][k if sel[1][0] == c else 0])
        if isinstance(e, ast.Attribute) and e.attr == "T":
            return self.elem(e.value, k, c, pre)
        if isinstance(e, ast.Call) and _fname(e) in ("rt.matvec", "rt.vecmat") and not e.keywords \
                and _product_shape(_fname(e), e.args, self.lengths, self.kinds) == c:
            vec = e.args[1] if _fname(e) == "rt.matvec" else e.args[0]
            if _length(vec, self.lengths, self.kinds) is None:       # a name (_product_shape)
                n = _shape(e.args[0 if vec is e.args[1] else 1], self.lengths, self.kinds)
                self.require_length(vec.id, n[1] if vec is e.args[1] else n[0], pre)
            if _fname(e) == "rt.matvec":
                (r, n) = _shape(e.args[0], self.lengths, self.kinds)
                A, v = self.operand(e.args[0], (r, n), pre), self.operand(e.args[1], (n,), pre)
                terms = [ast.BinOp(self.elem2(A, k, j, (r, n), pre), ast.Mult(), self.elem(v, j, n, pre))
                         for j in range(n)]
            else:
                (n, m) = _shape(e.args[1], self.lengths, self.kinds)
                v, A = self.operand(e.args[0], (n,), pre), self.operand(e.args[1], (n, m), pre)
                terms = [ast.BinOp(self.elem(v, j, n, pre), ast.Mult(), self.elem2(A, j, k, (n, m), pre))
                         for j in range(n)]
            return _total(terms)
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) \
                and isinstance(e.slice, ast.Slice):
            base = e.value.id
            lo = 0 if e.slice.lower is None else _const_int(e.slice.lower)
            if base in self.cands:
                idx = list(range(len(self.elts[base])))[_slice_obj(e.slice)]
                if len(idx) == c:
                    return P.name(self.elts[base][idx[k]])
                if len(idx) == 1:
                    return P.name(self.elts[base][idx[0]])
            elif _length(e, self.lengths, self.kinds) == c and lo is not None:
                known = self.lengths.get(base)      # else a checked slice: 0 <= lo <= hi
                i = list(range(known))[_slice_obj(e.slice)][k] if known is not None else lo + k
                return ast.Subscript(P.name(base), ast.Constant(i), ast.Load())
            raise _Unsupported(self.cands & _names_in(e) or {None})
        if isinstance(e, ast.Call):
            fn = _fname(e)
            if fn in _ELEMENTWISE and not e.keywords:
                return ast.Call(e.func, [self.elem(a, k, c, pre) for a in e.args], [])
            if fn == "np.cross" and len(e.args) == 2 and not e.keywords and c == 3:
                a, b = e.args
                for x in (a, b):    # NumPy's cross needs both of length 3 here
                    if _length(x, self.lengths, self.kinds) != 3:
                        if not (isinstance(x, ast.Name) and self.kinds.ndim.get(x.id) == 1):
                            raise _Unsupported(self.cands & _names_in(e))
                        self.require_length(x.id, 3, pre)
                i, j = (k + 1) % 3, (k + 2) % 3
                return ast.BinOp(ast.BinOp(self.elem3(a, i, pre), ast.Mult(), self.elem3(b, j, pre)),
                                 ast.Sub(),
                                 ast.BinOp(self.elem3(a, j, pre), ast.Mult(), self.elem3(b, i, pre)))
            if fn in _LIKE and len(e.args) == 1 and not e.keywords:
                return ast.Constant(_LIKE[fn])
            if (fn in _COPY and len(e.args) == 1) and not e.keywords:
                return self.elem(e.args[0], k, c, pre)
            if fn is not None and fn.endswith(".copy") and not e.args:
                return self.elem(e.func.value, k, c, pre)
            if fn == "np.transpose" and len(e.args) == 1 and not e.keywords:
                return self.elem(e.args[0], k, c, pre)
        raise _Unsupported(self.cands & _names_in(e) or {None})

    def elem2(self, e, i, j, shape, pre):
        """Element (i, j) of the expression e broadcast to `shape` (a matrix's, known): a
        number as it is, a vector's element j, a matrix's (i, j)."""
        if isinstance(e, ast.Name) and e.id in self.virt:
            return self.virtual(e.id, shape, i * shape[1] + j)
        nd = self.kinds.expr_ndim(e)
        if nd == 0:
            return self.scalar(e, pre)
        if nd == 1:
            return self.elem(e, j, shape[1], pre)
        if nd != 2:
            raise _Unsupported(self.cands & _names_in(e) or {None})
        if isinstance(e, ast.Name):
            known = self.shapes.get(e.id)
            if known == shape:
                return self.flat(e.id, i * shape[1] + j)
            if known is not None or e.id in self.cands:
                raise _Unsupported(self.cands & {e.id} or {None})
            # of a shape not known: NumPy's broadcasting of each axis (its length or 1)
            at = [ast.Constant(0) if k == 0 else P.fold(ast.BinOp(
                ast.Constant(k), ast.Mult(), P.name(self._step(e.id, n, pre, axis))))
                for axis, (k, n) in enumerate(zip((i, j), shape))]
            return ast.Subscript(P.name(e.id), ast.Tuple(at, ast.Load()), ast.Load())
        if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
            return ast.BinOp(self.elem2(e.left, i, j, shape, pre), e.op,
                             self.elem2(e.right, i, j, shape, pre))
        if isinstance(e, ast.UnaryOp):
            return ast.UnaryOp(e.op, self.elem2(e.operand, i, j, shape, pre))
        if isinstance(e, ast.Attribute) and e.attr == "T":
            return self.elem2(e.value, j, i, shape[::-1], pre)
        if isinstance(e, ast.Subscript):
            sel = _select(e, self.lengths, self.kinds)
            if sel is None or sel[1] != shape:
                raise _Unsupported(self.cands & _names_in(e) or {None})
            return self.flat(e.value.id, sel[0][i * shape[1] + j])
        if isinstance(e, ast.Call):
            fn = _fname(e)
            if fn in _ELEMENTWISE and not e.keywords:
                return ast.Call(e.func, [self.elem2(a, i, j, shape, pre) for a in e.args], [])
            if fn == "np.transpose" and len(e.args) == 1 and not e.keywords:
                return self.elem2(e.args[0], j, i, shape[::-1], pre)
            if fn in _LIKE and len(e.args) == 1 and not e.keywords:
                return ast.Constant(_LIKE[fn])
            if fn in _ALLOC and _shape(e, self.lengths, self.kinds) == shape:
                return ast.Constant(_ALLOC[fn])
            if fn == "np.eye" and _eye_n(e) == shape[0] == shape[1]:
                return ast.Constant(1.0 if i == j else 0.0)
            if (fn in _COPY and len(e.args) == 1) and not e.keywords:
                return self.elem2(e.args[0], i, j, shape, pre)
            if fn is not None and fn.endswith(".copy") and not e.args:
                return self.elem2(e.func.value, i, j, shape, pre)
            if fn == "rt.outer" and len(e.args) == 2 and not e.keywords \
                    and all(self.kinds.expr_ndim(x) == 1 for x in e.args):
                for x, n in zip(e.args, shape):
                    got = _length(x, self.lengths, self.kinds)
                    if got is None and isinstance(x, ast.Name) and self.kinds.f8.get(x.id, False):
                        self.require_length(x.id, n, pre)    # the result's shape is known
                    elif got != n:
                        raise _Unsupported(self.cands & _names_in(e) or {None})
                a = self.operand(e.args[0], shape[:1], pre)
                b = self.operand(e.args[1], shape[1:], pre)
                return ast.BinOp(self.elem(a, i, shape[0], pre), ast.Mult(),
                                 self.elem(b, j, shape[1], pre))
            if fn in ("rt.matmat", "rt.outer") and not e.keywords \
                    and _product_shape(fn, e.args, self.lengths, self.kinds) == shape:
                if fn == "rt.outer":
                    a = self.operand(e.args[0], shape[:1], pre)
                    b = self.operand(e.args[1], shape[1:], pre)
                    return ast.BinOp(self.elem(a, i, shape[0], pre), ast.Mult(),
                                     self.elem(b, j, shape[1], pre))
                sa = _shape(e.args[0], self.lengths, self.kinds)
                sb = _shape(e.args[1], self.lengths, self.kinds)
                A, B = self.operand(e.args[0], sa, pre), self.operand(e.args[1], sb, pre)
                # in k's order, as the compiled product (rt.matmat's loop) adds them
                return _total([ast.BinOp(self.elem2(A, i, k, sa, pre), ast.Mult(),
                                         self.elem2(B, k, j, sb, pre)) for k in range(sa[1])])
        raise _Unsupported(self.cands & _names_in(e) or {None})

    def product_loop(self, e, pre):
        """`rt.matmat(X, M)` / `rt.matmat(M, X)` of a known matrix M and an array X (a name)
        of a shape not known, as a new array (in `pre`): X's inner length checked (ValueError,
        as NumPy's), then a loop over its other axis, M's elements written out."""
        A, B = e.args
        for known, other, left in ((B, A, True), (A, B, False)):
            shape = _shape(known, self.lengths, self.kinds)
            if shape is not None and isinstance(other, ast.Name) and not self.mentions(other) \
                    and self.kinds.ndim.get(other.id) == 2 and self.kinds.f8.get(other.id, False) \
                    and other.id not in self.shapes:
                break
        else:
            raise _Unsupported(self.cands & _names_in(e) or {None})
        M = self.operand(known, shape, pre)
        x = other.id
        inner, free = (1, 0) if left else (0, 1)      # X's axis summed over, and its other

        def dim(axis):
            return ast.Subscript(ast.Attribute(P.name(x), "shape", ast.Load()), ast.Constant(axis),
                                 ast.Load())
        n = shape[0] if left else shape[1]
        pre.append(ast.Expr(P.call("rt.check_length", dim(inner), ast.Constant(n))))
        out, i = self.namer.fresh("out_matmul"), self.namer.fresh("i")
        size = [dim(0), ast.Constant(shape[1])] if left else [ast.Constant(shape[0]), dim(1)]
        pre.append(P.assign(out, P.call("np.empty", ast.Tuple(size, ast.Load()), P.dotted("np.float64"))))
        body = []
        for j in range(shape[1] if left else shape[0]):
            terms = []
            for k in range(n):
                xk = ast.Subscript(P.name(x), ast.Tuple([P.name(i), ast.Constant(k)] if left else
                                                        [ast.Constant(k), P.name(i)], ast.Load()),
                                   ast.Load())
                mk = self.elem2(M, k, j, shape, pre) if left else self.elem2(M, j, k, shape, pre)
                terms.append(ast.BinOp(xk, ast.Mult(), mk) if left else ast.BinOp(mk, ast.Mult(), xk))
            at = [P.name(i), ast.Constant(j)] if left else [ast.Constant(j), P.name(i)]
            body.append(P.assign(ast.Subscript(P.name(out), ast.Tuple(at, ast.Load()), ast.Store()),
                                 _total(terms)))
        pre.append(ast.For(P.name(i, True), P.call("range", dim(free)), body, [], lineno=0))
        return P.name(out)

    def flat(self, name, k):
        """Element k (row-major) of a matrix or vector `name` of known shape: a candidate's
        number, else the array's element."""
        if name in self.cands:
            return P.name(self.elts[name][k])
        shape = self.shapes.get(name)
        if shape is None:
            return ast.Subscript(P.name(name), ast.Constant(k), ast.Load())
        return ast.Subscript(P.name(name), ast.Tuple([ast.Constant(k // shape[1]),
                                                      ast.Constant(k % shape[1])], ast.Load()),
                             ast.Load())

    def virtual(self, name, shape, k):
        got, names = self.virt[name]
        if got != shape:
            raise _Unsupported({None})
        return P.name(names[k])

    def operand(self, e, shape, pre):
        """A product's operand e (read once per element of the result): a name or a part of
        one as it is, else its elements computed once into temporaries (in `pre`)."""
        if isinstance(e, (ast.Name, ast.Subscript)) or (isinstance(e, ast.Attribute)
                                                       and isinstance(e.value, ast.Name)):
            return e
        key = (id(pre), id(e))
        if key not in self.memo:
            if len(shape) == 2:
                elems = [self.elem2(e, i, j, shape, pre) for i in range(shape[0]) for j in range(shape[1])]
            else:
                elems = [self.elem(e, k, shape[0], pre) for k in range(shape[0])]
            names = [self.namer.fresh("m") for _ in elems]
            pre += [P.assign(t, v) for t, v in zip(names, elems)]
            v = self.namer.fresh("m")
            self.virt[v] = (shape, names)
            self.memo[key] = (v, e)            # e kept: its id stays its own
        return P.name(self.memo[key][0])

    def elem3(self, x, k, pre):
        """Element k of a cross product's operand x (of length 3, checked)."""
        if isinstance(x, ast.Name) and x.id not in self.cands and self.lengths.get(x.id) != 3:
            return ast.Subscript(P.name(x.id), ast.Constant(k), ast.Load())
        return self.elem(x, k, 3, pre)

    def _step(self, name, c, pre, axis=0):
        for st in pre:              # one per operand, axis and statement
            if getattr(st, "jitad_step", None) == (name, c, axis):
                return st.targets[0].id
        step = self.namer.fresh(f"{name}_step")
        dim = ast.Subscript(ast.Attribute(P.name(name), "shape", ast.Load()), ast.Constant(axis),
                            ast.Load())
        st = P.assign(step, P.call("rt.broadcast_step", dim, ast.Constant(c)))
        st.jitad_step = (name, c, axis)
        pre.append(st)
        return step

    def scalar(self, e, pre):
        """A number-valued expression with candidate element reads and reductions written out."""
        if not self.mentions(e):
            return e
        return _Scalar(self, pre).visit(e)

    def reduction(self, node, pre):
        """`np.sum(v)`, `rt.dot1(a, b)`, `np.dot(a, b)` of known vectors as sums of elements."""
        fn = _fname(node)
        c = _length(node.args[0], self.lengths, self.kinds)
        if fn == "np.linalg.norm" and len(node.args) == 1 and c is not None:
            # the 2-norm of a vector: its elements squared, summed in order, then the root
            terms = []
            for k in range(c):
                e = self.elem(node.args[0], k, c, pre)
                if not isinstance(e, (ast.Name, ast.Constant, ast.Subscript)):
                    t = self.namer.fresh("t")
                    pre.append(P.assign(t, e))
                    e = P.name(t)
                terms.append(ast.BinOp(e, ast.Mult(), _copy(e)))
            total = terms[0]
            for t in terms[1:]:
                total = ast.BinOp(total, ast.Add(), t)
            return P.call("math.sqrt", total)
        if fn == "np.sum" and len(node.args) == 1 and c is not None:
            terms = [self.elem(node.args[0], k, c, pre) for k in range(c)]
        elif fn != "np.sum" and len(node.args) == 2:
            c = c if c is not None else _length(node.args[1], self.lengths, self.kinds)
            if c is None:
                raise _Unsupported(self.cands & _names_in(node))
            for a in node.args:
                if isinstance(a, ast.Name) and a.id not in self.cands:
                    self.require_length(a.id, c, pre)
                elif _length(a, self.lengths, self.kinds) != c:
                    raise _Unsupported(self.cands & _names_in(node))
            terms = [ast.BinOp(self.elem(node.args[0], k, c, pre), ast.Mult(),
                               self.elem(node.args[1], k, c, pre)) for k in range(c)]
        else:
            raise _Unsupported(self.cands & _names_in(node))
        total = terms[0]
        for t in terms[1:]:
            total = ast.BinOp(total, ast.Add(), t)
        return total


class _Scalar(ast.NodeTransformer):
    """`_Rewrite.scalar`'s walk: element reads of candidates become their numbers, reductions
    of known vectors sums; any other mention of a candidate is refused."""

    def __init__(self, rw, pre):
        self.rw, self.pre = rw, pre

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.rw.cands:
            return self.rw.element_ref(node)
        return self.generic_visit(node)

    def visit_Call(self, node):
        rw = self.rw
        if _fname(node) == "rt.matmat" and len(node.args) == 2 and not node.keywords \
                and rw.mentions(node):
            return rw.product_loop(node, self.pre)
        if _fname(node) == "np.sum" and len(node.args) == 1 and not node.keywords \
                and rw.mentions(node) and rw.kinds.expr_ndim(node.args[0]) == 2:
            shape = _shape(node.args[0], rw.lengths, rw.kinds)
            if shape is None:
                raise _Unsupported(rw.cands & _names_in(node))
            return _total([rw.elem2(node.args[0], i, j, shape, self.pre)
                           for i in range(shape[0]) for j in range(shape[1])])
        if _fname(node) in ("np.sum", "rt.dot1", "np.dot", "np.linalg.norm") and not node.keywords \
                and rw.mentions(node) and all(rw.kinds.expr_ndim(a) == 1 for a in node.args):
            return rw.reduction(node, self.pre)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.rw.cands:
            raise _Unsupported({node.id})
        return node


def _total(terms):
    """terms added in order (as a loop adds them)."""
    return P.chain(terms, ast.Add())


def _view_of(value, kinds):
    """The name whose memory `value` may share in NumPy (`b`, `b[1:3]`, a row `b[0]` of a
    matrix, `b.T`, `np.transpose(b)`, `np.ascontiguousarray(b)`), or None (a new array, or an
    element)."""
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute) and value.attr == "T":
        return _view_of(value.value, kinds)
    if isinstance(value, ast.Call) and _fname(value) in ("np.transpose", "np.ascontiguousarray") \
            and len(value.args) == 1:      # (a contiguous array is returned as it is)
        return _view_of(value.args[0], kinds)
    if isinstance(value, ast.Subscript):
        parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
        if any(isinstance(p, ast.Slice) for p in parts) or kinds.expr_ndim(value) not in (0, _PENDING):
            return _view_of(value.value, kinds)
    return None


def _slice_obj(s):
    def v(x):
        return None if x is None else _const_int(x)
    return slice(v(s.lower), v(s.upper), v(s.step))


def _shape0(name):
    return ast.Subscript(ast.Attribute(P.name(name), "shape", ast.Load()), ast.Constant(0), ast.Load())
