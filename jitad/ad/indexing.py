"""Indexing in generated code: a read, a write and a read's adjoint, chosen by the index's form.

Takes: an array (a name or an expression of generated code), the atoms of an IR index
(integers, `ir.Slice`s, index arrays) and the variables' types; the index was accepted by
`typerules.subscript` (a read) or `typerules.subscript_write` (a write).
Guarantees: reads follow NumPy's indexing; a read's adjoint adds `g` into the entries the read
selected, accumulating an entry selected more than once (np.add.at semantics); a write keeps
the last value of an entry written twice (as NumPy does). The forms, by `index_form`:

  basic   integers and slices only (`x[i, a:b]`): Python's subscript; adjoint `d[i, a:b] += g`
          (`rt.add_into(d[i, a:b], g)` when the read is an array)
  mask    a boolean mask alone (`x[x > 0]`, `X[keep]`): `rt.mask_get/mask_put/mask_add`
  take    one rank-1 integer array alone (`x[idx]`): `rt.scatter_add`, `rt.put`
  take2   two rank-1 integer arrays on a matrix (`x[rows, cols]`): `rt.scatter_add2/put2`
  gather  any other index with arrays (reads only): `W[negatives]` with a matrix of indices,
          `x[idx, 0]`, `X[:, cols]`, `logp[keep, labels[keep]]` -- NumPy's advanced indexing,
          which Numba compiles. A boolean vector among several indices stands for its nonzero
          positions on its axis (`rt.mask_index`, which checks its length as NumPy does). The
          adjoint: a lone integer array of any rank scatters rows (`rt.scatter_rows`);
          otherwise the same index applied to the flat positions of `d`
          (`rt.positions(d)[index]`) says where each entry of `g` goes (`rt.scatter_flat`).
Invariants: the index arrays' values are those the forward read (the adjoint replays the
forward's state); their bounds are checked by `bounds` in the forward (a mask's length by
`rt.mask_index`/`rt.check_mask`).
"""
from __future__ import annotations

import ast

from .. import pyast as P
from ..ir import Const, Var


def index_form(index, types):
    """(kind, arrays): the form of an index (see the module docstring) and its index arrays."""
    arrays = [a for a in index if isinstance(a, Var) and types[a.name].ndim]
    if not arrays:
        return "basic", arrays
    tys = [types[a.name] for a in arrays]
    only = len(arrays) == len(index)
    if only and len(arrays) == 1 and tys[0].dtype == "b1":
        return "mask", arrays
    if only and len(arrays) == 1 and tys[0].ndim == 1:
        return "take", arrays
    if only and len(arrays) == 2 and all(t.ndim == 1 and t.dtype == "i8" for t in tys):
        return "take2", arrays
    return "gather", arrays


def _gather_index(arr, index, types):
    """The index atoms with each boolean vector replaced by its checked nonzero positions."""
    out = []
    for axis, a in enumerate(index):
        t = types.get(a.name) if isinstance(a, Var) else None
        if t is not None and t.ndim and t.dtype == "b1":
            size = P.subscript(ast.Attribute(arr, "shape", ast.Load()), [Const(axis)])
            out.append(P.call("rt.mask_index", P.atom(a), size))
        else:
            out.append(a)
    return out


def _expr(arr):
    return P.name(arr) if isinstance(arr, str) else arr


def read_at(arr, index, types, reentrant=False):
    """arr[index] (`reentrant`: code the front end reads again -- a mask as written)."""
    arr = _expr(arr)
    kind, arrays = index_form(index, types)
    if kind == "mask" and not reentrant:
        return P.call("rt.mask_get", arr, P.atom(arrays[0]))
    if kind == "gather":
        return P.subscript(arr, _gather_index(arr, index, types))
    return P.subscript(arr, index)


def write_at(arr, index, value, types, reentrant=False):
    """arr[index] = value (a repeated index keeps the last value, as in NumPy), as written
    when `reentrant` (code the front end reads again)."""
    kind, arrays = index_form(index, types)
    if kind == "basic" or reentrant:
        return P.assign(P.subscript(arr, index, store=True), value)
    assert kind != "gather", "typerules.subscript_write refuses this write"
    fn = {"mask": "rt.mask_put", "take": "rt.put", "take2": "rt.put2"}[kind]
    return P.expr_stmt(P.call(fn, P.name(arr), *map(P.atom, arrays), value))


def add_at(d, index, g, types, ndim=0):
    """The statement `d[index] += g` with repeated entries accumulated (a read's adjoint; `ndim`:
    the read's rank). A basic read of an array adds into the view it selects,
    `rt.add_into(d[index], g)`: the same in-place sum, without a slice assignment."""
    kind, arrays = index_form(index, types)
    if kind == "basic" and ndim:
        return P.expr_stmt(P.call("rt.add_into", P.subscript(d, index), g))
    if kind == "basic":
        return P.aug(P.subscript(d, index), g)
    if kind == "mask":
        return P.expr_stmt(P.call("rt.mask_add", P.name(d), P.atom(arrays[0]), g))
    if kind in ("take", "take2"):
        fn = "rt.scatter_add" if kind == "take" else "rt.scatter_add2"
        return P.expr_stmt(P.call(fn, P.name(d), *map(P.atom, arrays), g))
    if len(index) == 1:             # W[negatives]: rows of d, one per index entry
        return P.expr_stmt(P.call("rt.scatter_rows", P.name(d), P.atom(index[0]), g))
    pos = P.subscript(P.call("rt.positions", P.name(d)), _gather_index(P.name(d), index, types))
    return P.expr_stmt(P.call("rt.scatter_flat", P.name(d), pos, g))
