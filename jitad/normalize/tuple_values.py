"""Tuples as local values (`state = (np.zeros(H), np.zeros(H))`, `state = step(p, x, state)`,
`h, c = state`, `state[0]`) as one variable per position: a source rewrite before lowering, as
`structs` spreads a tuple argument into its arrays.

Takes: the function's tree (after `anf.rename_locals`), its parameters, a `Namer`, the
normalizer's `resolve_func`, the names that hold lists, and a callback raising a `JitadError`
at a node.
Guarantees: a *tuple local* is a local name assigned a tuple-valued expression somewhere --
a tuple written out, a call of a user helper that returns k values (every `return` of it
does; `return state` of its own tuple local too), a library call with one primitive per
element of its result (`np.linalg.slogdet`, `np.tril_indices`) or that `prelude` defines by a
function returning k values (`scipy.linalg.cho_factor`), another tuple local, a
parameter given a tuple (`state = h0c0`: only where the name is assigned a tuple elsewhere
too; a name only ever given a parameter stays its alias, `structs`), or `a if c else b` of
those -- and only such values, all of one length k. It becomes k
variables `state_0 ... state_{k-1}` (fresh names, mapped to `state[0]` ... for messages):
  * `state = v` is `state_0, ..., state_{k-1} = v` (a tuple unpacking the normalizer knows;
    `a if c else b` an `if` of two of them);
  * `state[j]` with a constant j is `state_j`; a slice with constant bounds, `len(state)`;
    a slice is a tuple local's value too, and so is `list(state[a:b])` (a starred target's
    rest, `desugar`: read as the list, a write to it refused as to a tuple);
  * any other read is the tuple written out, `(state_0, ..., state_{k-1})`: unpacking
    (`h, c = state`), a helper's argument (the helper specialized on a tuple, `structs`),
    `return state`, a loop over it (unrolled), a NumPy function of a sequence (`np.stack`).
A local assigned a tuple of constants exactly once (`axes = (0, 1)`) is that constant
wherever it is read (a static `axis=` or shape).
Refused at the line: a tuple local assigned a value that is not a tuple of its length, a
non-constant index, an augmented assignment, a tuple of tuples.
Invariants: a tree with no tuple local is returned unchanged (the same object); otherwise a
rewritten copy. Only names and locations are made here; nothing depends on types.
"""
from __future__ import annotations

import copy

import gast

from ..capture import MISSING
from .library import static_value

_NOT_TUPLE = 1


def tuple_values(tree, params, namer, resolve, lists, err, param_arity=None):
    """(tree, {tuple local: its position names}, {position name: how the user reads it}).
    `param_arity`: the parameters given a tuple (or list) and its length (`state = h0c0`)."""
    arity = _Arity(resolve, param_arity or {}, _nested_arities(tree, resolve))
    assigns = {}                    # name -> [value nodes]
    for node in _walk_own(tree):
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
            assigns.setdefault(node.targets[0].id, []).append(node.value)
    consts, k_of = {}, {}
    changed = True
    while changed:                  # `state = new_state`: as long as new_state is one
        changed = False
        for name, values in assigns.items():
            if name in k_of or name in params or name in consts or name in lists and not all(
                    arity.listed_part(v, k_of) is not None for v in values):
                continue
            if len(values) == 1 and isinstance(values[0], gast.Tuple) \
                    and _count_stores(tree, name) == 1 \
                    and static_value(values[0], resolve) is not MISSING:
                consts[name] = values[0]
                changed = True
                continue
            ks = [arity.of(v, k_of) for v in values]
            if any(k and k > _NOT_TUPLE for k in ks) and not all(
                    isinstance(v, gast.Name) and v.id in arity.param_arity for v in values):
                k_of[name] = max(k for k in ks if k)
                changed = True
    if not k_of and not consts:
        return tree, {}, {}
    for name in k_of:
        if name in params:
            err(tree, f"the parameter '{name}' is assigned a tuple: use a new name for it",
                "tuple value")
    tree = copy.deepcopy(tree)
    parts = {name: [namer.fresh(f"{name}_{j}") for j in range(k)] for name, k in sorted(k_of.items())}
    user = {p: f"{name}[{j}]" for name, ps in parts.items() for j, p in enumerate(ps)}
    _Rewrite(parts, consts, arity, k_of, resolve, err).body(tree.body)
    return tree, parts, user


