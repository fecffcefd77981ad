"""Value types: the kind, rank and dtype of a value, as specializations are keyed on.

Takes: run-time values (`ty_of_value`) or constants (`const_ty`).
Guarantees: `Ty(dtype, ndim)` for numbers and arrays (dtype one of 'f8' 'f4' 'i8' 'b1', and
'c16' for complex values: intermediates and data arguments, never differentiated arguments),
`TupleTy` for tuples, lists, namedtuples and dataclass objects (`records`: with their
class) and `DictTy` for dicts of string keys (the structured arguments: nested too), `ListTy` for a list the function builds (`hs = []`,
`hs.append(h)`); `promote`/`floaty` give NumPy's result dtype for mixed
operands within this set; `structure`, `leaf_types`, `leaves` and `rebuild` take a structured
argument apart into its arrays and scalars (depth first) and build one like it back. Read by
type inference, the primitives' type rules and both modes' argument handling.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import JitadError
from .records import field_names, is_record, remade, values


@dataclass(frozen=True)
class Ty:
    dtype: str  # 'f8' 'f4' 'i8' 'b1' 'c16'
    ndim: int = 0
    is_list = False

    @property
    def is_float(self):
        """A real floating type (what an argument to differentiate must be)."""
        return self.dtype in ("f8", "f4")

    @property
    def is_complex(self):
        return self.dtype == "c16"

    @property
    def is_inexact(self):
        """Float or complex: a value that carries a derivative (an adjoint, a tangent)."""
        return self.dtype in ("f8", "f4", "c16")

    @property
    def is_array(self):
        return self.ndim > 0

    def __str__(self):
        base = {"f8": "float", "f4": "float32", "i8": "int", "b1": "bool",
                "c16": "complex"}[self.dtype]
        return base if self.ndim == 0 else f"{base}[{','.join(':' * self.ndim)}]"


@dataclass(frozen=True)
class TupleTy:
    items: tuple
    is_list = False
    fields: tuple | None = None      # a namedtuple's (a dataclass's) field names
    cls: type | None = None          # its class (`records`): methods, the gradient's type

    def __str__(self):
        return "(" + ", ".join(map(str, self.items)) + ")"


@dataclass(frozen=True)
class ListTy:
    """A list of values of one type that the function builds (`hs = []`, `hs.append(h)`).
    For rank decisions it counts as one axis more than its elements (`np.stack(hs)`'s
    rank); `is_list` tells it from an array wherever that matters (adjoints, tapes)."""

    elem: Ty
    is_list = True

    @property
    def dtype(self):
        return self.elem.dtype

    @property
    def ndim(self):
        return self.elem.ndim + 1

    @property
    def is_float(self):
        return self.elem.is_float

    @property
    def is_complex(self):
        return self.elem.is_complex

    @property
    def is_inexact(self):
        return self.elem.is_inexact

    @property
    def is_array(self):
        return False

    def __str__(self):
        return f"list[{self.elem}]"


@dataclass(frozen=True)
class DictTy:
    """A dict of string keys (in their order) -> values, as an argument."""

    keys: tuple
    items: tuple
    is_list = False

    def __str__(self):
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.keys, self.items)) + "}"


F8, I8, B1, C16 = Ty("f8"), Ty("i8"), Ty("b1"), Ty("c16")
_ORDER = {"b1": 0, "i8": 1, "f4": 2, "f8": 3, "c16": 4}
NP_DTYPE = {"f8": "np.float64", "f4": "np.float32", "i8": "np.int64", "b1": "np.bool_",
            "c16": "np.complex128"}


def ty_of_value(v) -> Ty:
    """The signature type of a run-time argument (what specializations are keyed on)."""
    if isinstance(v, (bool, np.bool_)):
        return B1
    if isinstance(v, (int, np.integer)):
        return I8
    if isinstance(v, (float, np.floating)):
        return Ty("f4") if isinstance(v, np.float32) else F8
    if isinstance(v, (complex, np.complexfloating)):
        if isinstance(v, np.complex64):
            raise JitadError("complex64 values are not supported (use complex128)")
        return C16
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
        if k == np.complex128:
            return Ty("c16", v.ndim)
        raise JitadError(f"arrays of dtype {k} are not supported (use float64, float32, int, "
                         "bool or complex128)")
    if is_record(type(v)):
        return TupleTy(tuple(ty_of_value(x) for x in values(v)), field_names(type(v)), type(v))
    if isinstance(v, (tuple, list)):
        return TupleTy(tuple(ty_of_value(x) for x in v), getattr(type(v), "_fields", None))
    if isinstance(v, dict):
        if not all(type(k) is str for k in v):
            bad = next(k for k in v if type(k) is not str)
            raise JitadError(f"a dict argument needs string keys (got the key {bad!r})")
        return DictTy(tuple(v), tuple(ty_of_value(x) for x in v.values()))
    if v is None:
        return NONE
    if isinstance(v, str):
        return NoneTy(v)
    raise JitadError(f"arguments of type {type(v).__name__} are not supported (pass floats, "
                     "ints, bools, NumPy arrays, or tuples, lists, namedtuples, dataclasses "
                     "and dicts of them)")


@dataclass(frozen=True)
class NoneTy:
    """None or a string given as an argument (`def loss(x, y, alpha=None)`,
    `reduction="mean"`): a structure with nothing in it, the parameter the constant `value` in
    the function (`alpha is None`, `reduction == "mean"` are decided; another string is
    another specialization)."""

    value: object = None
    is_list = False
    is_float = False
    items = ()

    def form(self):
        """The front end's form of the parameter (`normalize.structs`): this constant."""
        return ("const", None, None) if self.value is None else ("const", repr(self.value),
                                                                  self.value)

    def __str__(self):
        return repr(self.value)


