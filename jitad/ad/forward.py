"""Stage 6' — forward mode: the tangent (jvp) functions, as Python AST.

Takes: a `Program` (typed specializations), one `Spec`, the parameters it gets tangents for,
the generated names (primal, jvp) and which callees take tangents for which arguments.
Guarantees: `Forward.jvp()` is `f_jvp(params..., d_p...) -> (value, tangent)` (for several
outputs a tuple of values and a tuple of tangents; `reentrant` -- code the front end reads
again, see `higher` -- one flat tuple of the values then the tangents, and no bounds
checks' runtime calls in writes): the primal statements in their order,
each active one with its tangent statement beside it, no tape:
  * a tangent variable `d_<name>` (fresh from the `Namer`, never a user's name) exists only
    for active variables (`activity`: float, varied by a tangent parameter, reaching a
    returned value); an active variable assigned from inactive operands gets a zero tangent,
    an active parameter without a tangent starts at zero;
  * a primitive's tangent is the sum of its operands' contributions (`primitives.tangents`:
    the templates in the operands, the statics, `y` and `t`); an elementwise contribution of
    lower rank than the result is broadcast onto it; an operand whose primitive has adjoints
    but no tangent rule is a `JitadError` at the user's line (never a silent zero); the
    product rule's two products of one kind (`dA @ x + A @ dx`) are one fused call
    (`runtime.SUMS_OF_PRODUCTS`, the same numbers; primitives of their own, so code read
    again -- `higher` -- differentiates them), except where `scalarize` writes small products
    out as numbers;
  * `If`, `While`, `For` are kept as they are, with the tangent statements inside (forward
    mode needs no reversal: every construct of the subset works); `y[i] = v` writes the
    tangent of v into the tangent of y at the same index; a call to a helper calls the
    helper's own jvp (recursion included: a recursive jvp counts its depth like the primal);
  * the tangents alias as the primal values do: `u = y`, `y[k]`, `y.T` give views of the
    tangent of y, and a fresh result gets a fresh tangent (copied when the function writes
    into arrays and the tangent expression could be another variable's buffer).
Invariants: the primal computation is unchanged (same statements, same order, the same
bounds checks); a tangent statement reads the operands' values before the statement and the
result after it: it is placed before the primal assignment, or after it when it reads the
result (`y`); when that result also overwrites an operand (`u = u ** w`), the operand's old
value is first named `<t>_old`, and the primal statement and the tangent read that name.
"""
from __future__ import annotations

import ast
import math

from .. import ir, runtime, scalarize
from .. import pyast as P
from ..errors import JitadError
from ..ir import Bind, For, If, Return, SetItem, Var, While
from ..primitives import CALL, CONCAT, COPY, GETITEM, SHAPE, runtime_calls, substitute
from ..primitives import tangents as T
from ..primitives.lists import LIST_APPEND, LIST_NEW
from ..types import arg_types as _argtys
from .analysis import bind_statics, rule_for
from .indexing import read_at, write_at
from .reverse import Reverse, _fresh_expr, forward_expr


