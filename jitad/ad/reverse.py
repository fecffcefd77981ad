"""Stage 6 — reverse (the sweeps): the primal and the fused forward-with-tape + adjoint, as Python AST.

Takes: a `Program` (typed specializations), one `Spec`, and the parameters to differentiate.
Guarantees:
  * `primal()` is the function itself in A-normal form (what `f(x)` runs);
  * `vjp()` is `f_vjp(params..., d_out) -> (value, (d_p, ...))`: a forward sweep that pushes
    onto typed tapes only the values the adjoint reads and the forward overwrites, then the
    adjoint sweep that walks the IR backwards applying the adjoint rules of its primitives;
  * the state (every variable, every array element written) at each point of the adjoint
    sweep equals the forward state at the mirrored point: pops restore overwritten values,
    `y[i] = v` is undone, branches replay the recorded test, loops run their recorded trip
    count backwards (counted loops recompute their index instead of taping it; a map whose
    adjoint pops nothing runs forwards: its iterations are independent);
  * adjoints exist only for active variables (`activity`), start as `0.0` (`0j` for a complex
    scalar) or `np.zeros_like(x)` chosen here from the types, and are un-broadcast onto their
    argument (an elementwise contribution that would make a temporary -- a sum onto a
    lower-rank adjoint, a row read again per row -- is a loop adding into the adjoint where
    its operands fit the cotangent's trailing axes at run time, else the un-broadcasting
    call: `fitted`); a real argument of an operation with complex values takes the real part of its
    contribution (`real_part`: the convention of docs/architecture.md);
  * tapes: one float64, complex128, int64 and uint8 buffer with an integer top each, grown by
    `rt.reserve` before counted loops (one check per loop) or, for a `while`, once per
    `TAPE_CHUNK` iterations, outside the loop running them (`chunked_while`);
    arrays go to a list per dtype and rank. Nothing is pushed for a value never overwritten,
    nor for one its block's adjoint computes again (`rematerialize`: `Analysis.remat`);
    a checkpointed loop (`recompute`) pushes only its state at each iteration's start, and
    its adjoint iteration pops it and computes the iteration's values again;
  * with `keep` (jacrev: `vjp(jacobian=...)`, `jacobian_function`), the adjoint sweep runs
    once per basis cotangent after one forward sweep: it pops no tape (lists are read at a
    counter, `Tapes.keep`), what it reads before assigning is assigned back before each run,
    and it changes nothing the forward made -- a sweep that would (array elements restored, a
    built list popped, any in-place write or call `_changes` cannot vouch for) is refused
    (`destroys`), never run twice.
"""
from __future__ import annotations

import ast
import copy
from collections import Counter

from .. import ir, runtime
from .. import pyast as P
from ..bounds import Bounds, site_of
from ..ir import Bind, Const, For, If, Return, SetItem, Slice, Var, While
from ..names import Namer
from ..primitives import CALL, CONCAT, COPY, GETITEM, SHAPE, runtime_calls, substitute
from ..pyast import Comment
from ..primitives.lists import LIST_APPEND, LIST_NEW
from ..types import NP_DTYPE, Ty, arg_types as _argtys
from .analysis import Analysis, bind_statics, rule_for
from .calls import float_args
from .indexing import add_at, index_form, read_at, write_at
from .recompute import checkpoints
from .tapes import TAPE_CHUNK, Tapes, max_recursion, max_tape_bytes
from .training import TrainingCode


def appended_lists(f) -> frozenset:
    """The ids of the copies `u = hs` (COPY binds) of function `f` (IR) whose target is
    appended to where the copy may have run before: later in the copy's block, or anywhere in
    the innermost loop around it (its next iteration). There `u` must be a new list object."""
    def appends(stmts, name):
        return any(isinstance(x, Bind) and x.op is LIST_APPEND and isinstance(x.args[0], Var)
                   and x.args[0].name == name for x in ir.walk(stmts))
    out = set()

    def visit(block, loop):
        for k, s in enumerate(block):
            if isinstance(s, Bind) and s.op is COPY and isinstance(s.args[0], Var) \
                    and (appends(block[k + 1:], s.targets[0])
                         or (loop is not None and appends(loop, s.targets[0]))):
                out.add(id(s))
            whole = [x for sub in ir.sub_blocks(s) for x in sub]
            for sub in ir.sub_blocks(s):
                visit(sub, whole if isinstance(s, (For, While)) else loop)
    visit(f.body, None)
    return frozenset(out)


def forward_expr(s: Bind, fnames, types, reentrant=False, grown=frozenset()):
    """The right-hand side computing a bind in the forward sweep (`reentrant`: code the front
    end reads again -- a forward template it would not read back as the same primitive becomes
    the primitive's own call, see `primitives.runtime_calls.reads_back`; `grown`: the copies
    of lists appended to after them, `appended_lists`)."""
    if s.op is COPY:
        if id(s) in grown and getattr(types.get(s.targets[0]), "is_list", False):
            # a new list object (`u = hs`, then `u.append(v)`): the append must not grow hs,
            # whose length the adjoint sweep reads when it makes hs's zero adjoint
            return P.call("list", P.atom(s.args[0]))
        return P.atom(s.args[0])
    if s.op is GETITEM:
        return read_at(P.atom(s.args[0]), s.args[1:], types, reentrant)
    if s.op is CALL:
        return P.call(fnames[(id(s.callee), _argtys(s, types))], *[P.atom(a) for a in s.args])
    if s.op is SHAPE:
        shape = ast.Attribute(P.atom(s.args[0]), "shape", ast.Load())
        # `n, = x.shape` of a vector: its one length (a statement with one target is printed
        # `n = ...`, not unpacked)
        return P.subscript(shape, [Const(0)]) if len(s.targets) == 1 else shape
    if s.op is LIST_NEW:    # typed by its elements (Numba types `[]` by appends it follows)
        t = types.get(s.targets[0])
        return dummy(t) if getattr(t, "is_list", False) and t.elem is not None \
            else ast.List([], ast.Load())
    if s.op is LIST_APPEND:     # printed as a statement: the list is updated in place
        return P.call(ast.Attribute(P.atom(s.args[0]), "append", ast.Load()), P.atom(s.args[1]))
    if s.op is CONCAT:
        axis = bind_statics(s, types)["axis"]
        kw = {"axis": P.const(axis)} if axis else {}
        return P.call("np.concatenate", ast.Tuple([P.atom(a) for a in s.args], ast.Load()), **kw)
    rule = rule_for(s, types)
    statics = bind_statics(s, types)
    mapping = {p: P.atom(a) for p, a in zip(rule.params, s.args)}
    for k in rule.statics:
        v = statics.get(k)
        mapping[k] = P.dotted(v) if isinstance(v, str) else P.const(v)
    # (a library call without a rule, `opaque`, is read back from its own template)
    if reentrant and not getattr(rule, "needs_rule", False) \
            and not runtime_calls.reads_back(rule.forward):
        # a string static is a constant there (np.linalg.norm's ord='fro'), unless it spells
        # a dotted name (a dtype, np.float64) as the templates read it
        return runtime_calls.call(rule, [
            P.const(statics[k]) if isinstance(statics.get(k), str) and "." not in statics[k]
            else mapping[k] for k in list(rule.params) + list(rule.statics)])
    return P.fold(substitute(rule.forward, mapping))


def _assigned(block) -> set:
    """The names statements of `block` (and the blocks in it) assign."""
    out = set()
    for s in block:
        if isinstance(s, Bind):
            out.update(s.targets)
        elif isinstance(s, For):
            out.add(s.var)
            out |= _assigned(s.body)
        elif isinstance(s, If):
            out |= _assigned(s.body) | _assigned(s.orelse)
        elif isinstance(s, While):
            out |= _assigned(s.cond) | _assigned(s.body)
    return out


def _fresh_expr(e):
    """An expression that always evaluates to a newly allocated array (never a view/alias)."""
    if isinstance(e, ast.BinOp):
        return True
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _fresh_expr(e.operand)
    if isinstance(e, ast.Call):
        fn = ast.unparse(e.func)
        if fn.startswith("rt."):
            return fn[3:] in runtime.FRESH
        return fn.startswith("np.") and fn not in _NP_VIEWS
    return False


# NumPy functions that may return a view of their operand (NumPy's np.diag of a matrix is even
# a read-only one): an adjoint assigned from one would alias, and `+=` would write through it
_NP_VIEWS = frozenset(
    "np.asarray np.ascontiguousarray np.reshape np.transpose np.expand_dims np.diag np.diagonal "
    "np.ravel np.squeeze np.swapaxes np.moveaxis np.flip np.fliplr np.flipud np.rot90 "
    "np.broadcast_to np.real np.imag np.atleast_1d np.atleast_2d np.atleast_3d "
    "np.lib.stride_tricks.as_strided np.lib.stride_tricks.sliding_window_view".split())


