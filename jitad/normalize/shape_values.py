"""Shapes as values (`shape = x.shape`, `np.zeros((n,) + x.shape[1:])`, `s[-1]`, `len(s)`,
`for d in s`, `x.shape == y.shape`, `np.prod(s)`, `(*x.shape, 3)`, `tuple(x.shape)`): one
value, a tuple of integers whose length -- the array's rank -- is fixed when the function is
specialized, not when it is normalized.

Takes: the function's tree after `shape_tuples` and `tuple_values` (slices and sums of shapes
whose length does not depend on the rank are written out already; what is left needs the rank)
and the normalizer's `resolve_func`; the mixin reads the `Normalizer` state (`expr`, `bind`,
`temp`, `err`, `shape_atom`, `shape_locals`).
Guarantees: a *shape expression* is `e.shape`, a *shape local* (a local every assignment of
which is `name = <shape expression>`), a slice of one whose bounds are constants when the
function is normalized (`static_of`: `s[k:]` of `k = x.ndim - 1`, of `len(x.shape) - 2`, of a
helper's constant argument; a bound that is a run-time value is refused: a rank is fixed), `tuple(...)` of
one, `+` of one and a shape expression or a tuple written out, or a tuple display holding
`*<shape expression>`. Such an expression is lowered to one variable typed `(i8, ..., i8)` at
specialization (`typerules.shape`): `shape_of(x)`, `shape_cat(a, b)` (`+`),
`shape_slice(s; start, stop, step)` (a slice), `shape_eq`/`shape_ne` (`==`/`!=` of two),
`shape_prod` (`np.prod`/`math.prod` of one), `getitem` (`s[k]`, also a computed k), `len`. A
shape variable goes wherever a shape does (`np.zeros(s)`, `x.reshape(s)`, `np.full(s, v)`,
`np.reshape(g, w.shape)`), to a helper as an argument and back as its result; a module-level
tuple of integers (or an item of a tuple of them) is a constant shape there
(`constant_shape`). Before lowering, `shape_rewrites` writes `for d in s` as the counted loop
over `range(len(s))` reading `s[k]`, `(*s, 3)` as `s + (3,)`, `x.reshape(*s)` as
`x.reshape(s)` and `tuple(s)` as `s`. These values are integers: never differentiated or
taped; Numba compiles them as `UniTuple(int64, n)`, eager mode reads NumPy's own tuples. Any
other operation of a shape (`s * 2`, `np.sum(s)`) is refused at its line by type inference
(`typeinfer.not_of_shapes`).
Invariants: a tree with no shape expression is returned unchanged by the rewrites; a name is
a shape local only if all its assignments are shape expressions (anything else keeps the
earlier meaning of the name); the rank of a shape is never assumed here.
"""
from __future__ import annotations

import copy

import gast
import numpy as np

from ..capture import MISSING
from ..ir import Const, TupleA
from ..primitives import get
from .library import static_value

SHAPE_OF, SHAPE_CAT, SHAPE_SLICE = get("shape_of"), get("shape_cat"), get("shape_slice")
SHAPE_EQ, SHAPE_NE, SHAPE_PROD = get("shape_eq"), get("shape_ne"), get("shape_prod")
_PRODS = (np.prod, np.product) if hasattr(np, "product") else (np.prod,)


def is_shape(node, names, resolve) -> bool:
    """Whether the expression is a shape expression (see the module)."""
    if isinstance(node, gast.Attribute):
        return node.attr == "shape" and isinstance(node.ctx, gast.Load)
    if isinstance(node, gast.Name):
        return node.id in names and isinstance(node.ctx, gast.Load)
    if isinstance(node, gast.Subscript):
        return isinstance(node.slice, gast.Slice) and is_shape(node.value, names, resolve)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        sides = [is_shape(s, names, resolve) for s in (node.left, node.right)]
        return any(sides) and all(ok or isinstance(s, gast.Tuple)
                                  for ok, s in zip(sides, (node.left, node.right)))
    if isinstance(node, gast.Call):
        return len(node.args) == 1 and not node.keywords and resolve(node.func) is tuple \
            and is_shape(node.args[0], names, resolve)
    if isinstance(node, gast.Tuple) and isinstance(node.ctx, gast.Load):
        return any(isinstance(e, gast.Starred) and is_shape(e.value, names, resolve)
                   for e in node.elts)
    return False


