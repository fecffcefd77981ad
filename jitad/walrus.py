"""Named expressions (`(n := x.shape[0])`, the walrus) as assignments, each made where Python
evaluates it: a rewrite of the captured tree, before `desugar`'s others and before `fence`.

Takes: a function's `def` tree (gast, the user's line numbers) and a fresh-name maker
(`fresh(base, shown)`, as `desugar` gives, recording what a fresh name stands for).
Guarantees: in the expressions a statement evaluates itself -- an assignment's value, an
augmented assignment's value, an expression statement, a `return`'s value, an `if` or
`assert` test, a `for`'s iterable, a `while` test -- each `(t := e)` becomes `t = e` put
before the statement and the name `t` in its place, in Python's order of evaluation:
  * operands are evaluated left to right (a call's function, then its arguments and keyword
    values; a subscript's value, then its index; a dict display's keys and values pairwise);
    an operand evaluated before a walrus that reads a name the walrus assigns is first
    assigned to a fresh name (`y + (y := 2)` reads the old `y`);
  * a walrus in a part Python may not evaluate -- an `and`/`or` operand after the first, a
    branch of `a if c else b`, a chained comparison's operands after the second -- is made
    inside an `if` that evaluates exactly what Python would: `t = a` then `if t: t = b` for
    `a and b` (`if not t:` for `or`), `if c: t = a` / `else: t = b` for the conditional;
  * a `while` test holding one is evaluated at the top of a `while True:` loop, which leaves
    by `break` when the test is false (a `continue` evaluates it again, as Python does);
  * an `assert`'s message (evaluated only on failure) is not rewritten.
Anything else -- a walrus in a comprehension or lambda (it binds in the function around
them), in an assignment's target, one assigning an augmented assignment's target, in the
test of a `while` with an `else` -- is left as written, and `fence` refuses it at its line.
Eager mode runs the statement as written.
Invariants: a tree without named expressions is left as it was; the rewrite is in place;
the statements made have the line of the statement they come from.
"""
from __future__ import annotations

import ast
import copy

import gast

_SCOPED = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_BLOCKS = ("body", "orelse", "finalbody")


def named_expressions(tree, fresh) -> None:
    """Rewrite the walruses of `tree` (the module docstring); in place."""
    if any(isinstance(n, gast.NamedExpr) for n in gast.walk(tree)):
        _block(tree, "body", fresh)


def _block(node, field, fresh):
    block = getattr(node, field, None)
    if not isinstance(block, list):
        return
    out = []
    for s in block:
        for f in _BLOCKS:
            _block(s, f, fresh)
        for h in getattr(s, "handlers", None) or ():
            _block(h, "body", fresh)
        out.extend(_statement(s, fresh))
    block[:] = out


def _has(node) -> bool:
    """Whether `node` holds a walrus this module rewrites (not one in a comprehension or
    lambda, where it is left)."""
    if node is None or isinstance(node, _SCOPED):
        return False
    if isinstance(node, gast.NamedExpr):
        return True
    return any(_has(c) for c in gast.iter_child_nodes(node))


def _statement(s, fresh):
    """The statements `s` becomes (`s` itself, as written, where a walrus is left)."""
    new = copy.deepcopy(s)
    try:
        return _rewrite(new, fresh)
    except _Leave:
        return [s]


def _rewrite(s, fresh):
    if isinstance(s, gast.While):
        if not _has(s.test):
            return [s]
        if s.orelse:
            raise _Leave
        lin = _Linear(fresh, s)
        test = lin.expr(s.test)
        stop = _located(gast.If(_located(gast.UnaryOp(gast.Not(), test), s.test),
                                [_located(gast.Break(), s)], []), s)
        s.test = _located(gast.Constant(True, None), s.test)
        s.body[:0] = lin.before + [stop]
        return [s]
    field = {gast.Assign: "value", gast.AugAssign: "value", gast.Expr: "value",
             gast.Return: "value", gast.If: "test", gast.Assert: "test",
             gast.For: "iter"}.get(type(s))
    if field is None or not _has(getattr(s, field)):
        return [s]
    targets = s.targets if isinstance(s, gast.Assign) else \
        [s.target] if isinstance(s, (gast.AugAssign, gast.For)) else []
    if any(_has(t) for t in targets):
        raise _Leave
    if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) \
            and s.target.id in _assigned(s.value):
        raise _Leave        # `x += (x := 2)` reads x first
    lin = _Linear(fresh, s)
    setattr(s, field, lin.expr(getattr(s, field)))
    return lin.before + [s]


def _assigned(node) -> set:
    """The names the walruses in `node` assign (those this module rewrites)."""
    if node is None or isinstance(node, _SCOPED):
        return set()
    out = {node.target.id} if isinstance(node, gast.NamedExpr) else set()
    for c in gast.iter_child_nodes(node):
        out |= _assigned(c)
    return out


