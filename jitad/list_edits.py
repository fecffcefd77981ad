"""Lists edited in place, tuples grown, and tuple() of a sequence, as the list forms jitad
builds (a `desugar` rewrite, at the user's lines).

jitad's lists are built by displays, comprehensions and appends (`normalize.lists`); Python
code also edits them (`xs.pop()`, `xs.insert(0, v)`, `xs.reverse()`), slices them, grows
tuples (`t += (a,)`) and makes tuples of sequences (`tuple(v * v for v in x)`). Each of those
is rewritten here into a new list built by a comprehension (or appends) from the old one --
the same items in the same order Python gives, so the same values and derivatives.

Takes: a captured function's `def` tree (gast), its `Namer` and the builtin test of `capture`.
Guarantees (a list local is a name `desugar._list_names` finds: only ever assigned list
displays or comprehensions, not a parameter):
  * `tuple_locals_as_lists` (first, before list locals are found): a name only ever
    assigned tuple displays and grown by `+=` of a tuple display (`t = ()`, `t += (a,)`),
    never returned, compared or an operand of another operator, is a list local with the
    same items: its displays become list displays (an immutable tuple and a list read alike
    by index, iteration, unpacking, `len` and NumPy);
  * `tuple(e)` of the builtin, e a list local, is `[v for v in e]` (a generator or list
    comprehension given to it is that comprehension), a list of the same items
    (`tuple_calls`; `tuple(x.shape)` and other tuples stay as they are);
  * statements of a list local `xs` (`statement`):
    - `v = xs.pop(i)` / `xs.pop(i)` with `i` absent (-1) or an integer constant: `v = xs[i]`
      (a fresh name when not assigned: Python's IndexError on an empty list), then `xs` the
      list of the other items: `[xs[k] for k in range(len(xs) - 1)]` for the last,
      `[xs[k + 1] for k in ...]` for the first, else the items whose index is not `i`
      (`len(xs) + i` for a negative `i`);
    - `xs.insert(i, v)` with an integer constant `i >= 0`: a fresh list of the items before
      position `min(i, len(xs))`, `v`, then the others, which `xs` becomes;
    - `xs.reverse()`: `xs = [xs[len(xs) - 1 - k] for k in range(len(xs))]`;
    - `xs.sort()` (`key=lambda v: k`, `reverse=` too): `xs = sorted(xs)` (where `sorted` is
      the builtin), the new list of the same items in Python's order;
  * `xs[a:b]` (no step, bounds absent, integer constants or names) of a list local read in
    an expression is `[xs[k] for k in range(len(xs)) if lo <= k < hi]` with Python's
    normalized bounds (`len(xs) + a` for a negative constant), and `xs[::-1]` the reversed
    list (`list_slices`);
  * `f(*xs)` of a list local assigned once, a display of n items without a star, and never
    changed (no other store, no method called on it) is `f(xs[0], ..., xs[n - 1])`
    (`display_stars`: `zip(*rows)` of equal-length rows); `zip(*rows)` of such a list of
    tuple displays is the tuple display of the tuples Python's zip yields,
    `((rows[0][0], rows[1][0], ...), ...)` (the shortest tuple's width), and
    `a, b = zip(*rows)` assigns each name its tuple;
  * `for c in zip(a, b, ...)` with one name `c` (a loop or a comprehension) unpacks into
    fresh names, `c` the tuple of them: the loop's first statement `c = (c0, c1, ...)`, in a
    comprehension each read of `c` the display (`zip_targets`; only for the builtin zip);
  * `sorted(E, key=lambda p: k)` of the builtin, E a name or `range(n)`, is `sorted(E, key=[k for p in E])`:
    the keys listed, which `normalize.lists` gathers E by (`sorted_keys`);
  * `names.index(c)` with a constant `c`, where `names` is assigned once a list display of
    constants and read only by `.index(constant)`, `names[constant]` and `len(names)`, is
    the constant Python computes (the display itself then unused, removed;
    `constant_lists`; `c` not in the list is left for Python's ValueError -- not rewritten).
Anything else is left as it was (`normalize` refuses what it cannot read, at its line).
Invariants: comprehension variables are fresh names (`Namer`); a rewritten statement keeps
the line of the statement it replaces; nothing here depends on types; a rewrite that finds a
name by its stores in the whole tree (`display_stars`, `constant_lists`) leaves alone a name
a nested function or lambda also uses (another scope may mean another variable).
"""
from __future__ import annotations

import copy

import gast

from .gast_build import assign as _assign
from .gast_build import located as _located
from .gast_build import name as _name
from .gast_build import param_names, store_counts


