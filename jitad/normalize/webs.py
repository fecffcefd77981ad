"""Def-use webs: a variable assigned again with nothing in common with its earlier values
becomes a variable of its own.

Takes: a normalized function body (structured: no jumps left), its parameters, the `Namer`
that made its names and the map of renamed locals to the user's names.
Guarantees: `split_webs` gives every local whose definitions fall into more than one web one
name per web. Definitions belong to one web when they reach a common use (the two branches
of an `if` assigning what is read after it, a loop-carried value and its first value), or
when one updates the other in place (`y += e` on an array, `np.add.at(y, ...)`, an append):
Python's variable holds one value across them. The web holding the parameter -- or else the
first definition -- keeps the user's name; the others get `q_2`, `q_3` ... (fresh names,
mapped back to the user's in `renamed`, so messages name the user's variable). So
`q, k, v = np.split(qkv, 3, axis=-1)` then `q = q.reshape(T, h, d).transpose(1, 0, 2)` is two
variables of two ranks, while `if c: q = <2-D> else: q = <3-D>` followed by a read of `q` is
one, which type inference refuses at the assignment, as before.
Invariants: a renaming only (what each read sees is unchanged); a read that no definition
reaches keeps its name; parameters keep theirs; a function whose variables each form one web
is returned unchanged.
"""
from __future__ import annotations

from .. import ir
from ..ir import Bind, For, If, Return, SetItem, Slice, TupleA, Var, While
from ..primitives.lists import LIST_APPEND


class _Webs:
    def __init__(self, params):
        self.parent = []
        self.name_of = []          # def id -> variable name
        self.defs = {}             # (id(stmt), slot) -> def id
        self.reads = {}            # (id(stmt), name) -> def ids reaching that read
        entry = {}
        for p in params:
            entry[p] = frozenset({self.new_def(("param", p), p)})
        self.entry = entry

    # -- union-find over definitions ---------------------------------------------------
    def new_def(self, key, name):
        d = self.defs.get(key)
        if d is None:
            d = self.defs[key] = len(self.parent)
            self.parent.append(d)
            self.name_of.append(name)
        return d

    def find(self, d):
        while self.parent[d] != d:
            self.parent[d] = self.parent[self.parent[d]]
            d = self.parent[d]
        return d

    def union(self, ds):
        ds = [self.find(d) for d in ds]
        for d in ds[1:]:
            if d != ds[0]:
                self.parent[max(d, ds[0])] = min(d, ds[0])
                ds[0] = min(d, ds[0])

    # -- reaching definitions over the structured IR -------------------------------------
    def read(self, stmt, name, state):
        ds = state.get(name, frozenset())
        key = (id(stmt), name)
        self.reads[key] = self.reads.get(key, frozenset()) | ds
        self.union(list(ds))

    def block(self, stmts, state):
        for s in stmts:
            state = self.stmt(s, state)
        return state

    def stmt(self, s, state):
        if isinstance(s, Bind):
            for n in set(ir.own_reads(s)):
                self.read(s, n, state)
            state = dict(state)
            for k, t in enumerate(s.targets):
                d = self.new_def((id(s), k), t)
                if s.inplace or (s.op is LIST_APPEND and k == 0):
                    self.union([d, *state.get(t, ())])     # the same value, updated
                state[t] = frozenset({d})
            return state
        if isinstance(s, SetItem):
            for n in set(ir.own_reads(s)):
                self.read(s, n, state)
            return state
        if isinstance(s, Return):
            for n in set(ir.own_reads(s)):
                self.read(s, n, state)
            return state
        if isinstance(s, If):
            self.read(s, s.test, state)
            return _merge(self.block(s.body, dict(state)), self.block(s.orelse, dict(state)))
        if isinstance(s, While):
            entry = state
            while True:
                after_cond = self.block(s.cond, dict(entry))
                self.read(s, s.test, after_cond)
                out = self.block(s.body, dict(after_cond))
                again = _merge(state, out)
                if again == entry:
                    return after_cond
                entry = again
        if isinstance(s, For):
            for n in set(ir.own_reads(s)):
                self.read(s, n, state)
            d = self.new_def((id(s), "var"), s.var)
            entry = state
            while True:
                inside = dict(entry)
                inside[s.var] = frozenset({d})
                out = self.block(s.body, inside)
                again = _merge(state, out)
                if again == entry:
                    return again
                entry = again
        return state


def _merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, frozenset()) | v
    return out


def _rename(a, to):
    if isinstance(a, Var):
        return Var(to.get(a.name, a.name))
    if isinstance(a, Slice):
        return Slice(*(None if p is None else _rename(p, to) for p in (a.lower, a.upper, a.step)))
    if isinstance(a, TupleA):
        return TupleA(tuple(_rename(p, to) for p in a.items))
    return a


def split_webs(body, params, namer, renamed):
    """The body with one variable per web (see the module docstring); `renamed` gains the new
    names. Returns the body (the same list, rewritten in place when a variable was split)."""
    w = _Webs(params)
    w.block(body, dict(w.entry))
    webs = {}                       # name -> [web roots, in the order of their first def]
    for d, name in enumerate(w.name_of):
        root = w.find(d)
        roots = webs.setdefault(name, [])
        if root not in roots:
            roots.append(root)
    new_name = {}                   # web root -> its name
    for name, roots in webs.items():
        if len(roots) < 2:
            continue
        params_web = [r for r in roots if any(w.find(w.defs[("param", p)]) == r
                                              for p in params if p == name)]
        keep = params_web[0] if params_web else roots[0]
        user = renamed.get(name, name)
        k = 2
        for r in roots:
            if r == keep:
                continue
            fresh = namer.fresh(f"{name}_{k}")
            k += 1
            new_name[r] = fresh
            renamed[fresh] = user
    if not new_name:
        return body

    def to_for(stmt, names):
        out = {}
        for n in names:
            ds = w.reads.get((id(stmt), n))
            if ds:
                r = w.find(next(iter(ds)))
                if r in new_name:
                    out[n] = new_name[r]
        return out

    def def_name(stmt, slot, name):
        d = w.defs.get((id(stmt), slot))
        return new_name.get(w.find(d), name) if d is not None else name

    def rewrite(stmts):
        for s in stmts:
            if isinstance(s, Bind):
                to = to_for(s, set(ir.own_reads(s)))
                s.args = tuple(_rename(a, to) for a in s.args)
                s.targets = tuple(def_name(s, k, t) for k, t in enumerate(s.targets))
            elif isinstance(s, SetItem):
                to = to_for(s, set(ir.own_reads(s)))
                s.array = to.get(s.array, s.array)
                s.index = tuple(_rename(a, to) for a in s.index)
                s.value = _rename(s.value, to)
            elif isinstance(s, Return):
                to = to_for(s, set(ir.own_reads(s)))
                s.values = tuple(_rename(a, to) for a in s.values)
            elif isinstance(s, If):
                s.test = to_for(s, [s.test]).get(s.test, s.test)
                rewrite(s.body)
                rewrite(s.orelse)
            elif isinstance(s, While):
                rewrite(s.cond)
                s.test = to_for(s, [s.test]).get(s.test, s.test)
                rewrite(s.body)
            elif isinstance(s, For):
                to = to_for(s, set(ir.own_reads(s)))
                s.start, s.stop, s.step = (_rename(a, to) for a in (s.start, s.stop, s.step))
                s.var = def_name(s, "var", s.var)
                rewrite(s.body)

    rewrite(body)
    return body
