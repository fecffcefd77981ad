"""Stage 1 — capture: a Python function becomes a parsed, name-resolved tree.

Takes: a plain Python function object.
Guarantees: `Captured.tree` is the `gast.FunctionDef` of that function (decorators dropped),
whose node positions are the user's real file lines and columns; `Captured.resolve(name)`
maps every free name (closure cell, global, builtin) to the object it means, so later stages
never look a name up again; `loc(node)` turns any node into an `errors.Loc`.
Invariants: no node is mutated after capture (later stages build new IR).
"""
from __future__ import annotations

import builtins
import hashlib
import inspect
import textwrap
from dataclasses import dataclass, field

import gast

from .errors import JitadError, Loc

_MISSING = object()


@dataclass
class Captured:
    fn: object
    name: str
    tree: gast.FunctionDef
    filename: str
    source: str
    params: list[str]
    free: dict[str, object] = field(default_factory=dict)

    def loc(self, node) -> Loc:
        line = getattr(node, "lineno", None) or self.tree.lineno
        col = getattr(node, "col_offset", 0) or 0
        end_line = getattr(node, "end_lineno", line)
        end_col = getattr(node, "end_col_offset", None) if end_line == line else None
        return Loc(self.filename, line, col, end_col, self.name)

    def resolve(self, name: str):
        """The object a free name means, or `_MISSING`."""
        return self.free.get(name, _MISSING)

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]


def capture(fn) -> Captured:
    if not inspect.isfunction(fn):
        raise JitadError(f"jitad can only transform plain Python functions, got {type(fn).__name__}")
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise JitadError(
            f"cannot read the source of {fn.__qualname__} ({e}); jitad needs functions defined in a file"
        ) from None
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    module = gast.parse(text)
    fdefs = [n for n in module.body if isinstance(n, gast.FunctionDef)]
    if not fdefs:
        raise JitadError(f"{fn.__qualname__} is not defined with `def` (lambdas are not supported)")
    tree = fdefs[0]
    tree.decorator_list = []
    for node in gast.walk(tree):
        if hasattr(node, "lineno") and node.lineno is not None:
            node.lineno += first - 1
            if getattr(node, "end_lineno", None) is not None:
                node.end_lineno += first - 1
            node.col_offset = (node.col_offset or 0) + indent
            if getattr(node, "end_col_offset", None) is not None:
                node.end_col_offset += indent
    params = [a.id for a in tree.args.args]
    cap = Captured(fn, fn.__name__, tree, filename, raw, params)
    cap.free = _free_names(fn, tree)
    return cap


def _free_names(fn, tree) -> dict[str, object]:
    local = set(a.id for a in tree.args.args)
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            local.add(node.id)
    cells = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                cells[name] = cell.cell_contents
            except ValueError:
                pass
    free = {}
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id not in local:
            name = node.id
            if name in free:
                continue
            if name in cells:
                free[name] = cells[name]
            elif name in fn.__globals__:
                free[name] = fn.__globals__[name]
            elif hasattr(builtins, name):
                free[name] = getattr(builtins, name)
    return free
