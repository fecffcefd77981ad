"""Stage 4a — inline: small helpers' bodies written into their callers.

Takes: the typed `Program` (after the checking passes: every refusal was made on the
functions as the user wrote them).
Guarantees: in every specialization, a call of a *small* helper -- no loop, no value or
operand of rank >= 2, no list, not on a recursion cycle, at most `MAX_STATEMENTS` statements,
calling only helpers that are small too -- is replaced by the helper's statements: its
parameters read as the call's arguments (a parameter it assigns to first copied into a local
of its own), its locals renamed to fresh names of the caller's (`Function.renamed` keeps the
user's names for messages), a local it returns bound to the call's target itself when it is
a new array (or a number), a view of an array of the helper's own (`return np.flip(u)`)
copied (`x.copy()`) into the target, as the write rules let the caller write into it, any
other result assigned to the call's targets. The program computes
the same values. Why: such a helper's forward is a few cheap statements, so the alternatives
cost more than they save -- a cut helper (`g_fwd`/`g_bwd`) packs a state tuple per call, a
recomputed one runs its forward again inside its vjp -- and a call is a wall for `maps` (a
sigmoid helper's map could not join its caller's: `cell * sigmoid(g) + ...` is one loop only
once sigmoid's body is the caller's).
A helper specialization with *one call site* in the whole program, inside a loop of its
caller (not on a recursion cycle), is inlined the same way whatever its size -- loops, lists
and matrices included. Its code is written once either way, so inlining costs no compile
time, and the call in the loop no longer packs a state tuple of every local per iteration on
a list, makes tapes and zero adjoints of its own per call, nor adds a whole adjoint of each
parameter into the caller's per call (ADBench's LSTM: `lstm_predict`, called once per
character). A call outside loops pays that once, and stays a call: `parallel=True` may
dispatch it (`par` runs independent calls outside loops at the same time), and its
sequential gradient must stay the parallel one bit for bit, so both inline the same calls.
Other costly helpers (loops, matrices) stay calls.
Invariants: the shared IR is never changed (an inlined caller gets a new `ir.Function`);
types of the new names are added to the caller's `Spec.types`; a helper is inlined into a
caller only after its own inlinable callees were inlined into it, so inlined code holds no
call of a small helper, and a helper's body is written at most once per call statement of
the program as it was before the pass; `JITAD_NO_INLINE=1` turns the pass off.
"""
from __future__ import annotations

import dataclasses

from . import ir
from .ir import Bind, For, If, Return, SetItem, Slice, TupleA, Var, While
from .names import Namer
from .ad.analysis import new_array, returns_fresh
from .primitives import CALL, COPY, get
from .primitives.lists import LIST_APPEND, LIST_NEW
from .types import arg_types

MAX_STATEMENTS = 150
_COPY_ARRAY = get("copy_array")


def inline(prog, cycles, once=True):
    """Inline every small helper call in every specialization of `prog`, and with `once`
    every call of a helper specialization called at one place only, in a loop (see the
    module docstring); `cycles` are the specializations on a recursion cycle."""
    small = {}
    sites, in_loop = {}, set()

    def count(block, spec, looped):
        for s in block:
            if isinstance(s, Bind) and s.op is CALL:
                key = (id(s.callee), arg_types(s, spec.types))
                sites[key] = sites.get(key, 0) + 1
                if looped:
                    in_loop.add(key)
            for sub in ir.sub_blocks(s):
                count(sub, spec, looped or isinstance(s, (For, While)))
    for spec in prog.order:
        count(spec.ir.body, spec, False)
    entry = getattr(prog, "entry", None)
    entry_key = None if entry is None else (id(entry.fn), entry.argtys)

    def inlinable(key):
        return is_small(key) or (
            once and sites.get(key) == 1 and key in in_loop and key not in cycles
            and key != entry_key
            and key in prog.specs and isinstance(prog.specs[key].ir.body[-1:][0], Return))

    def is_small(key, seen=()):
        if key in small:
            return small[key]
        spec = prog.specs.get(key)
        ok = spec is not None and key not in cycles and key not in seen
        if ok:
            stmts = list(ir.walk(spec.ir.body))
            ok = len(stmts) <= MAX_STATEMENTS and not any(
                isinstance(s, (For, While)) or (isinstance(s, Bind) and (
                    s.op is LIST_NEW or s.op is LIST_APPEND
                    or any(_rank(spec, t) >= 2 for t in s.targets)
                    or any(isinstance(a, Var) and _rank(spec, a.name) >= 2 for a in s.args)))
                for s in stmts)
            ok = ok and all(is_small((id(s.callee), arg_types(s, spec.types)), seen + (key,))
                            for s in stmts if isinstance(s, Bind) and s.op is CALL)
        small[key] = ok
        return ok

    done = set()

    def process(spec):
        key = (id(spec.fn), spec.argtys)
        if key in done:
            return
        done.add(key)
        calls = [s for s in ir.walk(spec.ir.body) if isinstance(s, Bind) and s.op is CALL]
        for s in calls:         # callees first: what is written in holds no small call
            callee = prog.specs.get((id(s.callee), arg_types(s, spec.types)))
            if callee is not None:
                process(callee)
        if any(inlinable((id(s.callee), arg_types(s, spec.types))) for s in calls):
            _Inliner(prog, spec, inlinable).run()

    for spec in list(prog.order):
        process(spec)


def _rank(spec, name):
    t = spec.types.get(name)
    return 0 if t is None or getattr(t, "is_list", False) else getattr(t, "ndim", 0)


