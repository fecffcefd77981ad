"""Library calls jitad has no derivative rule for: typed by Numba, run as they are, refused
only where a derivative would be needed.

Takes: a NumPy or `math` callable (or an array method's name) that no primitive means, and the
form of one call of it: which arguments are operands (IR atoms: arrays, numbers, tuples of
them) and which are constants written in the source (strings, None, dtypes, tuples of
numbers), by position and keyword (`np.bincount(ids, minlength=n)`, `np.nonzero(m)`,
`m.nonzero()`, `x.argmax(axis=1)`).
Guarantees: `call(obj, spelled, form)` is the one `Primitive` of that call form (cached: the
same object for the same form), with
  - a forward template calling the function by the name generated code reaches it by
    (`np.bincount(a0, minlength=a1)`; the constants written in), which Numba compiles and the
    Python backend and both eager modes evaluate with NumPy;
  - a type rule that asks Numba (`jitad.numba_types`): the template is typed, not compiled,
    for the operands' types; its result -- a number, an array, a tuple of them -- is the
    bind's type, and a call Numba cannot type (or whose result jitad does not hold: a complex
    number, a list, None) is an `UnsupportedError` at the user's call;
  - no adjoints, and the fact `needs_rule`: derivatives flow into it from every operand
    (`diff_args`), so activity sees when its result depends on a differentiated value and
    refuses it there (`activity.active`: "np.foo has no derivative rule in jitad ..." at the
    user's line) -- a result that is an integer, a boolean, or computed from data only is
    never refused;
  - `view` (its result may share its first operand's buffer, as `np.diagonal` does)
    and not `reusable` (a random draw is not a common temporary).
`code_spelling(obj)` is the name compiled code calls a library callable by (its NumPy or
`math` name; `rt.<f>` for a runtime helper that generated code read again calls, as a rule's
template does: `rt.log_count(k)` of data), or None: only such callables take this route;
anything else keeps the refusal "has no derivative rule".
Invariants: the primitives are not registered (like `einsum.of`'s: `core.register` would bump
the version that invalidates caches); their templates read only `np`, `math` and `rt`, names a
user's local never shadows. Nothing here runs the called function.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from .. import runtime as rt
from ..errors import UnsupportedError
from .core import Primitive

# where compiled code finds a library callable without a rule (searched in this order)
_NAMESPACES = (("np", np), ("np.linalg", np.linalg), ("np.fft", np.fft),
               ("np.random", np.random), ("np.lib.stride_tricks", np.lib.stride_tricks),
               ("math", math), ("rt", rt))
_CACHE: dict = {}
# the refusal of a call whose result would need a derivative, in every mode
NEEDS_RULE = ("{} has no derivative rule in jitad, and its result here depends on a "
              "differentiated value (see jitad.defvjp to add one)")


def code_spelling(obj):
    """`np.bincount`, `np.lib.stride_tricks.as_strided`, `math.ldexp`: the name
    generated code calls `obj` by, or None if it is not a NumPy or math function."""
    name = getattr(obj, "__name__", None)
    if not isinstance(name, str) or isinstance(obj, type):
        return None
    for prefix, mod in _NAMESPACES:
        if getattr(mod, name, None) is obj:
            return f"{prefix}.{name}"
    return None


def call(target, spelled: str, form: tuple) -> Primitive:
    """The primitive of one call form of a library callable without a rule.

    target   the callable's code spelling (`np.bincount`), or `.name` for an array method
             (the receiver is the first operand)
    spelled  how the user wrote it, for messages (`bincount()`, `np.bincount()`, `.nonzero()`)
    form     ((keyword or None, slot), ...) in call order; a slot is "operand" or
             ("const", value) for a constant written in the source"""
    key = (target, form)
    prim = _CACHE.get(key)
    if prim is None:
        params = tuple(f"a{k}" for k, (_, slot) in enumerate(form) if slot == "operand")
        text = _forward_text(target, form, params)
        prim = Primitive(f"{target}" if not target.startswith(".") else f"method{target}",
                         params, forward=ast.parse(text, mode="eval").body,
                         type_rule=_type_rule, kind="opaque", fresh=False, view=True,
                         reusable=False, diff_args="all")
        prim.needs_rule = True
        prim.spelled = spelled
        prim.text = text
        _CACHE[key] = prim
    return prim


def _literal(value) -> str:
    if isinstance(value, type) or isinstance(value, np.dtype):
        name = np.dtype(value).name
        return {"bool": "np.bool_"}.get(name, f"np.{name}")
    if isinstance(value, tuple):
        return "(" + "".join(_literal(v) + ", " for v in value) + ")"
    if isinstance(value, float) and not math.isfinite(value):
        return "np.nan" if value != value else "np.inf" if value > 0 else "-np.inf"
    return repr(value)


def _forward_text(target, form, params):
    operands = iter(params)
    parts, receiver = [], None
    for keyword, slot in form:
        text = next(operands) if slot == "operand" else _literal(slot[1])
        if receiver is None and target.startswith("."):
            receiver = text
            continue
        parts.append(text if keyword is None else f"{keyword}={text}")
    head = f"{receiver}{target}" if target.startswith(".") else target
    return f"{head}({', '.join(parts)})"


def is_constant(value) -> bool:
    """Whether a constant argument can be written into generated code as it is."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, tuple):
        return all(is_constant(v) for v in value)
    if isinstance(value, type) and value in (float, int, bool):
        return True
    try:
        return isinstance(value, (type, np.dtype)) and np.dtype(value).kind in "biuf"
    except TypeError:
        return False


# ---------------------------------------------------------------- typing by Numba
# set by `jitad.numba_types` (imported by the compiler's type inference): the primitives
# package does not import Numba, which eager mode never needs
RESULT_TYPE = None


def _type_rule(prim, s, args):
    if any(a is None for a in args):
        return None
    got = RESULT_TYPE(prim.params, prim.text, tuple(args))
    if isinstance(got, str):
        raise UnsupportedError(f"{prim.spelled.removesuffix('()')} has no derivative rule in "
                               f"jitad, and {got} (see jitad.defvjp to add one)", s.loc,
                               f"call to {prim.spelled}")
    return got
