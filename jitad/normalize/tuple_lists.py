"""Lists of tuples (`state = [(h0, c0), (h1, c1)]`, `new_state.append((h, c))`) as tuples of
lists: a source rewrite before lowering, so the rest of the list machinery only ever sees
lists of numbers or arrays.

Takes: the function's tree (after `anf.rename_locals`), a `Namer`, the normalizer's
`resolve_func`, and a callback raising a `JitadError` at a node.
Guarantees: a list name every element of which is a tuple of k items written out -- in its
displays, its comprehensions' element, its `.append((a, b))` -- or which is assigned such a
list (`state = new_state`), is k lists `L_0 ... L_{k-1}` (fresh names), one per position, and
its uses are rewritten to them:
  * `L = [(a, b), ...]`, `L = [(e1, e2) for ...]`, `L = M`, `L.append((a, b))`: one statement
    per position (a comprehension is written once per position; its parts are pure);
  * `for (h, c) in L`, `for x, (h, c) in zip(X, L)`: the loop over `zip(L_0, L_1)` with the
    tuple's target spread in place;
  * `h, c = L[i]` (one statement per position), `L[i][j]` with a constant j, `len(L)`.
Any other use of such a list (the list itself as a value, `L[i]` not unpacked, an append of a
tuple that is not written out, tuples of different lengths) is a `JitadError` at its line.
Invariants: a tree without lists of tuples is returned unchanged (the same object); otherwise
a rewritten copy (the captured tree is never modified). Only names and locations are made
here; nothing depends on types.
"""
from __future__ import annotations

import copy

import gast

from .lists import list_names, list_pairs

_USE = ("a list of tuples is read by unpacking its elements (h, c = L[i]), a constant index "
        "of an element (L[i][0]), len(L) and for loops over it (for h, c in L, zip(X, L))")


def _elements(value):
    """The elements a list value written out adds (displays, a comprehension's element)."""
    if isinstance(value, gast.List):
        return list(value.elts)
    if isinstance(value, gast.ListComp):
        return [value.elt]
    return []


def tuple_lists(tree, namer, resolve, err, given=()):
    """(tree, {list name: [its position lists]}, {name: builtin}); see the module docstring.
    The last maps the names the rewrite introduces for builtins (`zip`), which the function's
    captured names do not hold, to what they mean."""
    lists = list_names(tree, resolve, given)
    arity = {}
    rebinds = []
    for n in gast.walk(tree):
        elems = []
        if isinstance(n, gast.Assign):
            for t, v in list_pairs(n):
                if isinstance(t, gast.Name) and t.id in lists:
                    elems += [(t.id, e) for e in _elements(v)]
                    if isinstance(v, gast.Name):
                        rebinds.append((t.id, v.id))
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr == "append" and isinstance(n.func.value, gast.Name) \
                and n.func.value.id in lists and len(n.args) == 1:
            elems.append((n.func.value.id, n.args[0]))
        for name, e in elems:
            if isinstance(e, gast.Tuple):
                if arity.setdefault(name, len(e.elts)) != len(e.elts):
                    err(e, f"the list '{name}' holds tuples of different lengths", "list of tuples")
    changed = True
    while changed:       # state = new_state: the same kind of list
        changed = False
        for a, b in rebinds:
            for x, y in ((a, b), (b, a)):
                if y in arity and x not in arity:
                    arity[x] = arity[y]
                    changed = True
    if not arity:
        return tree, {}, {}
    tree = copy.deepcopy(tree)
    parts = {name: [namer.fresh(f"{name}_{j}") for j in range(k)] for name, k in sorted(arity.items())}
    zip_name = namer.fresh("zip")
    _Rewrite(parts, resolve, err, zip_name).block(tree.body)
    return tree, parts, {zip_name: zip}


def _at(new, old):
    for n in gast.walk(new):
        if getattr(n, "lineno", None) is None and hasattr(old, "lineno"):
            gast.copy_location(n, old)
    return new


def _name(id_, ctx, old):
    return _at(gast.Name(id_, ctx(), None, None), old)


