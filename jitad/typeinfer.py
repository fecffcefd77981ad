"""Stage 4 — types: the kind, rank and dtype of every variable, for one argument signature.

Takes: the normalized `ir.Function` of the entry and the `Ty` of each argument.
Guarantees: a `Program` holding one `Spec` per (function, argument signature) reachable from
the entry — callees are normalized and specialized once per signature, recursion included —
and for each a map from every variable to its `Ty`. Later stages decide at generation time
(never at run time) between `0.0` and `np.zeros_like(x)`, which tape a value goes to, how to
un-broadcast an adjoint, and which rank-specific rule applies.
Invariants: a variable has one rank for its whole life (a scalar never becomes an array);
otherwise a `JitadError` at the assignment that breaks it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import ir, rules
from .errors import JitadError, UnsupportedError
from .ir import Bind, Const, For, If, Return, SetItem, Slice, TupleA, Var, While


@dataclass(frozen=True)
class Ty:
    dtype: str  # 'f8' 'f4' 'i8' 'b1'
    ndim: int = 0

    @property
    def is_float(self):
        return self.dtype in ("f8", "f4")

    @property
    def is_array(self):
        return self.ndim > 0

    def __str__(self):
        base = {"f8": "float", "f4": "float32", "i8": "int", "b1": "bool"}[self.dtype]
        return base if self.ndim == 0 else f"{base}[{','.join(':' * self.ndim)}]"


@dataclass(frozen=True)
class TupleTy:
    items: tuple

    def __str__(self):
        return "(" + ", ".join(map(str, self.items)) + ")"


F8, I8, B1 = Ty("f8"), Ty("i8"), Ty("b1")
_ORDER = {"b1": 0, "i8": 1, "f4": 2, "f8": 3}
NP_DTYPE = {"f8": "np.float64", "f4": "np.float32", "i8": "np.int64", "b1": "np.bool_"}


def ty_of_value(v) -> Ty:
    """The signature type of a run-time argument (what specializations are keyed on)."""
    if isinstance(v, (bool, np.bool_)):
        return B1
    if isinstance(v, (int, np.integer)):
        return I8
    if isinstance(v, (float, np.floating)):
        return Ty("f4") if isinstance(v, np.float32) else F8
    if isinstance(v, np.ndarray):
        k = v.dtype
        if k == np.float64:
            return Ty("f8", v.ndim)
        if k == np.float32:
            return Ty("f4", v.ndim)
        if k.kind in "iu":
            return Ty("i8", v.ndim)
        if k == np.bool_:
            return Ty("b1", v.ndim)
        raise JitadError(f"arrays of dtype {k} are not supported (use float64, float32, int or bool)")
    if isinstance(v, tuple):
        return TupleTy(tuple(ty_of_value(x) for x in v))
    raise JitadError(f"arguments of type {type(v).__name__} are not supported "
                     "(pass floats, ints, bools or NumPy arrays)")


def promote(*tys) -> str:
    return max((t.dtype for t in tys), key=_ORDER.__getitem__)


def floaty(*tys) -> str:
    d = promote(*tys)
    return d if d in ("f8", "f4") else "f8"


def const_ty(v) -> Ty:
    if isinstance(v, bool):
        return B1
    if isinstance(v, int):
        return I8
    return F8


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


class Program:
    def __init__(self, frontend):
        self.frontend = frontend  # fn -> ir.Function (cached capture/fence/normalize)
        self.specs: dict = {}
        self.order: list = []
        self._names: set = set()

    def specialize(self, fn, argtys) -> Spec:
        key = (id(fn), argtys)
        if key in self.specs:
            return self.specs[key]
        f = self.frontend(fn)
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
        Inferer(self, spec).run()
        return spec


class Inferer:
    def __init__(self, prog: Program, spec: Spec):
        self.prog = prog
        self.spec = spec
        self.types = spec.types
        self.changed = False

    def run(self):
        f = self.spec.ir
        for p, t in zip(f.params, self.spec.argtys):
            self.types[p] = t
        for _ in range(50):
            self.changed = False
            self.block(f.body)
            if not self.changed:
                break
        for s in ir.walk(f.body):
            for t in ir.writes(s):
                if t not in self.types:
                    raise JitadError(f"could not infer the type of '{t}' (a recursive function "
                                     "needs a base case that returns without recursing)", s.loc)

    def set(self, name, ty, loc):
        old = self.types.get(name)
        if old is None:
            self.types[name] = ty
            self.changed = True
            return
        if old == ty:
            return
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
                pass
            elif isinstance(s, Return):
                tys = tuple(self.atom(a) for a in s.values)
                if all(t is not None for t in tys):
                    self.spec.out = tys

    def bind(self, s: Bind):
        args = [self.atom(a) for a in s.args]
        if s.op == "call":
            if any(a is None for a in args):
                return
            callee = self.prog.specialize(s.callee, tuple(args))
            if callee.out is None:
                return
            if len(s.targets) != len(callee.out):
                raise UnsupportedError(f"{callee.ir.name}() returns {len(callee.out)} value(s), "
                                       f"unpacked into {len(s.targets)}", s.loc, "call")
            for t, ty in zip(s.targets, callee.out):
                self.set(t, ty, s.loc)
            return
        if s.op == "shape":
            a = args[0]
            if a is None:
                return
            if a.ndim != len(s.targets):
                raise UnsupportedError(f"unpacking a rank-{a.ndim} shape into {len(s.targets)} names",
                                       s.loc, "shape")
            for t in s.targets:
                self.set(t, I8, s.loc)
            return
        if any(a is None for a in args if not isinstance(a, TupleTy)) and s.op not in ("getitem",):
            return
        ty = self.result(s, args)
        if ty is not None:
            self.set(s.target, ty, s.loc)

    def result(self, s, args):
        op = s.op
        if op == "copy":
            return args[0]
        if op == "getitem":
            return self.getitem(s, args)
        if op == "concat":
            return args[0]
        rule = rules.RULES.get(op)
        kind = rule.kind if rule else None
        arr = [a for a in args if isinstance(a, Ty)]
        nd = max((a.ndim for a in arr), default=0)
        if kind == "ew":
            return Ty(promote(*arr), nd)
        if kind == "ewf":
            return Ty(floaty(*arr), nd)
        if kind == "cmp":
            return Ty("b1", nd)
        if kind == "same":
            return args[0]
        if kind == "bool":
            return B1
        if kind == "int":
            return I8
        if kind == "float":
            if any(a.ndim for a in arr):
                raise UnsupportedError(f"{op}() takes scalars; use the np. function for arrays",
                                       s.loc, op)
            return F8
        if kind == "reduce":
            a = args[0]
            if a.ndim == 0:
                raise UnsupportedError(f"{op.split('_')[0]}() of a scalar", s.loc, op)
            dtype = floaty(a) if op.startswith("mean") else a.dtype
            if "axis" in s.statics:
                ax = s.statics["axis"]
                if not -a.ndim <= ax < a.ndim:
                    raise UnsupportedError(f"axis {ax} is out of range for a rank-{a.ndim} array",
                                           s.loc, "axis")
                if not op.startswith("sum") and a.ndim > 2:
                    raise UnsupportedError(f"{op.split('_')[0]}(axis=) supports arrays of rank <= 2",
                                           s.loc, op)
                s.statics["axis"] = ax % a.ndim
                if a.ndim == 1:  # reducing the only axis: the plain reduction
                    s.op = op.split("_")[0]
                    del s.statics["axis"]
                return Ty(dtype, a.ndim - 1)
            return Ty(dtype, 0)
        if kind == "dot":
            a, b = args
            if not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
                raise UnsupportedError("dot/@ supports arrays of rank 1 and 2 (use * for scalars)",
                                       s.loc, op)
            if not (a.is_float and b.is_float):
                raise UnsupportedError("dot/@ needs float arrays", s.loc, op)
            return Ty(promote(a, b), {(1, 1): 0, (2, 1): 1, (1, 2): 1, (2, 2): 2}[(a.ndim, b.ndim)])
        if kind == "outer":
            return Ty(promote(*arr), 2)
        if kind == "reshape":
            shape = args[1]
            n = len(shape.items) if isinstance(shape, TupleTy) else 1
            return Ty(args[0].dtype, n)
        if kind == "new":
            shape = args[0]
            n = len(shape.items) if isinstance(shape, TupleTy) else 1
            dt = {v: k for k, v in NP_DTYPE.items()}[s.statics.get("dtype", "np.float64")]
            return Ty(dt, n)
        if kind == "like":
            return args[0]
        if kind == "shape":
            return TupleTy((I8,) * args[0].ndim)
        if kind == "where":
            return Ty(promote(args[1], args[2]), nd)
        if kind == "clip":
            return Ty(promote(*arr), nd)
        raise UnsupportedError(f"no type rule for {op}", s.loc, op)

    def getitem(self, s, args):
        base = args[0]
        if base is None:
            return None
        if base.ndim == 0:
            raise UnsupportedError("indexing a scalar", s.loc, "subscript")
        index = s.args[1:]
        if len(index) > base.ndim:
            raise UnsupportedError(f"too many indices for a rank-{base.ndim} array", s.loc, "subscript")
        nd = base.ndim
        arrays = 0
        for a in index:
            if isinstance(a, Slice):
                continue
            t = self.atom(a)
            if t is None:
                return None
            if t.dtype not in ("i8", "b1"):
                raise UnsupportedError("array indices must be integers", s.loc, "subscript")
            if t.ndim == 0:
                nd -= 1
            elif t.ndim == 1 and t.dtype == "i8":
                arrays += 1
            else:
                raise UnsupportedError("only integer index arrays of rank 1 are supported "
                                       "(no boolean masks)", s.loc, "subscript")
        if arrays > 1 or (arrays and len(index) > 1):
            raise UnsupportedError("an index array must be the only index (x[idx])", s.loc, "subscript")
        return Ty(base.dtype, nd)
