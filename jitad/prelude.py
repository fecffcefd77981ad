"""NumPy functions jitad defines by other NumPy code it differentiates.

Takes: nothing (a table read by the front end and by eager mode).
Guarantees: `DEFINITIONS` maps a NumPy callable to plain Python functions computing it, in
the forms written here (`PENDING`: a library function of a module jitad does not import,
`scipy.signal.lfilter`, joins them once its module is loaded; a definition with `NEEDS` is
taken only by a call giving those keywords: `np.sum(x, where=m)`, never `np.sum(x, 0)`) (a call no definition takes is read as any other library call: a
form of its own, `np.take(a, idx, axis=k)` and `np.take(a, [2, 0])` (a list is no argument a
definition takes), or refused at the user's call). Eager mode hands a definition integers
written out (`np.take(x, (3, 0))`) as the integer array NumPy reads. The front end
reads a call of one as a call of a user's helper (`normalize.anf`; an error inside it is
raised at the user's call, `typeinfer.at_the_call`), and eager mode runs the same function on
Vars (`eager_functions`, NumPy's dispatch reaching it): one definition, both modes,
derivatives from the primitives it calls.
Invariants: a definition calls only what jitad differentiates, reads no globals but `np`,
and takes an integer that must be a compile-time constant (an axis) only to pass it on to a
primitive as the constant the user's call gave (`np.sum(x, axis=0, where=m)`: the helper is
specialized on it) -- a form that computes with one stays a primitive of its own; a string (`np.correlate`'s `mode=`) is a constant of every helper,
passed on as one.
"""
import sys

import numpy as np


def ptp(a):
    """np.ptp(a): the range of all entries."""
    return np.max(a) - np.min(a)


def ptp_axis(a, axis, keepdims=False):
    """np.ptp(a, axis=k): the range along axis k."""
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


def diff_ends(a, n=1, axis=-1, prepend=0.0, append=0.0):
    """np.diff(a, n, axis, prepend=u, append=v): the differences of u, a and v joined along
    the axis."""
    # (a number is broadcast to one lane along the axis, as NumPy's; an array of a's rank
    # gives its own lanes)
    before = np.zeros_like(np.take(a, [0], axis=axis)) + prepend
    after = np.zeros_like(np.take(a, [0], axis=axis)) + append
    return np.diff(np.concatenate((before, a, after), axis=axis), n, axis=axis)


def diff_prepend(a, n=1, axis=-1, prepend=0.0):
    """np.diff(a, n, axis, prepend=u): the differences of u and a joined along the axis."""
    before = np.zeros_like(np.take(a, [0], axis=axis)) + prepend
    return np.diff(np.concatenate((before, a), axis=axis), n, axis=axis)


def diff_append(a, n=1, axis=-1, append=0.0):
    """np.diff(a, n, axis, append=v): the differences of a and v joined along the axis."""
    after = np.zeros_like(np.take(a, [0], axis=axis)) + append
    return np.diff(np.concatenate((a, after), axis=axis), n, axis=axis)


def diagflat(v, k=0):
    """np.diagflat(v, k): the matrix with the flattened v on its k-th diagonal."""
    return np.diag(np.ravel(v), k)


def logspace(start, stop, num=50, endpoint=True, base=10.0):
    """np.logspace(start, stop, num, endpoint, base): base to the powers np.linspace gives."""
    return base ** np.linspace(start, stop, num, endpoint=endpoint)


def vdot(a, b):
    """np.vdot(a, b) of real arrays: the dot product of the flattened arrays."""
    return np.sum(np.ravel(a) * np.ravel(b))


def ediff1d(ary):
    """np.ediff1d(ary) (no to_end=, to_begin=): the differences of the flattened array."""
    return np.diff(np.ravel(ary))


def ediff1d_to_end(ary, to_end):
    """np.ediff1d(ary, to_end=v): the differences, then v's entries."""
    return np.concatenate((np.diff(np.ravel(ary)), np.ravel(np.atleast_1d(to_end))))


def ediff1d_to_begin(ary, to_begin):
    """np.ediff1d(ary, to_begin=v): v's entries, then the differences."""
    return np.concatenate((np.ravel(np.atleast_1d(to_begin)), np.diff(np.ravel(ary))))


def ediff1d_ends(ary, to_end, to_begin):
    """np.ediff1d(ary, to_end=v, to_begin=u): u's entries, the differences, v's entries."""
    return np.concatenate((np.ravel(np.atleast_1d(to_begin)), np.diff(np.ravel(ary)),
                           np.ravel(np.atleast_1d(to_end))))


def take(a, indices):
    """np.take(a, indices): entries of the flattened array."""
    return np.ravel(a)[indices]


