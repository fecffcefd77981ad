"""Checkpointed loops: the adjoint computes an iteration's values again instead of popping them.

Takes: an `Analysis` (what the adjoint reads: `needed`; what the forward keeps: `pushed`) and
one loop (`While` or `For`) of its function; `checkpoints` takes the function's body.
Guarantees: `checkpoint(A, loop)` is None, or a `Checkpoint`: the variables the forward pushes
at the start of each iteration (`state`, in program order) and the binds of the body the
adjoint computes again (`required`, ids), such that the adjoint loop, having popped `state`,
runs those binds in order and so holds, at each point of its iteration, every value the
adjoint of the iteration reads -- the values the forward would have pushed one by one. A
loop qualifies when its body is numbers only (binds of one or more scalar results and `if`s of
them: no call, no list, no element write, no check or random draw, no inner loop), what its
condition assigns is not read in the body, and `state` is shorter than the pushes per
iteration it replaces (`pushes`): it pays in tape traffic. `state` holds the variables the
body reads before it assigns them (`live`: only where the value reaches a value the adjoint
reads), and, since the adjoint loop leaves the body's variables as its recomputation made
them, those the adjoint reads after the loop's adjoint: any needed one the loop assigns if it
is itself in a loop, else the needed ones a statement before the loop reads (or assigns, where
its adjoint reads its result: `z = math.tanh(e)` before `z = 0.5 * z + ...`). Nothing else is
given back: the function's returned value, read after the whole adjoint, is the caller's to
keep (`reverse` copies a returned variable a checkpointed loop assigns before the adjoint, as
it copies a pushed one).
`checkpoints` gives every such loop, and has the analysis count what each recomputation reads
from outside its loop (`inputs`) as read by the adjoint, so the usual keeping gives a variable
the forward overwrites after the loop its loop-time value back before the loop's adjoint.
Invariants: the binds computed again are the forward's own (`reverse.forward_expr`), in the
forward's order, from the same values: they give the forward's values bit for bit, and each
`if` takes the branch the forward took (no test is taped); a bind not computed again has
results nothing in the iteration's adjoint reads.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir import Bind, For, If, While
from .analysis import rule_for
from ..primitives import CALL, CONCAT
from ..primitives.lists import LIST_APPEND, LIST_NEW
from ..types import Ty


@dataclass
class Checkpoint:
    state: list         # variables pushed at each iteration's start, popped before recomputing
    required: set       # ids of the body's binds computed again in the adjoint loop
    restored: set       # variables whose value before a bind the adjoint gives back (`restored`)
    pushes: int         # values per iteration the forward no longer pushes
    inputs: set         # what the recomputation reads that the loop does not assign


def checkpoints(A, body) -> dict:
    """id(loop) -> `Checkpoint` of every loop in `body` that qualifies, with what their
    recomputations read from outside them counted as read by the adjoint (`Analysis.need`,
    settled again until the loops chosen read nothing more): a variable the forward assigns
    after such a loop (`w += e` after a loop reading w) is then kept and given back before
    the loop's adjoint computes the iteration again."""
    while True:
        out = {id(s): c for s in ir.walk(body) for c in [checkpoint(A, s)] if c is not None}
        inputs = set().union(*(c.inputs for c in out.values()))
        if inputs <= A.also_needed:
            return out
        A.need(inputs)


def checkpoint(A, loop) -> Checkpoint | None:
    """The loop's `Checkpoint`, or None where it does not qualify or pay (module docstring)."""
    if not isinstance(loop, (While, For)) or id(loop) in A.replayed or not A.work(loop.body):
        return None
    if not all(_numbers_only(s, A.types) for s in ir.walk(loop.body)):
        return None
    required = set()
    live = _live(loop.body, set(), A, required)
    assigned = {t for s in ir.walk(loop.body) for t in ir.writes(s)}
    if isinstance(loop, While) and live & {t for s in ir.walk(loop.cond) for t in ir.writes(s)}:
        return None
    after = assigned & A.needed
    if not _in_loop(A, loop):
        after &= _read_before(A, loop)
    state = sorted((live & assigned) | after, key=_first_site(A))
    pushes = sum(t in A.pushed for s in ir.walk(loop.body) if isinstance(s, Bind) for t in s.targets)
    if len(state) >= pushes:
        return None
    return Checkpoint(state, required, restored(loop.body, state), pushes, live - assigned)


def restored(body, state) -> set:
    """The variables whose older value the adjoint of an iteration may read after it has
    reversed an assignment of them in the body: the state, the variables the body reads
    before it assigns them, and those it assigns more than once. Another variable the body
    assigns (a temporary of one iteration) is read, before its assignment, by no statement
    of the iteration, and after the loop by none of the loop's adjoint."""
    sites = {}
    for s in ir.walk(body):
        for t in ir.writes(s):
            sites[t] = sites.get(t, 0) + 1
    return set(state) | {t for t, n in sites.items() if n > 1 or ir.exposed(t, body)[0]}


def _numbers_only(s, types) -> bool:
    if isinstance(s, If):
        return True
    if not isinstance(s, Bind) or s.op in (CALL, CONCAT, LIST_NEW, LIST_APPEND) or s.op.effect:
        return False
    for t in s.targets:          # (so `x += e` is no update in place)
        ty = types.get(t)
        if not isinstance(ty, Ty) or ty.ndim or ty.is_list:
            return False
    return True


def _live(block, live, A, required):
    """The names whose values at the start of `block` the rest of the iteration reads --
    the binds computed again (collected in `required`) or the adjoint -- given `live` at
    its end."""
    for s in reversed(block):
        if isinstance(s, If):
            live = _live(s.body, live, A, required) | _live(s.orelse, live, A, required) | {s.test}
            continue
        targets, operands = set(s.targets), set(ir.reads(s))
        adjoint = A.bind_reads(s)           # its operands' values, and its result's if the rule reads it
        after = live | (targets if _reads_result(A, s) else set())
        if after & targets:
            required.add(id(s))
            live = (after - targets) | operands
        else:
            live = set(after)
        live |= adjoint & (operands | (set(adjoint) - targets))
    return live


def _reads_result(A, s) -> bool:
    """Whether the adjoint of bind `s` reads its result (`y` in its primitive's rule)."""
    return A.is_active_bind(s) and not s.op.structural and rule_for(s, A.types).reads_result()


def _in_loop(A, loop) -> bool:
    return any(b in A.loop_blocks for b in A.path_of.get(id(loop), ()))


def _read_before(A, loop) -> set:
    """The names the adjoints of the statements before `loop` in program order may read (its
    enclosing statements' tests included): what those statements read, and the results of
    those whose adjoint reads its own result (`z = math.tanh(e)`: 1 - z * z; z then updated
    by the loop, whose recomputation leaves z as the forward's last iteration left it)."""
    out = set()
    for s in ir.walk(A.root):
        if s is loop:
            break
        out |= set(ir.own_reads(s))
        if isinstance(s, Bind) and s.op is not CALL and not s.op.structural:
            rule = rule_for(s, A.types)
            if rule is not None and rule.reads_result():
                out |= set(s.targets)
    return out


def _first_site(A):
    order = {}
    for k, s in enumerate(ir.walk(A.root)):
        for t in ir.writes(s):
            order.setdefault(t, k)
    return lambda v: (order.get(v, -1), v)
