"""Type rules: the result type of a primitive from its operands' types.

Takes: a `Primitive`, its `ir.Bind` (statics, location) and the operands' `Ty`s.
Guarantees: each rule returns the result's `Ty` (dtype and rank) or raises an
`UnsupportedError` at the bind's line saying which operand form is not supported.
`KINDS` names the rules for the one-line table and `defvjp(kind=...)`; a primitive holds the
function itself, so no pass dispatches on these names.
Invariants: a type rule never changes the bind (the IR is shared by every specialization of a
function); what depends on the operands' ranks -- a negative axis, an axis reduction of a 1-D
array being the whole reduction -- is settled where code is generated (`ad.analysis.rule_for`,
`bind_statics`).
"""
from __future__ import annotations

from ..errors import UnsupportedError
from ..types import B1, F8, I8, NP_DTYPE, TupleTy, Ty, floaty, promote, real_dtype
from .forms import matrix_ord


def _arrays(args):
    return [a for a in args if isinstance(a, Ty)]


def _nd(args):
    return max((a.ndim for a in _arrays(args)), default=0)


def elementwise(prim, s, args):
    return Ty(promote(*_arrays(args)), _nd(args))


def elementwise_float(prim, s, args):
    return Ty(floaty(*_arrays(args)), _nd(args))


def comparison(prim, s, args):
    return Ty("b1", _nd(args))


def same(prim, s, args):
    return args[0]


def boolean(prim, s, args):
    return B1


def integer(prim, s, args):
    if prim.name == "int" and getattr(args[0], "ndim", 0):
        raise UnsupportedError("int() (and round(x)) of an array: Python converts numbers only; "
                               "use x.astype(int) or np.round(x)", s.loc, "int()")
    return I8


def bits(prim, s, args):
    """~, &, |, ^ of booleans (masks) or integers."""
    if any(a.dtype not in ("b1", "i8") for a in _arrays(args)):
        raise UnsupportedError(f"operator {prim.symbol or prim.name} takes booleans or integers "
                               "(masks: (x > 0) & (y < 1))", s.loc, prim.name)
    return Ty(promote(*_arrays(args)), _nd(args))


def int_like(prim, s, args):
    """Integers shaped like the first operand (np.argsort)."""
    if prim.name == "np.argsort" and args[0].ndim != 1:
        raise UnsupportedError("np.argsort here takes a vector", s.loc, prim.name)
    return Ty("i8", args[0].ndim)


def mask_of_first(prim, s, args):
    """A boolean mask shaped like the first operand, indexing the second's leading axes
    (`rt.nonzero_within(m, x)`: x[np.nonzero(m)])."""
    if args[0].ndim > args[1].ndim:
        raise UnsupportedError(f"too many indices: np.nonzero of a rank-{args[0].ndim} array "
                               f"indexes a rank-{args[1].ndim} one", s.loc, prim.name)
    return Ty("b1", args[0].ndim)


def int_like2(prim, s, args):
    """Integers shaped like the second operand (np.searchsorted(a, v))."""
    return Ty("i8", args[1].ndim)


def int_vector(prim, s, args):
    return Ty("i8", 1)


def indices(prim, s, args):
    """Integer index arrays made from integers (np.tril_indices(n, k)'s rows and columns)."""
    if any(a.ndim or a.dtype not in ("i8", "b1") for a in args):
        raise UnsupportedError(f"{prim.name.split('.')[0]}() takes integers", s.loc, prim.name)
    return Ty("i8", 1)


def scalar_float(prim, s, args):
    if any(a.ndim for a in _arrays(args)):
        raise UnsupportedError(f"{prim.name}() takes scalars; use the np. function for arrays",
                               s.loc, prim.name)
    return F8


def reduction(prim, s, args):
    a = args[0]
    word = prim.name.split("_")[0]
    if a.ndim == 0 and prim.on_scalar is not None and "axis" not in s.statics:
        return prim.on_scalar.result_type(s, args)
    if a.ndim == 0:
        raise UnsupportedError(f"{word}() of a scalar", s.loc, prim.name)
    dtype = floaty(a) if prim.float_result else a.dtype
    if dtype == "b1" and word in ("sum", "prod"):
        dtype = "i8"        # NumPy counts: np.sum(x > 0) is an int, never a bool
    if "axis" not in s.statics:
        return Ty(dtype, 0)
    ax = s.statics["axis"]
    if not -a.ndim <= ax < a.ndim:
        raise UnsupportedError(f"axis {ax} is out of range for a rank-{a.ndim} array",
                               s.loc, "axis")
    return Ty(dtype, a.ndim - 1)


def norm(prim, s, args):
    """np.linalg.norm: the 2-norm of vectors (whole or along an axis) and the Frobenius norm
    of matrices; a vector's ord= a number other than 0, or +-inf; a matrix's ord= 2, -2,
    'nuc', 1, -1, inf, -inf (`forms.norm_at`); other `ord=` are refused."""
    ord_ = s.statics.get("ord")
    vector = args[0].ndim == 1 or "axis" in s.statics
    number = isinstance(ord_, (int, float)) and not isinstance(ord_, bool) and ord_ != 0 \
        and ord_ == ord_
    matrix = args[0].ndim == 2 and "axis" not in s.statics and matrix_ord(ord_) is not None
    if ord_ not in (None, "fro", 2) and not (vector and number) and not matrix:
        raise UnsupportedError(f"norm(ord={ord_!r}) is not supported (the 2-norm and 'fro', a "
                               "vector's p-norms and ord=inf/-inf, a matrix's ord=2, -2, 'nuc', "
                               "1, -1, inf, -inf)", s.loc, "norm(ord=)")
    return reduction(prim, s, args)


