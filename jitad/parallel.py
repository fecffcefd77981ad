"""Stage 7b — par: the entry's independent helper calls run at the same time, where it pays.

Takes: a job whose functions are generated (`parallel=True`): the typed entry (its IR after
`maps`), the plan, and the functions' AST, whose top-level statements carry `jitad_bind` (the
targets of the helper call whose forward they compute) and `jitad_adjoint` (the targets of the
call whose backward half they run), as `ad.Reverse` tags them.
Guarantees: `decide(job)` gives every applicative group of the entry (`monadic.group`) a
`Decision`: which helper calls run as branches of one parallel dispatch, or why the group stays
in order. The cost model reads the types: a branch is a call of a costly helper (`ad.costly`: a
loop, a matrix product, a value of rank >= 2, a costly callee) off recursion cycles; a group
with fewer than two is too small to overlap; a group in an `if`'s branch or a loop's body is
dispatched there (in a loop, at every iteration: the iterations stay in order); not one whose
branches run NumPy with the GIL (object-mode runtime helpers). Sizes are known only when the
code runs, so the dispatch decides there: the branches run concurrently only when each one's
work is at least `THRESHOLD` -- the FLOPs of its callee's matrix products (from the callee's symbolic shapes, `shapes`,
written in the call's arguments; a product whose lengths they do not name is left out), the
element work of its `for` loops (trips x elements of each array a loop body makes) and the
elements of the arrays handed to it: a lower bound -- else one after the other, in the same
compiled function. `rewrite(job)` replaces, in the entry's primal, vjp, value-and-grad-into,
step and accumulate functions (their bodies, the branches of their `if`s and the bodies of
their loops), the branch statements of each parallel group by one dispatch: `if <work is
small>:` the branches in order, in the function itself, `else:` one call of a generated
function `f_par(...)` that runs them under `prange` and returns their values in their order --
in the forward sweep the calls
(or their forward halves), in the adjoint sweep their backward halves; what they depend on
between them (a state popped from a tape) runs before it (a call tidying folded into the
statement reading it -- `ad.Reverse` tags the call too -- gets its temporary back first),
what depends on them (the pushes of their states, the additions of their gradients into the
parameters' adjoints) after it, in
the order it had -- except, in the adjoint sweep, a branch's additions into a part of an
adjoint no other branch touches (`rt.add_into(d_W1[k], d_W1_at_k)`, `_tails`): those run in
the branch, right after its call.
Invariants: the branches of a dispatch read nothing another writes (the IR's `Par`); two
statements one of which writes what the other reads or writes keep their order (`_schedule`);
a branch runs on one thread exactly the code the sequential function runs (BLAS at one
thread), and every reduction into a shared adjoint happens after the dispatch in the sequential
order (an addition run in a branch writes elements nothing else writes between the dispatch
and its place), so the parallel gradient equals the sequential one bit for bit. The `f_par`
functions are the only ones compiled with Numba's parallel option, restricted to
`prange` (`NUMBA_OPTIONS`: no array expression of the generated code is made parallel behind
its back).
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from . import ir, monadic
from . import pyast as P
from .ad import costly
from .primitives import CALL, get

_PRODUCTS = (get("matmul"), get("dot"))
from .types import arg_types

# the smallest branch worth a thread, in estimated work: the FLOPs of its callee's matrix
# products plus the array elements it is handed (see `_work` and docs/parallel.md)
THRESHOLD = 1 << 22

# Numba's parallel option for the `f_par` functions: `prange` only, every other automatic
# parallelization off
NUMBA_OPTIONS = {"prange": True, "numpy": False, "reduction": False, "setitem": False,
                 "stencil": False, "fusion": False, "comprehension": False,
                 "inplace_binop": False}


@dataclass
class Decision:
    """One applicative group of the entry: its binds' targets, the calls dispatched as
    branches (their targets, in program order) and why."""

    targets: tuple
    branches: tuple = ()
    reason: str = ""
    parallel: bool = False
    dispatchers: list = field(default_factory=list)   # its generated `f_par` functions

    def note(self) -> str:
        if self.parallel:
            return f"parallel: {self.reason}"
        return f"sequential: {self.reason}"


def threshold() -> int:
    """`THRESHOLD`, or `JITAD_PAR_THRESHOLD` from the environment (read when code is made)."""
    env = os.environ.get("JITAD_PAR_THRESHOLD")
    return int(env) if env else THRESHOLD


def decide(prog, entry, cycles) -> list:
    """A `Decision` per applicative group of the entry (top level first, then nested ones)."""
    heavy = costly(prog, cycles)
    tests = frozenset(s.test for s in ir.walk(entry.ir.body) if isinstance(s, (ir.If, ir.While)))
    out = []

    def branch_of(b):
        if b.op is not CALL:
            return None
        key = (id(b.callee), arg_types(b, entry.types))
        if key in cycles or key not in heavy:
            return None
        return b

    def visit(block, top):
        for s in monadic.group(block, tests, hoist=True):
            if isinstance(s, ir.Par):
                targets = tuple(t for b in s.binds for t in b.targets)
                calls = [b for b in s.binds if branch_of(b) is not None]
                d = Decision(targets)
                if not top and len(calls) < 2:
                    continue            # a loop's small groups are not listed one by one
                if len(calls) < 2:
                    d.reason = ("too small: " + ("one call of a costly helper, nothing to overlap"
                                                 if calls else "no call of a costly helper (a loop, "
                                                 "a matrix product or a rank >= 2 value)"))
                else:
                    d.branches = tuple(tuple(b.targets) for b in calls)
                    names = ", ".join(b.callee.__name__ for b in calls)
                    d.parallel = True
                    d.reason = (f"{len(calls)} calls ({names}), each run on its own thread when its "
                                f"work is >= {threshold()}" + ("" if top else
                                                               ", at every iteration of its loop"))
                out.append(d)
            elif isinstance(s, ir.If):       # a branch body runs at most once: dispatched too
                visit(s.body, top)
                visit(s.orelse, top)
            elif isinstance(s, (ir.For, ir.While)):
                visit(s.body, False)
    visit(entry.ir.body, True)
    return out


# -- the work of a branch ---------------------------------------------------------------------------
def _term(t, params):
    """A shape term (`shapes`) as Python source in the callee's parameters, or None."""
    if isinstance(t, int):
        return str(t)
    if isinstance(t, tuple) and t[0] == "dim" and t[1] in params:
        return f"{t[1]}.shape[{t[2]}]"
    if isinstance(t, tuple) and t[0] == "val" and t[1] in params:
        return t[1]
    if isinstance(t, tuple) and t[0] == "bcast":
        parts = [_term(d, params) for d in t[1:]]
        return None if None in parts else f"max({', '.join(parts)})"
    return None


