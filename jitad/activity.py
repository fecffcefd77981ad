"""Stage 5 — activity: which values need an adjoint.

Takes: a typed `Spec` and the indices of the parameters to differentiate.
Guarantees: `active(spec, wrt)` is the set of variables that are float- or complex-typed, vary
with a `wrt` parameter (forward dependence through differentiable operands) and influence a
returned value (backward dependence; through a helper call, given the program, only the
arguments whose callee parameters reach the callee's result: `useful_params`). Only these get adjoint variables and adjoint code; ints,
bools, indices and shapes never do. The analysis is flow-insensitive per name, which can only
over-approximate, never drop a dependence. A library call without a rule (`primitives.opaque`)
whose float result would need a derivative -- it depends on a `wrt` parameter and reaches a
returned value -- is a `NotDifferentiableError` at the user's call; so is a write of a value
that depends on a `wrt` parameter into an integer or bool array, which would truncate it (as
eager mode refuses it when it records the write), and an operand whose derivative a primitive
refuses (`Primitive.refused`: gammainc's shape a) that varies, in a call whose result is used:
its derivative is not zero, and would otherwise be dropped.
"""
from __future__ import annotations

import numpy as np

from . import ir
from .errors import NotDifferentiableError
from .ir import Bind, Return, SetItem, Var
from .primitives import CALL
from .primitives.opaque import NEEDS_RULE
from .types import TupleTy, Ty, arg_types


def _diff_positions(s: Bind):
    """Indices of the operands a bind can propagate derivatives through."""
    return s.op.diff_args(len(s.args))


def active(spec, wrt, refuse=True, prog=None) -> set:
    """The active variables of `spec` for the parameters `wrt`; with `refuse`, a library
    call without a rule a derivative would flow through is a `NotDifferentiableError`. With
    the `prog`, a helper call's argument is useful only where the callee's parameter is
    (`useful_params`): an argument the callee never lets reach its result gets no adjoint
    (whose rules would run on a zero cotangent: `0 * nan` where np.std's is 0 / 0)."""
    types = spec.types
    body = spec.ir.body
    stmts = list(ir.walk(body))
    floaty = {v for v, t in types.items() if getattr(t, "is_inexact", False)}
    varied = {spec.ir.params[i] for i in wrt} & floaty
    changed = True
    while changed:
        changed = False
        for s in stmts:
            if isinstance(s, Bind):
                pos = _diff_positions(s)
                if any(isinstance(s.args[i], Var) and s.args[i].name in varied for i in pos):
                    for t in s.targets:
                        if t in floaty and t not in varied:
                            varied.add(t)
                            changed = True
            elif isinstance(s, SetItem):
                if isinstance(s.value, Var) and s.value.name in varied and s.array not in varied \
                        and s.array in floaty:
                    varied.add(s.array)
                    changed = True
    useful = _useful(stmts, types, prog)
    if refuse:
        _refuse_ruleless(stmts, types, varied, useful)
        _refuse_truncating_writes(stmts, types, varied)
        for s in stmts:
            if isinstance(s, Bind) and s.op.refused and any(t in useful for t in s.targets):
                for p, a in zip(s.op.params, s.args):
                    if p in s.op.refused and isinstance(a, Var) and a.name in varied:
                        raise NotDifferentiableError(s.op.refusal(p), s.loc, s.op.name)
    return varied & useful & floaty


def _useful(stmts, types, prog=None) -> set:
    """The names whose values reach a returned value through differentiable operands (of a
    helper call: the arguments its callee's useful parameters take, given the `prog`)."""
    useful = set()
    for s in stmts:
        if isinstance(s, Return):
            useful |= {a.name for a in s.values if isinstance(a, Var)}
    changed = True
    while changed:
        changed = False
        for s in reversed(stmts):
            if isinstance(s, Bind) and any(t in useful for t in s.targets):
                pos = _diff_positions(s)
                if prog is not None and s.op is CALL:
                    got = useful_params(prog, s, types)
                    pos = pos if got is None else got
                for i in pos:
                    a = s.args[i]
                    if isinstance(a, Var) and a.name not in useful:
                        useful.add(a.name)
                        changed = True
            elif isinstance(s, SetItem) and s.array in useful:
                if isinstance(s.value, Var) and s.value.name not in useful:
                    useful.add(s.value.name)
                    changed = True
    return useful


def useful_params(prog, s: Bind, types):
    """The positions of call `s`'s arguments (typed by `types`) whose callee parameters reach
    its result (`_useful` of the callee, kept on the program: a callee's IR does not change
    meanwhile), or None when unknown (the callee not found); during a recursion, every
    position."""
    callee = prog.specs.get((id(s.callee), arg_types(s, types)))
    if callee is None or len(callee.ir.params) != len(s.args):
        return None
    memo = prog.__dict__.setdefault("useful_params", {})
    got = memo.get(id(callee))
    if got is None:
        memo[id(callee)] = tuple(range(len(s.args)))     # (a recursion: every position)
        names = _useful(list(ir.walk(callee.ir.body)), callee.types, prog)
        got = memo[id(callee)] = tuple(i for i, p in enumerate(callee.ir.params) if p in names)
    return got


def _holds_float(t) -> bool:
    if isinstance(t, TupleTy):
        return any(_holds_float(x) for x in t.items)
    return getattr(t, "is_inexact", False)


def _refuse_ruleless(stmts, types, varied, useful):
    """A library call without a rule (`primitives.opaque`) whose float result depends on a
    differentiated value and reaches the output would need a derivative jitad does not have:
    refused at the user's call (its integer results, and results of data alone, are fine)."""
    for s in stmts:
        if isinstance(s, Bind) and s.op.needs_rule and any(t in useful for t in s.targets) \
                and any(n in varied for a in s.args for n in ir.atom_names(a)) \
                and any(_holds_float(types.get(t)) for t in s.targets):
            raise NotDifferentiableError(NEEDS_RULE.format(s.op.spelled.removesuffix("()")), s.loc,
                                         f"call to {s.op.spelled}")


def _refuse_truncating_writes(stmts, types, varied):
    """`y[i] = v` with v differentiated and y an integer or bool array would cut v's derivative
    off silently (NumPy truncates the value): refused at the write, with eager mode's words."""
    for s in stmts:
        if isinstance(s, SetItem) and isinstance(s.value, Var) and s.value.name in varied:
            t = types.get(s.array)
            if isinstance(t, Ty) and not t.is_inexact:
                raise NotDifferentiableError(
                    f"writing a differentiable value into an array of dtype "
                    f"{np.dtype(t.dtype).name} would truncate it; create the array with a float "
                    "dtype", s.loc, "write into an integer array")