NP_DOT_STACKS = ("np.dot of a rank-3 array and a matrix or stack is not a batched product: use @ "
                 "(np.matmul)")
_PRODUCT_RANKS = {(1, 1): 0, (2, 1): 1, (1, 2): 1, (2, 2): 2, (3, 3): 3, (3, 2): 3, (3, 1): 2,
                  (1, 3): 2, (2, 3): 3}


def product(prim, s, args):
    a, b = args
    if 0 in (a.ndim, b.ndim) and not prim.batches:      # np.dot(2.0, x): the product
        return Ty(promote(a, b), a.ndim + b.ndim)
    if (a.ndim, b.ndim) not in _PRODUCT_RANKS:
        raise UnsupportedError("dot/@ supports arrays of rank 1 and 2, and stacks of matrices "
                               "(rank 3) with vectors, matrices or stacks (use * for scalars)",
                               s.loc, prim.name)
    if not (a.is_inexact and b.is_inexact) and not (
            (a.is_inexact or b.is_inexact) and a.ndim <= 2 and b.ndim <= 2):
        # an int or bool array times a float one is NumPy's float product (the compiled
        # helpers convert it: `runtime.promoted`); stacks of matrices need both float
        raise UnsupportedError("dot/@ needs float (or complex) arrays (one of them, for "
                               "vectors and matrices)", s.loc, prim.name)
    if (a.ndim, b.ndim) in ((3, 3), (2, 3)) and not prim.batches:
        # np.dot sums over a's last axis and b's second-to-last, pairing every matrix of one
        # stack with every one of the other: not matmul's product per matrix
        raise UnsupportedError(NP_DOT_STACKS, s.loc, prim.name)
    return Ty(promote(a, b), _PRODUCT_RANKS[(a.ndim, b.ndim)])


def product_sum(prim, s, args):
    """rt.matvec_sum(a, b, c, d) (and vecmat_sum, matmat_sum): a @ b + c @ d, two products
    of the same ranks (the product rule's pair, fused by forward mode)."""
    a, b, c, d = args
    if (a.ndim, b.ndim) != (c.ndim, d.ndim):
        raise UnsupportedError("a sum of products needs two products of the same ranks",
                               s.loc, prim.name)
    return Ty(promote(product(prim, s, (a, b)), product(prim, s, (c, d))),
              _PRODUCT_RANKS[(a.ndim, b.ndim)])


def outer(prim, s, args):
    """np.outer of two vectors or matrices.  NumPy flattens other operands first (a matrix its
    rows laid end to end: the variants `outer.2.1`, `outer.1.2`, `outer.2.2` ravel it, their
    adjoints reshape back); a number or an array of rank 3 or more is refused here, in both
    modes."""
    if any(a is not None and (not isinstance(a, Ty) or a.ndim not in (1, 2)) for a in args):
        raise UnsupportedError("np.outer takes vectors or matrices here (NumPy would flatten "
                               "a number or a higher-rank array first: write "
                               "np.outer(u, np.ravel(A)), or u[:, None] * c)", s.loc, "np.outer")
    return Ty(promote(*_arrays(args)), 2)


def outer_operand(prim, s, args):
    """outer_left(a, b) (np.<ufunc>.outer(a, b) is the ufunc of it and b): a with b.ndim axes
    of length one appended; a number, or an operand of a number, is left as it is."""
    a, b = args
    if not a.ndim or not b.ndim:
        return Ty(a.dtype, a.ndim)
    if a.ndim > 4 or b.ndim > 3:
        raise UnsupportedError(f"np.ufunc.outer of operands of ranks {a.ndim} and {b.ndim} (up "
                               "to 4 and 3 are supported)", s.loc, "outer")
    return Ty(a.dtype, a.ndim + b.ndim)


def _rank_of_shape(shape):
    return len(shape.items) if isinstance(shape, TupleTy) else 1


def reshape(prim, s, args):
    return Ty(args[0].dtype, _rank_of_shape(args[1]))


_DTYPE_OF = {v: k for k, v in NP_DTYPE.items()}


def new(prim, s, args):
    return Ty(_DTYPE_OF[s.statics.get("dtype", "np.float64")], _rank_of_shape(args[0]))


def shape(prim, s, args):
    return TupleTy((I8,) * args[0].ndim)


def _int_tuple(prim, s, t):
    if not (isinstance(t, TupleTy) and all(isinstance(i, Ty) and not i.ndim and i.dtype == "i8"
                                           for i in t.items)):
        raise UnsupportedError(f"{prim.name} takes shapes (tuples of integers), not {t}", s.loc,
                               prim.name)
    return t.items


def shape_cat(prim, s, args):
    """s + t of two shapes (or a shape and a tuple of integers written out)."""
    return TupleTy(_int_tuple(prim, s, args[0]) + _int_tuple(prim, s, args[1]))


def shape_slice(prim, s, args):
    """s[a:b:c] of a shape, constant bounds: the dimensions it selects (the rank is known)."""
    items = _int_tuple(prim, s, args[0])
    st = s.statics
    return TupleTy(items[slice(st.get("start"), st.get("stop"), st.get("step"))])


def shape_cmp(prim, s, args):
    for a in args:
        _int_tuple(prim, s, a)
    return B1


def shape_int(prim, s, args):
    _int_tuple(prim, s, args[0])
    return I8


def where(prim, s, args):
    return Ty(promote(args[1], args[2]), _nd(args))


def add_axis(prim, s, args):
    """expand_dims, x[:, None]: one more axis."""
    return Ty(args[0].dtype, args[0].ndim + 1)


def at_least_1(prim, s, args):
    return Ty(args[0].dtype, max(1, args[0].ndim))


