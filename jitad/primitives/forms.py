"""Call forms: which primitives a library call with constant arguments means.

Takes: a primitive and the constant arguments of a call (`axis=`, `keepdims=`).
Guarantees: `rule_at` and `settle_statics` are the rules and statics of a primitive at its
operands' ranks (both modes generate or evaluate from them); `reduction_steps` is the
steps a reduction over a tuple of axes and/or with `keepdims=True` is: a chain of one-axis
primitives (for an axis form that keeps the rank, the one step), or for `var`/`std` their
`tuple_form` (`variance_steps`) -- both modes build their computation from it, so they
agree; it raises `ValueError` with the message to show at the user's call. `permute` is the
primitive of an axes permutation (`transpose`, `x.T`, when it reverses every axis).
Invariants: pure; axes may be negative (counted from the end), their meaning is settled
against the operand's rank where code is generated.
"""
from __future__ import annotations


from .core import Primitive, get

# the `axis` static of np.hstack's concatenation: 0 for vectors, else 1 (settled by the parts'
# rank where code is generated)
HSTACK_AXIS = "hstack"


def rule_at(prim: Primitive, ranks, statics=None, complex_in=False) -> Primitive:
    """The primitive whose rules apply at these operand ranks (`dot` -> `dot.2.1`; an axis
    reduction of a vector -> the whole reduction; an einsum's own primitive); with
    `complex_in` (a complex operand), its `complex_form` if it has one."""
    ranks = tuple(ranks)
    if complex_in and prim.complex_form is not None:
        return prim.complex_form
    if prim.at_ranks is not None:
        return prim.at_ranks(ranks, statics or {})[0]
    if prim.variants:
        return prim.variant(ranks)
    if prim.on_scalar is not None and ranks and ranks[0] == 0:
        return prim.on_scalar
    if prim.whole is not None and ranks[0] == 1:
        return prim.whole
    return prim


def settle_statics(prim: Primitive, statics: dict, ranks) -> dict:
    """The statics as code uses them at these operand ranks: an axis counted from the end
    made positive (counted in the result for `new_axis` primitives), np.hstack's axis
    decided."""
    statics = dict(statics)
    if prim.at_ranks is not None:
        return prim.at_ranks(tuple(ranks), statics)[1]
    if statics.get("axis") == HSTACK_AXIS:     # np.hstack: along 0 for vectors, else along 1
        statics["axis"] = 0 if ranks[0] == 1 else 1
    if isinstance(statics.get("axis"), int) and ranks[0] + prim.new_axis:
        statics["axis"] %= ranks[0] + prim.new_axis
    return statics


def read_statics(prim: Primitive, statics: dict) -> dict:
    """A call's constant arguments as code uses them (`Primitive.read_statics`); ValueError
    with the message for the user's call."""
    return prim.read_statics(dict(statics)) if prim.read_statics is not None else statics


def axes_steps(prim: Primitive, statics: dict):
    """A call of a one-axis primitive given a tuple of axes (`np.squeeze(x, axis=(1, 2))`,
    `np.expand_dims(x, (0, 2))`, `np.flip(x, axis=(0, 1))`): its statics for each call of the
    chain `Primitive.axes_chain` orders, each read by `read_statics`; None for any other call.
    ValueError for axes it cannot order without the operand's rank, repeated or none."""
    axes = statics.get("axis")
    if prim.axes_chain is None or not isinstance(axes, (tuple, list)):
        return None
    if not axes or not all(isinstance(a, int) and not isinstance(a, bool) for a in axes) \
            or len(set(axes)) != len(axes):
        raise ValueError(f"axis={tuple(axes)!r}: distinct constant integers, at least one")
    return [read_statics(prim, {**statics, "axis": a}) for a in prim.axes_chain(tuple(axes))]


def removing_axes(axes):
    """The order to remove axes one by one (np.squeeze): the front-counted ones last first
    (removing one leaves the smaller numbers valid), the end-counted ones first first."""
    front, back = sorted((a for a in axes if a >= 0), reverse=True), sorted(a for a in axes if a < 0)
    if front and back:
        raise ValueError("axes counted from the front and from the end together: write them "
                         "all one way")
    return tuple(front or back)


