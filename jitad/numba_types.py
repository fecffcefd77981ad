"""What Numba says a call returns: the type rule of the library calls jitad has no rule for.

Takes: the parameters and the expression of a call (`np.bincount(a0, minlength=a1)`, made by
`primitives.opaque`) and the `Ty`s of its operands.
Guarantees: `result_type(params, text, argtys)` is the `Ty` (or `TupleTy`) of the call's
result as Numba types it -- the expression is put in a function of the parameters and only
typed (Numba's type inference, no LLVM compile: milliseconds), for arrays of any layout, then
C-contiguous ones -- or a string saying why there is none (Numba cannot type the call; its
result is not a number, an array or a tuple of them). Answers are cached per (expression,
signature) for the process. Importing this module sets `opaque.RESULT_TYPE`: the primitives
package itself never imports Numba (eager mode does not need it).
Invariants: nothing here runs the call; the typing context is only read (a lock keeps two
threads from typing at once).
"""
from __future__ import annotations

import math
import re
import threading

import numpy as np

from .primitives import opaque
from .types import TupleTy, Ty

_TYPES: dict = {}
_LOCK = threading.Lock()
_NUMBA_DTYPES = {"f8": "float64", "f4": "float32", "i8": "int64", "b1": "boolean"}


def result_type(params, text, argtys):
    key = (text, argtys)
    got = _TYPES.get(key)
    if got is None:
        with _LOCK:
            got = _TYPES[key] = _type_of(params, text, argtys)
    return got


def _type_of(params, text, argtys):
    from numba.core import compiler
    from numba.core import types as nt
    from numba.core.errors import NumbaError
    from numba.core.registry import cpu_target
    from numba.core.typed_passes import type_inference_stage
    src = f"def _typed({', '.join(params)}):\n    return {text}\n"
    scope = {"np": np, "math": math}
    exec(compile(src, f"<jitad typing {text}>", "exec"), scope)
    cpu_target.target_context.refresh()
    tctx = cpu_target.typing_context
    tctx.refresh()
    problem = None
    for layout in ("A", "C"):
        try:
            sig = tuple(_numba_arg(t, layout, nt) for t in argtys)
        except ValueError as e:
            return str(e)
        try:
            func_ir = compiler.run_frontend(scope["_typed"])
            res = type_inference_stage(tctx, cpu_target.target_context, func_ir, sig, None)
        except NumbaError as e:
            problem = problem or _first_line(e)
            continue
        except Exception as e:      # noqa: BLE001 - Numba typing a call it does not know
            problem = problem or f"{type(e).__name__}: {e}"
            continue
        ty = _from_numba(res.return_type, nt)
        return ty if ty is not None else (f"its result ({res.return_type}) is not a value "
                                          "jitad computes with (numbers, arrays and tuples of "
                                          "them)")
    return f"Numba cannot compile it for these arguments ({problem})"


def _first_line(e) -> str:
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(("Failed in", "File ", "During", "<source", "^")):
            return line.rstrip(".")
    return type(e).__name__


def _numba_arg(t, layout, nt):
    if isinstance(t, TupleTy):
        items = tuple(_numba_arg(x, layout, nt) for x in t.items)
        return nt.UniTuple(items[0], len(items)) if len(set(items)) == 1 else nt.Tuple(items)
    if getattr(t, "is_list", False) or not isinstance(t, Ty):
        raise ValueError(f"jitad passes it only numbers, arrays and tuples of them (not {t})")
    dtype = getattr(nt, _NUMBA_DTYPES[t.dtype])
    return nt.Array(dtype, t.ndim, layout) if t.ndim else dtype


def _from_numba(t, nt):
    if isinstance(t, nt.BaseTuple) and not isinstance(t, nt.BaseNamedTuple):
        items = tuple(_from_numba(x, nt) for x in t.types)
        return None if not items or any(i is None for i in items) else TupleTy(items)
    if isinstance(t, nt.Array):
        d = _dtype(t.dtype, nt)
        return None if d is None else Ty(d, t.ndim)
    d = _dtype(t, nt)
    return None if d is None else Ty(d)


def _dtype(t, nt):
    if isinstance(t, nt.Boolean):
        return "b1"
    if isinstance(t, nt.Integer):
        return "i8"
    if isinstance(t, nt.Float):
        return "f4" if t.bitwidth == 32 else "f8"
    return None


opaque.RESULT_TYPE = result_type
