"""Stage 6 — reverse: the primal and the fused forward-with-tape + adjoint, as Python AST.

Takes: a `Program` (typed specializations), one `Spec`, and the parameters to differentiate.
Guarantees:
  * `primal()` is the function itself in A-normal form (what `f(x)` runs);
  * `vjp()` is `f_vjp(params..., d_out) -> (value, (d_p, ...))`: a forward sweep that pushes
    onto typed tapes only the values the adjoint reads and the forward overwrites, then the
    adjoint sweep that walks the IR backwards applying the adjoint rules of its primitives;
  * the state (every variable, every array element written) at each point of the adjoint
    sweep equals the forward state at the mirrored point: pops restore overwritten values,
    `y[i] = v` is undone, branches replay the recorded test, loops run their recorded trip
    count backwards (counted loops recompute their index instead of taping it);
  * adjoints exist only for active variables (`activity`), start as `0.0` or
    `np.zeros_like(x)` chosen here from the types, and are un-broadcast onto their argument;
  * tapes: one float64, int64 and uint8 buffer with an integer top each, grown by
    `rt.reserve` before counted loops (one check per loop) or per iteration of a `while`;
    arrays go to a list per dtype and rank. Nothing is pushed for a value never overwritten.
"""
from __future__ import annotations

import ast
from collections import Counter

from . import activity, ir
from .bounds import Bounds, site_of
from .flow import Flow
from . import pyast as P
from .errors import UnsupportedError
from .ir import Bind, Const, For, If, Return, SetItem, Slice, Var, While
from .normalize import Namer
from .primitives import CALL, CONCAT, COPY, GETITEM, SHAPE, substitute
from .types import NP_DTYPE, Ty

def rule_for(s: Bind, types):
    """The primitive whose rules apply to `s` at its operands' ranks (`dot` -> `dot.2.1`)."""
    if s.op.variants:
        return s.op.variant(types[a.name].ndim for a in s.args)
    return s.op


def forward_expr(s: Bind, fnames, types):
    """The right-hand side computing a bind in the forward sweep."""
    if s.op is COPY:
        return P.atom(s.args[0])
    if s.op is GETITEM:
        return P.subscript(P.atom(s.args[0]), s.args[1:])
    if s.op is CALL:
        return P.call(fnames[(id(s.callee), _argtys(s, types))], *[P.atom(a) for a in s.args])
    if s.op is SHAPE:
        return ast.Attribute(P.atom(s.args[0]), "shape", ast.Load())
    if s.op is CONCAT:
        kw = {"axis": P.const(s.statics["axis"])} if s.statics.get("axis") else {}
        return P.call("np.concatenate", ast.Tuple([P.atom(a) for a in s.args], ast.Load()), **kw)
    rule = s.op
    if s.op.variants and all(types[a.name].ndim == 1 for a in s.args):
        rule = s.op.variant((1, 1))  # a loop Numba inlines: no BLAS call for short vectors
    mapping = {p: P.atom(a) for p, a in zip(rule.params, s.args)}
    for k in rule.statics:
        v = s.statics.get(k)
        mapping[k] = P.dotted(v) if isinstance(v, str) else P.const(v)
    return P.fold(substitute(rule.forward, mapping))


def _argtys(s, types):
    return tuple(_atom_ty(a, types) for a in s.args)


def _atom_ty(a, types):
    from .types import TupleTy, const_ty
    if isinstance(a, Var):
        return types[a.name]
    if isinstance(a, Const):
        return const_ty(a.value)
    return TupleTy(tuple(_atom_ty(x, types) for x in a.items))


