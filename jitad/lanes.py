"""K-lane batching of a generated function: one sweep carries K tangent directions at once.

Takes: a generated function (a Python AST `FunctionDef`, as `codegen` prints it: the adjoint of
a tangent function, `f_tangent_grads`), the names of its parameters to batch (its tangent
parameters), the rank of each name (`ranks`: parameters, user variables, adjoints and their
temporaries), and its tapes (`tapes`: name -> "buffer", a buffer of numbers, or "list", a
list of arrays).
Guarantees: `batch(...)` returns the function `name(params...)` in which every batched
parameter, and every value that depends on one, carries a trailing lane axis of length K
(`K = <first batched parameter>.shape[-1]`: a scalar becomes a (K,) array, an array of shape s
one of shape s + (K,)); lane k of every output is what the original function returns for
lane k of the batched inputs. Values that do not depend on the batched parameters -- the
primal of f, its control flow, shapes, indices, integer and bool tapes -- are computed once,
as in the original. For the Hessian (`codegen.hessian`) this is forward-over-reverse's
shape with reverse-over-forward's code: the tangent's adjoint sweep once per K columns of H,
the primal once per K columns, where the loop ran everything once per column.
A statement on lanes is written as the original's statement inside `for lane in range(K)`
(array elements `A[i, j, lane]`; a laned number is a row of one (count, K) array, or a plain
local of the one lane loop that uses it), adjacent lane loops fused into one (`Batch.fuse`);
the array operations that change shapes -- products, outer products, solves, reductions,
allocation -- have explicit lane forms. `NotLaned` (with the reason) is raised for anything
outside those forms -- a test or an index that depends on the lanes, a call of another
generated function, a whole-array read of a laned value the forms do not know, a parameter
not batched that would carry lanes, more than `MAX_LANE_LOOPS` lane loops -- and the caller
keeps its one-column loop: never a wrong answer, only a slower one.
Invariants: the original function is not changed (a copy is rewritten); every assignment of a
laned number copies, lane by lane (no laned number is an alias of another name); a tape read
into a variable that carries no lanes restores that variable's own earlier (unlaned, hence
equal in every lane) value: it reads lane 0; a lane loop's statement reads and writes only
its own lane, so fusing and reordering lane loops keeps the original order per lane.
"""
from __future__ import annotations

import ast
import copy

from .names import Namer
from .runtime import ADDED_PRODUCTS, FIRST_ADDS, SUMS_OF_PRODUCTS


# past this many lane loops (after fusion) the lane form is not made: Numba's compile time grows
# with them (an RK4 integrator's Hessian, its step inlined four times: 76 lane loops, a first
# call of 58 s where the column loop's took 25 s; before fusion 436, past the recursion limit
# of Numba's SSA pass); with checkpointed loops (`ad/recompute`) its Hessian has 45, still a
# first call of 77 s of CPU where the column loop's took 40 s, for a kernel of 378 us against
# 471 us -- not worth it; the other Hessians tests/hessian_funcs.py holds have at most 17
MAX_LANE_LOOPS = 40


def _tuple_valued(e) -> bool:
    """Whether expression `e` is a tuple by its form: a display, `x.shape`, a slice of one, or
    a sum of such (an allocation's shape computed, not written out)."""
    if isinstance(e, ast.Tuple):
        return True
    if isinstance(e, ast.Attribute):
        return e.attr == "shape"
    if isinstance(e, ast.Subscript):
        return isinstance(e.slice, ast.Slice) and _tuple_valued(e.value)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        return _tuple_valued(e.left) or _tuple_valued(e.right)
    return False


class NotLaned(Exception):
    """The function has a construct the K-lane form does not cover (the message says which)."""


# NumPy functions that act elementwise on arrays (a laned operand broadcasts as is)
ELEMENTWISE = frozenset(
    f"np.{n}" for n in "tanh exp log sin cos tan sqrt abs negative sinh cosh arctan arcsin "
    "arccos expm1 log1p square reciprocal sign".split())
_ALLOC = {"np.zeros": "np.zeros", "np.empty": "np.empty", "np.zeros_like": "np.zeros",
          "np.empty_like": "np.empty"}
_PRODUCTS = ("rt.matvec", "rt.vecmat", "rt.matmat", "rt.outer")
# forward mode's fused product rule, `rt.matvec_sum(a, b, c, d)` = a @ b + c @ d: each sum's
# product (its lane form is the two products' lane forms and their sum)
_PRODUCT_SUMS = {f"rt.{s}": f"rt.{p}" for p, s in SUMS_OF_PRODUCTS.items()}
_INPLACE = ("rt.add_outer", "rt.accum1", "rt.accum2", "rt.add_into")
# `rt.add_matvec(d, a, b)`: read as the `d += rt.matvec(a, b)` it stands for (`_Unadded`)
_ADDED = {f"rt.{a}": f"rt.{p}" for p, a in ADDED_PRODUCTS.items() if f"rt.{a}" not in _INPLACE}
_CHECKS = ("rt.check_index", "rt.check_indices", "rt.check_range", "rt.check_tape",
           "rt.check_depth")


def _pure_number_call(f) -> bool:
    """A call a lane loop may run once per lane: a function of numbers without effects."""
    return f is not None and (f.startswith("math.") or f in ELEMENTWISE or f in (
        "rt.pick", "rt.select", "rt.divide", "abs", "min", "max", "float", "int", "np.float64"))


def dotted(e) -> str | None:
    """`np.zeros` for the expression np.zeros (a name or a chain of attributes), else None."""
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attribute):
        base = dotted(e.value)
        return None if base is None else f"{base}.{e.attr}"
    return None


def _expr(text):
    return ast.parse(text, mode="eval").body


def _stmts(text):
    return ast.parse(text).body


class _Reads(ast.NodeVisitor):
    """The names an expression reads, apart from their shapes (`X.shape[k]`, `len(X)`); the
    whole-shape reads (`X.shape`, `X.size`) apart, in `whole`."""

    def __init__(self):
        self.names, self.whole = set(), set()

    def visit_Subscript(self, node):
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape" and isinstance(v.value, ast.Name) \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int) \
                and node.slice.value >= 0:
            return
        self.generic_visit(node)

    def visit_Call(self, node):
        if dotted(node.func) == "len" and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            return
        self.generic_visit(node)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.attr in ("shape", "size", "ndim", "T"):
            self.whole.add(node.value.id)
            return
        self.generic_visit(node)

    def visit_Name(self, node):
        self.names.add(node.id)


