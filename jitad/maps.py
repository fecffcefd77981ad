"""Stage 4c — maps: runs of pointwise array operations become one loop over their elements.

Takes: a typed `Spec` and its symbolic shapes (`shapes.Shapes`).
Guarantees: a new `ir.Function` for the spec (the shared IR is never changed) computing the
same values, in which every *run* -- consecutive binds of pointwise primitives (`+`, `*`,
`np.tanh`, `np.where` ...; `Primitive.pointwise`) of rank 1 or 2 -- is one loop nest over the
run's shape (`ir.For` with `pointwise=True`, a *map*): each bind runs on numbers (the same
primitive, scalar operands), each array operand is read one element per iteration (an
operand with fewer axes, an axis of length 1, or an axis only the run can relate -- `b` of
`X @ W + b` -- read at `i * step`, the step 0 or 1 decided before the loop by
`rt.broadcast_step`, which raises NumPy's error for lengths that do not broadcast), and a
result is written to an array only if something outside the run reads it; the others are
numbers in the loop. A run's shape is that of its first bind, widened by broadcasting only
through binds that read one of its own full-shape results (`a * w + b`); a result narrower
than the run (fewer axes, or an axis of length 1) is written at its own index (`SetItem` with
`in_range=True`, not `init`: a broadcast position is written again with the same value),
a full-shape one by an `init` write of each element. A reduction of a full-shape result only
it reads becomes an accumulator in the loop: `np.sum(t)` a number before the loops; `np.sum`
or `np.mean` of a rank-2 t along one `axis=` (keepdims= is an `expand_dims` after it) a
number per element of its result, the reduced axis the inner loop, written to the result
(an `init` write; a mean divided there, as NumPy divides) -- so `np.sum(Qx * Qx, axis=1)` is
one loop nest writing the row sums, and no (n, d) temporary is made or differentiated. So a
chain of n array operations makes at most its live results as arrays instead of n
temporaries, and reverse and forward mode differentiate a loop of scalar operations, the code
they make best: the adjoint of `u = a * x * x + b` is one loop, no zeros, no un-broadcasting.
When a run is taken (else the binds stay as they are): at least two binds (or one and a
fused reduction); no bind rebinds a name another bind of the run read before
it or that the run binds twice; no `x op= e` update; the reductions along an axis of one
run all reduce the same axis.
Invariants: the loop reads only arrays no statement of the run writes, and every write of an
iteration depends only on that iteration's operands, so iterations are independent (but for
the accumulators a reduction carries along its axis); types of the new names are added to
`spec.types`; the spec's `ir` is replaced only if a run was found.
"""
from __future__ import annotations

import dataclasses

from . import ir
from .ir import Bind, Const, For, If, SetItem, TupleA, Var, While
from .names import Namer
from .primitives import COPY, GETITEM, get
from .shapes import broadcast
from .types import I8, Ty

_DIM, _EMPTY, _MUL, _ADD, _DIV = get("dim"), get("empty"), get("mul"), get("add"), get("truediv")
_SUM, _SUM_AXIS, _MEAN_AXIS = get("sum"), get("sum_axis"), get("mean_axis")
_BDIM, _BSTEP = get("broadcast_dim"), get("broadcast_step")
ALONG, ONE, STEP = "along", "one", "step"
_NP_DTYPE = {"f8": "np.float64", "f4": "np.float32", "i8": "np.int64", "b1": "np.bool_"}


def maps(spec, shapes):
    """Replace `spec.ir` by a function whose pointwise runs are maps (see the module doc);
    returns whether anything changed."""
    m = _Maps(spec, shapes)
    body = m.block(spec.ir.body)
    if not m.changed:
        return False
    spec.ir = dataclasses.replace(spec.ir, body=body)
    return True