def _nested_names(tree) -> set:
    """Names read or written inside a function or lambda defined in `tree` (another scope:
    a rewrite keyed by name alone leaves them alone)."""
    return {n.id for d in gast.walk(tree) if isinstance(d, (gast.FunctionDef, gast.Lambda))
            and d is not tree for n in gast.walk(d) if isinstance(n, gast.Name)}


def _const(v):
    return gast.Constant(v, None)


def _call(func, *args):
    return gast.Call(_name(func), list(args), [])


def _len(xs):
    return _call("len", _name(xs))


def _comp(elt, k, iter_, ifs=()):
    return gast.ListComp(elt, [gast.comprehension(_name(k, True), iter_, list(ifs), 0)])


def _at(xs, index):
    return gast.Subscript(_name(xs), index, gast.Load())


def _binop(a, op, b):
    return gast.BinOp(a, op, b)


# -- tuples grown in place become lists ------------------------------------------------------


def tuple_locals_as_lists(tree) -> set:
    """Rewrite the tuple locals grown by `+=` (module docstring) as list locals; their names."""
    stores, tuples, grown = {}, {}, set()
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], gast.Name) and isinstance(n.value, gast.Tuple):
            tuples[n.targets[0].id] = tuples.get(n.targets[0].id, 0) + 1
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) \
                and isinstance(n.op, gast.Add) and isinstance(n.value, gast.Tuple):
            tuples[n.target.id] = tuples.get(n.target.id, 0) + 1
            grown.add(n.target.id)
    params = param_names(tree)
    names = {t for t in grown if stores.get(t) == tuples[t] and t not in params}
    for n in gast.walk(tree):       # read as a tuple: returned, compared, another operator
        if isinstance(n, gast.Return) and n.value is not None:
            top = n.value.elts if isinstance(n.value, (gast.Tuple, gast.List)) else [n.value]
            names -= {e.id for e in top if isinstance(e, gast.Name)}
        operands = (n.left, n.right) if isinstance(n, gast.BinOp) else \
            [n.left, *n.comparators] if isinstance(n, gast.Compare) else ()
        names -= {e.id for e in operands if isinstance(e, gast.Name)}
    for n in gast.walk(tree):
        if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name) \
                and n.targets[0].id in names and isinstance(n.value, gast.Tuple):
            n.value = gast.copy_location(gast.List(n.value.elts, gast.Load()), n.value)
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) \
                and n.target.id in names and isinstance(n.value, gast.Tuple):
            n.value = gast.copy_location(gast.List(n.value.elts, gast.Load()), n.value)
    return names


# -- tuple(e), list slices, constant lists --------------------------------------------------


def tuple_calls(tree, namer, builtin, lists):
    """`tuple(e)` of the builtin as the list comprehension of e's items (module docstring):
    e a comprehension or a list local (a shape, `tuple(x.shape)`, stays a tuple)."""
    if not builtin("tuple", tuple):
        return

    class Calls(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if not (isinstance(node.func, gast.Name) and node.func.id == "tuple"
                    and len(node.args) == 1 and not node.keywords
                    and not isinstance(node.args[0], gast.Starred)):
                return node
            arg = node.args[0]
            if isinstance(arg, (gast.GeneratorExp, gast.ListComp)):
                made = gast.ListComp(arg.elt, arg.generators)
            elif not (isinstance(arg, gast.Name) and arg.id in lists):
                return node
            else:
                k = namer.fresh("item")
                made = _comp(_name(k), k, arg)
            return _located(made, node)

    Calls().visit(tree)


def list_slices(tree, lists, namer):
    """`xs[a:b]` / `xs[::-1]` of a list local read in an expression, as a comprehension."""
    def bound(e, xs, default):
        if e is None:
            return default
        if isinstance(e, gast.Constant) and isinstance(e.value, int) \
                and not isinstance(e.value, bool):
            return _binop(_len(xs), gast.Add(), _const(e.value)) if e.value < 0 else _const(e.value)
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub) \
                and isinstance(e.operand, gast.Constant) and isinstance(e.operand.value, int):
            return _binop(_len(xs), gast.Sub(), _const(e.operand.value))
        if isinstance(e, gast.Name):
            return gast.IfExp(gast.Compare(_name(e.id), [gast.GtE()], [_const(0)]), _name(e.id),
                              _binop(_len(xs), gast.Add(), _name(e.id)))
        return False

    class Slices(gast.NodeTransformer):
        def visit_Subscript(self, node):
            self.generic_visit(node)
            if not (isinstance(node.ctx, gast.Load) and isinstance(node.value, gast.Name)
                    and node.value.id in lists and isinstance(node.slice, gast.Slice)):
                return node
            xs, sl = node.value.id, node.slice
            k = namer.fresh("k")
            step = sl.step
            if step is not None:
                if not (sl.lower is None and sl.upper is None and isinstance(
                        step, gast.UnaryOp) and isinstance(step.op, gast.USub)
                        and isinstance(step.operand, gast.Constant) and step.operand.value == 1):
                    return node
                back = _binop(_binop(_len(xs), gast.Sub(), _const(1)), gast.Sub(), _name(k))
                return _located(_comp(_at(xs, back), k, _call("range", _len(xs))), node)
            lo, hi = bound(sl.lower, xs, None), bound(sl.upper, xs, None)
            if lo is False or hi is False:
                return node
            ifs = []
            if lo is not None:
                ifs.append(gast.Compare(_name(k), [gast.GtE()], [lo]))
            if hi is not None:
                ifs.append(gast.Compare(_name(k), [gast.Lt()], [hi]))
            test = [gast.BoolOp(gast.And(), ifs)] if len(ifs) == 2 else ifs
            return _located(_comp(_at(xs, _name(k)), k, _call("range", _len(xs)), test), node)

    Slices().visit(tree)


