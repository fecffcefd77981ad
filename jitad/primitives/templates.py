"""Rule templates: Python expressions with placeholders, instantiated on the AST.

Takes: a template (an `ast.expr` parsed from a rule's text) and a mapping from its
placeholders (the primitive's parameters and statics, `g`, `y`) to ASTs.
Guarantees: `substitute` returns a new tree (the template is never modified) with every
placeholder replaced -- on the AST, never by string replacement, so a user variable called
`g`, `y` or `d` cannot collide with them -- and the comparisons and arithmetic that became
constant computed: with a constant exponent `x ** 2` still gives `2 * x` (the guard `b == 0`
disappears, and so does pow's strong zero `rt.strong_mul`, its partial being a polynomial). `parse` and `names` read a template's text for registration.
"""
from __future__ import annotations

import ast
import copy
import operator

from ..errors import JitadError

_NOTHING = object()


def parse(what, text):
    """The expression `text` holds, or a JitadError naming `what`."""
    if not isinstance(text, str):
        raise JitadError(f"{what} must be a string holding a Python expression, got "
                         f"{type(text).__name__}")
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise JitadError(f"{what} {text!r} is not a Python expression ({e.msg})") from None


def names(tree):
    """(the names a template reads, in source order; names it calls as functions; attribute
    bases, as {base: attribute})."""
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    bases = {n.value.id: n.attr for n in ast.walk(tree)
             if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    found = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name)),
                   key=lambda n: (n.lineno, n.col_offset))
    order = []
    for n in found:
        if n.id not in order:
            order.append(n.id)
    return order, called, bases


class _Subst(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        return node


def _const(node):
    """The number (or bool) a constant node holds, or _NOTHING."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _const(node.operand)
        return _NOTHING if v is _NOTHING else -v
    return _NOTHING


def _const_node(v):
    if not isinstance(v, bool) and v < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-v))
    return ast.Constant(v)


_CMPS = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
         ast.Eq: operator.eq, ast.NotEq: operator.ne}
_ARITH = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


class _Fold(ast.NodeTransformer):
    """Comparisons of constants, and + - * of constants (bools included), computed: a rule's
    guard such as `b == 0` disappears when `b` is a constant (`x ** 2` keeps `2 * x`); a slice
    bound that became None is left out (`s[start:stop:step]` of start=1 is `s[1:]`)."""

    def visit_Slice(self, node):
        self.generic_visit(node)
        for k in ("lower", "upper", "step"):
            b = getattr(node, k)
            if isinstance(b, ast.Constant) and b.value is None:
                setattr(node, k, None)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        vals = [_const(node.left)] + [_const(c) for c in node.comparators]
        if _NOTHING in vals or not all(type(o) in _CMPS for o in node.ops):
            return node
        return ast.Constant(all(_CMPS[type(o)](a, b) for o, a, b in zip(node.ops, vals, vals[1:])))

    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b, f = _const(node.left), _const(node.right), _ARITH.get(type(node.op))
        if f is None or a is _NOTHING or b is _NOTHING:
            return node
        return _const_node(f(a, b))


    def visit_Call(self, node):
        """`rt.strong_mul(g, p)` is `g * p` where p is finite wherever its operands are (a
        polynomial: names, numbers, + - *, ** by a number >= 0): `x ** 2` keeps `g * 2 * x`."""
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "strong_mul" and \
                isinstance(f.value, ast.Name) and f.value.id == "rt" and len(node.args) == 2 \
                and not node.keywords and _polynomial(node.args[1]):
            return _times(node.args[0], node.args[1])
        return node


def _times(g, p):
    """g * p as the template would have read it (`g * b * a ** e`: left to right)."""
    if isinstance(p, ast.BinOp) and isinstance(p.op, ast.Mult):
        return ast.BinOp(_times(g, p.left), ast.Mult(), p.right)
    return ast.BinOp(g, ast.Mult(), p)


def _polynomial(node) -> bool:
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (bool, int, float)) and abs(node.value) < float("inf")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _polynomial(node.operand)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        return _polynomial(node.left) and _polynomial(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        e = _const(node.right)
        return e is not _NOTHING and e >= 0 and _polynomial(node.left)
    return False


def substitute(template: ast.expr, mapping: dict) -> ast.expr:
    """A copy of `template` with each placeholder name replaced by the AST in `mapping`, and
    the comparisons and arithmetic that became constant computed (see `_Fold`)."""
    return _Fold().visit(_Subst(mapping).visit(copy.deepcopy(template)))
