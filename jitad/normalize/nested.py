"""Functions defined inside the function (`def rhs(state): ...` in an ODE fit): lifted to helpers.

Takes: the `Normalizer` state (a mixin of it: `cap`, `locals`, `callees`, `err`, `helper_args`).
Guarantees: a nested `def g(a, b=...)` becomes a helper of its own -- a function object made
from its source with one more parameter per variable of the enclosing function it reads (its
closure), whose front end is its own tree with the user's line numbers, so its errors point
at the user's file -- and each call `g(x)` is a call of that helper with the variables it
reads passed at the call (the values a Python closure would see then). Nothing else may
use the name: passing `g` as a value, a nested function that calls another nested function,
and `nonlocal` are `JitadError`s at the line. A nested function that calls itself is a
recursive helper: its own name means the lifted helper, and each of its calls passes on the
variables it reads.
Invariants: the lifted helper is made once per nested definition and kept by the enclosing
function's IR (`callees`); its IR is put in its front-end cache, so `capture` never reads it.
"""
from __future__ import annotations

import ast
import copy

import gast

from ..capture import Captured
from ..ir import Bind, Var
from ..primitives import CALL


class NestedFunctions:
    """The nested-function half of `anf.Normalizer` (see the module docstring)."""

    def define_nested(self, node):
        """A nested `def`: its lifted helper, made now, called later."""
        if node.name in self.nested:
            self.err(node, f"the nested function '{node.name}' is defined twice", "nested function")
        params = [a.id for a in node.args.args]
        assigned = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
                    and isinstance(n.ctx, gast.Store)} | set(params)
        read = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load)}
        for n in gast.walk(node):
            if isinstance(n, gast.Nonlocal):
                self.err(n, "nonlocal is not supported", "nonlocal statement")
        calls = {n.func.id for n in gast.walk(node) if isinstance(n, gast.Call)
                 and isinstance(n.func, gast.Name)}
        if calls & set(self.nested):
            self.err(node, f"the nested function '{node.name}' calls another nested function; "
                           "make them module-level helpers", "nested function")
        captured = sorted((read - assigned - {node.name}) & (self.locals - set(self.nested)))
        tree = copy.deepcopy(node)
        tree.args.args = tree.args.args + [gast.Name(c, gast.Param(), None, None)
                                           for c in captured]
        if tree.args.defaults:      # the captured ones after a default: defaults of their own
            tree.args.defaults = tree.args.defaults + [gast.Constant(None, None)
                                                       for _ in captured]
        for call in gast.walk(tree):    # a recursive call passes on what the helper reads
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Name) \
                    and call.func.id == node.name:
                given = {k.arg for k in call.keywords}
                call.keywords += [gast.keyword(c, gast.copy_location(
                    gast.Name(c, gast.Load(), None, None), call)) for c in captured
                    if c not in given]
        fn = _function_from(tree, self.cap)
        free, origin = dict(self.cap.free), dict(self.cap.origin)
        if node.name in calls:          # recursive: its own name is the lifted helper
            free[node.name] = fn
            origin[node.name] = {node.name: fn}
        cap = Captured(fn, node.name, tree, self.cap.filename, self.cap.source,
                       params + captured, free, origin)
        from ..pipeline import preset_frontend
        preset_frontend(fn, cap)
        self.nested[node.name] = (fn, captured)

    def nested_call(self, node, hint, dest, targets=None):
        """g(x) of a nested g: its helper called with the variables it reads appended (its
        results bound to `targets` when given: `m, s = moments(v)`)."""
        fn, captured = self.nested[node.func.id]
        kw = {k.arg: k.value for k in node.keywords}
        for c in captured:      # the variables it reads, by name, as Python's closure would
            if c in kw:
                self.err(node, f"{node.func.id}() reads '{c}' of the enclosing function; it "
                               "cannot also take it as a keyword", "nested function")
            kw[c] = gast.copy_location(gast.Name(c, gast.Load(), None, None), node)
        fn, args = self.helper_args(node, fn, kw, hint)
        self.callees[id(fn)] = fn
        if targets is not None:
            self.emit(Bind(targets, CALL, args, self.cap.loc(node), callee=fn))
            return None
        target = dest(node.func.id)
        self.emit(Bind((target,), CALL, args, self.cap.loc(node), callee=fn))
        return Var(target)


def _function_from(tree, cap):
    """The Python function a (lifted) definition makes, in the enclosing function's globals."""
    module = gast.gast_to_ast(gast.Module([copy.deepcopy(tree)], []))
    ast.fix_missing_locations(module)
    scope = {}
    exec(compile(module, cap.filename, "exec"), cap.fn.__globals__, scope)
    return scope[tree.name]