def _walk_own(tree):
    """The nodes of the function's own body, nested function definitions left out."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        for child in gast.iter_child_nodes(node):
            if not isinstance(child, (gast.FunctionDef, gast.Lambda)):
                todo.append(child)


def _count_stores(tree, name):
    return sum(1 for n in gast.walk(tree) if isinstance(n, gast.Name) and n.id == name
               and isinstance(n.ctx, gast.Store))


class _Arity:
    """How many values an expression holds when it is a tuple (None: not known to be one)."""

    def __init__(self, resolve, param_arity=None, nested=None):
        self.resolve = resolve
        self.param_arity = param_arity or {}
        self.nested = nested or {}      # a nested def's name -> its arity (computed once)

    def listed_part(self, v, k_of):
        """`t[a:b]` of `list(t[a:b])` of a tuple local t (a starred target's rest, `desugar`;
        `lists` writes it `[e for e in t[a:b]]`), else None: the tuple of those items, read
        as the list would be (a write to it is refused as a tuple's)."""
        if isinstance(v, gast.Call) and len(v.args) == 1 and not v.keywords \
                and self.resolve(v.func) is list:
            v = v.args[0]
        elif isinstance(v, gast.ListComp) and len(v.generators) == 1 \
                and not v.generators[0].ifs and isinstance(v.elt, gast.Name) \
                and isinstance(v.generators[0].target, gast.Name) \
                and v.generators[0].target.id == v.elt.id:
            v = v.generators[0].iter
        else:
            return None
        return v if self.part(v, k_of) is not None else None

    def part(self, v, k_of):
        """The number of items of `t[a:b]`, a tuple local sliced with constant bounds."""
        if not (isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name)
                and v.value.id in k_of and isinstance(v.slice, gast.Slice)):
            return None
        bounds = [None if e is None else static_value(e, self.resolve)
                  for e in (v.slice.lower, v.slice.upper, v.slice.step)]
        if any(not (b is None or type(b) is int) for b in bounds) or bounds[2] == 0:
            return None
        return len(range(k_of[v.value.id])[slice(*bounds)])

    def of(self, v, k_of):
        if isinstance(v, gast.Tuple):       # `(a, *rest)`: rest's items counted
            n = 0
            for e in v.elts:
                if not isinstance(e, gast.Starred):
                    n += 1
                elif isinstance(e.value, (gast.Tuple, gast.List)):
                    n += len(e.value.elts)
                elif self.of(e.value, k_of):
                    n += self.of(e.value, k_of)
                else:
                    return None
            return n if n > 1 else None
        v = self.listed_part(v, k_of) or v
        k = self.part(v, k_of)
        if k is not None:
            return k if k > 1 else None
        if isinstance(v, gast.Name):
            return k_of.get(v.id, self.param_arity.get(v.id))
        if isinstance(v, gast.IfExp):
            a, b = self.of(v.body, k_of), self.of(v.orelse, k_of)
            return a if a == b else None
        if isinstance(v, gast.Call):
            if isinstance(v.func, gast.Name) and v.func.id in self.nested:
                return self.nested[v.func.id]
            obj = self.resolve(v.func)
            if obj is MISSING:
                return None
            from ..primitives import lookup_callable
            prim = lookup_callable(obj)
            if prim is not None:
                if prim.parts and not (prim.single_form and any(
                        k.arg == prim.single_form[0] for k in v.keywords)):
                    return len(prim.parts)
                return None
            from .calls import is_user_helper
            if is_user_helper(obj):
                return helper_arity(getattr(obj, "__jitad_function__", obj))
            from .. import prelude
            if prelude.defines(obj):        # cf = scipy.linalg.cho_factor(K): its definition's
                fn = prelude.definition(obj, len(v.args), {k.arg: k.value for k in v.keywords})
                return None if fn is None else helper_arity(fn)
        return None