def flops(spec) -> list:
    """The FLOPs of a specialization's matrix products (each counted once, in loops too: a lower
    bound) as Python expressions in its parameters, for those whose lengths its shapes name."""
    out, params = [], list(spec.ir.params)
    for s in ir.walk(spec.ir.body):
        if not (isinstance(s, ir.Bind) and s.op in _PRODUCTS and len(s.args) == 2
                and all(isinstance(a, ir.Var) for a in s.args)):
            continue
        a, b = (spec.shapes.of(v.name) if spec.shapes is not None else None for v in s.args)
        if not a or not b:
            continue
        dims = [a[-1]] + list(a[:-1]) + ([b[-1]] if len(b) == 2 else [])   # k, m, n
        parts = [_term(d, params) for d in dims]
        if None not in parts:
            out.append(" * ".join(["2"] + parts))
    return out


# the work of one array element of a bind inside a loop, in FLOP units (~0.13 ns each at the
# threshold's break-even): a lower bound -- an element-step of a 5-bind Euler loop (sin,
# products, sums; forward and backward) costs ~16 ns, ~120 units (docs/parallel.md)
ELEMENT_WORK = 16


def _trips(s, shapes, params):
    """A `for` loop's trip count as Python source in the parameters, or None."""
    if not (isinstance(s.step, ir.Const) and s.step.value == 1):
        return None
    start, stop = (_term(shapes.val(a), params) for a in (s.start, s.stop))
    if start is None or stop is None:
        return None
    return stop if start == "0" else f"max(0, {stop} - {start})"


def loop_work(spec) -> list:
    """The element work of a specialization's `for` loops as Python expressions in its
    parameters: per bind in a loop body whose trip counts and result shape its shapes name,
    `ELEMENT_WORK` x the trips of its loops x its elements (a `while`'s body, whose trips are
    not known, is left out: a lower bound)."""
    out, params, shapes = [], list(spec.ir.params), spec.shapes
    if shapes is None:
        return out

    def visit(block, trips):
        for s in block:
            if isinstance(s, ir.For):
                t = _trips(s, shapes, params)
                if t is not None:
                    visit(s.body, trips + [t])
            elif isinstance(s, ir.If):
                visit(s.body, trips)
                visit(s.orelse, trips)
            elif isinstance(s, ir.Bind) and trips:
                for target in s.targets:
                    shape = shapes.of(target) or ()
                    dims = [_term(d, params) for d in shape]
                    if dims and None not in dims:
                        out.append(" * ".join([str(ELEMENT_WORK)] + trips + dims))
    visit(spec.ir.body, [])
    return out