class Reverse(TrainingCode):
    def __init__(self, prog, spec, wrt, fnames, vjp_names, callee_wrt=None, split_names=None,
                 recursive=frozenset(), costly=frozenset(), reentrant=False, keep=False):
        self.prog = prog
        # an adjoint sweep run several times on one forward's state (jacrev's rows, see
        # `jacobian_function`): tapes read without popping; `destroys` says why it cannot be
        self.keep = keep
        self.destroys = []
        # code the front end reads again (`higher`: a primal the jvp calls): a forward template
        # it could not read is the primitive's own call (`forward_expr`)
        self.reentrant = reentrant
        # (id(fn), argtys) of the functions in a recursion cycle: they take a `depth` argument
        self.recursive = recursive
        # (id(fn), argtys) -> the arguments a callee's vjp differentiates (default: its floats)
        self.callee_wrt = callee_wrt or {}
        # (id(fn), argtys) -> (fwd, bwd) names of callees cut in two (see split_functions)
        self.split_names = split_names or {}
        self.costly = costly        # split callees whose state is kept in loops and branches too
        self.saved = {}             # id(call bind) -> the local holding that call's saved state
        self.on_tape = set()        # id(call bind) of those whose states go on a tape
        self.adjoint_buffers = {}   # parameter -> the thread buffer its adjoint adds into
        self.spec = spec
        self.wrt = tuple(wrt)
        self.types = spec.types
        self.grown = appended_lists(spec.ir)
        self.fnames = fnames        # (id(fn), argtys) -> primal name
        self.vjp_names = vjp_names  # (id(fn), argtys) -> vjp name
        self.A = Analysis(spec, wrt, prog)
        self.bounds = Bounds(spec)
        f = spec.ir
        taken = {n for s in ir.walk(f.body) for n in ir.writes(s) + ir.reads(s)} | set(f.params)
        taken |= {s.test for s in ir.walk(f.body) if isinstance(s, (If, While))}
        taken |= set(fnames.values()) | set(vjp_names.values()) | {"np", "math", "rt", "bool", "range"}
        self.namer = Namer(taken)
        self.depth = self.namer.fresh("depth") if self.key() in recursive else None
        self.adj = {}
        self.rank = {}
        self.tapes = Tapes(self.namer)
        self.tapes.keep = keep
        self.trip_names = {}
        self.aliases = set()        # generated names holding a primal value, not an adjoint
        # loops whose adjoint computes each iteration again from its checkpoint (`recompute`):
        # id(loop) -> Checkpoint; the binds of their bodies push nothing
        self.checkpoints = checkpoints(self.A, f.body)
        self.unpushed = {id(x) for s in ir.walk(f.body) if id(s) in self.checkpoints
                         for x in ir.walk(s.body)}
        self.kept_before = {}       # (id(bind), target) -> the local its recomputation kept
        # the variables those adjoint loops assign (state popped, binds computed again): like
        # a pushed variable's, their values after the adjoint sweep are not the forward's last
        self.rewritten = {v for s in ir.walk(f.body) for c in [self.checkpoints.get(id(s))] if c
                          for v in c.state + [t for x in ir.walk(s.body)
                                              if isinstance(x, Bind) and id(x) in c.required
                                              for t in x.targets]}

    # ------------------------------------------------------------------ naming
    def d(self, v):
        if v not in self.adj:
            self.adj[v] = self.namer.fresh(f"d_{v}")
            t = self.types.get(v)
            # a list's adjoint is a list: never indexed as an array (`scalarized`)
            self.rank[self.adj[v]] = None if getattr(t, "is_list", False) else getattr(t, "ndim", 0)
        return self.adj[v]

    def rank_of(self, name):
        """Rank of a name in generated code (user variables, adjoints, their temporaries)."""
        if name in self.rank:
            return self.rank[name]
        t = self.types.get(name)
        return getattr(t, "ndim", None)

    def ty(self, v):
        return self.types[v]

    def same_shape(self, a, b) -> bool:
        """Whether arrays a and b provably have one shape (`shapes`): an elementwise
        contribution to b shaped like a needs no un-broadcasting."""
        shapes = getattr(self.spec, "shapes", None)
        return shapes is not None and shapes.same(a, b)

    def zero(self, v):
        t = self.ty(v)
        if t.is_list:       # [np.zeros_like(e) for e in hs]: one zero per element
            e = self.namer.fresh("e")
            zero = P.call("np.zeros_like", P.name(e)) if t.elem.ndim else scalar_zero(t)
            return ast.ListComp(zero, [ast.comprehension(P.name(e, store=True), P.name(v), [], 0)])
        return P.call("np.zeros_like", P.name(v)) if t.ndim else scalar_zero(t)

    def element_zero(self, v, block):
        """The zero adjoint of an array `v = hs[i]` read from a list in this block, shaped like
        that element (`np.zeros_like(hs[i])`), where `i` is a name or constant the block does
        not assign (a loop's own index: this iteration's at the start of its adjoint): `v` itself
        still holds the last iteration's element there, and a list's arrays may differ in shape
        (`np.array_split`'s parts). None otherwise (`zero`)."""
        t = self.types.get(v)
        if t is None or getattr(t, "is_list", False) or not getattr(t, "ndim", 0):
            return None
        bind = next((s for s in block if isinstance(s, Bind) and s.targets == (v,)
                     and s.op is GETITEM), None)
        if bind is None or len(bind.args) != 2 or not isinstance(bind.args[0], Var) \
                or not getattr(self.types.get(bind.args[0].name), "is_list", False):
            return None
        idx = bind.args[1]
        if isinstance(idx, Var) and idx.name in _assigned(block):
            return None
        index = P.name(idx.name) if isinstance(idx, Var) else P.const(idx.value)
        return P.call("np.zeros_like", ast.Subscript(P.name(bind.args[0].name), index,
                                                     ast.Load()))

    def real_part(self, v, contrib, complex_in):
        """A contribution to the adjoint of v: its real part where v is real and the
        operation had complex values (`complex_in`): the cotangent of a real x feeding a
        complex result is Re(cotangent * derivative) under the convention of
        docs/architecture.md (dL/dRe z - i dL/dIm z)."""
        if complex_in and not getattr(self.ty(v), "is_complex", False):
            return P.call("np.real", contrib)
        return contrib

    # ------------------------------------------------------------------ primal
    def primal(self):
        f = self.spec.ir
        body = self.fwd_block(f.body, tape=False)[0]
        return _fdef(self.fnames[self.key()], f.params, self.depth_check() + body, self.depth)

    def depth_check(self):
        """A recursive function's first statement: RecursionError past the limit, as Python
        raises (a compiled recursion that deep would overflow the C stack and crash)."""
        if not self.depth:
            return []
        return [P.expr_stmt(P.call("rt.check_depth", P.name(self.depth), P.const(max_recursion()),
                                   P.const(site_of(self.spec.ir.loc))))]

    def call_depth(self, key):
        """The extra argument of a call to `key` if it is recursive: depth + 1 from a caller
        in the recursion, 0 from one outside it."""
        if key not in self.recursive:
            return []
        if self.depth:
            return [P.binop(P.name(self.depth), ast.Add(), P.const(1))]
        return [P.const(0)]

    def key(self):
        return (id(self.spec.fn), self.spec.argtys)

    # ------------------------------------------------------------------ forward sweep
    def fwd_block(self, block, tape=True):
        """(statements, pushes per tape kind the caller must reserve, whether it re-reserves).

        Tape capacity is proven segment by segment: the caller reserves room for every push
        up to the block's first statement that reserves for itself (a loop with pushes, or a
        branch holding one); such a statement only guarantees room for its own pushes, so the
        pushes after it, up to the next one, get their own `rt.reserve` right after it."""
        segs = [(Counter(), [])]      # (push counts, statements) per segment
        for s in block:
            counts, out = segs[-1]
            if isinstance(s, Bind):
                if tape and s.op is not LIST_APPEND and id(s) not in self.unpushed:
                    # (an append is undone by a pop; a checkpointed loop's values by its
                    # recomputation)
                    for t in s.targets:
                        if t in self.A.pushed and not self.A.first_site_unpushed(s, t):
                            self.push(out, counts, P.name(t), self.ty(t), tag=(id(s), t))
                out += self.bounds.checks(s)
                split = self.split_call(s, block) if tape else None
                if split is not None:
                    saved = self.saved[id(s)] = self.namer.fresh(f"{s.target}_saved")
                    out.append(P.assign_many(list(s.targets) + [saved], P.call(
                        split[0], *[P.atom(a) for a in s.args])))
                    first = out[-1]
                    if block is not self.spec.ir.body:      # run again: its states on a tape
                        out[-1].jitad_loc = (s.loc.filename, s.loc.line)
                        out.append(P.expr_stmt(P.call(P.dotted(
                            f"{self.tapes.states(split[0])}.append"), P.name(saved))))
                        self.on_tape.add(id(s))
                else:
                    rhs = forward_expr(s, self.fnames, self.types, self.reentrant, self.grown)
                    if s.op is CALL:
                        rhs.args += self.call_depth((id(s.callee), _argtys(s, self.types)))
                    if s.op.effect or s.op is LIST_APPEND:   # a check, an append: statements
                        out.append(P.expr_stmt(rhs))
                    else:
                        out.append(P.assign(s.target, rhs) if len(s.targets) == 1
                                   else P.assign_many(s.targets, rhs))
                    first = out[-1]
                out[-1].jitad_loc = (s.loc.filename, s.loc.line)
                if s.op is CALL:       # a branch `par` may dispatch (at the top level, in ifs)
                    first.jitad_bind = first.value.jitad_bind = tuple(s.targets)
            elif isinstance(s, SetItem):
                out += self.bounds.checks(s)
                if tape and s.array in self.A.needed and not s.init:
                    elem = self.elem_ty(s)
                    old = read_at(P.name(s.array), s.index, self.types)
                    if elem.ndim and index_form(s.index, self.types)[0] == "basic":
                        old = P.call(ast.Attribute(old, "copy", ast.Load()))
                    self.push(out, counts, old, elem)
                out.append(write_at(s.array, s.index, P.atom(s.value), self.types,
                                    self.reentrant))
                out[-1].jitad_loc = (s.loc.filename, s.loc.line)
            elif isinstance(s, If):
                b, cb, db = self.fwd_block(s.body, tape)
                o, co, do = self.fwd_block(s.orelse, tape)
                for k in set(cb) | set(co):
                    counts[k] += max(cb[k], co[k])
                out.append(ast.If(P.name(s.test), b or [ast.Pass()], o))
                if db or do:
                    segs.append((Counter(), []))
            elif isinstance(s, (For, While)):
                stmts, reserves, post = (self.fwd_for if isinstance(s, For) else self.fwd_while)(
                    s, tape, counts)
                out += stmts
                if reserves:
                    segs.append((Counter(), []))
                for value, ty in post:
                    self.push(segs[-1][1], segs[-1][0], value, ty)
            elif isinstance(s, Return):
                if tape:
                    continue
                vals = [P.atom(a) for a in s.values]
                out.append(ast.Return(vals[0] if len(vals) == 1 else ast.Tuple(vals, ast.Load())))
        out = list(segs[0][1])
        for counts, stmts in segs[1:]:
            out += self.tapes.reserve(counts) + stmts
        return out, segs[0][0], len(segs) > 1

    def split_call(self, s, block):
        """(fwd, bwd) names if `s` calls a split callee with an adjoint to propagate, at the
        function's top level or (a costly callee: see `calls.costly`) anywhere."""
        if not (s.op is CALL and self.A.is_active_bind(s)):
            return None
        key = (id(s.callee), _argtys(s, self.types))
        if block is not self.spec.ir.body and key not in self.costly:
            return None
        return self.split_names.get(key)

    def push(self, into, counts, value, ty, tag=None):
        """Append the push of `value` to `into`, counting it for the tape's reservation
        (`tag`: the pair's, see `Tapes`)."""
        stmts, kind = self.tapes.push(value, ty, tag)
        into += stmts
        if kind:
            counts[kind] += 1

    def elem_ty(self, s: SetItem):
        """The type of y[index] for a write y[index] = v (`typerules.subscript`'s)."""
        read = Bind((s.array,), GETITEM, (Var(s.array),) + tuple(s.index), s.loc)
        return GETITEM.result_type(read, [self.ty(s.array)] + [
            None if isinstance(a, Slice) else self.types[a.name] if isinstance(a, Var)
            else Ty("i8") for a in s.index])

    def fwd_for(self, s: For, tape, counts):
        """(statements up to the loop, whether it reserves tape room itself, pushes after it).
        Pushes before the loop count in `counts`."""
        rng = P.call("range", *self.range_args(s))
        work = tape and self.A.work(s.body)
        body, bc, dyn = self.fwd_block(s.body, tape)
        if work:
            body = self.checkpoint_pushes(s, bc) + body
        pre, post = [], []
        if work:
            if s.var in self.A.pushed:
                self.push(pre, counts, P.name(s.var), self.ty(s.var))
            if self.needs_trip(s):
                trip = self.trip(s)
                pre.append(P.assign(trip, P.call("rt.trip_count", P.atom(s.start), P.atom(s.stop),
                                                  P.atom(s.step))))
                if self.in_loop(s):
                    post.append((P.name(trip), Ty("i8")))
            if bc:
                if dyn:
                    body = self.tapes.reserve(bc) + body
                else:
                    n = P.name(self.trip(s)) if self.needs_trip(s) else \
                        P.call("rt.trip_count", P.atom(s.start), P.atom(s.stop), P.atom(s.step))
                    if not self.needs_trip(s) and _num_or_none(s.start) == 0 and _is_one(s.step):
                        n = P.atom(s.stop)
                    pre += self.tapes.reserve(bc, n)
        loop = ast.For(P.name(s.var, store=True), rng, body or [ast.Pass()], [])
        loop.jitad_map = s.pointwise
        return self.bounds.hoisted(s) + pre + [loop], work and bool(bc or dyn), post

    def range_args(self, s):
        if _num_or_none(s.start) == 0 and _is_one(s.step):
            return [P.atom(s.stop)]
        if _is_one(s.step):
            return [P.atom(s.start), P.atom(s.stop)]
        return [P.atom(s.start), P.atom(s.stop), P.atom(s.step)]

    def needs_trip(self, s: For):
        return not (_is_one(s.step) or _num_or_none(s.step) == -1)

    def trip(self, s):
        if id(s) not in self.trip_names:
            base = f"{s.var}_trips" if isinstance(s, For) else "trips"
            self.trip_names[id(s)] = self.namer.fresh(base)
        return self.trip_names[id(s)]

    def in_loop(self, s):
        return self._loop_depth(self.spec.ir.body, s, 0) > 0

    def _loop_depth(self, block, target, depth):
        for x in block:
            if x is target:
                return depth
            subs = []
            if isinstance(x, If):
                subs = [(x.body, depth), (x.orelse, depth)]
            elif isinstance(x, While):
                subs = [(x.cond, depth + 1), (x.body, depth + 1)]
            elif isinstance(x, For):
                subs = [(x.body, depth + 1)]
            for b, dd in subs:
                r = self._loop_depth(b, target, dd)
                if r is not None:
                    return r
        return None

    def fwd_while(self, s: While, tape, counts):
        """As `fwd_for`: (statements up to the loop, whether it reserves, pushes after it)."""
        work = tape and self.A.work(s.body)
        cond, _, _ = self.fwd_block(s.cond, tape=False)
        body, bc, dyn = self.fwd_block(s.body, tape)
        if work:
            body = self.checkpoint_pushes(s, bc) + body
        pre, post = [], []
        chunked = work and bool(bc) and not dyn
        if work:
            trip = self.trip(s)
            pre.append(P.assign(trip, P.const(0)))
            # a loop that never ends must not take all the memory: its tape is bounded
            used = self.tapes.bytes_used()
            limit = [] if used is None else [P.expr_stmt(P.call(
                "rt.check_tape", used, P.const(max_tape_bytes()), P.const(site_of(s.loc))))]
            body = [P.aug(trip, P.const(1))] + limit + \
                ([] if chunked else self.tapes.reserve(bc)) + body
            if self.in_loop(s):
                post.append((P.name(trip), Ty("i8")))
        if chunked:
            return pre + self.chunked_while(s, cond, body, bc), True, post
        # `while <test>:` when the test is one expression, else `while True: ...; if not t: break`
        if len(cond) == 1 and isinstance(cond[0], ast.Assign) and cond[0].targets[0].id == s.test \
                and s.test not in self.A.needed:
            loop = ast.While(cond[0].value, body or [ast.Pass()], [])
        else:
            brk = ast.If(ast.UnaryOp(ast.Not(), P.name(s.test)), [ast.Break()], [])
            loop = ast.While(P.const(True), cond + [brk] + body, [])
        return pre + [loop], work and bool(bc or dyn), post

    def chunked_while(self, s: While, cond, body, bc):
        """A `while` whose iterations push a fixed number of values per tape (`bc`) reserves
        room for `TAPE_CHUNK` iterations at a time, outside the loop that runs them:
            while True:
                tape = rt.reserve(tape, top + n * TAPE_CHUNK)    (per tape kind)
                chunk = TAPE_CHUNK
                while chunk > 0:
                    cond...; if not test: break
                    chunk -= 1
                    body...
                if chunk > 0: break        (the test failed, not the chunk)
        The iterations are the loop's own, in order (the IR's `While` body holds no `break`:
        `normalize` made it structured). A tape array that the loop running the pushes may
        reassign costs Numba reference counting on every push: reserving per iteration made
        the Hessian-vector product of an ODE loop 1.4x its forward pass slower."""
        chunk = self.namer.fresh("chunk")
        inner = cond + [ast.If(ast.UnaryOp(ast.Not(), P.name(s.test)), [ast.Break()], []),
                        ast.AugAssign(P.name(chunk, store=True), ast.Sub(), P.const(1))] + body
        outer = self.tapes.reserve(bc, P.const(TAPE_CHUNK)) + [
            P.assign(chunk, P.const(TAPE_CHUNK)),
            ast.While(ast.Compare(P.name(chunk), [ast.Gt()], [P.const(0)]), inner, []),
            ast.If(ast.Compare(P.name(chunk), [ast.Gt()], [P.const(0)]), [ast.Break()], [])]
        return [ast.While(P.const(True), outer, [])]

    # ------------------------------------------------------------------ adjoint sweep
    def rev_block(self, block, bid=None):
        bid = id(block) if bid is None else bid
        out = self.rematerialize(bid)
        for v in self.owned.get(bid, []):
            if v not in self.adjoint_buffers:
                out.append(P.assign(self.d(v), self.element_zero(v, block) or self.zero(v)))
        for s in reversed(block):
            out += self.rev_stmt(s)
        return out

    def rematerialize(self, bid):
        """The start of a block's adjoint: the values of the block the forward did not keep
        because they are cheap to compute again from operands that have not changed
        (`Analysis.remat`), computed again in the forward's order."""
        out = []
        for b in self.A.remat_binds.get(bid, ()):
            out.append(P.assign(b.target, forward_expr(b, self.fnames, self.types,
                                                       self.reentrant, self.grown)))
            out[-1].jitad_loc = (b.loc.filename, b.loc.line)
        return out

    def comment(self, loc):
        return P.Comment(f"line {loc.line}: {loc.source_line().strip()}", loc)

    def rev_stmt(self, s):
        if isinstance(s, Bind):
            return self.rev_bind(s)
        if isinstance(s, SetItem):
            return self.rev_setitem(s)
        if isinstance(s, If):
            if not (self.A.work(s.body) or self.A.work(s.orelse)):
                return []
            b = self.rev_block(s.body)
            o = self.rev_block(s.orelse)
            if not b:
                return [ast.If(ast.UnaryOp(ast.Not(), P.name(s.test)), o, [])]
            return [ast.If(P.name(s.test), b, o)]
        if isinstance(s, For):
            return self.rev_for(s)
        if isinstance(s, While):
            if not self.A.work(s.body):
                return []
            out = []
            trip = self.trip(s)
            if self.in_loop(s):
                out += self.tapes.pop(trip, Ty("i8"))
            again = self.recomputation(s)
            body = again + self.rev_block(s.body)
            out.append(ast.For(P.name("_", store=True), P.call("range", P.name(trip)), body, []))
            return out
        if isinstance(s, Return):
            out = [self.comment(s.loc)] if any(isinstance(a, Var) and a.name in self.A.active
                                               for a in s.values) else []
            for k, a in enumerate(s.values):
                if isinstance(a, Var) and a.name in self.A.active:
                    seed = P.name(self.seed) if len(s.values) == 1 else \
                        P.subscript(self.seed, [Const(k)])
                    out.append(self.accumulate(a.name, seed, self.ty(a.name).ndim, safe=True))
            return out
        return []

    def rev_for(self, s: For):
        if not self.A.work(s.body):
            return []
        out = []
        if self.needs_trip(s) and self.in_loop(s):
            out += self.tapes.pop(self.trip(s), Ty("i8"))
        again = self.recomputation(s)
        body = again + self.rev_block(s.body)
        if id(s) in self.A.replayed:     # a map: its values computed again, nothing pushed
            body = self.replay(s.body, body) + body
        start, stop, step = (P.atom(a) for a in (s.start, s.stop, s.step))
        stepv = _num_or_none(s.step)
        if id(s) in self.A.replayed and not _pops(body):
            # a map's iterations are independent and its adjoint pops nothing: they run in
            # the forward's order (memory read ascending: what prefetchers and LLVM's
            # vectorizer like best: a Rosenbrock Hessian's column loop 5.2 -> 4.1 ms)
            rng = [start, stop] + ([] if stepv == 1 else [step])
            if stepv == 1 and _num_or_none(s.start) == 0:
                rng = [stop]
        elif stepv == 1:
            rng = [P.binop(stop, ast.Sub(), P.const(1)), P.binop(P.atom(s.start), ast.Sub(), P.const(1)),
                   P.const(-1)]
        elif stepv == -1:
            rng = [P.binop(stop, ast.Add(), P.const(1)), P.binop(P.atom(s.start), ast.Add(), P.const(1))]
        else:
            trip = P.name(self.trip(s))
            last = P.binop(start, ast.Add(), P.binop(P.binop(trip, ast.Sub(), P.const(1)), ast.Mult(), step))
            rng = [last, P.binop(P.atom(s.start), ast.Sub(), P.atom(s.step)),
                   ast.UnaryOp(ast.USub(), P.atom(s.step)) if not isinstance(s.step, Const)
                   else P.const(-s.step.value)]
        out.append(ast.For(P.name(s.var, store=True), P.call("range", *rng), body or [ast.Pass()], []))
        out[-1].jitad_map = s.pointwise
        if s.var in self.A.pushed:
            out += self.tapes.pop(s.var, self.ty(s.var))
        return out

    def checkpoint_pushes(self, loop, counts):
        """A checkpointed loop's (`recompute`) pushes at the start of each iteration: its
        state, counted in `counts` (the loop's reservation per iteration)."""
        cp = self.checkpoints.get(id(loop))
        out = []
        for v in cp.state if cp else ():
            self.push(out, counts, P.name(v), self.ty(v), tag=(id(loop), v))
        return out

    def recomputation(self, loop):
        """The start of a checkpointed loop's adjoint iteration: its state popped, then the
        binds whose values the iteration's adjoint reads, computed again as the forward
        computed them; a value a bind overwrites that the adjoint restores (a pushed
        variable's) is kept in a local first (`kept_before`, read back by `restore`)."""
        cp = self.checkpoints.get(id(loop))
        if cp is None:
            return []
        out = []
        for v in reversed(cp.state):
            out += self.tapes.pop(v, self.ty(v), (id(loop), v))
        return out + self._recompute(loop.body, cp)

    def _recompute(self, block, cp):
        out = []
        for s in block:
            if isinstance(s, If):
                b, o = self._recompute(s.body, cp), self._recompute(s.orelse, cp)
                if b or o:
                    out.append(ast.If(P.name(s.test), b or [ast.Pass()], o))
                continue
            if id(s) not in cp.required:
                continue
            for x in s.targets:
                if x in self.A.pushed and x in cp.restored:
                    keep = self.kept_before[(id(s), x)] = self.namer.fresh(f"{x}_before")
                    out.append(P.assign(keep, P.name(x)))
            rhs = forward_expr(s, self.fnames, self.types, self.reentrant, self.grown)
            out.append(P.assign(s.target, rhs) if len(s.targets) == 1
                       else P.assign_many(s.targets, rhs))
            out[-1].jitad_loc = (s.loc.filename, s.loc.line)
        return out

    def restore(self, s, x):
        """The adjoint's statements giving `x` back the value it held before bind `s`: a pop
        of the tape, the local a checkpointed loop's recomputation kept, or nothing (that
        recomputation did not run s, or nothing reads x's older value: `recompute.restored`)."""
        if id(s) not in self.unpushed:
            return self.tapes.pop(x, self.ty(x), (id(s), x))
        keep = self.kept_before.get((id(s), x))
        return [] if keep is None else [P.assign(x, P.name(keep))]

    def replay(self, block, adjoint):
        """A map's body again, for its `adjoint` statements: the binds whose values they read
        (directly or through other binds), without checks and without writing results. A
        number the body stored as an element's first write (`y[i] = e`, `init`) into an array
        the adjoint keeps (`needed`: at this point it holds what the map wrote) is read back
        from it (`e = y[i]`) instead of computed again: a tanh, an exp, a chain of them."""
        live = {n.id for st in adjoint for n in ast.walk(st)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        stored = self.A.stored_results(block)
        out = []
        for x in reversed(block):
            if isinstance(x, Bind) and x.target in live:
                w = stored.get(x.target)
                if w is not None:
                    out.append(P.assign(x.target, read_at(P.name(w.array), w.index, self.types)))
                    live |= {n for a in w.index for n in ir.atom_names(a)}
                else:
                    out.append(P.assign(x.target, forward_expr(x, self.fnames, self.types,
                                                               grown=self.grown)))
                    live |= set(ir.reads(x))
                out[-1].jitad_loc = (x.loc.filename, x.loc.line)
        return out[::-1]

    def accumulate(self, v, contrib, contrib_ndim, safe, exact=False, owned=False):
        """d_v += contrib, un-broadcast onto v (decided here from the ranks; `fitted` adds a
        run-time test of the shapes choosing between its loop and the un-broadcasting call).
        `exact`: contrib is shaped exactly like v; `owned`: it is an array nothing else holds
        (a gradient a generated vjp returned), so it may become d_v itself."""
        t = self.ty(v)
        if t.is_list:       # element by element (contrib: an array along axis 0, or a list)
            return P.expr_stmt(P.call("rt.list_accum", P.name(self.d(v)), contrib))
        if t.ndim == 0:
            if contrib_ndim:
                contrib = P.call("np.sum", contrib)
            return P.aug(self.d(v), contrib)
        if contrib_ndim == 0 or safe:
            if safe and t.ndim <= 2:
                loop = self.scalarized(self.d(v), t.ndim, contrib)
                if loop is not None:
                    return loop
            stmt = P.aug(self.d(v), contrib)
            # a new array shaped exactly like v: as v's first contribution it can be assigned
            # instead of added to zeros (see codegen._first_contribution)
            stmt.jitad_fresh = exact and t.dtype == "f8" and (owned or _fresh_expr(contrib))
            # any other value as d_v's first contribution: d_v may take it when it is shaped
            # like v, after an alias analysis where it may be another name's array
            stmt.jitad_first = t.dtype == "f8"
            return stmt
        fitted = self.fitted(v, contrib, contrib_ndim)
        for _ in range(contrib_ndim - t.ndim):
            contrib = P.call("rt.sum0", contrib)
        if t.ndim <= 2:
            stmt = P.expr_stmt(P.call(f"rt.accum{t.ndim}", P.name(self.d(v)), contrib))
            if fitted is not None:      # the loop where the shapes fit, else this call
                return ast.If(fitted[0], [fitted[1]], [stmt], lineno=0)
            stmt.jitad_first = t.dtype == "f8"
            return stmt
        # rank >= 3: sum over the axes where v has length 1 (x[:, None, :] - x[None, :, :])
        for k in range(t.ndim):
            size = P.subscript(ast.Attribute(P.name(v), "shape", ast.Load()), [Const(k)])
            contrib = P.call("rt.sum_keep", contrib, P.const(k), size)
        return P.aug(self.d(v), contrib)

    def scalarized(self, target, ndim, contrib):
        """`d += e` with every array in e shaped like d, as an element loop: no temporary
        arrays (what dominates small per-sample adjoints). None if e is not elementwise."""
        if not hasattr(self, "_elem_idx"):
            self._elem_idx = [self.namer.fresh("k"), self.namer.fresh("k2")]
        idx = self._elem_idx[:ndim]

        def at(name, r):
            if r != ndim:
                return None
            return P.subscript(name, [Var(i) for i in idx])
        body = _Elements(self.rank_of, at).of(contrib)
        if body is None:
            return None
        loop = [P.aug(P.subscript(target, [Var(i) for i in idx]), body)]
        for k in reversed(range(ndim)):
            shape = P.subscript(ast.Attribute(P.name(target), "shape", ast.Load()), [Const(k)])
            loop = [ast.For(P.name(idx[k], store=True), P.call("range", shape), loop, [])]
            loop[0].jitad_map = True    # an array operation: NumPy's arithmetic
        return loop[0]

    def fitted(self, v, contrib, contrib_ndim):
        """`d_v += e` un-broadcast onto v (rank <= 2, floats), e elementwise of rank 1 or 2
        whose shapes are not known to agree (`Qdiags[k] * xc`'s adjoints, `sum0(g * xc)`
        onto Qdiags[k]): (test, loop) -- a loop over the elements of e's full-rank operand
        (the cotangent) adding each into d_v at its trailing indices (summing over the
        leading axes d_v lacks), no temporary arrays, and the run-time test under which it
        equals the un-broadcasting call: every array in e and d_v has exactly that operand's
        trailing axes (no length-1 broadcasting), and, where the loop sums (d_v of lower
        rank than e), d_v shares no memory with any array in e. None if e is not such an
        expression, or if the loop would save nothing: e a bare array, or d_v of e's rank
        with every array in e of that rank too (`rt.first_accum1(x, g * b)`, the
        first contribution, takes e's new array as d_v)."""
        t = self.ty(v)
        if isinstance(contrib, ast.Name):
            return None     # `rt.accum2(d, g)`, `rt.accum1(d, rt.sum0(g))`: no temporary of g's size
        if not 1 <= contrib_ndim <= 2 or t.ndim == 0 or t.ndim > contrib_ndim \
                or t.dtype not in ("f8", "f4") or getattr(t, "is_list", False):
            return None
        if not hasattr(self, "_elem_idx"):
            self._elem_idx = [self.namer.fresh("k"), self.namer.fresh("k2")]
        idx = self._elem_idx[:contrib_ndim]
        arrays = {}

        def at(name, r):
            if r > contrib_ndim:
                return None
            arrays[name] = r
            return P.subscript(name, [Var(i) for i in idx[contrib_ndim - r:]])
        body = _Elements(self.rank_of, at).of(contrib)
        full = sorted(n for n, r in arrays.items() if r == contrib_ndim)
        if body is None or not full:
            return None
        if t.ndim == contrib_ndim and len(full) == len(arrays):
            return None     # no sum, no row read again: `d = g * b` as d's first contribution is no waste
        d, lead = self.d(v), full[0]
        tests = [P.call("rt.trailing_fit", P.name(lead), P.name(n))
                 for n in [*sorted(arrays), d] if n != lead]
        if t.ndim < contrib_ndim:
            tests += [ast.UnaryOp(ast.Not(), P.call("rt.overlaps", P.name(d), P.name(n)))
                      for n in sorted(arrays)]
        loop = [P.aug(P.subscript(d, [Var(i) for i in idx[contrib_ndim - t.ndim:]]), body)]
        for k in reversed(range(contrib_ndim)):
            shape = P.subscript(ast.Attribute(P.name(lead), "shape", ast.Load()), [Const(k)])
            loop = [ast.For(P.name(idx[k], store=True), P.call("range", shape), loop, [],
                            lineno=0)]
            loop[0].jitad_map = True    # an array operation: NumPy's arithmetic
        test = tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
        return test, loop[0]

    def needs_reset(self, v):
        """Whether d_v must be zeroed after its assignment is reversed (an older value of v
        gets adjoint contributions later in the sweep)."""
        sites = self.A.sites[v]
        return len(sites) > 1 or sites[0][2][-1] != self.A.owner(v)

    def rev_list(self, s: Bind):
        """The adjoint of `hs = []` (restore the list an earlier run of it made, if taped) and
        of `hs.append(x)`: d_x gets the last element of d_hs, and both lists shrink by one,
        so the list and its adjoint are as they were before the append."""
        hs = s.target
        out = []
        if s.op is LIST_NEW:
            if hs in self.A.pushed and not self.A.first_site_unpushed(s, hs):
                out += self.tapes.pop(hs, self.ty(hs))
            if hs in self.A.active and self.needs_reset(hs) and not self.A.runs_once_first(s, hs):
                out.append(P.assign(self.d(hs), self.zero(hs)))
            return out
        x = s.args[1]
        if hs in self.A.active:
            last = P.call(P.dotted(f"{self.d(hs)}.pop"))
            if isinstance(x, Var) and x.name in self.A.active:
                out += [self.comment(s.loc),
                        self.accumulate(x.name, last, self.ty(x.name).ndim, safe=True)]
            else:
                out.append(P.expr_stmt(last))
        if hs in self.A.needed or hs in self.A.active:
            out.append(P.expr_stmt(P.call(P.dotted(f"{hs}.pop"))))
            self.destroys.append(f"the adjoint sweep pops the list {hs} the forward built")
        return out

    def rev_bind(self, s: Bind):
        if s.op is LIST_NEW or s.op is LIST_APPEND:
            return self.rev_list(s)
        t = s.target
        active = self.A.is_active_bind(s)
        pushed = [x for x in s.targets if x in self.A.pushed and not self.A.first_site_unpushed(s, x)]
        if not active:
            out = []
            for x in reversed(pushed):
                out += self.restore(s, x)
            return out
        out = [self.comment(s.loc)]
        rule = None if s.op.structural else rule_for(s, self.types)
        arg_names = [a.name for a in s.args if isinstance(a, Var)]
        # x = x + e: the adjoint of x passes through unchanged, no temporary, no reset
        passthrough = None
        if len(s.targets) == 1 and arg_names.count(t) == 1 and rule is not None:
            p = rule.params[[i for i, a in enumerate(s.args) if isinstance(a, Var) and a.name == t][0]]
            adj = rule.adjoints.get(p)
            if isinstance(adj, ast.Name) and adj.id == "g":
                passthrough = t
        aliased = [x for x in s.targets if x in self.A.active and x in arg_names and x != passthrough]
        g = {}
        for x in s.targets:
            if x not in self.A.active:
                g[x] = None
                if s.op is CALL and x in pushed and self.ty(x).ndim:
                    # a callee's result without a cotangent gets zeros shaped like the value
                    # the call returned: taken here, before the pops restore the old value
                    zname = self.namer.fresh(f"g_{x}")
                    self.rank[zname] = self.ty(x).ndim
                    out.append(P.assign(zname, P.call("np.zeros_like", P.name(x))))
                    g[x] = P.name(zname)
            elif x in aliased or (s.op is CALL and x in pushed):
                gname = self.namer.fresh(f"g_{x}")
                self.rank[gname] = self.ty(x).ndim
                out.append(P.assign(gname, P.name(self.d(x))))
                g[x] = P.name(gname)
            else:
                g[x] = P.name(self.d(x))
        y = P.name(t)
        if pushed:
            if rule is not None and t in pushed and rule.reads_result():
                ynew = self.namer.fresh(f"{t}_new")
                self.rank[ynew] = self.ty(t).ndim
                self.aliases.add(ynew)
                out.append(P.assign(ynew, P.name(t)))
                y = P.name(ynew)
            for x in reversed(pushed):
                out += self.restore(s, x)
        for x in aliased:
            out.append(P.assign(self.d(x), self.zero(x)))
        out += self.contributions(s, g, y, rule, skip=passthrough)
        for x in s.targets:
            if x in self.A.active and x not in aliased and x != passthrough and self.needs_reset(x) \
                    and not self.A.runs_once_first(s, x):
                out.append(P.assign(self.d(x), self.zero(x)))
        return out if len(out) > 1 else []

    def contributions(self, s, g, y, rule, skip=None):
        out = []
        act = lambda a: isinstance(a, Var) and a.name in self.A.active  # noqa: E731
        gt = g[s.target]
        if s.op is COPY:
            a = s.args[0]
            if act(a):
                out.append(self.accumulate(a.name, gt, self.ty(s.target).ndim, safe=True))
            return out
        if s.op is GETITEM:
            a = s.args[0]
            if not act(a):
                return out
            index = s.args[1:]
            if a.name in getattr(self, "sparse", {}):
                return out  # a row of a row-sparse parameter: its adjoint feeds the update
            out.append(add_at(self.d(a.name), index, gt, self.types, self.ty(s.target).ndim))
            return out
        if s.op is CONCAT:
            axis = bind_statics(s, self.types)["axis"]
            lo = P.const(0)
            for a in s.args:
                size = P.subscript(ast.Attribute(P.atom(a), "shape", ast.Load()), [Const(axis)])
                hi = P.binop(lo, ast.Add(), size)
                if act(a):
                    parts = [Slice()] * axis + [Slice(lo, hi)]
                    out.append(self.accumulate(a.name, P.subscript(gt, parts), 1, safe=True))
                lo = hi
            return out
        if s.op is CALL:
            key = (id(s.callee), _argtys(s, self.types))
            callee = self.prog.specs[key]
            cot = []
            for x in s.targets:
                cot.append(g[x] if g[x] is not None else
                           (P.call("np.zeros_like", P.name(x)) if self.ty(x).ndim
                            else scalar_zero(self.ty(x))))
            cot = cot[0] if len(cot) == 1 else ast.Tuple(cot, ast.Load())
            grads = self.namer.fresh(f"{s.target}_grads")
            if id(s) in self.saved:     # its forward ran once already; its state was kept
                fwd, bwd = self.split_names[key]
                if id(s) in self.on_tape:
                    out += self.tapes.pop_list(self.saved[id(s)], self.tapes.states(fwd))
                out.append(P.assign(grads, P.call(bwd, *[P.atom(a) for a in s.args],
                                                  P.name(self.saved[id(s)]), cot)))
                # a branch `par` may dispatch (the call is tagged too: tidying may fold it)
                out[-1].jitad_adjoint = out[-1].value.jitad_adjoint = tuple(s.targets)
            else:
                out.append(P.assign(grads, P.subscript(
                    P.call(self.vjp_names[key], *[P.atom(a) for a in s.args], cot, *self.call_depth(key)),
                    [Const(1)])))
            for k, pos in enumerate(self.callee_wrt.get(key, float_args(callee))):
                a = s.args[pos]
                if act(a):
                    # a generated vjp returns its parameters' adjoints, each a buffer of its
                    # own shaped like the argument (see `grads` in `function`)
                    out.append(self.accumulate(a.name, P.subscript(grads, [Const(k)]),
                                               callee.argtys[pos].ndim, safe=True, exact=True,
                                               owned=True))
            return out
        mapping = {p: P.atom(a) for p, a in zip(rule.params, s.args)}
        statics = bind_statics(s, self.types)
        for k in rule.statics:
            v = statics[k]
            mapping[k] = P.const(v) if not isinstance(v, str) else P.dotted(v)
        mapping["g"] = gt
        mapping["y"] = y
        res_nd = self.ty(s.target).ndim
        complex_in = any(getattr(self.ty(n), "is_complex", False) for n in s.targets) or any(
            isinstance(a, Var) and getattr(self.ty(a.name), "is_complex", False) for a in s.args) \
            or any(isinstance(a, Const) and isinstance(a.value, complex) for a in s.args)
        done = set()
        for i, (p, a) in enumerate(zip(rule.params, s.args)):
            if not act(a) or p not in rule.adjoints or (skip is not None and a.name == skip) \
                    or a.name in done:
                continue
            done.add(a.name)
            contrib = P.fold(substitute(rule.adjoints[p], mapping))
            # the same variable in several operands (x * x): one sum of its contributions
            for q, b in list(zip(rule.params, s.args))[i + 1:]:
                if b == a and q in rule.adjoints:
                    contrib = ast.BinOp(contrib, ast.Add(), P.fold(substitute(rule.adjoints[q], mapping)))
            contrib = self.real_part(a.name, contrib,
                                     complex_in or _complex_const(rule.adjoints[p]))
            others = [b for j, b in enumerate(s.args) if j != i]
            elementwise = rule.elementwise
            # (an element loop over the contribution reads every array in it at the index:
            # the result and every array operand must have the argument's shape)
            safe = not elementwise or all(_atom_nd(b, self.types) == 0 or b == a for b in others) \
                or (self.same_shape(s.target, a.name) and all(
                    _atom_nd(b, self.types) == 0 or self.same_shape(b.name, a.name) for b in others))
            # the contribution is an array shaped exactly like the argument (not a scalar that
            # broadcasts): an elementwise rule with scalar co-operands, or a dot/outer rule
            exact = (elementwise and safe and res_nd == self.ty(a.name).ndim) or rule.exact
            out.append(self.accumulate(a.name, contrib, res_nd if elementwise else self.ty(a.name).ndim,
                                       safe, exact))
        return out

    def rev_setitem(self, s: SetItem):
        out = []
        arr_active = s.array in self.A.active
        if not arr_active and s.array not in self.A.needed:
            return out
        kind, arrays = index_form(s.index, self.types)
        if arr_active:
            out.append(self.comment(s.loc))
            elem = self.elem_ty(s)
            dsub = P.subscript(self.d(s.array), s.index)
            if kind != "basic":     # an entry written twice got the last value: only it reads
                fn = {"mask": "rt.mask_get", "take": "rt.take_last", "take2": "rt.take_last2"}[kind]
                dsub = P.call(fn, P.name(self.d(s.array)), *map(P.atom, arrays))
            if isinstance(s.value, Var) and s.value.name in self.A.active:
                dsub = self.real_part(s.value.name, dsub, getattr(elem, "is_complex", False))
                out.append(self.accumulate(s.value.name, dsub, elem.ndim,
                                           safe=self.ty(s.value.name).ndim == elem.ndim))
            if not s.init:      # an element's first write: no earlier value gets its adjoint
                out.append(write_at(self.d(s.array), s.index, P.const(0.0), self.types))
        if s.array in self.A.needed and not s.init:
            self.destroys.append(f"the adjoint sweep restores elements of {s.array}")
            if kind == "basic":
                out += self.tapes.pop(P.subscript(s.array, s.index, store=True), self.elem_ty(s))
            else:
                old = self.namer.fresh(f"{s.array}_old")
                out += self.tapes.pop(old, self.elem_ty(s))
                out.append(write_at(s.array, s.index, P.name(old), self.types))
        return out

    def vjp(self, train=None, accumulate=False, split=None, into=None, grads_only=None,
            grads_into=None, jacobian=None):
        """The fused `f_vjp`; with `train`, the training step (see step_function); with
        `split=(fwd_name, bwd_name)`, the two halves (see split_functions); with `into`, that
        function (see into_function); with `grads_only`, `grads_only(params..., d_out) ->
        grads`: the vjp without its value, so what only the value needed is dead code (a loop
        of Hessian-vector products discards the value); `grads_into` is that function adding
        the gradients into buffers as `into` does (`grads_into(params..., d_out, buffers...)`:
        a Hessian's column loop passes the rows of H); with `jacobian` (and `keep`), that
        function or None (see jacobian_function)."""
        f = self.spec.ir
        self.into_buffers = accumulate
        A = self.A
        self.seed = self.namer.fresh("d_out")
        # a parameter the body assigns names several values: its adjoint restarts between
        # them (never the caller's buffer), its rows read are the new value's (never sparse)
        self.assigned = {t for s in ir.walk(f.body) for t in ir.writes(s)}
        self.sparse = {p: v for p, v in self.sparse_sites().items() if p not in self.assigned} \
            if train is not None else {}
        # dense parameters: the adjoint sweep adds straight into the buffers (jacobian: a
        # block's row)
        if accumulate or into or jacobian or grads_into:
            for i in self.wrt:
                p = f.params[i]
                if p not in self.sparse and self.ty(p).ndim and p in A.active \
                        and p not in self.assigned \
                        and not (jacobian and self.ty(p).dtype != "f8"):   # (float32: its own)
                    self.adjoint_buffers[p] = self.adj[p] = self.namer.fresh(f"acc_{p}")
                    self.rank[self.adj[p]] = self.ty(p).ndim
        # adjoint initialisation points: each active variable at the start of its owner block
        self.owned = {}
        for v in sorted(A.active, key=_order(f.body, f.params)):
            if v in self.sparse:
                continue
            self.owned.setdefault(A.owner(v), []).append(v)
        fwd, counts, _ = self.fwd_block(f.body, tape=True)
        ret = f.body[-1]
        assert isinstance(ret, Return)
        # the value, captured before the adjoint sweep restores overwritten variables (or a
        # checkpointed loop's adjoint computes them again)
        values, save = [], []
        for a in ret.values:
            # (a map's first writes are never undone: its results need no copy)
            if isinstance(a, Var) and (a.name in A.pushed or a.name in self.rewritten or any(
                    isinstance(x, SetItem) and x.array == a.name and not x.init
                    for x in ir.walk(f.body))):
                keep = self.namer.fresh(f"{a.name}_value")
                val = P.name(a.name)
                if self.ty(a.name).ndim:
                    val = P.call(ast.Attribute(val, "copy", ast.Load()))
                save.append(P.assign(keep, val))
                values.append(P.name(keep))
            else:
                values.append(P.atom(a))
        rev = self.rev_block(f.body)
        if self.keep:
            why = _changes(rev, set(self.rank) - self.aliases, self.scalar_names(),
                           self.pure_calls())
            if why:
                self.destroys.append(why)
        predef = []
        # (a checkpointed loop pushes its state at each iteration's start, read before the
        # body assigns it: defined before the loop unless first assigned at the top level)
        state = {v for c in self.checkpoints.values() for v in c.state
                 if v in A.sites and v not in f.params and not A.first_site_unpushed(A.sites[v][0][0], v)}
        for v in sorted({v for v in A.pushed | A.active if v in A.sites and A.needs_dummy(v)} | state,
                        key=_order(f.body, f.params)):
            predef.append(P.assign(v, dummy(self.ty(v))))
        grads = []
        for i in self.wrt:
            p = f.params[i]
            if p in A.active:
                grads.append(P.name(self.d(p)))
            else:
                grads.append(P.call("np.zeros_like", P.name(p)) if self.ty(p).ndim
                             else scalar_zero(self.ty(p)))
        value = values[0] if len(values) == 1 else ast.Tuple(values, ast.Load())
        if train is not None:
            return self.step_function(train, fwd, save, rev, predef, counts, value)
        first = self.tapes.init(counts) + predef + fwd + save
        if into is not None:
            return self.into_function(into, first, rev, value)
        if split is not None:
            return self.split_functions(split, first, rev, value, grads)
        if jacobian is not None:
            return self.jacobian_function(jacobian, self.tapes.init(counts) + predef + fwd, rev,
                                          ret, grads)
        if grads_only is not None or grads_into is not None:
            # grads_into: the gradients added into the caller's buffers (`buffers`)
            buffers, tail, grads = self.buffers() if grads_into is not None else ([], [], grads)
            body = (self.tapes.init(counts) + predef + fwd + [P.Comment("adjoint")] + rev + tail
                    + [ast.Return(ast.Tuple(grads, ast.Load()))])
            return self._seeded(_fdef(grads_into or grads_only, f.params + [self.seed] + buffers,
                                      self.depth_check() + body, self.depth), ret)
        body = (first + [P.Comment("adjoint")] + rev
                + [ast.Return(ast.Tuple([value, ast.Tuple(grads, ast.Load())], ast.Load()))])
        return self._seeded(_fdef(self.vjp_names[self.key()], f.params + [self.seed],
                                  self.depth_check() + body, self.depth), ret)

    def _seeded(self, fdef, ret):
        """The cotangent parameter's type on the function (`jitad_param_types`), for the
        passes after (`scalarize` reads an output adjoint's elements), when f has one output."""
        if len(ret.values) == 1 and isinstance(ret.values[0], Var):
            fdef.jitad_param_types = {self.seed: self.ty(ret.values[0].name)}
        return fdef

    def into_function(self, name, first, rev, value):
        """`f_value_and_grad_into(params..., buffers...) -> (value, grads)` of a scalar f: one
        buffer per array wrt parameter, shaped like it, into which its gradient is added (the
        adjoint sweep accumulates there directly unless the body assigns the parameter; then
        its adjoint is added at the end); grads holds the buffers and the scalar gradients."""
        f = self.spec.ir
        buffers, tail, grads = self.buffers()
        body = ([P.assign(self.seed, P.const(1.0))] + first + [P.Comment("adjoint")] + rev + tail
                + [ast.Return(ast.Tuple([value, ast.Tuple(grads, ast.Load())], ast.Load()))])
        return _fdef(name, f.params + buffers, body)

    def buffers(self):
        """(buffer parameters, tail, grads) of a function adding the gradients into its
        caller's buffers: one buffer per array wrt parameter, its adjoint itself where the
        sweep accumulates there directly, else added to it at the end (`tail`); grads holds
        the buffers and the scalar gradients."""
        f = self.spec.ir
        buffers, tail, grads = [], [], []
        for i in self.wrt:
            p = f.params[i]
            if not self.ty(p).ndim:
                grads.append(P.name(self.d(p)) if p in self.A.active else scalar_zero(self.ty(p)))
                continue
            buf = self.adjoint_buffers.get(p) or self.namer.fresh(f"acc_{p}")
            if p not in self.adjoint_buffers and p in self.A.active:
                tail.append(P.aug(buf, P.name(self.d(p))))
            buffers.append(buf)
            grads.append(P.name(buf))
        return buffers, tail, grads

    def split_functions(self, names, first, rev, value, grads):
        """The vjp cut in two where the adjoint starts: `g_fwd(args) -> (value..., saved)` and
        `g_bwd(args, saved, d_out) -> grads`, `saved` being every local the adjoint reads that
        the forward assigned (tapes, their tops, last values -- of reassigned parameters and
        loop variables too). A caller that calls g once keeps `saved` instead of running g's
        forward again inside its adjoint."""
        f = self.spec.ir
        stored = {n.id for st in first for n in ast.walk(st) if isinstance(n, ast.Name)
                  and isinstance(n.ctx, ast.Store)}
        used = {n.id for st in rev for n in ast.walk(st) if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Load)}
        used |= {st.target.id for r in rev for st in ast.walk(r)
                 if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name)}
        # a parameter the forward reassigns is saved too: the adjoint starts from its last value,
        # and g_bwd gets the caller's (the value on entry); so is a loop variable (the adjoint
        # may read its value after the loop)
        # a call's state that went on a tape is popped again before it is read: not kept
        on_tape = {self.saved[i] for i in self.on_tape}
        # what a map's adjoint loop computes again (its body's values, its index) is not kept
        live = sorted((stored & used) - on_tape - self.A.recomputed - set(self.A.remat),
                      key=lambda n: (not n.startswith("tape"), n))
        # a saved local the forward may not assign (one arm of an `if`, a loop that runs no
        # trip) starts as a typed dummy, so the pack never reads an unbound name
        certain = {t.id for st in first if isinstance(st, (ast.Assign, ast.AugAssign))
                   for t in ast.walk(st.targets[0] if isinstance(st, ast.Assign) else st.target)
                   if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)} | set(f.params)
        trips = set(self.trip_names.values())
        dummies = [P.assign(n, dummy(self.ty(n)) if n in self.types else P.const(0))
                   for n in live if n not in certain and (n in self.types or n in trips)]
        saved = self.namer.fresh("saved")
        pack = ast.Tuple([P.name(n) for n in live], ast.Load())
        values = list(value.elts) if isinstance(value, ast.Tuple) else [value]
        fwd = _fdef(names[0], f.params,
                    dummies + first + [ast.Return(ast.Tuple(values + [pack], ast.Load()))])
        unpack = [ast.Assign([ast.Tuple([P.name(n, store=True) for n in live], ast.Store())], P.name(saved),
                             lineno=0)] if live else []
        unpack += self.tapes.rewind()       # (keep: the lists' counters start at their ends)
        bwd = _fdef(names[1], f.params + [saved, self.seed],
                    unpack + [P.Comment("adjoint")] + rev + [ast.Return(ast.Tuple(grads, ast.Load()))])
        return fwd, bwd

    def scalar_names(self):
        """Generated and user names that hold numbers (an `x -= 1` of one rebinds it)."""
        out = {top for _, top in self.tapes.buffers.values()} | set(self.tapes.counters.values())
        out |= set(self.trip_names.values())
        out |= {n for n, t in self.types.items()
                if getattr(t, "ndim", None) == 0 and not getattr(t, "is_list", False)}
        return out | {n for n, r in self.rank.items() if r == 0}

    def pure_calls(self):
        """The functions an adjoint sweep may call by name without changing its arguments:
        primals, vjps (each runs its own forward), the backward halves named in `split_names`
        (with `keep`, halves that keep their state: checked by their caller), user primitives
        (functions of their operands, replayed as such) and builtins."""
        from ..extend import USER_FUNCTIONS
        return set(self.fnames.values()) | set(self.vjp_names.values()) | {
            b for _, b in self.split_names.values()} | set(_BUILTINS) | set(USER_FUNCTIONS)

    def jacobian_function(self, name, first, rev, ret, grads):
        """`name(params...) -> blocks` (jacrev; `keep`): f's forward sweep once, then per
        basis cotangent k of the output (flattened) the adjoint sweep, whose gradients are row
        k of one (y.size, p.size) block per wrt parameter p (a number: one column). None when
        the sweep cannot run twice on one forward (`destroys` says why).

        Each run must find the state the forward left. Tapes are read without popping
        (`keep`); every variable the sweep both reads before assigning and assigns (a restored
        value, a loop variable, a tape's top, a map's values computed again) is copied after
        the forward and assigned back before each run; nothing the forward made may be
        changed in place (a restored array element, a popped user list: `destroys`; and
        `_changes` checks the sweep's every in-place write and call)."""
        f = self.spec.ir
        if len(ret.values) != 1:
            self.destroys.append("f returns several values")
        if self.destroys:
            return None
        fresh = self.namer.fresh
        a = ret.values[0]
        nd = self.ty(a.name).ndim if isinstance(a, Var) else 0
        ny, k = fresh("ny"), fresh("k")
        pre = []
        seed = None
        if nd:
            pre.append(P.assign(ny, ast.Attribute(P.atom(a), "size", ast.Load())))
            seed = self.seed if nd == 1 else fresh("seed")
            pre.append(P.assign(seed, P.call("np.zeros", P.name(ny))))
            if nd > 1:      # (a view of the flat seed)
                pre.append(P.assign(self.seed, P.call(
                    ast.Attribute(P.name(seed), "reshape", ast.Load()),
                    ast.Attribute(P.atom(a), "shape", ast.Load()))))
        else:
            pre += [P.assign(ny, P.const(1)), P.assign(self.seed, P.const(1.0))]
        blocks, rows, rows_first = [], [], []
        for i, g in zip(self.wrt, grads):
            p = f.params[i]
            jac = fresh(f"jac_{p}")
            size = ast.Attribute(P.name(p), "size", ast.Load()) if self.ty(p).ndim else P.const(1)
            # the sweep adds into row k itself (then copied onto itself: the tidying passes
            # see `acc += e` as a local's update, which would be dead without that read)
            buffer = p in self.adjoint_buffers
            alloc = "np.empty" if p in self.A.active and not buffer else "np.zeros"
            pre.append(P.assign(jac, P.call(alloc, ast.Tuple([P.name(ny), size], ast.Load()))))
            blocks.append(P.name(jac))
            if buffer:
                row = P.subscript(jac, [Var(k)])
                if self.ty(p).ndim > 1:
                    row = P.call(ast.Attribute(row, "reshape", ast.Load()),
                                 ast.Attribute(P.name(p), "shape", ast.Load()))
                rows_first.append(P.assign(self.adjoint_buffers[p], row))
            if p in self.A.active:
                rows.append(P.expr_stmt(P.call("rt.set_row", P.name(jac), P.name(k), g))
                            if self.ty(p).ndim else
                            P.assign(P.subscript(jac, [Var(k), Const(0)], store=True), g))
        # what each run reads before assigning it and assigns: copied back before each run
        before = _stored(first) | set(f.params) | ({self.depth} if self.depth else set())
        restore = sorted(_exposed(rev) & _stored(rev) & before)
        certain = _certain(first) | set(f.params)
        trips = set(self.trip_names.values())
        dummies = []
        for n in restore:
            if n in certain:
                continue
            if n not in self.types and n not in trips:
                self.destroys.append(f"{n} may be unassigned after the forward sweep")
                return None
            dummies.append(P.assign(n, dummy(self.ty(n)) if n in self.types else P.const(0)))
        end = {n: fresh(f"{n}_end") for n in restore}
        body = [P.assign(P.subscript(seed, [Var(k)], store=True), P.const(1.0))] if nd else []
        body += rows_first + [P.assign(n, P.name(end[n])) for n in restore] + self.tapes.rewind()
        body += [P.Comment("adjoint")] + rev + rows
        if nd:
            body.append(P.assign(P.subscript(seed, [Var(k)], store=True), P.const(0.0)))
        # not `for k in range(ny)`: `scalarize` unrolls a short counted loop, and a copy of
        # the sweep per row cost compile time for no speed (bundle adjustment's 2 rows: Numba's
        # CPU time 2.5 -> 2.9 s, the kernel the same); nor `while k < ny`, whose test
        # `scalarize` folds with k's value before the loop (k = 0: a loop without end)
        stop = ast.If(ast.Compare(P.name(k), [ast.GtE()], [P.name(ny)]), [ast.Break()], [])
        loop = ast.While(P.const(True), [stop] + body + [P.aug(k, P.const(1))], [])
        depth = [P.assign(self.depth, P.const(0))] if self.depth else []
        fdef = _fdef(name, f.params, depth + self.depth_check() + dummies + first + pre
                     + [P.assign(end[n], P.name(n)) for n in restore] + [P.assign(k, P.const(0)), loop]
                     + [ast.Return(ast.Tuple(blocks, ast.Load()))])
        return self._seeded(fdef, ret)


