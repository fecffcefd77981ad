"""`None` as a sentinel (`prev = None` ... `if prev is not None:` ... `prev = t`): a local that
holds None on some paths and a number or an array on others is a flag beside its value, a
source rewrite before lowering.

Takes: the function's tree (after `anf.rename_locals`), its parameters, a `Namer`, and a
callback raising a `JitadError` at a node.
Guarantees: a *sentinel* is a local name (not a parameter) assigned `None` by a statement
`name = None` and assigned other values elsewhere. For each, a bool flag `name_is_none` (a
fresh name) is True exactly where Python's `name is None` would be:
  * `name = None` becomes `name_is_none = True` (the value keeps what it held: nothing
    reads it until the name gets a value again);
  * every other assignment of the name (`=`, `+=`, a tuple target, a `for` target) is
    followed by `name_is_none = False`;
  * `name is None` reads the flag, `name is not None` its negation.
A read of the name's *value* is accepted only where the name surely holds a value -- after
an assignment of one, or where a test says so (`if prev is not None:`, the right side of
`prev is None or v < prev`, the `else` of `if best is None:`, a `while best is not None`
body) on every path (`_Guards`: a flow analysis over the tree, loops to a fixed point,
`break`/`continue`/`return` followed); elsewhere it is refused at the read, in both modes,
with what to write instead. So no run reads the value where Python would read None: the
flag decides exactly what Python's test decides, and the value read is the one Python reads.
A name only ever assigned None, or assigned None in a tuple assignment, keeps the refusal
"None is not a value".
Invariants: a tree without sentinels is returned unchanged (the same object); otherwise a
rewritten copy. Only names and locations are made here; nothing depends on types.
"""
from __future__ import annotations

import copy

import gast

_NESTED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)


def none_flags(tree, params, namer, err):
    """(tree, {flag name: the user's name it belongs to})."""
    nones, values = set(), set()
    for node in gast.walk(tree):
        if isinstance(node, gast.Assign):
            t = node.targets[0]
            if isinstance(t, gast.Name) and _is_none(node.value):
                nones.add(t.id)
                continue
            values |= _stored(t)
        elif isinstance(node, gast.AugAssign):
            values |= _stored(node.target)
        elif isinstance(node, (gast.For, gast.comprehension)):
            values |= _stored(node.target)
    sentinels = sorted((nones & values) - set(params))
    if not sentinels:
        return tree, {}
    _Guards(set(sentinels), err).function(tree)
    tree = copy.deepcopy(tree)
    flags = {n: namer.fresh(f"{n}_is_none") for n in sentinels}
    _Rewrite(flags).visit(tree)
    gast.fix_missing_locations(tree)
    return tree, {f: n for n, f in flags.items()}


def _is_none(node) -> bool:
    return isinstance(node, gast.Constant) and node.value is None


def _stored(target) -> set:
    return {n.id for n in gast.walk(target) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store)}


def _none_test(node):
    """(name, is_none) for `name is None` / `name is not None` (None on either side)."""
    if isinstance(node, gast.Compare) and len(node.ops) == 1 \
            and isinstance(node.ops[0], (gast.Is, gast.IsNot)):
        a, b = node.left, node.comparators[0]
        if _is_none(a):
            a, b = b, a
        if isinstance(a, gast.Name) and _is_none(b):
            return a.id, isinstance(node.ops[0], gast.Is)
    return None


