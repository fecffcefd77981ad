"""Local dicts with constant keys, as one variable per key (scalar replacement of an aggregate),
rewritten when a function is captured (by `desugar`, before `fence`).

Takes: a function's `def` tree (gast, the user's line numbers) and a `names.Namer` over every
name in it.
Guarantees: a local name `d` qualifies when every assignment to it is a dict display whose keys
are constant strings or ints (`d = {}`, `d = {"W": W, "b": b + 1}`) and its every other use is
  * `d[k]` with a constant key: read, written (`d["h"] = v`) or updated (`d["h"] += v`);
  * `len(d)`, a `for` loop over `d`, `d.keys()`, `d.values()` or `d.items()` whose body
    has no `break`/`continue` of its own, assigns no key target, and whose key target is read
    nowhere else (inside it, `d[k]` of the key target is a read with a constant key), those
    views elsewhere (`sum(np.sum(v) for v in d.values())`), and `d` handed whole to a function
    (`layer(params, x)`) or returned whole (`return loss, d`) -- these need the keys to be
    the same on every path: every display has the same keys in the same order and writes add
    none, or the one display's block adds them before;
and it is read in no nested function. Such a `d` becomes one fresh variable per key (`d_W`,
`d_b`): a display is one tuple assignment of its values to them (evaluated first, as Python
evaluates a display before it binds it), `d[k]` is the key's variable, `len(d)` the number of
keys, and a loop over `d` is its body once per key, in insertion order, the key target replaced
by the key and the value target assigned the key's variable first; a view elsewhere is a tuple
written out (of the keys, the variables, or (key, variable) pairs), and `d` handed whole (or
returned) a dict written out of the variables (`fence` lets such a display through as a call's
argument, and the helper takes it as a dict argument, `structs`; or as a returned value, which
`anf` returns flat with its structure). A dict nested in a dict
(`d = {"enc": {"W": W}}`) is rewritten level by level. The value read is Python's wherever
Python reads one (a key read before any write of it is the variable's read before assignment).
Invariants: a name that does not qualify is left as it was (`structs.local_dict` builds it
when the function is specialized, where its keys are known -- `out[name] = ...` in a loop
over a dict argument -- or refuses it at its line); fresh names never collide with the function's names; the rewrite keeps each
statement's line.
"""
from __future__ import annotations

import copy
import re

import gast

from .desugar import sub_blocks
from .gast_build import store_counts

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_VIEWS = ("keys", "values", "items")


def rewrite_dicts(tree, namer, builtin) -> dict:
    """Rewrite every qualifying local dict of `tree` in place; {fresh name: the code it stands
    for}. `builtin(name, obj)`: whether `name`, read in the function, is that builtin."""
    shown = {}
    for _ in range(8):          # a dict nested in a dict: level by level
        parents = _parents(tree)
        done = False
        for name in _candidates(tree):
            if _merge_aliases(tree, name):
                parents = _parents(tree)
            plan = _plan(tree, name, parents, builtin)
            if plan is not None:
                shown.update(_apply(tree, name, plan, namer))
                done = True
                break           # the tree changed: parents again
        if not done:
            break
    return shown


def _merge_aliases(tree, name) -> bool:
    """`e = d` of a dict `d` assigned once, and `e` assigned nowhere else: `e` is that dict
    wherever it is read (a read before it would be Python's NameError), so its reads become
    `d` and the statement goes. Whether one went. Inside a loop (a new dict each time round)
    only an alias made in the display's block after it with nothing but simple statements in
    between (no `break`, `continue` or `return`: each time the display runs, so does the
    alias; none reading the alias), as `d = {"enc": {...}}; enc = d["enc"]` becomes once the outer dict is split."""
    stores = store_counts(tree)
    if stores.get(name) != 1 or name in {a.id for a in tree.args.args}:
        return False
    parents = _parents(tree)
    display = next(n for n in gast.walk(tree) if isinstance(n, gast.Name) and n.id == name
                   and isinstance(n.ctx, gast.Store))
    stmt = parents.get(id(display))
    up, in_loop = stmt, False
    while up is not None:           # made once: every alias is of that one dict
        if isinstance(up, (gast.For, gast.While)):
            in_loop = True
        up = parents.get(id(up))
    for node in gast.walk(tree):
        if isinstance(node, _SCOPES) and node is not tree:
            continue
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for i, s in enumerate(block):
                if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                        and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Name) \
                        and s.value.id == name and stores.get(s.targets[0].id) == 1 \
                        and s.targets[0].id not in {a.id for a in tree.args.args}:
                    if in_loop and not _follows(block, stmt, i, s.targets[0].id):
                        continue
                    alias = s.targets[0].id
                    block[i] = gast.copy_location(gast.Pass(), s)
                    for n in gast.walk(tree):
                        if isinstance(n, gast.Name) and n.id == alias:
                            n.id = name
                    return True
    return False


