"""Lists a function builds: `hs = []`, `[a, b]`, comprehensions, `hs.append(h)`, and where a
list may go (the part of ANF lowering that knows which names are lists).

Takes: the `Normalizer` state (a mixin of it: `expr`, `bind`, `stmt`, `temp`, `err`, `namer`).
Guarantees: a name assigned a list display, a list comprehension, `np.split(...)` /
`np.array_split(...)` or another list name anywhere in the function is a list everywhere
(`list_names`, `is_list_value`; assigning it anything else is an error at that line),
except the idiom `xs = np.array(xs)` once at the top level after the list is complete, which
makes two variables of the name (`list_phases`). (Lists of tuples were made a list per
position before this, by `tuple_lists`.) A
list is made by `LIST_NEW` and grown by `LIST_APPEND`; a display `[a, b]` is the new list and
one append per element; a comprehension `[e for x in xs if c]` is the new list and a `for`
loop (with its `if`) appending `e`, its variables renamed so they never clash with the
function's own (Python scopes them to the comprehension); `np.split(x, k)` is the new list
and a counted loop appending the k slices (`split_list`). `u = hs` makes `u` the same list
(a `COPY`), allowed only where `hs` is not read again before it gets a new list
(`dead_after`; else a `JitadError`): one adjoint list per name stays mirrored.
`sum(e for x in xs)` is the sum of that list. A list goes to `len`, `hs[i]` (one integer),
`a, b = hs`, `for x in hs` (and `zip`, `enumerate`; a `zip` with constant tuples is unrolled,
`list_zip_loop`), NumPy's stacking functions
(`np.stack/array/asarray/concatenate/vstack/hstack`, their own list primitives) and any other
NumPy function, which reads it as `np.array(hs)`, as NumPy does (`LIST_STACK`). A list crosses
calls of user helpers: a list name or a comprehension given as an argument makes that
parameter a list in the helper (the form ("list",): `list_parameters`, `given` to
`list_names`), and a helper whose `return` gives a list value makes its call a list value in
the caller (`returned_lists`, read from the helper's source, also for `hs, s = helper(...)`);
a helper never appends to, returns or renames a list it was given, as the caller's list would
change under it. Anywhere else -- an operator (`hs * 2` repeats a list in Python),
`hs[i] = v` -- is a `JitadError`.
Invariants: nothing here depends on types (a list's element type comes from its appends, in
`typeinfer`); a caller and its helper agree on which values are lists, as both read them with
`is_list_value`/`is_list_argument`.
"""
from __future__ import annotations

import builtins
import copy

import gast
import numpy as np

from .library import (AXIS_SPLITS, SPLIT_BACK, SPLIT_FRONT, SPLITS, lists_as_tuples,
                      split_cuts, static_value)
from .slices import own_nodes
from .structs import Struct
from ..capture import MISSING
from ..errors import JitadError
from ..ir import Const, For, If, Slice, Var
from ..primitives import COPY, GETITEM, get
from ..primitives.lists import (LIST_APPEND, LIST_COLUMN_STACK, LIST_CONCAT, LIST_CONCAT_AXIS,
                                LIST_HSTACK, LIST_NEW, LIST_STACK, LIST_VSTACK)

LT, AND = get("lt"), get("bitand")
LEN, DIM, FLOORDIV, MOD, MUL, ADD, MIN2, MOVEAXIS, CHECK_SPLIT, CHECK_SECTIONS = (
    get(n) for n in ("len", "dim", "floordiv", "mod", "mul", "add", "min2", "np.moveaxis",
                     "check_split", "check_sections"))
_STACK_OF = {np.stack: LIST_STACK, np.array: LIST_STACK, np.asarray: LIST_STACK,
             np.concatenate: LIST_CONCAT, np.vstack: LIST_VSTACK, np.hstack: LIST_HSTACK,
             np.column_stack: LIST_COLUMN_STACK}
_DISPLAYS = (gast.List, gast.ListComp)