def shape_locals(tree, resolve) -> set:
    """The locals every assignment of which is a shape expression (largest such set; never a
    parameter, whose argument is one more assignment)."""
    stores, assigns = {}, {}
    for node in gast.walk(tree):
        # (a parameter is assigned its argument: `def g(u): u = u[1:]` keeps u an array)
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Param)):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            assigns.setdefault(node.targets[0].id, []).append(node.value)
    names = {n for n, vs in assigns.items() if len(vs) == stores.get(n)}
    while True:
        keep = {n for n in names if all(is_shape(v, names, resolve) for v in assigns[n])}
        if keep == names:
            return names
        names = keep


def shape_rewrites(tree, names, resolve, namer, introduced):
    """`(*s, 3)` as `s + (3,)`, `tuple(s)` as `s`, `x.reshape(*s)` as `x.reshape(s)`, and
    `for d in s` as a counted loop reading
    `s[k]` (a shape that is not a name first assigned to one). The builtins the loop calls
    get fresh names, recorded in `introduced` (name -> builtin) as other rewrites do."""
    if not any(is_shape(n, names, resolve) for n in gast.walk(tree)):
        return tree
    tree = copy.deepcopy(tree)
    _Rewrite(names, resolve, namer, introduced).visit(tree)
    return tree


class _Rewrite(gast.NodeTransformer):
    def __init__(self, names, resolve, namer, introduced):
        self.names, self.resolve, self.namer = names, resolve, namer
        self.introduced = introduced

    def builtin(self, fn):
        name = self.namer.fresh(fn.__name__)
        self.introduced[name] = fn
        return gast.Name(name, gast.Load(), None, None)

    def shape(self, node):
        return is_shape(node, self.names, self.resolve)

    def visit_Tuple(self, node):
        self.generic_visit(node)
        if not self.shape(node):
            return node
        parts, run = [], []
        for e in node.elts:
            if isinstance(e, gast.Starred) and self.shape(e.value):
                if run:
                    parts.append(gast.copy_location(gast.Tuple(run, gast.Load()), node))
                    run = []
                parts.append(e.value)
            else:
                run.append(e)
        if run:
            parts.append(gast.copy_location(gast.Tuple(run, gast.Load()), node))
        out = parts[0]
        for p in parts[1:]:
            out = gast.copy_location(gast.BinOp(out, gast.Add(), p), node)
        return out

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.shape(node):          # tuple(s): s itself
            return node.args[0]
        if isinstance(node.func, gast.Attribute) and node.func.attr == "reshape" \
                and len(node.args) == 1 and isinstance(node.args[0], gast.Starred) \
                and self.shape(node.args[0].value):
            node.args = [node.args[0].value]        # x.reshape(*s): x.reshape(s)
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        if not (self.shape(node.iter) and isinstance(node.target, gast.Name)):
            return node
        pre = []
        it = node.iter
        if not isinstance(it, gast.Name):
            name = self.namer.fresh("shape")
            self.names.add(name)
            pre.append(gast.copy_location(gast.Assign(
                [gast.Name(name, gast.Store(), None, None)], it, None), node))
            it = gast.Name(name, gast.Load(), None, None)
        k = self.namer.fresh(f"{node.target.id}_axis")

        def load(n):
            return gast.Name(n, gast.Load(), None, None)
        length = gast.Call(self.builtin(len), [load(it.id)], [])
        rng = gast.Call(self.builtin(range), [length], [])
        read = gast.Assign([gast.Name(node.target.id, gast.Store(), None, None)],
                           gast.Subscript(load(it.id), load(k), gast.Load()), None)
        loop = gast.For(gast.Name(k, gast.Store(), None, None), rng, [read] + node.body,
                        node.orelse, None)
        for n in gast.walk(loop):
            if hasattr(n, "lineno") or isinstance(n, (gast.expr, gast.stmt)):
                gast.copy_location(n, node)
        return pre + [loop] if pre else loop