def _follows(block, stmt, i, alias) -> bool:
    """Whether statement `stmt` is in `block` before position i with only simple statements
    (assignments, expressions) between them, none reading `alias` (there it is still the
    dict of the time round before)."""
    at = next((k for k, s in enumerate(block) if s is stmt), None)
    return at is not None and at < i and all(
        isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Pass))
        and not any(isinstance(n, gast.Name) and n.id == alias for n in gast.walk(s))
        for s in block[at + 1:i])


def _parents(tree):
    out = {}
    for node in gast.walk(tree):
        for child in gast.iter_child_nodes(node):
            out[id(child)] = node
    return out


def _candidates(tree):
    seen = []
    for node in gast.walk(tree):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) and isinstance(node.value, gast.Dict) \
                and node.targets[0].id not in seen:
            seen.append(node.targets[0].id)
    return seen


def _key(node):
    """The constant key a node is (a str or an int), or None."""
    if isinstance(node, gast.Constant) and type(node.value) in (str, int):
        return node.value
    return None


class _Plan:
    def __init__(self):
        self.displays, self.subscripts, self.loops, self.lens = [], [], [], []
        self.wholes = []        # the name given whole as a call's argument
        self.views = []         # d.keys()/values()/items() not looped over by a `for`
        self.keys = []          # every key, in order of first appearance


def _returned(node, parents) -> bool:
    """Whether `node` is a `return`'s value or inside tuple and dict displays that are one
    (`return loss, {"aux": d}`): the function returns it whole (`anf.returned_structure`)."""
    up = parents.get(id(node))
    while isinstance(up, (gast.Tuple, gast.Dict)) and not isinstance(
            getattr(up, "ctx", None), gast.Store) and not (
            isinstance(up, gast.Dict) and any(k is node for k in up.keys)):
        node, up = up, parents.get(id(up))
    return isinstance(up, gast.Return) and up.value is node


