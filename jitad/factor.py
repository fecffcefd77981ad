"""Stage 7d — factor: a tangent written as a sum of products is regrouped by its tangents.

Takes: a generated jvp function (Python `ast.FunctionDef`, after `codegen` folded single-use
temporaries back into their use: the expressions are final) and the names of its tangent
variables (`Forward`'s `d_<name>`s). Not a jvp read again (`higher`: an hvp's or a Hessian's
tangent function): there each new sum would be a value of its own, taped by the reverse sweep.
Guarantees: the function computes the same derivatives, up to rounding: a tangent is linear
in the tangents, and the product rule writes it term by term, one product per operand
(`d_u * a * u + d_u * out_mul + (d_b * b + d_b * b)` for `a * u * u + b * b`). In the value
of an assignment to a tangent variable, bottom up, a sum (`+`) whose two sides hold products
(`*`) with the same first tangent factor `d` is rewritten: its terms (flattened) that have `d`
become one term `d * (rest_1 + rest_2 + ...)` at the place of the first of them (each rest is
its term with that factor taken out, the other factors in their order); if the rests are two
equal products `p + p`, their sum is `2.0 * p` (exact).
Other terms keep their order and grouping; a sum with nothing to regroup is left exactly as it
came (its text and its rounding). The primal statements are never touched: only assignments
whose target is a tangent variable, so the values a function returns are unchanged bit for
bit and only its tangents may differ in the last bits. Deterministic: groups are keyed by a
name and ordered by their first term.
Why: every multiplication saved is one per element in a fused loop; for the Rosenbrock jvp
(`d_u * (a * u + out_mul) + d_b * (b + b)`) a fifth of the loop's arithmetic.
"""
from __future__ import annotations

import ast

from . import pyast as P


def factor_tangents(fdef, tangents):
    """Rewrite, in place, the tangent assignments of `fdef` (targets in `tangents`)."""
    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in tangents:
            node.value = _Regroup(tangents).visit(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                and isinstance(node.target, ast.Name) and node.target.id in tangents:
            node.value = _Regroup(tangents).visit(node.value)
    return fdef


def _terms(e):
    """The terms of a sum, left to right (`a + (b + c)` -> a, b, c)."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        return _terms(e.left) + _terms(e.right)
    return [e]


def _factors(e):
    """The factors of a product, left to right."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mult):
        return _factors(e.left) + _factors(e.right)
    return [e]


def _product(fs):
    return P.chain(fs, ast.Mult())


def _sum(ts):
    return P.chain(ts, ast.Add())


class _Regroup(ast.NodeTransformer):
    def __init__(self, tangents):
        self.tangents = tangents

    def key(self, term):
        """The first tangent factor of a product of two or more factors, or None."""
        fs = _factors(term)
        if len(fs) < 2:
            return None
        for f in fs:
            if isinstance(f, ast.Name) and f.id in self.tangents:
                return f.id
        return None

    def visit_BinOp(self, node):
        """Bottom up: a sum is regrouped only where its two sides share a key (so a reduction
        `acc + (terms)` keeps its one addition on the carried value)."""
        node = self.generic_visit(node)
        if not isinstance(node.op, ast.Add):
            return node
        left = {self.key(t) for t in _terms(node.left)}
        right = {self.key(t) for t in _terms(node.right)}
        if not (left & right) - {None}:
            return node
        terms = _terms(node)
        keys = [self.key(t) for t in terms]
        groups = {}
        for i, k in enumerate(keys):
            if k is not None:
                groups.setdefault(k, []).append(i)
        out = []
        for i, t in enumerate(terms):
            members = groups.get(keys[i], [i])
            if len(members) == 1:
                out.append(t)
            elif i == members[0]:
                rests = []
                for j in members:
                    fs = _factors(terms[j])
                    at = next(n for n, f in enumerate(fs)
                              if isinstance(f, ast.Name) and f.id == keys[i])
                    rests.append(_product(fs[:at] + fs[at + 1:]))
                out.append(ast.BinOp(ast.Name(keys[i], ast.Load()), ast.Mult(),
                                     _twice(_sum(rests))))
        return _sum(out)


def _twice(e):
    """`p + p` (two equal products) -> `2.0 * p`; anything else as it is."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add) \
            and isinstance(e.left, ast.BinOp) and isinstance(e.left.op, ast.Mult) \
            and ast.dump(e.left) == ast.dump(e.right):
        return ast.BinOp(ast.Constant(2.0), ast.Mult(), e.left)
    return e