def at_least_2(prim, s, args):
    return Ty(args[0].dtype, max(2, args[0].ndim))


def drop_axis(prim, s, args):
    """squeeze(x, axis=k)."""
    if args[0].ndim == 0:
        raise UnsupportedError(f"{prim.name}() of a scalar", s.loc, prim.name)
    return Ty(args[0].dtype, args[0].ndim - 1)


def flat(prim, s, args):
    """ravel, flatten, cumsum without an axis: a vector."""
    if args[0].ndim == 0:
        raise UnsupportedError(f"{prim.name}() of a scalar", s.loc, prim.name)
    return Ty(floaty(args[0]) if prim.float_result else args[0].dtype, 1)


def matrix_new(prim, s, args):
    """eye(n), identity(n): a float matrix."""
    return Ty("f8", 2)


def _matrix(prim, s, a):
    if a.ndim != 2:
        raise UnsupportedError(f"{prim.name}() takes a matrix (rank 2), got rank {a.ndim}",
                               s.loc, prim.name)


def diagonal(prim, s, args):
    """diag(v) -> matrix, diag(M) -> vector."""
    a = args[0]
    if a.ndim not in (1, 2):
        raise UnsupportedError("diag() takes a vector or a matrix", s.loc, prim.name)
    return Ty(a.dtype, 3 - a.ndim)


def _stacked(prim, ranks) -> bool:
    """Whether `prim` (or the variant it is) has rules for a stack of matrices at these ranks
    (`det.3`, `inv.3`, `solve.3.3`: one matrix at a time)."""
    return tuple(ranks) in prim.variants or prim.name.endswith("." + ".".join(map(str, ranks)))


def matrix_scalar(prim, s, args):
    """trace, det: a scalar of a matrix (det of a stack of matrices: a vector)."""
    if args[0].ndim == 3 and _stacked(prim, (3,)):
        return Ty(floaty(args[0]), 1)
    _matrix(prim, s, args[0])
    return Ty(floaty(args[0]) if prim.float_result else args[0].dtype, 0)


def trace(prim, s, args):
    """np.trace: a scalar of a matrix; of a rank-3+ array (trace.n, `forms.trace_at`) an array
    of the other axes, in its dtype as NumPy's."""
    if args[0].ndim > 2:
        return Ty(args[0].dtype, args[0].ndim - 2)
    return matrix_scalar(prim, s, args)


def matrix_same(prim, s, args):
    """inv, triu, tril: a matrix of a matrix (inv of a stack of matrices: a stack)."""
    if args[0].ndim == 3 and _stacked(prim, (3,)):
        return Ty(floaty(args[0]), 3)
    _matrix(prim, s, args[0])
    return Ty(floaty(args[0]) if prim.float_result else args[0].dtype, 2)


def solve(prim, s, args):
    a, b = args
    if a.ndim == 3 and _stacked(prim, (3, 3)):
        if b.ndim != 3:
            raise UnsupportedError("solve(a, b) of a stack of matrices a takes a stack of "
                                   "right-hand sides b (k, n, m): write b[..., None] for "
                                   "vectors", s.loc, prim.name)
        return Ty(floaty(a, b), 3)
    _matrix(prim, s, a)
    if b.ndim not in (1, 2):
        raise UnsupportedError("solve(a, b) takes a vector or a matrix b", s.loc, prim.name)
    return Ty(floaty(a, b), b.ndim)


def full(prim, s, args):
    """full(shape, value)."""
    return Ty(promote(*_arrays(args[1:])), _rank_of_shape(args[0]))


def full_like(prim, s, args):
    return Ty(args[0].dtype, args[0].ndim)


def arange(prim, s, args):
    return Ty(promote(*_arrays(args)), 1)


def linspace(prim, s, args):
    return Ty("f8", 1)


def keep_all(prim, s, args):
    """A whole reduction with keepdims=True: the reduced value in a shape of ones."""
    return Ty(args[0].dtype, args[1].ndim)


def permute(prim, s, args):
    a = args[0]
    axes = s.statics.get("axes")
    if axes is not None and len(axes) != a.ndim:
        raise UnsupportedError(f"axes {axes} do not match a rank-{a.ndim} array", s.loc, prim.name)
    return a


def _ranks(prim, s, args, allowed, what):
    ranks = tuple(a.ndim for a in _arrays(args))
    if ranks not in allowed:
        raise UnsupportedError(f"{prim.name.split('.')[0]}() takes {what}, got rank(s) "
                               f"{', '.join(map(str, ranks))}", s.loc, prim.name)
    return ranks


def pad(prim, s, args):
    """np.pad: arrays of rank 1 to 3, a pad width for every axis or one for all."""
    (r,) = _ranks(prim, s, args[:1], [(1,), (2,), (3,)], "an array of rank 1 to 3")
    if len(s.statics["pad_width"]) not in (1, r):
        raise UnsupportedError(f"pad_width gives {len(s.statics['pad_width'])} axes for a "
                               f"rank-{r} array", s.loc, "np.pad")
    return args[0]


def convolve(prim, s, args):
    _ranks(prim, s, args, [(1, 1)], "two vectors")
    return Ty(floaty(*args), 1)


def vander(prim, s, args):
    _ranks(prim, s, args[:1], [(1,)], "a vector")
    if args[1].ndim or args[1].dtype not in ("i8", "b1"):
        raise UnsupportedError("np.vander's N is an integer", s.loc, "np.vander")
    return Ty(floaty(args[0]), 2)


