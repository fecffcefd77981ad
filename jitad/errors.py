"""Errors jitad raises at the user's source.

Takes: a message, the name of the unsupported construct, and a location in the user's file.
Guarantees: the text names the file, line and column, shows the source line with a caret
under the offending construct, and never contains an internal traceback of jitad's own.
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A place in the user's source (1-based line, 0-based column)."""

    filename: str
    line: int
    col: int = 0
    end_col: int | None = None
    function: str = ""

    def source_line(self) -> str:
        return linecache.getline(self.filename, self.line).rstrip("\n")


class JitadError(Exception):
    """Something in the user's function that jitad cannot transform or differentiate."""

    def __init__(self, message: str, loc: Loc | None = None, construct: str | None = None):
        self.message = message
        self.loc = loc
        self.construct = construct
        super().__init__(self._format())

    def _format(self) -> str:
        head = self.message
        if self.construct and self.construct not in head:
            head = f"{head} [{self.construct}]"
        if self.loc is None:
            return head
        loc = self.loc
        where = f'  File "{loc.filename}", line {loc.line}, col {loc.col + 1}'
        if loc.function:
            where += f", in {loc.function}"
        text = loc.source_line()
        if not text:
            return f"{head}\n{where}"
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        width = max(1, (loc.end_col if loc.end_col and loc.end_col > loc.col else loc.col + 1) - loc.col)
        width = min(width, max(1, len(text) - loc.col))
        caret = " " * (4 + loc.col - indent) + "^" * width
        return f"{head}\n{where}\n    {stripped}\n{caret}"

    def __reduce__(self):  # keep picklable for multiprocessing users
        return (type(self), (self.message, self.loc, self.construct))


class UnsupportedError(JitadError):
    """A construct outside jitad's language subset."""


class JitadWarning(UserWarning):
    """Something of the user's function compiled code leaves out (a `print` call)."""


class NotDifferentiableError(JitadError):
    """A value jitad was asked to differentiate through, or with respect to, that it cannot."""


class IndexOutOfRange(JitadError, IndexError):
    """An index outside its array at run time (an `IndexError`, as Python would raise)."""


class TapeLimitError(JitadError, MemoryError):
    """A `while` loop whose tape passed `$JITAD_MAX_TAPE_BYTES` (a `MemoryError`)."""


class RecursionLimitError(JitadError, RecursionError):
    """Compiled recursion deeper than `$JITAD_MAX_RECURSION` (a `RecursionError`)."""