class _Elements(ast.NodeTransformer):
    """An elementwise expression of arrays and numbers read at one element: each array name
    (`rank_of(name)` > 0) replaced by `at(name, rank)` (None: not such an expression), calls
    only of elementwise NumPy / math functions; `of(e)` is the rewritten copy of e, or None
    where e reads anything else (an attribute, a subscript, another call, a name of unknown
    rank)."""
    CALLS = {"np.sin", "np.cos", "np.tan", "np.exp", "np.log", "np.log1p", "np.sqrt", "np.tanh",
             "np.sinh", "np.cosh", "np.sign", "np.expm1", "np.abs", "np.arctan", "np.square"}

    def __init__(self, rank_of, at):
        self.rank_of, self.at, self.ok = rank_of, at, True

    def of(self, e):
        out = self.visit(copy.deepcopy(e))
        return out if self.ok else None

    def visit_Name(self, node):
        r = self.rank_of(node.id)
        if r is None:
            self.ok = False
        elif r:
            got = self.at(node.id, r)
            if got is None:
                self.ok = False
                return node
            return got
        return node

    def visit_Call(self, node):
        fn = ast.unparse(node.func)
        if fn not in self.CALLS and not fn.startswith("math."):
            self.ok = False
            return node
        node.args = [self.visit(a) for a in node.args]
        return node

    def visit_Attribute(self, node):
        self.ok = False
        return node

    visit_Subscript = visit_Attribute