class _Rewrite:
    def __init__(self, parts, resolve, err, zip_name):
        self.parts, self.resolve, self.err, self.zip_name = parts, resolve, err, zip_name

    def is_tl(self, node):
        return isinstance(node, gast.Name) and node.id in self.parts

    def block(self, stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse"):
                sub = getattr(s, field, None)
                if isinstance(sub, list) and not isinstance(s, gast.FunctionDef):
                    setattr(s, field, self.block(sub))
            out += self.stmt(s)
        stmts[:] = out
        return stmts

    # -- statements ---------------------------------------------------------------------
    def stmt(self, s):
        if isinstance(s, gast.FunctionDef):
            return [s]
        if isinstance(s, gast.Assign):
            pairs = list_pairs(s)
            if any(isinstance(t, gast.Name) and t.id in self.parts for t, _ in pairs):
                return [self.assign(target, value, s) for t, v in pairs
                        for target, value in self.spread(t, v, s)]
            t, v = s.targets[0], s.value
            if isinstance(t, gast.Tuple) and isinstance(v, gast.Subscript) and self.is_tl(v.value):
                # h, c = L[i]: one read per position
                names = self.parts[v.value.id]
                if len(t.elts) != len(names):
                    self.err(s, f"the elements of '{v.value.id}' are tuples of {len(names)}",
                             "list of tuples")
                idx = self.expr(v.slice)
                return [self.assign(te, _at(gast.Subscript(_name(p, gast.Load, v),
                                                           copy.deepcopy(idx), gast.Load()), v), s)
                        for te, p in zip(t.elts, names)]
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append" \
                and self.is_tl(s.value.func.value):
            name = s.value.func.value.id
            (arg,) = s.value.args
            if not (isinstance(arg, gast.Tuple) and len(arg.elts) == len(self.parts[name])):
                self.err(s, f"'{name}' is a list of tuples: append a tuple written out "
                            f"({name}.append((a, b)))", "list of tuples")
            return [_at(gast.Expr(gast.Call(gast.Attribute(_name(p, gast.Load, s), "append",
                                                           gast.Load()), [self.expr(e)], [])), s)
                    for p, e in zip(self.parts[name], arg.elts)]
        if isinstance(s, gast.For):
            self.loop(s)
            return [s]
        for field, v in gast.iter_fields(s):
            if field in ("body", "orelse"):
                continue
            if isinstance(v, gast.AST):
                setattr(s, field, self.expr(v))
            elif isinstance(v, list):
                setattr(s, field, [self.expr(x) if isinstance(x, gast.expr) else x for x in v])
        return [s]

    def spread(self, t, v, s):
        """The (target, value) pairs of one pair of an assignment, a list of tuples spread."""
        if not (isinstance(t, gast.Name) and t.id in self.parts):
            return [(t, self.expr(v))]
        names = self.parts[t.id]
        if isinstance(v, gast.Name):
            if v.id not in self.parts:
                self.err(s, f"'{t.id}' is a list of tuples elsewhere", "list of tuples")
            return [(_name(a, gast.Store, t), _name(b, gast.Load, v))
                    for a, b in zip(names, self.parts[v.id])]
        if isinstance(v, gast.List):
            for e in v.elts:
                if not (isinstance(e, gast.Tuple) and len(e.elts) == len(names)):
                    self.err(e, f"'{t.id}' is a list of tuples of {len(names)}: each element "
                                "is one, written out", "list of tuples")
            return [(_name(a, gast.Store, t),
                     _at(gast.List([self.expr(e.elts[j]) for e in v.elts], gast.Load()), v))
                    for j, a in enumerate(names)]
        if isinstance(v, gast.ListComp) and isinstance(v.elt, gast.Tuple) \
                and len(v.elt.elts) == len(names):
            out = []
            for j, a in enumerate(names):
                comp = copy.deepcopy(v)
                comp.elt = comp.elt.elts[j]
                out.append((_name(a, gast.Store, t), self.expr(comp)))
            return out
        self.err(s, f"'{t.id}' is a list of tuples: it is assigned lists of tuples written "
                    "out, comprehensions of them, or another such list", "list of tuples")

    def assign(self, t, v, s):
        return _at(gast.Assign([t], v, None), s)

    def loop(self, s):
        it = s.iter
        if self.is_tl(it):                  # for h, c in L
            s.iter = _at(gast.Call(_name(self.zip_name, gast.Load, it),
                                   [_name(p, gast.Load, it) for p in self.parts[it.id]], []), it)
            if not (isinstance(s.target, gast.Tuple)
                    and len(s.target.elts) == len(self.parts[it.id])):
                self.err(s.target, f"unpack the tuples of '{it.id}' in the loop "
                                   f"(for a, b in {it.id})", "list of tuples")
            return
        if isinstance(it, gast.Call) and self.resolve(it.func) is zip \
                and any(self.is_tl(a) for a in it.args) and isinstance(s.target, gast.Tuple) \
                and len(s.target.elts) == len(it.args):
            args, targets = [], []
            for a, t in zip(it.args, s.target.elts):
                if self.is_tl(a):
                    names = self.parts[a.id]
                    if not (isinstance(t, gast.Tuple) and len(t.elts) == len(names)):
                        self.err(t, f"unpack the tuples of '{a.id}' in the loop target",
                                 "list of tuples")
                    args += [_name(p, gast.Load, a) for p in names]
                    targets += t.elts
                else:
                    args.append(self.expr(a))
                    targets.append(t)
            it.args = args
            s.target.elts = targets
            return
        s.iter = self.expr(it)

    # -- expressions --------------------------------------------------------------------
    def expr(self, node):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Subscript) \
                and self.is_tl(node.value.value):
            k = node.slice.value if isinstance(node.slice, gast.Constant) else None
            names = self.parts[node.value.value.id]
            if type(k) is not int or not -len(names) <= k < len(names):
                self.err(node, f"index an element of '{node.value.value.id}' with a constant",
                         "list of tuples")
            return _at(gast.Subscript(_name(names[k], gast.Load, node),
                                      self.expr(node.value.slice), gast.Load()), node)
        if isinstance(node, gast.Call) and self.resolve(node.func) is len \
                and len(node.args) == 1 and self.is_tl(node.args[0]):
            node.args = [_name(self.parts[node.args[0].id][0], gast.Load, node.args[0])]
            return node
        if self.is_tl(node):
            self.err(node, f"'{node.id}' is a list of tuples: {_USE}", "list of tuples")
        for field, v in gast.iter_fields(node):
            if isinstance(v, gast.expr):
                setattr(node, field, self.expr(v))
            elif isinstance(v, list):
                setattr(node, field, [self.expr(x) if isinstance(x, gast.expr) else x for x in v])
            elif isinstance(v, gast.comprehension):
                pass
        if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            for g in node.generators:
                g.iter = self.expr(g.iter)
                g.ifs = [self.expr(c) for c in g.ifs]
        return node

