"""Stage 4b — shapes: a symbolic shape for every array variable of one typed specialization.

Takes: a typed `Spec` (its IR and the `Ty` of every variable).
Guarantees: `Shapes(spec).of(name)` is a tuple with one entry per axis of the variable (its
rank is the type's), each a *dimension term* or `None` (unknown); `Shapes.same(a, b)` says
whether two names provably have the same shape at every point where both are read. A term
is a pure function of values fixed for the whole call, so two equal terms are equal lengths:
  * an `int` (a constant length);
  * `("dim", p, k)`: axis k of parameter p as the caller passed it;
  * `("val", n)`: the value of the integer `n` (a parameter never reassigned, or a local
    assigned once outside every loop from what is not itself a term);
  * `("bcast", d1, d2, ...)`: the broadcast of those lengths (sorted: the same set of
    operands gives the same term);
  * `("sub", d, c)`: `max(d - c, 0)`, the length of `x[c:]`, `x[:-c]`, `x[a:-b]` (c = a + b);
  * `("min", d, c)`: `min(d, c)`, the length of `x[:c]` and `x[-c:]` (c >= 0 a constant);
  * `("slice", d, lo, hi)` for other constant-free bounds, and `(op, a, b)` for `+ - * //`
    of two integer terms: opaque but deterministic.
A variable assigned in several places has, per axis, the term all its assignments agree on,
or `None`; loop-carried values are settled by iterating to a fixed point (terms only ever
become `None`). Nothing here changes the IR.
Invariants: a term never mentions a value that can change during the call (a loop variable,
an integer assigned twice or inside a loop), so equal terms mean equal lengths wherever
both names are read; an unknown length is `None` and `same` never calls it equal to
anything, itself included.
"""
from __future__ import annotations

from . import ir
from .ir import Bind, Const, For, If, Slice, TupleA, Var, While
from .primitives import CALL, CONCAT, COPY, GETITEM, SHAPE, get, typerules
from .primitives.forms import settle_statics
from .types import arg_types

_DIM, _LEN = get("dim"), get("len")
_INT_OPS = {get("add"): "+", get("sub"): "-", get("mul"): "*", get("floordiv"): "//"}
_TRANSPOSE = get("transpose")
_EXPAND = (get("expand_dims"), get("stack_part"))
_SHAPE_OF, _SHAPE_CAT, _SHAPE_SLICE = get("shape_of"), get("shape_cat"), get("shape_slice")


def _known(d) -> bool:
    return d is not None


def broadcast(dims):
    """The length of one axis of a broadcast of operands whose lengths there are `dims`
    (operands without that axis left out); None if it cannot be named."""
    flat = []
    for d in dims:          # bcast(bcast(a, b), a) is bcast(a, b)
        flat += list(d[1:]) if isinstance(d, tuple) and d[0] == "bcast" else [d]
    rest = [d for d in flat if d != 1]
    if not rest:
        return 1
    if any(d is None for d in rest):
        return None
    distinct = sorted(set(rest), key=repr)
    if len(distinct) == 1:
        return distinct[0]
    if any(isinstance(d, int) for d in distinct):   # 3 vs n: n is 3 (or the call fails)
        consts = {d for d in distinct if isinstance(d, int)}
        return consts.pop() if len(consts) == 1 else None
    return ("bcast",) + tuple(distinct)


def slice_length(d, sl: Slice, val):
    """The length of `x[sl]` along an axis of length d (a term or None)."""
    if d is None:
        return None
    if sl.step is not None and not (isinstance(sl.step, Const) and sl.step.value == 1):
        return None
    lo = None if sl.lower is None else val(sl.lower)
    hi = None if sl.upper is None else val(sl.upper)
    if (sl.lower is not None and lo is None) or (sl.upper is not None and hi is None):
        return None
    if isinstance(d, int):
        if (lo is None or isinstance(lo, int)) and (hi is None or isinstance(hi, int)):
            return len(range(d)[slice(lo, hi)])
        return None
    lo_c = lo is None or isinstance(lo, int)
    hi_c = hi is None or isinstance(hi, int)
    if lo_c and hi_c:
        lo = 0 if lo is None else lo
        if lo >= 0 and (hi is None or hi < 0):          # x[a:], x[:-b], x[a:-b]
            c = lo - (0 if hi is None else hi)
            return d if c == 0 else ("sub", d, c)
        if lo == 0 and hi is not None and hi >= 0:       # x[:c]
            return ("min", d, hi)
        if lo < 0 and hi is None:                        # x[-c:]
            return ("min", d, -lo)
        if 0 <= lo <= hi:                                # x[a:b]: max(min(b, d) - a, 0)
            return ("slice", d, lo, hi)
        return None
    return ("slice", d, lo, hi)


