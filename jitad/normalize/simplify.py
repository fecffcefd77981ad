"""Simplification of the structured IR: constant decisions and common temporaries.

Takes: a structured IR body (no jumps).
Guarantees: `fold_constant_decisions` keeps only the branch a constant test takes and drops a
`while` whose test is constant False; `eliminate_common_temps` makes a repeated pure
computation (same primitive and operands, nothing written in between) reuse the first
temporary. Both keep the IR's invariants.
"""
from __future__ import annotations

from .. import ir
from ..ir import Bind, Const, For, If, Return, SetItem, Slice, TupleA, Var, While
from ..primitives import CALL, COPY


def _typed(atoms):
    """The types of an argument list's constants: `x ** 2` and `x ** 2.0` (equal as `Const`s)
    are different computations (int and float results)."""
    return tuple(type(a.value) if isinstance(a, Const) else None for a in atoms)


def fold_constant_decisions(body):
    """Decide now every branch whose test follows from constants alone (`returned = False;
    go = not returned; if go:`, `flag = True; if flag:`, `acc = 0.0; if acc <= 0.17:`) and
    keep only the branch taken; a `while` whose test is constant False is dropped. Numba prunes
    such branches itself, and a pruned branch that assigned a value the generated adjoint still
    reads is a compile error ("Unsupported assignment encountered: Undefined"). The constants
    are tracked along control flow: a variable is known only where every path gives it the
    same constant; a loop forgets what its body assigns."""
    def assigned(stmts):
        return {t for x in ir.walk(stmts) for t in ir.writes(x)}

    def value(a, env):
        if isinstance(a, Const):
            return a
        return env.get(a.name) if isinstance(a, Var) else None

    def block(stmts, env):
        out = []
        for s in stmts:
            if isinstance(s, Bind):
                vals = [value(a, env) for a in s.args]
                known = len(s.targets) == 1 and all(v is not None for v in vals) and (
                    s.op is COPY or s.op.decision)
                for t in s.targets:
                    env.pop(t, None)
                if known:
                    args = [v.value for v in vals]
                    res = args[0] if s.op is COPY else s.op.impl(*args)
                    if s.op is not COPY or isinstance(res, (bool, int, float)):
                        env[s.target] = Const(res if s.op is COPY else bool(res))
                out.append(s)
            elif isinstance(s, If):
                test = env.get(s.test)
                if test is not None:            # decided: the branch taken, in place
                    out += block(s.body if test.value else s.orelse, env)
                    continue
                e1, e2 = dict(env), dict(env)
                s.body, s.orelse = block(s.body, e1), block(s.orelse, e2)
                env.clear()
                env.update({k: v for k, v in e1.items() if e2.get(k) == v
                            and type(e2.get(k).value) is type(v.value)})
                out.append(s)
            elif isinstance(s, (For, While)):
                inner = (s.cond if isinstance(s, While) else []) + s.body
                for t in assigned(inner) | set(ir.writes(s)):
                    env.pop(t, None)
                if isinstance(s, While):
                    s.cond = block(s.cond, env)
                    if env.get(s.test) == Const(False):
                        out += s.cond              # the test runs once and says no
                        continue
                s.body = block(s.body, dict(env))
                out.append(s)
            else:
                out.append(s)
        return out

    return block(body, {})