def repeat(prim, s, args):
    """np.repeat of a vector; of a matrix or a higher rank along a constant axis."""
    r = args[0].ndim
    if r == 0:
        raise UnsupportedError("np.repeat of a number: repeat np.atleast_1d(x)", s.loc,
                               "np.repeat")
    axis = s.statics.get("axis")
    if r >= 2 and axis is None:
        raise UnsupportedError("np.repeat of a matrix needs axis= here (or repeat "
                               "np.ravel(x))", s.loc, "np.repeat")
    if axis is not None and not -r <= axis < r:
        raise UnsupportedError(f"axis {axis} is out of range for a rank-{r} array", s.loc,
                               "axis")
    return args[0]


def tile(prim, s, args):
    (r,) = _ranks(prim, s, args, [(1,), (2,)], "a vector or a matrix")
    return Ty(args[0].dtype, max(r, len(s.statics["reps"])))


def tile_n(prim, s, args):
    """np.tile(x, n) / np.tile(x, (n, m)) with counts that are variables: integers."""
    (r,) = _ranks(prim, s, args[:1], [(1,), (2,)], "a vector or a matrix")
    if not all(isinstance(a, Ty) and a.ndim == 0 and a.dtype in ("i8", "b1") for a in args[1:]):
        raise UnsupportedError("np.tile(x, reps): each count must be one integer", s.loc,
                               "np.tile")
    return Ty(args[0].dtype, max(r, len(args) - 1))


def roll(prim, s, args):
    if args[0].ndim == 0:
        raise UnsupportedError("np.roll of a scalar", s.loc, "np.roll")
    if not isinstance(args[1], Ty) or args[1].ndim or args[1].dtype != "i8":
        raise UnsupportedError("np.roll(x, shift): shift must be one integer (no tuple)",
                               s.loc, "np.roll")
    return args[0]


def flip(prim, s, args):
    """np.flip(x) and np.flip(x, axis=k): x's type; the axis one x has."""
    axis, r = s.statics.get("axis"), args[0].ndim
    if axis is not None and not -r <= axis < r:
        raise UnsupportedError(f"np.flip: axis {axis} is out of range for a rank-{r} array",
                               s.loc, "np.flip")
    return args[0]


def kron(prim, s, args):
    (r, _) = _ranks(prim, s, args, [(1, 1), (2, 2)], "two vectors or two matrices")
    return Ty(promote(*args), r)


def meshgrid(prim, s, args):
    _ranks(prim, s, args, [(1, 1)], "two vectors")
    return Ty(promote(*args), 2)


def matrix_diagonal(prim, s, args):
    _matrix(prim, s, args[0])
    return Ty(args[0].dtype, 1)


def moveaxis(prim, s, args):
    r = args[0].ndim
    for a in s.statics["source"] + s.statics["destination"]:
        if not -r <= a < r:
            raise UnsupportedError(f"axis {a} is out of range for a rank-{r} array", s.loc,
                                   "np.moveaxis")
    return args[0]


def average(prim, s, args):
    x, w = args
    axis = s.statics.get("axis")
    along = axis is not None and w.ndim == 1 and x.ndim > 1     # NumPy's weights along axis
    if x.ndim == 0 or (w.ndim != x.ndim and not along):
        raise UnsupportedError("np.average(x, weights=w) takes weights shaped like x "
                               "(an array), or a vector along axis=", s.loc, "np.average")
    if axis is not None and not -x.ndim <= axis < x.ndim:
        raise UnsupportedError(f"axis {axis} is out of range for a rank-{x.ndim} array",
                               s.loc, "axis")
    return Ty(floaty(x, w), 0 if axis is None else x.ndim - 1)


def eigenvalues(prim, s, args):
    _matrix(prim, s, args[0])
    return Ty(floaty(args[0]), 1)


def scan(prim, s, args):
    x = args[0]
    if x.ndim == 0:
        raise UnsupportedError(f"{prim.name}() of a scalar", s.loc, prim.name)
    if not -x.ndim <= s.statics["axis"] < x.ndim:
        raise UnsupportedError(f"axis {s.statics['axis']} is out of range for a rank-{x.ndim} "
                               "array", s.loc, "axis")
    return x


def quantile(prim, s, args):
    """np.quantile / np.percentile: a reduction at one constant q (a number, in [0, 1] for a
    quantile, [0, 100] for a percentile)."""
    q = s.statics.get("q")
    top = 100 if prim.name.startswith("percentile") else 1
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= top:
        raise UnsupportedError(f"{prim.name.split('_')[0]}() takes one constant q in "
                               f"[0, {top}] here, got {q!r}", s.loc, prim.name)
    return reduction(prim, s, args)


KINDS = {"mask_of_first": mask_of_first, "ew": elementwise, "ewf": elementwise_float, "cmp": comparison, "same": same,
         "bool": boolean, "int": integer, "float": scalar_float, "reduce": reduction,
         "dot": product, "dot_sum": product_sum, "outer": outer, "reshape": reshape, "new": new, "like": same,
         "shape": shape, "shape_cat": shape_cat, "shape_slice": shape_slice, "shape_cmp": shape_cmp,
         "shape_int": shape_int, "where": where, "clip": elementwise, "up": add_axis, "down": drop_axis,
         "flat": flat, "eye": matrix_new, "diag": diagonal, "mscalar": matrix_scalar,
         "matrix": matrix_same, "solve": solve, "full": full, "full_like": full_like,
         "arange": arange, "linspace": linspace, "keep_all": keep_all, "permute": permute,
         "at_least_1": at_least_1, "at_least_2": at_least_2, "cross": elementwise,
         "norm": norm, "pad": pad, "convolve": convolve, "vander": vander, "repeat": repeat,
         "tile": tile, "tile_n": tile_n, "roll": roll, "flip": flip, "kron": kron, "meshgrid": meshgrid,
         "mdiagonal": matrix_diagonal, "moveaxis": moveaxis, "average": average,
         "eigenvalues": eigenvalues, "scan": scan, "indices": indices,
         "int_like": int_like, "int_like2": int_like2, "int_vector": int_vector,
         "bits": bits, "quantile": quantile}