def list_calls(tree, namer, resolve, err, introduced, structured=frozenset()):
    """The tree with every `list(E)` that makes a list written as the comprehension it means:
    `[v for v in E]` (an array's rows or elements, a list, a range, a tuple, a structure's
    items), `[(a, b) for a, b in zip(A, B)]` and `[(i, v) for i, v in enumerate(E)]` (lists
    of tuples, see `tuple_lists`), `list()` as `[]`. Where `list(E)` is only iterated (a `for`
    loop's or a comprehension's iterable, `reversed(list(E))`) it is E itself: the same items
    in the same order. The builtin `sorted(E)` (an array's elements or a list of numbers;
    `reverse=` a constant) is `list(np.sort(E))` (`np.sort(E)[::-1]` reversed; ties then in
    the other order, the same values), with `key=` (a lambda `desugar` made the list of
    keys) E's items gathered by the stable argsort of the keys (`keyed`): a list, so `sorted(x) * 2` is refused as a list's
    repetition, never a product; `np.sort` goes in `introduced` under a fresh name --
    except `sorted(p)`, `sorted(p.items())` ... of a name in `structured` (a dict or tuple
    argument: `structs` sorts its keys). The tree is copied if anything is rewritten."""
    def is_list_call(n):
        if isinstance(n, gast.Call) and resolve(n.func) is builtins.sorted and n.args:
            root = n.args[0]
            while isinstance(root, (gast.Call, gast.Attribute)):
                root = root.func if isinstance(root, gast.Call) else root.value
            if isinstance(root, gast.Name) and root.id in structured:
                return False
        return isinstance(n, gast.Call) and resolve(n.func) in (builtins.list, builtins.sorted)

    if not any(is_list_call(n) for n in gast.walk(tree)):
        return tree
    tree = copy.deepcopy(tree)

    def keyed(node, keys, reverse):
        """sorted(E, key=lambda p: k) of E a name or range(n), which `desugar` made sorted(E, key=[k for p in
        E]) (the keys listed): [E[i] for i in np.argsort(np.array(keys), kind="stable")] (keys
        negated for reverse=True: Python's sort is stable both ways, so ties keep E's order),
        E's items in the order Python's sort gives."""
        E = node.args[0]
        ranked = isinstance(E, gast.Call) and resolve(E.func) is builtins.range \
            and len(E.args) == 1      # sorted(range(n), key=...): the order itself
        if not ((isinstance(E, gast.Name) or ranked) and isinstance(keys, gast.ListComp)):
            err(node, "sorted(E, key=...) is supported with E a name and the key a lambda of one "
                      "parameter (sorted(xs, key=lambda v: abs(v)))", "sorted()")
        where = lambda new: gast.copy_location(new, node)  # noqa: E731
        names = {}
        for fn, base in ((np.argsort, "argsort"), (np.array, "array")):
            names[base] = namer.fresh(base)
            introduced[names[base]] = fn
        keys = gast.Call(gast.Name(names["array"], gast.Load(), None, None), [keys], [])
        if reverse:
            keys = gast.UnaryOp(gast.USub(), keys)
        i = namer.fresh("rank")
        order = gast.Call(gast.Name(names["argsort"], gast.Load(), None, None), [keys],
                          [gast.keyword("kind", gast.Constant("stable", None))])
        item = gast.Name(i, gast.Load(), None, None) if ranked else gast.Subscript(
            gast.Name(E.id, gast.Load(), None, None), gast.Name(i, gast.Load(), None, None),
            gast.Load())
        made = gast.ListComp(item,
                             [gast.comprehension(gast.Name(i, gast.Store(), None, None), order,
                                                 [], 0)])
        for n in gast.walk(made):
            if getattr(n, "lineno", None) is None:
                where(n)
        return made

    def sorted_items(node):
        """The array sorted(E) lists: np.sort(E), reversed for reverse=True."""
        kw = {k.arg: k.value for k in node.keywords}
        reverse = static_value(kw.pop("reverse"), resolve) if "reverse" in kw else False
        key = kw.pop("key", None)
        if kw or len(node.args) != 1 or not isinstance(reverse, bool):
            err(node, "sorted() is supported as sorted(x) of an array or a list of numbers, "
                      "with a constant reverse= and a lambda key=", "sorted()")
        if key is not None and not (isinstance(key, gast.Constant) and key.value is None):
            return keyed(node, key, reverse)
        name = namer.fresh("sort")
        introduced[name] = np.sort
        where = lambda new: gast.copy_location(new, node)  # noqa: E731
        items = where(gast.Call(where(gast.Name(name, gast.Load(), None, None)),
                                [node.args[0]], []))
        if reverse:
            items = where(gast.Subscript(items, where(gast.Slice(
                None, None, where(gast.Constant(-1, None)))), gast.Load()))
        return items

    class Rewrite(gast.NodeTransformer):
        def visit_For(self, node):
            if is_list_call(node.iter) and resolve(node.iter.func) is builtins.sorted:
                node.iter = sorted_items(node.iter)
            elif is_list_call(node.iter) and len(node.iter.args) == 1 \
                    and not node.iter.keywords:
                node.iter = node.iter.args[0]
            return self.generic_visit(node)

        def visit_comprehension(self, node):
            return self.visit_For(node)

        def visit_Call(self, node):
            if resolve(node.func) is builtins.reversed and len(node.args) == 1 \
                    and is_list_call(node.args[0]) and len(node.args[0].args) == 1:
                node.args[0] = node.args[0].args[0]
            if not is_list_call(node):
                return self.generic_visit(node)
            if resolve(node.func) is builtins.sorted:
                node = gast.copy_location(gast.Call(node.func, [sorted_items(node)], []), node)
            elif node.keywords or len(node.args) > 1:
                err(node, "list() is supported as list(iterable): list(x) of an array's rows "
                          "or elements, list(range(n)), list(zip(A, B)), list(enumerate(x)), "
                          "list(hs) of a list, list(t) of a tuple", "list()")
            where = lambda new: gast.copy_location(new, node)  # noqa: E731
            if not node.args:
                return where(gast.List([], gast.Load()))
            it = self.visit(node.args[0])
            k = 1
            if isinstance(it, gast.Call) and not it.keywords:
                fn = resolve(it.func)
                k = len(it.args) if fn is builtins.zip else 2 if fn is builtins.enumerate else 1
            names = [namer.fresh("item") for _ in range(k)]

            def names_in(ctx):
                ns = [where(gast.Name(n, ctx(), None, None)) for n in names]
                return ns[0] if k == 1 else where(gast.Tuple(ns, ctx()))
            return where(gast.ListComp(names_in(gast.Load), [
                gast.comprehension(names_in(gast.Store), it, [], 0)]))

    Rewrite().visit(tree)
    return tree


