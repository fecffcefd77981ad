"""Stage 3b — monadic form: the A-normal IR read as do-notation (Bind / Par / Bang / If / Loop / Pure).

Takes: a normalized `ir.Function`.
Guarantees: `group(block)` returns the block with maximal runs of consecutive, mutually
independent binds (no bind of a run reads or writes what another writes) wrapped in `ir.Par`;
this is the applicative structure the scheduler may reorder or run concurrently, found by
dependency analysis and nothing else. `render(f)` prints the function as do-notation:
`t <- op(args)` for a bind, `(a, b) <- par(f(x), g(y))` for an applicative group,
`c <- !(op(args))` where a primal value is extracted for control (an `if`/`while` test), and
`pure v` for the result. It is the form `jitad.source(f, "monadic")` shows.
"""
from __future__ import annotations

import dataclasses

from . import ir
from .capture import def_name
from .ir import Bind, For, If, Par, Return, SetItem, While
from .primitives import CALL, COPY, GETITEM


def group(block, bangs=frozenset(), hoist=False):
    """`bangs`: targets extracted for control (`!`); they stay their own step, never in a Par.
    `hoist`: a straight run of binds is first scheduled as early as its dependences allow
    (`levels`), so independent binds separated by others' operands (`h0 = g(W[0])`,
    `h1 = g(W[1])`: the reads `W[1]` sit between the calls) share a group: the grouping
    `parallel` dispatches."""
    out, run = [], []

    def flush():
        if len(run) > 1:
            out.append(Par(list(run)))
        else:
            out.extend(run)
        run.clear()

    if hoist:
        block = levels(block, bangs)
    for s in block:
        if isinstance(s, Par):
            flush()
            out.append(s)
            continue
        if isinstance(s, Bind) and not set(s.targets) & bangs:
            writes = {t for b in run for t in b.targets}
            reads_ = {n for b in run for n in ir.reads(b)}
            if run and (set(ir.reads(s)) & writes or set(s.targets) & (writes | reads_)):
                flush()
            run.append(s)
            continue
        flush()
        if isinstance(s, If):
            s = If(s.test, group(s.body, bangs, hoist), group(s.orelse, bangs, hoist), s.loc)
        elif isinstance(s, While):
            s = dataclasses.replace(s, cond=group(s.cond, bangs, hoist),
                                    body=group(s.body, bangs, hoist))
        elif isinstance(s, For):
            s = dataclasses.replace(s, body=group(s.body, bangs, hoist))
        out.append(s)
    flush()
    return out


def levels(block, bangs=frozenset()):
    """`block` with each straight run of plain binds (no `!`, no effect) as its dependence
    levels, in order: level 0 the binds that read nothing the run assigns before them, level k
    those whose latest dependence (a value read, or an earlier bind reading or assigning what
    they assign) is at level k - 1. A level of several binds is a `Par`; within a level and
    between runs the program order is kept, so the result is deterministic."""
    out, run = [], []

    def flush():
        level = []
        for i, s in enumerate(run):
            reads_, writes = set(ir.reads(s)), set(s.targets)
            k = 0
            for j in range(i):
                b = run[j]
                if set(b.targets) & (reads_ | writes) or set(ir.reads(b)) & writes:
                    k = max(k, level[j] + 1)
            level.append(k)
        for k in sorted(set(level)):
            binds = [s for s, lv in zip(run, level) if lv == k]
            out.append(binds[0] if len(binds) == 1 else Par(binds))
        run.clear()

    for s in block:
        if isinstance(s, Bind) and not set(s.targets) & bangs and not s.op.effect:
            run.append(s)
            continue
        flush()
        out.append(s)
    flush()
    return out


def _call(b: Bind) -> str:
    if b.op is COPY:
        return f"pure({b.args[0]})"
    if b.op is GETITEM:
        return f"{b.args[0]}[{', '.join(map(str, b.args[1:]))}]"
    op = def_name(b.callee) if b.op is CALL else b.op.name
    args = [str(a) for a in b.args] + [f"{k}={v}" for k, v in b.statics.items()]
    return f"{op}({', '.join(args)})"


def _lhs(targets):
    return targets[0] if len(targets) == 1 else "(" + ", ".join(targets) + ")"


def render(f: ir.Function, notes=None) -> str:
    """`notes` (a `parallel=True` function): (targets, text) per group `parallel` decided on;
    the binds are then grouped as it groups them (`hoist`) and each group's decision is
    printed under it as `-- parallel: ...` or `-- sequential: why`."""
    tests = {s.test for s in ir.walk(f.body) if isinstance(s, (If, While))}
    lines = [f"{f.name}({', '.join(f.params)}) = do"]

    def bind_line(b, ind):
        rhs = _call(b)
        if b.target in tests and len(b.targets) == 1:
            rhs = f"!({rhs})"
        lines.append(f"{ind}{_lhs(b.targets)} <- {rhs}")

    def block(stmts, depth):
        ind = "  " * depth
        for s in stmts:
            if isinstance(s, Bind):
                bind_line(s, ind)
            elif isinstance(s, Par):
                lhs = ", ".join(_lhs(b.targets) for b in s.binds)
                lines.append(f"{ind}({lhs}) <- par({', '.join(_call(b) for b in s.binds)})")
                mine = {t for b in s.binds for t in b.targets}
                for targets, text in notes or ():
                    if mine & set(targets):
                        lines.append(f"{ind}  -- {text}")
                        break
            elif isinstance(s, SetItem):
                lines.append(f"{ind}{s.array}[{', '.join(map(str, s.index))}] := {s.value}")
            elif isinstance(s, If):
                lines.append(f"{ind}if !{s.test} then do")
                block(s.body, depth + 2) if s.body else lines.append(f"{ind}    pure ()")
                if s.orelse:
                    lines.append(f"{ind}else do")
                    block(s.orelse, depth + 2)
            elif isinstance(s, While):
                lines.append(f"{ind}while do")
                block(s.cond, depth + 2)
                lines.append(f"{ind}    pure !{s.test}")
                lines.append(f"{ind}  loop do")
                block(s.body, depth + 2) if s.body else lines.append(f"{ind}    pure ()")
            elif isinstance(s, For):
                lines.append(f"{ind}for {s.var} in range({s.start}, {s.stop}, {s.step}) do")
                block(s.body, depth + 2) if s.body else lines.append(f"{ind}    pure ()")
            elif isinstance(s, Return):
                vals = ", ".join(map(str, s.values))
                lines.append(f"{ind}pure {vals if len(s.values) == 1 else '(' + vals + ')'}")

    block(group(f.body, frozenset(tests), hoist=notes is not None), 1)
    return "\n".join(lines) + "\n"