def trapezoid(y, dx=1.0):
    """np.trapezoid(y, dx=dx) of a vector: the trapezoid rule on samples spaced dx."""
    return np.sum(y[1:] + y[:-1]) * dx / 2.0


def trapezoid_at(y, x):
    """np.trapezoid(y, x) of vectors: the trapezoid rule on samples y at x."""
    return np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1])) / 2.0


def nansum(a):
    """np.nansum(a): the sum of the entries that are not NaN."""
    return np.sum(np.where(np.isnan(a), 0.0, a))


def nanmean(a):
    """np.nanmean(a): the mean of the entries that are not NaN."""
    keep = ~np.isnan(a)
    return np.sum(np.where(keep, a, 0.0)) / np.sum(keep)


def ldexp(x, n):
    """np.ldexp(x, n): x times 2 to the integer n."""
    return x * 2.0 ** n


def polyval(p, x):
    """np.polyval(p, x): the polynomial with coefficients p (highest power first) at x, by
    Horner's rule."""
    y = x * 0.0 + p[0]
    for k in range(1, p.shape[0]):
        y = y * x + p[k]
    return y


def interp(x, xp, fp):
    """np.interp(x, xp, fp): the piecewise linear interpolant of (xp, fp) at x (xp increasing),
    constant beyond the ends as NumPy's; differentiable in x (the slope) and fp."""
    i = np.clip(np.searchsorted(xp, x) - 1, 0, xp.shape[0] - 2)
    t = np.clip((x - xp[i]) / (xp[i + 1] - xp[i]), 0.0, 1.0)
    return fp[i] + t * (fp[i + 1] - fp[i])


def matrix_power(a, n):
    """np.linalg.matrix_power(a, n): a product of n copies of a (of its inverse for n < 0)."""
    if n < 0:
        a = np.linalg.inv(a)
        n = -n
    r = np.eye(a.shape[0])
    for _ in range(n):
        r = r @ a
    return r


def nanmax(a):
    """np.nanmax(a): the largest entry that is not NaN."""
    return np.max(np.where(np.isnan(a), -np.inf, a))


def nanmin(a):
    """np.nanmin(a): the smallest entry that is not NaN."""
    return np.min(np.where(np.isnan(a), np.inf, a))


def cov(m, rowvar=True):
    """np.cov(m) of a matrix: the covariance of its rows (variables) over its columns
    (observations; of its columns with rowvar=False), normalized by N - 1."""
    if not rowvar:
        m = m.T
    d = m - np.mean(m, axis=1, keepdims=True)
    return d @ d.T / (m.shape[1] - 1)


def cov_of_two(m, y):
    """np.cov(x, y): the covariance of the rows of both (vectors are one row each)."""
    v = np.concatenate((np.atleast_2d(m), np.atleast_2d(y)))
    d = v - np.mean(v, axis=1, keepdims=True)
    return d @ d.T / (v.shape[1] - 1)


def corrcoef(x, rowvar=True):
    """np.corrcoef(x) of a matrix: the correlation coefficients of its rows (of its columns
    with rowvar=False)."""
    if not rowvar:
        x = x.T
    d = x - np.mean(x, axis=1, keepdims=True)
    c = d @ d.T
    s = np.sqrt(np.diag(c))
    return c / np.outer(s, s)


def corrcoef_of_two(x, y):
    """np.corrcoef(x, y): the correlation coefficients of the rows of both (vectors are one
    row each)."""
    v = np.concatenate((np.atleast_2d(x), np.atleast_2d(y)))
    d = v - np.mean(v, axis=1, keepdims=True)
    c = d @ d.T
    s = np.sqrt(np.diag(c))
    return c / np.outer(s, s)


def correlate(a, v, mode="valid"):
    """np.correlate(a, v, mode) of real vectors: the convolution with v reversed."""
    return np.convolve(a, v[::-1], mode=mode)


def cond(x):
    """np.linalg.cond(x) (p=None): the ratio of the largest to the smallest singular value."""
    s = np.linalg.svd(x, compute_uv=False)
    return s[0] / s[-1]


def lstsq(a, b, rcond=None):
    """np.linalg.lstsq(a, b): (x, residuals, rank, singular values) as NumPy gives them, x by
    the pseudo-inverse (the least-squares solution; the minimum-norm one of a wide a);
    residuals the squared norms of b - a @ x per column when a is tall and of full rank (an
    empty array otherwise); the rank by NumPy's tolerance on the singular values. A
    rank-deficient a raises ValueError where pinv's gradient does (`rcond` is NumPy's default)."""
    m, n = a.shape
    s = np.linalg.svd(a, compute_uv=False)
    rank = np.sum(s > s[0] * max(m, n) * 2.220446049250313e-16)
    x = np.linalg.pinv(a) @ b
    if rank == n and m > n:
        residuals = np.atleast_1d(np.sum((b - a @ x) ** 2, axis=0))
    else:
        residuals = np.zeros(0)
    return x, residuals, rank, s