class Analysis:
    """Block structure, sites, ownership and what the adjoint reads, for one Spec + wrt."""

    def __init__(self, spec, wrt, prog):
        self.spec = spec
        self.types = spec.types
        self.active = activity.active(spec, wrt)
        self.prog = prog
        self.sites = {}      # var -> list of (stmt, loop_depth, path)
        self.uses = {}       # var -> list of path
        self.parent = {}     # id(block) -> (path)
        self.top_first = {}  # var -> the first site if it is a top-level bind before any other
        self.loop_blocks = set()   # ids of loop bodies (and while conditions)
        self.path_of = {}          # id(statement) -> ids of the blocks holding it, outermost first
        body = spec.ir.body
        self.root = body
        for p in spec.ir.params:
            self.sites.setdefault(p, []).append((None, 0, (id(body),)))
        self._scan(body, (id(body),), 0)
        self.needed = set()
        self.pushed = set()
        self._check_aliasing()
        self._fix()

    def _check_aliasing(self):
        """Refuse `y[i] = v` that an alias of y (u = y, a view y[k], y.T, y.reshape, a helper's
        view) could observe -- some run makes the alias, writes, then reads the alias without
        making it again: the adjoint treats u as a value copied before the write, which would
        be a silently wrong gradient. A fresh `y = ...` between the alias and the write, or
        the alias made again between the write and the read, is fine (`flow` decides)."""
        stmts = list(ir.walk(self.root))
        flow = Flow(self.root)
        defs = {}
        for s in stmts:
            for t in ir.writes(s):
                defs.setdefault(t, []).append(s)
        for s in stmts:
            # `y += e` on an array updates y's buffer in Python; jitad computes a new array,
            # which is the same only if nothing else can refer to y's buffer here
            if isinstance(s, Bind) and s.inplace and getattr(self.types.get(s.target), "ndim", 0):
                y = s.target
                param, other = self._shared_defs(y, s, defs, flow)
                if param or other:
                    u, op = self.spec.ir.user_name(y), s.op.symbol or s.op.name
                    raise UnsupportedError(
                        f"'{u} {op}= ...' would update, in place, an array that "
                        f"{'is an argument' if param else 'may be shared with another variable'}"
                        f"; write {u} = {u} {op} ... (or copy it first)", s.loc,
                        "in-place update of a shared array")
        writes = [s for s in stmts if isinstance(s, SetItem)]
        for w in writes:
            self._check_write_target(w, defs, flow)
        for w in writes:
            y = w.array
            # aliases of y, transitively (u = y, v = u[1:], ...)
            aliases, frontier = [], [y]
            while frontier:
                src = frontier.pop()
                for s in stmts:
                    if isinstance(s, Bind) and src in self.alias_sources(s) \
                            and s.target != y and s not in aliases:
                        aliases.append(s)
                        frontier.append(s.target)
            # a fresh `y = ...` after the alias was made points y at another buffer
            rebinds = [s for s in defs.get(y, []) if self._new_array(s)]
            for a in aliases:
                # the write changes what the alias shows when some run makes the alias, then
                # writes (y not rebound in between), then reads the alias (not made again)
                if not flow.reaches(a, w, avoid=rebinds):
                    continue
                if any(flow.reaches(w, r, avoid=defs.get(a.target, []))
                       for r in stmts if a.target in self._stmt_reads(r)):
                    u, v = self.spec.ir.user_name(y), self.spec.ir.user_name(a.target)
                    raise UnsupportedError(
                        f"this write into '{u}' would also change '{v}', an alias of it "
                        f"made at line {a.loc.line}; jitad cannot differentiate writes seen through "
                        f"an alias — make a copy there ({v} = {u}.copy())", w.loc,
                        "write through an alias")

    def _makes_alias(self, s):
        if s.op is GETITEM:        # a view unless it is one element
            t = self.types.get(s.target)
            return t is not None and t.ndim > 0
        return s.op.view

    def _scan(self, block, path, depth):
        for s in block:
            self.path_of[id(s)] = path
            for n in self._stmt_reads(s):
                self.uses.setdefault(n, []).append(path)
            if isinstance(s, Bind):
                for t in s.targets:
                    self.sites.setdefault(t, []).append((s, depth, path))
            elif isinstance(s, SetItem):
                self.uses.setdefault(s.array, []).append(path)
            elif isinstance(s, If):
                self._scan(s.body, path + (id(s.body),), depth)
                self._scan(s.orelse, path + (id(s.orelse),), depth)
            elif isinstance(s, While):
                self.loop_blocks |= {id(s.cond), id(s.body)}
                self._scan(s.cond, path + (id(s.cond),), depth + 1)
                self._scan(s.body, path + (id(s.body),), depth + 1)
            elif isinstance(s, For):
                self.loop_blocks.add(id(s.body))
                self.sites.setdefault(s.var, []).append((s, depth + 1, path + (id(s.body),)))
                self._scan(s.body, path + (id(s.body),), depth + 1)

    @staticmethod
    def _stmt_reads(s):
        if isinstance(s, (Bind, SetItem, Return)):
            return ir.reads(s)
        if isinstance(s, If):
            return [s.test]
        if isinstance(s, For):
            return [n for a in (s.start, s.stop, s.step) for n in ir.atom_names(a)]
        return []

    # -- what the adjoint reads --------------------------------------------------------
    def is_active_bind(self, s):
        return isinstance(s, Bind) and any(t in self.active for t in s.targets)

    def bind_reads(self, s: Bind):
        """Variables whose values the adjoint of `s` reads."""
        out = set()
        if not self.is_active_bind(s):
            return out
        if s.op is GETITEM:
            out |= {n for a in s.args[1:] for n in ir.atom_names(a)}
            return out
        if s.op is CALL:
            return {n for a in s.args for n in ir.atom_names(a)}
        if s.op is COPY or s.op is CONCAT:
            return out
        rule = rule_for(s, self.types)
        for p, a in zip(rule.params, s.args):
            if isinstance(a, Var) and a.name in self.active and p in rule.adjoints:
                for r in rule.reads(p):
                    if r == "y":
                        out.add(s.target)
                    elif r in rule.params:
                        b = s.args[rule.params.index(r)]
                        out |= set(ir.atom_names(b))
        return out

    def overwritten(self, v):
        sites = self.sites.get(v, [])
        return len(sites) > 1 or any(d > 0 for _, d, _ in sites)

    def _new_array(self, b) -> bool:
        """Whether bind `b` always gives an array no one else refers to."""
        if isinstance(b, Bind) and b.op is CALL:
            return self._returns_fresh(b)
        return isinstance(b, Bind) and ir.fresh_result(b)

    def _shared_defs(self, y, at, defs, flow):
        """(whether y may still be the argument at `at`, a definition of y that may make it
        share its buffer -- a view, another variable, a loop variable -- and reaches `at`
        with no new array assigned to y in between, or None)."""
        fresh = [b for b in defs.get(y, []) if self._new_array(b)]
        param = y in self.spec.ir.params and flow.reaches(None, at, avoid=fresh)
        other = next((b for b in defs.get(y, []) if not self._new_array(b)
                      and flow.reaches(b, at, avoid=fresh)), None)
        return param, other

    def _check_write_target(self, w, defs, flow):
        """`y[i] = v` only into an array this function created: every definition of y that can
        reach the write (the argument itself, a view, another variable, a loop variable) must
        be a new array. A write into the caller's data would change it and break the
        adjoint's replay; `x = x.copy(); x[i] = v` is fine."""
        y = w.array
        user = self.spec.ir.user_name(y)
        param, other = self._shared_defs(y, w, defs, flow)
        why = None
        if param:
            why = f"'{user}' is an argument of {self.spec.ir.name}"
        elif other is not None:
            why = (f"'{user}' may alias another array (it is assigned from "
                   f"{'a view or another variable' if isinstance(other, Bind) else 'a loop'})")
        if why:
            raise UnsupportedError(
                f"{why}; jitad only writes into arrays the function creates "
                f"(e.g. {user} = {user}.copy() or np.zeros(...))", w.loc,
                "write into an array not created here")

    def alias_sources(self, s) -> list:
        """The arrays whose storage the result of bind `s` may share: the operand of a view
        (`s[0]`, `s.T`, a reshape) or of `u = s`, and every array argument of a helper whose
        result is not an array it created (`def first(s): return s[0]`)."""
        if not isinstance(s, Bind) or not getattr(self.types.get(s.target), "ndim", 0):
            return []
        if s.op is CALL:
            if self._returns_fresh(s):
                return []
            return [a.name for a in s.args if isinstance(a, Var) and self.types[a.name].ndim]
        if self._makes_alias(s) and isinstance(s.args[0], Var):
            return [s.args[0].name]
        return []

    def view_bases(self):
        """name -> the arrays whose storage it may share (see `alias_sources`)."""
        out = {}
        for s in ir.walk(self.root):
            for b in self.alias_sources(s):
                for t in s.targets:
                    if getattr(self.types.get(t), "ndim", 0):
                        out.setdefault(t, set()).add(b)
        return out

    def _returns_fresh(self, s):
        """Whether a call's array results are arrays its callee created (never its arguments
        or views of them)."""
        callee = self.prog.specs.get((id(s.callee), _argtys(s, self.types)))
        if callee is None:
            return False
        sites = {}
        for x in ir.walk(callee.ir.body):
            if isinstance(x, Bind):
                for t in x.targets:
                    sites.setdefault(t, []).append(x)
        ret = callee.ir.body[-1]
        for a in ret.values:
            if isinstance(a, Var) and getattr(callee.types.get(a.name), "ndim", 0):
                if a.name in callee.ir.params or not all(ir.fresh_result(b) for b in sites.get(a.name, [])):
                    return False
        return True

    def _fix(self):
        """The least fixed point of `needed` (what the adjoint reads) and `pushed` (what the
        forward must keep because it overwrites it). A value read through a view is a read of
        the view's base: the base is needed too, so writes into it (`s[0] = y`) are undone in
        the adjoint and the view sees, at each mirrored point, what the forward saw."""
        stmts = list(ir.walk(self.root))
        loops = {s.var: s for s in stmts if isinstance(s, For)}
        self.loop_vars = set(loops)
        bases = self.view_bases()
        while True:
            needed, after_loop = set(), set()
            for s in stmts:
                reads = set()
                if isinstance(s, Bind):
                    reads = self.bind_reads(s)
                elif isinstance(s, SetItem) and s.array in self.active:
                    reads = {n for a in s.index for n in ir.atom_names(a)}
                elif isinstance(s, If) and (self.work(s.body) or self.work(s.orelse)):
                    reads = {s.test}
                elif isinstance(s, For) and self.work(s.body):
                    reads = {n for a in (s.start, s.stop, s.step) for n in ir.atom_names(a)}
                needed |= reads
                # a loop variable the adjoint reads outside its loop (`s[j] = ...` after
                # `for j`): the reversed loop leaves it at its first value, so it is kept
                after_loop |= {v for v in reads & set(loops)
                               if id(loops[v].body) not in self.path_of.get(id(s), ())}
            frontier = list(needed)
            while frontier:
                for b in bases.get(frontier.pop(), ()):
                    if b not in needed:
                        needed.add(b)
                        frontier.append(b)
            # a counted loop's index is recomputed by the adjoint loop, never taped per step
            pushed = {v for v in needed if self.overwritten(v)
                      and not (v in self.loop_vars and len(self.sites[v]) == 1 and v not in after_loop)}
            if needed == self.needed and pushed == self.pushed:
                break
            self.needed, self.pushed = needed, pushed

    def work(self, block) -> bool:
        for s in block:
            if isinstance(s, Bind) and (self.is_active_bind(s) or any(t in self.pushed for t in s.targets)):
                return True
            if isinstance(s, SetItem) and (s.array in self.active or s.array in self.needed):
                return True
            if isinstance(s, If) and (self.work(s.body) or self.work(s.orelse)):
                return True
            if isinstance(s, (While, For)) and self.work(s.body):
                return True
            if isinstance(s, For) and s.var in self.pushed:
                return True
        return False

    # -- ownership ---------------------------------------------------------------------
    def owner(self, v):
        paths = [p for _, _, p in self.sites.get(v, [])] + self.uses.get(v, [])
        common = paths[0]
        for p in paths[1:]:
            k = 0
            while k < min(len(common), len(p)) and common[k] == p[k]:
                k += 1
            common = common[:k]
        return common[-1]

    def runs_once_first(self, s, v):
        """Whether `s` is the first assignment of `v` and runs once per run of the block that
        owns v's adjoint (no loop between them): then no older value of v exists whose
        adjoint the sweep could still reach, and d_v needs no reset after s."""
        first, _, path = self.sites[v][0]
        if first is not s:
            return False
        owner = self.owner(v)
        below = path[path.index(owner) + 1:] if owner in path else path
        return not any(b in self.loop_blocks for b in below)

    def needs_dummy(self, v):
        """A pushed or array-adjointed variable that may be read before it is first assigned."""
        if v in self.spec.ir.params:
            return False
        first = self.sites[v][0]
        s, depth, path = first
        top = path == (id(self.root),) and depth == 0 and isinstance(s, Bind)
        if v in self.pushed and not top:
            return True
        if v in self.active and getattr(self.types[v], "ndim", 0):
            return not _definitely_assigned(v, self._block_by_id(self.owner(v)))
        return False

    def first_site_unpushed(self, s, v):
        """The first assignment of `v` at top level needs no push (nothing older to restore)."""
        s0, depth, path = self.sites[v][0]
        return s0 is s and depth == 0 and path == (id(self.root),) and v not in self.spec.ir.params

    def _block_by_id(self, bid):
        for b in ir.blocks(self.root):
            if id(b) == bid:
                return b
        raise KeyError(bid)