class Forward(Reverse):
    """The jvp of one specialization. `tangent_args`: (id(fn), argtys) -> the argument
    positions that function's jvp takes tangents for (its callers pass zeros for the others)."""

    def __init__(self, prog, spec, wrt, fnames, jvp_names, tangent_args, recursive=frozenset(),
                 reentrant=False):
        super().__init__(prog, spec, wrt, fnames, jvp_names, recursive=recursive)
        self.reentrant = reentrant
        self.jvp_names = jvp_names
        self.tangent_args = tangent_args
        self.writes_arrays = any(isinstance(s, SetItem) for s in ir.walk(spec.ir.body))

    # ------------------------------------------------------------------ helpers
    def active(self, a) -> bool:
        return isinstance(a, Var) and a.name in self.A.active

    def tangent_of(self, a):
        """The tangent of an operand: its tangent variable, or a zero shaped like it."""
        if self.active(a):
            return P.name(self.d(a.name))
        if isinstance(a, Var) and getattr(self.types.get(a.name), "ndim", 0):
            return self.zero(a.name)
        return P.const(0.0)

    def rank_atom(self, a):
        return getattr(self.types[a.name], "ndim", 0) if isinstance(a, Var) else 0

    def small(self, name) -> bool:
        """Whether an array has a constant shape `scalarize` may write out as numbers."""
        shapes = getattr(self.spec, "shapes", None)
        shape = shapes.of(name) if shapes is not None else None
        if not shape or not all(isinstance(d, int) for d in shape):
            return False
        return math.prod(shape) <= (scalarize.MAX_LEN if len(shape) == 1 else scalarize.MAX_ELEMENTS)

    def refuse(self, s, prim, p):
        raise JitadError(
            f"forward mode (jvp) has no tangent rule for {prim.name}'s argument {p!r} yet "
            f"(its adjoint exists: use grad/vjp/jacrev, or add a rule to "
            f"jitad/primitives/tangents.py)", s.loc, prim.name)

    # ------------------------------------------------------------------ the function
    def jvp(self):
        f = self.spec.ir
        positions = self.tangent_args[self.key()]
        tparams = [self.d(f.params[i]) for i in positions]
        start = []
        for i, p in enumerate(f.params):      # active parameters given no tangent start at zero
            if p in self.A.active and i not in positions:
                start.append(P.assign(self.d(p), self.zero(p)))
        body = self.block(f.body)
        ret = f.body[-1]
        assert isinstance(ret, Return)
        vals = [P.atom(a) for a in ret.values]
        tans = [self.tangent_of(a) for a in ret.values]
        if len(vals) == 1:
            out = ast.Tuple([vals[0], tans[0]], ast.Load())
        elif self.reentrant:        # read again: one flat tuple (no nested unpacking)
            out = ast.Tuple(vals + tans, ast.Load())
        else:
            out = ast.Tuple([ast.Tuple(vals, ast.Load()), ast.Tuple(tans, ast.Load())], ast.Load())
        line = ret.loc.source_line().strip()
        comment = [P.Comment(f"line {ret.loc.line}: {line}", ret.loc)] if line.startswith("return") else []
        fdef = P.function_def(self.jvp_names[self.key()], list(f.params) + tparams,
                              self.depth_check() + start + body + comment + [ast.Return(out)],
                              self.depth)
        # a tangent parameter has its primal's type (read by `scalarize`)
        fdef.jitad_param_types = {self.d(f.params[i]): self.spec.types[f.params[i]]
                                  for i in positions if f.params[i] in self.spec.types}
        if not self.reentrant:
            # regrouped by `factor` -- not in code read again: its front end would make each
            # new sum (`vx + vx`) a value of its own, taped in an hvp's forward sweep
            fdef.jitad_tangents = frozenset(self.adj.values())
        return fdef

    def block(self, block):
        out = []
        for s in block:
            if isinstance(s, Bind):
                stmts = self.bind(s)
            elif isinstance(s, SetItem):
                stmts = self.setitem(s)
            elif isinstance(s, If):
                stmts = [ast.If(P.name(s.test), self.block(s.body) or [ast.Pass()],
                                self.block(s.orelse))]
            elif isinstance(s, For):
                stmts = self.bounds.hoisted(s) + [ast.For(
                    P.name(s.var, store=True), P.call("range", *self.range_args(s)),
                    self.block(s.body) or [ast.Pass()], [])]
                stmts[-1].jitad_map = s.pointwise
            elif isinstance(s, While):
                stmts = [self.loop(s)]
            else:
                stmts = []
            out += stmts
        return out

    def loop(self, s: While):
        cond = self.block(s.cond)
        body = self.block(s.body) or [ast.Pass()]
        if len(cond) == 1 and isinstance(cond[0], ast.Assign) and cond[0].targets[0].id == s.test:
            return ast.While(cond[0].value, body, [])
        brk = ast.If(ast.UnaryOp(ast.Not(), P.name(s.test)), [ast.Break()], [])
        return ast.While(P.const(True), cond + [brk] + body, [])

    # ------------------------------------------------------------------ statements
    def setitem(self, s: SetItem):
        out = self.bounds.checks(s)
        if s.array in self.A.active:
            out.append(write_at(self.d(s.array), s.index, self.tangent_of(s.value), self.types,
                                self.reentrant))
            out[-1].jitad_loc = (s.loc.filename, s.loc.line)
        out.append(write_at(s.array, s.index, P.atom(s.value), self.types, self.reentrant))
        out[-1].jitad_loc = (s.loc.filename, s.loc.line)
        return out

    def primal_stmt(self, s: Bind, target=None):
        rhs = forward_expr(s, self.fnames, self.types, self.reentrant)
        if s.op is CALL:
            rhs.args += self.call_depth((id(s.callee), _argtys(s, self.types)))
        if s.op.effect or s.op is LIST_APPEND:
            return P.expr_stmt(rhs)
        if target is not None:
            return P.assign(target, rhs)
        return P.assign(s.target, rhs) if len(s.targets) == 1 else P.assign_many(s.targets, rhs)

    def bind(self, s: Bind):
        out = list(self.bounds.checks(s))
        loc = (s.loc.filename, s.loc.line)
        if not any(t in self.A.active for t in s.targets):
            stmts = [self.primal_stmt(s)]
        elif s.op is CALL:
            stmts = [self.call(s)]
        elif s.op is LIST_APPEND:
            stmts = [P.expr_stmt(P.call(ast.Attribute(P.name(self.d(s.target)), "append",
                                                      ast.Load()), self.tangent_of(s.args[1]))),
                     self.primal_stmt(s)]
        elif s.op is LIST_NEW:
            stmts = [self.primal_stmt(s), P.assign(self.d(s.target), forward_expr(
                s, self.fnames, self.types, self.reentrant))]
        else:
            stmts = self.assignment(s)
        for st in stmts:
            st.jitad_loc = loc
        return out + stmts

    def call(self, s: Bind):
        key = (id(s.callee), _argtys(s, self.types))
        targs = [self.tangent_of(s.args[i]) for i in self.tangent_args[key]]
        rhs = P.call(self.jvp_names[key], *[P.atom(a) for a in s.args], *targs,
                     *self.call_depth(key))
        dts = [self.d(t) if t in self.A.active else self.namer.fresh(f"{t}_dot")
               for t in s.targets]
        if len(s.targets) == 1:
            lhs = ast.Tuple([P.name(s.target, store=True), P.name(dts[0], store=True)], ast.Store())
        elif self.reentrant:
            lhs = ast.Tuple([P.name(t, store=True) for t in list(s.targets) + dts], ast.Store())
        else:
            lhs = ast.Tuple([ast.Tuple([P.name(t, store=True) for t in s.targets], ast.Store()),
                             ast.Tuple([P.name(d, store=True) for d in dts], ast.Store())],
                            ast.Store())
        return ast.Assign([lhs], rhs, lineno=0)

    def assignment(self, s: Bind):
        """`t = op(args)` and `d_t = tangent`, in the order that reads the operands' old
        values."""
        t = s.target
        dt = self.d(t)
        tangent, reads_y = self.tangent(s)
        if tangent is None:                     # no operand moves it: a zero tangent
            return [self.primal_stmt(s), P.assign(dt, self.zero(t))]
        if not reads_y:
            return [P.assign(dt, tangent), self.primal_stmt(s)]
        if any(isinstance(a, Var) and a.name == t for a in s.args):
            # the result overwrites an operand, and the tangent reads the result (`y`) and may
            # read that operand too (`u = u ** w`: d_w * y * log(u) of the old u): the operand's
            # value under another name, read by the primal statement and the tangent, and the
            # result assigned to t itself (a new array, never another variable's buffer)
            old = self.namer.fresh(f"{t}_old")
            self.rank[old] = self.ty(t).ndim
            tangent, _ = self.tangent(s, old)
            primal = self.primal_stmt(s)
            primal.value = _rename(primal.value, t, old)
            return [P.assign(old, P.name(t)), primal, P.assign(dt, tangent)]
        return [self.primal_stmt(s), P.assign(dt, tangent)]

    def tangent(self, s: Bind, old: str | None = None):
        """(the tangent expression of a one-target bind or None, whether it reads the result).
        `old`: the name holding the old value of an operand the result overwrites (the
        template's operands read it; its `y`, the result, reads the target)."""
        t = s.target
        nd = self.ty(t).ndim
        if s.op is COPY:
            return (P.name(self.d(s.args[0].name)) if self.active(s.args[0]) else None), False
        if s.op is GETITEM:
            if not self.active(s.args[0]):
                return None, False
            return read_at(P.name(self.d(s.args[0].name)), s.args[1:], self.types,
                           self.reentrant), False
        if s.op is CONCAT:
            axis = bind_statics(s, self.types)["axis"]
            kw = {"axis": P.const(axis)} if axis else {}
            e = P.call("np.concatenate", ast.Tuple([self.tangent_of(a) for a in s.args],
                                                   ast.Load()), **kw)
            return e, False
        if s.op is SHAPE or s.op.structural:
            return None, False
        rule = rule_for(s, self.types)
        rules = T.rules(rule, read_again=self.reentrant)
        mapping = {p: P.name(old) if old is not None and isinstance(a, Var) and a.name == t
                   else P.atom(a) for p, a in zip(rule.params, s.args)}
        statics = bind_statics(s, self.types)
        for k in rule.statics:
            v = statics.get(k)
            mapping[k] = P.dotted(v) if isinstance(v, str) else P.const(v)
        mapping["y"] = P.name(t)
        # the operands whose shapes the tangent has (a broadcast of): those it reads
        terms, reads_y, covered = [], False, set()
        for p, a in zip(rule.params, s.args):
            if not self.active(a) or p not in rule.adjoints:
                continue
            if p not in rules:
                self.refuse(s, rule, p)
            tpl = rules[p]
            names = {n.id for n in ast.walk(tpl) if isinstance(n, ast.Name)}
            reads_y |= "y" in names
            covered |= {q for q in rule.params if q in names} | {p}
            mapping["t"] = P.name(self.d(a.name))
            if self.reentrant and rule.name in T.LINEARLY and not runtime_calls.readable(tpl):
                # read again: the primitive itself, applied to the tangent in the operand's place
                c = runtime_calls.call(rule, [mapping["t"] if q == p else mapping[q]
                                              for q in list(rule.params) + list(rule.statics)])
                covered |= set(rule.params)
            else:
                c = P.fold(substitute(tpl, mapping))
            terms.append(c)
        if not terms:
            return None, False
        # fused products where `scalarize` will not write them out as numbers (small arrays
        # of a known shape); code read again differentiates them as primitives of their own
        small = any(self.small(b.name) for b in list(s.args) + [Var(t)] if isinstance(b, Var))
        total = _sum(terms if small else _fuse_products(terms))
        # an elementwise result has the broadcast shape of its array operands: a tangent that
        # reads only some of them (`t` of `a + b`, b inactive) may be smaller -- a lower rank,
        # or a size-1 axis (`r[None, :] + S`) -- and is broadcast onto y
        # (unless one it reads provably has y's shape: `shapes`)
        shapes = getattr(self.spec, "shapes", None)
        low = rule.elementwise and not reads_y and any(
            self.rank_atom(b) and q not in covered for q, b in zip(rule.params, s.args)) \
            and not (shapes is not None and any(
                isinstance(b, Var) and q in covered and shapes.same(b.name, t)
                for q, b in zip(rule.params, s.args)))
        if low and nd:                      # a smaller tangent broadcast onto y
            total = P.binop(total, ast.Add(), P.call("np.zeros_like", P.name(t)))
            reads_y = True
        elif nd and self.writes_arrays and s.op.fresh and not _fresh_expr(total):
            total = P.call(ast.Attribute(total, "copy", ast.Load()))
        return total, reads_y


