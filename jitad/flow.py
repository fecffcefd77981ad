"""Control flow of the structured IR as a graph: which statement can run after which.

Takes: a function body of `ir` statements (normalized: `If`, `For`, `While`, simple statements).
Guarantees: `Flow(body).reaches(a, b, avoid)` is True when some execution runs statement `b`
after statement `a` (or from the function's entry, `a=None`) without running any statement of
`avoid` in between (loops go round, so a
statement can reach itself or an earlier one). A compound statement stands for its test (an
`If`'s branch decision, a `For`'s next-iteration check, a `While`'s loop head), so an analysis
can ask about simple statements and decisions alike.
Invariants: the graph is built once; it is conservative (every path Python can take is in it;
branch conditions are never evaluated). `Flow(body, trips=True)` also knows that a `for` over
a range of constant, non-empty bounds (`range(3)`) runs its body at least once: control enters
such a loop at its body, its test (the next-iteration check) comes after the first iteration.
"""
from __future__ import annotations

from .ir import Const, For, If, Return, While

_EXIT = 0


class Flow:
    def __init__(self, body, trips=False):
        self.succ: dict = {}        # id(statement) -> ids of the statements that may follow it
        self.trips = trips
        self.entry = self._block(body, _EXIT)

    def _block(self, stmts, cont):
        """Wire `stmts` so that the last flows into `cont`; the id control enters by."""
        entry = cont
        for s in reversed(stmts):
            entry = self._stmt(s, entry)
        return entry

    def _stmt(self, s, cont):
        if isinstance(s, If):
            self.succ[id(s)] = [self._block(s.body, cont), self._block(s.orelse, cont)]
        elif isinstance(s, For):
            body = self._block(s.body, id(s))
            self.succ[id(s)] = [body, cont]
            if self.trips and _runs(s):
                return body
        elif isinstance(s, While):
            # the head runs the condition's statements, then decides: body (and back) or out
            test = ("test", id(s))
            self.succ[test] = [self._block(s.body, id(s)), cont]
            self.succ[id(s)] = [self._block(s.cond, test)]
        elif isinstance(s, Return):
            self.succ[id(s)] = []
        else:
            self.succ[id(s)] = [cont]
        return id(s)

    def reaches(self, a, b, avoid=()) -> bool:
        """Can `b` run after `a` with none of `avoid` running in between? `a=None` is the
        function's entry."""
        blocked = {id(x) for x in avoid}
        seen, frontier = set(), [self.entry] if a is None else list(self.succ.get(id(a), ()))
        while frontier:
            n = frontier.pop()
            if n == id(b):
                return True
            if n in seen or n in blocked or n == _EXIT:
                continue
            seen.add(n)
            frontier.extend(self.succ.get(n, ()))
        return False


def _runs(s: For) -> bool:
    """Whether loop `s` surely runs its body at least once: a range of constant int bounds
    that is not empty."""
    bounds = [a.value if isinstance(a, Const) else a for a in (s.start, s.stop, s.step)]
    return all(type(b) is int for b in bounds) and bounds[2] != 0 and len(range(*bounds)) > 0
