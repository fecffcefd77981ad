"""Einstein summations: one primitive per subscripts, made on demand.

Takes: the constant subscripts of `np.einsum` (with `->` or NumPy's implicit output) and the
number of operands (1 to 3); `np.tensordot`'s and `np.inner`'s operand ranks and axes, which
are the same operation with subscripts made from them.
Guarantees: `of(ins, out)` is the one `Primitive` of a summation (cached: the same object for
the same subscripts, so both modes and every pass see one object), with
  - a type rule checking each operand's rank against its subscripts (float result),
  - a forward template calling `rt.einsum_core`, which computes any summation -- repeated
    letters within an operand (`'ii->i'`), letters summed away, letters only the output has --
    as one loop over every letter's range with per-operand strides (Numba has no np.einsum;
    the Python version calls np.einsum where it can), then a reshape to the output's shape,
  - one adjoint per operand, itself a summation: the cotangent (subscripts `out`) times the
    other operands, summed into that operand's subscripts (`'ij,jk->ik'`: `A_bar` is
    `'ik,jk->ij'` of `g, B`); a scalar output multiplies the rest by `g`.
`...` in the subscripts makes a family (`ellipsis_family`): at the operands' ranks, the
summation with the ellipsis written out in fresh letters, as NumPy aligns it.
Refused (ValueError, shown at the user's call): more than 3 operands, a rank-0 operand,
subscripts that are not letters, an output letter no operand has or given twice.
Invariants: the primitives are not registered (`core.register` would bump the version that
invalidates caches); they hold only templates over `np` and `rt`. A letter's size is read
from its first operand axis; `rt.einsum_core` checks every other axis against it.
"""
from __future__ import annotations

import ast
import string

from ..errors import UnsupportedError
from ..types import Ty, floaty
from .core import Primitive

LETTERS = string.ascii_lowercase + string.ascii_uppercase
PARAMS = ("a", "b", "c")
_CACHE: dict = {}


def parse(subscripts, nops: int):
    """(operand letter tuples, output letter tuple) of einsum subscripts (letters as ints)."""
    if not isinstance(subscripts, str):
        raise ValueError("the subscripts must be a constant string ('ij,jk->ik')")
    if not 1 <= nops <= 3:
        raise ValueError(f"jitad's einsum takes 1 to 3 operands, got {nops}")
    text = subscripts.replace(" ", "")
    if "." in text:
        raise ValueError("'...' in the subscripts is not supported: write every axis's letter")
    lhs, arrow, rhs = text.partition("->")
    parts = lhs.split(",")
    if len(parts) != nops:
        raise ValueError(f"the subscripts name {len(parts)} operand(s), the call passes {nops}")
    for p in parts + [rhs]:
        bad = [ch for ch in p if ch not in LETTERS]
        if bad:
            raise ValueError(f"{bad[0]!r} is not a subscript letter")
    if any(not p for p in parts):
        raise ValueError("every operand needs subscripts (no scalar operands)")
    if not arrow:       # NumPy's implicit output: the letters seen once, in alphabetical order
        counts = {ch: lhs.count(ch) for ch in lhs if ch != ","}
        rhs = "".join(sorted((ch for ch, n in counts.items() if n == 1), key=LETTERS.index))
    if len(set(rhs)) != len(rhs):
        raise ValueError(f"output letter repeated in {rhs!r}")
    missing = [ch for ch in rhs if ch not in lhs]
    if missing:
        raise ValueError(f"output letter {missing[0]!r} names no operand axis")
    ids = {}
    for ch in "".join(parts):
        ids.setdefault(ch, len(ids))
    return tuple(tuple(ids[ch] for ch in p) for p in parts), tuple(ids[ch] for ch in rhs)


def _shape_of(expr_letters, sources):
    return ast.Tuple([_dim(L, sources) for L in expr_letters], ast.Load())


def _dim(letter, sources):
    """The AST of a letter's size: the first operand axis carrying it."""
    name, axis = sources[letter]
    return ast.Subscript(ast.Attribute(ast.Name(name, ast.Load()), "shape", ast.Load()),
                         ast.Constant(axis), ast.Load())


def _const(t):
    return ast.Tuple([ast.Constant(v) for v in t] or [ast.Constant(-1)], ast.Load())


def _core(dims, out_letters, operands):
    """rt.einsum_core(dims, out letters, a, la, b, lb, c, lc): missing operands are ones."""
    args = [dims, _const(out_letters)]
    for k in range(3):
        if k < len(operands):
            node, letters = operands[k]
            args += [node, _const(letters)]
        else:
            args += [ast.parse("np.ones(1)", mode="eval").body, _const(())]
    return ast.Call(ast.Attribute(ast.Name("rt", ast.Load()), "einsum_core", ast.Load()),
                    args, [])