NONE = NoneTy()


def structured_value(v) -> bool:
    """Whether a run-time value is a structure (a tuple, list, dict, namedtuple or dataclass
    object), not an array or scalar."""
    return isinstance(v, (tuple, list, dict)) or is_record(type(v))


def is_structured(t) -> bool:
    return isinstance(t, (TupleTy, DictTy, NoneTy))


def structure(t):
    """What the front end needs of a structured type: its nesting, namedtuple fields and dict
    keys, not its arrays' types (None for an array or scalar)."""
    if isinstance(t, TupleTy):
        return ("seq", tuple(structure(x) for x in t.items), t.fields) + (
            (t.cls,) if t.cls is not None else ())
    if isinstance(t, DictTy):
        return ("dict", tuple(structure(x) for x in t.items), t.keys)
    if isinstance(t, NoneTy):      # a string or None inside: a constant of the specialization
        return t.form()
    return None


def leaf_types(t) -> list:
    """The types of a structured type's arrays and scalars, depth first."""
    if is_structured(t):
        return [x for i in t.items for x in leaf_types(i)]
    return [t]


def leaves(v, t=None) -> list:
    """The arrays and scalars of a (nested) tuple, list or dict argument, depth first; with `t`,
    checked to have the structure of type `t` (the call the code was compiled for)."""
    if isinstance(t, NoneTy):
        if not (v is t.value or (type(v) is str and v == t.value)):
            raise JitadError(f"an argument must be {t}, like the call this was compiled for")
        return []
    if t is not None and is_structured(t):
        if isinstance(t, TupleTy) and t.cls is not None:
            if type(v) is not t.cls:
                raise JitadError(f"an argument must be a {t.cls.__name__}, like the call this "
                                 "was compiled for")
            v = values(v)
        ok = (isinstance(v, dict) and isinstance(t, DictTy) and tuple(v) == t.keys) or (
            isinstance(v, (tuple, list)) and isinstance(t, TupleTy) and len(v) == len(t.items))
        if not ok:
            raise JitadError(f"an argument must be {t}, like the call this was compiled for")
        return [x for a, i in zip(v.values() if isinstance(v, dict) else v, t.items)
                for x in leaves(a, i)]
    if t is None and is_record(type(v)):
        return [x for a in values(v) for x in leaves(a)]
    if t is None and isinstance(v, (tuple, list, dict)):
        return [x for a in (v.values() if isinstance(v, dict) else v) for x in leaves(a)]
    return [v]