def _work(call, spec, local, types):
    """Source of the estimated work of a branch `call` of `spec` (its forward, backward half or
    primal: the parameters come first): its products' FLOPs and its loops' element work
    (`loop_work`) in the call's arguments, plus the sizes of the arrays handed to it; None
    when no part of it can be named."""
    parts = []
    args = {p: a for p, a in zip(spec.ir.params, call.args)}
    for text in flops(spec) + loop_work(spec):
        tree = ast.parse(text, mode="eval")

        class Sub(ast.NodeTransformer):
            def visit_Name(self, n):
                return args[n.id] if n.id in args else n
        parts.append(ast.unparse(Sub().visit(tree)))
    seen = []
    for n in ast.walk(call):
        if isinstance(n, ast.Name) and n.id in local and n.id not in seen \
                and getattr(types.get(n.id), "ndim", 0) >= 1:
            seen.append(n.id)
            parts.append(f"{n.id}.size")
    return " + ".join(parts) if parts else None


# -- rewriting the generated functions -----------------------------------------------------------
_PURE_CALLS = ("np.", "math.", "min", "max", "len", "range", "float", "int", "abs", "rt.check")


def _names(node, ctx):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _reads(stmt):
    return _names(stmt, ast.Load) | {n.target.id for n in ast.walk(stmt)
                                     if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}