def _fresh_expr(e):
    """An expression that always evaluates to a newly allocated array (never a view/alias)."""
    if isinstance(e, ast.BinOp):
        return True
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        return _fresh_expr(e.operand)
    if isinstance(e, ast.Call):
        fn = ast.unparse(e.func)
        return fn.startswith("np.") and fn not in ("np.asarray", "np.ascontiguousarray", "np.reshape",
                                                   "np.transpose", "np.expand_dims")
    return False


def _definitely_assigned(v, block):
    for s in block:
        if isinstance(s, Bind) and v in s.targets:
            return True
        if isinstance(s, If) and _definitely_assigned(v, s.body) and _definitely_assigned(v, s.orelse):
            return True
    return False


class Tapes:
    """Names and push/pop code for the typed tapes of one generated function."""

    def __init__(self, namer):
        self.namer = namer
        self.buffers = {}   # kind -> (tape, top)
        self.lists = {}     # (dtype, ndim) -> list name

    SCALAR = {"f8": ("f", "np.float64"), "f4": ("f", "np.float64"), "i8": ("i", "np.int64"),
              "b1": ("b", "np.uint8")}

    def kind(self, ty):
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

    def push(self, value_expr, ty):
        k = self.kind(ty)
        if k[0] == "a":
            lst = self.array_list(ty.dtype, ty.ndim)
            return [P.expr_stmt(P.call(P.dotted(f"{lst}.append"), value_expr))], None
        tape, top = self.buffer(k)
        return [P.assign(P.subscript(tape, [Var(top)], store=True), value_expr),
                P.aug(top, P.const(1))], k

    def pop(self, target, ty):
        """Statements restoring `target` (a name or a store expression) from its tape."""
        k = self.kind(ty)
        if k[0] == "a":
            lst = self.array_list(ty.dtype, ty.ndim)
            return [P.assign(target, P.call(P.dotted(f"{lst}.pop")))]
        tape, top = self.buffer(k)
        val = P.subscript(tape, [Var(top)])
        if k == "b":
            val = P.call("bool", val)
        return [P.aug(top, P.const(1), ast.Sub()), P.assign(target, val)]

    def init(self, counts):
        out = []
        for k, (tape, top) in self.buffers.items():
            dt = {"f": "np.float64", "i": "np.int64", "b": "np.uint8"}[k]
            out.append(P.assign(tape, P.call("np.empty", P.const(max(8, counts.get(k, 0))), P.dotted(dt))))
            out.append(P.assign(top, P.const(0)))
        for (_, _), lst in self.lists.items():
            out.append(P.assign(lst, ast.List([], ast.Load())))
        return out

    ITEM_BYTES = {"f": 8, "i": 8, "b": 1}
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