def stacked_rows(tree, resolve):
    """The tree with each comprehension of rows given to np.array or np.asarray
    (`np.array([[k(a, b) for b in B] for a in A])`, a row a comprehension or a list written
    out) making each row an array by the same call, as NumPy reads a list of lists: the rows
    are a list of arrays then. The tree is copied if anything is rewritten.
    A name assigned such a comprehension once and read only by np.array / np.asarray
    (`rows = [[...] for i in ...]` ... `np.array(rows)`) has its rows made arrays the same way
    (nothing else reads the list, so a list of arrays and a list of lists are one value)."""
    def rows_comp(n):
        return isinstance(n, gast.ListComp) and isinstance(n.elt, (gast.ListComp, gast.List))

    def to_array(n):
        return (isinstance(n, gast.Call) and len(n.args) == 1 and not n.keywords
                and resolve(n.func) in (np.array, np.asarray))

    def named_rows(t):
        """id of each such named comprehension -> the func node of a call reading it."""
        stores, comps, readers, loads = {}, {}, {}, {}
        for n in gast.walk(t):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                stores[n.id] = stores.get(n.id, 0) + 1
            elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                loads[n.id] = loads.get(n.id, 0) + 1
            if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], gast.Name) and rows_comp(n.value):
                comps[n.targets[0].id] = n.value
            if to_array(n) and isinstance(n.args[0], gast.Name):
                readers.setdefault(n.args[0].id, []).append(n)
        return {id(comp): readers[name][0].func for name, comp in comps.items()
                if stores.get(name) == 1 and len(readers.get(name, ())) == loads.get(name)}

    if not named_rows(tree) and not any(to_array(n) and rows_comp(n.args[0])
                                        for n in gast.walk(tree)):
        return tree
    tree = copy.deepcopy(tree)
    named = named_rows(tree)

    def rows(comp, func):
        comp.elt = gast.copy_location(gast.Call(copy.deepcopy(func), [comp.elt], []), comp.elt)

    class Rewrite(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if to_array(node) and rows_comp(node.args[0]):
                rows(node.args[0], node.func)
                node.args[0].elt = self.visit(node.args[0].elt)
            return node

        def visit_ListComp(self, node):
            self.generic_visit(node)
            if id(node) in named:
                rows(node, named[id(node)])
            return node

    Rewrite().visit(tree)
    return tree


def list_phases(tree, namer, resolve, given=()):
    """(tree, {new name: user's name}): `xs = []; ... xs.append(x) ...; xs = np.array(xs)` -- a list name
    made an array once, at the function's top level, after every display and append of it --
    is two variables: the list (renamed `xs_list` up to and including that assignment's
    right-hand side) and the array after. The tree is copied if anything is renamed."""
    body = tree.body
    renames = {}
    names = list_names(tree, resolve, given)
    _is_display = lambda v: is_list_value(v, resolve, names)  # noqa: E731
    for name in sorted(names):
        rebinds = [k for k, s in enumerate(body) if _assigns(s, name) and not _is_display(s.value)]
        if len(rebinds) != 1:
            continue
        r = rebinds[0]
        if any(_grows(s, name, _is_display) for s in body[r + 1:]) or any(
                isinstance(n, gast.Assign) and _assigns(n, name) and not _is_display(n.value)
                for s in body[:r] for n in gast.walk(s)):
            continue
        renames[name] = (r, namer.fresh(f"{name}_list"))
    if not renames:
        return tree, {}
    tree = copy.deepcopy(tree)
    for name, (r, new) in renames.items():
        for part in tree.body[:r] + [tree.body[r].value]:
            for n in gast.walk(part):
                if isinstance(n, gast.Name) and n.id == name:
                    n.id = new
    return tree, {new: name for name, (_, new) in renames.items()}


def _assigns(s, name):
    return isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
        and s.targets[0].id == name


def is_list_value(value, resolve, lists=(), makers=()):
    """Whether an assigned value makes a list: a display, a comprehension, `np.split(...)` /
    `np.array_split(...)`, a name in `lists`, a call of a user helper that returns a list
    (`returns_list`) or of a function defined in the function named in `makers`
    (`nested_list_makers`)."""
    if isinstance(value, _DISPLAYS):
        return True
    if isinstance(value, gast.Name):
        return value.id in lists
    if not isinstance(value, gast.Call):
        return False
    if isinstance(value.func, gast.Name) and value.func.id in makers:
        return True
    fn = resolve(value.func)
    return fn in SPLITS or returns_list(fn, value, lists)


def is_list_argument(node, lists) -> bool:
    """Whether a call's argument is a list the function built: a list name or a comprehension
    (a display `[a, b]` is a structure, `structs`)."""
    return (isinstance(node, gast.Name) and node.id in lists) or isinstance(node, gast.ListComp)


def list_parameters(params, call, lists) -> frozenset:
    """The parameters (names, in order `params`) that `call` gives a list (`is_list_argument`)."""
    out = set()
    for p, a in zip(params, call.args):
        if isinstance(a, gast.Starred):
            break
        if is_list_argument(a, lists):
            out.add(p)
    out.update(k.arg for k in call.keywords if k.arg in params and is_list_argument(k.value, lists))
    return frozenset(out)


_RETURNING = set()      # (helper, list parameters) whose `returns_list` is being decided


def returns_list(fn, call, lists) -> bool:
    """Whether `call`, of the user helper `fn`, returns a list (`return hs`)."""
    return returned_lists(fn, call, lists) == (True,)


def returned_lists(fn, call, lists) -> tuple:
    """Which values `call`, of the user helper `fn`, returns are lists: one flag per value a
    `return` gives ((True,) for `return hs`, (True, False) for `return hs, total`), a value a
    list where any `return` gives a list value there (`is_list_value` in the helper, its
    parameters given lists by `call` counted as lists); () where none is. Read from the
    helper's source, once per (helper, list parameters); a recursion counts its own calls as
    returning no list."""
    from ..capture import capture
    from ..pipeline import cache_of
    from .calls import is_user_helper, source_resolver
    if not is_user_helper(fn):
        return ()
    fn = getattr(fn, "__jitad_function__", fn)
    cache = cache_of(fn)
    cap = cache.get("returned_lists_source")      # parsed once per function object
    if cap is None:
        try:
            cap = cache["returned_lists_source"] = capture(fn)
        except JitadError:
            return ()
    given = list_parameters(cap.params, call, lists)
    key = ("returned_lists", given)
    if key in cache:
        return cache[key]
    if (id(fn), given) in _RETURNING:
        return ()
    _RETURNING.add((id(fn), given))
    try:
        resolve = source_resolver(cap)
        names = list_names(cap.tree, resolve, given)
        flags = ()
        for n in own_nodes(cap.tree):
            if isinstance(n, gast.Return) and n.value is not None:
                vals = n.value.elts if isinstance(n.value, gast.Tuple) else [n.value]
                mine = tuple(is_list_value(v, resolve, names) for v in vals)
                flags = tuple(a or b for a, b in zip(flags, mine)) \
                    if len(flags) == len(mine) else (flags if any(flags) else mine)
        got = flags if any(flags) else ()
    finally:
        _RETURNING.discard((id(fn), given))
    cache[key] = got
    return got


def list_targets(assign, resolve, lists, makers=()) -> set:
    """The names an assignment gives lists: `hs = [...]` and the like (`is_list_value`), each
    name of `a, b = [], []`, and the list positions of `hs, total = helper(...)`
    (`returned_lists`)."""
    out = set()
    for t, v in list_pairs(assign):
        if isinstance(t, gast.Name) and is_list_value(v, resolve, lists, makers):
            out.add(t.id)
        elif isinstance(t, gast.Tuple) and isinstance(v, gast.Call):
            flags = returned_lists(resolve(v.func), v, lists)
            if len(flags) == len(t.elts):
                out.update(e.id for e, f in zip(t.elts, flags) if f and isinstance(e, gast.Name))
    return out


def _grows(stmt, name, is_list):
    """Whether the statement makes `name` a list or appends to it (at any depth)."""
    for n in gast.walk(stmt):
        if isinstance(n, gast.Assign) and _assigns(n, name) and is_list(n.value):
            return True
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr == "append" and isinstance(n.func.value, gast.Name) \
                and n.func.value.id == name:
            return True
    return False


def list_names(tree, resolve, given=()) -> set:
    """The names assigned a list somewhere in the function (`is_list_value`; also in
    `a, b = [], []`), the names assigned one of them (`state = new_state`), the names
    assigned a call of a function defined in it that returns a list (`t = terms(x)`:
    `nested_list_makers`), and `given` (the parameters a call gives lists)."""
    assigns = [n for n in gast.walk(tree) if isinstance(n, gast.Assign)]
    makers = nested_list_makers(tree, resolve)
    names = set(given)
    while True:
        more = {t for n in assigns for t in list_targets(n, resolve, names, makers)}
        if more <= names:
            return names
        names |= more


def nested_list_makers(tree, resolve) -> set:
    """The names of the functions defined in `tree` (at any depth) one of whose `return`s
    gives a list it made (`is_list_value` over its own `list_names`): what a call of one
    returns is a list, as `returns_list` says of a helper's call (the nested function is
    lifted to a helper only when the front end reaches its `def`, after the list names are
    known)."""
    out = set()
    for d in gast.walk(tree):
        if not isinstance(d, gast.FunctionDef) or d is tree:
            continue
        inner = list_names(d, resolve)
        todo = list(d.body)
        while todo:
            n = todo.pop()
            if isinstance(n, gast.Return) and n.value is not None \
                    and is_list_value(n.value, resolve, inner):
                out.add(d.name)
                break
            if not isinstance(n, (gast.FunctionDef, gast.Lambda)):
                todo.extend(gast.iter_child_nodes(n))
    return out


def list_pairs(assign):
    """(target, value) of an assignment, element by element for `a, b = x, y`."""
    t, v = assign.targets[0], assign.value
    if isinstance(t, gast.Tuple) and isinstance(v, gast.Tuple) and len(t.elts) == len(v.elts):
        return list(zip(t.elts, v.elts))
    return [(t, v)]


def _appended_names(stmts) -> set:
    return {n.func.value.id for s in stmts for n in gast.walk(s)
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
            and n.func.attr == "append" and isinstance(n.func.value, gast.Name)}


def _mentions(node, name) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(node))


