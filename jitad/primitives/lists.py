"""The list primitives: lists a function builds (`hs = []`, `hs.append(h)`, `np.stack(hs)`).

Takes: nothing (registered when `jitad.primitives` is imported).
Guarantees: four primitives and their type rules. `LIST_NEW` (`hs = []`) and `LIST_APPEND`
(`hs.append(h)`, a bind whose target is its first operand: the list is updated in place, in
the IR's reading a new list value) are structural: `reverse` prints them, and reverses an
append by popping the list's adjoint into the element's and popping the list itself, so the
list is never taped at an append. `LIST_STACK` (`np.stack(hs)`, `np.array(hs)`, a list given
to a NumPy function) and `LIST_CONCAT` (`np.concatenate(hs)`; `LIST_CONCAT_AXIS` along another
axis) are ordinary rules whose
adjoint is an array or list of pieces, added element by element into the list's adjoint
(`rt.list_accum`).
Invariants: a list holds values of one type (`ListTy(elem)`); its adjoint is a list of the
same length as the list at every mirrored point of the adjoint sweep.
"""
from __future__ import annotations

import ast

from ..errors import UnsupportedError
from ..types import ListTy, Ty
from .core import Primitive, register


def _new(prim, s, args):
    return None          # typed by its appends (`typeinfer`)


def _append(prim, s, args):
    lst, x = args
    if x is None:
        return None
    if not isinstance(x, Ty):
        raise UnsupportedError("a list holds numbers or arrays (not tuples or lists)", s.loc,
                               "list.append")
    return ListTy(x)


def _stack(prim, s, args):
    lst = args[0]
    if not getattr(lst, "is_list", False):
        raise UnsupportedError("expected a list", s.loc, str(prim))
    return Ty(lst.dtype, lst.elem.ndim + 1)


def _concat(prim, s, args):
    lst = args[0]
    if not getattr(lst, "is_list", False) or lst.elem.ndim == 0:
        raise UnsupportedError("np.concatenate of a list needs a list of arrays", s.loc,
                               "np.concatenate")
    return lst.elem


def _rule(name, params, forward, type_rule, adjoints=None, **facts):
    return register(Primitive(
        name, params, forward=forward and ast.parse(forward, mode="eval").body,
        adjoints={k: ast.parse(v, mode="eval").body for k, v in (adjoints or {}).items()},
        type_rule=type_rule, kind=name, **facts))


LIST_NEW = _rule("list_new", (), None, _new, structural=True, fresh=False, reusable=False,
                 diff_args=())
LIST_APPEND = _rule("list_append", ("l", "x"), None, _append, structural=True, fresh=False,
                    reusable=False, diff_args="all")
LIST_STACK = _rule("list_stack", ("l",), "rt.stack_list(l)", _stack, {"l": "g"},
                   reusable=False)
LIST_CONCAT = _rule("list_concat", ("l",), "rt.concat_list(l)", _concat,
                    {"l": "rt.unconcat(g, l)"}, reusable=False)


def _concat_axis(prim, s, args):
    elem = _concat(prim, s, args)
    if elem is not None and not -elem.ndim <= s.statics["axis"] < elem.ndim:
        raise UnsupportedError(f"axis {s.statics['axis']} is out of range for a list of rank-"
                               f"{elem.ndim} arrays", s.loc, "np.concatenate")
    return elem


# np.concatenate(hs, axis=k): LIST_CONCAT's rules on each element's axis k
LIST_CONCAT_AXIS = _rule("list_concat_axis", ("l",), "rt.concat_list_axis(l, axis)",
                         _concat_axis, {"l": "rt.unconcat_axis(g, l, axis)"}, reusable=False,
                         statics=("axis",))
LIST_CONCAT_AXIS.new_axis = -1      # its axis counts in an element (the list's rank - 1)


def _rank_rule(call, elem_ranks, what, rank):
    """The type rule of a stacking call of a list whose elements have one of `elem_ranks`."""
    def rule(prim, s, args):
        lst = args[0]
        if not getattr(lst, "is_list", False) or lst.elem.ndim not in elem_ranks:
            raise UnsupportedError(f"{call} of a list needs a list of {what}", s.loc, call)
        return Ty(lst.dtype, rank)
    return rule


_vstack = _rank_rule("np.vstack", (1, 2), "vectors or of matrices", 2)
_hstack = _rank_rule("np.hstack", (0, 1), "numbers or of vectors", 1)


def _stacked(name, type_rule, by_rank):
    """A list primitive whose rules depend on its elements' rank: at list rank r (elements of
    rank r - 1) it stacks (`LIST_STACK`'s rules), concatenates (`LIST_CONCAT`'s), or follows
    a (forward, adjoint) pair of its own."""
    prim = _rule(name, ("l",), None, type_rule)
    for rank, like in by_rank.items():
        forward, adjoint = like if isinstance(like, tuple) else (
            ast.unparse(like.forward), ast.unparse(like.adjoints["l"]))
        prim.variants[(rank,)] = _rule(f"{name}.{rank}", ("l",), forward, type_rule,
                                       {"l": adjoint}, reusable=False)
    return prim


# np.vstack(hs): vectors are stacked, matrices concatenated; np.hstack(hs): numbers are
# stacked, vectors concatenated
LIST_VSTACK = _stacked("list_vstack", _vstack, {2: LIST_STACK, 3: LIST_CONCAT})
LIST_HSTACK = _stacked("list_hstack", _hstack, {1: LIST_STACK, 2: LIST_CONCAT})
# np.column_stack(cols): vectors are the columns of the result (the stack, transposed; its
# adjoint's columns are theirs), matrices are concatenated along axis 1
LIST_COLUMN_STACK = _stacked(
    "list_column_stack", _rank_rule("np.column_stack", (1, 2), "vectors or of matrices", 2),
    {2: ("rt.column_stack_vectors(l)", "g.T"),
     3: ("rt.column_stack_matrices(l)", "rt.unconcat_axis(g, l, 1)")})