def reads(e):
    r = _Reads()
    if e is not None:
        r.visit(e)
    return r.names | r.whole


def _base(e):
    """The name an lvalue or a view expression is rooted at (`A` of `A[i][j]`, `A[1:]`)."""
    while isinstance(e, (ast.Subscript, ast.Attribute)):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def _indices(sl):
    return list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]


def _names_read(s):
    return {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _names_written(s):
    """The names a statement binds or writes into (`A` of `A[i] = v`; a list's `append`)."""
    out = set()
    for n in ast.walk(s):
        if isinstance(n, (ast.Assign, ast.AugAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                out |= {b for b in [_base(t)] if b} | {
                    x.id for x in ast.walk(t) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)}
        elif isinstance(n, ast.For):
            out |= {x.id for x in ast.walk(n.target) if isinstance(x, ast.Name)}
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and isinstance(n.func.value, ast.Name):
            out.add(n.func.value.id)
    return out


def _is_lane_loop(s) -> bool:
    return getattr(s, "lanes", False)


def _counter_step(s):
    """c of `n += c` (n a name, c an integer constant), else None."""
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) \
            and isinstance(s.op, (ast.Add, ast.Sub)) and isinstance(s.value, ast.Constant) \
            and type(s.value.value) is int:
        return s.value.value if isinstance(s.op, ast.Add) else -s.value.value
    return None


class _Shift(ast.NodeTransformer):
    """Reads of n as `n + shift[n]`."""

    def __init__(self, shift):
        self.shift = shift

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and self.shift.get(node.id):
            c = self.shift[node.id]
            return ast.BinOp(ast.Name(node.id, ast.Load()), ast.Add() if c > 0 else ast.Sub(),
                             ast.Constant(abs(c)))
        return node


def _movable(s, ranks) -> bool:
    """A statement a lane loop may move past (see `Batch.fuse`): it binds names (numbers, or
    arrays it does not write into) from calls without effects, checks an index, or is a
    comment."""
    if type(s).__name__ == "Comment":
        return True
    if isinstance(s, ast.Expr):
        return isinstance(s.value, ast.Call) and dotted(s.value.func) in _CHECKS
    if isinstance(s, ast.Assign):
        if not all(isinstance(t, ast.Name) for t in s.targets):
            return False
    elif not (isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name)
              and ranks.get(s.target.id) == 0):
        return False
    return all(_pure_number_call(dotted(c.func)) or dotted(c.func) in (
        "rt.broadcast_dim", "rt.broadcast_step") for c in ast.walk(s.value) if isinstance(c, ast.Call))


def _walk_stmts(body):
    for s in body:
        yield s
        for field in ("body", "orelse"):
            yield from _walk_stmts(getattr(s, field, None) or [])


class _Unadded(ast.NodeTransformer):
    """`rt.add_matvec(d, a, b)` -> `d += rt.matvec(a, b)` (see `_ADDED`): the lanes have the
    product's form."""

    def visit_Expr(self, node):
        c = node.value
        if isinstance(c, ast.Call) and dotted(c.func) in _ADDED and isinstance(c.args[0], ast.Name):
            return ast.copy_location(ast.AugAssign(
                ast.Name(c.args[0].id, ast.Store()), ast.Add(),
                ast.Call(_expr(_ADDED[dotted(c.func)]), c.args[1:], [])), node)
        return node

    def visit_Assign(self, node):
        """`d = rt.first_accum2(x, c)` (an adjoint taking its first contribution, see
        `runtime.FIRST_ADDS`) -> `d = np.zeros_like(x)` and `rt.accum2(d, c)` (`d += c` for
        `first_add`): every laned value is its own array, lane by lane."""
        c = node.value
        f = dotted(c.func) if isinstance(c, ast.Call) else None
        if f is None or not f.startswith("rt.") or f[3:] not in FIRST_ADDS \
                or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return node
        d, (x, g) = node.targets[0].id, c.args
        zeros = ast.Assign([ast.Name(d, ast.Store())],
                           ast.Call(_expr("np.zeros_like"), [x], []), lineno=0)
        accum = FIRST_ADDS[f[3:]]
        add = ast.AugAssign(ast.Name(d, ast.Store()), ast.Add(), g) if accum is None else \
            ast.Expr(ast.Call(_expr(f"rt.{accum}"), [ast.Name(d, ast.Load()), g], []))
        return [ast.copy_location(zeros, node), ast.copy_location(add, node)]


def _unreused(fdef):
    """`d = rt.zeros_into(d, x)` (an array made again in d's, `codegen._reuse_buffers`) ->
    `d = np.zeros_like(x)` (`empty_into`: `np.empty_like`), and d's start `d = np.empty(...)`
    gone: each trip's laned array is its own."""
    into = {}
    for n in ast.walk(fdef):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.Call) and dotted(n.value.func) in ("rt.zeros_into", "rt.empty_into"):
            into[n.targets[0].id] = n
            n.value = ast.Call(_expr("np.zeros_like" if dotted(n.value.func) == "rt.zeros_into"
                                     else "np.empty_like"), [n.value.args[1]], [])
    fdef.body = [s for s in fdef.body if not (
        isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
        and s.targets[0].id in into and isinstance(s.value, ast.Call)
        and dotted(s.value.func) == "np.empty")]
    return fdef


