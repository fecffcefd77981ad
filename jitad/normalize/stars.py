"""Star expressions (`h(*state)`, `np.zeros((*shape, 2))`, `[*parts, x]`) of sequences whose
length is known when the function is normalized, written out.

Takes: the function's tree after `tuple_values` (a tuple local is then a tuple written out
where it is read whole, a tuple of constants a constant), the lengths of the parameters given
a tuple or list (`given`: name -> length, `structs`), and a callback raising a `JitadError`
at a node.
Guarantees: in a call's arguments and in a tuple or list display, `*e` is replaced by e's
items, in order: e a tuple or list written out, a tuple constant, or a parameter given a
sequence of k items (`p[0], ..., p[k-1]`); any other `*e` (an array, a list grown in a loop)
is refused at its node, naming it. Python evaluates `*e` where it stands; each item written out
is the expression Python would evaluate there. A list display holding `*e` of a list the
function builds (`lists`: `[*hs, h]`, `[x0, *parts]`) becomes, as the value of an assignment
to a name (or hoisted into one before an assignment, expression or return that holds it),
that list built by appends: `t = [e for e in hs]` or `t = [x0]`, then `t.append(item)` or
`for e in parts: t.append(e)`, in the display's order (through a new name when the target is
among the items).
Invariants: a tree without star expressions is returned unchanged; nodes keep their lines.
"""
from __future__ import annotations

import copy

import gast


def expand_stars(tree, given, err, lists=(), namer=None):
    if not any(isinstance(n, gast.Starred) for n in gast.walk(tree)):
        return tree
    if lists and namer is not None:
        _list_displays(tree.body, set(lists), namer)

    def items(star):
        v = star.value
        if isinstance(v, (gast.Tuple, gast.List)):
            return list(v.elts)
        if isinstance(v, gast.Constant) and isinstance(v.value, tuple):
            return [gast.copy_location(gast.Constant(c, None), v) for c in v.value]
        if isinstance(v, gast.Name) and v.id in given:
            return [gast.copy_location(gast.Subscript(gast.Name(v.id, gast.Load(), None, None),
                                                      gast.Constant(k, None), gast.Load()), v)
                    for k in range(given[v.id])]
        err(star, "a star expression (`*e`) is supported of a tuple or list whose length is "
                  "known when the function is compiled (written out, a tuple variable, a "
                  "tuple argument), not of this value", "star expression")

    def spread(elts):
        out = []
        for e in elts:
            out += items(e) if isinstance(e, gast.Starred) else [e]
        return out

    for node in gast.walk(tree):
        if isinstance(node, gast.Call):
            node.args = spread(node.args)
        elif isinstance(node, (gast.Tuple, gast.List)) and isinstance(node.ctx, gast.Load):
            node.elts = spread(node.elts)
    if any(isinstance(n, gast.Starred) for n in gast.walk(tree)):
        star = next(n for n in gast.walk(tree) if isinstance(n, gast.Starred))
        err(star, "a star expression is supported in a call's arguments and in a tuple or "
                  "list written out", "star expression")
    return tree


def _grows(node, lists) -> bool:
    """A list display holding `*e` of a list the function builds."""
    return isinstance(node, gast.List) and isinstance(node.ctx, gast.Load) and any(
        isinstance(e, gast.Starred) and isinstance(e.value, gast.Name) and e.value.id in lists
        for e in node.elts)


def _list_displays(block, lists, namer):
    """Rewrite, in place, the displays `_grows` finds (see the module)."""
    from ..desugar import sub_blocks
    k = 0
    while k < len(block):
        st = block[k]
        for sub in sub_blocks(st):
            _list_displays(sub, lists, namer)
        if isinstance(st, gast.Assign) and len(st.targets) == 1 \
                and isinstance(st.targets[0], gast.Name) and _grows(st.value, lists):
            new = _appends(st.targets[0].id, st.value, st, lists, namer)
            block[k:k + 1] = new
            k += len(new)
            continue
        if isinstance(st, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)):
            found = [n for n in _outer_nodes(st) if _grows(n, lists)]
            if found:
                hoisted = []
                for disp in found:
                    name = namer.fresh("items")
                    hoisted += _appends(name, copy.copy(disp), st, lists, namer)
                    _replace(st, disp, gast.copy_location(gast.Name(name, gast.Load(), None,
                                                                    None), disp))
                block[k:k] = hoisted
                k += len(hoisted)
        k += 1


def _outer_nodes(st):
    """The nodes of a statement's expressions, not inside comprehensions or lambdas."""
    stack = [st]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                          gast.Lambda)):
            continue
        stack.extend(gast.iter_child_nodes(n))


def _replace(root, old, new):
    for n in gast.walk(root):
        for field, value in gast.iter_fields(n):
            if value is old:
                setattr(n, field, new)
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    if v is old:
                        value[i] = new


def _appends(target, display, at, lists, namer):
    """`target = display` as statements that build the list by appends."""
    def loc(node):
        for n in gast.walk(node):
            if getattr(n, "lineno", None) is None:
                gast.copy_location(n, at)
        return node

    def name(n, ctx):
        return gast.Name(n, ctx, None, None)

    mentioned = any(isinstance(n, gast.Name) and n.id == target for n in gast.walk(display))
    t = namer.fresh(target) if mentioned else target
    elts = list(display.elts)
    first = elts[0]
    if isinstance(first, gast.Starred) and isinstance(first.value, gast.Name) \
            and first.value.id in lists:
        v = namer.fresh("item")
        start = gast.ListComp(name(v, gast.Load()), [gast.comprehension(
            name(v, gast.Store()), first.value, [], 0)])
        elts = elts[1:]
    else:
        prefix = []
        while elts and not (isinstance(elts[0], gast.Starred)
                            and isinstance(elts[0].value, gast.Name) and elts[0].value.id in lists):
            prefix.append(elts.pop(0))
        start = gast.List(prefix, gast.Load())
    out = [loc(gast.Assign([name(t, gast.Store())], start, None))]

    def append(value):
        return gast.Expr(gast.Call(gast.Attribute(name(t, gast.Load()), "append", gast.Load()),
                                   [value], []))
    for e in elts:
        if isinstance(e, gast.Starred) and isinstance(e.value, gast.Name) and e.value.id in lists:
            v = namer.fresh("item")
            out.append(loc(gast.For(name(v, gast.Store()), e.value,
                                    [append(name(v, gast.Load()))], [], None)))
        elif isinstance(e, gast.Starred) and isinstance(e.value, (gast.Tuple, gast.List)):
            out += [loc(append(x)) for x in e.value.elts]
        elif isinstance(e, gast.Starred):       # a tuple variable, an array's rows ...
            v = namer.fresh("item")
            out.append(loc(gast.For(name(v, gast.Store()), e.value,
                                    [append(name(v, gast.Load()))], [], None)))
        else:
            out.append(loc(append(e)))
    if t != target:
        out.append(loc(gast.Assign([name(target, gast.Store())], name(t, gast.Load()), None)))
    return out