_ARITY: dict = {}


def helper_arity(fn):
    """The number of values every `return` of a user helper gives (its tuple locals read
    as such), or None when they differ or it returns one value."""
    from ..pipeline import cache_of
    cache = cache_of(fn)
    if "return_arity" in cache:
        return cache["return_arity"]
    cache["return_arity"] = None           # a recursive helper: its own calls add nothing
    try:
        from ..capture import capture
        cap = capture(fn)
    except Exception:       # noqa: BLE001 - no source: the call is refused where it is made
        return None

    def resolve_name(func):
        return cap.resolve(func.id) if isinstance(func, gast.Name) else MISSING

    k = _returns_arity(cap.tree, resolve_name)
    cache["return_arity"] = k
    return k


def _nested_arities(tree, resolve):
    """{name: arity} of the functions defined in `tree`'s own body (`def moments(v): ...
    return m, s`): their calls are not helpers `resolve` finds, they are lifted later."""
    return {n.name: _returns_arity(n, resolve) for n in _walk_own(tree)
            if isinstance(n, gast.FunctionDef)}


def _returns_arity(tree, resolve):
    """The number of values every `return` of the function `tree` gives, or None; `resolve`
    finds what a call's function expression means outside the function."""
    # the names the function binds (its parameters, its assignments): a call of any other
    # name is of what it means outside (a helper whose own returns give the arity)
    local = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
             and isinstance(n.ctx, (gast.Store, gast.Param))}

    def res(func):
        if isinstance(func, gast.Name):
            return MISSING if func.id in local else resolve(func)
        if isinstance(func, gast.Attribute):
            base = res(func.value)
            return MISSING if base is MISSING else getattr(base, func.attr, MISSING)
        return MISSING

    arity = _Arity(res)
    k_of = {}
    assigns = {}
    for node in _walk_own(tree):
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
            assigns.setdefault(node.targets[0].id, []).append(node.value)
    for _ in range(len(assigns) + 1):
        for name, values in assigns.items():
            ks = [arity.of(v, k_of) for v in values]
            if any(ks):
                k_of[name] = max(k for k in ks if k)
    got = {arity.of(n.value, k_of) if n.value is not None else None
           for n in _walk_own(tree) if isinstance(n, gast.Return)}
    return got.pop() if len(got) == 1 else None


def _name(id_, ctx, like):
    return gast.copy_location(gast.Name(id_, ctx(), None, None), like)


def _tuple(names, like):
    return gast.copy_location(gast.Tuple([_name(n, gast.Load, like) for n in names],
                                         gast.Load()), like)