def inserting_axes(axes):
    """The order to insert axes one by one (np.expand_dims, whose axes count in the result):
    the front-counted ones first first, the end-counted ones last first."""
    front, back = sorted(a for a in axes if a >= 0), sorted((a for a in axes if a < 0), reverse=True)
    if front and back:
        raise ValueError("axes counted from the front and from the end together: write them "
                         "all one way")
    return tuple(front or back)


def reduction_steps(prim: Primitive, axis, keepdims: bool, statics=None):
    """[(primitive, statics, operands), ...] computing `prim(x, axis=axis, keepdims=keepdims)`
    one step at a time; `operands` index the values so far: 0 is x, k the k-th step's result
    (a chain reads the previous one; `keep_all` takes (result, x)). `axis`: None, an int or a
    tuple of ints. `statics`: the call's other constant arguments (`ddof=`, `ord=`), given to
    each step of the reduction itself."""
    axes = _axes_of(prim, axis, keepdims)
    if len(axes) > 1 and not prim.chains:
        if prim.tuple_form is None:
            raise ValueError(f"{prim.name.split('.')[-1]}() takes one axis here, not a tuple")
        return prim.tuple_form(prim, axes, keepdims, statics or {})
    steps = _chain(prim, axis if not prim.reduces else axes if axis is not None else None,
                   keepdims, 0)
    return [(p, {**(statics or {}), **st} if p is prim or p is prim.axis_form else st, refs)
            for p, st, refs in steps]


def _axes_of(prim, axis, keepdims):
    """The checked axes of a reduction (a tuple), or of an axis form (none or one)."""
    if not prim.reduces:    # an axis form that keeps the rank (cumsum, softmax): one axis
        if isinstance(axis, tuple) or keepdims:
            raise ValueError(f"{prim.name.split('.')[-1]}() takes one constant axis= (no tuple, "
                             "no keepdims=)")
        if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
            raise ValueError("axis= must be a constant integer")
        return () if axis is None else (axis,)
    axes = () if axis is None else axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in axes):
        raise ValueError("axis= must be a constant integer or a tuple of them")
    if len(set(axes)) != len(axes):
        raise ValueError("axis= repeats an axis")
    if not isinstance(keepdims, bool):
        raise ValueError("keepdims= takes True or False")
    return axes


def _chain(prim, axis, keepdims, start):
    """The chain of one-axis steps reducing value `start` (`reduction_steps`)."""
    if not prim.reduces:
        pairs = [(prim, {})] if axis is None else [(prim.axis_form, {"axis": axis})]
    else:
        pairs = _reduction_chain(prim, () if axis is None else axis, keepdims)
    return [(p, st, (start + k, start) if p is get("keep_all") else (start + k,))
            for k, (p, st) in enumerate(pairs)]


def _reduction_chain(prim, axes, keepdims):
    front = sorted((a for a in axes if a >= 0), reverse=True)
    back = sorted(a for a in axes if a < 0)
    if front and back:
        # axes counted from the front and from the end (`axis=(0, -1)`, `(2, -2)`): checked
        # at the operand's rank (`check_axes`: in range, distinct), moved to the front (their
        # order settled there, `moveaxis_at`), reduced there last first; keepdims puts ones
        # back in front and moves them to where the axes were
        k = len(axes)
        steps = [(get("check_axes"), {"axes": tuple(axes)}),
                 (get("np.moveaxis"), {"source": tuple(axes), "destination": tuple(range(k))})]
        steps += [(prim.axis_form, {"axis": a}) for a in range(k - 1, -1, -1)]
        if keepdims:
            steps += [(get("expand_dims"), {"axis": 0})] * k
            steps += [(get("np.moveaxis"), {"source": tuple(range(k)),
                                            "destination": tuple(axes)})]
        return steps
    # reducing the last of the front-counted axes first keeps the others' numbers valid (and
    # those counted from the end: removing an axis before them changes no count from the end);
    # then the end-counted ones, the first first
    steps = [(prim.axis_form, {"axis": a}) for a in front + back] or [(prim, {})]
    if keepdims:
        # re-inserting the front-counted axes first first, then the end-counted ones last
        # first, puts each where it was
        ends = front[::-1] + back[::-1]
        steps += [(get("expand_dims"), {"axis": a}) for a in ends] or [(get("keep_all"), {})]
    return steps


