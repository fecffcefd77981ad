"""Run-time helpers the generated code calls as `rt.<name>`.

Plain Python/NumPy functions: the `python` backend calls them as they are; the `numba`
backend calls the `numba.njit` versions from `_runtime_jit`, so every helper here must stay
inside Numba's nopython subset (explicit loops, no keepdims, no np.add.at).
Guarantees: helpers never allocate when they can work in place, and `accum*`/`scatter_add`
accumulate repeated and broadcast positions exactly (no `v[idx] += g` shortcuts).
"""
import numpy as np

# small helpers Numba inlines into the generated code (a call with array arguments per sample
# costs as much as the loop itself)
INLINE = ("dot1", "in_range", "trip_count", "check_index", "check_range", "check_tape",
          "check_depth")

__all__ = ["dot1", "reserve", "trip_count", "in_range", "check_index", "check_indices", "check_range",
           "check_tape", "check_depth", "accum1", "accum2", "scatter_add", "expand",
           "mean_axis", "max_axis", "min_axis", "reshape_like", "sum0"]


def dot1(a, b):
    """The dot product of two vectors (compiled: a plain loop, inlined, no BLAS call)."""
    return np.dot(a, b)


def _dot1_loop(a, b):
    if a.shape[0] != b.shape[0]:
        raise ValueError("np.dot: shapes of the two vectors are not aligned")
    s = 0.0
    for k in range(a.shape[0]):
        s += a[k] * b[k]
    return s


def reserve(buf, n):
    """`buf` if it holds n items, else a copy at least twice as large (explicit copy loop:
    a slice copy costs seconds of Numba compile time)."""
    if n <= buf.shape[0]:
        return buf
    new = np.empty(max(n, 2 * buf.shape[0]), buf.dtype)
    for k in range(buf.shape[0]):
        new[k] = buf[k]
    return new


def trip_count(start, stop, step):
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


def in_range(i, stop, step):
    return (step > 0 and i < stop) or (step < 0 and i > stop)


def check_index(i, n, site):
    """IndexError(site, i, n) unless -n <= i < n (Python's rule; Numba checks nothing)."""
    if i < -n or i >= n:
        raise IndexError(site, i, n)


def check_indices(idx, n, site):
    """check_index for every entry of an index array."""
    for k in range(idx.shape[0]):
        if idx[k] < -n or idx[k] >= n:
            raise IndexError(site, idx[k], n)


def check_range(start, stop, step, scale, offset, n, site):
    """check_index of `scale * i + offset` for every i in range(start, stop, step): its values
    are monotone in i, so checking the first and the last covers them all."""
    trips = trip_count(start, stop, step)
    if trips > 0:
        first = scale * start + offset
        last = scale * (start + (trips - 1) * step) + offset
        if first < -n or first >= n:
            raise IndexError(site, first, n)
        if last < -n or last >= n:
            raise IndexError(site, last, n)


def check_tape(used, limit, site):
    """MemoryError(site, used, limit) once a `while` loop's tapes hold more than `limit` bytes
    (a loop that never ends would otherwise fill the memory; compiled code ignores Ctrl-C)."""
    if used > limit:
        raise MemoryError(site, used, limit)


def check_depth(depth, limit, site):
    """RecursionError(site, depth, limit) past `limit` levels of compiled recursion."""
    if depth > limit:
        raise RecursionError(site, depth, limit)


def sum0(c):
    """Sum over the leading axis (un-broadcasting a leading dimension)."""
    return np.sum(c, axis=0)


def accum1(d, c):
    """d += c for rank-1 arrays, where d may be a broadcast (length-1) operand."""
    if d.shape[0] == c.shape[0]:
        d += c
    else:
        d[0] += np.sum(c)


def accum2(d, c):
    """d += c for rank-2 arrays, summing over axes where d has length 1."""
    if d.shape[0] == c.shape[0] and d.shape[1] == c.shape[1]:
        d += c
        return
    r = d.shape[0] != 1
    s = d.shape[1] != 1
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            d[i if r else 0, j if s else 0] += c[i, j]


def scatter_add(d, idx, g):
    """d[idx] += g, accumulating repeated indices."""
    for k in range(idx.shape[0]):
        d[idx[k]] += g[k]


def expand(g, axis):
    return np.expand_dims(g, axis)


def mean_axis(x, axis):
    return np.sum(x, axis=axis) / x.shape[axis]


def max_axis(x, axis):
    if axis == 0:
        out = x[0].copy()
        for i in range(1, x.shape[0]):
            for j in range(x.shape[1]):
                if x[i, j] > out[j]:
                    out[j] = x[i, j]
        return out
    out = x[:, 0].copy()
    for i in range(x.shape[0]):
        for j in range(1, x.shape[1]):
            if x[i, j] > out[i]:
                out[i] = x[i, j]
    return out


def min_axis(x, axis):
    return -max_axis(-x, axis)


def reshape_like(g, x):
    return np.ascontiguousarray(g).reshape(x.shape)
