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
such a loop at its body, its test (the next-iteration check) comes after the first iteration;
and likewise of a `while` marked `enters` (such a counted loop that `structure` made a while
loop for its exits): control enters at the condition's statements, whose first test leads to
the body only (the graph holds a second copy of those statements, for the first pass; a
statement stands for both copies in `reaches`).
"""
from __future__ import annotations

from .ir import Const, For, If, Return, While

_EXIT = 0


class Flow:
    def __init__(self, body, trips=False):
        self.succ: dict = {}        # id(statement) -> ids of the statements that may follow it
        self.trips = trips
        self._first = False         # wiring the copy of a `while`'s condition for its first pass
        self.entry = self._block(body, _EXIT)

    def _key(self, s):
        return ("first", id(s)) if self._first else id(s)

    def _block(self, stmts, cont):
        """Wire `stmts` so that the last flows into `cont`; the id control enters by."""
        entry = cont
        for s in reversed(stmts):
            entry = self._stmt(s, entry)
        return entry

    def _stmt(self, s, cont):
        key = self._key(s)
        if isinstance(s, If):
            self.succ[key] = [self._block(s.body, cont), self._block(s.orelse, cont)]
        elif isinstance(s, For):
            body = self._block(s.body, key)
            self.succ[key] = [body, cont]
            if self.trips and surely_runs(s):
                return body
        elif isinstance(s, While):
            # the head runs the condition's statements, then decides: body (and back) or out
            test = ("test", key)
            body = self._block(s.body, key)
            self.succ[test] = [body, cont]
            self.succ[key] = [self._block(s.cond, test)]
            if self.trips and s.enters and not self._first:
                # its first pass: the condition's statements (their copies), then the body
                first = ("first", test)
                self.succ[first] = [body]
                self._first = True
                self.succ[("first", id(s))] = [self._block(s.cond, first)]
                self._first = False
                return ("first", id(s))
        elif isinstance(s, Return):
            self.succ[key] = []
        else:
            self.succ[key] = [cont]
        return key

    def reaches(self, a, b, avoid=()) -> bool:
        """Can `b` run after `a` with none of `avoid` running in between? `a=None` is the
        function's entry."""
        blocked = {k for x in avoid for k in (id(x), ("first", id(x)))}
        target = (id(b), ("first", id(b)))
        seen, frontier = set(), [self.entry] if a is None else [
            n for k in (id(a), ("first", id(a))) for n in self.succ.get(k, ())]
        while frontier:
            n = frontier.pop()
            if n in target:
                return True
            if n in seen or n in blocked or n == _EXIT:
                continue
            seen.add(n)
            frontier.extend(self.succ.get(n, ()))
        return False


def surely_runs(s: For) -> bool:
    """Whether loop `s` surely runs its body at least once: a range of constant int bounds
    that is not empty."""
    bounds = [a.value if isinstance(a, Const) else a for a in (s.start, s.stop, s.step)]
    return all(type(b) is int for b in bounds) and bounds[2] != 0 and len(range(*bounds)) > 0
