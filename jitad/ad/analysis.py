"""What the adjoint needs, for one specialization and the parameters to differentiate.

Takes: a typed `Spec`, the differentiated parameters, the `Program` (for callees).
Guarantees: `Analysis` knows every variable's assignment sites (loop depth, enclosing blocks),
which variables are active (`activity`), which values the adjoint reads (`needed`, closed
under "is a view of": a value read through a view is a read of its base) and which of those
the forward overwrites and so must push (`pushed`), except the arrays it computes again at the
start of their block's adjoint (`remat`: a `cheap` primitive -- +, -, *, a transpose, a view or
element read -- of values that hold still until that adjoint: unchanged for the call, or
restored by the adjoint by then; never of an array written after the value was made, nor of
a view of one: `_rematerial` states the rule); it refuses, at the user's line, writes it
cannot differentiate: into an array the function did not create, through an alias a later read
observes, in-place updates of a shared array (decided on the control-flow graph, `flow`; a
helper call's results are judged one by one: `result_origins` says which arguments, or other
results, each may share storage with).
Those write rules are a class of their own, `Writes`, which `Analysis` extends and the
`analyse` pass runs alone (`check_writes`: before any code, for eager mode as for compiled).
"""
from __future__ import annotations

import ast
import itertools
from collections import Counter

from .. import activity, ir

from ..errors import UnsupportedError
from ..flow import Flow
from ..ir import Bind, For, If, Return, SetItem, Slice, Var, While
from ..primitives import CALL, CONCAT, COPY, GETITEM, get
from ..primitives.forms import rule_at, settle_statics
from ..primitives.lists import LIST_APPEND
from ..types import NP_DTYPE, Ty, arg_types as _argtys


_SUMS = (get("add"), get("sub"))


def _ranks(s: Bind, types):
    # a shape operand (`np.broadcast_to(x, y.shape)`) has no rank: 0
    return [getattr(types[a.name], "ndim", 0) if isinstance(a, Var) else 0 for a in s.args]


def rule_for(s: Bind, types):
    """The primitive whose rules apply to `s` at its operands' ranks and dtypes
    (`forms.rule_at`: a complex operand picks a `complex_form`)."""
    complex_in = any(isinstance(a, Var) and getattr(types.get(a.name), "is_complex", False)
                     for a in s.args)
    return rule_at(s.op, _ranks(s, types), s.statics, complex_in)


def bind_statics(s: Bind, types) -> dict:
    """A bind's static arguments as generated code uses them (`forms.settle_statics`)."""
    return settle_statics(s.op, s.statics, _ranks(s, types))


def gathers(s, types) -> bool:
    """`x[idx]`, `x[rows, cols]`, `x[mask]`, `x[1, idx]`: an integer or boolean array among
    the indices makes NumPy (and Numba) copy the entries into a new array."""
    return isinstance(s, Bind) and s.op is GETITEM and any(
        isinstance(a, Var) and getattr(types.get(a.name), "ndim", 0) for a in s.args[1:])


# views NumPy lets one write into (np.diag/np.diagonal of a matrix, np.broadcast_to and
# sliding_window_view are read-only views: writing raises there)
_WRITABLE_VIEWS = frozenset({"transpose", "transpose_axes", "reshape", "np.moveaxis", "swapaxes",
                             "expand_dims", "squeeze", "ravel", "flip", "flip_all", "atleast_1d",
                             "atleast_2d", "stack_part", "split_front", "split_back"})


def makes_view(b: Bind, types) -> bool:
    """Whether bind `b`'s result may share its first operand's buffer: a view primitive, or
    one whose form at these operand ranks is (`np.diag` of a matrix, unlike of a vector)."""
    if b.op.view or gives_operand(b, types):
        return True
    return not b.op.structural and rule_for(b, types).view


def gives_operand(b: Bind, types) -> bool:
    """Whether bind `b` gives its operand array itself, another name for it as `y = x` is:
    np.float64(x) or np.asarray(x, dtype=...) of an array of that dtype already (NumPy's
    astype with `copy=False`; generated code copies, which only the write rules could tell
    apart: they take it for `y = x`)."""
    if b.statics.get("copy") is False and b.args and isinstance(b.args[0], Var):
        x = types.get(b.args[0].name)
        return bool(getattr(x, "ndim", 0)) and NP_DTYPE.get(x.dtype) == b.statics.get("dtype")
    return False


def new_array(b: Bind, types) -> bool:
    """Whether bind `b` always produces a new array: `ir.fresh_result` at its operand ranks
    (`makes_view`), or a gather."""
    return (ir.fresh_result(b) and not makes_view(b, types)) or gathers(b, types)


def _arrayish(types, name) -> bool:
    return bool(getattr(types.get(name), "ndim", 0))


def result_origins(prog, s: Bind, types, memo=None, depth: int = 0):
    """Where each result of call `s` (typed by `types`) may take its storage from, one entry
    per target: (the positions of the call's arguments it may be, or be a view of; tokens of
    the arrays of the callee's own it may be a view of: two results sharing a token may share
    storage, `return S, S[0]`). A result that is no array has neither. None when unknown (the
    callee not found, or its return not one value per target). `memo` (a dict) keeps each
    callee's answer for the caller's next question.

    Decided on the callee's IR, as a least fixed point over its binds (`u = u[1:]` in a loop):
    a fresh array (`new_array`) is its own; a view (`s[0]`, `s.T`, `u = s`) shares its
    operand's origins (a "view" of no array operand is its own); a call its callee's
    results', recursively; any other array result (list forms) everything its operands have
    and one token of its own."""
    callee = prog.specs.get((id(s.callee), _argtys(s, types)))
    if callee is None or depth > 8:
        return None
    ret = callee.ir.body[-1]
    if not isinstance(ret, Return) or len(ret.values) != len(s.targets) \
            or len(s.args) != len(callee.ir.params):
        return None
    memo = {} if memo is None else memo
    if id(callee) not in memo:
        memo[id(callee)] = _origins(prog, callee, memo, depth)
    return memo[id(callee)]