def linspace_endpoint(start, stop, num=50, endpoint=True):
    """np.linspace(start, stop, num, endpoint=False): num points from start spaced
    (stop - start) / num, stop left out (endpoint=True: np.linspace itself)."""
    if endpoint:
        return np.linspace(start, stop, num)
    return start + (stop - start) / num * np.arange(num)


def sum_where(a, axis=None, *, keepdims=False, where=True):
    """np.sum(a, where=m): the sum of the entries where m holds (m broadcast against a)."""
    return np.sum(np.where(where, a, 0.0), axis=axis, keepdims=keepdims)


def mean_where(a, axis=None, *, keepdims=False, where=True):
    """np.mean(a, where=m): the mean of the entries where m holds (NaN where none does, as
    NumPy's)."""
    return np.sum(np.where(where, a, 0.0), axis=axis, keepdims=keepdims) \
        / np.sum(np.where(where, np.ones_like(a), 0.0), axis=axis, keepdims=keepdims)


def delete(arr, obj):
    """np.delete(arr, obj): the flattened array without the entries at obj (an index or
    indices, negative ones from the end)."""
    a = np.ravel(arr)
    keep = np.ones(a.shape[0], dtype=np.bool_)
    keep[obj] = False
    return a[keep]


def delete_axis(arr, obj, axis):
    """np.delete(arr, obj, axis=k): arr without the lanes at obj along axis k."""
    keep = np.ones(arr.shape[axis], dtype=np.bool_)
    keep[obj] = False
    return np.take(arr, np.flatnonzero(keep), axis=axis)


def insert(arr, obj, values):
    """np.insert(arr, obj, values) of one index obj: the flattened array with values (a number
    or a vector) put before its entry obj."""
    a = np.ravel(arr)
    # values + np.zeros(1): a number as a vector of one, a vector as it is (in float)
    return np.concatenate((a[:obj], np.ravel(values + np.zeros(1)), a[obj:]))


def lfilter(b, a, x):
    """scipy.signal.lfilter(b, a, x) of vectors (no zi, the default axis): the direct-form
    recurrence y[n] = (sum_k b[k] x[n-k] - sum_{k>=1} a[k] y[n-k]) / a[0]."""
    ys = []     # a list, not writes into an array: eager mode runs this on NumPy's np too
    for n in range(x.shape[0]):
        acc = 0.0
        for k in range(min(n + 1, b.shape[0])):
            acc += b[k] * x[n - k]
        for k in range(1, min(n + 1, a.shape[0])):
            acc -= a[k] * ys[n - k]
        ys.append(acc / a[0])
    return np.stack(ys)


def log_expit(x):
    """scipy.special.log_expit(x): log(1 / (1 + exp(-x))), without overflow at either end."""
    return -np.logaddexp(0.0, -x)


