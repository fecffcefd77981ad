"""Interprocedural planning: which parameters of each callee are differentiated, and which
callees are split into a forward and a backward half.

Takes: the `Program`, the entry `Spec` and its differentiated parameters.
Guarantees: `callee_wrt` gives, for every specialization reachable from the entry through
active calls, the parameters whose adjoints its callers need; `split_callees` the callees cut
into a forward half that returns its state and a backward half that takes it (their forward
runs once) and those whose vjp runs their forward again: a call at its caller's top level is
cut; one in a loop or a branch only if the callee is `costly`; a call on a recursion cycle
never is (a recursive function's state would contain itself).
"""
from __future__ import annotations

from .. import activity, ir

from ..ir import Bind, Var
from ..primitives import CALL
from ..types import arg_types as _argtys
from .analysis import Analysis


def float_args(spec):
    return tuple(i for i, t in enumerate(spec.argtys) if getattr(t, "is_inexact", False))


def callee_wrt(prog, entry, wrt):
    """For each function signature called somewhere in the program, the argument positions
    some call site needs an adjoint for: an argument active in its caller, where the caller's
    activity is for the entry's `wrt` or, in a callee, for the positions its own callers need
    -- a fixed point over the call graph (recursion included; a signature is analysed again
    when its callers come to need more of it). Data a helper reads (the batch `X` of
    `columns_sum(W1, b1, W2, b2, X)`) then costs no adjoint (`d_X = ... @ W.T`), and a library
    call without a rule on data no caller differentiates is not refused (`activity`)."""
    def key(spec):
        return (id(spec.fn), spec.argtys)

    need, seen = {}, set()
    todo = [(entry, tuple(wrt))]
    while todo:
        spec, w = todo.pop(0)
        if (key(spec), w) in seen:
            continue
        seen.add((key(spec), w))
        active = activity.active(spec, w, prog=prog)
        for s in ir.walk(spec.ir.body):
            if isinstance(s, Bind) and s.op is CALL:
                k = (id(s.callee), _argtys(s, spec.types))
                got = need.setdefault(k, set())
                callee = prog.specs[k]
                for pos, a in enumerate(s.args):
                    if isinstance(a, Var) and a.name in active and getattr(callee.argtys[pos], "is_inexact", False):
                        got.add(pos)
                todo.append((callee, tuple(sorted(got))))
    return {k: tuple(sorted(v)) for k, v in need.items()}


def costly(prog, cycles):
    """The signatures whose forward is worth keeping rather than running again: a loop, a value
    or operand of rank >= 2 (a matrix product, a layer), or a costly callee. Keeping a state
    costs its arrays' lifetime (measured: 2,000 saved states of 18 small vectors cost ~3 us
    each, running the 6 statements that made them again ~0.3 us); a cheap helper called in a
    loop runs its forward again instead."""
    out, todo = set(), True
    while todo:
        todo = False
        for spec in prog.order:
            key = (id(spec.fn), spec.argtys)
            if key in out or key in cycles:
                continue
            for s in ir.walk(spec.ir.body):
                heavy = isinstance(s, (ir.For, ir.While)) or (
                    isinstance(s, Bind) and (
                        any(getattr(spec.types.get(v), "ndim", 0) >= 2 for v in s.targets)
                        or any(isinstance(a, Var) and getattr(spec.types.get(a.name), "ndim", 0) >= 2
                               for a in s.args)
                        or (s.op is CALL and (id(s.callee), _argtys(s, spec.types)) in out)))
                if heavy:
                    out.add(key)
                    todo = True
                    break
    return out


def split_callees(prog, entry, wrt, cw, cycles):
    """(cut, fused): the callee signatures cut into a forward half returning its state and a
    backward half taking it, and those whose vjp runs the forward again. A call at its
    caller's top level keeps the state in a local, so every callee off the call graph's
    cycles is cut for it; a call in a loop or a branch pushes the state on a tape of that
    callee's states if the callee is `costly`, and runs the vjp otherwise (as a callee on a
    cycle always does: a recursive function's state would contain itself)."""
    heavy = costly(prog, cycles)
    cut, fused = set(), set()
    for spec in prog.order:
        key = (id(spec.fn), spec.argtys)
        if spec is not entry and key not in cw:
            continue
        A = Analysis(spec, tuple(wrt) if spec is entry else cw[key], prog)
        top = {id(s) for s in spec.ir.body}
        for s in ir.walk(spec.ir.body):
            if isinstance(s, Bind) and s.op is CALL and A.is_active_bind(s):
                k = (id(s.callee), _argtys(s, spec.types))
                if k in cycles or (id(s) not in top and k not in heavy):
                    fused.add(k)
                else:
                    cut.add(k)
    return cut, fused