def _plan(tree, name, parents, builtin):
    """How `name` is used, if it qualifies (see the module docstring); else None."""
    plan = _Plan()
    params = {a.id for a in tree.args.args}
    if name in params:
        return None
    loop_keys = {}              # id(For) -> its key target's name
    for node in gast.walk(tree):
        if not (isinstance(node, gast.Name) and node.id == name):
            continue
        if _in_nested_scope(node, parents, tree):
            return None
        up = parents.get(id(node))
        if isinstance(node.ctx, gast.Store):
            if not (isinstance(up, gast.Assign) and len(up.targets) == 1 and up.targets[0] is node
                    and isinstance(up.value, gast.Dict)):
                return None
            keys = [_key(k) if k is not None else None for k in up.value.keys]
            if any(k is None for k in keys) or len(set(keys)) != len(keys):
                return None
            plan.displays.append(up)
            plan.keys += [k for k in keys if k not in plan.keys]
            continue
        if isinstance(up, gast.Subscript) and up.value is node:
            k = _key(up.slice)
            if k is None and isinstance(up.slice, gast.Name):
                loop = _enclosing_loop_over(up, name, up.slice.id, parents)
                if loop is None:
                    return None
                plan.subscripts.append(up)
                continue
            if k is None:
                return None
            plan.subscripts.append(up)
            if _written(up, parents) and k not in plan.keys:
                plan.keys.append(k)
            continue
        if isinstance(up, gast.Call) and node in up.args and len(up.args) == 1 \
                and not up.keywords and isinstance(up.func, gast.Name) \
                and builtin(up.func.id, len):
            plan.lens.append(up)
            continue
        if (isinstance(up, gast.Call) and any(a is node for a in up.args)) or (
                isinstance(up, gast.keyword) and up.value is node):
            plan.wholes.append(node)        # handed to a function whole: written out there
            continue
        if _returned(node, parents):
            plan.wholes.append(node)        # returned whole: written out there too
            continue
        loop = _loop_of(node, up, parents)
        if loop is None:
            view = parents.get(id(up)) if isinstance(up, gast.Attribute) else None
            if isinstance(view, gast.Call) and view.func is up and up.attr in _VIEWS \
                    and not view.args and not view.keywords:
                plan.views.append(view)     # d.values() elsewhere: a tuple written out
                continue
            return None
        kind, key_t, value_t = loop
        for_node = _for_of(node, parents)
        if key_t is not None and not isinstance(key_t, gast.Name):
            return None
        if _breaks(for_node.body) or (key_t is not None and _stores(for_node.body, key_t.id)):
            return None
        if key_t is not None and _read_elsewhere(tree, key_t.id, for_node, parents):
            return None
        plan.loops.append((for_node, kind, key_t, value_t))
        if key_t is not None:
            loop_keys[id(for_node)] = key_t.id
    if not plan.displays:
        return None
    # a key read (or updated) that nothing writes would be Python's KeyError: refused
    if any(_key(sub.slice) not in plan.keys for sub in plan.subscripts
           if _key(sub.slice) is not None and not _written(sub, parents)):
        return None
    if (plan.loops or plan.lens or plan.wholes or plan.views) \
            and not _same_keys_where_read(plan, parents):
        return None
    # a subscript by a name is only the key target of a loop over this dict
    for sub in plan.subscripts:
        if isinstance(sub.slice, gast.Name):
            loop = _enclosing_loop_over(sub, name, sub.slice.id, parents)
            if loop is None or loop_keys.get(id(loop)) != sub.slice.id:
                return None
    return plan


def _same_keys_where_read(plan, parents) -> bool:
    """Whether the loops over the dict and its `len`s see one key tuple, `plan.keys`: every
    display has those keys in that order; or there is one display and the writes adding keys
    are statements of its block after it (`d = {}`, `d["W"] = W`, `d["b"] = b`), each loop or
    `len` in a statement of that block after the last of them."""
    first = [_key(k) for k in plan.displays[0].value.keys]
    if all([_key(k) for k in d.value.keys] == first for d in plan.displays) and plan.keys == first:
        return True
    if len(plan.displays) != 1:
        return False
    display = plan.displays[0]
    block = _block_of(display, parents)
    if block is None:
        return False
    at = {id(s): i for i, s in enumerate(block)}
    last = at[id(display)]
    for sub in plan.subscripts:
        k = _key(sub.slice)
        if k is not None and _written(sub, parents) and k not in first:
            stmt = parents.get(id(sub))
            if not (isinstance(stmt, gast.Assign) and id(stmt) in at and at[id(stmt)] > last):
                return False
            last = at[id(stmt)]
    for use in [loop for loop, *_ in plan.loops] + plan.lens + plan.wholes + plan.views:
        top = use
        while top is not None and id(top) not in at:
            top = parents.get(id(top))
        if top is None or at[id(top)] <= last:
            return False
    return True


def _written(sub, parents) -> bool:
    """Whether a subscript of the dict is the target of an assignment (`d["h"] = v`: it may
    add the key; not `d["h"] += v`, which reads it first)."""
    return isinstance(sub.ctx, gast.Store) and not isinstance(parents.get(id(sub)), gast.AugAssign)


