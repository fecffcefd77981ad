"""Small builders for the Python `ast` that `reverse` produces and `codegen` prints.

Takes: names, atoms of the IR, and rule templates.
Guarantees: every builder returns a fresh node (templates are never shared), negative
constants are unary minus nodes so `ast.unparse` parenthesizes them correctly, and
`fold` removes arithmetic on constants that substitution leaves behind (`2 - 1` -> `1`).
"""
from __future__ import annotations

import ast
import operator

from .ir import Const, Slice, TupleA, Var


class Comment(ast.stmt):
    """A `# ...` line in generated code (printed by codegen, ignored by everything else)."""

    _fields = ("text",)

    def __init__(self, text="", loc=None):
        super().__init__()
        self.text = text
        self.loc = loc


def names_in(node):
    """Every name a node mentions (loaded or stored)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def name(n, store=False):
    return ast.Name(n, ast.Store() if store else ast.Load())


def const(v):
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-v))
    return ast.Constant(v)


def atom(a):
    if a is None:
        return None
    if isinstance(a, Var):
        return name(a.name)
    if isinstance(a, Const):
        return const(a.value)
    if isinstance(a, Slice):
        return ast.Slice(atom(a.lower), atom(a.upper), atom(a.step))
    if isinstance(a, TupleA):
        return ast.Tuple([atom(x) for x in a.items], ast.Load())
    if isinstance(a, ast.AST):
        return a
    raise TypeError(a)


def index(parts):
    if len(parts) == 1:
        return atom(parts[0])
    return ast.Tuple([atom(p) for p in parts], ast.Load())


def subscript(arr, parts, store=False):
    return ast.Subscript(name(arr) if isinstance(arr, str) else arr, index(parts),
                         ast.Store() if store else ast.Load())


def dotted(path):
    parts = path.split(".")
    node = name(parts[0])
    for p in parts[1:]:
        node = ast.Attribute(node, p, ast.Load())
    return node


def call(fn, *args, **kwargs):
    return ast.Call(dotted(fn) if isinstance(fn, str) else fn, list(args),
                    [ast.keyword(k, v) for k, v in kwargs.items()])


def assign(target, value):
    t = name(target, store=True) if isinstance(target, str) else target
    if isinstance(t, ast.Subscript):
        t.ctx = ast.Store()
    return ast.Assign([t], value, lineno=0)


def assign_many(targets, value):
    return ast.Assign([ast.Tuple([name(t, True) for t in targets], ast.Store())], value, lineno=0)


def aug(target, value, op=None):
    t = name(target, store=True) if isinstance(target, str) else target
    if isinstance(t, ast.Subscript):
        t.ctx = ast.Store()
    return ast.AugAssign(t, op or ast.Add(), value)


def expr_stmt(e):
    return ast.Expr(e)


def binop(a, op, b):
    return fold(ast.BinOp(a, op, b))


def chain(items, op):
    """items[0] op items[1] op ..., left to right (as a loop adds them); not folded."""
    out = items[0]
    for x in items[1:]:
        out = ast.BinOp(out, op, x)
    return out


_FOLD = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
         ast.FloorDiv: operator.floordiv}


def _num(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _num(node.operand)
        return None if v is None else -v
    return None


class _Folder(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b = _num(node.left), _num(node.right)
        f = _FOLD.get(type(node.op))
        if f and a is not None and b is not None:
            return const(f(a, b))
        if isinstance(node.op, ast.Pow) and b == 1:
            return node.left
        if isinstance(node.op, ast.Add) and b == 0 and not isinstance(b, float):
            return node.left
        if isinstance(node.op, ast.Sub) and b == 0 and not isinstance(b, float):
            return node.left
        if isinstance(node.op, ast.Mult) and b == 1 and not isinstance(b, float):
            return node.left
        if isinstance(node.op, ast.Mult) and a == 1 and not isinstance(a, float):
            return node.right
        return node


def fold(node):
    return _Folder().visit(node)


def function_def(fname, params, body, depth=None):
    """`def fname(params...)`, with `depth` last when the function is recursive (a caller
    outside the recursion passes 0, a recursive call depth + 1). Not a default argument:
    Numba's disk cache crashes on recursive functions with one."""
    params = list(params) + ([depth] if depth else [])
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.FunctionDef(name=fname, args=args, body=body, decorator_list=[], returns=None,
                           type_comment=None, lineno=0)