# -- issue 12, autograd's functions: the type rules of the later additions


def polygamma(prim, s, args):
    """scipy.special.polygamma(n, x), scipy.special.yn(n, x): n one integer (the order), x
    elementwise."""
    n, x = args
    if not isinstance(n, Ty) or n.ndim or n.dtype not in ("i8", "b1"):
        raise UnsupportedError(f"{prim.name}(n, x) takes one integer n (the order)",
                               s.loc, prim.name)
    return Ty(floaty(x), x.ndim)


def nonscalar(prim, s, args):
    """np.flipud: an array of rank >= 1, the same type."""
    if args[0].ndim == 0:
        raise UnsupportedError(f"{prim.name}() of a scalar", s.loc, prim.name)
    return args[0]


def at_least_3(prim, s, args):
    return Ty(args[0].dtype, max(3, args[0].ndim))


def rollaxis(prim, s, args):
    r = args[0].ndim
    if not -r <= s.statics["axis"] < r or not -r <= s.statics["start"] <= r:
        raise UnsupportedError(f"np.rollaxis: axis {s.statics['axis']} or start "
                               f"{s.statics['start']} is out of range for a rank-{r} array",
                               s.loc, "np.rollaxis")
    return args[0]


def sort(prim, s, args):
    x = args[0]
    if x.ndim == 0:
        raise UnsupportedError("np.sort() of a scalar", s.loc, "np.sort")
    axis = s.statics.get("axis")
    if axis is None:                # np.sort(x, axis=None): the sorted entries
        return Ty(x.dtype, 1)
    if not -x.ndim <= axis < x.ndim:
        raise UnsupportedError(f"axis {axis} is out of range for a rank-{x.ndim} array",
                               s.loc, "axis")
    return x


def broadcast(prim, s, args):
    """np.broadcast_to(x, shape): the shape a tuple (or x.shape) with at least x's rank."""
    x, shape = args
    if isinstance(shape, Ty) and shape.ndim == 1 and shape.dtype == "i8":
        return Ty(x.dtype, max(x.ndim, 1))      # eager mode sees a tuple as an int vector
    if not isinstance(shape, TupleTy):
        raise UnsupportedError("np.broadcast_to(x, shape) takes the shape as a tuple "
                               "((n,) for a vector)", s.loc, "np.broadcast_to")
    if len(shape.items) < x.ndim:
        raise UnsupportedError(f"np.broadcast_to: a rank-{x.ndim} array has no broadcast of "
                               f"rank {len(shape.items)}", s.loc, "np.broadcast_to")
    return Ty(x.dtype, len(shape.items))


def _spacing(prim, s, h):
    if not isinstance(h, Ty) or h.ndim != 0:
        raise UnsupportedError("np.gradient takes one number as the spacing (the same for "
                               "every axis); coordinate arrays and a spacing per axis are not "
                               "supported", s.loc, "np.gradient")


def vector(prim, s, args):
    """np.gradient(x, h) of a vector (one value: a matrix's is a tuple, one per axis)."""
    _spacing(prim, s, args[1])
    if args[0].ndim != 1:
        raise UnsupportedError(f"np.gradient() of a rank-{args[0].ndim} array returns one "
                               "gradient per axis: unpack them (gy, gx = np.gradient(A)) or give "
                               "axis=k; as one value it takes a vector", s.loc, "np.gradient")
    return Ty(floaty(args[0]), 1)


def gradient(prim, s, args):
    """np.gradient(x, h, axis=k) of an array of any rank >= 1: shaped like x, float."""
    _spacing(prim, s, args[1])
    x, axis, count = args[0], s.statics["axis"], s.statics.get("count", 0)
    if count and x.ndim != count:
        raise UnsupportedError(f"np.gradient() of a rank-{x.ndim} array returns {x.ndim} "
                               f"gradients, not {count}", s.loc, "np.gradient")
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        raise UnsupportedError(f"np.gradient: axis {axis} is not an axis of a rank-{x.ndim} "
                               "array", s.loc, "np.gradient")
    return Ty(floaty(x), x.ndim)


def mvn(prim, s, args):
    """multivariate_normal.logpdf(x, mean, cov): x a vector or a matrix of rows, the mean a
    vector, cov a matrix; one log-density per row."""
    x, mean, cov = args
    if x.ndim not in (1, 2) or mean.ndim != 1 or cov.ndim != 2:
        raise UnsupportedError("multivariate_normal.logpdf(x, mean, cov) takes x a vector or a "
                               "matrix of rows, the mean a vector and cov a matrix", s.loc,
                               "multivariate_normal.logpdf")
    return Ty(floaty(x, mean, cov), x.ndim - 1)


def weights(prim, s, args):
    """A whole reduction with weights shaped like the array or one weight (logsumexp(x, b=w),
    logsumexp(x, b=0.5))."""
    x, w = args
    if x.ndim == 0 or w.ndim not in (0, x.ndim):
        raise UnsupportedError("logsumexp(x, b=w) takes an array x and weights w shaped like "
                               "it or one number", s.loc, prim.name)
    return Ty(floaty(x, w), 0)


def lanes(prim, s, args):
    """rt.lanes_dot(x, w, axis) (np.average's weights along an axis): x of rank >= 1, w a
    vector; x's rank less one."""
    x, w = args
    axis = s.statics.get("axis")
    if x.ndim == 0 or w.ndim != 1 or not isinstance(axis, int) or not 0 <= axis < x.ndim:
        raise UnsupportedError("np.average(x, axis=k, weights=w) takes an array and a vector "
                               "of weights along axis k", s.loc, "np.average")
    return Ty(floaty(x, w), x.ndim - 1)