def _writes(stmt, generated):
    """Names a statement may change: assigned, updated, written through (`a[i] = v`), or
    handed to a call that is not known to leave its arguments alone."""
    out = _names(stmt, ast.Store)
    for n in ast.walk(stmt):
        if isinstance(n, (ast.Assign, ast.AugAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                while isinstance(t, (ast.Subscript, ast.Attribute)):
                    t = t.value
                if isinstance(t, ast.Name):
                    out.add(t.id)
        if isinstance(n, ast.Call):
            fn = ast.unparse(n.func)
            if fn not in generated and not fn.startswith(_PURE_CALLS):
                out |= _names(n, ast.Load)
    return out


def _schedule(body, idxs, generated):
    """The statements of `body` with those at `idxs` (ascending) gathered into one place:
    (before, after), the statements between the first and the last that must run before the
    gathered ones and those that may run after, each in program order -- or None. A statement
    between them that the gathered ones depend on goes before (the pop of a branch's state),
    one that depends on them after (the additions of their gradients), the rest after; two
    statements that depend on each other keep their order. Dependence: one writes what the
    other reads or writes."""
    rw = {k: (_reads(body[k]), _writes(body[k], generated)) for k in range(idxs[0], idxs[-1] + 1)}

    def dep(x, y):
        (rx, wx), (ry, wy) = rw[x], rw[y]
        return bool(wx & (ry | wy) or rx & wy)

    if any(dep(a, b) for a in idxs for b in idxs if a < b):
        return None
    window = [k for k in range(idxs[0] + 1, idxs[-1]) if k not in idxs]
    before, after = set(), set()
    for k in window:
        if any(dep(k, b) for b in idxs if k < b):
            before.add(k)
        if any(dep(b, k) for b in idxs if b < k):
            after.add(k)
    changed = True
    while changed:
        changed = False
        for x in window:
            for y in window:
                if x < y and dep(x, y):
                    if x in after and y not in after:
                        after.add(y)
                        changed = True
                    if y in before and x not in before:
                        before.add(x)
                        changed = True
    if before & after:
        return None
    return [body[k] for k in window if k in before], [body[k] for k in window if k not in before]


def _locals(fdef):
    return {a.arg for a in fdef.args.args} | _names(fdef, ast.Store)


def _dispatch_parts(name, stmts, fdef, types, limit, specs, tails=None):
    """The dispatch of branch statements `stmts` (each `targets = call`), or None: the test
    (every branch's estimated work, `_work`, >= `limit`, as source in the caller's locals), the
    sequential path (each branch's statement then its tail, `_tails`: statements for the
    caller) and the function `name` that runs the branches under `prange`, of the locals their
    calls and tails read (its parameters), returning their values in order."""
    local = _locals(fdef)
    tails = tails or [[] for _ in stmts]
    params, made = [], set()
    for st, tail in zip(stmts, tails):
        for node in [st] + tail:       # in order: what a branch assigns is not a parameter
            value = node.value if node is st else node
            params += [n for n in dict.fromkeys(
                x.id for x in ast.walk(value) if isinstance(x, ast.Name)
                and isinstance(x.ctx, ast.Load)) if n in local and n not in params and n not in made]
            made |= _names(node, ast.Store)
    work = []
    for st in stmts:
        call = st.value
        spec = specs.get(ast.unparse(call.func)) if isinstance(call, ast.Call) else None
        w = _work(call, spec, local, types) if spec is not None else None
        if w is None:
            return None
        work.append(w)
    k = len(stmts)
    lines = [f"def {name}({', '.join(params)}):"]
    lines += [f"    branch_{i} = List()" for i in range(k)]
    lines.append(f"    for branch in prange({k}):")
    for i, st in enumerate(stmts):
        kw = "if" if i == 0 else ("elif" if i < k - 1 else "else")
        lines.append(f"        {kw} branch == {i}:" if kw != "else" else "        else:")
        if tails[i]:         # the call, then its tail; the branch's value is the call's
            lines += ["            " + line for t in [st] + tails[i]
                      for line in ast.unparse(t).splitlines()]
            value = ast.unparse(st.targets[0])
        else:
            value = ast.unparse(st.value)
        lines.append(f"            branch_{i}.append({value})")
    lines.append(f"    return ({', '.join(f'branch_{i}[0]' for i in range(k))},)")
    threads = ast.parse("\n".join(lines)).body[0]
    sequential = [x for st, tail in zip(stmts, tails) for x in [st] + tail]
    return f"min({', '.join(work)}) < {limit}", sequential, threads, params


def _region(stmt):
    """What an addition into a part of an adjoint writes: `rt.add_into(d[c...], v)` ->
    (d, (c...)) for non-negative integer constants c; else None. (Not `d += e`: d may be a
    number, which a branch run on a thread would update in its own copy.)"""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
            and ast.unparse(stmt.value.func) == "rt.add_into" and len(stmt.value.args) == 2:
        view = stmt.value.args[0]
        if isinstance(view, ast.Subscript) and isinstance(view.value, ast.Name):
            idx = view.slice.elts if isinstance(view.slice, ast.Tuple) else [view.slice]
            if all(isinstance(c, ast.Constant) and type(c.value) is int and c.value >= 0
                   for c in idx):
                return view.value.id, tuple(c.value for c in idx)
    return None


def _tails(fdef, stmts, after, generated):
    """The statements of `after` (what runs after a dispatch of the backward halves `stmts`)
    that may run in their branch instead, right after its call: per branch, in order, and the
    rest. A branch's tail takes parts of its gradients (`d_W_at = W_grads[0]`, names nothing
    else reads) and adds them into a part of an adjoint (`rt.add_into(d_W[3], d_W_at)`) that
    no branch's call reads, no statement left before it touches, no other name is bound to, and
    no other branch adds into at an index that may overlap: each element of it gets the same
    additions in the same order as in the sequential code."""
    owner = {}
    for i, st in enumerate(stmts):
        for n in _names(ast.Tuple(st.targets, ast.Store()), ast.Store):
            owner[n] = i
    call_reads = set().union(*(_names(st.value, ast.Load) for st in stmts))
    bound = {n.value.id for n in ast.walk(fdef)
             if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name)}
    stores = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    touched = set()          # names the statements left in place before this one use
    regions = {}             # adjoint -> {branch: [constant index]}
    moved = {}               # id(stmt) -> branch
    for s in after:
        reads = _reads(s)
        mine = {owner[n] for n in reads if n in owner}
        region = _region(s)
        ok = len(mine) == 1 and not ((reads | _writes(s, generated)) & touched)
        if ok:
            i = mine.pop()
            if isinstance(s, ast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], ast.Name) and stores[s.targets[0].id] == 1 \
                    and isinstance(s.value, ast.Subscript) and reads <= {n for n in owner
                                                                         if owner[n] == i}:
                owner[s.targets[0].id] = i
            elif region is not None and region[0] not in call_reads and region[0] not in bound \
                    and region[0] not in owner:
                d, idx = region
                others = [j for b, js in regions.get(d, {}).items() if b != i for j in js]
                ok = not any(j == idx or len(j) != len(idx) for j in others)
                if ok:
                    regions.setdefault(d, {}).setdefault(i, []).append(idx)
            else:
                ok = False
        if ok:
            moved[id(s)] = i
        else:
            touched |= reads | _writes(s, generated)
    # a part taken for a statement that stays, or read anywhere else, stays with what reads it;
    # an addition that stays keeps every later addition into that adjoint after it (their order)
    inside = {id(n) for s in after if id(s) in moved for n in ast.walk(s)}

    def stay(t):
        del moved[id(t)]
        inside.difference_update(id(n) for n in ast.walk(t))
        if _region(t) is not None:
            for u in after[after.index(t) + 1:]:
                if id(u) in moved and _region(u) is not None and _region(u)[0] == _region(t)[0]:
                    stay(u)

    changed = True
    while changed:
        changed = False
        for s in after:
            if id(s) not in moved or not isinstance(s, ast.Assign):
                continue
            name = s.targets[0].id
            if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                   and id(n) not in inside for n in ast.walk(fdef)):
                stay(s)
                for t in after:      # what reads it stays too
                    if id(t) in moved and name in _reads(t):
                        stay(t)
                changed = True
    tails = [[s for s in after if moved.get(id(s)) == i] for i in range(len(stmts))]
    return tails, [s for s in after if id(s) not in moved]


