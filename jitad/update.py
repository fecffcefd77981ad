"""Stage 6b — update: an optimizer's rule inlined where a parameter's gradient is complete.

Takes: an `optim.Optimizer`, a parameter (its name and rank), where its gradient lives (a
dense adjoint array, or per-row adjoints of the rows the loss read) and the names of its
state arrays.
Guarantees: AST statements that apply the optimizer's `per_step` once and its `update` to every
element of the parameter — or, for a row-sparse parameter, only to the rows the loss read,
each row once: when two reads hit the same row (`V[i]`, `V[j]` with i == j) their adjoints
are merged first, so a nonlinear optimizer (Adagrad, Adam) sees the row's total gradient.
No dense gradient of a row-sparse parameter is ever allocated.
"""
from __future__ import annotations

import ast

from . import pyast as P
from .rules import substitute


def _store(node):
    for n in ast.walk(node):
        if isinstance(n, (ast.Name, ast.Subscript)):
            n.ctx = ast.Load()
    if isinstance(node, (ast.Name, ast.Subscript)):
        node.ctx = ast.Store()
    return node


def _instantiate(stmts, mapping):
    out = []
    for s in stmts:
        if isinstance(s, ast.Pass):
            continue
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
            raise ValueError("optimizer rules are assignments `name = expression`")
        target = s.targets[0].id
        if target not in mapping:
            raise ValueError(f"an optimizer rule assigns {target!r}, which is not p or a state slot")
        value = P.fold(substitute(s.value, mapping))
        out.append(ast.Assign([_store(substitute(ast.Name(target, ast.Load()), mapping))], value,
                              lineno=0))
    return out


def _consts(opt):
    return {k: P.const(v) for k, v in opt.hyper.items()}


def per_step(opt, state):
    """The once-per-step statements (e.g. Adam's `t = t + 1`) for one parameter."""
    mapping = _consts(opt)
    for s in opt.scalars:
        mapping[s] = P.subscript(state[s], [_c(0)])
    return _instantiate(opt.statements("per_step"), mapping)


def _c(v):
    from .ir import Const
    return Const(v)


def element_loops(opt, param, ndim, grad_of, state, namer, prefix=(), gname=None):
    """Loops over the trailing `ndim` axes of `param[prefix...]` applying the update.

    `grad_of(index_names)` gives the gradient element's expression."""
    from .ir import Var
    idx = [namer.fresh(f"{param}_i{k}") for k in range(ndim)]
    full = list(prefix) + [Var(i) for i in idx]
    g = gname or namer.fresh(f"g_{param}")
    mapping = _consts(opt)
    mapping["p"] = P.subscript(param, full) if full else P.name(param)
    mapping["g"] = P.name(g)
    for s in opt.slots:
        mapping[s] = P.subscript(state[s], full) if full else P.name(state[s])
    for s in opt.scalars:
        mapping[s] = P.subscript(state[s], [_c(0)])
    body = [P.assign(g, grad_of([Var(i) for i in idx]))] + _instantiate(opt.statements("update"), mapping)
    for k in reversed(range(ndim)):
        shape = P.subscript(ast.Attribute(P.name(param), "shape", ast.Load()), [_c(len(prefix) + k)])
        body = [ast.For(P.name(idx[k], store=True), P.call("range", shape), body, [])]
    return body


def dense(opt, param, ndim, dparam, state, namer):
    out = [P.Comment(f"{type(opt).__name__} update of {param}")]
    out += per_step(opt, state)
    out += element_loops(opt, param, ndim, lambda ix: P.subscript(dparam, ix) if ix else P.name(dparam),
                         state, namer)
    return out


def sparse(opt, param, ndim, sites, state, namer):
    """sites: list of (index atoms, row adjoint name, row rank)."""
    rows = ", ".join(dict.fromkeys("[" + ", ".join(str(a) for a in idx) + "]" for idx, _, _ in sites))
    out = [P.Comment(f"{type(opt).__name__} update of the rows of {param} the loss read: {rows}")]
    out += per_step(opt, state)
    # the same index read twice (U[u] in two places) is one row: merge at generation time
    merged = []
    for idx, d, r in sites:
        same = [k for k, (idx2, _, _) in enumerate(merged) if tuple(map(str, idx2)) == tuple(map(str, idx))]
        if same:
            out.append(P.aug(merged[same[0]][1], P.name(d)))
        else:
            merged.append((idx, d, r))
    sites = merged
    skips = []
    for m, (idx_m, d_m, _) in enumerate(sites):
        skip = None
        if m:
            skip = namer.fresh(f"{param}_seen_{m}")
            out.append(P.assign(skip, P.const(False)))
            chain = None
            for l_ in reversed(range(m)):
                idx_l, d_l, _ = sites[l_]
                test = _same(idx_m, idx_l)
                if skips[l_] is not None:
                    test = ast.BoolOp(ast.And(), [ast.UnaryOp(ast.Not(), P.name(skips[l_])), test])
                merge = [P.aug(d_l, P.name(d_m)), P.assign(skip, P.const(True))]
                chain = ast.If(test, merge, [chain] if chain is not None else [])
            out.append(chain)
        skips.append(skip)
    for m, (idx_m, d_m, r) in enumerate(sites):
        loops = element_loops(opt, param, r, lambda ix, d=d_m: P.subscript(d, ix) if ix else P.name(d),
                              state, namer, prefix=idx_m)
        if skips[m] is not None:
            loops = [ast.If(ast.UnaryOp(ast.Not(), P.name(skips[m])), loops, [])]
        out += loops
    return out


def _same(a, b):
    tests = [ast.Compare(P.atom(x), [ast.Eq()], [P.atom(y)]) for x, y in zip(a, b)]
    return tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)