def mesh(prim, s, args):
    """rt.mesh(v, n, as_rows): n copies of the vector v as rows or columns."""
    _ranks(prim, s, args[:1], [(1,)], "a vector")
    return Ty(args[0].dtype, 2)


def like_second(prim, s, args):
    """Shaped like the second operand (rt.tri_mul(m, x): op(m) x)."""
    return Ty(floaty(*args[:2]), args[1].ndim)


def float_matrix(prim, s, args):
    """A float matrix, whatever the operands' ranks (rt.tri_outer(c, x): c x^T)."""
    return Ty(floaty(*[a for a in args if isinstance(a, Ty)]), 2)


KINDS.update({"lanes": lanes, "like_second": like_second, "float_matrix": float_matrix, "mesh": mesh, "outer_left": outer_operand, "weights": weights, "mvn": mvn, "polygamma": polygamma, "nonscalar": nonscalar, "at_least_3": at_least_3,
              "rollaxis": rollaxis, "sort": sort, "broadcast": broadcast, "vector": vector,
              "gradient": gradient})


def _all_matrices(prim, s, args):
    for a in args:
        _matrix(prim, s, a)


def sylvester(prim, s, args):
    """scipy.linalg.solve_sylvester(a, b, q): three matrices, the result shaped like q."""
    _all_matrices(prim, s, args)
    return Ty(floaty(*args), 2)


def signal_convolve(prim, s, args):
    """scipy.signal.convolve(in1, in2): two vectors or two matrices."""
    (r, _) = _ranks(prim, s, args, [(1, 1), (2, 2)], "two vectors or two matrices")
    return Ty(floaty(*args), r)


def dirichlet(prim, s, args):
    """dirichlet.logpdf(x, alpha): x a vector or a matrix of columns (one point each), alpha
    a vector; one value per point."""
    x, alpha = args
    if x.ndim not in (1, 2) or alpha.ndim != 1:
        raise UnsupportedError("dirichlet.logpdf(x, alpha) takes x a vector (or a matrix whose "
                               "columns are the points) and alpha a vector", s.loc, prim.name)
    return Ty(floaty(x, alpha), x.ndim - 1)


def mvn_entropy(prim, s, args):
    """multivariate_normal.entropy(mean, cov): cov a matrix, a number."""
    _matrix(prim, s, args[1])
    return Ty(floaty(*args), 0)


def partition(prim, s, args):
    if args[0].ndim == 0:
        raise UnsupportedError("np.partition() of a scalar", s.loc, "np.partition")
    axis = s.statics.get("axis")
    if not -args[0].ndim <= axis < args[0].ndim:
        raise UnsupportedError(f"axis {axis} is out of range for a rank-{args[0].ndim} array",
                               s.loc, "axis")
    return args[0]


def split_axis(prim, s, args):
    """The array np.hsplit / vsplit / dsplit splits: rank >= 1 / 2 / 3, as NumPy requires."""
    which = s.statics["which"]
    need = {"h": 1, "v": 2, "d": 3}[which]
    if args[0].ndim < need:
        raise UnsupportedError(f"np.{which}split only works on arrays of {need} or more "
                               "dimensions", s.loc, f"np.{which}split")
    return args[0]


def astype(prim, s, args):
    """x.astype(dtype) of an array: the dtype given."""
    if args[0].ndim == 0:
        raise UnsupportedError("x.astype() of a scalar: use float(x) or int(x)", s.loc,
                               "astype")
    return Ty(_DTYPE_OF[s.statics["dtype"]], args[0].ndim)


def real_part(prim, s, args):
    """np.real / np.imag / np.angle / |z|: a real value shaped like the operand."""
    return Ty(real_dtype(args[0]) if args[0].dtype in ("c16", "f8", "f4") else "f8",
              args[0].ndim)


def _fft_operand(prim, s, x, rank=1):
    if x.ndim < rank:
        raise UnsupportedError(f"{prim.name}() takes an array of rank >= {rank}", s.loc,
                               prim.name)
    axis = s.statics.get("axis")
    if axis is not None and not -x.ndim <= axis < x.ndim:
        raise UnsupportedError(f"axis {axis} is out of range for a rank-{x.ndim} array", s.loc,
                               "axis")


def _fft_length(prim, s, args):
    if len(args) > 1 and (not isinstance(args[1], Ty) or args[1].ndim
                          or args[1].dtype not in ("i8", "b1")):
        raise UnsupportedError(f"{prim.name}'s n is an int (or left out)", s.loc, prim.name)


def fft(prim, s, args):
    """np.fft.fft / ifft: a complex array (of real or complex values), the axis' length n."""
    _fft_operand(prim, s, args[0])
    _fft_length(prim, s, args)
    return Ty("c16", args[0].ndim)


def _real_operand(prim, s, x):
    if x.is_complex:
        raise UnsupportedError(f"{prim.name} of a complex array drops its imaginary part: use "
                               "the complex transform (np.fft.fft ...)", s.loc, prim.name)


def rfft(prim, s, args):
    """np.fft.rfft of a real array (NumPy drops a complex one's imaginary part)."""
    _fft_operand(prim, s, args[0])
    _fft_length(prim, s, args)
    _real_operand(prim, s, args[0])
    return Ty("c16", args[0].ndim)


def rfft2(prim, s, args):
    _fft_operand(prim, s, args[0], 2)
    _real_operand(prim, s, args[0])
    return Ty("c16", args[0].ndim)


