"""Interprocedural planning: which parameters of each callee are differentiated, and which
callees are split into a forward and a backward half.

Takes: the `Program`, the entry `Spec` and its differentiated parameters.
Guarantees: `callee_wrt` gives, for every specialization reachable from the entry through
active calls, the parameters whose adjoints its callers need; `split_callees` the callees cut
into a forward half that returns its state and a backward half that takes it, so every
forward runs once: all of them but those on a cycle of the call graph (a recursive function's
state would contain itself; its vjp re-runs its forward).
"""
from __future__ import annotations

from .. import ir

from ..ir import Bind, Var
from ..primitives import CALL
from ..types import arg_types as _argtys
from .analysis import Analysis


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


def split_callees(cw, cycles):
    """The callee signatures cut into forward and backward halves: every differentiated one
    off the call graph's cycles. A call site at its caller's top level keeps the state in a
    local; one in a loop or a branch pushes it on a tape of that callee's states."""
    return {k for k in cw if k not in cycles}