def _reads(node) -> set:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _located(node, like):
    for n in gast.walk(node):
        if getattr(n, "lineno", None) is None:
            gast.copy_location(n, like)
    return node


def _text(node) -> str:
    return ast.unparse(gast.gast_to_ast(node))


class _Linear:
    """One statement's expression linearized: the assignments to make first (`before`)."""

    def __init__(self, fresh, stmt):
        self.fresh, self.stmt, self.before = fresh, stmt, []

    def name(self, ident, ctx):
        return _located(gast.Name(ident, ctx, None, None), self.stmt)

    def assign(self, ident, value, into=None):
        (self.before if into is None else into).append(_located(
            gast.Assign([self.name(ident, gast.Store())], value, None), self.stmt))

    def hold(self, node, hint):
        """`node` evaluated now into a fresh name; that name."""
        t = self.fresh(hint, _text(node))
        self.assign(t, node)
        return self.name(t, gast.Load())

    def expr(self, node):
        if not _has(node):
            return node
        if isinstance(node, gast.NamedExpr):
            value = self.expr(node.value)
            self.assign(node.target.id, value)
            return self.name(node.target.id, gast.Load())
        if isinstance(node, gast.BoolOp) and any(_has(v) for v in node.values[1:]):
            return self.bool_op(node)
        if isinstance(node, gast.IfExp) and (_has(node.body) or _has(node.orelse)):
            return self.if_exp(node)
        if isinstance(node, gast.Compare) and any(_has(c) for c in node.comparators[1:]):
            raise _Leave    # a chained comparison's later operands: left for `fence`
        self.operands(node)
        return node

    def operands(self, node):
        """Rewrite `node`'s operands in place, in evaluation order; an operand evaluated before
        a walrus that assigns a name it reads is held in a fresh name first."""
        slots = list(_slots(node))
        for k, (get, put) in enumerate(slots):
            child = get()
            if child is None:
                continue
            later = set().union(*(_assigned(g()) for g, _ in slots[k + 1:])) if k + 1 < len(
                slots) else set()
            if _has(child):
                put(self.expr(child))
            elif later & _reads(child):
                if isinstance(child, (gast.Slice, gast.Starred)):
                    raise _Leave
                put(self.hold(child, "before_walrus"))

    def into_block(self, node, block):
        """`node` linearized with its assignments made in `block` (a branch of an `if`)."""
        saved, self.before = self.before, []
        value = self.expr(node)
        block.extend(self.before)
        self.before = saved
        return value

    def bool_op(self, node):
        """`a and b and c`: t = a; if t: (t = b; if t: t = c) -- each operand evaluated only
        where Python evaluates it; `or` tests `not t`."""
        t = self.fresh("either" if isinstance(node.op, gast.Or) else "both", _text(node))
        self.assign(t, self.expr(node.values[0]))
        block = self.before
        for v in node.values[1:]:
            test = self.name(t, gast.Load())
            if isinstance(node.op, gast.Or):
                test = _located(gast.UnaryOp(gast.Not(), test), self.stmt)
            inner = []
            self.assign(t, self.into_block(v, inner), inner)
            block.append(_located(gast.If(test, inner, []), self.stmt))
            block = inner
        return self.name(t, gast.Load())

    def if_exp(self, node):
        t = self.fresh("chosen", _text(node))
        test = self.expr(node.test)
        then, other = [], []
        self.assign(t, self.into_block(node.body, then), then)
        self.assign(t, self.into_block(node.orelse, other), other)
        self.before.append(_located(gast.If(test, then, other), self.stmt))
        return self.name(t, gast.Load())



class _Leave(Exception):
    """A walrus this module leaves as written (the module docstring): `fence` refuses it."""


def _slots(node):
    """(get, put) pairs of `node`'s operands in Python's order of evaluation."""
    if isinstance(node, gast.Dict):     # k1, v1, k2, v2 ...
        for k in range(len(node.keys)):
            for lst in (node.keys, node.values):
                yield (lambda v=lst, k=k: v[k]), (lambda x, v=lst, k=k: _put(v, k, x))
        return
    for field, value in gast.iter_fields(node):
        if field in ("ctx", "type_comment"):
            continue
        if isinstance(value, list):
            for k in range(len(value)):
                yield (lambda v=value, k=k: _operand(v[k]),
                       lambda x, v=value, k=k: _put(v, k, x))
        elif isinstance(value, gast.AST):
            yield (lambda n=node, f=field: _operand(getattr(n, f)),
                   lambda x, n=node, f=field: _set(n, f, x))


def _operand(v):
    return v.value if isinstance(v, gast.keyword) else v


def _put(lst, k, x):
    if isinstance(lst[k], gast.keyword):
        lst[k].value = x
    else:
        lst[k] = x


def _set(node, field, x):
    cur = getattr(node, field)
    if isinstance(cur, gast.keyword):
        cur.value = x
    else:
        setattr(node, field, x)