def _shaped(call, letters, sources):
    """The flat result of einsum_core as an array of these letters' sizes (a scalar for no
    letters)."""
    if not letters:
        return ast.Subscript(call, ast.Constant(0), ast.Load())
    return ast.Call(ast.Attribute(call, "reshape", ast.Load()), [_shape_of(letters, sources)], [])


def of(ins, out) -> Primitive:
    """The primitive of the summation `ins -> out` (letter tuples)."""
    key = (tuple(ins), tuple(out))
    prim = _CACHE.get(key)
    if prim is not None:
        return prim
    params = PARAMS[:len(ins)]
    text = ",".join("".join(LETTERS[L] for L in p) for p in ins) + "->" + \
        "".join(LETTERS[L] for L in out)
    sources = {}
    for name, letters in zip(params, ins):
        for axis, L in enumerate(letters):
            sources.setdefault(L, (name, axis))
    nletters = len(sources)
    dims = ast.Tuple([_dim(L, sources) for L in range(nletters)], ast.Load())
    name = lambda p: ast.Name(p, ast.Load())  # noqa: E731
    forward = _shaped(_core(dims, out, [(name(p), ls) for p, ls in zip(params, ins)]), out,
                      sources)
    adjoints = {}
    for k, (p, letters) in enumerate(zip(params, ins)):
        others = [(name(q), ls) for j, (q, ls) in enumerate(zip(params, ins)) if j != k]
        shape = ast.Attribute(name(p), "shape", ast.Load())
        if out:
            flat = _core(dims, letters, [(name("g"), out)] + others)
            adjoints[p] = ast.Call(ast.Attribute(flat, "reshape", ast.Load()), [shape], [])
        else:
            flat = _core(dims, letters, others)
            adjoints[p] = ast.BinOp(name("g"), ast.Mult(), ast.Call(
                ast.Attribute(flat, "reshape", ast.Load()), [shape], []))
    rank = len(out)

    def type_rule(prim, s, args):
        for j, (a, letters) in enumerate(zip(args, ins)):
            if a is None:
                return None
            if a.ndim != len(letters):
                raise UnsupportedError(f"einsum {text!r}: operand {j + 1} has rank {a.ndim}, "
                                       f"its subscripts give {len(letters)}", s.loc, "np.einsum")
        return Ty(floaty(*args), rank)

    prim = _CACHE[key] = Primitive(f"einsum[{text}]", params, forward=forward,
                                   adjoints=adjoints, type_rule=type_rule, kind="einsum",
                                   exact=True)
    prim.float_result = prim.checks_in_eager = True
    prim.subscripts = text          # how code read again spells it (`runtime_calls.call`)
    if len(ins) == 1 and set(out) == set(ins[0]):
        # no letter summed: NumPy gives a view of the operand ('ij->ji', 'ii->i', 'ij->ij'),
        # which a write into either changes in the other -- the write rules must know it
        # (`analysis.makes_view`), though the generated code computes a new array
        prim.view, prim.fresh = True, False
    return prim


def from_subscripts(subscripts, nops: int) -> Primitive:
    """The primitive of `np.einsum(subscripts, *operands)` (ValueError if refused); with
    `...` in the subscripts, the family whose summation the operands' ranks choose."""
    if isinstance(subscripts, str) and "..." in subscripts:
        return ellipsis_family(subscripts, nops)
    return of(*parse(subscripts, nops))


def expand_ellipsis(subscripts: str, ranks) -> str:
    """The subscripts with each `...` written out for operands of these ranks, as NumPy reads
    them: the ellipsis axes aligned from the right across operands, in the output where
    `->` puts them, and first in an implicit output (then the letters given once, sorted)."""
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    parts = lhs.split(",")
    if len(parts) != len(ranks):
        raise ValueError(f"the subscripts name {len(parts)} operand(s), the call passes "
                         f"{len(ranks)}")
    if any(p.count("...") > 1 for p in parts + [rhs]) or "." in text.replace("...", ""):
        raise ValueError("each operand's subscripts hold at most one '...'")
    free = [ch for ch in LETTERS if ch not in text]
    widths = []
    for j, (p, r) in enumerate(zip(parts, ranks)):
        named = len(p.replace("...", ""))
        if r < named or (r > named and "..." not in p):
            raise ValueError(f"operand {j + 1} has rank {r}, its subscripts give {named} "
                             f"axes{' and ...' if '...' in p else ''}")
        widths.append(r - named if "..." in p else 0)
    width = max(widths)
    if width > len(free):
        raise ValueError("too many axes")
    ell = "".join(free[:width])
    parts = [p.replace("...", ell[width - w:]) for p, w in zip(parts, widths)]
    if arrow:
        out = rhs.replace("...", ell)
    else:
        once = [ch for ch in set("".join(parts)) if ch not in ell
                and "".join(parts).count(ch) == 1]
        out = ell + "".join(sorted(once))
    return ",".join(parts) + "->" + out


