"""The intermediate representation shared by every stage after `fence`.

A function body is a list of statements in A-normal form: every operand is an atom
(`Var` or `Const`, or an index built of atoms), and every `Bind` applies exactly one
primitive. Control flow is structured: `If`, `While`, `For` (over a range) and a single
`Return` at the end of the top-level body. `break`, `continue` and early `return` exist only
transiently inside `normalize` and never leave it.

The monadic reading (see `monadic.py`): a `Bind` is a step of the Tape monad, consecutive
independent binds form a `Par` (applicative) group, the test of an `If`/`While` is a `!`
extraction of a primal value, and `Return` is `pure`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Loc


@dataclass(frozen=True)
class Var:
    name: str

    def __str__(self):
        return self.name


@dataclass(frozen=True)
class Const:
    value: object

    def __str__(self):
        return repr(self.value)


@dataclass(frozen=True)
class Slice:
    lower: object = None  # atom or None
    upper: object = None
    step: object = None

    def __str__(self):
        s = f"{_s(self.lower)}:{_s(self.upper)}"
        return s + (f":{self.step}" if self.step is not None else "")


@dataclass(frozen=True)
class TupleA:
    """A tuple of atoms, only as a static argument (a shape) or a call's operand list."""

    items: tuple

    def __str__(self):
        return "(" + ", ".join(map(str, self.items)) + ("," if len(self.items) == 1 else "") + ")"


def _s(a):
    return "" if a is None else str(a)


@dataclass
class Bind:
    """targets <- op(args).  `op` is a `primitives.Primitive`: one of the rule table's, or a
    structural one: COPY (x = y), GETITEM (args = (array, *index)), CALL (a user function,
    `callee`), SHAPE (targets = the dimensions), CONCAT (args = arrays; statics axis)."""

    targets: tuple
    op: object   # primitives.Primitive
    args: tuple
    loc: Loc
    statics: dict = field(default_factory=dict)
    callee: object = None
    inplace: bool = False  # from `x op= e`: in Python an in-place update when x is an array
    in_range: bool = False  # an element read whose indices its maker proved (`maps`' steps)

    @property
    def target(self):
        return self.targets[0]


@dataclass
class SetItem:
    """array[index] = value, on an array the function created."""

    array: str
    index: tuple
    value: object
    loc: Loc
    init: bool = False     # the element's first write: no statement reads what it held before
    in_range: bool = False  # its indices proven in range by the pass that made it (`maps`)


@dataclass
class If:
    test: str
    body: list
    orelse: list
    loc: Loc


@dataclass
class While:
    """loop { cond...; if not test: break; body... }"""

    cond: list
    test: str
    body: list
    loc: Loc
    # its first test surely holds: a counted loop over a range of constant, non-empty bounds
    # that became a while loop for its exits (`break`, `return`: `normalize.structure`), whose
    # flags are unset whenever the loop is entered (`flow.Flow` with `trips`)
    enters: bool = False


@dataclass
class For:
    """for var in range(start, stop, step): body"""

    var: str
    start: object
    stop: object
    step: object
    body: list
    loc: Loc
    pointwise: bool = False  # a map (`maps`): iterations independent, NumPy's arithmetic


@dataclass
class Return:
    values: tuple
    loc: Loc


@dataclass
class Par:
    """Binds with no data dependence among them (only produced by `monadic.group`)."""

    binds: list


# transient jumps, removed by normalize
@dataclass
class Break:
    loc: Loc


@dataclass
class Continue:
    loc: Loc


@dataclass
class EarlyReturn:
    values: tuple
    loc: Loc


def atom_names(a):
    """Variable names an atom (or index component) reads."""
    if isinstance(a, Var):
        return [a.name]
    if isinstance(a, Slice):
        return [n for part in (a.lower, a.upper, a.step) for n in atom_names(part)]
    if isinstance(a, TupleA):
        return [n for part in a.items for n in atom_names(part)]
    return []


def reads(stmt):
    """Names a simple statement reads."""
    if isinstance(stmt, Bind):
        return [n for a in stmt.args for n in atom_names(a)]
    if isinstance(stmt, SetItem):
        return [stmt.array] + [n for a in stmt.index for n in atom_names(a)] + atom_names(stmt.value)
    if isinstance(stmt, Return):
        return [n for a in stmt.values for n in atom_names(a)]
    return []


def own_reads(stmt):
    """Names a statement reads itself, not in its blocks: a simple statement's operands, an
    if's or a while's test, a for loop's bounds."""
    if isinstance(stmt, (Bind, SetItem, Return)):
        return reads(stmt)
    if isinstance(stmt, (If, While)):
        return [stmt.test]
    if isinstance(stmt, For):
        return [n for a in (stmt.start, stmt.stop, stmt.step) for n in atom_names(a)]
    return []


