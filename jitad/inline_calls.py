"""Pass `inline_once` (generated code): a generated function called exactly once in its module,
and never from Python, is written into its caller.

Takes: the functions of one generated module (Python AST, tidied) and the names jitad calls
from Python (`backend.python_callable`).
Guarantees: each function `g` with one call site in the module -- a callee's forward or
backward half, its vjp, a primal only another primal calls -- whose body ends in its only
`return`, and whose call is part of a simple statement (`t = g(...)`, `d += g(...)[0]`,
`return g(...)`) that calls nothing else with an effect (a tape's pop or append), is replaced
at that call by its statements: its locals renamed to names unused in the caller (its own
names where free: `m`, else `m_1`), an argument that is a name read by that name where g never
assigns the parameter (g's renamed body binds none of the caller's names), any other argument
bound to its renamed parameter first, in order, and its return value assigned to the call's
targets, part by part (or to a fresh name standing for the call). `g` then leaves the module.
Then an entry point called at one place by another entry point (a Jacobian's loop calling the
jvp, `f_jacfwd` calling `f_jacfwd_shaped`) gets a *copy* of its body written there, callees
first; it stays in the module for Python (Numba compiles a function at its first call only, so
the copy costs nothing unless both are called).
Why: Numba compiles a callee on its own *and* links its code into every caller, where LLVM
optimizes and emits it again: a function called once was compiled twice, a chain of n calls
n times (measured on ADBench's GMM, LSTM and hand tracking: see docs/architecture.md,
"Compile time").
Invariants: the values computed and their order are unchanged (arguments are evaluated before
the body, as in a call; the rest of the statement after it, which reads no effect); nothing
recursive, nothing `parallel` dispatches and nothing with a depth argument is inlined; every
entry point (`backend.python_callable`) stays in the module.
"""
from __future__ import annotations

import ast
import copy

from . import pyast as P
from .names import Namer, reserved_names


def inline_once(job):
    """The pass: inline every generated function called once (see the module docstring)."""
    from .backend import python_callable
    gen = job.gen
    if gen.recursive or gen.parallel or job.parallel:
        return
    keep = python_callable(gen) | set(gen.depth_args)
    funcs = {f.name: f for f in job.funcs}
    sites = _call_sites(job.funcs, funcs)
    progress = True
    while progress:
        progress = False
        for name in sorted(n for n, s in sites.items() if len(s) == 1):
            f = sites[name][0]
            g = funcs.get(name)
            if f is None or g is None or name in keep or name == f.name or not _inlinable(g) \
                    or not _inline_into(f, g, funcs):
                continue
            job.funcs.remove(g)
            del funcs[name], sites[name]
            for holders in sites.values():      # the calls g made are f's now
                holders[:] = [f if h is g else h for h in holders]
            progress = True
    # then an entry called once by another entry (a Jacobian's loop calling the jvp, f_grad
    # calling f_vjp): a copy is written into the caller, and the entry stays for Python
    # (callees first, so a copy holds its own callees' copies)
    entries = python_callable(gen) - set(gen.depth_args)
    todo = sorted(n for n, s in sites.items() if len(s) == 1 and n in entries
                  and s[0] is not None and s[0].name in entries and s[0].name != n and n in funcs)
    while todo:
        name = next((n for n in todo if not any(_has_call(funcs[n], m) for m in todo if m != n)),
                    todo[0])
        todo.remove(name)
        g = funcs[name]
        if _inlinable(g):
            _inline_into(sites[name][0], copy.deepcopy(g), funcs)


def _call_sites(funcs, by_name):
    """name -> [the function holding each use]: None for a use that is not a call's callee."""
    sites = {}
    for f in funcs:
        callees = set()
        for node in ast.walk(f):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                callees.add(id(node.func))
        for node in ast.walk(f):
            if isinstance(node, ast.Name) and node.id in by_name:
                sites.setdefault(node.id, []).append(f if id(node) in callees else None)
    return sites


def _inlinable(g) -> bool:
    """One `return`, the last statement; no defaults, no nested functions or lambdas."""
    body = g.body
    if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None \
            or g.args.defaults or g.args.vararg or g.args.kwarg:
        return False
    for node in ast.walk(ast.Module(body[:-1], [])):
        if isinstance(node, (ast.Return, ast.FunctionDef, ast.Lambda, ast.Yield, ast.Global,
                             ast.Nonlocal)):
            return False
    return True


def _effects(node) -> bool:
    return any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
               and c.func.attr in ("pop", "append") for c in ast.walk(node))


