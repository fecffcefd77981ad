"""Names: fresh, deterministic names that never collide with the user's, and the names
generated code reserves.

Takes: the names in use (a function's locals, the module globals generated code reads).
Guarantees: `Namer.fresh(base)` returns `base`, or `base_1`, `base_2` ..., never a name taken
before (every generator of names -- temporaries, adjoints, tapes, generated functions -- uses
one); `reserved_names()` is every name a user local must not have in generated code.
"""
from __future__ import annotations

import gast

from .primitives import TEMPLATE_GLOBALS


class Namer:
    """Fresh names that never collide with the user's or with each other (deterministic)."""

    def __init__(self, taken):
        self.taken = set(taken)

    def fresh(self, base: str) -> str:
        base = base.strip("_") or "t"
        name, k = base, 1
        while name in self.taken:
            name = f"{base}_{k}"
            k += 1
        self.taken.add(name)
        return name


def user_names(tree) -> set:
    return {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)} | {
        a.id for a in tree.args.args}


# Names generated code reads as globals or binds itself: the modules its header imports, the
# builtins `reverse`, `update` and the rule templates call, and `_` (the counter of a replayed
# `while`). A user local with one of these names is renamed (see `reserved_names`).
GENERATED_GLOBALS = frozenset({"np", "math", "rt", "_", "range", "bool", "int", "float", "len",
                               "min", "max", "abs"})


def reserved_names() -> set:
    """Every name a user local must not have in generated code: `GENERATED_GLOBALS`, the
    globals the derivative rules' templates mention (`primitives.TEMPLATE_GLOBALS`, which grows
    with `defvjp`) and the names user primitives are called by (`prim_<name>`)."""
    from . import extend
    return set(GENERATED_GLOBALS) | TEMPLATE_GLOBALS | set(extend.USER_FUNCTIONS)