def _kills(stmt, name) -> bool:
    """Whether the statement gives `name` a new value without reading its old one."""
    return isinstance(stmt, gast.Assign) and not _mentions(stmt.value, name) and any(
        isinstance(t, gast.Name) and t.id == name for t, _ in list_pairs(stmt))


def _next_touch(stmts, name):
    """"kill" if `name` is assigned before anything reads it in `stmts`, "use" if it may be
    read (or appended to) first, None if no path through the statements mentions it. An `if`
    kills it when both branches do; a loop whose body kills it first kills it when it surely
    runs (a `for` over a range of constant, non-empty bounds), else what follows decides (a
    loop that runs again kills it again before any read)."""
    for s in stmts:
        if _kills(s, name):
            return "kill"
        if isinstance(s, gast.If):
            if _mentions(s.test, name):
                return "use"
            body, orelse = _next_touch(s.body, name), _next_touch(s.orelse, name)
            if "use" in (body, orelse):
                return "use"
            if body == orelse == "kill":
                return "kill"
        elif isinstance(s, (gast.For, gast.While)):
            head = (s.target, s.iter) if isinstance(s, gast.For) else (s.test,)
            if any(_mentions(h, name) for h in head):
                return "use"
            body, orelse = _next_touch(s.body, name), _next_touch(s.orelse, name)
            if "use" in (body, orelse):
                return "use"
            if body == "kill" and _surely_runs(s):
                return "kill"
        elif _mentions(s, name):
            return "use"
    return None


