"""What Numba says a call returns: the type rule of the library calls jitad has no rule for.

Takes: the parameters and the expression of a call (`np.bincount(a0, minlength=a1)`, made by
`primitives.opaque`) and the `Ty`s of its operands.
Guarantees: `result_type(params, text, argtys)` is the `Ty` (or `TupleTy`) of the call's
result as Numba types it -- the expression is put in a function of the parameters and only
typed (Numba's type inference: milliseconds for a call Numba implements natively; a NumPy
function Numba implements in Python, an `@overload`, is compiled to be typed, seconds), for
arrays of any layout, then C-contiguous ones -- or a string saying why there is none (Numba
cannot type the call; its result is not a number, an array or a tuple of them). Answers are
cached per (expression, signature) for the process and on disk (`jitad_types_<hash>.json` in
the cache directory, for the Numba and NumPy versions: later processes do not type again).
Importing this module sets `opaque.RESULT_TYPE`: the primitives package itself never imports
Numba (eager mode does not need it).
Invariants: nothing here runs the call; the typing context is only read (a lock keeps two
threads from typing at once); an entry on disk is JSON (reading it runs nothing), and one that
cannot be read or is not trusted is typed again and rewritten.
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
            got = _TYPES.get(key)
            if got is None:
                path = _disk_path(params, text, argtys)
                got = _read(path)
                if got is None:
                    got = _type_of(params, text, argtys)
                    _write(path, got)
                _TYPES[key] = got
    return got


# -- the answers on disk. Typing a NumPy function Numba implements in Python (an `@overload`:
# np.setdiff1d, np.unique, np.isin ...) compiles that implementation and everything it calls
# (np.setdiff1d of two int vectors: 13 s, all of it in Numba's lowering and LLVM), and Numba
# keeps none of it between processes; the answer -- a type or why there is none -- is a few
# bytes of JSON kept in jitad's cache directory, keyed by the call, the operand types and the
# Numba and NumPy versions. JSON, not pickle: reading an entry runs nothing; an entry that
# cannot be read or is not trusted (`cache.untrusted`) is a miss.

def _disk_path(params, text, argtys):
    try:
        import hashlib
        import numba
        from .cache import cache_dir
        key = repr((numba.__version__, np.__version__, tuple(params), text, argtys))
        return cache_dir() / f"jitad_types_{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"
    except Exception:       # noqa: BLE001 - a cache problem is a miss, never an error
        return None


def _encode(t):
    if isinstance(t, str):
        return {"why": t}
    if isinstance(t, TupleTy):
        return {"tuple": [_encode(x) for x in t.items]}
    return {"ty": [t.dtype, t.ndim]}


def _decode(d):
    if "why" in d:
        return str(d["why"])
    if "tuple" in d:
        return TupleTy(tuple(_decode(x) for x in d["tuple"]))
    dtype, ndim = d["ty"]
    if dtype not in _NUMBA_DTYPES or not isinstance(ndim, int):
        raise ValueError("not a type")
    return Ty(dtype, ndim)


def _read(path):
    import json
    from .cache import untrusted
    try:
        if path is None or not path.exists() or untrusted(path) is not None:
            return None
        return _decode(json.loads(path.read_text()))
    except Exception:       # noqa: BLE001 - damaged: typed again and rewritten
        return None


def _write(path, answer):
    import json
    import os
    import tempfile
    if path is None:
        return
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")     # 0600
        with os.fdopen(fd, "w") as fh:
            json.dump(_encode(answer), fh)
        os.replace(tmp, path)
    except Exception:       # noqa: BLE001 - a cache that cannot be written only costs time
        pass


def _type_of(params, text, argtys):
    from numba.core import compiler
    from numba.core import types as nt
    from numba.core.errors import NumbaError
    from numba.core.registry import cpu_target
    from numba.core.typed_passes import type_inference_stage
    src = f"def _typed({', '.join(params)}):\n    return {text}\n"
    from . import _runtime_jit
    scope = {"np": np, "math": math, "rt": _runtime_jit}
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
