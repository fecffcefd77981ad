"""NumPy as other projects' test suites write it (autograd's tests of np.dot, np.trace,
np.linalg.norm, np.tensordot ..., read for their forms, not copied), each function mixing
several forms jitad took only since (tests/test_suites.py): an index after `...`, the
builtins sum/max/min/pow/round as folds, dtype names and casts, np.dot with a number,
np.concatenate's positional axis, tensordot axes written with lists, np.trace's offset, the
vector norms of other orders, and the NumPy functions jitad defines by NumPy
(`jitad.prelude`: np.ptp, np.vdot, np.take, np.trapezoid, np.nansum, np.nanmean, np.interp,
np.polyval, np.ldexp, np.linalg.matrix_power) and np.take's axis=."""
import numpy as np


def after_ellipsis(x):
    head = x[..., 0]                          # x[:, :, 0]
    tail = x[..., 1:] * x[..., :-1]           # pairs along the last axis
    row = x[1, ..., ::2]                      # an index before ... and one after
    return np.sum(np.sin(head)) + np.sum(tail) + np.sum(row ** 2)


def builtin_folds(x, y):
    total = sum([x[0], y[1], x[2] * y[0]])    # a list written out: 0 + a + b + c
    rows = sum(np.outer(x, y))                # an array: its rows added
    both = sum((x, y * 2.0), np.ones(3))      # a tuple and a start value
    top = max(x[0], y[0], x[1] * y[1], 0.1)   # np.max of the four (ties split evenly)
    low = min(x[2], 0.5, y[2])
    return total + np.sum(rows) + np.sum(both ** 2) + pow(top, 2) + low * round(y[1], 3)


def dtypes_and_casts(x, s):
    a = np.float64(s) * x.astype("float64")   # a dtype's constructor, a dtype's name
    b = np.sum(x * x, dtype=np.float64) + np.mean(np.asarray(x, dtype="f8"), dtype=float)
    k = np.int64(s * 3.0)                     # an integer, constant to the derivative
    idx = np.array([2, 0], dtype=np.int64)
    return np.sum(a) + b * k + np.sum(x[np.array([0, 2, 2])]) + np.sum(x[idx] ** 3)


def products(A, B, s):
    u = np.dot(A, s) + np.dot(s, B)           # np.dot with a number is the product
    t = np.tensordot(A, B, axes=([1], [1]))   # axes written with lists
    c = np.concatenate((A, B), 1)             # the axis given by position
    return np.sum(u ** 2) + np.trace(t, offset=1) + np.trace(t, -1) + np.sum(np.sin(c))


def other_norms(x, M):
    v = np.linalg.norm(x, 1) + np.linalg.norm(x, ord=np.inf) + np.linalg.norm(x - 0.5, -np.inf)
    p = np.linalg.norm(x, 3) + np.linalg.norm(x, 2)
    m = np.linalg.norm(M, "fro") + np.sum(np.linalg.norm(M, 1, axis=1))
    return v + p + m


def numpy_by_numpy(y, x):
    area = np.trapezoid(np.sin(y), x) + np.trapezoid(y * y, dx=0.5) + np.trapezoid(y)
    spread = np.ptp(y * x) + np.vdot(y, x) + np.sum(np.take(y, x.astype(np.int64) % 3))
    clean = np.nansum(np.log(y)) + np.nanmean(y * x)
    return area + spread + clean


def diag_adjoint_view(x):
    # the adjoint of np.diag(vector) is np.diag of a matrix: a (read-only) view in NumPy, so
    # it is never the first contribution assigned and then added into
    M = np.outer(x, x[::-1]) + np.diag(x)
    return np.sum(np.abs(M) ** 3) + np.sum(M * M)


def numpy_by_numpy_2(x, fp, A):
    curve = np.interp(x, np.array([0.0, 0.5, 1.0, 2.0]), fp)    # also beyond the ends
    poly = np.polyval(fp[:3], x) + np.ldexp(x, 2)
    power = np.linalg.matrix_power(A, 3) + np.linalg.matrix_power(A + 3.0 * np.eye(3), -1)
    cols = np.take(A, np.array([2, 0]), axis=1) + np.take(A, np.array([1, 1]), axis=-1)
    return np.sum(curve ** 2) + np.sum(np.sin(poly)) + np.sum(np.sin(power)) + np.sum(cols ** 3)


def named_index_arrays(x):
    perm = np.array([2, 0, 1])                # read only as an index: integers, as NumPy's
    A = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 2]])   # a product: a float matrix
    M = np.outer(x, x)
    return np.sum(x[perm] * x) + np.sum(M[:, perm] * M) + np.sum(np.sin(A @ x))