class _Maps:
    def __init__(self, spec, shapes):
        self.spec, self.shapes, self.types = spec, shapes, spec.types
        f = spec.ir
        self.namer = Namer(ir.taken_names(f, self.types))
        # how many statements read each name (a run's result read by no other is a number)
        self.readers: dict = {}
        for s in ir.walk(f.body):
            for n in ir.own_reads(s):
                self.readers.setdefault(n, set()).add(id(s))
        self.changed = False

    # -- finding runs ------------------------------------------------------------------
    def block(self, block):
        out, run, dom, sums, full = [], [], None, [], set()
        for s in block:
            d = self._domain(s)
            if d is not None and run and not sums and self._joins(run, s):
                if _known(d) and d == dom:          # provably the run's shape
                    run.append(s)
                    full.add(s.target)
                    continue
                if any(isinstance(a, Var) and a.name in full for a in s.args):
                    # reads a result of the run's whole shape: its own shape is that one
                    # broadcast with its other operands, as NumPy computes it (an unrelated
                    # operation of another shape -- `2 * Y` after `a[:, None] + a[None, :]`
                    # -- must not be made to broadcast with the run)
                    wide = _widen(dom, d)
                    if wide != dom:
                        full = set()                # results before now may be narrower
                    run.append(s)
                    full.add(s.target)
                    dom = wide
                    continue
            if run and self._sums(run, sums, s, full):
                sums.append(s)
                continue
            out += self._emit(run, dom, sums)
            run, dom, sums, full = ([s], d, [], {s.target}) if d is not None else ([], None, [], set())
            if d is None:
                out.append(self._inner(s))
        out += self._emit(run, dom, sums)
        return out

    def _sums(self, run, sums, s, full):
        """Whether `s` is a reduction the loop can make itself -- `np.sum(t)`, or `np.sum` or
        `np.mean` of a rank-2 t along one `axis=` (every such reduction of the run the same
        axis) -- of a result `t` of the run's whole shape that nothing else outside the run
        reads: then the loop adds t's elements up instead of writing them."""
        if not (isinstance(s, Bind) and len(s.args) == 1 and isinstance(s.args[0], Var)):
            return False
        if s.op is _SUM:
            if s.statics:
                return False
        elif s.op in (_SUM_AXIS, _MEAN_AXIS):
            if set(s.statics) != {"axis"} or self._axis(s) is None:
                return False
            if s.op is _MEAN_AXIS and self.types[s.args[0].name].ndim < 2:
                return False    # a whole mean: its division stays NumPy's (n = 0: nan)
            axes = {self._axis(r) for r in sums if r.op in (_SUM_AXIS, _MEAN_AXIS)}
            if axes - {self._axis(s)}:
                return False
        else:
            return False
        t = s.args[0].name
        ids = {id(b) for b in run}
        return t in {b.target for b in run} and t not in {x.args[0].name for x in sums} \
            and self.readers.get(t, set()) - ids == {id(s)} and t in full

    def _axis(self, s):
        """The axis an `axis=` reduction of a run's result reduces, counted from 0 (None: not a
        constant axis of it)."""
        ax, nd = s.statics.get("axis"), self.types[s.args[0].name].ndim
        if not isinstance(ax, int) or isinstance(ax, bool) or not -nd <= ax < nd:
            return None
        return ax % nd

    def _inner(self, s):
        subs = ir.sub_blocks(s)
        if not subs:
            return s
        new = [self.block(b) for b in subs]
        if all(a == b for a, b in zip(new, subs)):
            return s
        if isinstance(s, If):
            return dataclasses.replace(s, body=new[0], orelse=new[1])
        if isinstance(s, While):
            return dataclasses.replace(s, cond=new[0], body=new[1])
        if isinstance(s, For):
            return dataclasses.replace(s, body=new[0])
        return s

    def _domain(self, s):
        """The shape a bind's run iterates over, if the bind can join a map."""
        if not (isinstance(s, Bind) and len(s.targets) == 1 and s.op.pointwise and not s.inplace):
            return None
        if any(isinstance(a, Var) and a.name == s.target for a in s.args):
            return None         # x = x - r: its result is a new array the old one is read into
        t = self.types.get(s.target)
        if t is None or getattr(t, "is_list", False) or t.ndim not in (1, 2) \
                or t.dtype not in _NP_DTYPE:
            return None         # (complex values stay arrays)
        dom = self.shapes.of(s.target) or (None,) * t.ndim
        for a in s.args:
            if not isinstance(a, (Var, Const)):
                return None
            if isinstance(a, Var):
                at = self.types.get(a.name)
                if at is None or getattr(at, "is_list", False) or at.dtype not in _NP_DTYPE:
                    return None
                if at.ndim and self._layout(a.name, dom) is None:
                    return None
        return dom

    def _layout(self, name, dom):
        """Per axis of the operand `name`: ALONG where it provably runs along the domain's
        axis, ONE where its length is 1 (read at 0), STEP where only the run can tell (a
        broadcast of lengths nothing relates: `b` of `X @ W + b`; read at `i * step`, step
        0 or 1 decided before the loop); None if it has more axes than the domain."""
        t = self.types[name]
        sh = self.shapes.of(name) or (None,) * t.ndim
        if len(sh) > len(dom):
            return None
        out = []
        for k, d in enumerate(sh):
            full = dom[len(dom) - len(sh) + k]
            out.append(ALONG if d is not None and d == full else ONE if d == 1 else STEP)
        return out

    @staticmethod
    def _joins(run, s):
        """`s` may run element by element after the run's binds: it rebinds nothing the run
        read or bound (the old array would be gone by the time a later element reads it)."""
        bound = {b.target for b in run}
        read = {a.name for b in run for a in b.args if isinstance(a, Var)}
        return s.target not in bound and s.target not in read

    # -- making the loop ---------------------------------------------------------------
    def _emit(self, run, dom, sums=()):
        if len(run) < 2 and not sums:
            return list(run)
        self.changed = True
        loc = run[0].loc
        ids = {id(s) for s in run} | {id(s) for s in sums}
        kept = [s.target for s in run
                if any(r not in ids for r in self.readers.get(s.target, ()))]
        pre = []
        self._dims = {}
        # the operands read element by element (not results of the run itself)
        operands = []
        targets = {b.target for b in run}
        for b in run:
            for a in b.args:
                if isinstance(a, Var) and a.name not in targets and self.types[a.name].ndim \
                        and a.name not in operands:
                    operands.append(a.name)
        # the loop's lengths: an operand's whose length it provably is, else their broadcast
        lengths = [self._length_of(operands, dom, k, loc, pre) for k in range(len(dom))]
        # the step of each axis an operand may be broadcast along (0 or 1, checked)
        self._steps, self._along = {}, set()
        for name in operands:
            layout = self._layout(name, dom)
            off = len(dom) - len(layout)
            for k, how in enumerate(layout):
                if how == STEP and self._dims.get((name, k)) == lengths[off + k]:
                    layout[k] = ALONG       # the loop's length is this operand's own
                    self._along.add((name, k))
                if how == STEP and layout[k] == STEP:
                    st = self._int(f"{name}_step", _BSTEP, (Var(self._dim(name, k, loc, pre)),
                                                            _atom(lengths[off + k])), loc, pre)
                    self._steps[(name, k)] = st
        idx = [self.namer.fresh("i" if k == 0 else "j") for k in range(len(dom))]
        for v in idx:
            self.types[v] = I8
        shape = TupleA(tuple(_atom(n) for n in lengths))
        # what each result is computed from (the operands outside the run, transitively)
        self._from = {}
        for b in run:
            self._from[b.target] = set().union(*(
                self._from.get(a.name, {a.name}) for a in b.args
                if isinstance(a, Var) and (a.name in self._from or self.types[a.name].ndim)))
        self._lengths, self._partial = lengths, {}
        for t in kept:
            ty = self.types[t]
            own = self._own_shape(t, dom, loc, pre)
            pre.append(Bind((t,), _EMPTY, (TupleA(tuple(_atom(n) for n in own)) if own else shape,),
                            loc, {"dtype": _NP_DTYPE[ty.dtype]}))
        # the reductions: a whole one adds up in a number before the loops; one along an axis
        # (of a rank-2 run) in a number per element of its result, that axis the inner loop
        accs, after, starts, ends = {}, [], [], []
        red = next((self._axis(r) for r in sums if r.op in (_SUM_AXIS, _MEAN_AXIS)
                    and len(dom) > 1), None)
        order = [k for k in range(len(dom)) if k != red] + ([red] if red is not None else [])
        for r in sums:
            acc = accs[r.target] = self.namer.fresh(f"{r.target}_acc")
            ty = self.types[r.target]
            self.types[acc] = Ty(ty.dtype, 0)
            zero = Bind((acc,), COPY, (Const(0.0 if ty.is_float else 0),), r.loc)
            if red is None or r.op is _SUM:         # a whole sum
                pre.append(zero)
                after.append(Bind((r.target,), COPY, (Var(acc),), r.loc))
                continue
            rest = [k for k in range(len(dom)) if k != red]
            pre.append(Bind((r.target,), _EMPTY, (TupleA(tuple(_atom(lengths[k]) for k in rest)),),
                            r.loc, {"dtype": _NP_DTYPE[ty.dtype]}))
            starts.append(zero)
            value = acc
            if r.op is _MEAN_AXIS:     # divided in the loop: NumPy's division (n = 0: nan)
                value = self.namer.fresh(f"{r.target}_e")
                self.types[value] = Ty(ty.dtype, 0)
                ends.append(Bind((value,), _DIV, (Var(acc), _atom(lengths[red])), r.loc))
            ends.append(SetItem(r.target, tuple(Var(idx[k]) for k in rest), Var(value), r.loc,
                                init=True))
        body, elem, reads = [], {}, {}
        for s in run:
            args = []
            for a in s.args:
                if isinstance(a, Var) and a.name in elem:
                    args.append(Var(elem[a.name]))
                elif isinstance(a, Var) and self.types[a.name].ndim:
                    args.append(Var(self._read(a.name, dom, idx, s.loc, reads, body)))
                else:
                    args.append(a)
            t = s.target
            ty = self.types[t]
            e = self.namer.fresh(f"{t}_e") if t in kept else t
            elem[t] = e
            body.append(dataclasses.replace(s, targets=(e,), args=tuple(args)))
            if t in kept:
                self.types[e] = Ty(ty.dtype, 0)
                body.append(self._write(t, e, dom, idx, s.loc, pre, body, reads))
            else:
                self.types[t] = Ty(ty.dtype, 0)
            for r in sums:          # acc = acc + t's element
                if r.args[0].name == t:
                    acc = accs[r.target]
                    body.append(Bind((acc,), _ADD, (Var(acc), Var(e)), r.loc))
        loop = body
        for k in reversed(order):
            loop = [For(idx[k], Const(0), _atom(lengths[k]), Const(1), loop, loc, pointwise=True)]
            if k == red:            # each element of an axis reduction: its own number
                loop = starts + loop + ends
        return pre + loop + after

    def _own_shape(self, t, dom, loc, pre):
        """None if result `t` provably has the run's shape; else its lengths (a run may widen by
        broadcasting after t: `a * w + b`), each the broadcast of the lengths of what it is
        computed from, and (`_partial`) the step it is written with along each axis."""
        sh = self.shapes.of(t)
        if sh == dom:
            return None
        # a result of lower rank runs along the domain's last axes, as NumPy aligns them
        off = len(dom) - self.types[t].ndim
        own, steps = [], [None] * off
        for k, d in enumerate(dom):
            if k < off:
                continue
            tk = sh[k - off] if sh is not None else None
            if tk is not None and tk == d:
                own.append(self._lengths[k])
                steps.append(ALONG)
            elif tk == 1:
                own.append(1)
                steps.append(ONE)
            else:
                n = None
                for name in sorted(self._from[t]):
                    layout = self._layout(name, dom)
                    off = len(dom) - len(layout)
                    if 0 <= k - off < len(layout):
                        m = self._dim(name, k - off, loc, pre)
                        n = m if n is None else self._int("n", _BDIM, (Var(n), Var(m)), loc, pre)
                if n is None:
                    own.append(1)
                    steps.append(ONE)
                    continue
                own.append(n)
                steps.append(self._int(f"{t}_step", _BSTEP, (Var(n), _atom(self._lengths[k])),
                                       loc, pre))
        self._partial[t] = steps
        return own

    def _write(self, t, e, dom, idx, loc, pre, body, reads):
        """t[i, j] = e for a result of the run's shape (its first write: `init`); for a
        narrower one, at its own index: a broadcast position is written again with the same
        value, and its adjoint is read once (the write is not `init`, so the adjoint zeroes
        what it read)."""
        steps = self._partial.get(t)
        if steps is None:
            return SetItem(t, tuple(Var(v) for v in idx), Var(e), loc, init=True)
        index = []
        for k, how in enumerate(steps):
            if how is None:         # an axis the result does not have
                continue
            if how == ALONG:
                index.append(Var(idx[k]))
            elif how == ONE:
                index.append(Const(0))
            else:
                key = (idx[k], how)
                if key not in reads:
                    reads[key] = self._int("at", _MUL, (Var(idx[k]), Var(how)), loc, body)
                index.append(Var(reads[key]))
        return SetItem(t, tuple(index), Var(e), loc, in_range=True)

    def _length_of(self, operands, dom, k, loc, pre):
        """A name (or constant) holding the length of the domain's axis k: an operand's
        axis provably of that length, else the broadcast of the operands' lengths there
        (`rt.broadcast_dim`, which raises NumPy's error for lengths that do not broadcast)."""
        if isinstance(dom[k], int):
            return dom[k]
        along = []
        for name in operands:
            layout = self._layout(name, dom)
            off = len(dom) - len(layout)
            if 0 <= k - off < len(layout):
                if layout[k - off] == ALONG:
                    return self._dim(name, k - off, loc, pre)
                along.append((name, k - off))
        # every result of the run is the broadcast of its operands, so the first bind's
        # operands reach every axis: `along` is not empty
        n = self._dim(*along[0], loc, pre)
        for name, kk in along[1:]:
            n = self._int("n", _BDIM, (Var(n), Var(self._dim(name, kk, loc, pre))), loc, pre)
        return n

    def _dim(self, name, k, loc, pre):
        """A name holding `name.shape[k]` (one per operand and axis)."""
        if (name, k) not in self._dims:
            self._dims[(name, k)] = self._int("n", _DIM, (Var(name), Const(k)), loc, pre)
        return self._dims[(name, k)]

    def _int(self, base, op, args, loc, into):
        n = self.namer.fresh(base)
        self.types[n] = I8
        into.append(Bind((n,), op, tuple(args), loc))
        return n

    def _read(self, name, dom, idx, loc, reads, body):
        """The number `name[...]` at this iteration (read once per iteration)."""
        if name in reads:
            return reads[name]
        layout = self._layout(name, dom)
        off = len(dom) - len(layout)
        index = []
        for k, how in enumerate(layout):
            if (name, k) in self._along:
                how = ALONG
            if how == ALONG:
                index.append(Var(idx[off + k]))
            elif how == ONE:
                index.append(Const(0))
            else:           # i * step: i, or 0 where the operand is broadcast
                key = (idx[off + k], self._steps[(name, k)])
                if key not in reads:
                    reads[key] = self._int("at", _MUL, (Var(key[0]), Var(key[1])), loc, body)
                index.append(Var(reads[key]))
        e = self.namer.fresh(f"{name}_e")
        self.types[e] = Ty(self.types[name].dtype, 0)
        # in range by construction: a step index is i or 0 on an axis of the loop's length or 1
        body.append(Bind((e,), GETITEM, (Var(name),) + tuple(index), loc,
                         in_range=any(how == STEP for how in layout)))
        reads[name] = e
        return e


def _widen(dom, d):
    """The broadcast of two shapes, aligned at their last axes as NumPy aligns them (an
    axis nothing names: None)."""
    n = max(len(dom), len(d))
    dom, d = (1,) * (n - len(dom)) + tuple(dom), (1,) * (n - len(d)) + tuple(d)
    return tuple(broadcast([a, b]) for a, b in zip(dom, d))


def _known(dom):
    return dom is not None and all(x is not None for x in dom)


def _atom(n):
    return Var(n) if isinstance(n, str) else Const(n)