def _needs_gil(stmt, funcs, seen=None) -> bool:
    """Whether a statement runs, through the generated functions it calls, a runtime helper
    compiled with the GIL (NumPy in Numba's object mode: FFTs, `eig`, `partition`): such a
    branch is not run on a worker thread."""
    from .runtime import NEEDS_GIL
    seen = set() if seen is None else seen
    for n in ast.walk(stmt):
        if isinstance(n, ast.Call):
            fn = ast.unparse(n.func)
            if fn.startswith("rt.") and fn[3:] in NEEDS_GIL:
                return True
            if fn in funcs and fn not in seen:
                seen.add(fn)
                if _needs_gil(funcs[fn], funcs, seen):
                    return True
    return False


def _blocks(node):
    """The statement lists of a function: its body and, within it, the bodies of its `if`s and
    loops (a loop's dispatch runs at every iteration: the iterations stay in order, each
    one's branches at once)."""
    for attr in ("body", "orelse"):
        stmts = getattr(node, attr, None)
        if not stmts:
            continue
        yield node, attr
        for st in stmts:
            if isinstance(st, (ast.If, ast.For, ast.While)):
                yield from _blocks(st)


def _unfold(body, tag, branches, plan):
    """A branch call that tidying folded into the one statement reading its value (`d_W +=
    g_bwd(...)[0]`, `s = np.sum(g(x))`) assigned to a temporary of its own again, just before
    that statement, so it can be dispatched; the statement reads the temporary. (Not out of a
    conditional expression: there the call may not run.)"""
    out = []
    for st in body:
        if isinstance(st, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)) \
                and getattr(st, tag, None) is None \
                and not any(isinstance(n, (ast.IfExp, ast.BoolOp)) for n in ast.walk(st)):
            for node in ast.walk(st):
                for field, child in ast.iter_fields(node):
                    kids = child if isinstance(child, list) else [child]
                    for i, c in enumerate(kids):
                        t = getattr(c, tag, None) if isinstance(c, ast.Call) else None
                        if t in branches:
                            tmp = plan.unique(f"{t[0]}_{'grads' if tag == 'jitad_adjoint' else 'value'}")
                            new = P.assign(tmp, c)
                            setattr(new, tag, t)
                            new.jitad_loc = getattr(st, "jitad_loc", None)
                            out.append(new)
                            if isinstance(child, list):
                                child[i] = P.name(tmp)
                            else:
                                setattr(node, field, P.name(tmp))
        out.append(st)
    return out