def dummy(t):
    """A value of type `t` nothing reads: a number, an empty array, or an empty list of t's
    element type (`[0.0 for _ in range(0)]`: typed where `[]` is typed only by a later
    append, which Numba does not see past another definition of the name)."""
    if t.is_list:
        return ast.ListComp(dummy(t.elem), [ast.comprehension(
            P.name("_", store=True), P.call("range", P.const(0)), [], 0)])
    if t.ndim == 0:
        return P.const({"f8": 0.0, "f4": 0.0, "i8": 0, "b1": False, "c16": 0j}[t.dtype])
    shape = P.const(0) if t.ndim == 1 else ast.Tuple([P.const(0)] * t.ndim, ast.Load())
    return P.call("np.empty", shape, P.dotted(NP_DTYPE[t.dtype]))


_BUILTINS = ("len", "range", "bool", "int", "float", "min", "max", "abs")
# methods and NumPy functions that change their object (first argument) in place
_MUTATING_METHODS = frozenset({"pop", "append", "extend", "insert", "clear", "remove", "fill",
                               "sort", "resize", "itemset", "put", "setflags", "reverse"})
_MUTATING_NP = frozenset({"np.add.at", "np.subtract.at", "np.multiply.at", "np.copyto",
                          "np.put", "np.place", "np.putmask", "np.fill_diagonal"})