class Reverse:
    def __init__(self, prog, spec, wrt, fnames, vjp_names, callee_wrt=None, split_names=None,
                 recursive=frozenset()):
        self.prog = prog
        # (id(fn), argtys) of the functions in a recursion cycle: they take a `depth` argument
        self.recursive = recursive
        # (id(fn), argtys) -> the arguments a callee's vjp differentiates (default: its floats)
        self.callee_wrt = callee_wrt or {}
        # (id(fn), argtys) -> (fwd, bwd) names of callees cut in two (see split_functions)
        self.split_names = split_names or {}
        self.saved = {}             # id(call bind) -> the local holding that call's saved state
        self.adjoint_buffers = {}   # parameter -> the thread buffer its adjoint adds into
        self.spec = spec
        self.wrt = tuple(wrt)
        self.types = spec.types
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
        self.trip_names = {}

    # ------------------------------------------------------------------ naming
    def d(self, v):
        if v not in self.adj:
            self.adj[v] = self.namer.fresh(f"d_{v}")
            self.rank[self.adj[v]] = getattr(self.types.get(v), "ndim", 0)
        return self.adj[v]

    def rank_of(self, name):
        """Rank of a name in generated code (user variables, adjoints, their temporaries)."""
        if name in self.rank:
            return self.rank[name]
        t = self.types.get(name)
        return getattr(t, "ndim", None)

    def ty(self, v):
        return self.types[v]

    def zero(self, v):
        t = self.ty(v)
        return P.call("np.zeros_like", P.name(v)) if t.ndim else P.const(0.0)

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
                if tape:
                    for t in s.targets:
                        if t in self.A.pushed and not self.A.first_site_unpushed(s, t):
                            self.push(out, counts, P.name(t), self.ty(t))
                out += self.bounds.checks(s)
                split = self.split_call(s, block) if tape else None
                if split is not None:
                    self.saved[id(s)] = self.namer.fresh(f"{s.target}_saved")
                    out.append(P.assign_many([s.target, self.saved[id(s)]], P.call(
                        split[0], *[P.atom(a) for a in s.args])))
                else:
                    rhs = forward_expr(s, self.fnames, self.types)
                    if s.op is CALL:
                        rhs.args += self.call_depth((id(s.callee), _argtys(s, self.types)))
                    out.append(P.assign(s.target, rhs) if len(s.targets) == 1
                               else P.assign_many(s.targets, rhs))
                out[-1].jitad_loc = (s.loc.filename, s.loc.line)
            elif isinstance(s, SetItem):
                out += self.bounds.checks(s)
                if tape and s.array in self.A.needed:
                    elem = self.elem_ty(s)
                    old = P.subscript(s.array, s.index)
                    if elem.ndim:
                        old = P.call(ast.Attribute(old, "copy", ast.Load()))
                    self.push(out, counts, old, elem)
                out.append(P.assign(P.subscript(s.array, s.index, store=True), P.atom(s.value)))
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
        """(fwd, bwd) names if `s` calls a split callee once: at the function's top level, with
        an adjoint to propagate."""
        if not (s.op is CALL and len(s.targets) == 1 and block is self.spec.ir.body
                and self.A.is_active_bind(s)):
            return None
        return self.split_names.get((id(s.callee), _argtys(s, self.types)))

    def push(self, into, counts, value, ty):
        """Append the push of `value` to `into`, counting it for the tape's reservation."""
        stmts, kind = self.tapes.push(value, ty)
        into += stmts
        if kind:
            counts[kind] += 1

    def elem_ty(self, s: SetItem):
        base = self.ty(s.array)
        nd = base.ndim
        for a in s.index:
            if isinstance(a, Slice):
                continue
            t = self.types[a.name] if isinstance(a, Var) else Ty("i8")
            if t.ndim:
                raise UnsupportedError("writes through an index array (y[idx] = v) are not "
                                       "supported; use a loop", s.loc, "subscript assignment")
            nd -= 1
        return Ty(base.dtype, nd)

    def fwd_for(self, s: For, tape, counts):
        """(statements up to the loop, whether it reserves tape room itself, pushes after it).
        Pushes before the loop count in `counts`."""
        rng = P.call("range", *self.range_args(s))
        work = tape and self.A.work(s.body)
        body, bc, dyn = self.fwd_block(s.body, tape)
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
        pre, post = [], []
        if work:
            trip = self.trip(s)
            pre.append(P.assign(trip, P.const(0)))
            # a loop that never ends must not take all the memory: its tape is bounded
            used = self.tapes.bytes_used()
            limit = [] if used is None else [P.expr_stmt(P.call(
                "rt.check_tape", used, P.const(max_tape_bytes()), P.const(site_of(s.loc))))]
            body = [P.aug(trip, P.const(1))] + limit + self.tapes.reserve(bc) + body
            if self.in_loop(s):
                post.append((P.name(trip), Ty("i8")))
        # `while <test>:` when the test is one expression, else `while True: ...; if not t: break`
        if len(cond) == 1 and isinstance(cond[0], ast.Assign) and cond[0].targets[0].id == s.test \
                and s.test not in self.A.needed:
            loop = ast.While(cond[0].value, body or [ast.Pass()], [])
        else:
            brk = ast.If(ast.UnaryOp(ast.Not(), P.name(s.test)), [ast.Break()], [])
            loop = ast.While(P.const(True), cond + [brk] + body, [])
        return pre + [loop], work and bool(bc or dyn), post

    # ------------------------------------------------------------------ adjoint sweep
    def rev_block(self, block, bid=None):
        bid = id(block) if bid is None else bid
        out = []
        for v in self.owned.get(bid, []):
            if v not in self.adjoint_buffers:
                out.append(P.assign(self.d(v), self.zero(v)))
        for s in reversed(block):
            out += self.rev_stmt(s)
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
            body = self.rev_block(s.body)
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
        body = self.rev_block(s.body)
        start, stop, step = (P.atom(a) for a in (s.start, s.stop, s.step))
        stepv = _num_or_none(s.step)
        if stepv == 1:
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
        if s.var in self.A.pushed:
            out += self.tapes.pop(s.var, self.ty(s.var))
        return out

    def accumulate(self, v, contrib, contrib_ndim, safe, exact=False):
        """d_v += contrib, un-broadcast onto v (decided here from the ranks, not at run time)."""
        t = self.ty(v)
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
            stmt.jitad_fresh = exact and t.dtype == "f8" and _fresh_expr(contrib)
            return stmt
        for _ in range(contrib_ndim - t.ndim):
            contrib = P.call("rt.sum0", contrib)
        if t.ndim <= 2:
            return P.expr_stmt(P.call(f"rt.accum{t.ndim}", P.name(self.d(v)), contrib))
        return P.aug(self.d(v), contrib)

    _ELEMENTWISE_CALLS = {"np.sin", "np.cos", "np.tan", "np.exp", "np.log", "np.log1p", "np.sqrt",
                          "np.tanh", "np.sinh", "np.cosh", "np.sign", "np.expm1", "np.abs",
                          "np.arctan", "np.square"}

    def scalarized(self, target, ndim, contrib):
        """`d += e` with every array in e shaped like d, as an element loop: no temporary
        arrays (what dominates small per-sample adjoints). None if e is not elementwise."""
        if not hasattr(self, "_elem_idx"):
            self._elem_idx = [self.namer.fresh("k"), self.namer.fresh("k2")]
        idx = self._elem_idx[:ndim]
        ok = [True]
        me = self

        class Index(ast.NodeTransformer):
            def visit_Name(self, node):
                r = me.rank_of(node.id)
                if r is None:
                    ok[0] = False
                elif r:
                    if r != ndim:
                        ok[0] = False
                    return P.subscript(node.id, [Var(i) for i in idx])
                return node

            def visit_Call(self, node):
                fn = ast.unparse(node.func)
                if fn not in me._ELEMENTWISE_CALLS and not fn.startswith("math."):
                    ok[0] = False
                    return node
                node.args = [self.visit(a) for a in node.args]
                return node

            def visit_Attribute(self, node):
                ok[0] = False
                return node

            def visit_Subscript(self, node):
                ok[0] = False
                return node

        import copy as _copy
        body = Index().visit(_copy.deepcopy(contrib))
        if not ok[0]:
            return None
        loop = [P.aug(P.subscript(target, [Var(i) for i in idx]), body)]
        for k in reversed(range(ndim)):
            shape = P.subscript(ast.Attribute(P.name(target), "shape", ast.Load()), [Const(k)])
            loop = [ast.For(P.name(idx[k], store=True), P.call("range", shape), loop, [])]
        return loop[0]

    def needs_reset(self, v):
        """Whether d_v must be zeroed after its assignment is reversed (an older value of v
        gets adjoint contributions later in the sweep)."""
        sites = self.A.sites[v]
        return len(sites) > 1 or sites[0][2][-1] != self.A.owner(v)

    def rev_bind(self, s: Bind):
        t = s.target
        active = self.A.is_active_bind(s)
        pushed = [x for x in s.targets if x in self.A.pushed and not self.A.first_site_unpushed(s, x)]
        if not active:
            out = []
            for x in reversed(pushed):
                out += self.tapes.pop(x, self.ty(x))
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
                out.append(P.assign(ynew, P.name(t)))
                y = P.name(ynew)
            for x in reversed(pushed):
                out += self.tapes.pop(x, self.ty(x))
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
            if any(isinstance(i, Var) and self.types[i.name].ndim for i in index):
                out.append(P.expr_stmt(P.call("rt.scatter_add", P.name(self.d(a.name)),
                                              P.atom(index[0]), gt)))
            else:
                out.append(P.aug(P.subscript(self.d(a.name), index), gt))
            return out
        if s.op is CONCAT:
            axis = s.statics.get("axis", 0)
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
                           (P.call("np.zeros_like", P.name(x)) if self.ty(x).ndim else P.const(0.0)))
            cot = cot[0] if len(cot) == 1 else ast.Tuple(cot, ast.Load())
            grads = self.namer.fresh(f"{s.target}_grads")
            if id(s) in self.saved:     # its forward ran once already; its state was kept
                bwd = self.split_names[key][1]
                out.append(P.assign(grads, P.call(bwd, *[P.atom(a) for a in s.args],
                                                  P.name(self.saved[id(s)]), cot)))
            else:
                out.append(P.assign(grads, P.subscript(
                    P.call(self.vjp_names[key], *[P.atom(a) for a in s.args], cot, *self.call_depth(key)),
                    [Const(1)])))
            for k, pos in enumerate(self.callee_wrt.get(key, float_args(callee))):
                a = s.args[pos]
                if act(a):
                    out.append(self.accumulate(a.name, P.subscript(grads, [Const(k)]),
                                               callee.argtys[pos].ndim, safe=True))
            return out
        mapping = {p: P.atom(a) for p, a in zip(rule.params, s.args)}
        for k in rule.statics:
            mapping[k] = P.const(s.statics[k]) if not isinstance(s.statics[k], str) else P.dotted(s.statics[k])
        mapping["g"] = gt
        mapping["y"] = y
        res_nd = self.ty(s.target).ndim
        for i, (p, a) in enumerate(zip(rule.params, s.args)):
            if not act(a) or p not in rule.adjoints or (skip is not None and a.name == skip):
                continue
            contrib = P.fold(substitute(rule.adjoints[p], mapping))
            others = [b for j, b in enumerate(s.args) if j != i]
            elementwise = rule.elementwise
            safe = not elementwise or all(_atom_nd(b, self.types) == 0 or b == a for b in others)
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
        if arr_active:
            out.append(self.comment(s.loc))
            elem = self.elem_ty(s)
            dsub = P.subscript(self.d(s.array), s.index)
            if isinstance(s.value, Var) and s.value.name in self.A.active:
                out.append(self.accumulate(s.value.name, dsub, elem.ndim,
                                           safe=self.ty(s.value.name).ndim == elem.ndim))
            out.append(P.assign(P.subscript(self.d(s.array), s.index, store=True), P.const(0.0)))
        if s.array in self.A.needed:
            out += self.tapes.pop(P.subscript(s.array, s.index, store=True), self.elem_ty(s))
        return out

    # ------------------------------------------------------------------ the vjp function
    def sparse_sites(self):
        """Parameters read only as rows (`U[u]` at top level, u an unchanged argument or a
        constant): their update touches those rows only, with no dense gradient."""
        f = self.spec.ir
        out = {}
        for i in self.wrt:
            p = f.params[i]
            t = self.ty(p)
            if not t.ndim or p not in self.A.active or len(self.A.sites[p]) != 1:
                continue
            sites, ok = [], True
            for s in ir.walk(f.body):
                if p not in self._reads_of(s):
                    continue
                in_top = any(s is x for x in f.body)
                idx = s.args[1:] if isinstance(s, Bind) and s.op is GETITEM else ()
                if not (in_top and isinstance(s, Bind) and s.op is GETITEM and s.args[0] == Var(p)
                        and 0 < len(idx) <= t.ndim and all(self._stable_index(a) for a in idx)):
                    ok = False
                    break
                if s.target in self.A.active:
                    sites.append((idx, s.target, t.ndim - len(idx)))
            if ok and sites:
                out[p] = sites
        return out

    def _reads_of(self, s):
        if isinstance(s, (Bind, SetItem, Return)):
            return set(ir.reads(s))
        return set(Analysis._stmt_reads(s))

    def _stable_index(self, a):
        if isinstance(a, Const):
            return isinstance(a.value, int) and not isinstance(a.value, bool) and a.value >= 0
        if isinstance(a, Var):
            t = self.ty(a.name)
            sites = self.A.sites.get(a.name, [])
            # assigned once, at top level (or an argument): its value at the end is the one read
            return t.dtype == "i8" and t.ndim == 0 and len(sites) == 1 and sites[0][1] == 0 \
                and sites[0][2] == (id(self.spec.ir.body),)
        return False

    def vjp(self, train=None, accumulate=False, split=None):
        """The fused `f_vjp`; with `train`, the training step (see step_function); with
        `split=(fwd_name, bwd_name)`, the two halves (see split_functions)."""
        f = self.spec.ir
        self.into_buffers = accumulate
        A = self.A
        self.seed = self.namer.fresh("d_out")
        self.sparse = self.sparse_sites() if train is not None else {}
        if accumulate:   # dense parameters: the adjoint sweep adds straight into the buffers
            for i in self.wrt:
                p = f.params[i]
                if p not in self.sparse and self.ty(p).ndim and p in A.active:
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
        # the value, captured before the adjoint sweep restores overwritten variables
        values, save = [], []
        for a in ret.values:
            if isinstance(a, Var) and (a.name in A.pushed or any(
                    isinstance(x, SetItem) and x.array == a.name for x in ir.walk(f.body))):
                keep = self.namer.fresh(f"{a.name}_value")
                val = P.name(a.name)
                if self.ty(a.name).ndim:
                    val = P.call(ast.Attribute(val, "copy", ast.Load()))
                save.append(P.assign(keep, val))
                values.append(P.name(keep))
            else:
                values.append(P.atom(a))
        rev = self.rev_block(f.body)
        predef = []
        for v in sorted({v for v in A.pushed | A.active if v in A.sites and A.needs_dummy(v)},
                        key=_order(f.body, f.params)):
            predef.append(P.assign(v, self.dummy(self.ty(v))))
        grads = []
        for i in self.wrt:
            p = f.params[i]
            if p in A.active:
                grads.append(P.name(self.d(p)))
            else:
                grads.append(P.call("np.zeros_like", P.name(p)) if self.ty(p).ndim else P.const(0.0))
        value = values[0] if len(values) == 1 else ast.Tuple(values, ast.Load())
        if train is not None:
            return self.step_function(train, fwd, save, rev, predef, counts, value)
        first = self.tapes.init(counts) + predef + fwd + save
        if split is not None:
            return self.split_functions(split, first, rev, value, grads)
        body = (first + [P.Comment("adjoint")] + rev
                + [ast.Return(ast.Tuple([value, ast.Tuple(grads, ast.Load())], ast.Load()))])
        return _fdef(self.vjp_names[self.key()], f.params + [self.seed], self.depth_check() + body,
                     self.depth)

    def split_functions(self, names, first, rev, value, grads):
        """The vjp cut in two where the adjoint starts: `g_fwd(args) -> (value, saved)` and
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
        live = sorted(stored & used, key=lambda n: (not n.startswith("tape"), n))
        # a saved local the forward may not assign (one arm of an `if`, a loop that runs no
        # trip) starts as a typed dummy, so the pack never reads an unbound name
        certain = {t.id for st in first if isinstance(st, (ast.Assign, ast.AugAssign))
                   for t in ast.walk(st.targets[0] if isinstance(st, ast.Assign) else st.target)
                   if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)} | set(f.params)
        trips = set(self.trip_names.values())
        dummies = [P.assign(n, self.dummy(self.ty(n)) if n in self.types else P.const(0))
                   for n in live if n not in certain and (n in self.types or n in trips)]
        saved = self.namer.fresh("saved")
        pack = ast.Tuple([P.name(n) for n in live], ast.Load())
        fwd = _fdef(names[0], f.params,
                    dummies + first + [ast.Return(ast.Tuple([value, pack], ast.Load()))])
        unpack = [ast.Assign([ast.Tuple([P.name(n, store=True) for n in live], ast.Store())], P.name(saved),
                             lineno=0)] if live else []
        bwd = _fdef(names[1], f.params + [saved, self.seed],
                    unpack + [P.Comment("adjoint")] + rev + [ast.Return(ast.Tuple(grads, ast.Load()))])
        return fwd, bwd

    def step_function(self, opt, fwd, save, rev, predef, counts, value):
        """`f_step(params..., data..., state...) -> loss`: forward, adjoint, then the
        optimizer's update of every differentiated parameter, in place.

        With `self.into_buffers` it is `f_accumulate(params..., data..., buffers...) -> loss`
        instead: the gradient is added to the thread's buffers (row-sparse parameters: to their
        rows, which are also recorded) and the parameters are left alone; `f_apply` then runs
        the optimizer on the buffers. Returns (function, its extra parameters)."""
        from . import update
        f = self.spec.ir
        extra, updates, marks = [], [], []
        for i in self.wrt:
            p = f.params[i]
            t = self.ty(p)
            if not t.ndim:
                raise UnsupportedError(f"train_step updates parameters in place: '{p}' is a scalar; "
                                       "make it a 1-element array", f.loc, "scalar parameter")
            if self.into_buffers:
                rule = update.Sum()
                state = {"acc": self.adjoint_buffers.get(p) or self.namer.fresh(f"acc_{p}")}
                extra.append(("acc", p, state["acc"]))
                if p in self.adjoint_buffers:
                    continue     # its adjoint was summed into the buffer as it was computed
                if p in self.sparse:
                    if any(len(idx) != 1 for idx, _, _ in self.sparse[p]):
                        raise UnsupportedError(f"fit(accumulate=...) needs the rows of '{p}' read with "
                                               "one index", f.loc, "accumulated multi-index rows")
                    extra += [("marks", p, self.namer.fresh(f"marks_{p}")),
                              ("rows", p, self.namer.fresh(f"rows_{p}"))]
                    marks += update.mark_rows(p, self.sparse[p], extra[-2][2], extra[-1][2])
            else:
                rule, state = opt, {}
                for s in tuple(opt.slots) + tuple(opt.scalars):
                    state[s] = self.namer.fresh(f"{p}_{s}")
                    extra.append((s, p, state[s]))
            if p not in self.A.active:
                continue
            if p in self.sparse:
                updates += update.sparse(rule, p, t.ndim, [(idx, self.d(tgt), r) for idx, tgt, r in
                                                           self.sparse[p]], state, self.namer)
            else:
                updates += update.dense(rule, p, t.ndim, self.d(p), state, self.namer)
        body = (self.tapes.init(counts) + predef + fwd + save
                + [P.Comment("adjoint"), P.assign(self.seed, P.const(1.0))] + marks + rev + updates
                + [ast.Return(value)])
        return _fdef(self.step_name, f.params + [n for _, _, n in extra], self.depth_check() + body,
                     self.depth), extra

    def apply_function(self, opt, name, buffers, state_params):
        """`f_apply(params..., buffers..., state...)`: the optimizer's update of every
        differentiated parameter from a thread's accumulated gradient (dense, or the rows the
        buffer holds), clearing the buffer as it goes."""
        from . import update
        f = self.spec.ir
        params = [f.params[i] for i in self.wrt]
        body = []
        for p in params:
            state = {slot: n for slot, q, n in state_params if q == p}
            mine = {kind: n for kind, q, n in buffers if q == p}
            if "rows" in mine:
                body += update.apply_rows(opt, p, self.ty(p).ndim, mine["acc"], mine["marks"], mine["rows"],
                                          state, self.namer)
            else:
                body += update.dense(opt, p, self.ty(p).ndim, mine["acc"], state, self.namer, zero_after=True)
        args = params + [n for _, _, n in buffers] + [n for _, _, n in state_params]
        return _fdef(name, args, body + [ast.Return(P.const(0.0))])

    def dummy(self, t):
        if t.ndim == 0:
            return P.const({"f8": 0.0, "f4": 0.0, "i8": 0, "b1": False}[t.dtype])
        shape = P.const(0) if t.ndim == 1 else ast.Tuple([P.const(0)] * t.ndim, ast.Load())
        return P.call("np.empty", shape, P.dotted(NP_DTYPE[t.dtype]))


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


def float_args(spec):
    return tuple(i for i, t in enumerate(spec.argtys) if getattr(t, "is_float", False))


def callee_wrt(prog, entry, wrt):
    """For each function signature called with an active argument somewhere in the program,
    the argument positions some call site needs an adjoint for -- not every float argument:
    data a helper reads (a batch `X`) then costs no adjoint (`d_X = ... @ W.T`)."""
    need = {}
    for spec in prog.order:
        A = Analysis(spec, tuple(wrt) if spec is entry else float_args(spec), prog)
        for s in ir.walk(spec.ir.body):
            if isinstance(s, Bind) and s.op is CALL:
                key = (id(s.callee), _argtys(s, spec.types))
                got = need.setdefault(key, set())
                callee = prog.specs[key]
                for pos, a in enumerate(s.args):
                    if isinstance(a, Var) and a.name in A.active and getattr(callee.argtys[pos], "is_float", False):
                        got.add(pos)
    return {k: tuple(sorted(v)) for k, v in need.items()}


def split_callees(prog, entry, wrt, cw):
    """Callee signatures worth cutting into forward and backward halves: called once (at a
    differentiated function's top level, with an adjoint) and calling nothing themselves;
    and the signatures some other call site still needs the fused vjp of."""
    once, elsewhere = set(), set()
    for spec in prog.order:
        key = (id(spec.fn), spec.argtys)
        if spec is not entry and key not in cw:
            continue
        A = Analysis(spec, tuple(wrt) if spec is entry else cw[key], prog)
        top = {id(s) for s in spec.ir.body}
        for s in ir.walk(spec.ir.body):
            if isinstance(s, Bind) and s.op is CALL and A.is_active_bind(s):
                k = (id(s.callee), _argtys(s, spec.types))
                callee = prog.specs[k]
                leaf = not any(isinstance(t, Bind) and t.op is CALL for t in ir.walk(callee.ir.body))
                if id(s) in top and len(s.targets) == 1 and leaf and k != (id(entry.fn), entry.argtys):
                    once.add(k)
                else:
                    elsewhere.add(k)
    return once, elsewhere


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


def _fdef(fname, params, body, depth=None):
    """`def fname(params...)`, with `depth` last when the function is recursive (a caller
    outside the recursion passes 0, a recursive call depth + 1). Not a default argument:
    Numba's disk cache crashes on recursive functions with one."""
    params = list(params) + ([depth] if depth else [])
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name=fname, args=args, body=body, decorator_list=[], returns=None,
                           type_comment=None, lineno=0)