class _Inliner:
    def __init__(self, prog, spec, inlinable):
        self.prog, self.spec, self.inlinable = prog, spec, inlinable
        f = spec.ir
        self.namer = Namer(ir.taken_names(f, spec.types))
        self.renamed = dict(f.renamed)
        self.callees = dict(f.callees)

    def run(self):
        f = self.spec.ir
        body = self.block(f.body)
        self.spec.ir = dataclasses.replace(f, body=body, renamed=self.renamed, callees=self.callees)

    def block(self, block):
        out = []
        for s in block:
            if isinstance(s, Bind) and s.op is CALL and \
                    self.inlinable((id(s.callee), arg_types(s, self.spec.types))):
                out += self.expand(s)
            elif isinstance(s, If):
                out.append(dataclasses.replace(s, body=self.block(s.body), orelse=self.block(s.orelse)))
            elif isinstance(s, While):
                out.append(dataclasses.replace(s, cond=self.block(s.cond), body=self.block(s.body)))
            elif isinstance(s, For):
                out.append(dataclasses.replace(s, body=self.block(s.body)))
            else:
                out.append(s)
        return out

    def expand(self, call):
        """The callee's statements for this call, its result copied into the call's targets."""
        callee = self.prog.specs[(id(call.callee), arg_types(call, self.spec.types))]
        g = callee.ir
        assigned = {t for s in ir.walk(g.body) for t in ir.writes(s)}
        names, out = {}, []
        for p, a in zip(g.params, call.args):
            if p in assigned:       # a parameter the helper assigns: a local of its own
                local = self.local(p, callee)
                out.append(Bind((local,), COPY, (a,), call.loc))
                names[p] = Var(local)
            else:
                names[p] = a
        # a local the helper returns is bound to the call's target itself (not copied into
        # it), so an array the helper creates stays one the caller created: `u = g(x);
        # u[1] = 0.0` writes into a new array, not into a copy of a name (an alias)
        ret = g.body[-1]
        args = {a.name for a in call.args if isinstance(a, Var)}
        returned = [v.name for v in ret.values if isinstance(v, Var)]
        direct, copied = set(), set()
        own = returns_fresh(self.prog, call, self.spec.types)
        for t, v in zip(call.targets, ret.values):
            if not (isinstance(v, Var) and v.name in assigned and v.name not in g.params):
                continue
            if _rank(callee, v.name) and not self.made_fresh(callee, v.name):
                # a view of (or another name for) an array of the helper's own (`return
                # np.flip(u)`): the caller may write into it, as into any array the helper
                # made -- a copy, which nothing else sees, keeps that so once inlined
                copied.update([t] if own else [])
            elif returned.count(v.name) == 1 and t not in args and call.targets.count(t) == 1:
                names[v.name] = Var(t)
                direct.add(t)
        for s in ir.walk(g.body):
            for t in ir.writes(s):
                if t not in names:
                    names[t] = Var(self.local(t, callee))
            if isinstance(s, (If, While)) and s.test not in names:
                names[s.test] = Var(self.local(s.test, callee))
        self.callees.update(g.callees)
        body = [self.rename(s, names) for s in g.body]
        ret = body.pop()
        assert isinstance(ret, Return), "a function body ends in its Return"
        out += body
        for t, v in zip(call.targets, ret.values):
            if t not in direct:
                out.append(Bind((t,), _COPY_ARRAY if t in copied else COPY, (v,), call.loc))
        return out

    def made_fresh(self, callee, name):
        """Whether every assignment of `name` in the helper makes a new array."""
        return all(new_array(b, callee.types) or (
            b.op is CALL and returns_fresh(self.prog, b, callee.types))
            for b in ir.walk(callee.ir.body) if isinstance(b, Bind) and name in b.targets)

    def local(self, name, callee):
        user = callee.ir.user_name(name)
        # (a position of a tuple local is named `st[0]` for messages: not an identifier)
        new = self.namer.fresh(user if user.isidentifier() else name)
        self.spec.types[new] = callee.types[name]
        self.renamed[new] = user
        return new

    def rename(self, s, names):
        def atom(a):
            if isinstance(a, Var):
                return names.get(a.name, a)
            if isinstance(a, Slice):
                return Slice(*(None if x is None else atom(x) for x in (a.lower, a.upper, a.step)))
            if isinstance(a, TupleA):
                return TupleA(tuple(atom(x) for x in a.items))
            return a

        def name(n):
            v = names.get(n)
            assert isinstance(v, Var), f"{n} is a name of its own in the inlined body"
            return v.name

        if isinstance(s, Bind):
            return dataclasses.replace(s, targets=tuple(name(t) for t in s.targets),
                                       args=tuple(atom(a) for a in s.args))
        if isinstance(s, SetItem):
            return dataclasses.replace(s, array=atom(Var(s.array)).name,
                                       index=tuple(atom(a) for a in s.index), value=atom(s.value))
        if isinstance(s, If):
            return dataclasses.replace(s, test=name(s.test),
                                       body=[self.rename(x, names) for x in s.body],
                                       orelse=[self.rename(x, names) for x in s.orelse])
        if isinstance(s, Return):
            return dataclasses.replace(s, values=tuple(atom(a) for a in s.values))
        if isinstance(s, For):
            return dataclasses.replace(s, var=name(s.var), start=atom(s.start),
                                       stop=atom(s.stop), step=atom(s.step),
                                       body=[self.rename(x, names) for x in s.body])
        if isinstance(s, While):
            return dataclasses.replace(s, test=name(s.test),
                                       cond=[self.rename(x, names) for x in s.cond],
                                       body=[self.rename(x, names) for x in s.body])
        raise AssertionError(f"not a statement an inlined helper holds: {s!r:.80}")