def _pops(stmts) -> bool:
    """Whether generated statements read a tape (`Tapes` tags every node of a pop)."""
    return any(getattr(n, "jitad_tape", None) is not None for st in stmts for n in ast.walk(st))


def _root(e):
    """The name an expression's object belongs to (`d[i]`, `d.T`, `d[1:3]` -> d); None for a
    constant or a computed value."""
    while isinstance(e, (ast.Subscript, ast.Attribute)):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def _changes(stmts, own, scalars, pure):
    """None if running `stmts` (an adjoint sweep, as generated, before tidying) changes nothing
    in place but the objects `own` names (the adjoints it makes itself); else what it changes.
    In-place writes: an element or slice assigned or updated, `x += e` of a name not in
    `scalars`, a mutating method or NumPy function, an `rt` helper called for its effect, a
    generated function not in `pure` (it could change its arguments)."""
    def owned(e):
        r = _root(e)
        return r is None and isinstance(e, ast.Constant) or r in own

    for node in (n for st in stmts for n in ast.walk(st)):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for x in ast.walk(t):
                    if isinstance(x, (ast.Subscript, ast.Attribute)) and isinstance(x.ctx, ast.Store) \
                            and _root(x) not in own:
                        return f"it writes into {ast.unparse(x)}"
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                    and node.target.id not in own and node.target.id not in scalars:
                return f"it updates {node.target.id} in place"
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            fn = ast.unparse(node.value.func)
            if fn.startswith("rt.") and not fn.startswith("rt.check") and node.value.args \
                    and not owned(node.value.args[0]):
                return f"it calls {fn} on {ast.unparse(node.value.args[0])}"
        if isinstance(node, ast.Call):
            fn = ast.unparse(node.func)
            if isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATING_METHODS \
                    and not fn.startswith(("np.", "math.", "rt.")) and _root(node.func.value) not in own:
                return f"it calls {fn}"
            if fn in _MUTATING_NP and (not node.args or not owned(node.args[0])):
                return f"it calls {fn}"
            if isinstance(node.func, ast.Name) and node.func.id not in pure:
                return f"it calls {fn}"
    return None


