"""Stage 7b — fuse: element loops over rows of one length become one loop, and row buffers
that live only inside that loop become scalars.

Takes: a generated function (Python `ast.FunctionDef`, after `reverse`, before `codegen`'s
tidying) and the types of the user's names (`typeinfer`).
Guarantees: the function computes the same values. Per-sample adjoints (`d_U_at[k] += ...`
over a row, then the optimizer's update of that row) are made of many one-statement loops
over the same row length; here they become one pass, and a row adjoint that no code outside
that pass reads (`d_U_at = np.zeros_like(U_at)`) becomes a scalar per element: no per-call
allocation, one sweep over the row — what a hand-written per-sample step does.

When loops are merged (all three must hold, else nothing changes):
* *Element loops*: `for k in range(A.shape[c])` whose body indexes arrays only as
  `B[..., k]` (k last, the other indices loop-invariant names or constants) or reads a
  parameter's element that does not depend on k (an optimizer's step count `t[0]`), assigns
  only array elements or scalars it defines before reading (no reductions carried between
  iterations), and calls only elementwise scalar functions (`math.*`, `np.sqrt`, ...).
* *Same length*: the trip counts are provably equal, from facts in the function:
  `d = np.zeros_like(x)` (d has x's shape), `x = P[i]` with scalar indices (x's axes are P's
  trailing axes), `rt.dot1(a, b)` (checks that the lengths agree).
* *No reordering hazard*: iteration k of any merged loop touches only elements whose last
  coordinate is k, in arrays that are parameters, fresh buffers or `P[...]` reads without
  slices (a row view or a copy), so different iterations never touch the same element;
  within an iteration the loops' bodies keep their order. Statements between the loops are
  moved above them only if they neither read what the loops write nor write what the loops
  read.
"""
from __future__ import annotations

import ast

from . import pyast as P


# ---------------------------------------------------------------- lengths
class _Lengths:
    """Union-find over `(array name, axis)`: which trip counts are provably equal."""

    def __init__(self, fdef, types, single):
        self.parent = {}
        for node in ast.walk(fdef):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name) and node.targets[0].id in single:
                self._fact(node.targets[0].id, node.value, types, single)
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "rt.dot1" \
                    and all(isinstance(a, ast.Name) and a.id in single for a in node.args):
                self.union((node.args[0].id, 0), (node.args[1].id, 0))

    def _fact(self, target, value, types, single):
        if isinstance(value, ast.Call) and ast.unparse(value.func) == "np.zeros_like" \
                and len(value.args) == 1 and isinstance(value.args[0], ast.Name) \
                and value.args[0].id in single:
            for c in range(4):
                self.union((target, c), (value.args[0].id, c))
        elif isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                and value.value.id in single:
            parts = _index_parts(value)
            if all(_scalar_atom(p, types) for p in parts):
                for c in range(4):
                    self.union((target, c), (value.value.id, c + len(parts)))

    def find(self, x):
        while self.parent.get(x, x) != x:
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _index_parts(sub):
    return list(sub.slice.elts) if isinstance(sub.slice, ast.Tuple) else [sub.slice]


def _scalar_atom(node, types):
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int)
    if isinstance(node, ast.Name):
        t = types.get(node.id)
        return t is not None and t.ndim == 0
    return False


# ---------------------------------------------------------------- element loops
class _Loop:
    """An element loop, with what its body reads and writes."""

    def __init__(self, node, length, arrays_read, arrays_written, scalars_read, locals_, invariant):
        self.node, self.length = node, length
        self.arrays_read, self.arrays_written = arrays_read, arrays_written
        self.scalars_read, self.locals = scalars_read, locals_
        self.invariant = invariant     # parameters read at an element that does not depend on k

    @property
    def var(self):
        return self.node.target.id


