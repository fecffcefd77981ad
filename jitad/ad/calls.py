"""Interprocedural planning: which parameters of each callee are differentiated, and which
callees are split into a forward and a backward half.

Takes: the `Program`, the entry `Spec` and its differentiated parameters.
Guarantees: `callee_wrt` gives, for every specialization reachable from the entry through
active calls, the parameters whose adjoints its callers need; `split_callees` the leaf
helpers called once at a differentiated function's top level (they run their forward once and
keep its state for the backward half) and those called elsewhere (their vjp re-runs the
forward).
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
