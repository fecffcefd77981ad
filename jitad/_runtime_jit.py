"""The `numba.njit` versions of `runtime`'s helpers (what compiled generated code calls).

Each helper is re-bound to this module's globals, so a helper calling another helper calls
the compiled one; the constants they read (`runtime.CONSTANTS`) are copied here."""
import types

import numpy as np  # noqa: F401  (the helpers' global `np`)

from . import runtime as _py
from .cache import njit

math = _py.math    # the helpers' global `math`
for _name in _py.CONSTANTS:
    globals()[_name] = getattr(_py, _name)

for _name in ("_einsum_strides",) + tuple(_py.__all__):
    _f = getattr(_py, _py.COMPILED_AS.get(_name, _name))
    _g = types.FunctionType(_f.__code__, globals(), _name, _f.__defaults__)
    _inline = "always" if _name in _py.INLINE else "never"
    _errors = {"error_model": "numpy"} if _name in _py.NUMPY_ERRORS else {}
    globals()[_name] = njit(_g, nogil=_name not in _py.NEEDS_GIL, inline=_inline, **_errors)