def taken_names(f, types):
    """Every name a function's code uses (its parameters, typed names, names read or
    written, tests): what a pass's `Namer` must not make again."""
    taken = set(f.params) | set(types)
    for s in walk(f.body):
        taken |= set(writes(s)) | set(reads(s))
        if isinstance(s, (If, While)):
            taken.add(s.test)
    return taken


def writes(stmt):
    if isinstance(stmt, Bind):
        return list(stmt.targets)
    if isinstance(stmt, For):
        return [stmt.var]
    return []


def exposed(v, block):
    """(exposed, assigned): whether running `block` may read v before it assigns v, and
    whether it surely assigns v when it runs to its end. A loop's body may run zero times; a
    while loop's condition runs at least once; a read in a statement comes before its write."""
    for s in block:
        if isinstance(s, If):
            if s.test == v:
                return True, False
            e1, a1 = exposed(v, s.body)
            e2, a2 = exposed(v, s.orelse)
            if e1 or e2:
                return True, False
            if a1 and a2:
                return False, True
        elif isinstance(s, While):
            e, a = exposed(v, s.cond)
            if e or (not a and s.test == v):
                return True, False
            if a:
                return False, True
            if exposed(v, s.body)[0]:
                return True, False
        elif isinstance(s, For):
            if v in [n for a in (s.start, s.stop, s.step) for n in atom_names(a)]:
                return True, False
            if s.var != v and exposed(v, s.body)[0]:
                return True, False
        else:
            if v in reads(s):
                return True, False
            if v in writes(s):
                return False, True
    return False, False


def sub_blocks(s):
    """The statement lists directly inside a compound statement."""
    if isinstance(s, If):
        return [s.body, s.orelse]
    if isinstance(s, While):
        return [s.cond, s.body]
    if isinstance(s, For):
        return [s.body]
    if isinstance(s, Par):
        return [s.binds]
    return []


def walk(block):
    """Every statement, depth first, in source order (compound statements before their bodies)."""
    for s in block:
        yield s
        for sub in sub_blocks(s):
            yield from walk(sub)


def blocks(block):
    """Every statement list, depth first, starting with `block` itself."""
    yield block
    for s in block:
        for sub in sub_blocks(s):
            yield from blocks(sub)


@dataclass
class Function:
    name: str
    params: list
    body: list
    loc: Loc
    captured: object = None
    callees: dict = field(default_factory=dict)  # id(fn) -> python function
    renamed: dict = field(default_factory=dict)  # a renamed local -> the user's name for it
    # a returned nested structure (`normalize.anf.returned_structure`): tuples and dicts holding
    # 0 per leaf, the body returning the leaves flat; None for a value or a flat tuple
    out_tree: object = None

    def return_loc(self):
        """Where the function returns (its first `return`; its `def` if none is left)."""
        ret = next((s for s in walk(self.body) if isinstance(s, Return)), None)
        return ret.loc if ret is not None and ret.loc is not None else self.loc

    def user_name(self, name: str) -> str:
        """How the user wrote a variable (`rt_1` -> `rt`), for messages."""
        return self.renamed.get(name, name)


def fresh_result(b: Bind) -> bool:
    """Whether a bind always produces a new array (never a view of, or another name for, an
    existing one): its primitive says so, or it names a constant (`y = 0.0`)."""
    return b.op.fresh or (b.op.view and b.op.structural and isinstance(b.args[0], Const))


def verify(f: Function):
    """Check the IR's invariants (see the module docstring); an AssertionError names the first
    statement that breaks one. Run after every IR pass when JITAD_VERIFY=1."""
    from .primitives import CALL, Primitive
    atoms = (Var, Const, Slice, TupleA)

    def check_block(block, top):
        for k, s in enumerate(block):
            where = f"{f.name}: {s!r:.200}"
            assert not isinstance(s, (Break, Continue, EarlyReturn)), f"a jump left normalize: {where}"
            if isinstance(s, Bind):
                assert s.targets and all(isinstance(t, str) for t in s.targets), where
                assert isinstance(s.op, Primitive), f"a bind's op is not a Primitive: {where}"
                assert all(isinstance(a, atoms) for a in s.args), f"a non-atom operand: {where}"
                assert (s.callee is not None) == (s.op is CALL), where
            elif isinstance(s, SetItem):
                assert isinstance(s.array, str) and isinstance(s.value, atoms), where
            elif isinstance(s, (If, While)):
                assert isinstance(s.test, str), where
            elif isinstance(s, For):
                assert isinstance(s.var, str), where
            elif isinstance(s, Return):
                assert top and k == len(block) - 1, f"a Return not at the end of the body: {where}"
            elif not isinstance(s, Par):
                raise AssertionError(f"not an IR statement: {where}")
            for sub in sub_blocks(s):
                check_block(sub, False)

    check_block(f.body, True)
    assert f.body and isinstance(f.body[-1], Return), f"{f.name}: the body does not end in a Return"