class Batch:
    def __init__(self, fdef, batched, ranks, tapes):
        self.fdef = _Unadded().visit(_unreused(copy.deepcopy(fdef)))
        self.batched = set(batched)
        self.ranks = dict(ranks)
        self.tapes = dict(tapes)            # tape name -> "buffer" | "list"
        names = {n.id for n in ast.walk(self.fdef) if isinstance(n, ast.Name)}
        names |= {a.arg for a in self.fdef.args.args}
        self.namer = Namer(names | {"np", "math", "rt", "range", "len", "max"})
        self.K = self.namer.fresh("K")
        self.l = self.namer.fresh("lane")
        self.laned = set()
        self.pre = []                       # statements the current one needs first (`hoisted`)

    # ---------------------------------------------------------------- ranks
    def rank(self, name):
        r = self.ranks.get(name)
        if r is None:
            raise NotLaned(f"the rank of {name!r} is unknown")
        return r

    def infer_ranks(self):
        """Ranks of the names `ranks` does not give, from their assignments (fixpoint)."""
        for _ in range(4):
            for s in _walk_stmts(self.fdef.body):
                if isinstance(s, ast.Assign) and len(s.targets) == 1 \
                        and isinstance(s.targets[0], ast.Name) \
                        and self.ranks.get(s.targets[0].id) is None:
                    r = self.expr_rank(s.value)
                    if r is not None:
                        self.ranks[s.targets[0].id] = r
                if isinstance(s, ast.For) and isinstance(s.target, ast.Name):
                    self.ranks.setdefault(s.target.id, 0)

    def expr_rank(self, e):
        if isinstance(e, ast.Constant):
            return 0 if isinstance(e.value, (int, float, bool)) else None
        if isinstance(e, ast.Name):
            return self.ranks.get(e.id)
        if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
            a, b = self.expr_rank(e.left), self.expr_rank(e.right)
            return None if a is None or b is None else max(a, b)
        if isinstance(e, ast.UnaryOp):
            return self.expr_rank(e.operand)
        if isinstance(e, ast.Compare):
            rs = [self.expr_rank(x) for x in [e.left] + e.comparators]
            return None if None in rs else max(rs)
        if isinstance(e, ast.Attribute) and e.attr == "T":
            return self.expr_rank(e.value)
        if isinstance(e, ast.Subscript):
            v = e.value
            if isinstance(v, ast.Attribute) and v.attr == "shape":
                return 0
            r = self.expr_rank(v)
            if r is None:
                return None
            idx = _indices(e.slice)
            if any(not isinstance(i, ast.Slice) and self.expr_rank(i) != 0 for i in idx):
                return None
            return r - sum(not isinstance(i, ast.Slice) for i in idx)
        if isinstance(e, ast.Call):
            f = dotted(e.func)
            f = _PRODUCT_SUMS.get(f, f)
            if f in ("rt.matvec", "rt.vecmat"):
                return 1
            if f in ("rt.matmat", "rt.outer"):
                return 2
            if f in ("np.zeros_like", "np.empty_like") or f in ELEMENTWISE:
                return self.expr_rank(e.args[0])
            if f in ("np.zeros", "np.empty") and e.args:
                s = e.args[0]
                return len(s.elts) if isinstance(s, ast.Tuple) else 1
            if f in ("math.sqrt", "math.exp", "math.log", "math.sin", "math.cos", "math.tanh",
                     "float", "int", "max", "min", "abs", "rt.broadcast_dim",
                     "rt.broadcast_step", "len"):
                return 0
            if f == "rt.pick":
                return self.expr_rank(e.args[1])
            if f == "np.eye":
                return 2
            if f in ("np.sum", "np.mean") and len(e.args) == 1 and not e.keywords:
                return 0
            if f == "np.linalg.solve":
                return self.expr_rank(e.args[1])
            if f in ("rt.sum_axis", "rt.mean_axis"):
                r = self.expr_rank(e.args[0])
                return None if r is None else r - 1
            if f == "np.cumsum" and not e.keywords:
                return 1
        return None

    # ---------------------------------------------------------------- which values carry lanes
    def find_laned(self):
        L = self.laned
        L |= self.batched
        views = []          # (name, base) pairs: a name holding a view of (or the same array as) base
        for s in _walk_stmts(self.fdef.body):
            if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                t, v = s.targets[0].id, s.value
                if self.ranks.get(t) and isinstance(v, (ast.Name, ast.Subscript)) \
                        and _base(v) and _base(v) not in self.tapes:
                    views.append((t, _base(v)))
        changed = True
        while changed:
            changed = False

            def add(n):
                nonlocal changed
                if n is not None and n not in L:
                    L.add(n)
                    changed = True
            for s in _walk_stmts(self.fdef.body):
                if isinstance(s, (ast.Assign, ast.AugAssign)):
                    tgt = s.targets[0] if isinstance(s, ast.Assign) else s.target
                    if isinstance(s, ast.Assign) and len(s.targets) != 1:
                        raise NotLaned("a chained assignment")
                    if self.is_restore(s):
                        continue
                    if reads(s.value) & L:
                        if isinstance(tgt, ast.Tuple):
                            for e in tgt.elts:
                                add(_base(e))
                        else:
                            add(_base(tgt))
                elif isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
                    c = s.value
                    f = dotted(c.func)
                    if f in _INPLACE and c.args and any(reads(a) & L for a in c.args[1:]):
                        add(_base(c.args[0]))
                    if isinstance(c.func, ast.Attribute) and c.func.attr == "append" \
                            and any(reads(a) & L for a in c.args):
                        add(_base(c.func.value))
            for a, b in views:
                if a in L:
                    add(b)

    def is_restore(self, s):
        """`x = T[top]` or `x = T.pop()` of a tape T: x's own earlier value (no lanes of its own)."""
        if not isinstance(s, ast.Assign) or not isinstance(s.targets[0], ast.Name):
            return False
        v = s.value
        if isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name):
            return v.value.id in self.tapes
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "pop" \
                and isinstance(v.func.value, ast.Name):
            return v.func.value.id in self.tapes
        return False

    # ---------------------------------------------------------------- rewriting
    def lane_expr(self, e):
        """The number e computes, in lane `l`: laned numbers `x[l]`, laned elements `A[i, l]`."""
        L, lane = self.laned, ast.Name(self.l, ast.Load())
        if not (reads(e) & L):
            return e
        if isinstance(e, ast.Name):
            if self.rank(e.id) != 0:
                raise NotLaned(f"the laned array {e.id!r} read as a number")
            return ast.Subscript(ast.Name(e.id, ast.Load()), lane, ast.Load())
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id in L:
            idx = _indices(e.slice)
            if any(isinstance(i, ast.Slice) for i in idx) or len(idx) != self.rank(e.value.id):
                raise NotLaned(f"a part of the laned array {e.value.id!r} read as a number")
            if any(reads(i) & L for i in idx):
                raise NotLaned("an index that depends on the lanes")
            return ast.Subscript(ast.Name(e.value.id, ast.Load()),
                                 ast.Tuple(idx + [lane], ast.Load()), ast.Load())
        if isinstance(e, ast.Call) and dotted(e.func) in ("np.sum", "np.mean") and len(e.args) == 1 \
                and not e.keywords and isinstance(e.args[0], ast.Name) and e.args[0].id in L \
                and self.rank(e.args[0].id) >= 1:
            x = e.args[0].id            # a whole laned array reduced: its lane l
            return _expr(f"{dotted(e.func)}({x}[{':, ' * self.rank(x)}{self.l}])")
        if isinstance(e, ast.Attribute):
            raise NotLaned(f"`{ast.unparse(e)}` of a laned value")
        if isinstance(e, ast.Call) and not _pure_number_call(dotted(e.func)):
            raise NotLaned(f"`{ast.unparse(e)}` in a number's expression, once per lane")
        e = copy.copy(e)
        for field, value in ast.iter_fields(e):
            if isinstance(value, ast.AST) and field != "func":
                setattr(e, field, self.lane_expr(value) if isinstance(value, ast.expr) else value)
            elif isinstance(value, list):
                setattr(e, field, [self.lane_expr(x) if isinstance(x, ast.expr) else x
                                   for x in value])
        return e

    def lane_loop(self, body):
        loop = ast.For(ast.Name(self.l, ast.Store()), _expr(f"range({self.K})"), body, [], None)
        loop.lanes = True                   # a lane loop (`fuse`)
        return loop

    def fuse(self, stmts):
        """Adjacent lane loops as one loop (each statement of one reads and writes only its own
        lane, so running them lane by lane is running them one after the other); a lane loop
        moves up past statements without lanes that it commutes with to reach the one before
        (fewer loops: less for Numba to compile, and each value stays in a register), and one
        after a lane loop moves above it when they commute."""
        out = []
        seen, moves = {}, {}    # by id(statement): (names read, written); _movable (all kept)

        def names(u):
            if id(u) not in seen:
                seen[id(u)] = (_names_read(u), _names_written(u))
            return seen[id(u)]

        def movable(u):
            if id(u) not in moves:
                moves[id(u)] = _movable(u, self.ranks)
            return moves[id(u)]

        for s in stmts:
            if _is_lane_loop(s) and out:
                r, w = names(s)
                j, shift = len(out) - 1, {}
                while j >= 0 and not _is_lane_loop(out[j]) and movable(out[j]):
                    u = out[j]
                    ur, uw = names(u)
                    step = _counter_step(u)
                    if step and u.target.id not in w:
                        # `top += 1` (a tape's top): the loop moved above it reads top + 1
                        shift[u.target.id] = shift.get(u.target.id, 0) + step
                    elif (r | w) & uw or w & ur:
                        break
                    j -= 1
                if j >= 0 and _is_lane_loop(out[j]):
                    body = s.body
                    if shift:
                        body = [_Shift(shift).visit(copy.deepcopy(x)) for x in body]
                    out[j].body += body
                    jr, jw = names(out[j])
                    seen[id(out[j])] = (jr | r, jw | w)
                    continue
            elif type(s).__name__ != "Comment" and movable(s):
                # a statement without lanes after a lane loop it commutes with goes before it,
                # so that the next lane loop finds this one last (comments between stay)
                k = len(out) - 1
                while k >= 0 and type(out[k]).__name__ == "Comment":
                    k -= 1
                if k >= 0 and _is_lane_loop(out[k]):
                    r, w = names(out[k])
                    ur, uw = names(s)
                    if not ((r | w) & uw or w & ur):
                        out.insert(k, s)
                        continue
            out.append(s)
        return out

    def pad(self, e):
        """An array expression's value with lanes: as is if it has them, else a length-1 lane
        axis (it broadcasts over the lanes); a number as is."""
        if reads(e) & self.laned:
            return self.array_expr(e)
        r = self.expr_rank(e)
        if r is None:
            raise NotLaned(f"the rank of `{ast.unparse(e)}` is unknown")
        return e if r == 0 else _expr(f"np.expand_dims({ast.unparse(e)}, -1)")

    def array_expr(self, e):
        """A laned array expression made of elementwise operations (operands padded)."""
        if isinstance(e, ast.Name):
            return e
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id in self.laned:
            if any(reads(i) & self.laned for i in _indices(e.slice)):
                raise NotLaned("an index that depends on the lanes")
            return e            # leading axes selected: the lane axis stays last
        if isinstance(e, ast.BinOp) and not isinstance(e.op, ast.MatMult):
            return ast.BinOp(self.pad(e.left), e.op, self.pad(e.right))
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return ast.UnaryOp(e.op, self.pad(e.operand))
        if isinstance(e, ast.Call) and dotted(e.func) in ELEMENTWISE and len(e.args) == 1 \
                and not e.keywords:
            return ast.Call(e.func, [self.pad(e.args[0])], [])
        if isinstance(e, ast.Attribute) and e.attr == "T" and isinstance(e.value, ast.Name) \
                and self.rank(e.value.id) == 2:
            return _expr(f"np.transpose({e.value.id}, (1, 0, 2))")
        f = dotted(e.func) if isinstance(e, ast.Call) else None
        if f in _PRODUCTS or f in _PRODUCT_SUMS or f in (
                "np.linalg.solve", "rt.sum_axis", "rt.mean_axis", "np.cumsum"):
            return self.hoisted(e, self.pre)
        raise NotLaned(f"`{ast.unparse(e)}` on laned arrays")

    def alloc(self, target, e):
        """`target = np.zeros(...)` and kin, for a laned target: the shape with the lane axis."""
        f = dotted(e.func)
        a0 = ast.unparse(e.args[0])
        dtype = [ast.unparse(x) for x in e.args[1:]] + [f"{k.arg}={ast.unparse(k.value)}"
                                                         for k in e.keywords]
        if f in ("np.zeros_like", "np.empty_like"):
            if reads(e.args[0]) & self.laned:
                return [ast.Assign([ast.Name(target, ast.Store())], e)]
            shape = f"{a0}.shape + ({self.K},)"
        elif isinstance(e.args[0], ast.Tuple):
            shape = "(" + "".join(f"{ast.unparse(x)}, " for x in e.args[0].elts) + f"{self.K})"
        elif _tuple_valued(e.args[0]) or self.ranks.get(target, 1) > 1:
            # a shape computed as a tuple (`(B,) + W.shape[1:]`, `x.shape`)
            shape = f"({a0}) + ({self.K},)"
        else:
            shape = f"({a0}, {self.K})"
        rest = "".join(", " + d for d in dtype if f in ("np.zeros", "np.empty"))
        return _stmts(f"{target} = {_ALLOC[f]}({shape}{rest})")

    def products(self, target, e):
        """The lane forms of `rt.matvec/vecmat/matmat/outer(a, b)` into `target`."""
        f = dotted(e.func)
        a, b = (self.named(x) for x in e.args)
        la, lb = bool(reads(a) & self.laned), bool(reads(b) & self.laned)
        A, B = ast.unparse(a), ast.unparse(b)
        K, l, fresh = self.K, self.l, self.namer.fresh
        i, j, p = fresh("i"), fresh("j"), fresh("p")
        if f == "rt.matvec" and not la:                 # A (m, n) @ x (n, K)
            return _stmts(f"{target} = rt.matmat({A}, {B})")
        if f == "rt.vecmat" and not lb:                 # v (m, K) . A (m, n) = A.T @ v
            return _stmts(f"{target} = rt.matmat(np.ascontiguousarray({B}.T), "
                          f"np.ascontiguousarray({A}))")
        if f == "rt.matmat" and not la:                 # A (m, n) @ B (n, p, K)
            Bc = fresh("b")
            return _stmts(f"{Bc} = np.ascontiguousarray({B})\n"
                          f"{target} = rt.matmat({A}, {Bc}.reshape(({Bc}.shape[0], {Bc}.shape[1] * {K})))"
                          f".reshape(({A}.shape[0], {Bc}.shape[1], {K}))")
        # loops: a, b as they are (lane index only on the laned ones)
        x, y = self.element(A, la), self.element(B, lb)
        if f == "rt.matvec":        # (m, n) @ (n,): out[i] = sum_j a[i, j] b[j]
            return _stmts(f"{target} = np.zeros(({A}.shape[0], {K}))\n"
                          f"for {i} in range({A}.shape[0]):\n"
                          f"    for {j} in range({A}.shape[1]):\n"
                          f"        for {l} in range({K}):\n"
                          f"            {target}[{i}, {l}] += {x(f'{i}, {j}')} * {y(j)}")
        if f == "rt.vecmat":        # (m,) @ (m, n): out[j] = sum_i a[i] b[i, j]
            return _stmts(f"{target} = np.zeros(({B}.shape[1], {K}))\n"
                          f"for {i} in range({B}.shape[0]):\n"
                          f"    for {j} in range({B}.shape[1]):\n"
                          f"        for {l} in range({K}):\n"
                          f"            {target}[{j}, {l}] += {x(i)} * {y(f'{i}, {j}')}")
        if f == "rt.matmat":        # (m, n) @ (n, q)
            return _stmts(f"{target} = np.zeros(({A}.shape[0], {B}.shape[1], {K}))\n"
                          f"for {i} in range({A}.shape[0]):\n"
                          f"    for {p} in range({A}.shape[1]):\n"
                          f"        for {j} in range({B}.shape[1]):\n"
                          f"            for {l} in range({K}):\n"
                          f"                {target}[{i}, {j}, {l}] += {x(f'{i}, {p}')} * {y(f'{p}, {j}')}")
        if f == "rt.outer":
            return _stmts(f"{target} = np.empty(({A}.shape[0], {B}.shape[0], {K}))\n"
                          f"for {i} in range({A}.shape[0]):\n"
                          f"    for {j} in range({B}.shape[0]):\n"
                          f"        for {l} in range({K}):\n"
                          f"            {target}[{i}, {j}, {l}] = {x(i)} * {y(j)}")
        raise NotLaned(f"{f} on lanes")

    def product_sum(self, target, e):
        """`rt.matvec_sum(a, b, c, d)` (and kin) into `target`: a @ b and c @ d, each in its
        lane form (or padded, one without lanes), and their sum -- broadcast as the runtime's
        sum broadcasts two products of different lengths."""
        a, b, c, d = e.args
        prod = _expr(_PRODUCT_SUMS[dotted(e.func)])
        left, right = (self.pad(ast.Call(prod, [x, y], [])) for x, y in ((a, b), (c, d)))
        return [ast.Assign([ast.Name(target, ast.Store())], ast.BinOp(left, ast.Add(), right))]

    def lift(self, target, e):
        """`target = e` of a laned array target and an unlaned value: e in every lane."""
        tmp = self.namer.fresh("unlaned")
        return _stmts(f"{tmp} = {ast.unparse(e)}\n"
                      f"{target} = np.empty({tmp}.shape + ({self.K},), {tmp}.dtype)\n"
                      f"for {self.l} in range({self.K}):\n"
                      f"    {target}[..., {self.l}] = {tmp}")

    def assign_array(self, t, v):
        """`t = v` for a laned array t."""
        L = self.laned
        if isinstance(v, ast.Call) and dotted(v.func) in _ALLOC:
            return self.alloc(t, v)
        if isinstance(v, ast.List) and not v.elts:
            return [ast.Assign([ast.Name(t, ast.Store())], v)]
        if not (reads(v) & L):
            return self.lift(t, v)
        f = dotted(v.func) if isinstance(v, ast.Call) else None
        if f in _PRODUCTS:
            return self.products(t, v)
        if f in _PRODUCT_SUMS:
            return self.product_sum(t, v)
        if f == "np.linalg.solve" and len(v.args) == 2 and not (reads(v.args[0]) & L):
            S, b = ast.unparse(v.args[0]), self.array_expr(v.args[1])
            if self.expr_rank(v.args[1]) == 1:        # (n, K): K right-hand sides
                return _stmts(f"{t} = np.linalg.solve({S}, np.ascontiguousarray({ast.unparse(b)}))")
            if self.expr_rank(v.args[1]) == 2:        # (n, m, K): m K right-hand sides
                bc = self.namer.fresh("b")
                return _stmts(f"{bc} = np.ascontiguousarray({ast.unparse(b)})\n"
                              f"{t} = np.linalg.solve({S}, {bc}.reshape(({bc}.shape[0], "
                              f"{bc}.shape[1] * {self.K}))).reshape({bc}.shape)")
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "copy" \
                and not v.args and isinstance(v.func.value, ast.Name):
            return [ast.Assign([ast.Name(t, ast.Store())], v)]
        if f in ("rt.sum_axis", "rt.mean_axis") and isinstance(v.args[1], ast.Constant) \
                and isinstance(v.args[1].value, int) and v.args[1].value >= 0:
            x, ax = ast.unparse(self.array_expr(v.args[0])), v.args[1].value
            mean = f" / {x}.shape[{ax}]" if f == "rt.mean_axis" else ""
            return _stmts(f"{t} = np.sum({x}, axis={ax}){mean}")
        if f == "np.cumsum" and len(v.args) == 1 and not v.keywords \
                and self.expr_rank(v.args[0]) == 1:
            x, i = ast.unparse(self.array_expr(v.args[0])), self.namer.fresh("i")
            return _stmts(f"{t} = np.empty(({x}.shape[0], {self.K}))\n"
                          f"for {self.l} in range({self.K}):\n"
                          f"    {t}[0, {self.l}] = {x}[0, {self.l}]\n"
                          f"for {i} in range(1, {x}.shape[0]):\n"
                          f"    for {self.l} in range({self.K}):\n"
                          f"        {t}[{i}, {self.l}] = {t}[{i} - 1, {self.l}] + {x}[{i}, {self.l}]")
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "pop" \
                and not v.args:
            return [ast.Assign([ast.Name(t, ast.Store())], v)]
        if f is not None:
            raise NotLaned(f"`{ast.unparse(v)}` on laned arrays")
        return [ast.Assign([ast.Name(t, ast.Store())], self.array_expr(v))]

    def element(self, name, laned):
        """index -> the text of an element of `name` at that index (in lane l if it is laned)."""
        return (lambda ix: f"{name}[{ix}, {self.l}]") if laned else (lambda ix: f"{name}[{ix}]")

    def named(self, e):
        """An operand as a name (a laned one's lane form computed first, into `pre`)."""
        if isinstance(e, ast.Name):
            return e
        laned = bool(reads(e) & self.laned)
        t = self.namer.fresh("laned" if laned else "operand")
        self.ranks[t] = self.expr_rank(e)
        if laned:
            self.laned.add(t)
        self.pre.append(ast.Assign([ast.Name(t, ast.Store())], self.array_expr(e) if laned else e))
        return ast.Name(t, ast.Load())

    def hoisted(self, e, out):
        """e as a name (its statements appended to `out`) if it is a laned array expression."""
        if isinstance(e, (ast.Name, ast.Constant)) or not (reads(e) & self.laned):
            return e
        r = self.expr_rank(e)
        if not r:
            raise NotLaned(f"`{ast.unparse(e)}`: a laned number inside an expression")
        return self.laned_array(e, r, out)

    def laned_array(self, e, r, out):
        """A new laned name of rank r holding e with lanes (its statements appended to `out`)."""
        t = self.namer.fresh("laned")
        self.ranks[t] = r
        self.laned.add(t)
        out += self.assign_array(t, e)
        return ast.Name(t, ast.Load())

    def stmt(self, s):
        L = self.laned
        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name):
            t, v = s.targets[0].id, s.value
            if t not in L:
                if not (reads(v) & L):
                    return [s]
                if self.is_restore(s):          # x's own unlaned value: lane 0 of the tape
                    r = self.rank(t)
                    if isinstance(v, ast.Subscript):
                        return _stmts(f"{t} = {ast.unparse(v.value)}[{ast.unparse(v.slice)}, 0]")
                    return _stmts(f"{t} = {ast.unparse(v)}[{':, ' * r}0]")
                raise NotLaned(f"{t!r} reads laned values but has none")
            if self.rank(t) == 0:
                return [self.lane_loop([ast.Assign([ast.Subscript(
                    ast.Name(t, ast.Load()), ast.Name(self.l, ast.Load()), ast.Store())],
                    self.lane_expr(v))])]
            return self.assign_array(t, v)
        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Subscript):
            return self.store(s.targets[0], s.value, None, s)
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Subscript):
            return self.store(s.target, s.value, s.op, s)
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
            t = s.target.id
            if t not in L:
                return [s]
            if self.rank(t) == 0:
                return [self.lane_loop([ast.AugAssign(ast.Subscript(
                    ast.Name(t, ast.Load()), ast.Name(self.l, ast.Load()), ast.Store()), s.op,
                    self.lane_expr(s.value))])]
            out = []
            v = self.hoisted(s.value, out) if isinstance(s.value, ast.Call) and \
                dotted(s.value.func) not in ELEMENTWISE else s.value
            return out + [ast.AugAssign(ast.Name(t, ast.Store()), s.op, self.pad(v))]
        if isinstance(s, ast.Assign):
            if reads(s.value) & L:
                raise NotLaned("a laned value unpacked")
            return [s]
        if isinstance(s, ast.Expr):
            return self.expr_stmt(s)
        if isinstance(s, (ast.If, ast.While, ast.For)):
            if reads(s.iter if isinstance(s, ast.For) else s.test) & L:
                raise NotLaned("a test or a loop's range that depends on the lanes")
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            return [s]
        if isinstance(s, ast.Return):
            out = []
            s.value = self.returned(s.value, out)
            return out + [s]
        if isinstance(s, (ast.Pass, ast.Break, ast.Continue)):
            return [s]
        if any(isinstance(n, ast.Name) and n.id in L for n in ast.walk(s)):
            raise NotLaned(f"`{type(s).__name__}` statement on laned values")
        return [s]

    def returned(self, e, out):
        """A returned value with lanes: one that has none (a gradient that does not depend on
        the tangents: zeros, for a linear function) in every lane."""
        if isinstance(e, ast.Tuple):
            return ast.Tuple([self.returned(x, out) for x in e.elts], ast.Load())
        if reads(e) & self.laned:
            return self.hoisted(e, out)
        r = self.expr_rank(e)
        if r is None:
            raise NotLaned(f"the rank of the returned `{ast.unparse(e)}` is unknown")
        if r == 0:
            return _expr(f"np.full({self.K}, {ast.unparse(e)})")
        return self.laned_array(e, r, out)

    def store(self, target, value, op, s):
        """`A[idx] = v` / `A[idx] op= v`."""
        L = self.laned
        A = _base(target)
        if A not in L:
            if reads(value) & L:
                raise NotLaned(f"a laned value written into {A!r}")
            return [s]
        if not isinstance(target.value, ast.Name):
            raise NotLaned("a nested subscript store on lanes")
        idx = _indices(target.slice)
        if any(reads(i) & L for i in idx):
            raise NotLaned("an index that depends on the lanes")
        if any(isinstance(i, ast.Slice) for i in idx) or len(idx) != self.rank(A):
            raise NotLaned(f"a part of the laned array {A!r} written")
        lane = ast.Name(self.l, ast.Load())
        tgt = ast.Subscript(ast.Name(A, ast.Load()), ast.Tuple(idx + [lane], ast.Load()), ast.Store())
        val = self.lane_expr(value)
        body = ast.Assign([tgt], val) if op is None else ast.AugAssign(tgt, op, val)
        return [self.lane_loop([body])]

    def expr_stmt(self, s):
        L = self.laned
        c = s.value
        if not (reads(c) & L):
            return [s]
        f = dotted(c.func) if isinstance(c, ast.Call) else None
        if f in _CHECKS:
            raise NotLaned(f"{f} of laned values")
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "pop" \
                and not c.args:
            return [s]
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "append":
            v = c.args[0]
            if reads(v) & L:
                return [s]
            # an unlaned array on a laned list: with one lane (its restore reads lane 0), not K
            return _stmts(f"{ast.unparse(c.func)}(np.ascontiguousarray({ast.unparse(v)})"
                          f".reshape({ast.unparse(v)}.shape + (1,)))")
        if f == "rt.add_into":
            view, g = c.args
            out = []
            g = self.hoisted(g, out) if isinstance(g, ast.Call) else g
            return out + [ast.Expr(ast.Call(c.func, [view, self.pad(g)], []))]
        if f == "rt.accum1":
            d, g = (self.named(x) for x in c.args)
            D, G = ast.unparse(d), ast.unparse(g)
            lg = bool(reads(g) & L)
            gl = self.element(G, lg)
            i = self.namer.fresh("i")
            return _stmts(f"if {D}.shape[0] == {G}.shape[0]:\n"
                          f"    for {i} in range({G}.shape[0]):\n"
                          f"        for {self.l} in range({self.K}):\n"
                          f"            {D}[{i}, {self.l}] += {gl(i)}\n"
                          f"else:\n"
                          f"    for {i} in range({G}.shape[0]):\n"
                          f"        for {self.l} in range({self.K}):\n"
                          f"            {D}[0, {self.l}] += {gl(i)}")
        if f == "rt.accum2":       # d += c, summed over the axes where d has length 1
            d, g = (self.named(x) for x in c.args)
            D, G = ast.unparse(d), ast.unparse(g)
            lg = bool(reads(g) & L)
            i, j = self.namer.fresh("i"), self.namer.fresh("j")
            gl = self.element(G, lg)(f"{i}, {j}")
            return _stmts(f"for {i} in range({G}.shape[0]):\n"
                          f"    for {j} in range({G}.shape[1]):\n"
                          f"        for {self.l} in range({self.K}):\n"
                          f"            {D}[min({i}, {D}.shape[0] - 1), min({j}, {D}.shape[1] - 1), "
                          f"{self.l}] += {gl}")
        if f == "rt.add_outer":
            d, a, b = (self.named(x) for x in c.args)
            D, A, B = (ast.unparse(x) for x in (d, a, b))
            la, lb = bool(reads(a) & L), bool(reads(b) & L)
            i, j, K, l = self.namer.fresh("i"), self.namer.fresh("j"), self.K, self.l
            x, y = self.element(A, la), self.element(B, lb)
            # a length-1 operand broadcasts, as `rt.add_outer` does
            return _stmts(f"for {i} in range({D}.shape[0]):\n"
                          f"    for {j} in range({D}.shape[1]):\n"
                          f"        for {l} in range({K}):\n"
                          f"            {D}[{i}, {j}, {l}] += "
                          f"{x(f'min({i}, {A}.shape[0] - 1)')} * {y(f'min({j}, {B}.shape[0] - 1)')}")
        raise NotLaned(f"`{ast.unparse(c)}` on laned values")

    def block(self, body):
        out = []
        for s in body:
            if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name) \
                    and s.targets[0].id in self.tapes and s.targets[0].id in self.laned \
                    and isinstance(s.value, ast.Call) and dotted(s.value.func) == "rt.reserve":
                out += self.reserve(s)
                continue
            got = self.stmt(s)
            out += self.pre + got
            self.pre = []
        return self.fuse(out)

    def reserve(self, s):
        """`T = rt.reserve(T, n)` of a laned scalar tape (a (capacity, K) buffer)."""
        T, n = s.targets[0].id, ast.unparse(s.value.args[1])
        new, k, K, l = self.namer.fresh("grown"), self.namer.fresh("k"), self.K, self.l
        return _stmts(f"if {n} > {T}.shape[0]:\n"
                      f"    {new} = np.empty((max({n}, 2 * {T}.shape[0]), {K}), {T}.dtype)\n"
                      f"    for {k} in range({T}.shape[0]):\n"
                      f"        for {l} in range({K}):\n"
                      f"            {new}[{k}, {l}] = {T}[{k}, {l}]\n"
                      f"    {T} = {new}")


