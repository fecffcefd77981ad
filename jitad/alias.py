"""Alias analysis of generated code: may an array buffer two names share be written in place?

Takes: a generated function (a Python AST `FunctionDef`, as `codegen` prints it), the types of
its names where known (name -> `Ty`: an element read `A[i, j]` of a rank-2 A is a number, not a
view), a statement `at` of it and a name `c` whose buffer the statement's target takes.
Guarantees: `shared_safely(fdef, at, c, types)` is true only when, on every path from just
after `at` to the function's end -- around every loop `at` is in, again and again (the
reverse of a loop runs its body once per trip) -- nothing writes in place (`A[i] = v`,
`A += v`, a runtime helper that writes an argument, a call of a function it does not know)
through a name that may hold that buffer, and no such name is returned; and no name that may
hold it is a parameter (the caller's arrays: a cotangent, an argument) or a name the function
never assigns. The names that may hold the buffer after `at`: every name that may ever alias
c (a flow-insensitive closure over the function's assignments: views `A[i]`, `A.T`, tuples,
lists and their pops, calls that may return an argument), and the statement's target; a name
stops holding it where it is assigned a value that cannot alias a holder (a new array), and a
name starts where it is assigned one that may (`u = v`, `u = v[0]`, `u = tape.pop()`).
A statement the analysis does not know is taken to write everything it mentions: the answer
errs on "no", never on "yes".
Which runtime helper writes which argument is read from the helpers' own source
(`runtime_writes`: an in-place write to a parameter or to a local that may alias it, or the
parameter passed where another helper writes), so the table cannot drift from the helpers.
Invariants: the function is not changed; the answer depends only on its text.
"""
from __future__ import annotations

import ast
import functools
import inspect

from . import runtime
from .lanes import dotted

# attributes that are numbers or tuples of numbers, never an array's buffer
_META = frozenset({"shape", "size", "ndim", "dtype", "itemsize", "nbytes", "strides"})
# NumPy functions whose result may be an argument or a view of one (else a new array)
_NP_SHARING = frozenset(
    "np.asarray np.asanyarray np.ascontiguousarray np.asfortranarray np.require np.array "
    "np.reshape np.transpose np.expand_dims np.diag np.diagonal np.ravel np.squeeze np.swapaxes "
    "np.moveaxis np.flip np.fliplr np.flipud np.rot90 np.broadcast_to np.broadcast_arrays "
    "np.real np.imag np.atleast_1d np.atleast_2d np.atleast_3d np.split np.array_split "
    "np.hsplit np.vsplit np.dsplit np.meshgrid np.float64 np.float32 np.complex128 np.frombuffer "
    "np.lib.stride_tricks.as_strided np.lib.stride_tricks.sliding_window_view".split())
# NumPy functions that write an argument
_NP_WRITING = frozenset(
    "np.copyto np.put np.place np.putmask np.fill_diagonal np.random.shuffle np.put_along_axis "
    "np.ndarray.fill".split())
# builtins and modules whose calls give numbers or new objects and write nothing
_PURE = frozenset({"len", "range", "float", "int", "bool", "isinstance", "abs", "print"})
# methods of arrays giving a new array or a number; of lists changing only the list
_FRESH_METHODS = frozenset({"copy", "sum", "prod", "mean", "max", "min", "any", "all", "item",
                            "dot", "flatten", "tolist", "cumsum", "argmax", "argmin", "nonzero"})
_SHARING_METHODS = frozenset({"pop", "reshape", "ravel", "view", "transpose", "squeeze",
                              "swapaxes", "astype"})
_LIST_METHODS = frozenset({"pop", "clear", "remove", "reverse"})     # (the list, not its arrays)
_STORING_METHODS = frozenset({"append", "extend", "insert"})        # the list holds the argument