class _Guards:
    """Where each sentinel surely holds a value: a forward flow analysis whose state is the
    set of sentinels known not to be None (None for a point no run reaches). Reads of a
    sentinel's value outside that set are refused."""

    def __init__(self, names, err):
        self.names, self.err = names, err
        self.loops = []           # per enclosing loop: (continue states, break states)

    def function(self, tree):
        self.block(tree.body, frozenset())

    # -- states ------------------------------------------------------------------------
    @staticmethod
    def join(a, b):
        if a is None:
            return b
        if b is None:
            return a
        return a & b

    def when(self, test, truth):
        """Sentinels known not None when `test` evaluates to `truth`."""
        got = _none_test(test)
        if got is not None:
            name, is_none = got
            return frozenset({name}) if (name in self.names and is_none != truth) else frozenset()
        if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
            return self.when(test.operand, not truth)
        if isinstance(test, gast.BoolOp):
            parts = [self.when(v, truth) for v in test.values]
            both = isinstance(test.op, gast.And) == truth   # every part has that truth
            out = parts[0]
            for p in parts[1:]:
                out = out | p if both else out & p
            return out
        return frozenset()

    # -- statements --------------------------------------------------------------------
    def block(self, stmts, state):
        for s in stmts:
            if state is None:
                return None
            state = self.stmt(s, state)
        return state

    def stmt(self, s, state):
        if isinstance(s, gast.Assign):
            self.expr(s.value, state)
            t = s.targets[0]
            if isinstance(t, gast.Name) and _is_none(s.value):
                return state - {t.id}
            self.target(t, state)
            return state | (_stored(t) & self.names)
        if isinstance(s, gast.AugAssign):
            self.expr(s.value, state)
            if isinstance(s.target, gast.Name):
                self.read(s.target, state)
            else:
                self.target(s.target, state)
            return state | (_stored(s.target) & self.names)
        if isinstance(s, gast.If):
            self.expr(s.test, state)
            a = self.block(s.body, state | self.when(s.test, True))
            b = self.block(s.orelse, state | self.when(s.test, False))
            return self.join(a, b)
        if isinstance(s, gast.While):
            return self.loop(s, state, lambda st: (self.expr(s.test, st),
                                                   st | self.when(s.test, True))[1],
                             lambda st: st | self.when(s.test, False))
        if isinstance(s, gast.For):
            self.expr(s.iter, state)
            return self.loop(s, state, lambda st: st | (_stored(s.target) & self.names),
                             lambda st: st)
        if isinstance(s, gast.Break):
            self.loops[-1][1].append(state)
            return None
        if isinstance(s, gast.Continue):
            self.loops[-1][0].append(state)
            return None
        if isinstance(s, gast.Return):
            if s.value is not None:
                self.expr(s.value, state)
            return None
        if isinstance(s, _NESTED):
            for n in gast.walk(s):       # a nested function runs when called: nothing known
                if isinstance(n, gast.Name) and n.id in self.names and isinstance(n.ctx, gast.Load):
                    self.refuse(n)
            return state
        for n in gast.iter_child_nodes(s):
            if isinstance(n, gast.expr):
                self.expr(n, state)
        return state

    def loop(self, s, state, enter, leave):
        """A loop: the body starts from the join of the state before the loop and the states
        the body ends or continues with, to a fixed point; after it, the test's false side
        (when nothing breaks) joined with the states of its breaks."""
        start = state
        while True:
            self.loops.append(([], []))
            end = self.block(s.body, enter(start))
            conts, breaks = self.loops.pop()
            back = start
            for st in [end] + conts:
                back = self.join(back, st)
            if back == start:
                break
            start = back
        after = leave(start)
        for st in breaks:
            after = self.join(after, st)
        for st in getattr(s, "orelse", []) or []:
            after = self.stmt(st, after) if after is not None else None
        return after

    def target(self, t, state):
        """A store target's own reads (`y[i] = v` reads i)."""
        for n in gast.walk(t):
            if isinstance(n, (gast.Subscript, gast.Attribute)):
                self.expr(n, state)

    # -- expressions -------------------------------------------------------------------
    def expr(self, e, state):
        if e is None or state is None:
            return
        if _none_test(e) is not None:
            return
        if isinstance(e, gast.Name):
            if isinstance(e.ctx, gast.Load):
                self.read(e, state)
            return
        if isinstance(e, gast.BoolOp):
            for v in e.values:      # each operand runs only if the ones before let it
                self.expr(v, state)
                state = state | self.when(v, isinstance(e.op, gast.And))
            return
        if isinstance(e, gast.IfExp):
            self.expr(e.test, state)
            self.expr(e.body, state | self.when(e.test, True))
            self.expr(e.orelse, state | self.when(e.test, False))
            return
        if isinstance(e, (gast.Lambda,)):
            for n in gast.walk(e):
                if isinstance(n, gast.Name) and n.id in self.names and isinstance(n.ctx, gast.Load):
                    self.refuse(n)
            return
        for n in gast.iter_child_nodes(e):
            if isinstance(n, gast.comprehension):
                self.expr(n.iter, state)
                for c in n.ifs:
                    self.expr(c, state)
            elif isinstance(n, gast.expr):
                self.expr(n, state)

    def read(self, name, state):
        if name.id in self.names and name.id not in state:
            self.refuse(name)

    def refuse(self, name):
        self.err(name, f"'{name.id}' may be None here: it is None on a path to here (assigned None, "
                       f"or a parameter given None), and jitad "
                       f"computes only with numbers and arrays; read it where it surely holds "
                       f"a value -- under `if {name.id} is not None:` (or the else of `if "
                       f"{name.id} is None:`), or after assigning it one", "None sentinel")


class _Rewrite(gast.NodeTransformer):
    def __init__(self, flags):
        self.flags = flags

    def flag(self, name, value, where):
        return gast.copy_location(gast.Assign(
            [gast.Name(self.flags[name], gast.Store(), None, None)],
            gast.Constant(value, None), None), where)

    def visit_Assign(self, node):
        t = node.targets[0]
        if isinstance(t, gast.Name) and t.id in self.flags and _is_none(node.value):
            return self.flag(t.id, True, node)
        node = self.generic_visit(node)
        return [node] + [self.flag(n, False, node) for n in sorted(_stored(t)) if n in self.flags]

    def visit_AugAssign(self, node):
        node = self.generic_visit(node)
        return [node] + [self.flag(n, False, node) for n in sorted(_stored(node.target))
                         if n in self.flags]

    def visit_For(self, node):
        node = self.generic_visit(node)
        node.body = [self.flag(n, False, node) for n in sorted(_stored(node.target))
                     if n in self.flags] + node.body
        return node

    def visit_Compare(self, node):
        got = _none_test(node)
        if got is None or got[0] not in self.flags:
            return self.generic_visit(node)
        flag = gast.copy_location(gast.Name(self.flags[got[0]], gast.Load(), None, None), node)
        if got[1]:
            return flag
        return gast.copy_location(gast.UnaryOp(gast.Not(), flag), node)