class _Rewrite:
    def __init__(self, parts, consts, arity, k_of, resolve, err):
        self.parts, self.consts, self.arity, self.k_of = parts, consts, arity, k_of
        self.resolve, self.err = resolve, err

    def body(self, stmts):
        out = []
        for s in stmts:
            out += self.stmt(s)
        stmts[:] = out
        return stmts

    def stmt(self, s):
        if isinstance(s, gast.FunctionDef):
            shadowed = {a.id for a in s.args.args} | {
                n.id for n in gast.walk(s) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Store)}
            inner = _Rewrite({k: v for k, v in self.parts.items() if k not in shadowed},
                             {k: v for k, v in self.consts.items() if k not in shadowed},
                             self.arity, self.k_of, self.resolve, self.err)
            inner.body(s.body)
            return [s]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            name = s.targets[0].id
            if name in self.consts:
                return []                   # read as the constant itself
            if name in self.parts:
                return self.assign(self.parts[name], s.value, s)
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) \
                and s.target.id in self.parts:
            self.err(s, f"'{s.target.id}' holds a tuple: augmented assignment to it is not "
                        "supported", "tuple value")
        targets = s.targets if isinstance(s, gast.Assign) else [s.target] \
            if isinstance(s, (gast.For, gast.AugAssign)) else []
        for t in targets:
            for n in gast.walk(t):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) \
                        and n.id in self.parts:
                    self.err(n, f"'{n.id}' holds a tuple elsewhere: assign it a whole tuple "
                                f"({n.id} = (a, b)), or give this value a name of its own",
                             "tuple value")
        for field in ("body", "orelse"):
            sub = getattr(s, field, None)
            if isinstance(sub, list):
                self.body(sub)
        for field, v in gast.iter_fields(s):
            if field in ("body", "orelse"):
                continue
            if isinstance(v, gast.expr):
                setattr(s, field, self.expr(v))
            elif isinstance(v, list):
                setattr(s, field, [self.expr(x) if isinstance(x, gast.expr) else x for x in v])
        return [s]

    def assign(self, names, value, s):
        """`state = value` as the assignment of its positions."""
        k = len(names)
        if isinstance(value, gast.IfExp):
            test = self.expr(value.test)
            branch = gast.If(test, self.assign(names, value.body, s),
                             self.assign(names, value.orelse, s))
            return [gast.copy_location(branch, s)]
        value = self.arity.listed_part(value, self.k_of) or value   # list(t[1:]): the items
        got = self.arity.of(value, self.k_of)
        if got != k:
            what = f"a tuple of {got} values" if got else "not a tuple"
            user = next(n for n, ps in self.parts.items() if ps == names)
            self.err(s, f"'{user}' holds a tuple of {k} values elsewhere and {what} here: give "
                        "it a name of its own", "tuple value")
        if isinstance(value, gast.Tuple) and any(
                self.arity.of(e, self.k_of) for e in value.elts):
            self.err(value, "a tuple of tuples as a local value is not supported: keep its parts "
                            "in names of their own", "tuple value")
        target = gast.Tuple([_name(n, gast.Store, s) for n in names], gast.Store())
        new = gast.Assign([gast.copy_location(target, s)], self.expr(value), None)
        return [gast.copy_location(new, s)]

    def expr(self, node):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            if node.id in self.consts:
                return gast.copy_location(copy.deepcopy(self.consts[node.id]), node)
            if node.id in self.parts:
                return _tuple(self.parts[node.id], node)
            return node
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id in self.parts:
            names = self.parts[node.value.id]
            sl = node.slice
            if isinstance(sl, gast.Slice):
                bounds = [None if e is None else static_value(e, self.resolve)
                          for e in (sl.lower, sl.upper, sl.step)]
                if any(b is MISSING or not (b is None or type(b) is int) for b in bounds) \
                        or bounds[2] == 0:
                    self.err(node, "slice a tuple with constant bounds", "tuple index")
                return _tuple(names[slice(*bounds)], node)
            j = static_value(sl, self.resolve)
            if type(j) is not int or not -len(names) <= j < len(names):
                self.err(node, f"index a tuple of {len(names)} values with a constant in "
                               f"range(-{len(names)}, {len(names)})", "tuple index")
            return _name(names[j], gast.Load, node)
        if isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], gast.Name) and node.args[0].id in self.parts \
                and self.resolve(node.func) is len:
            return gast.copy_location(gast.Constant(len(self.parts[node.args[0].id]), None), node)
        for field, v in gast.iter_fields(node):
            if isinstance(v, gast.expr):
                setattr(node, field, self.expr(v))
            elif isinstance(v, list):
                setattr(node, field, [self.expr(x) if isinstance(x, gast.expr) else
                                      self.comprehension(x) if isinstance(x, gast.comprehension)
                                      else self.keyword(x) if isinstance(x, gast.keyword)
                                      else x for x in v])
        return node

    def keyword(self, k):
        k.value = self.expr(k.value)
        return k

    def comprehension(self, g):
        g.iter = self.expr(g.iter)
        g.ifs = [self.expr(c) for c in g.ifs]
        return g