# ---------------------------------------------------------------- what an expression may hold
class _Exprs:
    """What an expression's value may share a buffer with, and what a call writes."""

    def __init__(self, types, writes):
        self.types = types or {}
        self.rt_writes = writes
        self._memo = {}          # (method, id(node)) -> answer: a flow visits a loop's body
        #                          again and again, and the tree does not change meanwhile

    def _memoized(self, method, node):
        key = (method, id(node))
        if key not in self._memo:
            self._memo[key] = (node, getattr(self, method)(node))   # (node: keeps its id)
        return self._memo[key][1]

    def holds(self, e) -> set:
        """The names whose buffers e's value may be, view or contain."""
        if e is None or isinstance(e, ast.Constant):
            return set()
        if isinstance(e, ast.Name):
            return {e.id}
        if isinstance(e, (ast.BinOp, ast.UnaryOp, ast.Compare)):
            return set()                     # arithmetic makes a new array (or a number)
        if isinstance(e, ast.BoolOp):
            return set().union(*map(self.holds, e.values))
        if isinstance(e, ast.IfExp):
            return self.holds(e.body) | self.holds(e.orelse)
        if isinstance(e, ast.Subscript):
            if self._element(e):
                return set()
            return self.holds(e.value)
        if isinstance(e, ast.Attribute):
            return set() if e.attr in _META else self.holds(e.value)
        if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
            return set().union(*map(self.holds, e.elts)) if e.elts else set()
        if isinstance(e, ast.Starred):
            return self.holds(e.value)
        if isinstance(e, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            inner = self.holds(e.elt)
            if not inner:
                return set()
            return inner.union(*(self.holds(g.iter) for g in e.generators))
        if isinstance(e, ast.Call):
            return self._call_holds(e)
        return _names(e)                     # anything else: whatever it mentions

    def _element(self, e) -> bool:
        """`A[i, j]` with an integer index per axis of an array A of known rank: a number."""
        t = self.types.get(e.value.id) if isinstance(e.value, ast.Name) else None
        nd = getattr(t, "ndim", None)
        if not nd or getattr(t, "is_list", False):
            return False
        idx = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        return len(idx) == nd and not any(isinstance(i, ast.Slice) for i in idx) \
            and all(self._integer(i) for i in idx)

    def _integer(self, e) -> bool:
        if isinstance(e, ast.Constant):
            return type(e.value) is int
        if isinstance(e, ast.Name):
            t = self.types.get(e.id)
            return t is not None and getattr(t, "ndim", 1) == 0 and getattr(t, "dtype", "") == "i8"
        if isinstance(e, ast.BinOp):
            return self._integer(e.left) and self._integer(e.right)
        if isinstance(e, ast.UnaryOp):
            return self._integer(e.operand)
        return False

    def _args(self, c):
        return list(c.args) + [k.value for k in c.keywords]

    def _call_holds(self, c) -> set:
        f = dotted(c.func)
        args = self._args(c)
        if isinstance(c.func, ast.Attribute) and f is not None and f.startswith(("np.", "rt.", "math.")):
            pass
        elif isinstance(c.func, ast.Attribute):          # a method
            m = c.func.attr
            if m in _FRESH_METHODS:
                return set()
            if m in _SHARING_METHODS:
                return self.holds(c.func.value)
            return self.holds(c.func.value).union(*map(self.holds, args))
        if f is None:
            return _names(c)
        if f.startswith("math.") or f in _PURE:
            return set()
        if f.startswith("rt."):
            name = f[3:]
            if name in runtime.FRESH:
                return set()
            if name in runtime.FIRST_ADDS:
                return self.holds(c.args[1]) if len(c.args) == 2 else _names(c)
            if name in runtime.INTO:
                return self.holds(c.args[0]) if len(c.args) == 2 else _names(c)
            if name.startswith("check_"):
                return set()
            return set().union(*map(self.holds, args)) if args else set()
        if f.startswith("np."):
            if f in _NP_SHARING or f in _NP_WRITING or any(k.arg == "out" for k in c.keywords):
                return set().union(*map(self.holds, args)) if args else set()
            return set()
        return set().union(*map(self.holds, args)) if args else set()

    def writes(self, node) -> frozenset:
        """The names whose buffers the calls in `node` (an expression) may write."""
        return self._memoized("_writes", node)

    def _writes(self, node) -> frozenset:
        out = set()
        for c in ast.walk(node):
            if not isinstance(c, ast.Call):
                continue
            f = dotted(c.func)
            args = self._args(c)
            if isinstance(c.func, ast.Attribute) and not (f or "").startswith(("np.", "rt.", "math.")):
                m = c.func.attr
                if m in _FRESH_METHODS or m in _SHARING_METHODS or m in _LIST_METHODS \
                        or m in _STORING_METHODS:
                    continue
                out |= self.holds(c.func.value).union(*map(self.holds, args))
                continue
            if f is None:
                out |= _names(c)
            elif f.startswith("math.") or f in _PURE:
                continue
            elif f.startswith("rt."):
                w = self.rt_writes.get(f[3:])
                if w is None:                          # not a helper: anything
                    out |= set().union(*map(self.holds, args)) if args else set()
                else:
                    out |= set().union(*(self.holds(c.args[k]) for k in w if k < len(c.args)))
            elif f.startswith("np."):
                if f in _NP_WRITING or any(k.arg == "out" for k in c.keywords):
                    out |= set().union(*map(self.holds, args)) if args else set()
            else:                                      # a function of the module, or unknown
                out |= set().union(*map(self.holds, args)) if args else set()
        return frozenset(out)

    def keeps(self, node) -> frozenset:
        """The names whose buffers a call in `node` may keep a reference to beyond the call
        (a function the analysis does not know; what `stores` makes containers hold is
        followed by the flow itself)."""
        return self._memoized("_keeps", node)

    def _keeps(self, node) -> frozenset:
        out = set()
        for c in ast.walk(node):
            if not isinstance(c, ast.Call) or _pure_call(c, self.rt_writes):
                continue
            if isinstance(c.func, ast.Attribute) and not (dotted(c.func) or "").startswith(("np.", "rt.")):
                m = c.func.attr
                if m in _FRESH_METHODS or m in _SHARING_METHODS or m in _LIST_METHODS \
                        or m in _STORING_METHODS:
                    continue
            out |= set().union(*map(self.holds, self._args(c))) if self._args(c) else set()
            if isinstance(c.func, ast.Attribute):
                out |= self.holds(c.func.value)
        return frozenset(out)

    def stores(self, node) -> tuple:
        """(container names, value names) of the calls in `node` that make a container hold a
        value: `hs.append(v)`, a call that may keep one argument in another."""
        return self._memoized("_stores", node)

    def _stores(self, node) -> tuple:
        out = []
        for c in ast.walk(node):
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) \
                    and c.func.attr in _STORING_METHODS:
                out.append((self.holds(c.func.value), set().union(*map(self.holds, c.args))
                            if c.args else set()))
            elif isinstance(c, ast.Call):
                w = self.writes(ast.Expr(c)) if not _pure_call(c, self.rt_writes) else set()
                if w:
                    args = set().union(*map(self.holds, self._args(c))) if self._args(c) else set()
                    out.append((w, args))
        return tuple(out)