def _dispatch(fdef, holder, attr, tag, decision, plan, types, generated, limit, out, specs):
    """Rewrite the statements of `holder.<attr>` tagged `tag` with the decision's branches into
    one dispatch; its `f_par` function is appended to `out`. Returns whether it did."""
    setattr(holder, attr, _unfold(getattr(holder, attr), tag, decision.branches, plan))
    body = getattr(holder, attr)
    where = {}
    for i, st in enumerate(body):
        t = getattr(st, tag, None)
        if t in decision.branches and isinstance(st, ast.Assign) and len(st.targets) == 1:
            if t in where:
                return False
            where[t] = i
    if len(where) < 2:
        return False
    idxs = sorted(where.values())
    if any(_needs_gil(body[i], generated) for i in idxs):
        decision.reason = "a branch runs NumPy with the GIL (an FFT, eig or partition)"
        return False
    order = _schedule(body, idxs, generated)
    if order is None:
        return False
    stmts = [body[i] for i in idxs]
    before, after = order
    after += body[idxs[-1] + 1:]
    tails = None
    if tag == "jitad_adjoint":
        tails, after = _tails(fdef, stmts, after, generated)
    name = plan.unique(f"{fdef.name}_par")
    made = _dispatch_parts(name, stmts, fdef, types, limit, specs, tails)
    if made is None:
        return False
    test, sequential, threads, params = made
    call = P.assign(ast.Tuple([st.targets[0] for st in stmts], ast.Store()),
                    P.call(name, *[P.name(p) for p in params]))
    call.jitad_loc = getattr(stmts[0], "jitad_loc", None)
    # the test and the sequential path in the caller, only the threads in a function of their
    # own: a call costs reference counts of the arrays it passes and returns, and a function
    # compiled with Numba's parallel option ~1 us even where its prange does not run -- a
    # loop's dispatch runs every iteration, and a small group must not pay either
    note = P.Comment(f"{len(stmts)} independent calls: at once ({name}) when each one's work "
                     f"(FLOPs of its products, its loops' elements + elements handed to it) "
                     f">= {limit}")
    branch = ast.If(ast.parse(test, mode="eval").body, sequential, [call])
    setattr(holder, attr, body[:idxs[0]] + before + [note, branch] + after)
    decision.dispatchers.append(name)
    out.append(threads)
    return True


def rewrite(job):
    """Pass `par`: decide, then dispatch each parallel group in the entry's functions."""
    gen, pl, entry = job.gen, job.plan, job.entry
    gen.decisions = decide(job.prog, entry, pl.cycles) if pl.entry not in pl.cycles else []
    limit = threshold()
    generated = {f.name: f for f in job.funcs}
    specs = {}       # generated function name -> the specialization it computes
    for key, spec in job.prog.specs.items():
        for n in (pl.fnames.get(key), pl.vjp_names.get(key)) + tuple(pl.split.get(key, ())):
            if n is not None:
                specs[n] = spec
    own = {gen.primal, gen.vjp, gen.into, gen.step, gen.accumulate} - {None}
    made = []
    for fdef in job.funcs:
        if fdef.name not in own:
            continue
        for d in gen.decisions:
            if not d.parallel:
                continue
            for holder, attr in list(_blocks(fdef)):
                for tag in ("jitad_bind", "jitad_adjoint"):
                    _dispatch(fdef, holder, attr, tag, d, pl, entry.types, generated, limit, made,
                              specs)
    for d in gen.decisions:
        if d.parallel and not d.dispatchers:
            d.parallel = False
            if not d.reason.startswith("a branch runs NumPy"):
                d.reason = "its calls cannot be brought together in the generated code"
    job.funcs.extend(made)
    gen.parallel = {f.name for f in made}


# how long an idle OpenMP worker spins before it sleeps (libgomp's GOMP_SPINCOUNT), unless the
# user chose a wait policy or a spin count: a short spin catches the next dispatch of a step
SPIN_COUNT = 1000


def prepare():
    """Before the first dispatch runs: OpenMP's idle workers spin `SPIN_COUNT` rounds, then
    sleep (unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT). Measured (docs/parallel.md,
    the hierarchical columns through `fit`): on an idle machine 1.65-1.69x where passive
    waiting (no spin) gave 1.42-1.63x; with a core busy elsewhere 0.87-0.89x where passive gave
    0.98x, and longer spins (10^4-10^5 rounds; libgomp's default is 300,000) 0.2-0.6x, which
    had also slowed the sequential code around the dispatch 2x. Read by libgomp when Numba first loads its threading layer."""
    if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "ACTIVE"
        os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)


def threadsafe() -> bool:
    """Whether Numba can use a threading layer that several threads may launch at once (tbb or
    omp; the workqueue layer aborts the process on concurrent launches): what `fit(threads >
    1)` needs from a parallel step."""
    import numba
    layer = numba.config.THREADING_LAYER
    if layer == "workqueue":
        return False
    for mod in ("numba.np.ufunc.tbbpool", "numba.np.ufunc.omppool"):
        try:
            __import__(mod)
            return True
        except ImportError:
            continue
    return False