def _loop_locals(body, bufs, lane):
    """The laned numbers only one lane loop uses, each written there before it is read: they
    become numbers of that loop (`x[l]` -> `x`; what Numba keeps in a register), rewritten in
    place. Returns their names."""
    where = {}

    def note(node, site):
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in bufs:
                where.setdefault(n.id, set()).add(site)

    def visit(stmts):
        for s in stmts:
            if _is_lane_loop(s):
                note(s, id(s))
            elif isinstance(s, (ast.For, ast.While, ast.If)):
                for part in (getattr(s, "test", None), getattr(s, "iter", None)):
                    if part is not None:
                        note(part, "outside")
                visit(s.body)
                visit(s.orelse)
            else:
                note(s, "outside")

    visit(body)
    loops = {}

    def collect(stmts):
        for s in stmts:
            if _is_lane_loop(s):
                loops[id(s)] = s
            elif isinstance(s, (ast.For, ast.While, ast.If)):
                collect(s.body)
                collect(s.orelse)
    collect(body)

    def own(x, s) -> bool:      # x[l] = e (e without x) is the first statement naming x
        for st in s.body:
            if not any(isinstance(n, ast.Name) and n.id == x for n in ast.walk(st)):
                continue
            t = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else None
            return isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) \
                and t.value.id == x and isinstance(t.slice, ast.Name) and t.slice.id == lane \
                and not any(isinstance(n, ast.Name) and n.id == x for n in ast.walk(st.value))
        return False

    local = set()
    for x, sites in where.items():
        if len(sites) == 1 and "outside" not in sites:
            s = loops[next(iter(sites))]
            if own(x, s):
                local.add(x)
    for s in loops.values():
        names = {x for x in local if id(s) in where[x]}
        if names:
            s.body = [_Local(names, lane).visit(st) for st in s.body]
    return local