def _pure_call(c, rt_writes) -> bool:
    """A call that keeps no reference to its arguments (a helper, NumPy, math)."""
    f = dotted(c.func)
    return f is not None and (f.startswith(("math.", "np.")) or f in _PURE
                              or (f.startswith("rt.") and f[3:] in rt_writes))


def _names(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


# ---------------------------------------------------------------- the runtime helpers' writes
@functools.lru_cache(maxsize=None)
def runtime_writes() -> dict:
    """runtime helper name -> the positions of the parameters it may write in place, read from
    the helpers' source (and the compiled versions `COMPILED_AS` names): a parameter, or a
    local that may alias it, written by element or slice, updated by `+=`, given a method that
    writes, or passed where a helper (or a function not known) writes.
    Reading runtime.py's ~3,000 lines costs ~0.4 s, once per process: the table is kept in
    jitad's cache directory, keyed by the text of runtime.py and of this module (what it is
    computed from and how), so it is read again only when either changes."""
    import hashlib
    import json
    from . import cache
    texts = [inspect.getsource(m).encode() for m in (runtime, inspect.getmodule(runtime_writes))]
    key = hashlib.sha256(b"\0".join(texts)).hexdigest()[:32]
    try:
        path = cache.cache_dir() / f"jitad_runtime_writes_{key}.json"
        if path.exists() and cache.untrusted(path) is None:
            return {n: tuple(w) for n, w in json.loads(path.read_text()).items()}
    except Exception:       # noqa: BLE001 - a cache problem is a miss, never an error
        path = None
    table = _runtime_writes(texts[0].decode())
    if path is not None:
        try:
            cache.write_bytes(path, json.dumps(table, sort_keys=True).encode())
        except OSError:
            pass
    return table


def _runtime_writes(source: str) -> dict:
    tree = ast.parse(source)
    defs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    table = {n: set() for n in defs}
    ex = _Exprs({}, {})
    changed = True
    while changed:
        changed = False
        ex.rt_writes = {n: tuple(sorted(w)) for n, w in table.items()}
        for name, fd in defs.items():
            params = [a.arg for a in fd.args.args]
            own = {p: {p} for p in params}           # locals that may alias each parameter
            assigns = [s for s in ast.walk(fd) if isinstance(s, (ast.Assign, ast.For))]
            grow = True
            while grow:
                grow = False
                for s in assigns:
                    value = s.value if isinstance(s, ast.Assign) else s.iter
                    targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                    held = ex.holds(value)
                    for p in params:
                        if held & own[p]:
                            new = set().union(*map(_target_names, targets)) - own[p]
                            if new:
                                own[p] |= new
                                grow = True
            written = set()
            for s in ast.walk(fd):
                if isinstance(s, ast.Assign):
                    for t in s.targets:
                        for u in ast.walk(t):
                            if isinstance(u, (ast.Subscript, ast.Attribute)) \
                                    and isinstance(u.ctx, ast.Store):
                                written |= ex.holds(u.value)
                elif isinstance(s, ast.AugAssign):
                    written |= ex.holds(s.target.value) if isinstance(s.target, (ast.Subscript, ast.Attribute)) \
                        else {s.target.id}
                elif isinstance(s, ast.Call):
                    written |= _helper_call_writes(s, ex, defs, table, params)
            pos = {k for k, p in enumerate(params) if written & own[p]}
            real = runtime.COMPILED_AS.get(name)
            if real in table:
                pos |= table[real]
            if pos - table[name]:
                table[name] |= pos
                changed = True
    return {n: tuple(sorted(w)) for n, w in table.items() if not n.startswith("_")}


_RAISES = frozenset({"ValueError", "IndexError", "MemoryError", "RecursionError", "TypeError",
                     "ZeroDivisionError", "UnboundLocalError", "AssertionError",
                     "FloatingPointError", "NotImplementedError", "numba.objmode"})


def _helper_call_writes(s, ex, defs, table, params) -> set:
    """What a call in a runtime helper's body may write (names of the helper's)."""
    f = dotted(s.func)
    args = list(s.args)
    every = set().union(*map(ex.holds, args)) if args else set()
    if f in defs:                                   # another helper: where it writes
        return set().union(*(ex.holds(args[k]) for k in table[f] if k < len(args)))
    if f is not None and (f.startswith(("np.", "math.")) or f in _PURE or f in _RAISES
                          or f in ("max", "min", "zip", "enumerate", "tuple", "list")):
        return every if f in _NP_WRITING or any(k.arg == "out" for k in s.keywords) else set()
    if f == "gemm":                                 # blas.gemm(a, b, out, ...): writes out
        return set().union(*map(ex.holds, args[2:3]))
    if isinstance(s.func, ast.Attribute):
        m = s.func.attr
        if m in _STORING_METHODS:                   # a list keeps an argument: say everything
            return set(params) | every | ex.holds(s.func.value)
        if m in _FRESH_METHODS or m in _SHARING_METHODS or m in _LIST_METHODS:
            return set()
        return ex.holds(s.func.value) | every
    return every | _names(s.func)


# ---------------------------------------------------------------- the flow of one shared buffer
class _Unsafe(Exception):
    pass


def may_alias(fdef, types=None, ex=None) -> dict:
    """name -> the set of names that may ever share a buffer with it in `fdef` (flow-insensitive:
    every assignment of a value that may hold a name joins the two, and so does a call that
    may keep one argument in another)."""
    ex = ex or _Exprs(types, runtime_writes())
    parent = {}

    def find(a):
        parent.setdefault(a, a)
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(names):
        names = list(names)
        for n in names[1:]:
            parent[find(n)] = find(names[0])

    for s in ast.walk(fdef):
        if isinstance(s, ast.Assign):
            held = ex.holds(s.value)
            for t in s.targets:
                union(_target_names(t) | held) if held else None
                for u in ast.walk(t):
                    if isinstance(u, (ast.Subscript, ast.Attribute)) and held:
                        union(ex.holds(u.value) | held)
        elif isinstance(s, ast.For):
            held = ex.holds(s.iter)
            if held:
                union(_target_names(s.target) | held)
        elif isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Subscript):
            held = ex.holds(s.value)
            if held:
                union(ex.holds(s.target.value) | held)
        if isinstance(s, ast.Call):
            for cont, vals in ex.stores(s):
                if cont and vals:
                    union(cont | vals)
    classes = {}
    for n in list(parent):
        classes.setdefault(find(n), set()).add(n)
    return {n: classes[find(n)] for n in parent}