def display_stars(tree, lists, builtin=None):
    """`f(*xs)` of a list local of a known length (module docstring) written out; `zip(*rows)`
    of the builtin zip, rows such a list whose items are all tuple displays (no star), is
    the list display of the transposed tuples `[(rows[0][0], rows[1][0], ...), ...]`, as many
    as the shortest tuple has items (zip's own truncation): the tuples Python's zip yields,
    read by the constant indices a list of tuples allows."""
    stores, sizes, widths = {}, {}, {}
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], gast.Name) and isinstance(n.value, gast.List) \
                and not any(isinstance(e, gast.Starred) for e in n.value.elts):
            sizes[n.targets[0].id] = len(n.value.elts)
            if n.value.elts and all(isinstance(e, gast.Tuple) and not any(
                    isinstance(u, gast.Starred) for u in e.elts) for e in n.value.elts):
                widths[n.targets[0].id] = min(len(e.elts) for e in n.value.elts)
        if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name):
            sizes[n.value.id] = None        # xs.append(...): may change
    nested = _nested_names(tree)
    known = {k: v for k, v in sizes.items() if v is not None and stores.get(k) == 1
             and k in lists and k not in nested}
    if builtin is not None and builtin("zip", zip):
        _transposed_zips(tree, {k: (known[k], widths[k]) for k in known if k in widths})
    for n in gast.walk(tree):
        if isinstance(n, gast.Call) and any(
                isinstance(a, gast.Starred) and isinstance(a.value, gast.Name)
                and a.value.id in known for a in n.args):
            args = []
            for a in n.args:
                if isinstance(a, gast.Starred) and isinstance(a.value, gast.Name) \
                        and a.value.id in known:
                    args += [_located(_at(a.value.id, _const(j)), a)
                             for j in range(known[a.value.id])]
                else:
                    args.append(a)
            n.args = args


def _transposed_zips(tree, tables):
    """`zip(*rows)` of a list of tuple displays: the list display of its transposed tuples."""
    if not tables:
        return

    class Zips(gast.NodeTransformer):
        def visit_Assign(self, node):
            self.generic_visit(node)
            t = node.targets[0] if len(node.targets) == 1 else None
            if isinstance(t, (gast.Tuple, gast.List)) and isinstance(node.value, gast.Tuple) \
                    and getattr(node.value, "transposed", False) \
                    and len(t.elts) == len(node.value.elts) \
                    and all(isinstance(e, gast.Name) for e in t.elts):
                # `a, b = zip(*rows)`: each name its tuple (the value reads only rows)
                return [_assign(e, v, node) for e, v in zip(t.elts, node.value.elts)]
            return node

        def visit_Call(self, node):
            self.generic_visit(node)
            if not (isinstance(node.func, gast.Name) and node.func.id == "zip"
                    and not node.keywords and len(node.args) == 1
                    and isinstance(node.args[0], gast.Starred)
                    and isinstance(node.args[0].value, gast.Name)
                    and node.args[0].value.id in tables):
                return node
            rows = node.args[0].value.id
            n, m = tables[rows]
            cols = [gast.Tuple([gast.Subscript(_at(rows, _const(i)), _const(j), gast.Load())
                                for i in range(n)], gast.Load()) for j in range(m)]
            made = _located(gast.Tuple(cols, gast.Load()), node)
            made.transposed = True
            return made

    Zips().visit(tree)


