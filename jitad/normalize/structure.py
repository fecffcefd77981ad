"""Structuring: `break`, `continue` and early `return` become flags.

Takes: the lowered body of a `Normalizer`, with transient `Break`/`Continue`/`EarlyReturn`.
Guarantees: the jumps are gone: each became a boolean flag that guards the rest of its block
and joins the loop's test, so control flow is purely structured (`If`, `While`, `For`) and the
body ends with one `Return`. `own_loop_indices`: no counted loop's variable is assigned in its
body (such a loop counts with an index of its own).
"""
from __future__ import annotations

from .. import ir
from ..errors import UnsupportedError
from ..flow import surely_runs
from ..ir import Bind, Const, For, If, Return, Var, While
from ..primitives import COPY, get


OR, NOT, IN_RANGE, ADD = (get(n) for n in ("or", "not", "in_range", "add"))


class Structurer:
    """Removes `break`, `continue` and early `return` by flags (see the module docstring)."""

    def __init__(self, norm):   # an anf.Normalizer
        self.norm = norm
        self.namer = norm.namer
        self.ret_flag = None
        self.ret_vars = None
        self.loc = None

    def lower_function(self, body):
        self.loc = self.norm.cap.loc(self.norm.cap.tree)
        tops = [s for s in body]
        early = any(isinstance(s, ir.EarlyReturn) for s in ir.walk(body)) and not (
            sum(isinstance(s, ir.EarlyReturn) for s in ir.walk(body)) == 1
            and isinstance(body[-1], ir.EarlyReturn))
        if not early:
            # the only return is the last top-level statement; drop what follows
            last = next(i for i, s in enumerate(tops) if isinstance(s, ir.EarlyReturn))
            r = tops[last]
            return self.block(tops[:last], None) + [Return(r.values, r.loc)]
        arity = {len(s.values) for s in ir.walk(body) if isinstance(s, ir.EarlyReturn)}
        if len(arity) != 1:
            r = next(s for s in ir.walk(body) if isinstance(s, ir.EarlyReturn))
            raise UnsupportedError("every return must give the same number of values", r.loc,
                                   "return")
        n = arity.pop()
        self.ret_flag = self.namer.fresh("returned")
        base = f"{self.norm.cap.name}_result"
        self.ret_vars = [self.namer.fresh(base if n == 1 else f"{base}{k}") for k in range(n)]
        init = [Bind((self.ret_flag,), COPY, (Const(False),), self.loc)]
        lowered = self.block(body, None)
        return init + lowered + [Return(tuple(Var(v) for v in self.ret_vars), self.loc)]

    def block(self, stmts, loop):
        out = []
        for k, s in enumerate(stmts):
            if isinstance(s, ir.Break):
                out.append(Bind((loop[0],), COPY, (Const(True),), s.loc))
                return out
            if isinstance(s, ir.Continue):
                out.append(Bind((loop[1],), COPY, (Const(True),), s.loc))
                return out
            if isinstance(s, ir.EarlyReturn):
                for v, a in zip(self.ret_vars, s.values):
                    out.append(Bind((v,), COPY, (a,), s.loc))
                out.append(Bind((self.ret_flag,), COPY, (Const(True),), s.loc))
                return out
            flags = []
            if isinstance(s, If):
                flags = self.jump_flags(s, loop)
                out.append(If(s.test, self.block(s.body, loop), self.block(s.orelse, loop), s.loc))
            elif isinstance(s, (While, For)):
                out.extend(self.loop(s))
                if self.ret_flag and any(isinstance(x, ir.EarlyReturn) for x in ir.walk(s.body)):
                    flags = [self.ret_flag]
            else:
                out.append(s)
            rest = stmts[k + 1:]
            if flags and rest:
                go = self.guard(flags, s.loc, out)
                out.append(If(go, self.block(rest, loop), [], s.loc))
                return out
        return out

    def jump_flags(self, s, loop):
        """Flags a statement may set at this loop level (break/continue) or anywhere (return)."""
        flags = []

        def scan(block, nested):
            for x in block:
                if isinstance(x, ir.Break) and not nested and loop and loop[0] not in flags:
                    flags.append(loop[0])
                elif isinstance(x, ir.Continue) and not nested and loop and loop[1] not in flags:
                    flags.append(loop[1])
                elif isinstance(x, ir.EarlyReturn) and self.ret_flag not in flags:
                    flags.append(self.ret_flag)
                elif isinstance(x, If):
                    scan(x.body, nested)
                    scan(x.orelse, nested)
                elif isinstance(x, (While, For)):
                    scan(x.body, True)
        scan([s], False)
        return [f for f in flags if f]

    def guard(self, flags, loc, out):
        """Emit `go = not (f1 or f2 ...)` and return its name."""
        cur = Var(flags[0])
        for f in flags[1:]:
            t = self.namer.fresh("jumped")
            out.append(Bind((t,), OR, (cur, Var(f)), loc))
            cur = Var(t)
        go = self.namer.fresh("go")
        out.append(Bind((go,), NOT, (cur,), loc))
        return go

    def loop(self, s):
        def direct(kind):
            def scan(block):
                for x in block:
                    if isinstance(x, kind):
                        return True
                    if isinstance(x, If) and (scan(x.body) or scan(x.orelse)):
                        return True
                return False
            return scan(s.body)

        has_break, has_cont = direct(ir.Break), direct(ir.Continue)
        has_ret = self.ret_flag is not None and any(isinstance(x, ir.EarlyReturn) for x in ir.walk(s.body))
        pre = []
        brk = self.namer.fresh("broke") if has_break else None
        cont = self.namer.fresh("skip") if has_cont else None
        body = self.block(s.body, (brk, cont))
        if cont:
            body = [Bind((cont,), COPY, (Const(False),), s.loc)] + body
        exits = [f for f in (brk, self.ret_flag if has_ret else None) if f]
        if isinstance(s, For) and not exits:
            return [For(s.var, s.start, s.stop, s.step, body, s.loc)]
        if brk:
            pre.append(Bind((brk,), COPY, (Const(False),), s.loc))
        enters = False
        if isinstance(s, For):
            # a counted loop that can exit early becomes a while loop over a counter; over a
            # range of constant, non-empty bounds its first test surely holds: its exit flags
            # are unset when it is entered (`brk` just above; a statement after one that set
            # the return flag runs only under `if not returned`), so `Flow` may know it runs
            enters = surely_runs(s)
            k = self.namer.fresh(f"{s.var}_next")
            pre.append(Bind((k,), COPY, (s.start,), s.loc))
            test = self.namer.fresh("cond")
            cond = [Bind((test,), IN_RANGE, (Var(k), s.stop, s.step), s.loc)]
            body = [Bind((s.var,), COPY, (Var(k),), s.loc),
                    Bind((k,), ADD, (Var(k), s.step), s.loc)] + body
            s = While(cond, test, body, s.loc)
        cond_stmts, test = s.cond, s.test
        if exits:
            new_test = self.namer.fresh("cond")
            guard_out = []
            go = self.guard(exits, s.loc, guard_out)
            cond_stmts = guard_out + [If(go, cond_stmts + [Bind((new_test,), COPY, (Var(test),), s.loc)],
                                         [Bind((new_test,), COPY, (Const(False),), s.loc)], s.loc)]
            test = new_test
        return pre + [While(cond_stmts, test, body, s.loc, enters=enters)]


def own_loop_indices(body, namer, renamed) -> list:
    """A counted loop whose body assigns its variable too (`if c: i = i + 1`, an inner
    `for i in ...`) counts with an index of its own: `for i_idx in range(...): i = i_idx; ...`.
    Python's `i` is then an ordinary variable the body assigns, so the adjoint keeps the value
    the body left in it, where a loop index is computed again by the reversed loop (a write
    `v[i] = ...` after an inner `for i` was undone at the outer index: a wrong gradient).
    Mutates and returns `body`; `renamed` maps each new index to the user's name."""
    for s in ir.walk(body):
        if isinstance(s, For) and any(s.var in ir.writes(x) for x in ir.walk(s.body)):
            user, own = s.var, namer.fresh(f"{s.var}_idx")
            renamed[own] = renamed.get(user, user)
            s.var = own
            s.body.insert(0, Bind((user,), COPY, (Var(own),), s.loc))
    return body