def norm_steps(prim, axes, keepdims, statics):
    """np.linalg.norm over a tuple of axes (`Primitive.tuple_form`): NumPy's matrix norm over
    two axes; the Frobenius norm (ord None or 'fro') is the 2-norm along one axis, then
    along the other; the other matrix ords over axes, and more than two axes, are refused."""
    if len(axes) != 2:
        raise ValueError("np.linalg.norm takes one axis or two (a matrix norm), not "
                         f"{len(axes)}")
    if statics.get("ord") not in (None, "fro"):
        raise ValueError(f"np.linalg.norm(x, ord={statics['ord']!r}, axis=(a, b)) (a matrix "
                         "norm over two axes) is supported for ord=None or 'fro' only")
    return [(p, {"ord": None, **st} if p is prim.axis_form else st, refs)
            for p, st, refs in _chain(prim, axes, keepdims, 0)]


def variance_steps(prim, axes, keepdims, statics):
    """np.var / np.std over a tuple of axes (`Primitive.tuple_form`): the squared deviations
    from the mean over the axes (kept as ones), summed over them, divided by their count less
    ddof (`count_div`, which refuses complex values); the square root of it for std."""
    steps = _chain(get("mean"), axes, True, 0)
    m = len(steps)
    steps += [(get("sub"), {}, (0, m)), (get("mul"), {}, (m + 1, m + 1))]
    steps += _chain(get("sum"), axes, keepdims, m + 2)
    steps.append((get("count_div"), {"axes": tuple(axes), "ddof": statics.get("ddof", 0)},
                  (len(steps), 0)))
    if prim.name.startswith("std"):
        steps.append((get("np.sqrt"), {}, (len(steps),)))
    return steps


# -- issue 12: the constants of NumPy calls as code uses them (`Primitive.read_statics`) and
# the rules they choose at the operands' ranks (`Primitive.at_ranks`)

def _int(v, what, low=None):
    if not isinstance(v, int) or isinstance(v, bool) or (low is not None and v < low):
        raise ValueError(f"{what} must be a constant integer" + (f" >= {low}" if low else "")
                         + f", got {v!r}")
    return v


def _axis_or_none(v):
    return None if v is None else _int(v, "axis=")


def _choice(v, what, choices):
    if v not in choices:
        raise ValueError(f"{what}={v!r} is not supported (one of "
                         f"{', '.join(map(repr, choices))})")
    return choices.index(v)


# np.pad's modes: 'constant' fills, the others read entries of the array (`rt.pad_index`)
PAD_MODES = ("constant", "edge", "wrap", "reflect", "symmetric")


def pad_statics(st):
    """np.pad: mode 'constant' with a constant number as the fill, or an index mode ('edge',
    'wrap', 'reflect', 'symmetric': as a number, `PAD_MODES`); pad widths as one
    (before, after) pair for every axis or one pair per axis."""
    mode = st["mode"]
    if not (isinstance(mode, int) and not isinstance(mode, bool) and 0 <= mode < len(PAD_MODES)):
        mode = _choice(mode, "mode", PAD_MODES)      # (a number: the code, as generated)
    c = st["constant_values"]
    if mode and c != 0.0:
        raise ValueError(f"constant_values= is for mode='constant', not mode={st['mode']!r}")
    if not isinstance(c, (int, float)) or isinstance(c, bool):
        raise ValueError("constant_values= must be one constant number")
    pw = st["pad_width"]
    if isinstance(pw, int) and not isinstance(pw, bool):
        pw = ((pw, pw),)
    elif isinstance(pw, tuple) and len(pw) == 2 and all(isinstance(p, int) for p in pw):
        pw = (pw,)
    if not (isinstance(pw, tuple) and pw and all(
            isinstance(p, tuple) and len(p) == 2 and all(
                isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in p)
            for p in pw)):
        raise ValueError("pad_width must be a constant int, (before, after) or one such pair "
                         "per axis, all >= 0")
    return {"pad_width": pw, "mode": mode, "constant_values": float(c)}