def ellipsis_family(subscripts: str, nops: int) -> Primitive:
    """`np.einsum` with `...`: at the operands' ranks, the summation with it written out."""
    key = ("...", subscripts, nops)
    prim = _CACHE.get(key)
    if prim is not None:
        return prim
    parse(subscripts.replace("...", ""), nops)      # its other errors now, at the call

    def at(ranks, st):
        return of(*parse(expand_ellipsis(subscripts, ranks), nops)), {}

    prim = _CACHE[key] = Primitive(f"einsum[{subscripts}]", PARAMS[:nops],
                                   type_rule=family_type_rule(at),
                                   forward=ast.parse("None", mode="eval").body, diff_args="all")
    prim.at_ranks, prim.checks_in_eager, prim.float_result = at, True, True
    return prim


def tensordot(ranks, axes) -> Primitive:
    """The summation `np.tensordot(a, b, axes)` is, at operand ranks `ranks`: `axes` an int
    (the last of a with the first of b) or a pair of axis tuples."""
    ra, rb = ranks
    if isinstance(axes, int):
        if not 0 <= axes <= min(ra, rb):
            raise ValueError(f"axes={axes} is more than the operands' ranks {ra} and {rb}")
        xa, xb = tuple(range(ra - axes, ra)), tuple(range(axes))
    else:
        xa, xb = axes
        if any(not -ra <= a < ra for a in xa) or any(not -rb <= b < rb for b in xb):
            raise ValueError(f"axes={axes!r} name axes the ranks {ra} and {rb} do not have")
        xa, xb = tuple(a % ra for a in xa), tuple(b % rb for b in xb)
    if len(xa) != len(xb) or len(set(xa)) != len(xa) or len(set(xb)) != len(xb):
        raise ValueError(f"axes={axes!r} do not pair axes of ranks {ra} and {rb}")
    la = tuple(range(ra))
    nxt = iter(range(ra, ra + rb))
    lb = tuple(la[xa[xb.index(k)]] if k in xb else next(nxt) for k in range(rb))
    out = tuple(L for k, L in enumerate(la) if k not in xa) + \
        tuple(L for k, L in enumerate(lb) if k not in xb)
    if len(set(la)) + len([k for k in range(rb) if k not in xb]) > len(LETTERS):
        raise ValueError("too many axes")
    return of((la, lb), out)


def tensordot_axes(st):
    """np.tensordot's axes= as code uses it: an int >= 0 or a pair of axis tuples."""
    axes = st["axes"]
    if isinstance(axes, int) and not isinstance(axes, bool) and axes >= 0:
        return {"axes": axes}
    if isinstance(axes, (tuple, list)) and len(axes) == 2:     # lists too: ([1], [0])
        pair = tuple((a,) if isinstance(a, int) else tuple(a) if isinstance(a, list) else a
                     for a in axes)
        if all(isinstance(a, tuple) and all(isinstance(k, int) and not isinstance(k, bool)
                                            for k in a) for a in pair):
            return {"axes": pair}
    raise ValueError("axes= must be a constant int >= 0 or a pair of axis tuples "
                     "((1, 0), (0, 1))")


def inner(ranks) -> Primitive:
    """The summation `np.inner(a, b)` is: the last axes of both contracted."""
    ra, rb = ranks
    if not ra or not rb:
        raise ValueError("np.inner of a scalar: use *")
    return tensordot(ranks, ((ra - 1,), (rb - 1,)))


def family_type_rule(at):
    """The type rule of np.tensordot / np.inner: their summation's, at the operands' ranks."""
    def rule(prim, s, args):
        if any(a is None for a in args):
            return None
        try:
            spec = at(tuple(a.ndim for a in args), s.statics)[0]
        except ValueError as e:
            raise UnsupportedError(f"{prim.name}: {e}", s.loc, prim.name) from None
        return spec.result_type(s, args)
    return rule