class _Local(ast.NodeTransformer):
    """`x[l]` -> `x` for the loop-local laned numbers `names`."""

    def __init__(self, names, lane):
        self.names, self.lane = names, lane

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name) and node.value.id in self.names \
                and isinstance(node.slice, ast.Name) and node.slice.id == self.lane:
            return ast.Name(node.value.id, node.ctx)
        self.generic_visit(node)
        return node


class _Rows(ast.NodeTransformer):
    """The laned numbers as rows of one (count, K) array: `x[l]` -> `rows[k, l]`, `x` ->
    `rows[k]` (one array for Numba to type and count references of, not one per number)."""

    def __init__(self, rows, index, lane):
        self.rows, self.index, self.lane = rows, index, lane

    def visit_Subscript(self, node):
        v = node.value
        if isinstance(v, ast.Name) and v.id in self.index and isinstance(node.slice, ast.Name) \
                and node.slice.id == self.lane:
            return ast.Subscript(ast.Name(self.rows, ast.Load()), ast.Tuple(
                [ast.Constant(self.index[v.id]), node.slice], ast.Load()), node.ctx)
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id in self.index:
            return ast.Subscript(ast.Name(self.rows, ast.Load()),
                                 ast.Constant(self.index[node.id]), node.ctx)
        return node