def zip_targets(tree, namer, builtin):
    """`for c in zip(a, b)` with one name: unpacked into fresh names (module docstring)."""
    if not builtin("zip", zip):
        return

    def arity(node):
        it = node.iter
        if isinstance(node.target, gast.Name) and isinstance(it, gast.Call) \
                and isinstance(it.func, gast.Name) and it.func.id == "zip" and it.args \
                and not it.keywords and not any(isinstance(a, gast.Starred) for a in it.args):
            return len(it.args)
        return 0

    def display(names, like):
        return _located(gast.Tuple([_name(m) for m in names], gast.Load()), like)

    for node in list(gast.walk(tree)):
        if isinstance(node, gast.For) and arity(node):
            c = node.target.id
            names = [namer.fresh(f"{c}_{j}") for j in range(arity(node))]
            node.target = _located(gast.Tuple([_name(m, True) for m in names], gast.Store()),
                                   node.target)
            node.body.insert(0, _assign(_name(c, True), display(names, node), node))
        elif isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            for gen in node.generators:
                if not arity(gen):
                    continue
                c = gen.target.id
                names = [namer.fresh(f"{c}_{j}") for j in range(arity(gen))]
                gen.target = _located(gast.Tuple([_name(m, True) for m in names],
                                                 gast.Store()), gen.target)

                class Reads(gast.NodeTransformer):
                    def visit_Name(self, n):
                        if n.id == c and isinstance(n.ctx, gast.Load):
                            return display(names, n)
                        return n
                k = node.generators.index(gen)
                node.elt = Reads().visit(node.elt)
                for g in node.generators[k:]:
                    g.ifs = [Reads().visit(x) for x in g.ifs]
                    if g is not gen:
                        g.iter = Reads().visit(g.iter)


def sorted_keys(tree, builtin):
    """`sorted(E, key=lambda p: k)` with the keys listed (module docstring)."""
    if not builtin("sorted", sorted):
        return
    for n in gast.walk(tree):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "sorted" \
                and len(n.args) == 1 and (isinstance(n.args[0], gast.Name) or _range1(n.args[0])):
            for k in n.keywords:
                a = k.value.args if isinstance(k.value, gast.Lambda) else None
                if k.arg == "key" and a is not None and len(a.args) == 1 and not (
                        a.vararg or a.kwarg or a.kwonlyargs or a.defaults):
                    k.value = _located(_comp(k.value.body, a.args[0].id,
                                             copy.deepcopy(n.args[0])), k.value)


def _range1(e):
    return isinstance(e, gast.Call) and isinstance(e.func, gast.Name) and e.func.id == "range" \
        and len(e.args) == 1 and not e.keywords


def constant_lists(tree):
    """`names.index(c)`, `names[k]`, `len(names)` of a list display of constants assigned
    once and read only so: the constants (module docstring); the display removed."""
    displays, stores = {}, {}
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], gast.Name) \
                and isinstance(n.value, (gast.List, gast.Tuple)) and n.value.elts and all(
                    isinstance(e, gast.Constant) for e in n.value.elts):
            displays[n.targets[0].id] = [e.value for e in n.value.elts]
    nested = _nested_names(tree)
    cands = {k: v for k, v in displays.items() if stores.get(k) == 1 and k not in nested}
    if not cands:
        return
    parents = {}
    for p in gast.walk(tree):
        for c in gast.iter_child_nodes(p):
            parents[c] = p

    def value_of(use):
        """The constant a read `use` (a Name node) means, or None."""
        p = parents.get(use)
        items = cands[use.id]
        if isinstance(p, gast.Attribute) and p.attr == "index":
            call = parents.get(p)
            if isinstance(call, gast.Call) and call.func is p and len(call.args) == 1 \
                    and not call.keywords and isinstance(call.args[0], gast.Constant) \
                    and call.args[0].value in items:
                return call, items.index(call.args[0].value)
        if isinstance(p, gast.Subscript) and p.value is use and isinstance(p.slice, gast.Constant) \
                and isinstance(p.slice.value, int) and -len(items) <= p.slice.value < len(items):
            return p, items[p.slice.value]
        if isinstance(p, gast.Call) and isinstance(p.func, gast.Name) and p.func.id == "len" \
                and p.args == [use]:
            return p, len(items)
        return None

    for name in list(cands):
        uses = [n for n in gast.walk(tree) if isinstance(n, gast.Name) and n.id == name
                and isinstance(n.ctx, gast.Load)]
        found = [value_of(u) for u in uses]
        if not uses or any(f is None for f in found):
            continue
        for node, value in found:
            parent = parents[node]
            for field, old in gast.iter_fields(parent):
                if old is node:
                    setattr(parent, field, gast.copy_location(_const(value), node))
                elif isinstance(old, list):
                    old[:] = [gast.copy_location(_const(value), node) if o is node else o
                              for o in old]
        for blockholder in gast.walk(tree):
            for field in ("body", "orelse"):
                block = getattr(blockholder, field, None)
                if isinstance(block, list):
                    block[:] = [s for s in block if not (
                        isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                        and s.targets[0].id == name)]


