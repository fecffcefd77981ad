"""The `numba.njit` versions of `runtime`'s helpers (what compiled generated code calls)."""
import numba

from . import runtime as _py

for _name in _py.__all__:
    globals()[_name] = numba.njit(cache=True, nogil=True)(getattr(_py, _name))