def unpaid(fdef, tapes) -> str | None:
    """Why the K-lane form of `fdef` would not pay, or None when it does. What lanes save is
    the work done once for K columns instead of once per column: the primal's control flow
    and tapes, matrix products (K products become one with K times the columns), and arrays
    allocated in loops. A function without any of these is element loops over arrays: there
    the lanes only widen every array K times (K times the memory each sweep streams) and the
    one-column loop, its arrays in cache, runs faster (a Rosenbrock sum of n = 1,000: 3.1 ms
    against 2.0 ms)."""
    if tapes:
        return None
    for node in ast.walk(fdef):
        f = dotted(node.func) if isinstance(node, ast.Call) else None
        if f in _PRODUCTS or f in _PRODUCT_SUMS or f in _ADDED or f == "np.linalg.solve":
            return None
    for loop in ast.walk(fdef):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        for node in ast.walk(loop):
            f = dotted(node.func) if isinstance(node, ast.Call) else ""
            if f and not (_pure_number_call(f) or f in _CHECKS or f in ("range", "len")):
                return None
    return ("element loops only (no tapes, matrix products or arrays made in loops): lanes "
            "would widen every array K times and save little; JITAD_HESSIAN_LANES=K forces them")


def batch(fdef, name, batched, ranks, tapes):
    """The K-lane form of `fdef` named `name` (see the module docstring), or `NotLaned`."""
    b = Batch(fdef, batched, ranks, tapes)
    for t, kind in b.tapes.items():
        b.ranks[t] = 1          # a buffer of numbers; a list (its rank is never read)
    b.infer_ranks()
    b.find_laned()
    bad = [p.arg for p in b.fdef.args.args if p.arg in b.laned and p.arg not in b.batched]
    if bad:             # its caller passes it without lanes
        raise NotLaned(f"the parameter {bad[0]!r} would carry lanes")
    body = b.block(b.fdef.body)
    loops = sum(_is_lane_loop(n) for s in body for n in ast.walk(s))
    if loops > MAX_LANE_LOOPS:
        raise NotLaned(f"{loops} lane loops (more than {MAX_LANE_LOOPS}: Numba's compile time "
                       f"grows with them)")
    first = next(p.arg for p in b.fdef.args.args if p.arg in b.batched)
    head = _stmts(f"{b.K} = {first}.shape[-1]")
    bufs = sorted(n for n in b.laned if n not in b.batched and n not in b.tapes
                  and b.ranks.get(n) == 0)
    local = _loop_locals(body, set(bufs), b.l)
    bufs = [n for n in bufs if n not in local]
    rows = b.namer.fresh("lanes")
    if bufs:
        head += _stmts(f"{rows} = np.zeros(({len(bufs)}, {b.K}))")
    b.fdef.body = head + [_Rows(rows, {n: k for k, n in enumerate(bufs)}, b.l).visit(s)
                          for s in body]
    b.fdef.name = name
    ast.fix_missing_locations(b.fdef)
    return b.fdef