def pad_at(ranks, st):
    r = ranks[0]
    pw = st["pad_width"] * r if len(st["pad_width"]) == 1 else st["pad_width"]
    if st["mode"]:
        return get(f"padix.{min(max(r, 1), 3)}"), {"pad_width": pw, "mode": st["mode"]}
    return get(f"pad.{min(max(r, 1), 3)}"), {"pad_width": pw,
                                            "constant_values": st["constant_values"]}


def convolve_statics(st):
    mode = st["mode"]
    if isinstance(mode, int) and not isinstance(mode, bool) and 0 <= mode <= 2:
        return {"mode": mode}       # NumPy's own codes (0 full, 1 same, 2 valid), as generated
    return {"mode": _choice(mode, "mode", ("full", "same", "valid"))}


def vander_statics(st):
    if not isinstance(st["increasing"], bool):
        raise ValueError("increasing= must be True or False")
    return st


def repeat_statics(st):
    return {"repeats": _int(st["repeats"], "repeats (one constant for every entry)", 1),
            "axis": _axis_or_none(st["axis"])}


def repeat_at(ranks, st):
    if ranks[0] >= 3:
        return get("repeat.n"), {"repeats": st["repeats"], "axis": st["axis"] % ranks[0]}
    if ranks[0] == 2:
        return get("repeat.2"), {"repeats": st["repeats"], "axis": st["axis"] % 2}
    return get("repeat.1"), {"repeats": st["repeats"]}


def trace_at(ranks, st):
    """np.trace(x): its own rule for a matrix; for a rank-3+ array, trace.n (the diagonals
    over the first two axes, summed, for each index of the others; NumPy's min(n0, n1) of
    them when those axes differ, which the einsum 'ii...->...' would refuse)."""
    if ranks[0] == 2:
        return get("trace"), {}
    return get("trace.n"), {}


def tile_statics(st):
    reps = st["reps"]
    reps = (reps,) if isinstance(reps, int) else reps
    if not (isinstance(reps, tuple) and 1 <= len(reps) <= 2
            and all(isinstance(r, int) and not isinstance(r, bool) and r >= 1 for r in reps)):
        raise ValueError("reps must be a constant int >= 1 or a pair of them")
    return {"reps": reps}


def tile_at(ranks, st):
    reps = st["reps"]
    out = max(ranks[0], len(reps))
    reps = (1,) * (out - len(reps)) + reps
    name = "tile.1" if out == 1 else "tile.1.2" if ranks[0] == 1 else "tile.2"
    return get(name), {"reps": reps}


def _vector_ord(o):
    """The rule of a vector norm's ord= (None: the 2-norm's own)."""
    if o is None or o == "fro" or (o == 2 and not isinstance(o, bool)):
        return None
    if o == float("inf"):
        return "max"
    if o == float("-inf"):
        return "min"
    if o == 1 and not isinstance(o, bool):
        return "one"
    return "p"


def matrix_ord(o):
    """The rule of a matrix norm's ord= other than the Frobenius norm ('fro', None), or None
    (an ord no matrix norm has)."""
    if isinstance(o, bool):
        return None
    if isinstance(o, str):
        return "nuc" if o == "nuc" else None
    return {2: "sv_max", -2: "sv_min", 1: "col_max", -1: "col_min", float("inf"): "row_max",
            float("-inf"): "row_min"}.get(o)


def norm_at(ranks, st):
    """np.linalg.norm(x, ord) of a whole vector: the p-norm, ord=inf (the largest |x_i|) or
    -inf (the smallest), or the 2-norm's own rule; of a matrix, the Frobenius norm (the
    2-norm's rule) or the norm `matrix_ord` names (`typerules.norm` refuses the other ords)."""
    if ranks[0] == 2 and matrix_ord(st.get("ord")) is not None:
        return get(f"norm_{matrix_ord(st['ord'])}"), {}
    which = _vector_ord(st.get("ord")) if ranks[0] == 1 else None
    if which is None:
        return get("norm"), dict(st)
    return (get("norm_p"), {"ord": st["ord"]}) if which == "p" else (get(f"norm_{which}"), {})


