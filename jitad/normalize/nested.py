"""Functions defined inside the function (`def rhs(state): ...` in an ODE fit): lifted to helpers.

Takes: the `Normalizer` state (a mixin of it: `cap`, `locals`, `callees`, `err`, `helper_args`).
Guarantees: a nested `def g(a, b=...)` becomes a helper of its own -- a function object made
from its source with one more parameter per variable of the enclosing function it reads (its
closure), whose front end is its own tree with the user's line numbers, so its errors point
at the user's file -- and each call `g(x)` is a call of that helper with the variables it
reads passed at the call (the values a Python closure would see then). Nothing else may
use the name: passing `g` as a value and `nonlocal` are `JitadError`s at the line. A nested
function that calls itself is a recursive helper: its own name means the lifted helper, and
each of its calls passes on the variables it reads. A nested function that calls one defined
before it (`def layer(z): return softplus(2 * z)`) reads that one's closure variables too
and passes them on at the call, so both see the values Python's closures would. The arrays
a helper it calls reads from globals (the enclosing function's hidden parameters, see
`capture.Hidden`) are passed to it the same way.
Invariants: the lifted helper is made once per nested definition and kept by the enclosing
function's IR (`callees`); its IR is put in its front-end cache, so `capture` never reads it.
"""
from __future__ import annotations

import ast
import copy

import gast

from ..capture import Captured, capture
from ..ir import Bind, Var
from ..primitives import CALL


class NestedFunctions:
    """The nested-function half of `anf.Normalizer` (see the module docstring)."""

    def define_nested(self, node):
        """A nested `def`: its lifted helper, made now, called later."""
        if node.name in self.nested:
            self.err(node, f"the nested function '{node.name}' is defined twice", "nested function")
        params = [a.id for a in node.args.args]
        inner = {n.name for n in gast.walk(node) if isinstance(n, gast.FunctionDef)}
        # its own names: assigned, its parameters and those of the functions defined in it
        assigned = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
                    and isinstance(n.ctx, (gast.Store, gast.Param))} | set(params) \
            | (inner - {node.name})
        read = {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load)}
        for n in gast.walk(node):
            if isinstance(n, gast.Nonlocal):
                self.err(n, "nonlocal is supported in a function called only by the "
                            "enclosing function's statements (not as a value, in a while test, "
                            "a comprehension or a lambda, nor a statement that also reads the "
                            "name); else pass the value in and return it: "
                            "`total = add(total, v)`", "nonlocal statement")
        calls = {n.func.id for n in gast.walk(node) if isinstance(n, gast.Call)
                 and isinstance(n.func, gast.Name)}
        # an earlier nested function it calls reads the enclosing function's variables at
        # that call, as its closure would: they are passed through this one's call
        others = sorted((calls & set(self.nested)) - {node.name})
        defs = {n.name for n in gast.walk(self.tree) if isinstance(n, gast.FunctionDef)
                and n is not self.tree} - inner
        for later in sorted((read & defs) - set(self.nested) - {node.name} - assigned):
            self.err(node, f"the nested function '{node.name}' reads '{later}', a nested "
                           "function defined after it; define it first", "nested function")
        inherited = {c for o in others for c in self.nested[o][1]}
        # the arrays the helpers it calls read at every call (`capture.Hidden`): the enclosing
        # function's hidden parameters, passed on to it as closure variables are
        passed = {}
        for call in gast.walk(node):
            if isinstance(call, gast.Call) and not (isinstance(call.func, gast.Name)
                                                    and call.func.id in assigned):
                helper = self.user_callee(call.func)
                for h in capture(helper).hidden if helper is not None else ():
                    mine = self.cap.hidden_param(h)
                    if mine is not None and mine not in assigned:
                        passed[h.key] = mine
        inherited |= set(passed.values())
        for o in others:
            clash = sorted(set(self.nested[o][1]) & assigned)
            if clash:
                self.err(node, f"the nested function '{node.name}' calls '{o}', which reads "
                               f"'{clash[0]}' of the enclosing function, and has a '{clash[0]}' "
                               "of its own; rename it", "nested function")
        captured = sorted(((read - assigned - {node.name}) | inherited)
                          & (self.locals - set(self.nested)))
        tree = copy.deepcopy(node)
        # a default reading the enclosing function's variables (`def h(u, scale=a)`): Python
        # evaluates it at the `def`; a parameter never assigned has that value at every call,
        # which passes it where the call does not give the argument (`nested_call`)
        late = {}
        first = len(params) - len(node.args.defaults)
        for k, d in enumerate(node.args.defaults):
            names = {n.id for n in gast.walk(d) if isinstance(n, gast.Name)} & self.locals
            if not names:
                continue
            moving = sorted(n for n in names if self.stores[n] or n not in self.params)
            if moving:
                self.err(d, f"the default of '{params[first + k]}' reads '{moving[0]}' of the "
                            "enclosing function, which it assigns: pass the value at the call",
                         "nested function")
            late[params[first + k]] = d
            tree.args.defaults[k] = gast.copy_location(gast.Constant(None, None), d)
        tree.args.args = tree.args.args + [gast.Name(c, gast.Param(), None, None)
                                           for c in captured]
        if tree.args.defaults:      # the captured ones after a default: defaults of their own
            tree.args.defaults = tree.args.defaults + [gast.Constant(None, None)
                                                       for _ in captured]
        reads = {node.name: captured, **{o: self.nested[o][1] for o in others}}
        for call in gast.walk(tree):    # a call of itself or of another nested function
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Name) \
                    and call.func.id in reads:      # passes on what that helper reads
                given = {k.arg for k in call.keywords}
                call.keywords += [gast.keyword(c, gast.copy_location(
                    gast.Name(c, gast.Load(), None, None), call)) for c in reads[call.func.id]
                    if c not in given]
        fn = _function_from(tree, self.cap)
        free, origin = dict(self.cap.free), dict(self.cap.origin)
        if node.name in calls:          # recursive: its own name is the lifted helper
            free[node.name] = fn
            origin[node.name] = {node.name: fn}
        for o in others:                # the nested functions it calls: their lifted helpers
            free[o] = self.nested[o][0]
            origin[o] = {o: self.nested[o][0]}
        cap = Captured(fn, node.name, tree, self.cap.filename, self.cap.source,
                       params + captured, free, origin, shown=self.cap.shown, passed=passed)
        from ..pipeline import preset_frontend
        preset_frontend(fn, cap)
        self.nested[node.name] = (fn, captured)
        self.nested_defaults[node.name] = (params, late)

    def nested_call(self, node, hint, dest, targets=None):
        """g(x) of a nested g: its helper called with the variables it reads appended (its
        results bound to `targets` when given: `m, s = moments(v)`)."""
        fn, captured = self.nested[node.func.id]
        kw = {k.arg: k.value for k in node.keywords}
        params, late = self.nested_defaults[node.func.id]
        for k, p in enumerate(params):      # a default read at the call (`define_nested`)
            if p in late and p not in kw and k >= len(node.args):
                kw[p] = copy.deepcopy(late[p])
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
