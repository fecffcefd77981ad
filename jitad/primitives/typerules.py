"""Type rules: the result type of a primitive from its operands' types.

Takes: a `Primitive`, its `ir.Bind` (statics, location) and the operands' `Ty`s.
Guarantees: each rule returns the result's `Ty` (dtype and rank) or raises an
`UnsupportedError` at the bind's line saying which operand form is not supported.
`KINDS` names the rules for the one-line table and `defvjp(kind=...)`; a primitive holds the
function itself, so no pass dispatches on these names.
Invariants: a type rule never changes the bind (the IR is shared by every specialization of a
function); what depends on the operands' ranks -- a negative axis, an axis reduction of a 1-D
array being the whole reduction -- is settled where code is generated (`ad.analysis.rule_for`,
`bind_statics`).
"""
from __future__ import annotations

from ..errors import UnsupportedError
from ..types import B1, F8, I8, NP_DTYPE, TupleTy, Ty, floaty, promote


def _arrays(args):
    return [a for a in args if isinstance(a, Ty)]


def _nd(args):
    return max((a.ndim for a in _arrays(args)), default=0)


def elementwise(prim, s, args):
    return Ty(promote(*_arrays(args)), _nd(args))


def elementwise_float(prim, s, args):
    return Ty(floaty(*_arrays(args)), _nd(args))


def comparison(prim, s, args):
    return Ty("b1", _nd(args))


def same(prim, s, args):
    return args[0]


def boolean(prim, s, args):
    return B1


def integer(prim, s, args):
    return I8


def scalar_float(prim, s, args):
    if any(a.ndim for a in _arrays(args)):
        raise UnsupportedError(f"{prim.name}() takes scalars; use the np. function for arrays",
                               s.loc, prim.name)
    return F8


def reduction(prim, s, args):
    a = args[0]
    word = prim.name.split("_")[0]
    if a.ndim == 0:
        raise UnsupportedError(f"{word}() of a scalar", s.loc, prim.name)
    dtype = floaty(a) if prim.float_result else a.dtype
    if "axis" not in s.statics:
        return Ty(dtype, 0)
    ax = s.statics["axis"]
    if not -a.ndim <= ax < a.ndim:
        raise UnsupportedError(f"axis {ax} is out of range for a rank-{a.ndim} array",
                               s.loc, "axis")
    if prim.max_rank is not None and a.ndim > prim.max_rank:
        raise UnsupportedError(f"{word}(axis=) supports arrays of rank <= {prim.max_rank}",
                               s.loc, prim.name)
    return Ty(dtype, a.ndim - 1)


def product(prim, s, args):
    a, b = args
    if not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        raise UnsupportedError("dot/@ supports arrays of rank 1 and 2 (use * for scalars)",
                               s.loc, prim.name)
    if not (a.is_float and b.is_float):
        raise UnsupportedError("dot/@ needs float arrays", s.loc, prim.name)
    return Ty(promote(a, b), {(1, 1): 0, (2, 1): 1, (1, 2): 1, (2, 2): 2}[(a.ndim, b.ndim)])


def outer(prim, s, args):
    return Ty(promote(*_arrays(args)), 2)


def _rank_of_shape(shape):
    return len(shape.items) if isinstance(shape, TupleTy) else 1


def reshape(prim, s, args):
    return Ty(args[0].dtype, _rank_of_shape(args[1]))


_DTYPE_OF = {v: k for k, v in NP_DTYPE.items()}


def new(prim, s, args):
    return Ty(_DTYPE_OF[s.statics.get("dtype", "np.float64")], _rank_of_shape(args[0]))


def shape(prim, s, args):
    return TupleTy((I8,) * args[0].ndim)


def where(prim, s, args):
    return Ty(promote(args[1], args[2]), _nd(args))


KINDS = {"ew": elementwise, "ewf": elementwise_float, "cmp": comparison, "same": same,
         "bool": boolean, "int": integer, "float": scalar_float, "reduce": reduction,
         "dot": product, "outer": outer, "reshape": reshape, "new": new, "like": same,
         "shape": shape, "where": where, "clip": elementwise}


def subscript(prim, s, args):
    """x[index]: each integer index drops an axis, a slice keeps it; one rank-1 integer array
    may be the only index (a gather)."""
    from ..ir import Slice
    base = args[0]
    if base is None:
        return None
    if base.ndim == 0:
        raise UnsupportedError("indexing a scalar", s.loc, "subscript")
    index = s.args[1:]
    if len(index) > base.ndim:
        raise UnsupportedError(f"too many indices for a rank-{base.ndim} array", s.loc, "subscript")
    nd = base.ndim
    arrays = 0
    for a, t in zip(index, args[1:]):
        if isinstance(a, Slice):
            continue
        if t is None:
            return None
        if t.dtype not in ("i8", "b1"):
            raise UnsupportedError("array indices must be integers", s.loc, "subscript")
        if t.ndim == 0:
            nd -= 1
        elif t.ndim == 1 and t.dtype == "i8":
            arrays += 1
        else:
            raise UnsupportedError("only integer index arrays of rank 1 are supported "
                                   "(no boolean masks)", s.loc, "subscript")
    if arrays > 1 or (arrays and len(index) > 1):
        raise UnsupportedError("an index array must be the only index (x[idx])", s.loc, "subscript")
    return Ty(base.dtype, nd)