def norm_axis_at(ranks, st):
    """np.linalg.norm(x, ord, axis=k): the vector norm of each slice along the axis (of a
    vector, the whole one)."""
    if ranks[0] == 1:
        return norm_at(ranks, {"ord": st.get("ord")})
    st = {**st, "axis": st["axis"] % ranks[0]}
    which = _vector_ord(st.get("ord"))
    if which is None:
        return get("norm_axis"), st
    if which == "p":
        return get("norm_p_axis"), {"axis": st["axis"], "ord": st["ord"]}
    return get(f"norm_{which}_axis"), {"axis": st["axis"]}


def roll_statics(st):
    return {"axis": _axis_or_none(st["axis"])}


def roll_at(ranks, st):
    if st["axis"] is None:
        return get("roll_flat"), {}
    return get("roll_axis"), {"axis": st["axis"] % max(ranks[0], 1)}


def flip_at(ranks, st):
    """np.flip(x) reverses every axis; np.flip(x, axis=k) the one (counted from the end too)."""
    if st["axis"] is None:
        return get("flip_all"), {}
    return get("flip_axis"), {"axis": st["axis"] % max(ranks[0], 1)}


def meshgrid_statics(st):
    v = st["indexing"]
    if v in (0, 1) and type(v) is int:      # a code already (generated code read again)
        return {"indexing": v}
    return {"indexing": _choice(v, "indexing", ("xy", "ij"))}


def _axes(v, what):
    v = (v,) if isinstance(v, int) else v
    if not (isinstance(v, tuple) and all(isinstance(a, int) and not isinstance(a, bool)
                                         for a in v)):
        raise ValueError(f"{what} must be a constant int or a tuple of them")
    return v


def moveaxis_statics(st):
    src, dst = _axes(st["source"], "source"), _axes(st["destination"], "destination")
    if len(src) != len(dst):
        raise ValueError("source and destination must name as many axes")
    return {"source": src, "destination": dst}