def eliminate_common_temps(body, temps):
    """`t2 = op(args)` computed again in the same block, with nothing in between writing
    `args` (or an array they index), becomes a use of the first temporary: `U[u]` read twice
    is one row and one adjoint. Only temporaries assigned once, and only pure primitives."""
    counts = {}
    for s in ir.walk(body):
        for t in ir.writes(s):
            counts[t] = counts.get(t, 0) + 1
    single = {t for t in temps if counts.get(t) == 1}
    rename = {}
    # names that may share storage (a copy, a view, a helper's result and its operands: no
    # types yet, so every bind not surely making a new array links its target to its
    # operands): a write into one changes what an expression of another computes
    # (c = v; v[1] = np.dot(c, x); np.dot(c, x) again is not the first one)
    parent = {}

    def find(n):
        while parent.get(n, n) != n:
            n = parent[n]
        return n

    for s in ir.walk(body):
        if isinstance(s, Bind) and _may_share(s):
            names = list(s.targets) + [n for a in s.args for n in ir.atom_names(a)]
            for n in names[1:]:
                a, b = find(names[0]), find(n)
                if a != b:
                    parent[b] = a

    def stored(written_arrays):
        """The names whose values a write into these arrays may change."""
        return {find(n) for n in written_arrays}

    def atom(a):
        if isinstance(a, Var):
            return Var(rename.get(a.name, a.name))
        if isinstance(a, Slice):
            return Slice(*(None if x is None else atom(x) for x in (a.lower, a.upper, a.step)))
        if isinstance(a, TupleA):
            return TupleA(tuple(atom(x) for x in a.items))
        return a

    def block(stmts):
        avail, out = {}, []
        for s in stmts:
            changed = set()
            if isinstance(s, Bind):
                s.args = tuple(atom(a) for a in s.args)
                pure = s.op.reusable and len(s.targets) == 1
                key = (s.op, s.args, _typed(s.args), tuple(sorted(s.statics.items()))) if pure else None
                if key is not None and key in avail and s.target in single:
                    rename[s.target] = avail[key]
                    continue
                written = set(s.targets)
                if key is not None and s.target in single and not (set(ir.reads(s)) & written):
                    avail[key] = s.target
                if s.inplace:           # `y += e` on an array updates y's buffer in place
                    changed = stored(s.targets)
            elif isinstance(s, SetItem):
                s.index = tuple(atom(a) for a in s.index)
                s.value = atom(s.value)
                written = {s.array}
                changed = stored(written)
            elif isinstance(s, Return):
                s.values = tuple(atom(a) for a in s.values)
                written = set()
            elif isinstance(s, If):
                s.test = rename.get(s.test, s.test)
                s.body, s.orelse = block(s.body), block(s.orelse)
                written = {t for x in ir.walk(s.body + s.orelse) for t in ir.writes(x)} | {
                    x.array for x in ir.walk(s.body + s.orelse) if isinstance(x, SetItem)}
                changed = stored(_updated(s.body + s.orelse))
            elif isinstance(s, (While, For)):
                if isinstance(s, For):
                    s.start, s.stop, s.step = atom(s.start), atom(s.stop), atom(s.step)
                else:
                    s.cond = block(s.cond)
                    s.test = rename.get(s.test, s.test)
                s.body = block(s.body)
                inner = (s.cond if isinstance(s, While) else []) + s.body
                written = {t for x in ir.walk(inner) for t in ir.writes(x)} | {
                    x.array for x in ir.walk(inner) if isinstance(x, SetItem)} | set(ir.writes(s))
                changed = stored(_updated(inner))
            else:
                written = set()
            if written:
                avail = {k: v for k, v in avail.items()
                         if not (written & {n for a in k[1] for n in ir.atom_names(a)})}
            if changed:
                avail = {k: v for k, v in avail.items()
                         if not (changed & {find(n) for a in k[1] for n in ir.atom_names(a)})}
            out.append(s)
        return out

    return block(body)


def _updated(block) -> set:
    """The arrays `block` writes into or updates in place."""
    return {x.array for x in ir.walk(block) if isinstance(x, SetItem)} | {
        t for x in ir.walk(block) if isinstance(x, Bind) and x.inplace for t in x.targets}


def _may_share(b: Bind) -> bool:
    """Whether bind `b`'s result may share storage with an operand, for some operand types: a
    copy or view, a call, a form that is a view at some ranks, `np.float64(x)`."""
    op = b.op
    if op is CALL or op.view or not op.fresh or b.statics.get("copy") is False \
            or op.at_ranks is not None:
        return True
    forms = list((op.variants or {}).values()) + [op.on_scalar, op.whole, op.complex_form]
    return any(f is not None and (f.view or not f.fresh) for f in forms)