def _target_names(t) -> set:
    if isinstance(t, ast.Name):
        return {t.id}
    if isinstance(t, (ast.Tuple, ast.List)):
        return set().union(*map(_target_names, t.elts)) if t.elts else set()
    if isinstance(t, ast.Starred):
        return _target_names(t.value)
    return set()


def holds(e, types=None) -> set:
    """The names whose buffers the value of expression `e` may be, view or contain (none: a
    new array or a number)."""
    return _Exprs(types, runtime_writes()).holds(e)


def shared_safely(fdef, at, shared, types=None) -> bool:
    """Whether the target of statement `at` (`d = <call giving back the buffer of one of the
    names `shared`>`) may share that buffer (see the module doc)."""
    d = at.targets[0].id
    ex = _Exprs(types, runtime_writes())
    classes = may_alias(fdef, types, ex)
    start = set().union(*(classes.get(c, {c}) for c in shared)) | {d}
    params = {a.arg for a in fdef.args.args}
    assigned = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if start & params or start - assigned:
        return False
    flow = _Flow(ex, at, frozenset(start))
    try:
        flow.block(fdef.body, frozenset())
    except _Unsafe:
        return False
    return flow.reached


def owned_again(fdef, at, types=None) -> bool:
    """Whether, every time statement `at` (`d = <a new array>`, d assigned nowhere else) runs
    again, the array it made the time before is d's alone: no other name, list or tape that
    may hold it is left (each was assigned something else since), and no call that might keep
    it (a function the analysis does not know) was given it. Then `at` may make its array in
    that one (`reuse`). Writes through the holders are no concern here."""
    d = at.targets[0].id
    flow = _Flow(_Exprs(types, runtime_writes()), at, frozenset({d}), reuse=True)
    try:
        flow.block(fdef.body, frozenset())
    except _Unsafe:
        return False
    return flow.reached