def _surely_runs(s) -> bool:
    """Whether loop `s` is a `for` over `range(...)` of constant, non-empty int bounds."""
    if not (isinstance(s, gast.For) and isinstance(s.iter, gast.Call)
            and isinstance(s.iter.func, gast.Name) and s.iter.func.id == "range"
            and not s.iter.keywords and 1 <= len(s.iter.args) <= 3):
        return False
    bounds = []
    for a in s.iter.args:
        if isinstance(a, gast.UnaryOp) and isinstance(a.op, gast.USub):
            a, sign = a.operand, -1
        else:
            sign = 1
        if not (isinstance(a, gast.Constant) and type(a.value) is int):
            return False
        bounds.append(sign * a.value)
    return (len(bounds) < 3 or bounds[2] != 0) and len(range(*bounds)) > 0


def dead_after(tree, stmt, name) -> bool:
    """Whether no path from `stmt` (a statement of the function `tree`) reads `name` before
    assigning it: the rest of its block, then for an enclosing loop its next iteration (the
    body from the start, a `while` test) and what follows the loop, up to the function's end.
    Conservative: a mention anywhere in a statement counts as a read."""
    where = {}

    def index(block, owner):
        for i, s in enumerate(block):
            where[id(s)] = (block, i, owner)
            for field in ("body", "orelse"):
                sub = getattr(s, field, None)
                if isinstance(sub, list):
                    index(sub, s)
    index(tree.body, None)
    if id(stmt) not in where:
        return False
    block, i, owner = where[id(stmt)]
    rest = block[i + 1:]
    while True:
        touch = _next_touch(rest, name)
        if touch is not None:
            return touch == "kill"
        if owner is None:
            return True
        if isinstance(owner, (gast.For, gast.While)):
            if isinstance(owner, gast.While) and _mentions(owner.test, name):
                return False
            # (None: no path through the body touches it -- a loop in it may not run)
            if _next_touch(owner.body, name) == "use":
                return False
        block, i, owner = where[id(owner)]
        rest = block[i + 1:]


