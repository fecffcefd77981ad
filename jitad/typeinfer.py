"""Stage 4 — types: the kind, rank and dtype of every variable, for one argument signature.

Takes: the normalized `ir.Function` of the entry and the `Ty` of each argument.
Guarantees: a `Program` holding one `Spec` per (function, argument signature) reachable from
the entry — callees are normalized and specialized once per signature, recursion included —
and for each a map from every variable to its `Ty`. Later stages decide at generation time
(never at run time) between `0.0` and `np.zeros_like(x)`, which tape a value goes to, how to
un-broadcast an adjoint, and which rank-specific rule applies.
Invariants: a variable has one rank for its whole life (a scalar never becomes an array);
otherwise a `JitadError` at the assignment that breaks it. (A variable is one def-use web:
`normalize.webs` made a name assigned unrelated values into several variables.) A library
call without a rule is typed by Numba (`numba_types`); a tuple it returns is held by a
variable read only by a constant index or unpacking.
A complex operand reaches only a
primitive marked `complex_ok` (its `complex_form`'s type rule where it has one), and a complex
value is never written into a real array: both are `UnsupportedError`s at the line.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from . import ir, prelude
from . import numba_types  # noqa: F401  (library calls without a rule are typed by Numba)
from .errors import JitadError, UnsupportedError
from .types import I8, NP_DTYPE, TupleTy, Ty, const_ty, promote
from .ir import Bind, Const, For, If, Return, SetItem, TupleA, Var, While, exposed
from .primitives import CALL, COPY, GETITEM, SHAPE, get
from .primitives.lists import LIST_APPEND, LIST_NEW
from .primitives.typerules import subscript_write


MAX_VARIANTS = 24        # specializations of one function in one program
LEN, EMPTY = get("len"), get("empty")


@dataclass
class Spec:
    """One function specialized to one argument signature."""

    fn: object
    argtys: tuple
    ir: ir.Function
    types: dict = field(default_factory=dict)
    out: tuple | None = None  # output types
    name: str = ""           # generated base name
    wrt: tuple = ()          # params differentiated (indices)
    shapes: object = None    # symbolic shapes (`shapes.Shapes`), from the `maps` pass on


class Program:
    def __init__(self, frontend):
        self.frontend = frontend  # fn -> ir.Function (cached capture/fence/normalize)
        self.specs: dict = {}
        self.order: list = []
        self._names: set = set()
        self._count: dict = {}
        self.active: list = []      # the specs being inferred, callers first
        self.open: list = []        # Inferers waiting for a spec of `active` (`settle`)

    def specialize(self, fn, argtys) -> Spec:
        key = (id(fn), argtys)
        if key in self.specs:
            return self.specs[key]
        from .pipeline import frontend, typed_frontend
        # a transformed function called (`higher.called`): the function it is for these types
        source = fn.function_for(argtys) if hasattr(fn, "function_for") else fn
        # a parameter's dtype read or isinstance asked: the front end made for its type
        f = typed_frontend(source, argtys) if self.frontend is frontend else self.frontend(source)
        self._count[f.captured.fn] = n = self._count.get(f.captured.fn, 0) + 1
        if n > MAX_VARIANTS:     # a recursion whose constant argument never settles
            raise JitadError(f"{f.name}() is specialized on more than {MAX_VARIANTS} argument "
                             "signatures or constant arguments (a recursion whose constant "
                             "argument changes at every call?): pass that argument as a "
                             "variable", f.loc)
        if f.out_tree is not None and self.order:
            # the entry's nested return is rebuilt by the API; a caller's reads of a helper's
            # results are flat
            raise UnsupportedError(f"{f.name}() returns a nested tuple or a dict: only the "
                                   "function you differentiate may; return the values of a "
                                   "helper flat (`return a, b, c`)", f.return_loc(),
                                   "nested return")
        if len(argtys) != len(f.params):
            raise JitadError(f"{f.name}() takes {len(f.params)} arguments, got {len(argtys)}", f.loc)
        base = f.name
        name, k = base, 1
        while name in self._names:
            k += 1
            name = f"{base}_{k}"
        self._names.add(name)
        spec = Spec(fn, argtys, f, name=name)
        self.specs[key] = spec
        self.order.append(spec)
        self.active.append(spec)
        try:
            Inferer(self, spec).run()
        finally:
            self.active.pop()
        if not self.active:
            self.settle()
        return spec

    def settle(self):
        """Infer again the functions left open (`Inferer.run`): each waited for a function
        still being inferred (mutual recursion: `even` calls `odd`, which calls `even`
        before `even` has a result type), which now has one. Repeated while one closes;
        the last round reports what stays untyped."""
        while self.open:
            todo, self.open = self.open, []
            final = len(todo) == 1
            for inf in todo:
                inf.run(final=final)
            if len(self.open) == len(todo) and not final:
                for inf in self.open:       # no progress: the errors of the first
                    inf.run(final=True)


class Inferer:
    def __init__(self, prog: Program, spec: Spec):
        self.prog = prog
        self.spec = spec
        self.types = spec.types
        self.changed = False
        self.waiting = False

    def run(self, final=False):
        """Types to a fixed point. A variable left untyped because a call's callee is still
        being inferred (`Program.active`, mutual recursion) leaves this function open: the
        program runs it again once that callee has its result type (`Program.settle`);
        otherwise (or when `final`) it is an error."""
        f = self.spec.ir
        for p, t in zip(f.params, self.spec.argtys):
            self.types[p] = t
        for _ in range(50):
            self.changed = False
            self.waiting = False
            self.block(f.body)
            if not self.changed:
                break
        if self.waiting and not final and any(
                t not in self.types for s in ir.walk(f.body) for t in ir.writes(s)):
            self.prog.open.append(self)
            return
        for s in ir.walk(f.body):
            for t in ir.writes(s):
                if t not in self.types and isinstance(s, Bind) and s.op is LIST_NEW:
                    raise UnsupportedError(f"the list '{f.user_name(t)}' is never appended to: "
                                           "jitad cannot tell what it holds", s.loc, "empty list")
                if t not in self.types:
                    raise JitadError(f"could not infer the type of '{t}' (a recursive function "
                                     "needs a base case that returns without recursing)", s.loc)
        self.predefine()

    def predefine(self):
        """A variable a run may read before anything assigned it -- a loop-carried value first
        assigned in the loop (`if i > 0: s += prev * x` then `prev = x * i`), a loop variable
        read after its loop -- is given a typed placeholder at the function's start (0, or an
        empty array of its rank and dtype), in this specialization's own copy of the IR: Numba
        refuses a variable that is not defined on every path to a read ("Variable 'prev' is
        not defined"), though no run of the function reads it before it is assigned (Python
        would raise UnboundLocalError where it did). Every generated function (primal, vjp,
        jvp) reads the IR, so each starts with the placeholders."""
        f = self.spec.ir
        written = []
        for s in ir.walk(f.body):
            written += [t for t in ir.writes(s) if t not in written and t not in f.params]
        pre = []
        for v in written:
            t = self.types.get(v)
            if not isinstance(t, Ty) or t.is_list or not exposed(v, f.body)[0]:
                continue
            if t.ndim:
                shape = TupleA((Const(0),) * t.ndim) if t.ndim > 1 else Const(0)
                pre.append(Bind((v,), EMPTY, (shape,), f.loc, statics={"dtype": NP_DTYPE[t.dtype]}))
            else:
                zero = {"f8": 0.0, "f4": 0.0, "i8": 0, "b1": False, "c16": 0j}[t.dtype]
                pre.append(Bind((v,), COPY, (Const(zero),), f.loc))
        if pre:
            self.spec.ir = dataclasses.replace(f, body=pre + list(f.body))

    def set(self, name, ty, loc):
        old = self.types.get(name)
        if old is None:
            self.types[name] = ty
            self.changed = True
            return
        if old == ty:
            return
        if old.is_list or ty.is_list:
            user = self.spec.ir.user_name(name)
            raise UnsupportedError(
                f"the list '{user}' holds {old.elem} in one place and {ty.elem} here; a list "
                "holds values of one type (append floats: float(x))" if old.is_list and ty.is_list
                else f"'{user}' is {old} in one place and {ty} here; a list stays a list",
                loc, "type change")
        if isinstance(old, TupleTy) or isinstance(ty, TupleTy) or old.ndim != ty.ndim:
            raise UnsupportedError(
                f"'{self.spec.ir.user_name(name)}' is {old} in one place and {ty} here; a "
                "variable must keep one rank",
                loc, "type change")
        new = Ty(promote(old, ty), old.ndim)
        if new != old:
            self.types[name] = new
            self.changed = True

    def atom(self, a):
        if isinstance(a, Var):
            return self.types.get(a.name)
        if isinstance(a, Const):
            return const_ty(a.value)
        if isinstance(a, TupleA):
            items = tuple(self.atom(x) for x in a.items)
            return None if any(i is None for i in items) else TupleTy(items)
        return None

    def block(self, block):
        for s in block:
            if isinstance(s, Bind):
                self.bind(s)
            elif isinstance(s, If):
                self.block(s.body)
                self.block(s.orelse)
            elif isinstance(s, While):
                self.block(s.cond)
                self.block(s.body)
            elif isinstance(s, For):
                self.set(s.var, I8, s.loc)
                for a in (s.start, s.stop, s.step):
                    t = self.atom(a)
                    if t is not None and (t.dtype not in ("i8", "b1") or t.ndim):
                        raise UnsupportedError("range() needs integer arguments", s.loc, "range")
                self.block(s.body)
            elif isinstance(s, SetItem):
                subscript_write(s, self.types.get(s.array), [self.atom(a) for a in s.index])
                value, arr = self.atom(s.value), self.types.get(s.array)
                if getattr(value, "is_complex", False) and arr is not None and not arr.is_complex:
                    raise UnsupportedError(
                        f"writing a complex value into the real array "
                        f"'{self.spec.ir.user_name(s.array)}' (NumPy refuses it too): make the "
                        "array complex (np.zeros(n, dtype=complex)) or write np.real(v)",
                        s.loc, "complex write")
            elif isinstance(s, Return):
                tys = tuple(self.atom(a) for a in s.values)
                if all(t is not None for t in tys):
                    self.spec.out = tys

    def bind(self, s: Bind):
        args = [self.atom(a) for a in s.args]
        if s.op is CALL:
            if any(a is None for a in args):
                return
            try:
                callee = self.prog.specialize(s.callee, tuple(args))
            except JitadError as e:
                raise at_the_call(e, s) from None
            if callee.out is None:
                # a caller of ours still being inferred, or one left open (mutual
                # recursion): wait for it
                self.waiting |= callee is not self.spec and any(
                    callee is sp for sp in self.prog.active + [i.spec for i in self.prog.open])
                return
            if len(s.targets) != len(callee.out):
                raise UnsupportedError(f"{callee.ir.name}() returns {len(callee.out)} value(s), "
                                       f"unpacked into {len(s.targets)}", s.loc, "call")
            for t, ty in zip(s.targets, callee.out):
                self.set(t, ty, s.loc)
            return
        if s.op is SHAPE:
            a = args[0]
            if a is None:
                return
            if a.ndim != len(s.targets):
                raise UnsupportedError(f"unpacking a rank-{a.ndim} shape into {len(s.targets)} names",
                                       s.loc, "shape")
            for t in s.targets:
                self.set(t, I8, s.loc)
            return
        if s.op is LIST_APPEND:      # `hs = []` has no type of its own: its appends give it one
            if args[1] is not None:
                self.set(s.target, s.op.result_type(s, args), s.loc)
            return
        if s.op is not GETITEM and any(a is None for a in args if not isinstance(a, TupleTy)):
            return
        if s.op not in (GETITEM, COPY, LEN) and not s.op.needs_rule:
            for a in s.args:     # a library call's tuple result, held by a variable
                t = self.types.get(a.name) if isinstance(a, Var) else None
                if isinstance(t, TupleTy) and any(not isinstance(i, Ty) or i.ndim
                                                  or i.dtype != "i8" for i in t.items):
                    raise UnsupportedError(
                        f"'{self.spec.ir.user_name(a.name)}' holds a tuple "
                        f"{self.types[a.name]}: read it with a constant index (t[0]) or unpack "
                        "it (a, b = t)", s.loc, "tuple value")
        if s.op.type_rule is None:
            raise UnsupportedError(f"no type rule for {s.op}", s.loc, str(s.op))
        if not s.op.complex_ok and not s.op.structural and any(
                getattr(a, "is_complex", False) for a in args):
            raise UnsupportedError(
                f"{s.op.symbol or s.op.name} of a complex value is not supported (complex values "
                "go through arithmetic, np.exp/log/sqrt/sin/cos, sums, reshapes and indexing, "
                "the FFTs, np.real/imag/abs/angle/conj; see docs/language.md)", s.loc,
                s.op.symbol or s.op.name)
        op = s.op
        if op.complex_form is not None and any(getattr(a, "is_complex", False) for a in args):
            op = op.complex_form        # np.abs of a complex: its type rule too (a real result)
        if (op.elementwise or op.reduces) and any(getattr(a, "is_list", False) for a in args):
            # a list the front end did not see as one (a nested function's, through a name):
            # the array rules would give it an array's adjoint
            raise UnsupportedError(
                f"{op.symbol or op.name} of a list jitad did not know was a list here: give it "
                "np.array(...) of the list, or the helper's call itself (np.sum(f(x)))", s.loc,
                op.symbol or op.name)
        shaped = any(isinstance(a, TupleTy) for a in args)
        if shaped and (op.elementwise or op.reduces):
            raise not_of_shapes(op, s)
        try:
            ty = op.result_type(s, args)
        except (AttributeError, TypeError):
            if shaped:          # a type rule of arrays and numbers, given a tuple
                raise not_of_shapes(op, s) from None
            raise
        if ty is not None:
            self.set(s.target, ty, s.loc)


def not_of_shapes(op, s: Bind) -> UnsupportedError:
    """The refusal of a tuple (a shape, `x.shape`) given to an operation of arrays and
    numbers (`s * 2`, `s + 1`, `np.sum(s)`, `max(s)`)."""
    return UnsupportedError(
        f"{op.symbol or op.name} of a tuple (a shape) is not supported: a shape is indexed "
        "(s[0], s[-1]), sliced (s[1:]), joined to another (s + (3,)), compared (s == t), "
        "multiplied out (np.prod(s)), looped over, or given where NumPy takes a shape "
        "(np.zeros(s), x.reshape(s))", s.loc, "shape operand")


def at_the_call(e: JitadError, s: Bind) -> JitadError:
    """An error inside a function `prelude` defines (jitad's code, not the user's) raised at
    the user's call of it, naming the NumPy function; one that names no place (making a
    transformed function's code for the call: `higher.called`) at the call; any other error
    as it is."""
    if e.loc is None:
        return type(e)(e.message, s.loc, e.construct or "call")
    if e.loc.filename != prelude.__file__:
        return e
    fn = getattr(s.callee, "fn", s.callee)      # a definition given a structure: `Specialized`
    return type(e)(f"{e.message} (in {prelude.spelled(fn)}, which jitad computes with "
                   "NumPy it differentiates)", s.loc, e.construct)