def _block_of(stmt, parents):
    up = parents.get(id(stmt))
    for field in ("body", "orelse", "finalbody"):
        block = getattr(up, field, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    return None


def _in_nested_scope(node, parents, tree):
    up = parents.get(id(node))
    while up is not None and up is not tree:
        if isinstance(up, _SCOPES):
            return True
        up = parents.get(id(up))
    return False


def _loop_of(node, up, parents):
    """(kind, key target, value target) when `node` (the dict's name) is what a `for` loops
    over: `for k in d`, `for k in d.keys()`, `for v in d.values()`, `for k, v in d.items()`."""
    it = node
    kind = "keys"
    if isinstance(up, gast.Attribute) and up.value is node and up.attr in _VIEWS:
        call = parents.get(id(up))
        if not (isinstance(call, gast.Call) and call.func is up and not call.args
                and not call.keywords):
            return None
        it, kind = call, up.attr
    loop = parents.get(id(it))
    if not (isinstance(loop, gast.For) and loop.iter is it):
        return None
    t = loop.target
    if kind == "keys":
        return kind, t, None
    if kind == "values":
        return kind, None, t
    if isinstance(t, gast.Tuple) and len(t.elts) == 2:
        return kind, t.elts[0], t.elts[1]
    return None


def _for_of(node, parents):
    up = parents.get(id(node))
    while not isinstance(up, gast.For):
        up = parents.get(id(up))
    return up


def _enclosing_loop_over(node, name, key, parents):
    """The `for` over dict `name` whose key target is `key`, enclosing `node`; or None."""
    up = parents.get(id(node))
    while up is not None:
        if isinstance(up, gast.For):
            it = up.iter
            base = it.func.value if isinstance(it, gast.Call) and isinstance(it.func, gast.Attribute) \
                and it.func.attr in ("keys", "items") else it
            t = up.target.elts[0] if isinstance(up.target, gast.Tuple) and up.target.elts else up.target
            if isinstance(base, gast.Name) and base.id == name and isinstance(t, gast.Name) \
                    and t.id == key:
                return up
        if isinstance(up, _SCOPES):
            return None
        up = parents.get(id(up))
    return None


def _breaks(block) -> bool:
    """A `break` or `continue` of this loop's own (not of a loop nested in it)."""
    for s in block:
        if isinstance(s, (gast.Break, gast.Continue)):
            return True
        if isinstance(s, (gast.For, gast.While)) or isinstance(s, _SCOPES):
            continue
        if any(_breaks(sub) for sub in sub_blocks(s)):
            return True
    return False


def _stores(block, name) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, (gast.Store, gast.Del))
               for s in block for n in gast.walk(s))


def _read_elsewhere(tree, name, loop, parents) -> bool:
    """Whether `name` (a loop's key target) is read outside the loop, other than inside
    another loop that binds it (a second `for k in d`)."""
    inside = {id(n) for n in gast.walk(loop)}

    def rebound(n):
        up = parents.get(id(n))
        while up is not None:
            if isinstance(up, gast.For) and any(isinstance(t, gast.Name) and t.id == name
                                                for t in gast.walk(up.target)):
                return True
            up = parents.get(id(up))
        return False
    return any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               and id(n) not in inside and not rebound(n) for n in gast.walk(tree))


def _ident(key) -> str:
    text = re.sub(r"\W", "_", str(key)) or "key"
    return text