def moveaxis_at(ranks, st):
    r = ranks[0]
    src = [a % r for a in st["source"]]
    dst = [a % r for a in st["destination"]]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("np.moveaxis: repeated axis")
    order = [a for a in range(r) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return permute(order)


def permute(axes):
    """The primitive and statics that reorder an array's axes to `axes` (a permutation):
    `transpose` (`x.T`) when it reverses them all -- Numba's `np.transpose(x, axes)` costs
    0.5-1 s of compile time (ADBench GMM's np.stack(..., axis=1)) --, else `transpose_axes`."""
    axes = tuple(axes)
    if len(axes) >= 2 and axes == tuple(range(len(axes) - 1, -1, -1)):
        return get("transpose"), {}
    return get("transpose_axes"), {"axes": axes,
                                   "inverse": tuple(sorted(range(len(axes)), key=axes.__getitem__))}


def average_statics(st):
    return {"axis": _axis_or_none(st["axis"])}


def average_at(ranks, st):
    if st["axis"] is None or ranks[0] == 1:
        return get("average_whole"), {}
    if ranks[1] == 1:       # weights along the axis (NumPy's other form)
        return get("average_lanes"), {"axis": st["axis"] % ranks[0]}
    return get("average_axis"), {"axis": st["axis"] % ranks[0]}


def scan_statics(st):
    return {"axis": _int(st["axis"], "axis=")}


# -- issue 12, autograd's NumPy functions

def _bool(v, what):
    if not isinstance(v, bool):
        raise ValueError(f"{what} must be True or False")
    return v


def rot90_statics(st):
    """np.rot90(m, k, axes): k a constant int, axes (0, 1) or (1, 0) (the other direction)."""
    k = _int(st["k"], "k")
    if st["axes"] not in ((0, 1), (1, 0), (-2, -1), (-1, -2)):
        raise ValueError("axes= must be (0, 1) or (1, 0) (jitad rotates matrices)")
    if st["axes"] in ((1, 0), (-1, -2)):
        k = -k
    return {"k": k % 4, "axes": (0, 1)}


def rollaxis_statics(st):
    return {"axis": _int(st["axis"], "axis"), "start": _int(st["start"], "start")}


def rollaxis_at(ranks, st):
    """np.rollaxis(x, axis, start) as NumPy defines it: axis moves to just before start."""
    r = ranks[0]
    axis, start = st["axis"] % r, st["start"]
    if start < 0:
        start += r
    if axis < start:
        start -= 1
    order = [a for a in range(r) if a != axis]
    order.insert(start, axis)
    return permute(order)


def sort_statics(st):
    return {"axis": _axis_or_none(st["axis"])}


def sort_at(ranks, st):
    if st["axis"] is None:
        return get("sort_flat"), {}
    return get("sort"), {"axis": st["axis"] % max(ranks[0], 1)}


def svd_statics(st):
    """np.linalg.svd(A, full_matrices, compute_uv): the full U of a wide or square A and the
    full Vh of a tall or square A are the reduced ones (the default full_matrices=True of a
    square matrix is the reduced SVD); which one a call gets is a shape, so the others' parts
    past min(m, n), arbitrary, are refused when a gradient or a tangent reaches them
    (`rt.svd_u_adjoint`, `rt.svd_tangent_u`, ...), with a ValueError as np.linalg raises."""
    if not _bool(st["compute_uv"], "compute_uv="):
        raise ValueError("compute_uv=False returns the singular values alone: "
                         "s = np.linalg.svd(A, compute_uv=False)")
    return {"full_matrices": _bool(st["full_matrices"], "full_matrices="), "compute_uv": True}


def diag_indices_statics(st):
    """np.diag_indices(n, ndim): the diagonal of a matrix (ndim 2) only."""
    if st.get("ndim", 2) != 2:
        raise ValueError("np.diag_indices(n) is supported for matrices (ndim=2)")
    return st


def windows_at(ranks, st):
    """sliding_window_view's windowed axes as a tuple of non-negative axes (axis=None: every
    axis of x, in order)."""
    axis, r = st.get("axis"), ranks[0]
    axes = tuple(range(r)) if axis is None else (axis,) if isinstance(axis, int) else axis
    return get("sliding_window_view"), {"axis": tuple(a % r for a in axes)}


# -- issue 12, the rest of autograd's functions: scipy.linalg, scipy.signal, np.partition

def _flag(v, what):
    if not isinstance(v, bool):
        raise ValueError(f"{what} must be the constant True or False")
    return v


def solve_triangular_statics(st):
    """trans 0/'N' or 1/'T' (2/'C' is 1 for real matrices), lower=, unit_diagonal=;
    overwrite_b= and check_finite= accepted and ignored (nothing is overwritten)."""
    trans = st["trans"]
    codes = {0: 0, 1: 1, 2: 1, "N": 0, "T": 1, "C": 1}
    if isinstance(trans, bool) or trans not in codes:
        raise ValueError(f"trans={trans!r} is not supported (0, 1, 2 or 'N', 'T', 'C')")
    _flag(st["overwrite_b"], "overwrite_b=")
    _flag(st["check_finite"], "check_finite=")
    return {"trans": codes[trans], "lower": _flag(st["lower"], "lower="),
            "unit_diagonal": _flag(st["unit_diagonal"], "unit_diagonal="),
            "overwrite_b": False, "check_finite": True}


def solve_banded_statics(st):
    """(l, u) two constant ints >= 0; the overwrite and check flags accepted and ignored."""
    lu = st["l_and_u"]
    if not (isinstance(lu, tuple) and len(lu) == 2 and all(
            isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in lu)):
        raise ValueError("(l, u) must be a constant pair of ints >= 0")
    for k in ("overwrite_ab", "overwrite_b", "check_finite"):
        _flag(st[k], f"{k}=")
    return {"l_and_u": lu, "overwrite_ab": False, "overwrite_b": False, "check_finite": True}


def signal_convolve_statics(st):
    method = st["method"]
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"method={method!r} is not supported ('auto', 'direct' or 'fft': "
                         "jitad sums directly)")
    mode = st["mode"]
    if not (isinstance(mode, int) and not isinstance(mode, bool) and 0 <= mode <= 2):
        mode = _choice(mode, "mode", ("full", "same", "valid"))     # else a code already
    return {"mode": mode, "method": "auto"}