def _origins(prog, callee, memo, depth):
    """`result_origins` of the values `callee` returns, flow-sensitively: what an array name
    read by a statement may be there is the union, over its definitions that reach that
    statement (`Flow`, which knows a `range(3)` loop runs: `u = np.tanh(u)` in one leaves no
    path on which the returned `u` is still the parameter), of what each definition made it
    (the parameter itself where the function's entry reaches the read with no definition in
    between). A least fixed point over the definitions (`u = u[1:]` in a loop reaches
    itself). A list (a name stored into, `ls[j] = u`) is followed flow-insensitively: every
    definition and every array stored into it."""
    params, ctypes = callee.ir.params, callee.types
    ret = callee.ir.body[-1]
    stmts = list(ir.walk(callee.ir.body))
    binds = [b for b in stmts if isinstance(b, Bind)]
    flow = Flow(callee.ir.body, trips=True)
    defs = {}
    for b in binds:
        for t in b.targets:
            defs.setdefault(t, []).append(b)
    stores = [w for w in stmts if isinstance(w, SetItem) and not isinstance(ctypes.get(w.array), Ty)]
    lists = {w.array for w in stores}
    inner = {id(b): result_origins(prog, b, ctypes, memo, depth + 1)
             for b in binds if b.op is CALL}
    unknown = {("p", i) for i in range(len(params))} | {("own", "?")}
    made = {}           # (id(definition), target) -> what it made the target share
    reach = {}

    def reaches(d, at, name):
        key = (id(d), id(at), name)
        if key not in reach:
            reach[key] = flow.reaches(d, at, avoid=defs.get(name, []))
        return reach[key]

    def of(a, at):
        """What array `a`, read by statement `at`, may share storage with."""
        if not (isinstance(a, Var) and _arrayish(ctypes, a.name)):
            return set()
        name = a.name
        if name not in params and name not in defs:
            return unknown
        out = set()
        if name in params and (name in lists or reaches(None, at, name)):
            out.add(("p", params.index(name)))
        for d in defs.get(name, []):
            if name in lists or reaches(d, at, name):
                out |= made.get((id(d), name), set())
        if name in lists:
            for w in stores:
                if w.array == name:
                    out |= of(w.value, w)
        return out

    changed = True
    while changed:
        changed = False
        for b in binds:
            for k, t in enumerate(b.targets):
                if not _arrayish(ctypes, t):
                    continue
                if new_array(b, ctypes):
                    add = {("own", id(b), k)}
                elif b.op is CALL:
                    got = inner[id(b)]
                    if got is None:
                        add = {o for a in b.args for o in of(a, b)} | {("own", id(b), "?")}
                    else:
                        add = {o for i in got[k][0] for o in of(b.args[i], b)} \
                            | {("own", id(b), tok) for tok in got[k][1]}
                elif b.op is GETITEM or makes_view(b, ctypes):
                    # (a call with no array operand, `np.eye(3, 4)` without a rule, is new)
                    base = b.args[0] if b.args else None
                    add = of(base, b) if isinstance(base, Var) and _arrayish(ctypes, base.name) \
                        else {("own", id(b), k)}
                else:
                    add = {o for a in b.args for o in of(a, b)} | {("own", id(b), k)}
                if not add <= made.setdefault((id(b), t), set()):
                    made[(id(b), t)] |= add
                    changed = True
    out = []
    for v in ret.values:
        o = of(v, ret)
        out.append((frozenset(x[1] for x in o if x[0] == "p"),
                    frozenset(x for x in o if x[0] == "own")))
    return out


def result_sources(prog, s: Bind, types, memo=None) -> dict:
    """target -> the caller's arrays call `s`'s result there may share storage with: the
    array arguments it may be (or view) and the other targets that may view the same array
    of the callee's own (`result_origins`); every array argument and every other target when
    unknown."""
    arrays = [a.name for a in s.args if isinstance(a, Var) and _arrayish(types, a.name)]
    got = result_origins(prog, s, types, memo)
    if got is None:
        return {t: arrays + [u for u in s.targets if u != t] for t in s.targets}
    out = {}
    for k, t in enumerate(s.targets):
        params, own = got[k]
        out[t] = [s.args[i].name for i in sorted(params)
                  if isinstance(s.args[i], Var) and _arrayish(types, s.args[i].name)]
        out[t] += [u for j, u in enumerate(s.targets) if j != k and own & got[j][1]]
    return out


def returns_fresh(prog, s: Bind, types) -> bool:
    """Whether call `s` (typed by `types`) gives arrays its callee created: never its arguments
    or views of them, and no two results views of one array (`result_origins`); a view of an
    array it made (`return S[0]`) shares nothing with the caller's."""
    got = result_origins(prog, s, types)
    return got is not None and all(not params for params, _ in got) and not any(
        a[1] & b[1] for a, b in itertools.combinations(got, 2))


_ANALYSING = set()     # callee signatures whose Analysis `results_kept` is building (cycles)