def _inline_into(f, g, funcs) -> bool:
    """Replace the one call of g in f by g's body; False if its statement does not allow it."""
    found = _find(f.body, g.name)
    if found is None:
        return False
    block, i, call = found
    stmt = block[i]
    if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)) \
            or call.keywords or len(call.args) != len(g.args.args) \
            or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    rest = copy.deepcopy(stmt)
    _replace_call(rest, g.name, ast.Constant(0))
    if _effects(rest):
        return False
    # g's parameters and locals: renamed away from every name f (and the module) uses
    stored = set()
    for node in ast.walk(g):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stored.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            stored.add(node.target.id)
    params = [a.arg for a in g.args.args]
    local = stored | set(params)
    taken = P.names_in(f) | {a.arg for a in f.args.args} | set(funcs) | reserved_names()
    taken |= {n for n in P.names_in(g) if n not in local}      # g's globals stay g's
    namer = Namer(taken)
    rename, new = {}, []
    for p, arg in zip(params, call.args):
        if isinstance(arg, ast.Name) and p not in stored:
            # g's renamed body binds none of f's names: the argument itself serves
            rename[p] = arg.id
        else:
            rename[p] = namer.fresh(p)
            new.append(ast.Assign([P.name(rename[p], store=True)], arg, lineno=0))
    for n in sorted(stored):
        rename.setdefault(n, namer.fresh(n))
    body = [_Rename(rename).visit(s) for s in g.body]      # g leaves the module: no copy
    ret = body.pop().value
    new += body
    if isinstance(stmt, ast.Assign) and stmt.value is call:
        tgt = stmt.targets[0] if len(stmt.targets) == 1 else None
        if isinstance(tgt, ast.Tuple) and isinstance(ret, ast.Tuple) \
                and len(tgt.elts) == len(ret.elts) \
                and not any(isinstance(e, ast.Starred) for e in tgt.elts + ret.elts):
            # `v, saved = (y, (a, b, ...))`: one assignment per part (its reads are g's renamed
            # locals, never the targets); a tuple display gets a name of its own, assigned
            # once (Numba's bytecode reader refuses a long display into a name assigned twice)
            pairs = []
            for t, v in zip(tgt.elts, ret.elts):
                if isinstance(v, ast.Tuple):
                    tmp = namer.fresh(f"{t.id}_parts" if isinstance(t, ast.Name) else "parts")
                    new.append(ast.Assign([P.name(tmp, store=True)], v, lineno=0))
                    v = P.name(tmp)
                pairs.append(ast.Assign([t], v, lineno=0))
        else:
            pairs = [ast.Assign(stmt.targets, ret, lineno=0)]
        for done in pairs:
            for k in ("jitad_loc", "jitad_bind", "jitad_adjoint", "jitad_view_write"):
                if hasattr(stmt, k):
                    setattr(done, k, getattr(stmt, k))
        new += pairs
    else:
        res = namer.fresh(f"{g.name}_result")
        new.append(ast.Assign([P.name(res, store=True)], ret, lineno=0))
        _replace_call(stmt, g.name, P.name(res))
        new.append(stmt)
    block[i:i + 1] = new
    return True


def _find(block, name):
    """(block, index, call) of the statement holding the call of `name`, or None."""
    for i, s in enumerate(block):
        if isinstance(s, (ast.If, ast.For, ast.While)):
            for sub in (s.body, s.orelse):
                got = _find(sub, name)
                if got is not None:
                    return got
            heads = [s.test] if isinstance(s, (ast.If, ast.While)) else [s.iter, s.target]
            if any(_has_call(h, name) for h in heads):
                return None          # in a loop's or a branch's test: not a statement of its own
            continue
        for node in ast.walk(s):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name:
                # not under a short-circuit or a conditional expression
                if any(isinstance(n, (ast.BoolOp, ast.IfExp, ast.comprehension))
                       for n in ast.walk(s)):
                    return None
                return block, i, node
    return None


def _has_call(node, name):
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
               for n in ast.walk(node))


def _replace_call(stmt, name, expr):
    class R(ast.NodeTransformer):
        def visit_Call(self, node):
            if isinstance(node.func, ast.Name) and node.func.id == name:
                return expr
            return self.generic_visit(node)
    R().visit(stmt)


class _Rename(ast.NodeTransformer):
    def __init__(self, names):
        self.names = names

    def visit_Name(self, node):
        new = self.names.get(node.id)
        if new is not None:
            return ast.copy_location(ast.Name(new, node.ctx), node)
        return node