class _Flow:
    """The holders of the buffer, statement by statement (sets of names, joined by union);
    `_Unsafe` at the first write or return through one (`reuse`: where one may be kept by a
    call, or is still held by another name when `at` runs again)."""

    def __init__(self, ex, at, start, reuse=False):
        self.ex, self.at, self.start, self.reuse = ex, at, start, reuse
        self.reached = False
        self.loops = []          # per enclosing loop: [holders at a break, at a continue]

    def check(self, node, H):
        if not H:
            return
        if self.reuse:
            if self.ex.keeps(node) & H:
                raise _Unsafe
        elif self.ex.writes(node) & H:
            raise _Unsafe

    def block(self, stmts, H):
        for s in stmts:
            H = self.stmt(s, H)
        return H

    def assign_target(self, t, flows, H):
        if isinstance(t, ast.Name):
            return (H | {t.id}) if flows else (H - {t.id})
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                H = self.assign_target(e, flows, H)
            return H
        if isinstance(t, ast.Starred):
            return self.assign_target(t.value, flows, H)
        if isinstance(t, (ast.Subscript, ast.Attribute)):
            base = self.ex.holds(t.value)
            self.check(t, H)
            if base & H and not self.reuse:
                raise _Unsafe                    # an element or slice written through a holder
            return (H | base) if flows else H   # a container now holds the buffer
        raise _Unsafe

    def stmt(self, s, H):
        if isinstance(s, ast.Assign):
            if s is self.at and self.reuse and H - self.start:
                raise _Unsafe                    # its last array is another name's too
            self.check(s.value, H)
            H = self.stores(s.value, H)
            flows = bool(self.ex.holds(s.value) & H)
            for t in s.targets:
                H = self.assign_target(t, flows, H)
            if s is self.at:
                self.reached = True
                H = H | self.start
            return H
        if isinstance(s, ast.AugAssign):
            self.check(s.value, H)
            t = s.target
            base = self.ex.holds(t.value) if isinstance(t, (ast.Subscript, ast.Attribute)) else {t.id}
            self.check(t, H)
            if base & H and not self.reuse:
                raise _Unsafe                    # `d += e`, `d[i] += e` on a holder
            return H
        if isinstance(s, ast.Expr):
            self.check(s.value, H)
            return self.stores(s.value, H)
        if isinstance(s, ast.Return):
            if s.value is not None:
                self.check(s.value, H)
                if _names(s.value) & H and not self.reuse:
                    raise _Unsafe                # the buffer would leave the function
            return frozenset()
        if isinstance(s, ast.If):
            self.check(s.test, H)
            return self.block(s.body, H) | self.block(s.orelse, H)
        if isinstance(s, (ast.For, ast.While)):
            return self.loop(s, H)
        if isinstance(s, ast.Break):
            if self.loops:
                self.loops[-1][0] |= H
            return frozenset()
        if isinstance(s, ast.Continue):
            if self.loops:
                self.loops[-1][1] |= H
            return frozenset()
        if isinstance(s, ast.Pass) or _is_comment(s):
            return H
        # anything else: it must not mention a holder
        if _names(s) & H:
            raise _Unsafe
        return H

    def stores(self, node, H):
        for cont, vals in self.ex.stores(node):
            if vals & H:
                H = H | cont
        return H

    def loop(self, s, H):
        head = H
        while True:
            self.loops.append([frozenset(), frozenset()])
            if isinstance(s, ast.For):
                self.check(s.iter, head)
                body_in = self.assign_target(s.target, bool(self.ex.holds(s.iter) & head), head)
            else:
                self.check(s.test, head)
                body_in = head
            reached = self.reached
            out = self.block(s.body, body_in)
            brk, cont = self.loops.pop()
            new = head | out | cont
            # once the shared statement ran in the body, the next trip starts with its holders
            if new == head and reached == self.reached:
                break
            head = new
        return self.block(s.orelse, head) | brk | head


def _is_comment(s) -> bool:
    return type(s).__name__ == "Comment"