def irfft(prim, s, args):
    """np.fft.irfft: a real array."""
    _fft_operand(prim, s, args[0])
    _fft_length(prim, s, args)
    return Ty("f8", args[0].ndim)


def irfft2(prim, s, args):
    _fft_operand(prim, s, args[0], 2)
    return Ty("f8", args[0].ndim)


def fft2(prim, s, args):
    _fft_operand(prim, s, args[0], 2)
    return Ty("c16", args[0].ndim)


def _vector_or_matrix(prim, s, x):
    if x.ndim not in (1, 2):
        raise UnsupportedError(f"{prim.name}() here takes a vector or a matrix (use "
                               "np.fft.fft along each axis)", s.loc, prim.name)


def fftn(prim, s, args):
    """np.fft.fftn / ifftn: of a vector or a matrix (the 1-D or 2-D transform)."""
    _vector_or_matrix(prim, s, args[0])
    return Ty("c16", args[0].ndim)


def rfftn(prim, s, args):
    _vector_or_matrix(prim, s, args[0])
    _real_operand(prim, s, args[0])
    return Ty("c16", args[0].ndim)


def irfftn(prim, s, args):
    _vector_or_matrix(prim, s, args[0])
    return Ty("f8", args[0].ndim)


KINDS.update({"fft": fft, "rfft": rfft, "irfft": irfft, "fft2": fft2, "rfft2": rfft2,
              "irfft2": irfft2, "fftn": fftn, "rfftn": rfftn, "irfftn": irfftn})


def check_axes(prim, s, args):
    """A reduction's `axis=` tuple mixing axes counted from the front and from the end, at the
    operand's rank: each in range, no axis twice (`forms.reduction_steps` then moves them to
    the front)."""
    r = args[0].ndim
    axes = s.statics["axes"]
    if any(not -r <= a < r for a in axes):
        raise UnsupportedError(f"axis={axes} is out of range for a rank-{r} array", s.loc,
                               "axis")
    if len({a % r for a in axes}) != len(axes):
        raise UnsupportedError(f"axis={axes} names an axis twice for a rank-{r} array", s.loc,
                               "axis")
    return args[0]


def count_div(prim, s, args):
    """np.var / np.std over a tuple of axes: the summed squared deviations (a float array or
    number) over the count along the axes of x, real (of a complex x NumPy's variance is of
    |x - mean|; refused)."""
    total, x = args
    if total.is_complex or x.is_complex:
        raise UnsupportedError("np.var / np.std of a complex array over a tuple of axes is not "
                               "supported", s.loc, "axis")
    return Ty(floaty(total), total.ndim)


def real_if_close(prim, s, args):
    """np.real_if_close of a real array is the array; of a complex one its type would depend
    on the values (real where every imaginary part is small): refused."""
    if args[0].is_complex:
        raise UnsupportedError("np.real_if_close of a complex value returns a real or a complex "
                               "array depending on the values; write np.real(z)", s.loc,
                               prim.name)
    return args[0]


def eig_values(prim, s, args):
    """np.linalg.eig's eigenvalues (and np.linalg.eigvals): complex, one per row."""
    _matrix(prim, s, args[0])
    return Ty("c16", 1)


def eig_vectors(prim, s, args):
    _matrix(prim, s, args[0])
    return Ty("c16", 2)


KINDS.update({"eig_values": eig_values, "eig_vectors": eig_vectors,
              "real_if_close": real_if_close, "check_axes": check_axes, "count_div": count_div, "trace": trace, "real": real_part, "astype": astype,
              "split_axis": split_axis, "sylvester": sylvester,
              "signal_convolve": signal_convolve, "dirichlet": dirichlet,
              "mvn_entropy": mvn_entropy, "partition": partition})


def subscript(prim, s, args):
    """x[index]: NumPy's indexing. Each integer drops an axis, a slice keeps it. Integer index
    arrays (any rank) broadcast together and their shape replaces the axes they index (where
    NumPy puts it); a boolean mask is the only index, shaped like the array (x[x > 0]: the
    entries) or like its first axis (X[keep]: the rows), or, with other indices, a vector that
    stands for its nonzero positions on its axis (logp[mask, labels[mask]], X[:, keep])."""
    from ..ir import Slice
    base = args[0]
    if base is None:
        return None
    index = s.args[1:]
    if isinstance(base, TupleTy):     # a library call's tuple result (np.nonzero(m)[0])
        from ..ir import Const
        k = index[0].value if len(index) == 1 and isinstance(index[0], Const) else None
        if k is None and len(index) == 1 and isinstance(args[1], Ty) and not args[1].ndim \
                and args[1].dtype == "i8" and base.items and all(
                    isinstance(i, Ty) and not i.ndim and i.dtype == "i8" for i in base.items):
            return I8          # shape[i] of a shape (a tuple of integers), i computed
        if type(k) is not int or not -len(base.items) <= k < len(base.items):
            raise UnsupportedError(f"a tuple of {len(base.items)} values is indexed by a "
                                   "constant (t[0]) or unpacked (a, b = t)", s.loc, "tuple index")
        return base.items[k]
    if any(isinstance(t, TupleTy) for t in args[1:]):
        raise UnsupportedError("a tuple used as an index: index with its arrays (x[t[0], t[1]])",
                               s.loc, "tuple index")
    if base.ndim == 0:
        raise UnsupportedError("indexing a scalar", s.loc, "subscript")
    if base.is_list:          # hs[i], hs[-1]: one element
        t = args[1] if len(index) == 1 else None
        if len(index) != 1 or isinstance(index[0], Slice) or (t is not None and (
                t.ndim or t.dtype != "i8")):
            raise UnsupportedError("a list is indexed by one integer (hs[i], hs[-1]); for more, "
                                   "make it an array first (np.stack(hs))", s.loc, "list index")
        return base.elem if t is not None else None
    if len(index) > base.ndim:
        raise UnsupportedError(f"too many indices for a rank-{base.ndim} array", s.loc, "subscript")
    nd = base.ndim
    arrays = 0
    for a, t in zip(index, args[1:]):
        if isinstance(a, Slice):
            continue
        if t is None:
            return None
        if t.dtype not in ("i8", "b1"):
            raise UnsupportedError("array indices must be integers (a list of integers written "
                                   "out, np.array([0, 2]), is a float array where it is not an "
                                   "index: write np.array([0, 2], dtype=int))", s.loc,
                                   "subscript")
        nd -= 1
        if t.dtype == "b1" and t.ndim and len(index) == 1:
            # x[mask]: the entries (mask shaped like x) or the rows selected
            if t.ndim not in (1, base.ndim):
                raise UnsupportedError("a boolean mask alone is shaped like the array "
                                       "(x[x > 0]) or like its first axis (X[keep])", s.loc,
                                       "boolean mask")
            return Ty(base.dtype, 1 if t.ndim == base.ndim else base.ndim)
        if t.dtype == "b1" and t.ndim > 1:
            raise UnsupportedError("a boolean mask with other indices is a vector over one "
                                   "axis (X[keep, :], logp[keep, labels[keep]])", s.loc,
                                   "boolean mask")
        arrays = max(arrays, t.ndim)
    return Ty(base.dtype, nd + arrays)


