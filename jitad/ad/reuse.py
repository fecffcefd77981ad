"""Zeroed again, not made again: a loop adjoint's per-iteration array adjoints keep their buffer.

Takes: the body of one adjoint loop (Python AST, as `Reverse` generated it, before tidying)
and the ranks of the names in it (`rank_of`).
Guarantees: `reusable(body, rank_of)` lists the `(d, x)` of the body's top-level statements
`d = np.zeros_like(x)` (an array adjoint started again at each iteration: the adjoint of a
variable the loop body assigns) whose array no other name can hold when the next iteration
starts -- every mention of `d` in the body (at any depth) is
  * an element of it, read or updated (`d[i]`, `d[i, j] += e`: as many indices as d has
    axes, none a slice, so never a view),
  * its shape (`d.shape`),
  * an operand of arithmetic (`d * e`, `-d`: a new array or a number), or
  * an argument of a runtime helper that makes a new array (`runtime.FRESH`) or adds into its
    first argument (`runtime.ADDED_PRODUCTS`, `add_into`, `accum1`, `accum2`, the checks);
and `d` is bound nowhere else in the body (no `d += e` a first contribution could make an
assignment of another array: `codegen._first_contribution`).
`Reverse` then writes `d = rt.zeroed(d, x)` (zeros in the same buffer while x's shape stays)
with `d` defined before the loop: an RNN's Hessian-vector product made two small arrays per
step, as many as its forward pass.
Invariants: the values are the same (zeros either way); a buffer is reused only when nothing
can read it as another name (no alias, no view, not returned, not stored).
"""
from __future__ import annotations

import ast

from .. import runtime

# runtime helpers that read an array argument without keeping it or returning a view of it
_HELPERS = frozenset(runtime.FRESH) | frozenset(runtime.ADDED_PRODUCTS.values()) | {
    "add_into", "accum1", "accum2"}


def reusable(body, rank_of) -> list:
    """The `(d, x)` of `body`'s `d = np.zeros_like(x)` whose buffer may be zeroed again (see
    the module docstring), in the body's order."""
    parents = {}
    for st in body:
        for node in ast.walk(st):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
    out = []
    for st in body:
        made = _zeros_like(st)
        if made is None:
            continue
        d, x = made
        rank = rank_of(d)
        if not rank or _bound_elsewhere(body, st, d):
            continue
        uses = [n for s in body for n in ast.walk(s)
                if isinstance(n, ast.Name) and n.id == d and isinstance(n.ctx, ast.Load)]
        if uses and all(_harmless(n, parents, rank) for n in uses):
            out.append((d, x))
    return out


def _zeros_like(st):
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
            and isinstance(st.value, ast.Call) and ast.unparse(st.value.func) == "np.zeros_like" \
            and len(st.value.args) == 1 and not st.value.keywords \
            and isinstance(st.value.args[0], ast.Name):
        return st.targets[0].id, st.value.args[0].id
    return None


def _bound_elsewhere(body, made, d) -> bool:
    for st in body:
        for n in ast.walk(st):
            if n is made.targets[0]:
                continue
            if isinstance(n, ast.Name) and n.id == d and isinstance(n.ctx, (ast.Store, ast.Del)):
                return True
            if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == d:
                return True
    return False


def _harmless(name, parents, rank) -> bool:
    p = parents.get(name)
    if isinstance(p, ast.Subscript) and p.value is name:
        index = p.slice.elts if isinstance(p.slice, ast.Tuple) else [p.slice]
        return len(index) == rank and not any(isinstance(n, ast.Slice)
                                              for i in index for n in ast.walk(i))
    if isinstance(p, ast.Attribute) and p.value is name:
        return p.attr == "shape"
    if isinstance(p, (ast.BinOp, ast.UnaryOp, ast.Compare)):
        return True
    if isinstance(p, ast.Call) and name in p.args:
        fn = ast.unparse(p.func)
        return fn.startswith("rt.") and (fn[3:] in _HELPERS or fn[3:].startswith("check_"))
    return False
