"""Errors at the user's line: where eager mode refuses an operation.

Takes: a message and the construct it names (and optionally the `JitadError` subclass).
Guarantees: `user_loc()` is the `errors.Loc` of the innermost frame on the stack outside
jitad and NumPy (None if there is none), with the column range of the call or operator
running in that frame (Python >= 3.11); `refuse(...)` builds (does not raise) the
`JitadError` located there. Every refusal of eager mode goes through `refuse`, so an error
raised deep inside jitad.eager points at the line of user code that caused it.
Invariants: frames in `_INTERNAL_DIRS` (jitad itself and NumPy, whose Python-level functions
sit between a user's call and `__array_function__`) are never the user's; nothing here
depends on the rest of jitad.eager.
"""
import os
import sys

import numpy as np

from ..errors import Loc, NotDifferentiableError

# Frames in these directories are not the user's: jitad itself, and NumPy (whose
# Python-level functions sit between a user's call and __array_function__).
_INTERNAL_DIRS = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,   # jitad/
    os.path.dirname(os.path.abspath(np.__file__)) + os.sep,                 # numpy/
)


def _is_internal(filename):
    if filename.startswith("<__array_function__"):
        return True
    return not filename.startswith("<") and os.path.abspath(filename).startswith(_INTERNAL_DIRS)


def user_loc():
    """Loc of the innermost frame on the stack outside jitad and NumPy (None if none).

    The column range is that of the instruction running in that frame (Python
    >= 3.11), i.e. the call or operator that reached jitad.eager."""
    f = sys._getframe(1)
    while f is not None and _is_internal(f.f_code.co_filename):
        f = f.f_back
    if f is None:
        return None
    code = f.f_code
    line, col, end_col = f.f_lineno, 0, None
    positions = getattr(code, "co_positions", None)
    if positions is not None and f.f_lasti >= 0:
        for k, pos in enumerate(positions()):
            if k == f.f_lasti // 2:
                if pos[0] is not None and pos[2] is not None:
                    line, col = pos[0], pos[2]
                    end_col = pos[3] if pos[1] == pos[0] else None
                break
    return Loc(code.co_filename, line, col, end_col, code.co_name)


def refuse(message, construct, cls=NotDifferentiableError):
    """The JitadError for an operation eager mode cannot record, at the user's line."""
    return cls(message, user_loc(), construct)