def subscript_write(s, base, args):
    """y[index] = v: the index forms a write supports (a narrower set than reads: integers and
    slices, one rank-1 index array, two on a matrix (y[rows, cols]), or a boolean mask alone)."""
    from ..ir import Slice
    if any(isinstance(t, TupleTy) for t in args):
        raise UnsupportedError("a write through a tuple used as an index (y[np.nonzero(m)] = "
                               "v): write through its arrays (y[t[0]] = v) or the mask "
                               "(y[m != 0] = v)", s.loc, "tuple index")
    kinds = [t for a, t in zip(s.index, args) if not isinstance(a, Slice) and t is not None
             and t.ndim]
    if not kinds:
        return
    only = len(s.index) == len(kinds)
    if only and len(kinds) == 1 and (kinds[0].ndim == 1 or kinds[0].dtype == "b1"):
        return
    if only and len(kinds) == 2 and base is not None and base.ndim == 2 and all(
            t.ndim == 1 and t.dtype == "i8" for t in kinds):
        return
    raise UnsupportedError("a write through index arrays takes one of them (y[idx] = v, "
                           "y[mask] = v) or, on a matrix, two (y[rows, cols] = v)", s.loc,
                           "indexed write")


def bincount(prim, s, args):
    """np.bincount(x, weights=w, minlength=n): float sums of w per value of x."""
    x, w, n = args
    if x.dtype != "i8" or x.ndim != 1 or w.ndim != 1 or n.ndim or n.dtype not in ("i8", "b1"):
        raise UnsupportedError("np.bincount(x, weights=w, minlength=n) takes an integer vector, "
                               "weights shaped like it and an integer", s.loc, "np.bincount")
    return Ty("f8", 1)


def ufunc_at(prim, s, args):
    """np.add.at(a, idx, v) (and np.subtract.at): a float array, rank-1 integer index arrays
    (one, or the rows and columns of a matrix), values no larger than a[idx]."""
    a, *index, v = args
    if not a.is_float or a.ndim < len(index):
        raise UnsupportedError(f"np.add.at(a, idx, v) adds into a float array of rank >= "
                               f"{len(index)}", s.loc, "np.add.at")
    if any(t.dtype != "i8" or t.ndim != 1 for t in index):
        raise UnsupportedError("np.add.at(a, idx, v) takes a vector of integer indices, or the "
                               "rows and columns (rows, cols) of a matrix (for one index, write "
                               "a[i] += v)", s.loc, "np.add.at")
    if not v.is_float and v.dtype != "i8" or v.ndim > 1 + a.ndim - len(index):
        raise UnsupportedError("np.add.at(a, idx, v): v has more axes than a[idx]", s.loc,
                               "np.add.at")
    return Ty(a.dtype, a.ndim)


def astype(prim, s, args):
    """x.astype(dtype): x's rank, the dtype asked for."""
    return Ty(_DTYPE_OF[s.statics.get("dtype", "np.float64")], args[0].ndim)


def item(prim, s, args):
    """x.item(): the one element of an array (or a number) as a number."""
    return Ty(args[0].dtype)


def truth_reduce(prim, s, args):
    """np.all / np.any (whole or along an axis): booleans."""
    t = reduction(prim, s, args) if args[0].ndim else Ty(args[0].dtype)
    return Ty("b1", t.ndim)


def windows(prim, s, args):
    """sliding_window_view(x, window_shape, axis=): x's rank plus one axis per window axis."""
    x, shape = args
    k = len(shape.items) if isinstance(shape, TupleTy) else 1
    axis = s.statics.get("axis")
    axes = (tuple(range(x.ndim)) if axis is None else (axis,) if isinstance(axis, int)
            else tuple(axis))
    if not x.ndim or len(axes) != k or any(not -x.ndim <= a < x.ndim for a in axes):
        raise UnsupportedError(f"sliding_window_view takes one window size per windowed axis "
                               f"of the array (rank {x.ndim}; axis={axis!r}, {k} sizes)",
                               s.loc, "sliding_window_view")
    return Ty(x.dtype, x.ndim + k)


KINDS.update({"bincount": bincount, "ufunc_at": ufunc_at, "astype": astype, "item": item,
              "truth_reduce": truth_reduce, "windows": windows})
