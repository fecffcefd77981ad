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
from .primitives.templates import substitute


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


def element_loops(opt, param, ndim, grad_of, state, namer, prefix=(), gname=None, guard=None,
                  then=None):
    """Loops over the trailing `ndim` axes of `param[prefix...]` applying the update.

    `grad_of(index_names)` gives the gradient element's expression; `guard` (an expression
    that does not depend on the element) makes the update conditional, tested inside the
    loop so the loop stays an element loop that `fuse` can merge with others."""
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
    if then is not None:
        body += then([Var(i) for i in idx])
    if guard is not None:
        body = [ast.If(guard, body, [])]
    for k in reversed(range(ndim)):
        shape = P.subscript(ast.Attribute(P.name(param), "shape", ast.Load()), [_c(len(prefix) + k)])
        body = [ast.For(P.name(idx[k], store=True), P.call("range", shape), body, [])]
    return body


def _label(opt):
    return getattr(opt, "label", f"{type(opt).__name__} update")


def dense(opt, param, ndim, dparam, state, namer, zero_after=False):
    """`zero_after`: the gradient is a buffer to clear as it is consumed (`f_apply`)."""
    out = [P.Comment(f"{_label(opt)} of {param}")]
    out += per_step(opt, state)
    then = (lambda ix: [P.assign(P.subscript(dparam, ix), P.const(0.0))]) if zero_after else None
    out += element_loops(opt, param, ndim, lambda ix: P.subscript(dparam, ix) if ix else P.name(dparam),
                         state, namer, then=then)
    return out


def sparse(opt, param, ndim, sites, state, namer):
    """sites: list of (index atoms, row adjoint name, row rank).

    Reads with the same index text (`U[u]` twice) are one row, their adjoints summed. Rows
    whose indices may coincide at run time (`V[i]`, `V[j]`) get one flag per pair, computed
    once; the first row of a coinciding group is updated with the group's summed gradient and
    the others are skipped. Everything is element-wise: no whole-row temporaries."""
    rows = ", ".join(dict.fromkeys("[" + ", ".join(str(a) for a in idx) + "]" for idx, _, _ in sites))
    out = [P.Comment(f"{_label(opt)} of the rows of {param} the loss read: {rows}")]
    out += per_step(opt, state)
    groups = []                                   # [index atoms, rank, [row adjoints]]
    for idx, d, r in sites:
        for g in groups:
            if tuple(map(str, g[0])) == tuple(map(str, idx)):
                g[2].append(d)
                break
        else:
            groups.append([idx, r, [d]])
    same = {}
    for m in range(1, len(groups)):
        for l_ in range(m):
            same[m, l_] = namer.fresh(f"{param}_same_{m}_{l_}")
            out.append(P.assign(same[m, l_], _same(groups[m][0], groups[l_][0])))

    def total(terms):
        g = terms[0]
        for t in terms[1:]:
            g = ast.BinOp(g, ast.Add(), t)
        return g

    def rows_of(ds, ix):   # a group's row adjoints at element ix, summed
        return total([P.subscript(d, ix) if ix else P.name(d) for d in ds])

    for m, (idx, r, ds) in enumerate(groups):
        def grad_of(ix, m=m, ds=ds):
            return total([rows_of(ds, ix)] + [
                ast.IfExp(P.name(same[n, m]), rows_of(groups[n][2], ix), P.const(0.0))
                for n in range(m + 1, len(groups))])
        seen = [P.name(same[m, l_]) for l_ in range(m)]
        guard = None
        if seen:
            guard = ast.UnaryOp(ast.Not(), seen[0] if len(seen) == 1 else ast.BoolOp(ast.Or(), seen))
        out += element_loops(opt, param, r, grad_of, state, namer, prefix=idx, guard=guard)
    return out


def _same(a, b):
    tests = [ast.Compare(P.atom(x), [ast.Eq()], [P.atom(y)]) for x, y in zip(a, b)]
    return tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests)


class Sum:
    """The rule that sums a step's gradient into a thread's buffer `acc` (`fit(accumulate=k)`):
    inlined like an optimizer, so row-sparse parameters add only their rows."""

    label = "sum into this thread's buffer the gradient"
    slots = ("acc",)
    scalars = ()
    hyper: dict = {}

    def statements(self, which):
        return ast.parse("acc = acc + g").body if which == "update" else []


def mark_rows(param, sites, marks, rows):
    """Record each row a step reads in the thread's row list, once (`marks` says which rows
    the list holds; `rows[0]` is its length, the rows follow)."""
    out = [P.Comment(f"remember the rows of {param} this thread's buffer holds")]
    for idx in dict.fromkeys(tuple(idx) for idx, _, _ in sites):
        (i,) = idx
        count = P.subscript(rows, [_c(0)])
        out.append(ast.If(ast.Compare(P.subscript(marks, [i]), [ast.Eq()], [P.const(0)]), [
            P.assign(P.subscript(marks, [i]), P.const(1)),
            P.aug(P.subscript(rows, [_c(0)]), P.const(1)),
            P.assign(ast.Subscript(P.name(rows), count, ast.Store()), P.atom(i))], []))
    return out


def apply_rows(opt, param, ndim, acc, marks, rows, state, namer):
    """The optimizer's update of the rows a thread's buffer holds, each cleared as it is used."""
    from .ir import Var
    s, r = namer.fresh("s"), namer.fresh("r")
    out = [P.Comment(f"{_label(opt)} of the rows of {param} in this thread's buffer")]
    out += per_step(opt, state)
    zero = (lambda ix: [P.assign(P.subscript(acc, [Var(r)] + ix), P.const(0.0))])
    body = [P.assign(r, P.subscript(rows, [Var(s)]))]
    body += element_loops(opt, param, ndim - 1, lambda ix: P.subscript(acc, [Var(r)] + ix), state, namer,
                          prefix=[Var(r)], then=zero)
    body.append(P.assign(P.subscript(marks, [Var(r)]), P.const(0)))
    count = P.subscript(rows, [_c(0)])
    out.append(ast.For(P.name(s, store=True), P.call("range", P.const(1), ast.BinOp(count, ast.Add(), P.const(1))),
                       body, []))
    out.append(P.assign(P.subscript(rows, [_c(0)]), P.const(0)))
    return out
