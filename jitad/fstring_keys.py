"""Dict keys made by f-strings in a loop over a constant range (`for i in range(2):
h = np.tanh(p[f"W{i}"] @ h + p[f"b{i}"])`): the loop written out, one copy of its body per
value of `i`, and each f-string of constants the string it makes (a `desugar` rewrite, at
the user's lines). Dict keys are constants jitad reads in the source; this makes them so.

Takes: a captured function's `def` tree (gast) and `builtin` (`capture`'s builtin test:
`builtin(name, obj)`, `builtin.value(name)` what a global, not shadowed, holds).
Guarantees: a `for i in range(a[, b[, c]])` statement is its body once per value of `i`, the
reads of `i` in each copy the constant, when
  * `range` is the builtin and its arguments integer constants, global names holding
    integers or `+ - * //` of those, with at most `MAX_TRIPS` values (at least one);
  * its body formats `i` in an f-string used as a key (`p[f"W{i}"]`, `{f"layer_{i}": v}`);
  * the body neither assigns `i` nor has `break`, `continue`, a nested function or a lambda,
    and the loop has no `else`.
A dict comprehension `{f"c{k}": v for k in range(3)}` (one `for` over such a range, no `if`,
its key an f-string formatting `k`) is the dict display it makes, `{"c0": v0, "c1": v1, "c2": v2}`.
`i = <last value>` follows the copies where `i` is read after the loop (Python leaves it
bound to the last value). Then every f-string whose formatted values are all constants or
integer `+ - * //` of constants and global integers (a copy's `f"W{i + 1}"`), and whose format
specs are constants, if any, is the constant string Python makes of it, anywhere in the tree.
Other f-strings stay, and `fence` refuses them at their line.
Invariants: the statements run are the ones Python runs, in the same order, with the same
values; the tree is rewritten in place; no name is introduced.
"""
from __future__ import annotations

import operator

import gast

from .gast_build import assign, name as _name, with_item

MAX_TRIPS = 64
_ARITH = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
          gast.FloorDiv: operator.floordiv}
_CONVERSIONS = {-1: format, 115: lambda v, spec: format(str(v), spec),
                114: lambda v, spec: format(repr(v), spec),
                97: lambda v, spec: format(ascii(v), spec)}


def rewrite(tree, builtin):
    """Unroll the loops of f-string keys, then fold f-strings of constants (module docstring)."""
    class Unroll(gast.NodeTransformer):
        def generic_visit(self, node):
            super().generic_visit(node)
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if isinstance(block, list):
                    block[:] = [x for s in block for x in _unrolled(s, tree, builtin)]
            return node

        def visit_DictComp(self, node):
            self.generic_visit(node)
            return _dict_display(node, builtin)

    Unroll().visit(tree)
    for node in list(gast.walk(tree)):
        for field, child in gast.iter_fields(node):
            if isinstance(child, gast.JoinedStr):
                setattr(node, field, _folded(child, builtin))
            elif isinstance(child, list):
                child[:] = [_folded(c, builtin) if isinstance(c, gast.JoinedStr) else c
                            for c in child]


def _int(node, builtin):
    if isinstance(node, gast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        v = _int(node.operand, builtin)
        return None if v is None else -v
    if isinstance(node, gast.Name):
        v = builtin.value(node.id)
        return v if type(v) is int else None
    if isinstance(node, gast.BinOp) and type(node.op) in _ARITH:
        a, b = _int(node.left, builtin), _int(node.right, builtin)
        if a is not None and b is not None and not (isinstance(node.op, gast.FloorDiv) and b == 0):
            return _ARITH[type(node.op)](a, b)
    return None


def _values(it, builtin):
    """The values of `range(...)` of constants, or None."""
    if not (isinstance(it, gast.Call) and isinstance(it.func, gast.Name)
            and builtin(it.func.id, range) and not it.keywords and 1 <= len(it.args) <= 3):
        return None
    bounds = [_int(a, builtin) for a in it.args]
    if None in bounds or (len(bounds) == 3 and bounds[2] == 0):
        return None
    values = range(*bounds)
    return list(values) if 1 <= len(values) <= MAX_TRIPS else None


def _formats(body, var) -> bool:
    """Whether a key in `body` (an index `d[...]`, a dict display's key) is an f-string
    formatting `var`."""
    keys = [n.slice for s in body for n in gast.walk(s) if isinstance(n, gast.Subscript)] + [
        k for s in body for n in gast.walk(s) if isinstance(n, gast.Dict) for k in n.keys]
    return any(isinstance(k, gast.JoinedStr) and any(
        isinstance(m, gast.Name) and m.id == var for m in gast.walk(k)) for k in keys)


def _unrolled(s, tree, builtin):
    if not (isinstance(s, gast.For) and isinstance(s.target, gast.Name) and not s.orelse):
        return [s]
    var = s.target.id
    values = _values(s.iter, builtin)
    if values is None or not _formats(s.body, var):
        return [s]
    inner = [n for st in s.body for n in gast.walk(st)]
    if any(isinstance(n, (gast.Break, gast.Continue, gast.FunctionDef, gast.Lambda)) or (
            isinstance(n, gast.Name) and n.id == var and not isinstance(n.ctx, gast.Load))
            for n in inner):
        return [s]
    out = [with_item(st, var, gast.Constant(v, None)) for v in values for st in s.body]
    inside = {id(n) for n in inner} | {id(s.target)}
    if any(isinstance(n, gast.Name) and n.id == var and id(n) not in inside
           for n in gast.walk(tree)):
        out.append(assign(_name(var, True), gast.Constant(values[-1], None), s))
    return out


def _dict_display(node, builtin):
    """`{f"c{k}": v for k in range(3)}` as the display `{"c0": v0, "c1": v1, "c2": v2}`."""
    if len(node.generators) != 1:
        return node
    gen = node.generators[0]
    if gen.ifs or getattr(gen, "is_async", 0) or not isinstance(gen.target, gast.Name):
        return node
    var = gen.target.id
    values = _values(gen.iter, builtin)
    if values is None or not _formats([gast.Dict([node.key], [node.value])], var) or any(
            isinstance(n, (gast.Lambda, gast.FunctionDef, gast.NamedExpr))
            for part in (node.key, node.value) for n in gast.walk(part)):
        return node
    item = [gast.Constant(v, None) for v in values]
    return gast.copy_location(gast.Dict([with_item(node.key, var, c) for c in item],
                                        [with_item(node.value, var, c) for c in item]), node)


def _folded(node, builtin):
    """The constant string of an f-string of constants (integer `+ - * //` of them too: a
    copy's `f"W{i + 1}"` is `f"W{0 + 1}"`), else the f-string itself."""
    parts = []
    for v in node.values:
        if isinstance(v, gast.Constant) and isinstance(v.value, str):
            parts.append(v.value)
            continue
        if not (isinstance(v, gast.FormattedValue) and v.conversion in _CONVERSIONS):
            return node
        if isinstance(v.value, gast.Constant):
            value = v.value.value
        else:
            value = _int(v.value, builtin)
            if value is None:
                return node
        spec = "" if v.format_spec is None else _folded(v.format_spec, builtin)
        if not isinstance(spec, str) and not (isinstance(spec, gast.Constant)
                                              and isinstance(spec.value, str)):
            return node
        spec = spec if isinstance(spec, str) else spec.value
        try:
            parts.append(_CONVERSIONS[v.conversion](value, spec))
        except (ValueError, TypeError):
            return node
    return gast.copy_location(gast.Constant("".join(parts), None), node)