def _subst(term, env):
    """A callee's term with its parameters' axes and values replaced by the caller's terms
    (`env`: ("dim", p, k) / ("val", p) -> term); None if it names anything else."""
    if term is None or isinstance(term, int):
        return term
    if term[0] in ("dim", "val"):
        return env.get(term)
    parts = [_subst(t, env) if isinstance(t, tuple) else t for t in term[1:]]
    if any(p is None and t is not None for p, t in zip(parts, term[1:])):
        return None
    if term[0] == "bcast":
        return broadcast(parts)
    return (term[0],) + tuple(parts)


class Shapes:
    def __init__(self, spec, prog=None, depth=0):
        self.types = spec.types
        self.prog, self.depth = prog, depth
        f = spec.ir
        self.params = list(f.params)
        self.defs: dict = {}            # name -> [Bind/For assigning it]
        self.in_loop: set = set()       # names assigned somewhere inside a loop
        self._collect(f.body, False)
        self.shape: dict = {}
        for p in self.params:
            t = self.types.get(p)
            if t is not None and getattr(t, "ndim", 0) and not t.is_list:
                self.shape[p] = tuple(("dim", p, k) for k in range(t.ndim))
        self._vals: dict = {}
        for _ in range(30):
            self.changed = False
            self._block(f.body)
            if not self.changed:
                break
        else:       # no fixed point (cannot happen: terms only become None); know nothing
            self.shape = {}

    # -- facts about integers ------------------------------------------------------------
    def _collect(self, block, loop):
        for s in block:
            for t in ir.writes(s):
                self.defs.setdefault(t, []).append(s)
                if loop or isinstance(s, For):
                    self.in_loop.add(t)
            for sub in ir.sub_blocks(s):
                self._collect(sub, loop or isinstance(s, (For, While)))

    def val(self, a):
        """A term for the value of an integer atom, or None."""
        if isinstance(a, Const):
            v = a.value
            return v if isinstance(v, int) and not isinstance(v, bool) else None
        if not isinstance(a, Var):
            return None
        n = a.name
        if n in self._vals:
            return self._vals[n]
        self._vals[n] = None            # a cycle knows nothing
        t = self.types.get(n)
        out = None
        if t is not None and not getattr(t, "ndim", 1) and t.dtype == "i8":
            defs = self.defs.get(n, [])
            if n in self.params:
                out = ("val", n) if not defs else None
            elif len(defs) == 1:
                out = self._int_def(defs[0], n)
                if isinstance(out, tuple) and out[0] == "val" and n in self.in_loop:
                    out = None      # its own value: one per iteration
        self._vals[n] = out
        return out

    def _int_def(self, s, n):
        """A term for the integer a single definition gives `n` (lengths of arrays are
        terms wherever they are read; other values are `("val", n)`, which the caller keeps
        only outside loops)."""
        if not isinstance(s, Bind):
            return None
        if s.op is SHAPE and isinstance(s.args[0], Var):
            sh = self.shape.get(s.args[0].name)
            return sh[s.targets.index(n)] if sh else None
        if len(s.targets) != 1:
            return None
        if s.op is _DIM and isinstance(s.args[0], Var) and isinstance(s.args[1], Const):
            sh = self.shape.get(s.args[0].name)
            k = s.args[1].value
            return sh[k] if sh and -len(sh) <= k < len(sh) else None
        if s.op is GETITEM and len(s.args) == 2 and isinstance(s.args[1], Const):
            dims = self.dims(s.args[0])         # s[k] of a shape value
            k = s.args[1].value
            return dims[k] if dims is not None and type(k) is int \
                and -len(dims) <= k < len(dims) else None
        if s.op is _LEN and isinstance(s.args[0], Var):
            sh = self.shape.get(s.args[0].name)
            return sh[0] if sh else None
        if s.op is COPY:
            return self.val(s.args[0])
        op = _INT_OPS.get(s.op)
        if op is not None and len(s.args) == 2:
            a, b = self.val(s.args[0]), self.val(s.args[1])
            if a is None or b is None:
                return ("val", n)
            if isinstance(a, int) and isinstance(b, int):
                return {"+": a + b, "-": a - b, "*": a * b, "//": a // b if b else None}[op]
            if op in ("+", "*"):
                a, b = sorted((a, b), key=repr)
            return (op, a, b)
        return ("val", n)

    def dims(self, a):
        """The terms of a shape value (`np.zeros(s)`'s s): a tuple written out, or a variable
        assigned once `shape_of(x)`, a slice or a join of such (`normalize.shape_values`);
        None if it cannot be named."""
        if isinstance(a, TupleA):
            return tuple(self.val(x) for x in a.items)
        if not isinstance(a, Var) or len(self.defs.get(a.name, [])) != 1:
            return None
        d = self.defs[a.name][0]
        if not isinstance(d, Bind) or len(d.targets) != 1:
            return None
        if d.op is _SHAPE_OF and isinstance(d.args[0], Var):
            return self.shape.get(d.args[0].name)
        if d.op is _SHAPE_CAT:
            a, b = self.dims(d.args[0]), self.dims(d.args[1])
            return None if a is None or b is None else a + b
        if d.op is _SHAPE_SLICE:
            base = self.dims(d.args[0])
            st = d.statics
            return None if base is None else base[slice(st.get("start"), st.get("stop"),
                                                         st.get("step"))]
        return None

    # -- shapes of arrays ----------------------------------------------------------------
    def of(self, name):
        """The shape of a variable (a tuple of terms or None per axis), or None."""
        return self.shape.get(name)

    def same(self, a, b) -> bool:
        """Whether the arrays `a` and `b` (names) provably have one shape."""
        sa, sb = self.shape.get(a), self.shape.get(b)
        return sa is not None and sb is not None and len(sa) == len(sb) and \
            all(x is not None and x == y for x, y in zip(sa, sb))

    def known(self, name) -> bool:
        sh = self.shape.get(name)
        return sh is not None and all(d is not None for d in sh)

    def _set(self, name, shape):
        t = self.types.get(name)
        if t is None or getattr(t, "is_list", False) or not getattr(t, "ndim", 0):
            return
        if shape is None or len(shape) != t.ndim:
            shape = (None,) * t.ndim
        old = self.shape.get(name)
        if old is None:
            self.shape[name] = tuple(shape)
            self.changed = True
            return
        new = tuple(x if x == y else None for x, y in zip(old, shape))
        if new != old:
            self.shape[name] = new
            self.changed = True
            self._vals.clear()          # integer terms read shapes

    def _atom_shape(self, a):
        if isinstance(a, Var):
            t = self.types.get(a.name)
            if t is None or getattr(t, "is_list", False):
                return None
            if not getattr(t, "ndim", 0):
                return ()
            return self.shape.get(a.name)
        if isinstance(a, Const):
            return ()
        return None

    def _block(self, block):
        for s in block:
            if isinstance(s, Bind):
                if len(s.targets) == 1:
                    self._set(s.target, self._bind(s))
                else:
                    for t in s.targets:
                        self._set(t, None)
            for sub in ir.sub_blocks(s):
                self._block(sub)

    def _bind(self, s: Bind):
        op = s.op
        nd = getattr(self.types.get(s.target), "ndim", 0)
        if not nd:
            return None
        args = [self._atom_shape(a) for a in s.args]
        if op is CALL:
            return self._call(s)
        if op is CONCAT:
            return self._concat(s, args, nd)
        if op.shape_arg and len(s.args) == 2:      # x.reshape(shape): the shape's values
            shape = s.args[1]
            vals = self.dims(shape) if isinstance(shape, Var) else None
            if vals is None:
                items = shape.items if isinstance(shape, TupleA) else (shape,)
                vals = tuple(self.val(x) for x in items)
            return None if any(isinstance(v, int) and v < 0 for v in vals) else vals
        if op is COPY or op.keeps_shape:
            return args[0]
        if op is GETITEM:
            return self._getitem(s, args[0])
        if op is _TRANSPOSE:
            return None if args[0] is None else tuple(reversed(args[0]))
        if op.from_shape:
            shape = s.args[0]
            dims = self.dims(shape) if isinstance(shape, Var) else None
            if dims is not None:            # np.zeros(x.shape), np.zeros((n,) + s[1:])
                return dims
            items = shape.items if isinstance(shape, TupleA) else (shape,)
            return tuple(self.val(x) for x in items)
        if getattr(op, "pointwise", False):
            return self._broadcast(args, nd)
        if op.type_rule is typerules.reduction and "axis" in s.statics:
            base = args[0]
            if base is None:
                return None
            ax = s.statics["axis"] % len(base)
            return base[:ax] + base[ax + 1:]
        if op in _EXPAND and "axis" in s.statics and args[0] is not None:
            base = args[0]
            ax = s.statics["axis"] % (len(base) + 1)
            return base[:ax] + (1,) + base[ax:]
        if op.type_rule is typerules.product:
            a, b = args
            if a is None or b is None:
                return None
            if len(a) == 2 and len(b) == 2:
                return (a[0], b[1])
            if len(a) == 2 and len(b) == 1:
                return (a[0],)
            if len(a) == 1 and len(b) == 2:
                return (b[1],)
            return None
        if op.type_rule is typerules.outer:
            a, b = args
            if a is not None and b is not None and len(a) == 1 and len(b) == 1:
                return (a[0], b[0])
        return None

    def _call(self, s):
        """A helper's result: the shape its own analysis gives the value it returns, in the
        caller's terms (the callee's parameters' axes and integers replaced by the arguments')."""
        if self.prog is None or self.depth > 4:
            return None
        callee = self.prog.specs.get((id(s.callee), arg_types(s, self.types)))
        ret = callee.ir.body[-1] if callee is not None else None
        if callee is None or not isinstance(ret, ir.Return) or len(ret.values) != 1 \
                or not isinstance(ret.values[0], Var):
            return None
        inner = Shapes(callee, self.prog, self.depth + 1)
        sh = inner.of(ret.values[0].name)
        if sh is None:
            return None
        env = {}
        for p, a in zip(callee.ir.params, s.args):
            ash = self._atom_shape(a)
            if ash:
                for k, d in enumerate(ash):
                    env[("dim", p, k)] = d
            v = self.val(a)
            if v is not None:
                env[("val", p)] = v
        return tuple(_subst(d, env) for d in sh)

    def _concat(self, s, args, nd):
        """np.concatenate along an axis: the parts' lengths added there, their common length
        on the other axes."""
        if any(a is None or len(a) != nd for a in args):
            return None
        ax = settle_statics(s.op, s.statics, [nd] * len(s.args)).get("axis", 0)
        if not isinstance(ax, int):
            return None
        ax %= nd
        out = []
        for k in range(nd):
            dims = [a[k] for a in args]
            if k == ax:
                if any(d is None for d in dims):
                    out.append(None)
                    continue
                total = 0
                rest = []
                for d in dims:
                    if isinstance(d, int):
                        total += d
                    else:
                        rest.append(d)
                term = total if not rest else None
                if rest:
                    acc = rest[0]
                    for d in rest[1:]:
                        acc = ("+",) + tuple(sorted((acc, d), key=repr))
                    term = acc if total == 0 else ("+",) + tuple(sorted((acc, total), key=repr))
                out.append(term)
            else:
                out.append(dims[0] if all(d is not None and d == dims[0] for d in dims) else None)
        return tuple(out)

    def _broadcast(self, args, nd):
        if any(a is None for a in args):
            return None
        out = []
        for k in range(nd):
            dims = [a[len(a) - nd + k] for a in args if len(a) >= nd - k]
            out.append(broadcast(dims))
        return tuple(out)

    def _getitem(self, s, base):
        if base is None:
            return None
        index = s.args[1:]
        out = []
        for k, a in enumerate(index):
            if isinstance(a, Slice):
                out.append(slice_length(base[k] if k < len(base) else None, a, self.val))
                continue
            t = self.types.get(a.name) if isinstance(a, Var) else None
            if isinstance(a, Const) and a.value is None:
                return None
            if t is not None and getattr(t, "ndim", 0):
                return None         # index arrays and masks: the shape of their selection
        return tuple(out) + tuple(base[len(index):])