def _sum(terms):
    return P.fold(P.chain(terms, ast.Add()))


def _fuse_products(terms):
    """Consecutive contributions `rt.matvec(dA, x)`, `rt.matvec(A, dx)` (the product rule) ->
    one `rt.matvec_sum(dA, x, A, dx)` (`runtime.SUMS_OF_PRODUCTS`: one loop and one array for
    three, the same numbers); other terms as they are. Code read again (`higher`) reads them
    as the primitives `matvec_sum`, ... (`primitives.table`: each product's adjoints)."""
    def kind(c):
        fn = ast.unparse(c.func) if isinstance(c, ast.Call) else ""
        k = fn[3:] if fn.startswith("rt.") else None
        return k if k in runtime.SUMS_OF_PRODUCTS and len(c.args) == 2 and not c.keywords \
            else None
    out = []
    for c in terms:
        if out and kind(c) is not None and kind(out[-1]) == kind(c):
            out[-1] = P.call(f"rt.{runtime.SUMS_OF_PRODUCTS[kind(c)]}", *out[-1].args, *c.args)
        else:
            out.append(c)
    return out


def _rename(tree, old, new):
    class R(ast.NodeTransformer):
        def visit_Name(self, node):
            return ast.Name(new, node.ctx) if node.id == old else node
    return R().visit(tree)


def tangent_args(prog, entry, wrt, cw) -> dict:
    """(id(fn), argtys) -> the positions each jvp takes tangents for: the entry's `wrt` and,
    for every callee, the arguments some call site gives a moving value (`callee_wrt`)."""
    out = dict(cw)
    key = (id(entry.fn), entry.argtys)
    out[key] = tuple(sorted(set(wrt) | set(cw.get(key, ()))))
    for spec in prog.order:
        out.setdefault((id(spec.fn), spec.argtys), ())
    return out

