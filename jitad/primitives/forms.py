"""Call forms: which primitives a library call with constant arguments means.

Takes: a primitive and the constant arguments of a call (`axis=`, `keepdims=`).
Guarantees: `rule_at` and `settle_statics` are the rules and statics of a primitive at its
operands' ranks (both modes generate or evaluate from them); `reduction_steps` is the chain of one-axis primitives a reduction over a tuple of
axes and/or with `keepdims=True` is (for an axis form that keeps the rank, the one step) (both modes build their computation from it, so they
agree); it raises `ValueError` with the message to show at the user's call.
Invariants: pure; axes may be negative (counted from the end), their meaning is settled
against the operand's rank where code is generated.
"""
from __future__ import annotations

from .core import Primitive, get

# the `axis` static of np.hstack's concatenation: 0 for vectors, else 1 (settled by the parts'
# rank where code is generated)
HSTACK_AXIS = "hstack"


def rule_at(prim: Primitive, ranks) -> Primitive:
    """The primitive whose rules apply at these operand ranks (`dot` -> `dot.2.1`; an axis
    reduction of a vector -> the whole reduction)."""
    ranks = tuple(ranks)
    if prim.variants:
        return prim.variant(ranks)
    if prim.whole is not None and ranks[0] == 1:
        return prim.whole
    return prim


def settle_statics(prim: Primitive, statics: dict, ranks) -> dict:
    """The statics as code uses them at these operand ranks: an axis counted from the end
    made positive (counted in the result for `new_axis` primitives), np.hstack's axis
    decided."""
    statics = dict(statics)
    if statics.get("axis") == HSTACK_AXIS:     # np.hstack: along 0 for vectors, else along 1
        statics["axis"] = 0 if ranks[0] == 1 else 1
    if isinstance(statics.get("axis"), int) and ranks[0] + prim.new_axis:
        statics["axis"] %= ranks[0] + prim.new_axis
    return statics


def reduction_steps(prim: Primitive, axis, keepdims: bool, statics=None):
    """[(primitive, statics), ...] computing `prim(x, axis=axis, keepdims=keepdims)` one step
    at a time; `keep_all` takes (result, x). `axis`: None, an int or a tuple of ints.
    `statics`: the call's other constant arguments (`ddof=`, `ord=`), given to each step of
    the reduction itself."""
    steps = _steps(prim, axis, keepdims)
    return [(p, {**(statics or {}), **st} if p is prim or p is prim.axis_form else st)
            for p, st in steps]


def _steps(prim, axis, keepdims):
    if not prim.reduces:    # an axis form that keeps the rank (cumsum, softmax): one axis
        if isinstance(axis, tuple) or keepdims:
            raise ValueError(f"{prim.name.split('.')[-1]}() takes one constant axis= (no tuple, "
                             "no keepdims=)")
        if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
            raise ValueError("axis= must be a constant integer")
        return [(prim, {})] if axis is None else [(prim.axis_form, {"axis": axis})]
    axes = () if axis is None else axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise ValueError("axis= must be a constant integer or a tuple of them")
    if len(set(axes)) != len(axes):
        raise ValueError("axis= repeats an axis")
    if len(axes) > 1 and not prim.chains:
        raise ValueError(f"{prim.name.split('.')[-1]}() takes one axis here, not a tuple")
    if any(a < 0 for a in axes) and any(a >= 0 for a in axes):
        raise ValueError("axis= mixes negative and non-negative axes; write them all one way")
    if not isinstance(keepdims, bool):
        raise ValueError("keepdims= takes True or False")
    # reducing the last-counted axes first keeps the others' numbers valid
    order = sorted(axes, reverse=all(a >= 0 for a in axes))
    steps = [(prim.axis_form, {"axis": a}) for a in order] or [(prim, {})]
    if keepdims:
        # re-inserting the first-counted axes first puts each where it was
        ends = sorted(axes, reverse=any(a < 0 for a in axes))
        steps += [(get("expand_dims"), {"axis": a}) for a in ends] or [(get("keep_all"), {})]
    return steps