class ListForms:
    """The list half of `anf.Normalizer` (see the module docstring)."""

    def is_list_node(self, node) -> bool:
        return (isinstance(node, gast.Name) and node.id in self.lists) or isinstance(
            node, (gast.ListComp, gast.GeneratorExp)) or self.is_list_call(node)

    def passes_list(self, node) -> bool:
        """Whether a helper's argument is a list: one the function built (`is_list_argument`,
        as `returns_list` reads the call too) or one a helper returns."""
        return is_list_argument(node, self.lists) or self.is_list_call(node)

    def is_list_call(self, node) -> bool:
        """Whether `node` calls a user helper, or a nested function (its lifted helper),
        that returns a list (`returns_list`)."""
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id in self.nested:
            return returns_list(self.nested[node.func.id][0], node, self.lists)
        return isinstance(node, gast.Call) and self.user_callee(node.func) is not None \
            and returns_list(self.resolve_func(node.func), node, self.lists)

    def list_misuse(self, node):
        self.err(node, f"the list '{node.id}' is used as a value here; a list goes to len(), "
                       f"{node.id}[i], for loops, NumPy functions (np.array({node.id}), "
                       f"np.stack({node.id}), np.sum({node.id}), ...) and helpers (as an "
                       "argument, or as the value returned)", "list value")

    def returned(self, node):
        """A value of a `return`: a list goes back whole (`return hs`, `return [a, b]`, a
        comprehension, `return hs, total`), to a caller that reads it as a list
        (`returned_lists`)."""
        if not (isinstance(node, gast.List) or self.is_list_node(node)):
            return self.expr(node, "out")
        if isinstance(node, gast.Name) and node.id in self.given_lists:
            self.err(node, f"returning the list '{node.id}' a caller gave: the caller would "
                           "hold one list under two names; return a copy "
                           f"([h for h in {node.id}])", "list value")
        return self.list_value(node, "out")

    # -- making lists ------------------------------------------------------------------
    def assign_list(self, name, value, node):
        """name = [a, b] / [] / [e for x in xs] / np.split(x, k): a new list, then its elements
        appended."""
        if self.is_list_call(value):       # hs = helper(...): the list it returns
            return self.expr_into(value, name)
        if isinstance(value, gast.Call):
            return self.split_list(name, value, node)
        if isinstance(value, gast.Name):
            return self.rebind_list(name, value, node)
        if any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(value)):
            # values = [f(values[j + 1], values[j]) for j in ...]: the elements read the old
            # list, so the new one is built under another name and takes the name after
            self.bind(node, name, COPY, (self.list_value(value, name),))
            return
        self.bind(node, name, LIST_NEW, ())
        if isinstance(value, gast.List):
            for e in value.elts:
                self.bind(e, name, LIST_APPEND, (Var(name), self.expr(e, name)))
        else:
            self.comprehension(name, value)

    def rebind_list(self, name, value, node):
        """state = new_state: the name takes the other's list (the same list, as in Python).
        The other name must not be read again before it is given a new list (`dead_after`):
        two names of one list would grow apart in the adjoint, which keeps one adjoint list
        per name."""
        if value.id == name:
            return
        if value.id in self.given_lists:
            self.err(node, f"'{value.id}' is a list a caller gave: `{name} = {value.id}` would "
                           f"make two names of the caller's list; copy it ({name} = [h for h "
                           f"in {value.id}])", "list alias")
        if not dead_after(self.tree, node, value.id):
            self.err(node, f"'{value.id}' is used after `{name} = {value.id}`: the two names "
                           f"would be one list; give '{value.id}' a new list first "
                           f"({value.id} = [] ...), or copy it ({name} = [h for h in "
                           f"{value.id}])", "list alias")
        self.bind(node, name, COPY, (Var(value.id),))

    def split_list(self, name, call, node):
        """name = np.split(x, k, axis=a) / np.array_split(...): the list of the k slices along
        the axis, appended in a counted loop (k need not be constant). np.split's parts are
        equal (its length must divide); np.array_split's first n % k parts are one longer."""
        fn = self.resolve_func(call.func)
        what = f"np.{fn.__name__}"
        which = AXIS_SPLITS.get(fn)
        kw = {k.arg: k.value for k in call.keywords}
        if len(call.args) != 2 or set(kw) - ({"axis"} if which is None else set()):
            self.err(call, f"{what}(x, k) takes an array and a number of sections (and axis=)")
        k_static = static_value(lists_as_tuples(call.args[1]), self.resolve_func)
        axis = self.static(kw["axis"], call, "axis=") if "axis" in kw else 0
        if not isinstance(axis, int) or isinstance(axis, bool):
            self.err(call, f"{what}'s axis= must be a constant integer", what)
        cuts = split_cuts(k_static)
        if cuts is not None:    # constant split points: the parts made one by one
            parts = [self.temp(name, f"part{j}") for j in range(len(cuts) + 1)]
            self.split_at(node, parts, call, fn, cuts, axis)
            self.bind(node, name, LIST_NEW, ())
            for part in parts:
                self.bind(node, name, LIST_APPEND, (Var(name), Var(part)))
            return
        if isinstance(call.args[1], (gast.List, gast.Tuple)) or (
                k_static is not MISSING and not isinstance(k_static, int)):
            self.err(call, f"{what}(x, k) is supported with k a number of sections or constant "
                           "split points", what)
        arr = self.expr(call.args[0], name)
        k = self.expr(call.args[1], name)
        tmp = lambda op: self.temp(name, op)  # noqa: E731
        if which is not None:       # the axis the rank sets, moved to the front (see forms)
            arr = self.bind(node, tmp("front"), SPLIT_FRONT, (arr,), statics={"which": which})
        n = self.bind(node, tmp("dim"), DIM, (arr, Const(axis)))
        self.bind(node, tmp("check"), CHECK_SECTIONS if fn is np.array_split else CHECK_SPLIT,
                  (n, k))
        size = self.bind(node, tmp("size"), FLOORDIV, (n, k))
        rem = self.bind(node, tmp("rem"), MOD, (n, k)) if fn is np.array_split else None
        if axis < 0:    # counted from the end: slice the axis moved to the front, move it back
            arr = self.bind(node, tmp("moved"), MOVEAXIS, (arr,),
                            statics={"source": (axis,), "destination": (0,)})
        self.bind(node, name, LIST_NEW, ())
        j = self.namer.fresh(f"{name}_j")
        self.locals.add(j)
        saved, self.out = self.out, []

        def start(at):          # where part `at` starts: at * size (+ min(at, rem))
            lo = self.bind(node, tmp("lo"), MUL, (at, size))
            if rem is not None:
                lo = self.bind(node, tmp("lo"), ADD, (lo, self.bind(node, tmp("extra"), MIN2,
                                                                   (at, rem))))
            return lo
        lo = start(Var(j))
        hi = start(self.bind(node, tmp("next"), ADD, (Var(j), Const(1))))
        index = (Slice(lo, hi),) if axis < 0 else (Slice(),) * axis + (Slice(lo, hi),)
        part = self.bind(node, tmp("part"), GETITEM, (arr,) + index)
        if axis < 0:
            part = self.bind(node, tmp("part"), MOVEAXIS, (part,),
                             statics={"source": (0,), "destination": (axis,)})
        elif which is not None:
            part = self.bind(node, tmp("part"), SPLIT_BACK, (part,), statics={"which": which})
        self.bind(node, name, LIST_APPEND, (Var(name), part))
        body, self.out = self.out, saved
        self.emit(For(j, Const(0), k, Const(1), body, self.cap.loc(node)))

    def comprehension(self, name, comp):
        """[elt for t in it if c ...] appended to the list `name`, as nested for loops."""
        rename = {}
        for gen in comp.generators:
            for n in gast.walk(gen.target):
                if isinstance(n, gast.Name):
                    rename.setdefault(n.id, self.namer.fresh(n.id))
        self.locals |= set(rename.values())

        def renamed(e):
            e = copy.deepcopy(e)
            for n in gast.walk(e):
                if isinstance(n, gast.Name) and n.id in rename:
                    n.id = rename[n.id]
            return e

        where = lambda new: gast.copy_location(new, comp)  # noqa: E731
        append = gast.Call(where(gast.Attribute(where(gast.Name(name, gast.Load(), None, None)),
                                                "append", gast.Load())),
                           [renamed(comp.elt)], [])
        body = [where(gast.Expr(where(append)))]
        for k in reversed(range(len(comp.generators))):
            gen = comp.generators[k]
            for test in reversed(gen.ifs):
                body = [where(gast.If(renamed(test), body, []))]
            it = gen.iter if k == 0 else renamed(gen.iter)   # the first is read outside
            body = [where(gast.For(renamed(gen.target), it, body, [], None))]
        for s in body:
            self.stmt(s)

    def list_value(self, node, hint):
        """The list a list node means (a list name, or a comprehension made into a new list)."""
        if isinstance(node, gast.Name):
            return Var(node.id)
        name = self.namer.fresh(f"{hint}_list")
        self.lists.add(name)
        self.locals.add(name)
        self.assign_list(name, node, node)
        return Var(name)

    def append(self, stmt):
        """hs.append(e) as a statement."""
        call = stmt.value
        lst = call.func.value
        if not (isinstance(lst, gast.Name) and lst.id in self.lists):
            self.err(stmt, ".append() is supported on a list the function builds "
                           "(hs = [] ... hs.append(h))", ".append()")
        if lst.id in self.given_lists and not self.stores.get(lst.id):
            self.err(stmt, f"appending to the list '{lst.id}' a caller gave: the caller's list "
                           "would change; build a new list here and return it", ".append()")
        if len(call.args) != 1 or call.keywords:
            self.err(call, "list.append() takes one argument")
        self.bind(stmt, lst.id, LIST_APPEND, (Var(lst.id),
                                              self.expr(call.args[0], lst.id)))

    def list_zip_loop(self, node) -> bool:
        """for name, h in zip(("a", "b"), hs): a zip of lists with constant tuples or tuple
        arguments (each item may be a different constant or shape), unrolled as far as the
        shortest of those goes; the lists' elements are read at each unrolled step, which runs
        only if every list is that long (zip stops at the shortest). True if done."""
        it = node.iter
        if not (isinstance(it, gast.Call) and self.resolve_func(it.func) is zip
                and not it.keywords and it.args
                and any(isinstance(a, gast.Name) and a.id in self.lists for a in it.args)):
            return False
        fixed = {}
        for k, a in enumerate(it.args):
            if isinstance(a, gast.Name) and a.id in self.lists:
                continue
            v = static_value(a, self.resolve_func)
            if isinstance(v, tuple):
                fixed[k] = [Const(x) for x in v]
                continue
            st = self.struct_of(a, literal=True)
            if st is None or not hasattr(st, "items"):
                return False
            fixed[k] = self.iterated(st)
        if not fixed:
            return False
        for sub in node.body:
            for n in gast.walk(sub):
                if isinstance(n, (gast.Break, gast.Continue)):
                    self.err(n, "break/continue in a loop over zip() of a constant tuple (which "
                                "jitad unrolls) is not supported", "break in an unrolled loop")
        grown = _appended_names(node.body)
        lens = {}
        for k, a in enumerate(it.args):
            if k not in fixed:
                if a.id in grown:
                    self.err(a, f"the loop appends to the list '{a.id}' it runs over",
                             "for loop over a list")
                lens[k] = self.bind(a, self.namer.fresh(f"{a.id}_n"), LEN, (Var(a.id),))
        inside = {n.id for sub in node.body for n in gast.walk(sub)
                  if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        scoped = {n.id for n in gast.walk(node.target) if isinstance(n, gast.Name)} - inside
        loc = self.cap.loc(node)
        for step in range(min(len(v) for v in fixed.values())):
            saved, self.out = self.out, []
            items = []
            for k, a in enumerate(it.args):
                items.append(fixed[k][step] if k in fixed else self.bind(
                    a, self.namer.fresh(f"{a.id}_item"), GETITEM, (Var(a.id), Const(step))))
            self.bind_target(node.target, Struct("seq", items), node, scoped)
            for sub in node.body:
                self.stmt(sub)
            body, self.out = self.out, saved
            test = None
            for k, n in lens.items():     # this step runs if every list holds it
                c = self.bind(node, self.namer.fresh("cond"), LT, (Const(step), n))
                test = c if test is None else self.bind(node, self.namer.fresh("cond"), AND,
                                                        (test, c))
            self.emit(If(test.name, body, [], loc))
        for name in scoped:
            if self.stores[name] > 1 or name in self.branch_stores:
                self.structs.pop(name, None)
        return True

    # -- where lists go ----------------------------------------------------------------
    def is_list_slice(self, node) -> bool:
        return isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice) \
            and isinstance(node.value, gast.Name) and node.value.id in self.lists

    def list_slice(self, node, hint):
        """hs[a:b:c] where an array goes (np.array(hs[::-1]), for h in hs[1:]): the slice of
        np.array(hs), the same elements in the same order."""
        stacked = self.bind(node, self.temp(hint, "stack"), LIST_STACK, (Var(node.value.id),))
        return self.bind(node, self.temp(hint, "getitem"), GETITEM,
                         (stacked,) + self.index(node.slice, hint))

    def array_arg(self, node, hint):
        """An array operand of a NumPy function: a list is read as np.array(list)."""
        if self.is_list_slice(node):
            return self.list_slice(node, hint)
        if self.is_list_node(node):
            lst = self.list_value(node, hint)
            return self.bind(node, self.temp(hint, "stack"), LIST_STACK, (lst,))
        if isinstance(node, gast.List) and node.elts:   # np.diag([1.0, 1.0, d]): written out
            return self.stack(node, hint, lambda op: self.temp(hint, op))
        return self.expr(node, hint)

    def list_call(self, node, fn, kw, hint, dest):
        """A call with a list as its only argument that means something of its own: the
        stacking functions, len(), sum(); None for any other call."""
        if len(node.args) == 1 and self.is_list_slice(node.args[0]) and not kw:
            # sum(hs[1:]), np.array(hs[::-1]): of the slice of the stacked list
            if fn is builtins.sum:
                return self.reduce(node, get("sum"), self.list_slice(node.args[0], hint), 0,
                                   False, {}, hint, dest)
            if _STACK_OF.get(fn) is LIST_STACK:
                return self.list_slice(node.args[0], hint)
        if len(node.args) != 1 or not self.is_list_node(node.args[0]):
            return None
        if fn is builtins.len and not kw:
            return self.bind(node, dest("len"), LEN, (self.list_value(node.args[0], hint),))
        if fn is builtins.sum and not kw:
            # sum(hs): hs[0] + hs[1] + ... (an empty list sums to 0), the stack summed on axis 0
            stacked = self.array_arg(node.args[0], hint)
            return self.reduce(node, get("sum"), stacked, 0, False, {}, hint, dest)
        prim = _STACK_OF.get(fn)
        if prim is None:
            return None
        dtype = kw.pop("dtype", None)
        if dtype is not None and (prim is not LIST_STACK
                                  or self.resolve_func(dtype) not in (float, np.float64)):
            self.err(node, "dtype= is only supported as np.array(..., dtype=float)")
        axis = self.static(kw.pop("axis"), node, "axis=") if "axis" in kw else 0
        if kw or not isinstance(axis, int) or (axis != 0 and prim not in (LIST_STACK, LIST_CONCAT)):
            self.err(node, f"{fn.__name__} of a list is supported along axis 0 (np.stack and "
                           "np.concatenate along any axis)", f"np.{fn.__name__}")
        lst = self.list_value(node.args[0], hint)
        if axis == 0:
            return self.bind(node, dest("stack"), prim, (lst,))
        if prim is LIST_CONCAT:     # np.concatenate(heads, axis=-1)
            return self.bind(node, dest("concat"), LIST_CONCAT_AXIS, (lst,),
                             statics={"axis": axis})
        # np.stack(hs, axis=k): the stack along axis 0, its first axis moved to k
        stacked = self.bind(node, self.temp(hint, "stack"), prim, (lst,))
        return self.bind(node, dest("moveaxis"), get("np.moveaxis"), (stacked,),
                         statics={"source": (0,), "destination": (axis,)})