# -- statements editing a list --------------------------------------------------------------


def _int_const(e):
    if isinstance(e, gast.Constant) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub) \
            and isinstance(e.operand, gast.Constant) and isinstance(e.operand.value, int):
        return -e.operand.value
    return None


def statement(s, lists, namer):
    """The statements a list edit `s` means (module docstring), or None."""
    if isinstance(s, gast.Expr):
        call, target = s.value, None
    elif isinstance(s, gast.Assign) and len(s.targets) == 1:
        call, target = s.value, s.targets[0]
    else:
        return None
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
            and isinstance(call.func.value, gast.Name) and call.func.value.id in lists
            and (not call.keywords or call.func.attr == "sort")):
        return None
    xs, method, args = call.func.value.id, call.func.attr, call.args
    k = namer.fresh("k")
    if method == "pop" and len(args) <= 1:
        i = _int_const(args[0]) if args else -1
        if i is None:
            return None
        got = target if target is not None else _name(namer.fresh(f"{xs}_popped"), True)
        out = [_assign(got, _at(xs, _const(i) if i >= 0 else gast.UnaryOp(gast.USub(),
                                                                          _const(-i))), s)]
        n1 = _binop(_len(xs), gast.Sub(), _const(1))
        if i == -1:
            rest = _comp(_at(xs, _name(k)), k, _call("range", n1))
        elif i == 0:
            rest = _comp(_at(xs, _binop(_name(k), gast.Add(), _const(1))), k, _call("range", n1))
        else:
            at = _const(i) if i >= 0 else _binop(_len(xs), gast.Sub(), _const(-i))
            rest = _comp(_at(xs, _name(k)), k, _call("range", _len(xs)),
                         [gast.Compare(_name(k), [gast.NotEq()], [at])])
        return out + [_assign(_name(xs, True), rest, s)]
    if target is not None:
        return None
    if method == "sort" and not args and all(k.arg in ("key", "reverse") for k in call.keywords):
        # xs.sort(key=..., reverse=...): xs = sorted(xs, ...), the keys listed (`sorted_keys`)
        keywords = []
        for kw in call.keywords:
            value = kw.value
            a = value.args if isinstance(value, gast.Lambda) else None
            if kw.arg == "key" and a is not None:
                if len(a.args) != 1 or a.vararg or a.kwarg or a.kwonlyargs or a.defaults:
                    return None
                value = _comp(value.body, a.args[0].id, _name(xs))
            elif kw.arg == "key" and not (isinstance(value, gast.Constant) and value.value is None):
                return None
            keywords.append(gast.keyword(kw.arg, value))
        return [_assign(_name(xs, True), gast.Call(_name("sorted"), [_name(xs)], keywords), s)]
    if method == "reverse" and not args:
        back = _binop(_binop(_len(xs), gast.Sub(), _const(1)), gast.Sub(), _name(k))
        return [_assign(_name(xs, True), _comp(_at(xs, back), k, _call("range", _len(xs))), s)]
    if method == "insert" and len(args) == 2:
        i = _int_const(args[0])
        if i is None or i < 0:
            return None
        new = namer.fresh(f"{xs}_inserted")
        cut = _call("min", _const(i), _len(xs))
        j = namer.fresh("k")
        append = lambda v: _located(gast.Expr(gast.Call(  # noqa: E731
            gast.Attribute(_name(new), "append", gast.Load()), [v], [])), s)
        return [_assign(_name(new, True), _comp(_at(xs, _name(k)), k, _call("range", cut)), s),
                append(args[1]),
                _located(gast.For(_name(j, True), _call("range", copy.deepcopy(cut), _len(xs)),
                                  [append(_at(xs, _name(j)))], [], None), s),
                _assign(_name(xs, True), _name(new), s)]
    return None


# -- item writes into list locals, repeated displays ------------------------------------------


def _read_only_item(e) -> bool:
    """Whether `e` is a number constant, a name, an attribute of names (`math.inf`) or one of
    those negated: read the same (one object) however many times a comprehension reads it."""
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, (gast.USub, gast.UAdd)):
        e = e.operand
    while isinstance(e, gast.Attribute):
        e = e.value
    return isinstance(e, gast.Name) or (isinstance(e, gast.Constant) and not isinstance(
        e.value, bool) and isinstance(e.value, (int, float)))