class ShapeValues:
    """The lowering of shape expressions (a mixin of the `Normalizer`, see the module)."""

    def is_shape(self, node) -> bool:
        return is_shape(node, self.shape_locals, self.resolve_func)

    def shape_value(self, node, hint, dest):
        """The atom of a shape expression (`is_shape`), or None for any other expression."""
        if isinstance(node, gast.Attribute) and node.attr == "shape":
            arr = self.expr(node.value, hint)
            return self.bind(node, dest("shape"), SHAPE_OF, (arr,))
        if isinstance(node, gast.Subscript) and self.is_shape(node):
            s = self.expr(node.value, hint)
            bounds = {}
            for key in ("lower", "upper", "step"):
                b = getattr(node.slice, key)
                v = None if b is None else self.static_of(b)
                if v is not None and (type(v) is not int):
                    self.err(b, "a slice of a shape takes bounds known when jitad compiles "
                                "(s[1:], s[k:] of k = x.ndim - 1 or of a helper's constant "
                                "argument): a rank cannot depend on a value", "shape slice")
                bounds[key] = v
            statics = {"start": bounds["lower"], "stop": bounds["upper"], "step": bounds["step"]}
            return self.bind(node, dest("shape_slice"), SHAPE_SLICE, (s,), statics=statics)
        if isinstance(node, gast.BinOp) and self.is_shape(node):
            a = self.shape_atom(node.left, hint)
            b = self.shape_atom(node.right, hint)
            return self.bind(node, dest("shape"), SHAPE_CAT, (a, b))
        return None

    def constant_shape(self, node):
        """The `TupleA` of a shape the source names as a constant -- a module-level tuple of
        integers (`reshape(SHAPE)`) or an item of one (`reshape(SHAPES[0])`) -- else None."""
        v = static_value(node, self.resolve_func)
        if v is MISSING and isinstance(node, gast.Subscript):
            seq = static_value(node.value, self.resolve_func)
            k = static_value(node.slice, self.resolve_func)
            if isinstance(seq, tuple) and type(k) is int and -len(seq) <= k < len(seq):
                v = seq[k]
        if isinstance(v, tuple) and all(type(i) is int for i in v):
            return TupleA(tuple(Const(i) for i in v))
        return None

    def shape_compare(self, node, hint, dest):
        """`s == t` / `s != t` of two shapes (or one and a tuple written out), else None."""
        if len(node.ops) != 1 or not isinstance(node.ops[0], (gast.Eq, gast.NotEq)):
            return None
        left, right = node.left, node.comparators[0]
        sides = [self.is_shape(left), self.is_shape(right)]
        if not any(sides) or not all(ok or isinstance(s, gast.Tuple)
                                     for ok, s in zip(sides, (left, right))):
            return None
        op = SHAPE_EQ if isinstance(node.ops[0], gast.Eq) else SHAPE_NE
        return self.bind(node, dest(op), op, (self.shape_atom(left, hint),
                                              self.shape_atom(right, hint)))

    def shape_call(self, node, hint, dest):
        """`np.prod(s)` / `math.prod(s)` of a shape, else None."""
        import math
        if len(node.args) != 1 or node.keywords or not self.is_shape(node.args[0]):
            return None
        fn = self.resolve_func(node.func)
        if fn is MISSING or not (fn in _PRODS or fn is math.prod):
            return None
        return self.bind(node, dest(SHAPE_PROD), SHAPE_PROD,
                         (self.expr(node.args[0], hint),))