class Writes:
    """The write rules for one specialization (signature-typed, independent of what is
    differentiated): `y[i] = v`, `y += e` on an array and the in-place library calls only into
    arrays the function created, and no write an alias made before it can observe after it
    (`check`, decided on the control-flow graph). `Analysis` extends it; `check_writes` is
    what the `analyse` pass runs."""

    def __init__(self, spec, prog):
        self.spec = spec
        self.types = spec.types
        self.prog = prog
        self.root = spec.ir.body
        self.origins = {}    # callee -> `result_origins` (its IR does not change meanwhile)
        self._uses = self._defs = None   # (`_view_of_a_temporary`)

    def check(self):
        """Refuse, at the user's line: `y += e` (or an in-place library call) on an array
        that may be an argument or shared with another variable; `y[i] = v` into an array the
        function did not create (`_check_write_target`); and `y[i] = v` that an alias of y (u = y, a view y[k], y.T, y.reshape, a helper's
        view) could observe -- some run makes the alias, writes, then reads the alias without
        making it again: the adjoint treats u as a value copied before the write, which would
        be a silently wrong gradient. A fresh `y = ...` between the alias and the write, or
        the alias made again between the write and the read, is fine (`flow` decides). Where
        y is another name for an array (`y = z`, or `y, t = st` of a tuple local: `y = st_0`),
        z and z's aliases are aliases of y too: the write is fine only if none of them is
        read after it."""
        stmts = list(ir.walk(self.root))
        flow = Flow(self.root, trips=True)
        defs = {}
        for s in stmts:
            for t in ir.writes(s):
                defs.setdefault(t, []).append(s)
        for s in stmts:
            # `y += e` on an array updates y's buffer in Python; jitad computes a new array,
            # which is the same only if nothing else can refer to y's buffer here
            if isinstance(s, Bind) and s.inplace and getattr(self.types.get(s.target), "ndim", 0):
                y = s.target
                param, other = self._shared_defs(y, s, defs, flow)
                if param and not other and s.op.symbol and self._callers_array(y):
                    param = False       # x += e on the user's own argument: a new array
                if param or other:
                    u, op = self.spec.ir.user_name(y), s.op.symbol
                    shared = "is an argument" if param else "may be shared with another variable"
                    raise UnsupportedError(
                        f"'{u} {op}= ...' would update, in place, an array that {shared}; "
                        f"write {u} = {u} {op} ... (or copy it first)" if op else
                        f"this call would update '{u}' in place, an array that {shared}; "
                        f"jitad only writes into arrays the function creates (e.g. {u} = "
                        f"{u}.copy() or np.zeros(...))", s.loc,
                        "in-place update of a shared array")
        writes = [s for s in stmts if isinstance(s, SetItem)]
        for w in writes:
            self._check_write_target(w, defs, flow)
        # `y += e` (np.add.at(y, ...)) on an array changes y's buffer as a write does: an alias
        # of y read after it would show the update, which jitad's new array does not
        updates = [s for s in stmts if isinstance(s, Bind) and s.inplace
                   and getattr(self.types.get(s.target), "ndim", 0)]
        for w in writes + updates:
            y = w.array if isinstance(w, SetItem) else w.target
            # aliases of y, transitively (u = y, v = u[1:], ...), and the arrays y is another
            # name for (y = z: z, and z's own aliases, made before or after y = z)
            # (the statement making the alias, the alias, the statement that must reach the
            # write: the one making the alias, or for one reached through a copy y = z, that
            # copy): one target of a call each
            # (`named`: src is y's buffer by name -- y, or what y is another name for --, so
            # what src is a copy of is too; an alias made from y is y's buffer only as that
            # alias's statement made it: its other definitions point it at other arrays)
            aliases, frontier, seen = [], [(y, None, True, None)], set()
            while frontier:
                src, anchor, named, made = frontier.pop()
                found = [(s, t) for s in stmts for t, sources in self.alias_sources(s).items()
                         if src in sources]
                if made is not None:
                    # (src holds the buffer as `made` gave it: a statement reading src where
                    # every path from `made` passes a definition of src by a new array -- the
                    # loop of reduce(f, [a, b]) making acc f's value -- reads another array)
                    others = [d for d in defs.get(src, [])
                              if d is not made and self._new_array(d, src)]
                    found = [(s, t) for s, t in found
                             if flow.reaches(made, s, avoid=others)]
                if named:
                    found += [(s, z) for s in defs.get(src, [])
                              for z in [self.copy_source(s)] if z is not None]
                for s, t in found:
                    # (per anchor: one reached through a copy after the write may be reached
                    # through one before it too)
                    if t == y or (id(s), t, id(anchor)) in seen:
                        continue
                    seen.add((id(s), t, id(anchor)))
                    # (a copy of y's reaches y's buffer from the other side: what was made from
                    # z at any time shares it, so the copy itself must reach the write)
                    at = anchor or s
                    aliases.append((s, t, at))
                    by_name = t == self.copy_source(s)
                    frontier.append((t, anchor or (s if by_name else None), by_name,
                                     None if by_name else s))
            # a fresh `y = ...` after the alias was made points y at another buffer
            rebinds = [s for s in defs.get(y, []) if self._new_array(s, y)]
            for a, t, at in aliases:
                # the write changes what the alias shows when some run makes the alias, then
                # writes (y not rebound in between), then reads the alias (not made again)
                if not flow.reaches(at, w, avoid=rebinds):
                    continue
                if any(flow.reaches(w, r, avoid=defs.get(t, []))
                       for r in stmts if t in self._stmt_reads(r)):
                    u, v = self.spec.ir.user_name(y), self.spec.ir.user_name(t)
                    what = "write into" if isinstance(w, SetItem) else "in-place update of"
                    copy = _copy_hint(a, u, v)
                    raise UnsupportedError(
                        f"this {what} '{u}' would also change '{v}', an alias of it "
                        f"made at line {a.loc.line}; jitad cannot differentiate writes seen through "
                        f"an alias — make a copy there ({copy})", w.loc,
                        "write through an alias")

    def _makes_alias(self, s):
        if s.op is GETITEM:        # a view unless it is one element or a gather
            t = self.types.get(s.target)
            return t is not None and t.ndim > 0 and not gathers(s, self.types)
        return makes_view(s, self.types)

    def _new_array(self, b, y) -> bool:
        """Whether bind `b` always gives `y` (one of its targets) an array no one else refers
        to (for a call: none of its arguments; another of its results may view it too, an
        alias the write check sees; for a view, `_view_of_a_temporary`)."""
        if isinstance(b, Bind) and b.op is CALL:
            got = result_origins(self.prog, b, self.types, self.origins)
            return got is not None and not got[b.targets.index(y)][0]
        return isinstance(b, Bind) and (new_array(b, self.types) or self._view_of_a_temporary(b))

    def _view_of_a_temporary(self, b) -> bool:
        """A view whose operand is a new array assigned once before it in the same block (so
        each time the view is made, its operand was made anew) and read only between the two,
        by statements making no other name of its buffer (`_fills_or_reads`): the view is
        the only name of that buffer, as NumPy's result of np.take(a, idx, axis=-1) (a
        gather between two moveaxis) or `(2 * M).T` is a new array to the user."""
        # (`_makes_alias`: a row `(2 * M)[1]`, np.take(-M, 2, axis=0), is a view too)
        if not (isinstance(b, Bind) and self._makes_alias(b) and b.args
                and isinstance(b.args[0], Var)
                and (b.op is GETITEM or b.op.name in _WRITABLE_VIEWS)):
            return False
        src = b.args[0].name
        if self._uses is None:
            self._uses, self._defs = {}, {}
            for s in ir.walk(self.root):
                for n in ir.own_reads(s):
                    self._uses.setdefault(n, []).append(s)
                for t in ir.writes(s):
                    self._defs.setdefault(t, []).append(s)
        defs = self._defs.get(src, [])
        if not (len(defs) == 1 and defs[0] is not b and src not in self.spec.ir.params
                and self._new_array(defs[0], src)):
            return False
        block = next((blk for blk in ir.blocks(self.root) if any(x is b for x in blk)), [])
        at = [k for k, x in enumerate(block) if x is b or x is defs[0]]
        if not (len(at) == 2 and block[at[0]] is defs[0]):
            return False
        # src's other readers are all between the two, and none makes another name of its
        # buffer: writes into it (what `maps` makes of `src = np.exp(S)`: src = empty(...),
        # then a loop writing each element; the loop a generated tangent fills src =
        # np.zeros_like(...) with, read again for a Hessian; a user's own filling loop), and
        # reads giving numbers or new arrays (an element, np.zeros_like(src), a sum)
        between = {id(y) for x in block[at[0] + 1:at[1]] for y in ir.walk([x])}
        readers = self._uses.get(src, [])
        return sum(r is b for r in readers) == 1 and all(
            r is b or (id(r) in between and self._fills_or_reads(r, src)) for r in readers)

    def _fills_or_reads(self, r, src) -> bool:
        """Whether statement `r`, reading `src` once, writes into it (`src[i] = v`, v not src)
        or only reads it into numbers or new arrays: no name of src's buffer comes of it."""
        if isinstance(r, SetItem):
            return r.array == src and ir.reads(r).count(src) == 1
        return isinstance(r, Bind) and r.op is not CALL and not r.inplace \
            and not r.op.effect and (new_array(r, self.types) or all(
                isinstance(self.types.get(t), Ty) and self.types[t].ndim == 0
                for t in r.targets))

    def copy_source(self, b):
        """z when bind `b` is `y = z` of an array z: another name for z's buffer (`u = v`,
        what `tuple_values` makes of `u, t = st` for a tuple local: `u = st_0`, and
        `u = np.float64(v)` of a float array, `gives_operand`), else None."""
        if isinstance(b, Bind) and (b.op is COPY or gives_operand(b, self.types)) \
                and len(b.args) == 1 and isinstance(b.args[0], Var) \
                and _arrayish(self.types, b.args[0].name):
            return b.args[0].name
        return None

    def _callers_array(self, y) -> bool:
        """Whether parameter y of this function is an array the user passed: a parameter of
        the function the user called (`Program.entry`), which nothing in the program calls
        again (no recursion, whose caller's frame would see the update). There `y += e` (an
        augmented assignment; a call that updates in place, np.add.at, stays refused)
        computes y + e into a new array named y, as jitad always does: the function's value
        and derivatives are Python's, and -- jitad never changes the caller's arrays -- the
        array given stays as it was (plain Python would update it in place). Aliases of y
        read after the update are refused as for any update (`check`)."""
        fn = self.spec.fn
        return getattr(self.prog, "entry", None) is self.spec and y in self.spec.ir.params \
            and not any(isinstance(s, Bind) and s.callee is fn
                        for sp in self.prog.specs.values() for s in ir.walk(sp.ir.body))

    def _shared_defs(self, y, at, defs, flow):
        """(whether y may still be the argument at `at`, a definition of y that may make it
        share its buffer with an array this function did not create -- a view, a loop
        variable, another variable that may hold one -- and reaches `at` with no new array
        assigned to y in between, or None).

        `y = z` is another name for z's buffer: it counts as created here when every value
        of z it can take was (z's own definitions reaching it, followed through copies, so a
        cycle of copies -- a swap `a, b = b, a` -- ends). That the two names share the buffer
        is the alias rule's business (`check`: z may not be read after a write through y; it
        takes every name copies connect for an alias, so a swap of two new arrays whose other
        name is read after the write is still refused)."""
        fresh = [b for b in defs.get(y, []) if self._new_array(b, y)]
        param = y in self.spec.ir.params and flow.reaches(None, at, avoid=fresh)
        other = next((b for b in defs.get(y, []) if not self._new_array(b, y)
                      and flow.reaches(b, at, avoid=fresh)
                      and not self._copies_created_here(b, defs, flow)), None)
        return param, other

    def _copies_created_here(self, b, defs, flow) -> bool:
        """Whether `b` is a copy `y = z` (`copy_source`) whose z holds, whenever `b` runs, an
        array this function created: searched over (name, statement) pairs back through
        copies, every other definition of a name reaching its statement (with no new array
        assigned in between) new, and no argument among them."""
        z = self.copy_source(b)
        if z is None:
            return False
        todo, seen = [(z, b)], set()
        while todo:
            v, at = todo.pop()
            if (v, id(at)) in seen:
                continue
            seen.add((v, id(at)))
            fresh = [d for d in defs.get(v, []) if self._new_array(d, v)]
            if v in self.spec.ir.params and flow.reaches(None, at, avoid=fresh):
                return False
            for d in defs.get(v, []):
                if d in fresh or not flow.reaches(d, at, avoid=fresh):
                    continue
                src = self.copy_source(d)
                if src is None:
                    return False
                todo.append((src, d))
        return True

    def _check_write_target(self, w, defs, flow):
        """`y[i] = v` only into an array this function created: every definition of y that can
        reach the write (the argument itself, a view, another variable, a loop variable) must
        be a new array. A write into the caller's data would change it and break the
        adjoint's replay; `x = x.copy(); x[i] = v` is fine."""
        y = w.array
        user = self.spec.ir.user_name(y)
        param, other = self._shared_defs(y, w, defs, flow)
        why = None
        if param:
            cap = self.spec.ir.captured
            kind = "a global or closure array" if cap is not None and user in (
                h.param for h in cap.hidden) else "an argument"
            why = f"'{user}' is {kind} of {self.spec.ir.name}"
        elif other is not None:
            if isinstance(other, Bind) and other.op is CALL:
                name = getattr(other.callee, "__name__", None) or "a helper"
                src = (f"the result of {name}(), which may be one of its arguments or a view "
                       "of one")
            else:
                src = "a view or another variable" if isinstance(other, Bind) else "a loop"
            why = f"'{user}' may alias another array (it is assigned from {src})"
        if why:
            raise UnsupportedError(
                f"{why}; jitad only writes into arrays the function creates "
                f"(e.g. {user} = {user}.copy() or np.zeros(...))", w.loc,
                "write into an array not created here")

    def alias_sources(self, s) -> dict:
        """target of statement `s` -> the arrays whose storage it may share: the operand of a
        view (`s[0]`, `s.T`, a reshape) or of `u = s`, the list an array is appended to, and
        for a helper's result the arguments it may be a view of (`def first(s): return s[0]`)
        and the other results that may view the same array (`result_sources`, per target:
        `a, b = g(x)` may make b alone an alias of x). Array targets only."""
        if not isinstance(s, Bind):
            return {}
        if s.op is CALL:
            shared = result_sources(self.prog, s, self.types, self.origins)
            return {t: v for t, v in shared.items() if v and _arrayish(self.types, t)}
        if not _arrayish(self.types, s.target):
            return {}
        if s.op is LIST_APPEND:     # the list holds the appended array itself
            x = s.args[1]
            return {s.target: [x.name]} if isinstance(x, Var) and self.types[x.name].ndim else {}
        if s.args and self._makes_alias(s) and isinstance(s.args[0], Var):
            return {s.target: [s.args[0].name]}
        return {}

    @staticmethod
    def _stmt_reads(s):
        if isinstance(s, (Bind, SetItem, Return)):
            return ir.reads(s)
        if isinstance(s, If):
            return [s.test]
        if isinstance(s, For):
            return [n for a in (s.start, s.stop, s.step) for n in ir.atom_names(a)]
        return []



