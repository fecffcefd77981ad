"""NumPy calls that change an array in place, as the whole-array writes they are (a `desugar`
rewrite, at the statement's line).

Takes: one statement of a captured function (gast, the user's line numbers), the set of its
list locals (`desugar._list_names`) and the builtin test of `capture` (`test.value(name)`:
what a global, not shadowed, holds).
Guarantees: each rewrite writes the same values into the same array Python does, as an
assignment `y[...] = value` -- the form jitad's writes already handle (the tape saves the
overwritten values; a write into an argument or through an alias is judged, and refused, as
`y[...] = value` written by hand would be):
  * `y.sort()` / `y.sort(axis)` / `y.sort(axis=a, kind=...)` of a local array `y` (a name,
    not a list local) is `y[...] = SORT(y, axis=a)` (axis -1 by default; `SORT` is a name
    `capture` binds to `np.sort`; the sorted values do not depend on the kind);
  * `y.fill(v)` is `y[...] = v`;
  * `np.copyto(dst, src)` (no `where=`) is `dst[...] = src` (NumPy broadcasts `src` the same);
  * a call of a NumPy function or ufunc with `out=y` (or `out=(y,)`) of a name
    (`np.add(a, b, out=c)`, `np.exp(z, out=z)`, `np.sum(X, axis=0, out=s)`) is
    `y[...] = f(...)` without the `out=`, the arguments evaluated before the write (as NumPy
    reads its inputs before writing the output: `np.multiply(y, 2.0, out=y)` is
    `y[...] = np.multiply(y, 2.0)`); as a value (`z = np.add(a, b, out=c)`), the write then
    `z = c` (NumPy returns `out`).
Anything else (a receiver other than a name, `where=` -- NumPy keeps out's entries where it
is false --, `out=` of a subscript) is left as it is, for `fence` / `normalize` to refuse at
its line.
Invariants: a statement without these forms is returned unchanged (None); the rewrite names
nothing the user's code did not, but `SORT`.
"""
from __future__ import annotations

import types

import gast
import numpy as np

from .gast_build import located as _located

SORT = "__jitad_sort__"     # bound by `capture` to np.sort


def _name(id_, ctx=None):
    return gast.Name(id_, ctx or gast.Load(), None, None)


def _write(target, value, like):
    """`target[...] = value` at `like`'s line."""
    sub = gast.Subscript(_name(target, None), gast.Constant(Ellipsis, None), gast.Store())
    sub.value.ctx = gast.Load()
    return _located(gast.Assign([sub], value, None), like)


def _numpy_object(func, value):
    """The NumPy callable `func` (an attribute chain from a global module, `np.add`,
    `np.linalg.norm`) names, or None."""
    parts = []
    while isinstance(func, gast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or not parts:
        return None
    obj = value(func.id)
    if not isinstance(obj, types.ModuleType):
        return None
    for p in reversed(parts):
        obj = getattr(obj, p, None)
    if isinstance(obj, np.ufunc) or (callable(obj) and str(
            getattr(obj, "__module__", "") or "").startswith("numpy")):
        return obj
    return None


def _out_name(call):
    """The name `out=` of `call` writes into (`out=c`, `out=(c,)`), or None."""
    for kw in call.keywords:
        if kw.arg == "out":
            v = kw.value
            if isinstance(v, gast.Tuple) and len(v.elts) == 1:
                v = v.elts[0]
            return v.id if isinstance(v, gast.Name) else None
    return None


def rewrite(s, lists, value):
    """The statements `s` means (module docstring), or None when it is none of these forms."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
        call, bound = s.value, None
    elif isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.value, gast.Call):
        call, bound = s.value, s.targets[0]
    else:
        return None
    func = call.func
    if bound is None and isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
            and func.value.id not in lists and value(func.value.id) is None:
        y = func.value.id
        if func.attr == "fill" and len(call.args) == 1 and not call.keywords:
            return [_write(y, call.args[0], s)]
        if func.attr == "sort" and len(call.args) <= 1 and all(
                k.arg in ("axis", "kind") for k in call.keywords):
            axis = call.args[0] if call.args else next(
                (k.value for k in call.keywords if k.arg == "axis"), gast.Constant(-1, None))
            sort = gast.Call(_name(SORT), [_name(y)], [gast.keyword("axis", axis)])
            return [_write(y, sort, s)]
    obj = _numpy_object(func, value)
    if obj is None:
        return None
    if bound is None and obj is np.copyto and len(call.args) == 2 and not call.keywords \
            and isinstance(call.args[0], gast.Name):
        return [_write(call.args[0].id, call.args[1], s)]
    out = _out_name(call)
    if out is None or any(k.arg == "where" for k in call.keywords):
        return None     # where=: NumPy keeps out's other entries (left for `normalize`)
    call.keywords = [k for k in call.keywords if k.arg != "out"]
    made = [_write(out, call, s)]
    if bound is not None:
        made.append(_located(gast.Assign([bound], _name(out), None), s))
    return made