def _stored(stmts):
    """The names some statement of `stmts` (at any depth) binds."""
    out = set()
    for node in (n for st in stmts for n in ast.walk(st)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def _certain(stmts):
    """The names `stmts`' top-level assignments bind (bound after them on every path)."""
    out = set()
    for st in stmts:
        if isinstance(st, (ast.Assign, ast.AugAssign)):
            for t in (st.targets if isinstance(st, ast.Assign) else [st.target]):
                out |= {x.id for x in ast.walk(t) if isinstance(x, ast.Name)
                        and isinstance(x.ctx, ast.Store)}
            if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
                out.add(st.target.id)
    return out


def _exposed(stmts):
    """The names a run of `stmts` may read before it binds them (a branch or a loop's body
    may not run; a loop's first iteration reads what was bound before it)."""
    exposed = set()

    def loads(node, bound):
        for x in ast.walk(node):
            if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load) and x.id not in bound:
                exposed.add(x.id)

    def block(stmts, bound):
        bound = set(bound)
        for st in stmts:
            if isinstance(st, ast.If):
                loads(st.test, bound)
                bound = block(st.body, bound) & block(st.orelse, bound)
            elif isinstance(st, ast.For):
                loads(st.iter, bound)
                block(st.body, bound | _stored([st.target]))
            elif isinstance(st, ast.While):
                loads(st.test, bound)
                block(st.body, bound)
            elif isinstance(st, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)):
                if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) \
                        and st.target.id not in bound:
                    exposed.add(st.target.id)
                for part in ast.iter_child_nodes(st):
                    loads(part, bound)
                bound |= _stored([st])
            elif isinstance(st, (ast.Break, ast.Continue, ast.Pass, Comment)):
                pass
            else:
                loads(st, bound)
                bound |= _stored([st])
        return bound

    block(stmts, set())
    return exposed


def _complex_const(tree) -> bool:
    """Whether a rule template holds a complex constant (np.imag's -1j * g)."""
    return any(isinstance(n, ast.Constant) and isinstance(n.value, complex) for n in ast.walk(tree))


def scalar_zero(t):
    """The zero a scalar adjoint or tangent of type t starts from (0j for a complex one: one
    type in every branch Numba unifies)."""
    return P.const(0j) if getattr(t, "is_complex", False) else P.const(0.0)


def _order(body, params):
    seen = {p: i for i, p in enumerate(params)}
    for s in ir.walk(body):
        for t in ir.writes(s):
            seen.setdefault(t, len(seen))
    return lambda v: (seen.get(v, len(seen)), v)


def _atom_nd(a, types):
    if isinstance(a, Var):
        return types[a.name].ndim
    return 0


def _num_or_none(a):
    return a.value if isinstance(a, Const) else None


def _is_one(a):
    return isinstance(a, Const) and a.value == 1


_fdef = P.function_def