def partition_statics(st):
    """np.partition(x, kth, axis=-1): kth one constant int, axis a constant int (not None),
    the default kind and no order."""
    if st["axis"] is None:
        raise ValueError("axis=None is not supported here: partition np.ravel(x)")
    if st["kind"] != "introselect" or st["order"] is not None:
        raise ValueError("kind= and order= are not supported")
    return {"kth": _int(st["kth"], "kth (one constant int)"), "axis": _int(st["axis"], "axis="),
            "kind": "introselect", "order": None}


def partition_at(ranks, st):
    return get("np.partition"), {**st, "axis": st["axis"] % max(ranks[0], 1)}


def fftshift_statics(st):
    if st["axes"] is not None:
        raise ValueError("axes= is not supported here (every axis is shifted)")
    return st


# np.hsplit / np.vsplit / np.dsplit: np.split along an axis set by the rank (hsplit: 1, or 0
# of a vector), done on the array with that axis moved to the front (`split_front`) and each
# part moved back (`split_back`), so that the front end, which fixes no rank, slices axis 0
SPLIT_AXIS = {"h": 1, "v": 0, "d": 2}


def split_axis(which, rank):
    return 0 if which == "h" and rank == 1 else SPLIT_AXIS[which]


def split_front_at(ranks, st):
    r, a = ranks[0], split_axis(st["which"], ranks[0])
    return permute((a,) + tuple(k for k in range(r) if k != a))


def split_back_at(ranks, st):
    r, a = ranks[0], split_axis(st["which"], ranks[0])
    axes = (a,) + tuple(k for k in range(r) if k != a)
    return permute(sorted(range(r), key=axes.__getitem__))


# -- issue 12, the FFTs: n= an int operand (-1 when left out: the operand's length), norm= as
# a code of
# runtime.FFT_NORMS; the 2-D and n-D forms take their default axes and s=None

FFT_NORMS = {None: 0, "backward": 0, "ortho": 1, "forward": 2}


def _norm(v):
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 2:
        return v            # a code already (generated code read again: `jitad.higher`)
    if v not in FFT_NORMS:
        raise ValueError(f"norm={v!r} is not supported (None, 'backward', 'ortho', 'forward')")
    return FFT_NORMS[v]


def fft_statics(st):
    """np.fft.fft & co's constants (n is an operand: an int, -1 when left out)."""
    if st.get("out") is not None:
        raise ValueError("out= is not supported")
    return {"axis": _int(st["axis"], "axis="), "norm": _norm(st["norm"]), "out": None}


def fft2_statics(st):
    if st["s"] is not None:
        raise ValueError("s= is not supported here (the transform of the whole last two axes; "
                         "use np.fft.fft(x, n, axis) per axis)")
    axes = st["axes"]
    if axes not in ((-2, -1), None):
        raise ValueError("axes= other than the last two is not supported here")
    if st.get("out") is not None:
        raise ValueError("out= is not supported")
    return {"s": None, "axes": axes, "norm": _norm(st["norm"]), "out": None}


def fftn_at(one, two):
    """fftn and its kin: the 1-D transform of a vector, the 2-D one of a matrix (s=None,
    axes=None: every axis)."""
    def at(ranks, st):
        if st["axes"] not in (None, tuple(range(ranks[0])), tuple(range(-ranks[0], 0))):
            raise ValueError("axes= other than every axis is not supported here")
        if ranks[0] == 1:
            return get(one), {"norm": st["norm"]}
        return get(two), {"s": None, "axes": (-2, -1), "norm": st["norm"], "out": None}
    return at
