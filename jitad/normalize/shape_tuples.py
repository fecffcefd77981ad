"""Slices and sums of shapes (`W.shape[:2]`, `n, m = X.shape[-2:]`, `X.shape[:1] + (3,)`,
`np.prod(X.shape)`) as the tuples of dimensions they are: a source rewrite before lowering.

Takes: the function's tree (after `anf.rename_locals`) and the normalizer's `resolve_func`.
Guarantees: an expression of a shape slice with constant bounds whose length does not depend on
the array's rank (both bounds counted from the same end: `[:2]`, `[1:3]`, `[-2:]`, `[-3:-1]`)
becomes the tuple written out, `(X.shape[0], X.shape[1])`; the sum of two tuples written out
(after that rewrite) one tuple; `np.prod`/`math.prod` of a tuple written out the product of its
items (`np.prod(X.shape)` is `X.size`); `len(X.shape)` is `X.ndim`. What follows reads only
tuples written out and `x.shape[k]` (unpacking, shapes of `np.zeros`, tuple locals:
`tuple_values`), so both modes take these forms from the same lowering.
Invariants: a tree with nothing to rewrite is returned unchanged (the same object); otherwise a
rewritten copy, every new node at the location of the expression it replaces. A slice whose
length depends on the rank (`X.shape[1:]`) is left as it is (refused where it is lowered).
The array expression is repeated once per item only when it is a name or an attribute chain
(no call is evaluated twice).
"""
from __future__ import annotations

import copy
import math

import gast
import numpy as np

from ..capture import MISSING
from .library import static_value


def shape_tuples(tree, resolve):
    """The tree with its shape slices, sums and products written out (see the module)."""
    if not any(_candidate(n) for n in gast.walk(tree)):
        return tree
    tree = copy.deepcopy(tree)
    _Rewrite(resolve).visit(tree)
    return tree


def _candidate(node):
    return isinstance(node, gast.Attribute) and node.attr == "shape"


def _pure(node):
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)


def slice_positions(lower, upper, step):
    """The positions (counted from the same end) a constant slice of a shape selects, or None
    when how many there are depends on the rank."""
    step = 1 if step is None else step
    if not isinstance(step, int) or isinstance(step, bool) or step == 0:
        return None
    if step < 0:
        return None
    lo = 0 if lower is None else lower
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (lo,)):
        return None
    if upper is None:
        return list(range(lo, 0, step)) if lo < 0 else None
    if not isinstance(upper, int) or isinstance(upper, bool):
        return None
    if (lo >= 0) != (upper >= 0) and not (lo == 0 and lower is None and upper >= 0):
        return None
    return list(range(lo, upper, step))


class _Rewrite(gast.NodeTransformer):
    def __init__(self, resolve):
        self.resolve = resolve

    def _dims(self, node, arr, positions):
        return gast.copy_location(gast.Tuple([
            gast.copy_location(gast.Subscript(
                gast.copy_location(gast.Attribute(copy.deepcopy(arr), "shape", gast.Load()), node),
                gast.copy_location(gast.Constant(k, None), node), gast.Load()), node)
            for k in positions], gast.Load()), node)

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if (isinstance(node.value, gast.Attribute) and node.value.attr == "shape"
                and isinstance(node.slice, gast.Slice) and _pure(node.value.value)
                and isinstance(node.ctx, gast.Load)):
            bounds = [None if b is None else static_value(b, self.resolve)
                      for b in (node.slice.lower, node.slice.upper, node.slice.step)]
            if MISSING not in bounds:
                positions = slice_positions(*bounds)
                if positions is not None:
                    return self._dims(node, node.value.value, positions)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if (isinstance(node.op, gast.Add) and isinstance(node.left, gast.Tuple)
                and isinstance(node.right, gast.Tuple)
                and (_has_shape(node.left) or _has_shape(node.right))):
            return gast.copy_location(gast.Tuple(node.left.elts + node.right.elts, gast.Load()),
                                      node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = self.resolve(node.func)
        if fn is MISSING or node.keywords or len(node.args) != 1:
            return node
        (arg,) = node.args
        is_shape = isinstance(arg, gast.Attribute) and arg.attr == "shape" and _pure(arg.value)
        if fn in (np.prod, math.prod):
            if is_shape:        # np.prod(X.shape): the number of elements
                return gast.copy_location(gast.Attribute(arg.value, "size", gast.Load()), node)
            if isinstance(arg, gast.Tuple) and arg.elts and _has_shape(arg):
                out = arg.elts[0]
                for e in arg.elts[1:]:
                    out = gast.copy_location(gast.BinOp(out, gast.Mult(), e), node)
                return out
        if fn is len and is_shape:      # len(X.shape): the rank
            return gast.copy_location(gast.Attribute(arg.value, "ndim", gast.Load()), node)
        return node


def _has_shape(node):
    return any(_candidate(n) for n in gast.walk(node))