def _copy_hint(a, u, v) -> str:
    """The copy that would end alias `v` (of `u`) made by statement `a`: the expression the
    user wrote there (its source at `a.loc`, `S1[k]` or `S1[1:].T`) with `.copy()`, assigned
    to `v` when v is a name (`v = S1[k].copy()`); `v = u.copy()` when the source does not
    show it (no column span, not one expression, or one not reading u)."""
    loc = getattr(a, "loc", None)
    text = None
    if loc is not None and loc.end_col is not None and loc.end_col > loc.col:
        text = loc.source_line()[loc.col:loc.end_col].strip()
        try:
            node = ast.parse(text, mode="eval").body
        except SyntaxError:
            text = None
        else:
            if not any(isinstance(n, ast.Name) and n.id == u for n in ast.walk(node)):
                text = None     # (not the expression making the alias: `u, t = st`)
            elif isinstance(node, (ast.Name, ast.Subscript, ast.Attribute, ast.Call)):
                text = ast.unparse(node)
            elif text:
                text = f"({ast.unparse(node)})"
    if not text:
        text = u
    return f"{v} = {text}.copy()" if v.isidentifier() else f"{text}.copy()"


def check_writes(spec, prog):
    """Refuse, at the user's line, the writes of `spec` jitad cannot differentiate (`Writes`)."""
    Writes(spec, prog).check()