def rosen(x):
    """scipy.optimize.rosen(x): the Rosenbrock function, summed along the first axis."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1.0 - x[:-1]) ** 2.0, axis=0)


def cho_factor(a, lower=False):
    """scipy.linalg.cho_factor(a, lower): (c, lower) as SciPy gives them: the Cholesky factor
    in the lower (upper, L.T) triangle, a's own entries in the other (LAPACK leaves them).
    The factor reads the triangle it is written in (its gradient lands there, as central
    differences of SciPy's give): a's lower one, or the upper one as a.T's lower."""
    L = np.linalg.cholesky(a if lower else a.T)
    if lower:
        return L + np.triu(a, 1), lower
    return L.T + np.tril(a, -1), lower


def cho_solve(c_and_lower, b):
    """scipy.linalg.cho_solve((c, lower), b): the solution of (L @ L.T) x = b, L read from c's
    triangle `lower` names (the other holds anything)."""
    c, lower = c_and_lower
    if lower:
        L = np.tril(c)
    else:
        L = np.triu(c).T
    return np.linalg.solve(L.T, np.linalg.solve(L, b))


# (module, attribute) -> definitions of a library function jitad does not import itself,
# bound once its module is loaded (code that calls it has imported it)
PENDING = {("scipy.signal", "lfilter"): (lfilter,), ("scipy.special", "log_expit"): (log_expit,),
           ("scipy.optimize", "rosen"): (rosen,), ("scipy.linalg", "cho_factor"): (cho_factor,),
           ("scipy.linalg", "cho_solve"): (cho_solve,)}

# a definition taken only by a call giving these keywords (np.sum without where= is a primitive)
NEEDS = {sum_where: ("where",), mean_where: ("where",), linspace_endpoint: ("endpoint",),
         diff_ends: ("prepend", "append"), diff_prepend: ("prepend",), diff_append: ("append",)}

# a callable -> its definitions, the first whose parameters take the call's arguments
DEFINITIONS = {np.ptp: (ptp, ptp_axis), np.vdot: (vdot,),
               np.diff: (diff_ends, diff_prepend, diff_append), np.diagflat: (diagflat,),
               np.logspace: (logspace,),
               np.ediff1d: (ediff1d, ediff1d_ends, ediff1d_to_end, ediff1d_to_begin),
               np.take: (take,), np.nansum: (nansum,),
               np.nanmean: (nanmean,), np.trapezoid: (trapezoid_at, trapezoid),
               np.ldexp: (ldexp,), np.polyval: (polyval,), np.interp: (interp,),
               np.linalg.matrix_power: (matrix_power,), np.nanmax: (nanmax,),
               np.nanmin: (nanmin,), np.cov: (cov_of_two, cov), np.corrcoef: (corrcoef_of_two, corrcoef),
               np.correlate: (correlate,), np.linalg.lstsq: (lstsq,), np.linalg.cond: (cond,), np.sum: (sum_where,),
               np.mean: (mean_where,), np.delete: (delete, delete_axis), np.insert: (insert,),
               np.linspace: (linspace_endpoint,)}
_BY_ID = {id(k): v for k, v in DEFINITIONS.items()}
_SPELLED = {fn: ("np.linalg." if obj in (np.linalg.matrix_power, np.linalg.lstsq, np.linalg.cond)
             else "np.")
            + obj.__name__
            for obj, fns in DEFINITIONS.items() for fn in fns}
_SPELLED.update({fn: f"{module}.{attr}" for (module, attr), fns in PENDING.items() for fn in fns})
_DEFINED = {id(fn) for fn in _SPELLED}


def _bind_pending():
    for (module, attr), fns in list(PENDING.items()):
        obj = getattr(sys.modules.get(module), attr, None)
        if obj is not None:
            del PENDING[(module, attr)]
            DEFINITIONS[obj] = fns
            _BY_ID[id(obj)] = fns


def defines(obj) -> bool:
    """Whether `obj` is a library callable with definitions here (a pending one once its
    module is loaded)."""
    if PENDING:
        _bind_pending()
    return id(obj) in _BY_ID


def is_definition(fn) -> bool:
    """Whether `fn` is one of the definitions here."""
    return id(fn) in _DEFINED


def spelled(fn) -> str:
    """How a user calls the NumPy function definition `fn` computes (`np.take`)."""
    return _SPELLED[fn]


def _takes(fn, nargs, keywords) -> bool:
    # positional parameters as NumPy orders them (np.sum(x, 0) is an axis), then keyword-only
    # ones; a definition whose NEEDS the call does not give is not taken
    code = fn.__code__
    params = code.co_varnames[:code.co_argcount]
    kwonly = code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount]
    required = code.co_argcount - len(fn.__defaults__ or ())
    return (nargs <= len(params) and set(keywords) <= set(params[nargs:]) | set(kwonly)
            and all(p in keywords for p in params[nargs:required])
            and all(k in keywords for k in NEEDS.get(fn, ())))


def definition(obj, nargs, keywords):
    """The definition of NumPy callable `obj` for a call with `nargs` positional arguments
    and these keyword names, or None (no definition takes them: the call is read as any
    other library call). A definition called by its own name -- generated code read again
    (`higher`) calls the primal of one it needs no tangent of so -- is itself."""
    if id(obj) in _DEFINED:
        return obj
    if PENDING:
        _bind_pending()
    return next((fn for fn in _BY_ID.get(id(obj), ()) if _takes(fn, nargs, keywords)), None)


def eager_functions(otherwise) -> dict:
    """NumPy callable -> a function choosing its definition per call, for eager mode
    (`dispatch.FUNCTION_OPS`: a call on Vars runs the definition on them);
    `otherwise(obj, args, kwargs)` runs a call no definition takes."""
    return {obj: eager_function(obj, otherwise) for obj in DEFINITIONS}


def eager_function(obj, otherwise):
    """The function choosing `obj`'s definition per call, for eager mode (see
    `eager_functions`; a pending library function's once its module is loaded)."""
    def call(*args, **kwargs):
        fn = definition(obj, len(args), kwargs)
        # integers written out (np.take(x, (3, 0))) are the integer array NumPy reads, as
        # compiled mode reads them -- never a tuple of indices
        args = tuple(np.asarray(a) if _int_sequence(a) else a for a in args)
        return fn(*args, **kwargs) if fn is not None else otherwise(obj, args, kwargs)
    call.__name__ = call.__qualname__ = obj.__name__
    return call


def _int_sequence(a) -> bool:
    return isinstance(a, (list, tuple)) and bool(a) and all(
        type(e) is int or _int_sequence(e) for e in a)