def repeated_displays(tree, namer):
    """`[c] * n` / `n * [c]` with `c` a number constant, a name or an attribute of names, or
    one of those negated (`[-1e30] * n`, `[neg] * n`, `[-math.inf] * n`):
    `[c for _ in range(n)]` (the same items: reading a name n times gives the one object it
    means, as Python's repeated list holds n references to it; a display of a call,
    `[np.zeros(3)] * n`, holds n references to one object, which a comprehension would not:
    left as it is)."""
    class Displays(gast.NodeTransformer):
        def visit_BinOp(self, node):
            self.generic_visit(node)
            for item, n in _one_item_times(node):
                if _read_only_item(item) and not isinstance(n, (gast.List, gast.Tuple)):
                    k = namer.fresh("k")
                    return _located(_comp(copy.deepcopy(item), k, _call("range", n)), node)
            return node

    Displays().visit(tree)


_SAFE_CALLS = {"len", "sum", "sorted", "list", "tuple", "enumerate", "zip", "reversed", "max",
               "min", "range"}


def unshared_lists(tree, lists) -> set:
    """The list locals of `lists` no other variable can see: read only by indexing, their
    own methods, iteration, `return` and as arguments of builtins / `np.` functions that
    make new values -- never assigned to another name, put in a display or passed to a
    helper that might keep them; and no item write inside a `for` loop over the list itself
    (Python's loop sees the writes; `range(len(xs))` is no loop over it). Writing an item
    into such a list can rebind the name to a new list of the same items but one
    (`item_write`)."""
    parents = {}
    for n in gast.walk(tree):
        for c in gast.iter_child_nodes(n):
            parents[id(c)] = n
    out = set(lists) - _nested_names(tree)
    for n in gast.walk(tree):
        if not (isinstance(n, gast.Name) and n.id in out and isinstance(n.ctx, gast.Load)):
            continue
        p = parents.get(id(n))
        if isinstance(p, gast.Subscript) and p.value is n:
            continue
        if isinstance(p, gast.Attribute) and p.value is n:
            continue
        if isinstance(p, (gast.For, gast.comprehension)) and p.iter is n or \
                isinstance(p, gast.Return):
            continue
        if isinstance(p, gast.Call) and n in p.args and (
                isinstance(p.func, gast.Name) and p.func.id in _SAFE_CALLS
                or isinstance(p.func, gast.Attribute) and isinstance(p.func.value, gast.Name)
                and p.func.value.id in ("np", "numpy")):
            continue
        out.discard(n.id)
    for loop in gast.walk(tree):
        if isinstance(loop, gast.For):
            counted = {id(c.args[0]) for c in gast.walk(loop.iter) if isinstance(c, gast.Call)
                       and isinstance(c.func, gast.Name) and c.func.id == "len" and c.args}
            # (range(len(xs)) is evaluated once: a loop over it does not see the writes)
            over = {e.id for e in gast.walk(loop.iter) if isinstance(e, gast.Name)
                    and id(e) not in counted}
            for s in gast.walk(loop):
                t = s.targets[0] if isinstance(s, gast.Assign) and len(s.targets) == 1 else \
                    s.target if isinstance(s, gast.AugAssign) else None
                if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) \
                        and t.value.id in over:
                    out.discard(t.value.id)
    return out


def written_before_rebound(tree, lists) -> set:
    """Names not in `lists` that are lists until rebound to another list's name: every store
    of `xs` is a display or comprehension (`xs = [...]`) or a name (`xs = new`, in a loop:
    a recursion's next row), and every item write `xs[i] = v` is in a statement of the
    function's body before the first one that rebinds it to a name. Until then `xs` is its
    own list (what `unshared_lists` then asks of its reads); afterwards it shares the other
    name's list, and nothing writes into it there."""
    stores, made, rebound = store_counts(tree), {}, {}
    for k, top in enumerate(tree.body):
        for n in gast.walk(top):
            if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], gast.Name):
                name = n.targets[0].id
                if isinstance(n.value, (gast.List, gast.ListComp)):
                    made[name] = made.get(name, 0) + 1
                elif isinstance(n.value, gast.Name) and n.value.id != name:
                    rebound.setdefault(name, []).append(k)
    params = param_names(tree)
    out = set()
    for name, at in rebound.items():
        if name in lists or name in params or not made.get(name) \
                or stores[name] != made[name] + len(at):
            continue
        writes = [k for k, top in enumerate(tree.body) for n in gast.walk(top)
                  if isinstance(n, (gast.Assign, gast.AugAssign))
                  and any(isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)
                          and t.value.id == name
                          for t in (n.targets if isinstance(n, gast.Assign) else [n.target]))]
        if writes and max(writes) < min(at):
            out.add(name)
    return out