class Analysis(Writes):
    """Block structure, sites, ownership and what the adjoint reads, for one Spec + wrt."""

    def __init__(self, spec, wrt, prog, refuse=True):
        Writes.__init__(self, spec, prog)
        self.active = activity.active(spec, wrt, refuse, prog)
        self.sites = {}      # var -> list of (stmt, loop_depth, path)
        self.uses = {}       # var -> list of path
        self.parent = {}     # id(block) -> (path)
        self.top_first = {}  # var -> the first site if it is a top-level bind before any other
        self.loop_blocks = set()   # ids of loop bodies (and while conditions)
        self.path_of = {}          # id(statement) -> ids of the blocks holding it, outermost first
        body = self.root
        for p in spec.ir.params:
            self.sites.setdefault(p, []).append((None, 0, (id(body),)))
        self._scan(body, (id(body),), 0)
        self.needed = set()
        self.pushed = set()
        self.also_needed = set()    # read by code the adjoint computes again (`need`)
        self.check()
        self.written = {s.array for s in ir.walk(body) if isinstance(s, SetItem)}
        self._fix()

    def _scan(self, block, path, depth):
        for s in block:
            self.path_of[id(s)] = path
            for n in self._stmt_reads(s):
                self.uses.setdefault(n, []).append(path)
            if isinstance(s, Bind):
                for t in s.targets:
                    self.sites.setdefault(t, []).append((s, depth, path))
            elif isinstance(s, SetItem):
                self.uses.setdefault(s.array, []).append(path)
            elif isinstance(s, If):
                self._scan(s.body, path + (id(s.body),), depth)
                self._scan(s.orelse, path + (id(s.orelse),), depth)
            elif isinstance(s, While):
                self.loop_blocks |= {id(s.cond), id(s.body)}
                self._scan(s.cond, path + (id(s.cond),), depth + 1)
                self._scan(s.body, path + (id(s.body),), depth + 1)
            elif isinstance(s, For):
                self.loop_blocks.add(id(s.body))
                self.sites.setdefault(s.var, []).append((s, depth + 1, path + (id(s.body),)))
                self._scan(s.body, path + (id(s.body),), depth + 1)

    # -- what the adjoint reads --------------------------------------------------------
    def is_active_bind(self, s):
        return isinstance(s, Bind) and any(t in self.active for t in s.targets)

    def bind_reads(self, s: Bind):
        """Variables whose values the adjoint of `s` reads."""
        out = set()
        if not self.is_active_bind(s):
            return out
        if s.op is GETITEM:
            out |= {n for a in s.args[1:] for n in ir.atom_names(a)}
            return out
        if s.op is CALL:
            # a cut callee's saved state may hold the very array it returns (`return
            # np.tanh(A)` keeps its output for the adjoint): writes into that result are undone
            # before the callee's backward half runs
            # a result with no adjoint gets a zero cotangent shaped like it (`np.zeros_like`):
            # its value at the call is read, so a loop that overwrites it keeps it
            return {n for a in s.args for n in ir.atom_names(a)} \
                | {t for t in s.targets if t in self.written and t in self.results_kept(s)} \
                | {t for t in s.targets if t not in self.active and self._arrayish(t)}
        if s.op is COPY:
            return out
        if s.op is CONCAT:      # the parts' sizes up to the last active one place its slice
            names = [a.name if isinstance(a, Var) else None for a in s.args]
            last = max((i for i, n in enumerate(names) if n in self.active), default=-1)
            return {n for n in names[:last + 1] if n is not None}
        rule = rule_for(s, self.types)
        for p, a in zip(rule.params, s.args):
            if isinstance(a, Var) and a.name in self.active and p in rule.adjoints:
                for r in rule.reads(p):
                    if r == "y":
                        out.add(s.target)
                    elif r in rule.params:
                        b = s.args[rule.params.index(r)]
                        out |= set(ir.atom_names(b))
        return out

    def overwritten(self, v):
        sites = self.sites.get(v, [])
        return len(sites) > 1 or any(d > 0 for _, d, _ in sites)

    def view_bases(self):
        """name -> the arrays whose storage it may share (see `alias_sources`)."""
        out = {}
        for s in ir.walk(self.root):
            for t, sources in self.alias_sources(s).items():
                out.setdefault(t, set()).update(sources)
        return out

    def results_kept(self, s: Bind) -> set:
        """The targets of call `s` that may share storage with a value its callee's adjoint
        reads (`return np.tanh(A)`: tanh's adjoint reads its output), which a cut callee's
        saved state then holds. Judged with every float parameter of the callee active (a
        superset of what any caller differentiates); all array targets when unsure."""
        key = (id(s.callee), _argtys(s, self.types))
        callee = self.prog.specs.get(key)
        arrays = {t for t in s.targets if self._arrayish(t)}
        ret = callee.ir.body[-1] if callee is not None else None
        if callee is None or key in _ANALYSING or not isinstance(ret, Return) \
                or len(ret.values) != len(s.targets):
            return arrays
        _ANALYSING.add(key)
        try:
            # (a superset of what is differentiated: it refuses nothing `callee_wrt` allowed)
            A = Analysis(callee, tuple(i for i, t in enumerate(callee.argtys)
                                       if getattr(t, "is_inexact", False)), self.prog, refuse=False)
        finally:
            _ANALYSING.discard(key)
        bases = A.view_bases()
        kept = set()
        for t, a in zip(s.targets, ret.values):
            names, todo = set(), [a.name] if isinstance(a, Var) else []
            while todo:
                n = todo.pop()
                if n not in names:
                    names.add(n)
                    todo.extend(bases.get(n, ()))
            if names & A.needed:
                kept.add(t)
        return kept & arrays

    def _fix(self):
        """The least fixed point of `needed` (what the adjoint reads) and `pushed` (what the
        forward must keep because it overwrites it). A value read through a view is a read of
        the view's base: the base is needed too, so writes into it (`s[0] = y`) are undone in
        the adjoint and the view sees, at each mirrored point, what the forward saw."""
        stmts = list(ir.walk(self.root))
        loops = {s.var: s for s in stmts if isinstance(s, For)}
        self.loop_vars = set(loops)
        # a map's body -- or any loop whose iterations are independent -- runs again in its
        # adjoint loop (`recomputed`): what it assigns is never pushed, and what it reads from
        # outside is read by the adjoint
        maps = [s for s in stmts if isinstance(s, For) and self.independent(s)]
        self.replayed = {id(m) for m in maps}
        # (an accumulator is not computed again: kept by the usual rule if the adjoint reads it)
        self.recomputed = {t for m in maps for x in ir.walk(m.body) for t in ir.writes(x)
                           if t not in self._accumulators(m.body)}
        self.recomputed |= {m.var for m in maps}
        bases = self.view_bases()
        # an adjoint starts (and restarts, after an assignment is undone) as zeros shaped like
        # its variable: if that shape changes between assignments (v = v[:-1], K[:t + 1] in a
        # loop, a list grown in the loop), each value is kept, so the zeros have its shape --
        # also when the variable is assigned in a loop and read after it (its adjoint, owned
        # outside the loop, restarts after each iteration's assignment is undone)
        reshaped = {v for v in self.shape_variant() if v in self.active
                    and (self.overwritten(v)
                         or any(b in self.loop_blocks for b in self.path_of_owner(v)))}
        tainted = self._tainted(bases)
        self.remat, memo = {}, {}
        while True:
            # (what the adjoint computes again reads: `remat`)
            needed = set(reshaped) | self.also_needed | {
                n for b in self.remat.values() for n in ir.reads(b)}
            after_loop = set()
            for s in stmts:
                reads = set()
                if isinstance(s, Bind):
                    reads = self.bind_reads(s)
                elif isinstance(s, SetItem) and (s.array in self.active or (
                        s.array in self.needed and not s.init)):
                    # the adjoint routes d_y[i] or restores y[i] (an array it reads, active or
                    # not): either way at the index the forward wrote
                    reads = {n for a in s.index for n in ir.atom_names(a)}
                elif isinstance(s, If) and (self.work(s.body) or self.work(s.orelse)):
                    reads = {s.test}
                elif isinstance(s, For) and self.work(s.body):
                    reads = {n for a in (s.start, s.stop, s.step) for n in ir.atom_names(a)}
                    if id(s) in self.replayed:
                        reads |= self.replay_reads(s.body)
                        reads -= self.recomputed
                needed |= reads
                # a list's adjoint starts as zeros shaped like its elements: it reads the list
                if isinstance(s, Bind) and s.op is LIST_APPEND and s.target in self.active:
                    needed.add(s.target)
                # a loop variable the adjoint reads outside its loop (`s[j] = ...` after
                # `for j`): the reversed loop leaves it at its first value, so it is kept
                after_loop |= {v for v in reads & set(loops)
                               if id(loops[v].body) not in self.path_of.get(id(s), ())}
            frontier = list(needed)
            while frontier:
                for b in bases.get(frontier.pop(), ()):
                    if b not in needed:
                        needed.add(b)
                        frontier.append(b)
                if not frontier:
                    # an array written through another name for it (u = s; u[0] = v, which
                    # the write rules allow when s is not read after it): its writes change
                    # s's buffer, so where s is needed they are undone too
                    frontier = [y for y in self.written - needed
                                if _closure(y, bases) & needed]
                    needed.update(frontier)
            # a counted loop's index is recomputed by the adjoint loop, never taped per step
            pushed = {v for v in needed if self.overwritten(v) and v not in self.recomputed
                      and not (v in self.loop_vars and len(self.sites[v]) == 1 and v not in after_loop)}
            # an array the adjoint can compute again cheaply is not kept (nor its operands
            # that are such values too)
            remat = {}
            for v in sorted(pushed):
                if self._arrayish(v) and not self.types[v].is_list:
                    self._rematerial(v, loops, reshaped, tainted, memo, remat)
            pushed -= set(remat)
            if needed == self.needed and pushed == self.pushed and remat == self.remat:
                break
            self.needed, self.pushed, self.remat = needed, pushed, remat
        self.remat_binds = {}
        for v, b in self.remat.items():
            bid = self.path_of[id(b)][-1]
            self.remat_binds.setdefault(bid, []).append(b)
        for bid, binds in self.remat_binds.items():
            order = {id(x): k for k, x in enumerate(self._block_by_id(bid))}
            binds.sort(key=lambda b: order[id(b)])

    def _tainted(self, bases) -> set:
        """Every array that shares storage (a view of it, or it of a view, transitively) with
        one the function writes into or updates in place: its values may change after it
        is read."""
        links = self._links = {}
        for t, srcs in bases.items():
            for b in srcs:
                links.setdefault(t, set()).add(b)
                links.setdefault(b, set()).add(t)
        todo = set(self.written)
        for s in ir.walk(self.root):
            if isinstance(s, Bind) and (s.inplace or s.op.effect):
                todo |= set(s.targets) | {n for a in s.args for n in ir.atom_names(a)
                                          if self._arrayish(n)}
        out = set()
        while todo:
            v = todo.pop()
            if v not in out:
                out.add(v)
                todo |= links.get(v, set())
        return out

    def _unchanged(self, n, tainted) -> bool:
        """Whether `n` holds one value for the whole call: a parameter or a top-level
        variable assigned once, that nothing writes into (`_tainted`)."""
        sites = self.sites.get(n, [])
        return len(sites) == 1 and sites[0][1] == 0 and sites[0][2] == (id(self.root),) \
            and n not in tainted

    def _rematerial(self, v, loops, reshaped, tainted, memo, out) -> bool:
        """Whether the adjoint may compute `v` again at the start of its block's adjoint
        (`remat`), adding its bind, and those of the operands computed again with it, to `out`.

        The cost rule: v is assigned once, by a `cheap` primitive (+, -, *, negation, a view
        or element read by integers and slices -- no reduction, product, transcendental or
        gather), in a loop body or branch (not a while's condition); it is read only after
        that assignment in the same block (or blocks inside it: nothing older of v is read,
        nothing outside the block reads it), and its shape is one per call (not
        `shape_variant`) unless its adjoint is owned by this block (then its zeros are made
        after the recomputation). No one writes into it or an array sharing its storage,
        except first writes made in this trip of the block before v (`_settled`: LSTM's
        `gates`, filled by a map loop, then read through views). Its operands hold, at every
        point of the block's adjoint, the values they held at the assignment: unchanged for
        the call (`_unchanged`: never reassigned, never written into, nor any array sharing
        their storage -- a value read from an array the function writes later is refused),
        the index of a counted loop around it (the adjoint loop computes it), values of the
        same block computed again before it by this same rule, or values the adjoint has
        restored by the start of the block's adjoint (`_restored`: assigned once in the block
        before v, or only outside the block -- LSTM's state `s`, reassigned after the loop
        over layers that reads its rows)."""
        if v in memo:
            if memo[v]:
                out[v] = memo[v]
                for n in ir.reads(memo[v]):
                    if n in memo and memo[n]:
                        self._rematerial(n, loops, reshaped, tainted, memo, out)
            return bool(memo[v])
        memo[v] = None      # (a cycle: refused)
        sites = self.sites.get(v, [])
        if len(sites) != 1 or v in self.spec.ir.params:
            return False
        s, _, path = sites[0]
        # a shape that may change from one value to the next is read only by the zeros its
        # adjoint starts as, at the start of the block that owns it: after the recomputation
        # when that block is this one (no value of v outlives its trip of the block)
        if v in reshaped and self.owner(v) != path[-1]:
            return False
        if v in tainted and not (isinstance(s, Bind) and path != (id(self.root),)
                                 and self._settled(v, s, path)):
            return False
        if not (isinstance(s, Bind) and len(s.targets) == 1 and s.op.cheap and not s.inplace
                and not s.op.effect and not gathers(s, self.types)) \
                or path == (id(self.root),) or self._in_while_test(path[-1]):
            return False
        bid = path[-1]
        if any(bid not in p for p in self.uses.get(v, [])):
            return False
        block = self._block_by_id(bid)
        pos = next(k for k, x in enumerate(block) if x is s)
        if any(v in self._stmt_reads(x) for x in ir.walk(block[:pos + 1])):
            return False
        got = {}
        for n in ir.reads(s):
            if self._unchanged(n, tainted):
                continue
            loop = loops.get(n)
            if loop is not None and len(self.sites[n]) == 1 and id(loop.body) in path:
                continue
            u = self.sites.get(n, [])
            if len(u) == 1 and u[0][2] == path and \
                    self._rematerial(n, loops, reshaped, tainted, memo, got):
                continue
            if self._restored(n, s, block, pos, tainted):
                continue
            return False
        memo[v] = s
        out.update(got)
        out[v] = s
        return True

    def _restored(self, n, s, block, pos, tainted) -> bool:
        """Whether variable `n`, read by bind `s` (at index `pos` of `block`), holds at the
        start of the block's adjoint the value `s` read, though it is not one value for the
        whole call (`_unchanged`).

        The adjoint undoes the forward's assignments in reverse: a variable it keeps (pushed
        when overwritten, never a counted loop's index nor a value a map's adjoint loop
        computes again: `recomputed`) holds, at the adjoint of a point of the forward, its
        value at that point. The start of the block's adjoint mirrors the block's end, so `n`
        holds there the value `s` read when nothing assigns it between `s` and the block's
        end: `n` is assigned once in the block itself, before `s` (not in a nested block), or
        nowhere in the block (only in blocks around it: the adjoint has popped later
        assignments -- after the loop, in later trips -- before it reaches this block). `n`
        is then needed (`Analysis.remat`'s reads are), so it is kept. Its elements must hold
        still too: nothing writes into an array sharing its storage (`_tainted`), or only
        first writes made before `s` into arrays created in this trip of the block
        (`_settled`)."""
        if n in self.recomputed or n in self.loop_vars or getattr(self.types.get(n), "is_list",
                                                                  False):
            return False
        sites = self.sites.get(n, [])
        path = self.path_of[id(s)]
        bid = path[-1]
        if len(sites) == 1 and sites[0][2] == path:
            at = sites[0][0]
            if not any(x is at for x in block[:pos]):
                return False
        elif any(bid in p for _, _, p in sites):
            return False
        return not self._arrayish(n) or n not in tainted or (
            sites[0][2] == path and self._settled(n, s, path))

    def _settled(self, n, s, path) -> bool:
        """Whether the only writes into storage array `n` may share (a view of it, or it of a
        view, transitively: `_tainted`'s links) are first writes (`SetItem.init`: the
        adjoint restores no element) into arrays created in block `path[-1]` (a new array,
        assigned once there), each made after that creation and before statement `s`, all at
        top level of the block or in blocks inside it, and no in-place update touches them.

        Then what `s` reads of `n`'s elements (a view taken of it) is final for the whole
        adjoint of this trip of the block: later statements of the trip write none of it; a
        later trip of a loop around the block writes into the array that trip creates, a
        new one (the creation comes before every write); nothing after the block writes
        into it; and the adjoint's undoing of the writes restores nothing (first writes),
        and runs, in any case, after the adjoint of `s` (the writes come before `s`). A
        gradient sweep run again on one forward (jacrev's `keep`) sees the same values."""
        block = self._block_by_id(path[-1])
        top = {}
        for k, x in enumerate(block):
            for y in ir.walk([x]):
                top[id(y)] = k
        pos = top[id(s)]
        group, todo = set(), [n]
        while todo:
            v = todo.pop()
            if v not in group:
                group.add(v)
                todo.extend(self._links.get(v, ()))
        for x in ir.walk(self.root):
            if isinstance(x, Bind) and (x.inplace or x.op.effect) and group & (
                    set(x.targets) | {m for a in x.args for m in ir.atom_names(a)}):
                return False
            if not (isinstance(x, SetItem) and x.array in group):
                continue
            g = self.sites.get(x.array, [])
            if not (x.init and len(g) == 1 and g[0][2] == path and isinstance(g[0][0], Bind)
                    and new_array(g[0][0], self.types) and id(x) in top
                    and top[id(g[0][0])] < top[id(x)] < pos):
                return False
        return True

    def _in_while_test(self, bid) -> bool:
        return any(isinstance(s, While) and id(s.cond) == bid for s in ir.walk(self.root))

    def need(self, names):
        """Count `names` as read by the adjoint (what a checkpointed loop's recomputation reads
        from outside it: `recompute`), and settle `needed` and `pushed` again: where the
        forward overwrites one after the loop, its value is kept and given back before the
        loop's adjoint runs, as for any value the adjoint reads."""
        if not set(names) <= self.also_needed:
            self.also_needed |= set(names)
            self._fix()

    def independent(self, loop: For) -> bool:
        """Whether running a counted loop's body again, at the same index and with what it
        reads restored, gives the values it gave (so its adjoint may compute them again
        instead of popping them): a map, or a body of binds and element writes in which
        every value it assigns is made fresh in each iteration and read only there after it
        is made (nothing carried between iterations or read after the loop), no helper call,
        list or in-place update, and no array it writes is read in it."""
        if loop.pointwise:
            return True
        body = loop.body
        sums = self._accumulators(body)
        if not all(isinstance(x, SetItem) or (isinstance(x, Bind) and x.op is not CALL
                   and x.op is not LIST_APPEND and not x.inplace and not x.op.effect
                   and not self._arrayish(x.target)) for x in body):
            return False
        written = {x.array for x in body if isinstance(x, SetItem)}
        made = set()
        for x in body:
            reads = set(ir.reads(x)) - ({x.array} if isinstance(x, SetItem) else set())
            if reads & written:
                return False            # an array the loop writes is read in it
            if isinstance(x, Bind) and x.target not in sums:
                for t in x.targets:
                    if t in made or len(self.sites.get(t, ())) != 1:
                        return False    # assigned twice, or elsewhere too
                    made.add(t)
        bid = id(body)
        for t in made | {loop.var}:
            if any(bid not in p for p in self.uses.get(t, ())):
                return False            # read after the loop, or outside it
        seen = set()
        for x in body:                  # read in an iteration before it is made there
            if set(ir.reads(x)) & (made - seen):
                return False
            if isinstance(x, Bind):
                seen |= set(x.targets)
        return True

    def replay_reads(self, body) -> set:
        """What a map's adjoint loop reads to compute `body`'s values again (`Reverse.replay`):
        the operands of the binds whose values the adjoint of the body reads, directly or
        through other binds -- except those of a bind whose value is read back from the array
        it was stored into (`stored_results`: only the index is read). A tanh's operand the
        adjoint never needs (it reads tanh's stored output) is then not kept for it. A body of
        anything but flat number binds and element writes counts every bind's operands."""
        sums = self._accumulators(body)
        if not all(isinstance(x, SetItem) or (isinstance(x, Bind) and not self._arrayish(x.target))
                   for x in body):
            return {n for x in body if isinstance(x, Bind) and x.target not in sums
                    for n in ir.reads(x)}
        live = set()
        for x in body:      # what the adjoint statements of the body read
            if isinstance(x, Bind):
                live |= self.bind_reads(x)
            elif x.array in self.active or x.array in self.needed:
                live |= {n for a in x.index for n in ir.atom_names(a)}
        stored = self.stored_results(body)
        out = set()
        for x in reversed(body):
            if isinstance(x, Bind) and x.target in live and x.target not in sums:
                w = stored.get(x.target)
                names = {n for a in w.index for n in ir.atom_names(a)} if w is not None \
                    else set(ir.reads(x))
                live |= names
                out |= names
        return out

    def stored_results(self, block) -> dict:
        """name -> the `SetItem` of `block` storing it as an element's first write into a
        kept (`needed`) array of its own dtype, the array's only write in the block: after a
        map ran, the element holds the number, which its adjoint reads back instead of
        computing it again (`Reverse.replay`)."""
        writes = Counter(x.array for x in block if isinstance(x, SetItem))
        out = {}
        for x in block:
            if not (isinstance(x, SetItem) and x.init and isinstance(x.value, Var)
                    and writes[x.array] == 1 and x.array in self.needed
                    and all(isinstance(a, Var) for a in x.index)):
                continue
            ty, elem = self.types[x.array], self.types[x.value.name]
            if getattr(elem, "ndim", 1) == 0 and len(x.index) == ty.ndim \
                    and elem.dtype == ty.dtype and not ty.is_list:
                out[x.value.name] = x
        return out

    def _accumulators(self, body) -> set:
        """Numbers a loop body only adds to (`acc = acc + e`, `acc = acc - e`: the one
        assignment of acc in the body, and its only read there): their adjoint passes
        through each iteration unchanged and reads no value, so they carry nothing the
        adjoint loop must restore."""
        out = set()
        for x in body:
            if not (isinstance(x, Bind) and len(x.targets) == 1 and x.op in _SUMS
                    and not self._arrayish(x.target)):
                continue
            t = x.target
            pos = [i for i, a in enumerate(x.args) if isinstance(a, Var) and a.name == t]
            if pos != [0] and not (pos == [1] and x.op is _SUMS[0]):
                continue
            if sum(t in ir.writes(y) for y in body) == 1 and \
                    sum(ir.reads(y).count(t) for y in body) == 1:
                out.add(t)
        return out

    def path_of_owner(self, v):
        """The blocks enclosing the block that owns v's adjoint (that block included)."""
        owner = self.owner(v)
        for _, _, path in self.sites.get(v, []):
            if owner in path:
                return path[:path.index(owner) + 1]
        return (owner,)

    def shape_variant(self) -> set:
        """Arrays (and lists) whose shape may differ from one assignment to the next: made by
        slicing with bounds (`v = v[:-1]`, `K[:t + 1]`), by a boolean mask (`u[u > c]`), by
        concatenating, by a list grown in a
        loop, by a shape-making primitive with an integer a loop changes (np.zeros(n),
        np.arange(i), a helper's int argument), or by arithmetic on such an array.
        Conservative: elementwise arithmetic of other arrays keeps their shapes, an integer
        index x[i] drops an axis whatever i is. A variable assigned once, outside loops, has one
        shape: it never counts (nor passes a variant shape on: `Q = np.exp(icf[:, :d])` then
        `Q[k]` in a loop is one shape). Nor does an array whose symbolic shape (`shapes`,
        once `maps` has made them) is known on every axis: its terms are fixed for the call
        (`np.empty((n,))` in a loop, with n the length of a row of a parameter; `W @ h` of a
        parameter W, whatever h)."""
        binds = [s for s in ir.walk(self.root) if isinstance(s, Bind)]
        shapes = getattr(self.spec, "shapes", None)

        def fixed(name):
            shape = shapes.of(name) if shapes is not None else None
            return shape is not None and all(d is not None for d in shape)
        in_loop = {id(s) for s in binds
                   if any(b in self.loop_blocks for b in self.path_of.get(id(s), ()))}
        varying = {t for s in binds if id(s) in in_loop for t in s.targets} | self.loop_vars
        out = {s.target for s in binds if s.op is LIST_APPEND and id(s) in in_loop}

        def int_atom(a):
            return isinstance(a, Var) and a.name in varying and not self._arrayish(a.name) \
                and getattr(self.types.get(a.name), "dtype", "") in ("i8", "b1")

        changed = True
        while changed:
            changed = False
            for s in binds:
                if s.target in out or not any(self._arrayish(t) for t in s.targets):
                    continue
                arrays = [a for a in s.args if isinstance(a, Var) and self._arrayish(a.name)]
                if any(a.name in out for a in arrays) or s.op is CONCAT:
                    hit = True
                elif s.op is GETITEM:
                    # bounded slices; a boolean mask, whose count of true entries is data
                    hit = any(isinstance(a, Slice) and any(x is not None for x in (a.lower, a.upper, a.step))
                              or isinstance(a, Var) and getattr(self.types.get(a.name), "ndim", 0)
                              and getattr(self.types.get(a.name), "dtype", "") == "b1"
                              for a in s.args[1:])
                else:
                    hit = not s.op.elementwise and any(
                        int_atom(x) for a in s.args
                        for x in (a.items if isinstance(a, ir.TupleA) else (a,)))
                if hit:
                    new = {t for t in s.targets if t not in out and not fixed(t) and (
                        id(s) in in_loop or len(self.sites.get(t, ())) > 1)}
                    out |= new
                    changed = changed or bool(new)
        return out

    def _arrayish(self, name):
        t = self.types.get(name)
        return t is not None and (t.is_list or getattr(t, "ndim", 0) > 0)

    def work(self, block) -> bool:
        for s in block:
            if isinstance(s, Bind) and (self.is_active_bind(s) or any(t in self.pushed for t in s.targets)):
                return True
            if isinstance(s, SetItem) and (s.array in self.active or s.array in self.needed):
                return True
            if isinstance(s, If) and (self.work(s.body) or self.work(s.orelse)):
                return True
            if isinstance(s, (While, For)) and self.work(s.body):
                return True
            if isinstance(s, For) and s.var in self.pushed:
                return True
        return False

    # -- ownership ---------------------------------------------------------------------
    def owner(self, v):
        """The block whose adjoint creates d_v: the innermost block holding every assignment
        and read of v -- but never a loop body (or while condition) in which an iteration may
        read v before assigning it. There v carries a value from one iteration to the next
        (`if i > 0: s += prev * x` then `prev = x * i`), so its adjoint must outlive the
        iteration: it is owned by the block holding that loop (re-zeroing it per iteration
        dropped the contribution the next iteration's read makes to this one's value)."""
        got = self._owners.get(v) if hasattr(self, "_owners") else None
        if got is not None:
            return got
        paths = [p for _, _, p in self.sites.get(v, [])] + self.uses.get(v, [])
        common = paths[0]
        for p in paths[1:]:
            k = 0
            while k < min(len(common), len(p)) and common[k] == p[k]:
                k += 1
            common = common[:k]
        for k, b in enumerate(common):
            if k and b in self.loop_blocks and ir.exposed(v, self._block_by_id(b))[0]:
                common = common[:k]
                break
        if not hasattr(self, "_owners"):
            self._owners = {}
        self._owners[v] = common[-1]
        return common[-1]

    def runs_once_first(self, s, v):
        """Whether `s` is the first assignment of `v` and runs once per run of the block that
        owns v's adjoint (no loop between them): then no older value of v exists whose
        adjoint the sweep could still reach, and d_v needs no reset after s."""
        first, _, path = self.sites[v][0]
        if first is not s:
            return False
        owner = self.owner(v)
        below = path[path.index(owner) + 1:] if owner in path else path
        return not any(b in self.loop_blocks for b in below)

    def needs_dummy(self, v):
        """A pushed or array-adjointed variable that may be read before it is first assigned."""
        if v in self.spec.ir.params:
            return False
        first = self.sites[v][0]
        s, depth, path = first
        top = path == (id(self.root),) and depth == 0 and isinstance(s, Bind)
        if v in self.pushed and not top:
            return True
        if v in self.active and getattr(self.types[v], "ndim", 0):
            # first assigned inside a branch or loop: the adjoint sweep reads it (its
            # adjoint's shape) in its own replay of that control flow, where Numba cannot see
            # it assigned (an undefined phi crashed Numba's literal propagation: held-out #4
            # capsule_routing, `b = b + np.einsum(...)` under `if it < n_iter - 1`)
            return not top or not _definitely_assigned(v, self._block_by_id(self.owner(v)))
        return False

    def first_site_unpushed(self, s, v):
        """The first assignment of `v` at top level needs no push (nothing older to restore)."""
        s0, depth, path = self.sites[v][0]
        return s0 is s and depth == 0 and path == (id(self.root),) and v not in self.spec.ir.params

    def _block_by_id(self, bid):
        for b in ir.blocks(self.root):
            if id(b) == bid:
                return b
        raise KeyError(bid)


def _closure(v, bases) -> set:
    """The arrays whose storage v may share, transitively (`Analysis.view_bases`)."""
    out, todo = set(), list(bases.get(v, ()))
    while todo:
        b = todo.pop()
        if b not in out:
            out.add(b)
            todo.extend(bases.get(b, ()))
    return out


def _definitely_assigned(v, block):
    for s in block:
        if isinstance(s, Bind) and v in s.targets:
            return True
        if isinstance(s, If) and _definitely_assigned(v, s.body) and _definitely_assigned(v, s.orelse):
            return True
    return False