def _apply(tree, name, plan, namer) -> dict:
    fresh = {k: namer.fresh(f"{name}_{_ident(k)}") for k in plan.keys}
    shown = {v: f"{name}[{k!r}]" for k, v in fresh.items()}

    def var(k, ctx):
        return gast.Name(fresh[k], ctx, None, None)

    # loops first: their bodies' `d[k]` of the key target become constant keys
    for loop, kind, key_t, value_t in plan.loops:
        bodies = []
        for k in plan.keys:
            body = copy.deepcopy(loop.body)
            if key_t is not None:
                body = [_substitute(s, key_t.id, k) for s in body]
            if value_t is not None:
                first = gast.Assign([copy.deepcopy(value_t)], var(k, gast.Load()))
                bodies.append(gast.copy_location(first, loop))
            bodies += body
        _replace_statement(tree, loop, bodies + loop.orelse)
    # a display reading the dict itself (`d = {"a": d["b"]}`) binds its values together
    together = {id(n): any(isinstance(x, gast.Name) and x.id == name for v in n.value.values
                           for x in gast.walk(v))
                for n in gast.walk(tree) if isinstance(n, gast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], gast.Name) and n.targets[0].id == name
                and isinstance(n.value, gast.Dict)}
    for node in list(gast.walk(tree)):
        for field, child in gast.iter_fields(node):
            kids = child if isinstance(child, list) else [child]
            for i, c in enumerate(kids):
                new = None
                if isinstance(c, gast.Subscript) and isinstance(c.value, gast.Name) \
                        and c.value.id == name and _key(c.slice) is not None:
                    new = var(_key(c.slice), c.ctx)
                elif isinstance(c, gast.Call) and isinstance(c.func, gast.Name) \
                        and c.func.id == "len" and len(c.args) == 1 \
                        and isinstance(c.args[0], gast.Name) and c.args[0].id == name:
                    # (`_plan` saw that a len of the dict is the builtin)
                    new = gast.Constant(len(plan.keys), None)
                elif isinstance(c, gast.Call) and isinstance(c.func, gast.Attribute) \
                        and isinstance(c.func.value, gast.Name) and c.func.value.id == name \
                        and c.func.attr in _VIEWS:
                    new = _view(c.func.attr, plan.keys, var)
                elif isinstance(c, gast.Name) and c.id == name and isinstance(c.ctx, gast.Load) \
                        and (isinstance(node, gast.Call) and field == "args"
                             or isinstance(node, gast.keyword)
                             or any(c is w for w in plan.wholes)):
                    # the dict handed whole to a function: a display of its variables
                    new = gast.Dict([gast.Constant(k, None) for k in plan.keys],
                                    [var(k, gast.Load()) for k in plan.keys])
                if new is not None:
                    gast.copy_location(new, c)
                    if isinstance(child, list):
                        child[i] = new
                    else:
                        setattr(node, field, new)
    for node in list(gast.walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            out = []
            for st in block:
                if id(st) in together:
                    targets = [var(_key(k), gast.Store()) for k in st.value.keys]
                    out += _display(st, targets, together[id(st)])
                else:
                    out.append(st)
            block[:] = out
    return shown


def _view(kind, keys, var):
    """`d.keys()`, `d.values()`, `d.items()` as tuples written out."""
    def item(k):
        key, value = gast.Constant(k, None), var(k, gast.Load())
        return key if kind == "keys" else value if kind == "values" else \
            gast.Tuple([key, value], gast.Load())
    return gast.Tuple([item(k) for k in keys], gast.Load())


def _display(assign, targets, together):
    """`d = {k1: e1, k2: e2}` as statements: `d_k1 = e1` then `d_k2 = e2` (so a dict value is a
    display of its own, rewritten next), or, `together` (a value reads d), `d_k1, d_k2 = e1,
    e2`; nothing for `{}`."""
    values = assign.value.values
    if together and len(targets) > 1:
        stmts = [gast.Assign([gast.Tuple(targets, gast.Store())], gast.Tuple(list(values), gast.Load()))]
    else:
        stmts = [gast.Assign([t], v) for t, v in zip(targets, values)]
    return [gast.copy_location(st, assign) for st in stmts] or [gast.copy_location(gast.Pass(), assign)]


def _substitute(stmt, name, key):
    """`stmt` with every read of `name` (a loop's key target) replaced by the constant key."""
    class Sub(gast.NodeTransformer):
        def visit_Name(self, node):
            if node.id == name and isinstance(node.ctx, gast.Load):
                return gast.copy_location(gast.Constant(key, None), node)
            return node
    return Sub().visit(stmt)


def _replace_statement(tree, old, new):
    for node in gast.walk(tree):
        for block in sub_blocks(node):
            for i, s in enumerate(block):
                if s is old:
                    block[i:i + 1] = new
                    return