def item_write(s, lists, namer):
    """`xs[i] = v` / `xs[i] op= v` of a list local `xs` no other variable sees
    (`unshared_lists`), `i` an index (not a slice): `v` (and `i`) into fresh names, Python's
    IndexError where `i` is out of range, then `xs` the list of the same items with the one at
    `i` (or `len(xs) + i` for a negative `i`) replaced -- what Python's list holds after the
    write. None for any other statement."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1:
        t, value = s.targets[0], s.value
    elif isinstance(s, gast.AugAssign):
        t = s.target
        value = None
    else:
        return None
    if not (isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name)
            and t.value.id in lists and not isinstance(t.slice, (gast.Slice, gast.Tuple))):
        return None
    xs = t.value.id
    i, v, k = namer.fresh("i"), namer.fresh(f"{xs}_item"), namer.fresh("k")
    out = [_assign(_name(i, True), copy.deepcopy(t.slice), s)]
    if value is None:           # xs[i] op= v: the item read, then the operation
        value = gast.BinOp(_at(xs, _name(i)), s.op, s.value)
    out.append(_assign(_name(v, True), value, s))
    n = _len(xs)
    inside = gast.Compare(gast.UnaryOp(gast.USub(), n), [gast.LtE(), gast.Lt()],
                          [_name(i), _len(xs)])
    fail = gast.Raise(gast.Call(_name("IndexError"),
                                [_const("list assignment index out of range")], []), None)
    out.append(_located(gast.If(gast.UnaryOp(gast.Not(), inside), [_located(fail, s)], []), s))
    hit = gast.BoolOp(gast.Or(), [gast.Compare(_name(k), [gast.Eq()], [_name(i)]),
                                  gast.Compare(_binop(_name(k), gast.Sub(), _len(xs)),
                                               [gast.Eq()], [_name(i)])])
    new = _comp(gast.IfExp(hit, _name(v), _at(xs, _name(k))), k, _call("range", _len(xs)))
    out.append(_assign(_name(xs, True), new, s))
    return out


def _one_item_times(e):
    """The (item, count) readings of `e` as `[item] * count` / `count * [item]`, in that
    order (none unless `e` multiplies a one-item list display)."""
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.Mult):
        for seq, n in ((e.left, e.right), (e.right, e.left)):
            if isinstance(seq, gast.List) and len(seq.elts) == 1:
                yield seq.elts[0], n


def _none_display(e):
    """The length `n` of `[None] * n` / `n * [None]`, or None."""
    for item, n in _one_item_times(e):
        if isinstance(item, gast.Constant) and item.value is None:
            return n
    return None


def _filler_length(e):
    """`n` of a list whose items are only placeholders until written: `[None] * n`, or a
    comprehension `[v for k in range(n)]` whose item does not read `k` (`[0.0] * n` is one,
    `repeated_displays`; `[np.zeros(d) for _ in range(n)]`); else None."""
    n = _none_display(e)
    if n is not None:
        return n
    if isinstance(e, gast.ListComp) and len(e.generators) == 1:
        gen = e.generators[0]
        it = gen.iter
        if isinstance(gen.target, gast.Name) and not gen.ifs and not gen.is_async \
                and isinstance(it, gast.Call) and isinstance(it.func, gast.Name) \
                and it.func.id == "range" and len(it.args) == 1 and not it.keywords \
                and not _mentions(e.elt, gen.target.id):
            return it.args[0]
    return None


def _slot(target, xs):
    """The index of a write `xs[...] = v` (a Subscript target of `xs`), or None."""
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
            and target.value.id == xs and isinstance(target.ctx, gast.Store):
        return target.slice
    return None


def _offset(index, t):
    """c where `index` is `t`, `t + c` or `c + t` (c an int constant >= 0), else None."""
    if isinstance(index, gast.Name) and index.id == t:
        return 0
    if isinstance(index, gast.BinOp) and isinstance(index.op, gast.Add):
        for a, b in ((index.left, index.right), (index.right, index.left)):
            if isinstance(a, gast.Name) and a.id == t and _int_const(b) is not None \
                    and _int_const(b) >= 0:
                return _int_const(b)
    return None


def _stores(nodes) -> set:
    return {n.id for s in nodes for n in gast.walk(s) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Del))}


def _mentions(node, xs) -> bool:
    return any(isinstance(n, gast.Name) and n.id == xs for n in gast.walk(node))


def filled_in_order(tree):
    """`hs = [None] * n` filled in order, then read: `hs = []` and appends (below).
    Where, in one block, `hs = [None] * n` (or a list of placeholders `[0.0] * n`,
    `[np.zeros(d) for _ in range(n)]`: `_filler_length`, none of them ever read) is the only
    assignment of `hs`, followed (hs not
    read in between) by `c` writes `hs[0] = v0`, ..., `hs[c - 1] = v` and then a loop
    `for t in range(m)` where `n` is `m` (c = 0) or `m + c` (the same text, its names
    assigned neither in between nor in the loop), whose body writes `hs[t + c] = v` once,
    as one of its own statements, reads (or writes) `hs` only as `hs[t + c]` after that write
    (the last item then), has no
    `break` or `continue` of its own and does not assign `t`: each write puts the next item
    (Python's list holds every item written, in order, when the loop ends), so the list is
    `hs = []` with `.append(v)` for each write -- the same list after the loop, never a None
    in it (which jitad could not type), no placeholder made only to be replaced, and each
    write an append, not a new list (`item_write`). Anything else is left as it is."""
    nested = _nested_names(tree)
    stores = store_counts(tree)
    for node in list(gast.walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                _fill_block(block, stores, nested)


def _fill_block(block, stores, nested):
    for j, s in enumerate(block):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name)):
            continue
        n = _filler_length(s.value)
        xs = s.targets[0].id
        if n is None or stores.get(xs) != 1 or xs in nested:
            continue
        prefix, k = [], j + 1
        while k < len(block) and isinstance(block[k], gast.Assign) \
                and len(block[k].targets) == 1 and _slot(block[k].targets[0], xs) is not None \
                and _int_const(_slot(block[k].targets[0], xs)) == len(prefix) \
                and not _mentions(block[k].value, xs):
            prefix.append(block[k])
            k += 1
        while k < len(block) and not _mentions(block[k], xs):
            k += 1
        if k == len(block):
            continue
        loop = block[k]
        if not (isinstance(loop, gast.For) and isinstance(loop.target, gast.Name)
                and not loop.orelse and isinstance(loop.iter, gast.Call)
                and isinstance(loop.iter.func, gast.Name) and loop.iter.func.id == "range"
                and len(loop.iter.args) == 1 and not loop.iter.keywords):
            continue
        t, m, c = loop.target.id, loop.iter.args[0], len(prefix)
        want = m if c == 0 else gast.BinOp(m, gast.Add(), _const(c))
        if gast.dump(want) != gast.dump(n) or _mentions(m, xs):
            continue
        if (_stores(block[j + 1:k + 1]) | {t}) & {e.id for e in gast.walk(m)
                                                 if isinstance(e, gast.Name)}:
            continue
        writes = [w for w in loop.body if isinstance(w, gast.Assign) and len(w.targets) == 1
                  and _slot(w.targets[0], xs) is not None]
        if len(writes) != 1 or _offset(_slot(writes[0].targets[0], xs), t) != c \
                or _mentions(writes[0].value, xs) or t in _stores(loop.body):
            continue
        if not _fill_loop_ok(loop, writes[0], xs, t, c):
            continue
        s.value = _located(gast.List([], gast.Load()), s.value)
        for w in prefix + writes:
            w_new = _located(gast.Expr(gast.Call(gast.Attribute(_name(xs), "append",
                                                                gast.Load()), [w.value], [])), w)
            for blk in (block, loop.body):
                for q, x in enumerate(blk):
                    if x is w:
                        blk[q] = w_new


def _fill_loop_ok(loop, write, xs, t, c) -> bool:
    """The loop body of `filled_in_order`: no break / continue of its own, `xs` read or
    written only as `xs[t + c]` in statements after the write (its last item then)."""
    def own(node):
        yield node
        for ch in gast.iter_child_nodes(node):
            if not isinstance(ch, (gast.For, gast.While, gast.FunctionDef, gast.Lambda)):
                yield from own(ch)
    for s in loop.body:
        if any(isinstance(n, (gast.Break, gast.Continue)) for n in own(s)):
            return False
    after = False
    for s in loop.body:
        if s is write:
            after = True
            continue
        for n in gast.walk(s):
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                    and n.value.id == xs:      # after the write, the last item: xs[t + c]
                if not (after and _offset(n.slice, t) == c):
                    return False
        reads = [n for n in gast.walk(s) if isinstance(n, gast.Name) and n.id == xs]
        subs = [n.value for n in gast.walk(s) if isinstance(n, gast.Subscript)
                and isinstance(n.value, gast.Name) and n.value.id == xs]
        if len(reads) != len(subs):
            return False
    return True
