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
is the expression Python would evaluate there.
Invariants: a tree without star expressions is returned unchanged; nodes keep their lines.
"""
from __future__ import annotations

import gast


def expand_stars(tree, given, err):
    if not any(isinstance(n, gast.Starred) for n in gast.walk(tree)):
        return tree

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