def rebuild(like, items, keep_constants=False, ints_none=False):
    """A value with the structure of the argument `like` (tuple, list, namedtuple, dict, nested)
    holding the values of the iterator `items` in place of its arrays and scalars: the gradient
    of a structured argument has the argument's structure (a dict its keys, in their order).
    A string or None inside `like` (a constant, `leaves` gives nothing for it) takes no item:
    it is None there (it has no gradient), or itself with `keep_constants`. With `ints_none`
    (a gradient whose integer leaves were not differentiated, `int_leaves_skipped`), an
    integer or bool number or array inside `like` takes no item either: None there."""
    it = iter(items)
    return _rebuild(like, it, keep_constants, ints_none)


def _rebuild(like, it, keep, ints=False):
    if is_record(type(like)):       # a namedtuple or dataclass: one of its class
        return remade(like, [_rebuild(v, it, keep, ints) for v in values(like)])
    if isinstance(like, dict):
        return {k: _rebuild(v, it, keep, ints) for k, v in like.items()}
    if isinstance(like, (tuple, list)):
        parts = [_rebuild(v, it, keep, ints) for v in like]
        if isinstance(like, list):
            return parts
        return type(like)._make(parts) if hasattr(like, "_make") else tuple(parts)
    if like is None or isinstance(like, str):
        return like if keep else None
    if ints and is_integer_value(like):
        return None
    return next(it)


def is_integer_value(v) -> bool:
    """An int or bool number, or an array of them (a leaf no gradient is taken for)."""
    if isinstance(v, (bool, int, np.integer, np.bool_)):
        return True
    return isinstance(v, np.ndarray) and v.dtype.kind in "biu"


def int_leaves_skipped(leaf_tys) -> list:
    """Which leaves of one structured wrt argument are not differentiated: its integer and
    bool ones (a count, a flag, an index array in a record of parameters: None in the
    gradient), where it has some other leaf; none where every leaf is one (that argument is
    refused as an integer argument is)."""
    ints = [isinstance(t, Ty) and t.dtype in ("i8", "b1") for t in leaf_tys]
    return ints if not all(ints) else [False] * len(ints)


def promote(*tys) -> str:
    return max((t.dtype for t in tys), key=_ORDER.__getitem__)


def floaty(*tys) -> str:
    """The dtype of a floating result (`np.exp`): float for integers and bools, complex for a
    complex operand."""
    d = promote(*tys)
    return d if d in ("f8", "f4", "c16") else "f8"


def real_dtype(*tys) -> str:
    """The dtype of a real result of these operands (`np.abs`, `np.real` of a complex: f8)."""
    d = promote(*tys)
    return "f8" if d == "c16" else d


def const_ty(v) -> Ty:
    if isinstance(v, bool):
        return B1
    if isinstance(v, int):
        return I8
    if isinstance(v, complex):
        return C16
    return F8


def atom_type(a, types: dict):
    """The type of an IR atom: a variable's (from `types`), a constant's, a tuple's items'."""
    from .ir import Const, Var
    if isinstance(a, Var):
        return types[a.name]
    if isinstance(a, Const):
        return const_ty(a.value)
    return TupleTy(tuple(atom_type(x, types) for x in a.items))


def arg_types(s, types: dict) -> tuple:
    """The types of a bind's operands (with the callee, the key of a call's specialization)."""
    return tuple(atom_type(a, types) for a in s.args)


def one_float_output(out_types) -> bool:
    """Whether a function's output types are one float (what `grad` differentiates)."""
    return len(out_types) == 1 and isinstance(out_types[0], Ty) and out_types[0].ndim == 0 \
        and out_types[0].is_float