def _element_loop(s, lengths, fresh_or_param, params):
    if not (isinstance(s, ast.For) and isinstance(s.target, ast.Name) and not s.orelse
            and isinstance(s.iter, ast.Call) and ast.unparse(s.iter.func) == "range"
            and len(s.iter.args) == 1):
        return None
    n = s.iter.args[0]
    if not (isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape"
            and isinstance(n.value.value, ast.Name) and n.value.value.id in fresh_or_param
            and isinstance(n.slice, ast.Constant)):
        return None
    k = s.target.id
    reads, writes, scalars, local, invariant = set(), set(), set(), set(), set()
    defined = set()    # every scalar the body assigns; `local`: those definitely assigned so far

    def expr_ok(e):
        for node in ast.walk(e):
            if isinstance(node, ast.Subscript):
                parts = _index_parts(node)
                if isinstance(node.value, ast.Name) and node.value.id in params \
                        and isinstance(node.ctx, ast.Load) and k not in P.names_in(node.slice) \
                        and all(isinstance(p, ast.Constant) or (isinstance(p, ast.Name) and p.id not in local)
                                for p in parts):
                    invariant.add(node.value.id)   # a parameter's element read in every iteration
                    continue
                if not (isinstance(node.value, ast.Name) and node.value.id in fresh_or_param):
                    return False
                if not (isinstance(parts[-1], ast.Name) and parts[-1].id == k):
                    return False
                for p in parts[:-1]:
                    if not isinstance(p, (ast.Name, ast.Constant)) or (isinstance(p, ast.Name) and p.id in (k,) + tuple(local)):
                        return False
                (writes if isinstance(node.ctx, ast.Store) else reads).add(node.value.id)
            elif isinstance(node, ast.Call):
                if not _elementwise_call(node):
                    return False
            elif isinstance(node, ast.Attribute):
                if not (isinstance(node.value, ast.Name) and node.value.id in ("math", "np")):
                    return False
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in ("math", "np"):
                if node.id != k and node.id not in local:
                    scalars.add(node.id)
            elif isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Starred)):
                return False
        return True

    def block_ok(stmts):
        for t in stmts:
            if isinstance(t, P.Comment):
                continue
            if isinstance(t, ast.If):
                before = set(local)
                if not expr_ok(t.test) or not block_ok(t.body) or not block_ok(t.orelse):
                    return False
                local.intersection_update(before)   # assigned in a branch: not definitely assigned
                continue
            if isinstance(t, ast.Assign) and len(t.targets) == 1:
                tgt, val = t.targets[0], t.value
            elif isinstance(t, ast.AugAssign):
                tgt, val = t.target, t.value
            else:
                return False
            if not expr_ok(val):
                return False
            if isinstance(tgt, ast.Name):
                # a scalar the body defines before reading it; never a carried reduction
                if isinstance(t, ast.AugAssign) and tgt.id not in local:
                    return False
                local.add(tgt.id)
                defined.add(tgt.id)
            elif isinstance(tgt, ast.Subscript):
                if not expr_ok(tgt):
                    return False
            else:
                return False
        return True

    if not block_ok(s.body):
        return None
    if scalars & defined or invariant & writes:
        return None  # a value carried between iterations
    return _Loop(s, lengths.find((n.value.value.id, n.slice.value)), reads, writes, scalars, defined,
                 invariant)


def _single(fdef):
    """Names with one value in the whole function: parameters never reassigned, and locals
    assigned exactly once (facts about them hold wherever they are read)."""
    count = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            count[node.id] = count.get(node.id, 0) + 1
    params = {a.arg for a in fdef.args.args}
    return {n for n, c in count.items() if c == 1 and n not in params} | \
        {p for p in params if p not in count}


# Calls allowed in an element loop: on scalars they return scalars, and on an array they would
# return an array that a valid element loop could not store -- so their arguments are elements.
_ELEMENTWISE = {"np.sqrt", "np.exp", "np.log", "np.log1p", "np.expm1", "np.abs", "np.sign",
                "np.sin", "np.cos", "np.tan", "np.tanh", "np.arctan", "np.square", "np.maximum",
                "np.minimum", "abs", "min", "max", "float"}


def _elementwise_call(node):
    fn = ast.unparse(node.func)
    return (fn.startswith("math.") or fn in _ELEMENTWISE) and not node.keywords


def _fresh_or_param(fdef, single):
    """Arrays whose elements at last coordinate k are exactly their base's elements at k:
    the function's parameters, fresh buffers, and `P[...]` reads without slices. Also which
    array each `X = P[...]` reads (a view of it, or a copy)."""
    ok, bases = {a.arg for a in fdef.args.args}, {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = node.value
            if isinstance(v, ast.Call) and ast.unparse(v.func) in ("np.zeros_like", "np.zeros", "np.empty_like"):
                ok.add(node.targets[0].id)
            elif isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name):
                bases[node.targets[0].id] = v.value.id
                if v.value.id in single and all(isinstance(p, (ast.Name, ast.Constant)) for p in _index_parts(v)):
                    ok.add(node.targets[0].id)
    return ok & single, bases


def _stmt_names(s):
    loads, stores = set(), set()
    for node in ast.walk(s):
        if isinstance(node, ast.Name):
            (stores if isinstance(node.ctx, ast.Store) else loads).add(node.id)
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
        loads.add(s.target.id)
    for node in ast.walk(s):  # x[i] = ... writes x
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
            stores.add(node.value.id)
    return loads, stores


def _movable(s):
    return isinstance(s, (ast.Assign, ast.AugAssign)) and not any(
        isinstance(n, ast.Call) and not _elementwise_call(n) for n in ast.walk(s))


# ---------------------------------------------------------------- fusion
class _Rename(ast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old:
            node.id = self.new
        return node


def _fuse_block(stmts, lengths, fresh, params, bases):
    out, run = [], []          # run: [(kind, stmt, loop|None)] since its first loop

    def close():
        loops = [lp for kind, _, lp in run if kind == "loop"]
        if len(loops) < 2 or _pick_var(loops) is None:
            out.extend(s for _, s, _ in run)
        else:
            last = max(i for i, (kind, _, _) in enumerate(run) if kind == "loop")
            hoisted, body, pending = [], [], []
            var = _pick_var(loops)
            for kind, s, lp in run[:last + 1]:
                if kind == "comment":
                    pending.append(s)
                elif kind == "scalar":
                    hoisted += pending + [s]   # (the comment stays for the next loop's body too)
                else:
                    body += pending + [_Rename(lp.var, var).visit(t) for t in lp.node.body]
                    pending = []
            first = loops[0].node
            # the trip count from a parameter's shape if any loop has one (buffers may become scalars)
            first.iter = min((lp.node.iter for lp in loops), key=lambda it: it.args[0].value.value.id not in params)
            first.target = P.name(var, store=True)
            first.body = body
            first.jitad_fused = True
            out.extend(hoisted)
            out.append(first)
            out.extend(s for _, s, _ in run[last + 1:])
        run.clear()

    for s in stmts:
        for sub in ("body", "orelse"):
            block = getattr(s, sub, None)
            if isinstance(block, list) and block and not isinstance(s, ast.FunctionDef):
                setattr(s, sub, _fuse_block(block, lengths, fresh, params, bases))
        lp = _element_loop(s, lengths, fresh, params)
        loops = [r[2] for r in run if r[0] == "loop"]
        if lp is not None:
            if loops and (lp.length != loops[0].length or not _independent_loops(loops, lp)):
                close()
            run.append(("loop", s, lp))
        elif isinstance(s, P.Comment):
            if run:
                run.append(("comment", s, None))
            else:
                out.append(s)
        elif run and _movable(s) and _commutes(s, loops, bases):
            run.append(("scalar", s, None))
        else:
            close()
            out.append(s)
    close()
    return out


def _independent_loops(loops, lp):
    """A later loop's body may run interleaved, element by element, with the earlier ones."""
    names = set()
    for other in loops:
        names |= other.locals
    read = set().union(*(o.scalars_read for o in loops))
    written = set().union(*(o.arrays_written for o in loops))
    invariant = set().union(*(o.invariant for o in loops))
    return not (lp.locals & (names | read)) and not (lp.scalars_read & names) \
        and not (lp.invariant & written) and not (lp.arrays_written & invariant)


def _commutes(s, loops, bases):
    loads, stores = _stmt_names(s)
    written = set().union(*(lp.arrays_written for lp in loops))
    written |= {v for v, b in bases.items() if b in written}   # a row view of a written table
    read = set().union(*(lp.arrays_read | lp.scalars_read | lp.locals | lp.invariant for lp in loops))
    return not (loads & written) and not (stores & (read | written))


def _pick_var(loops):
    for lp in loops:
        if all(lp.var == o.var or lp.var not in P.names_in(o.node) for o in loops):
            return lp.var
    return None



# ---------------------------------------------------------------- scalar replacement
def _scalarize(stmts):
    """`d = np.zeros_like(x)` read and written only as `d[k]` inside one fused loop after it
    -> `d = 0.0` at the start of that loop's body and `d` for `d[k]`."""
    for s in stmts:
        for sub in ("body", "orelse"):
            block = getattr(s, sub, None)
            if isinstance(block, list) and not isinstance(s, ast.FunctionDef):
                _scalarize(block)
    i = 0
    while i < len(stmts):
        s = stmts[i]
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) \
                and isinstance(s.value, ast.Call) and ast.unparse(s.value.func) == "np.zeros_like":
            d = s.targets[0].id
            users = [t for t in stmts[i + 1:] if d in P.names_in(t)]
            if len(users) == 1 and getattr(users[0], "jitad_fused", False) \
                    and d not in P.names_in(users[0].iter) and _only_elements(users[0], d):
                loop = users[0]
                _ToScalar(d, loop.target.id).visit(loop)
                loop.body.insert(0, P.assign(d, P.const(0.0)))
                del stmts[i]
                continue
        i += 1


def _only_elements(loop, d):
    k = loop.target.id
    ok = [True]

    class Check(ast.NodeVisitor):
        def visit_Subscript(self, node):
            if isinstance(node.value, ast.Name) and node.value.id == d:
                if not (isinstance(node.slice, ast.Name) and node.slice.id == k):
                    ok[0] = False
                return
            self.generic_visit(node)

        def visit_Name(self, node):
            if node.id == d:
                ok[0] = False

    for t in loop.body:
        Check().visit(t)
    return ok[0]


class _ToScalar(ast.NodeTransformer):
    def __init__(self, d, k):
        self.d, self.k = d, k

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == self.d:
            return ast.Name(self.d, node.ctx)
        return self.generic_visit(node)


def fuse(fdef, types):
    """Merge element loops of equal length, then turn row buffers used only there into scalars."""
    single = _single(fdef)
    lengths = _Lengths(fdef, types, single)
    fresh, bases = _fresh_or_param(fdef, single)
    fdef.body = _fuse_block(fdef.body, lengths, fresh, {a.arg for a in fdef.args.args}, bases)
    _scalarize(fdef.body)
    return fdef
