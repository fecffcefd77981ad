"""Run-time helpers the generated code calls as `rt.<name>`.

Plain Python/NumPy functions: the `python` backend calls them as they are; the `numba`
backend calls the `numba.njit` versions from `_runtime_jit`, so every helper here must stay
inside Numba's nopython subset (explicit loops, no keepdims, no np.add.at).
Guarantees: helpers never allocate when they can work in place, and `accum*`/`scatter_add`
accumulate repeated and broadcast positions exactly (no `v[idx] += g` shortcuts).
"""
import math

import numba
import numpy as np

from .blas import gemm

# small helpers Numba inlines into the generated code (a call with array arguments per sample
# costs as much as the loop itself). Never one that reads `isinstance` (`_pick_loop`): Numba
# then runs its literal-propagation pass over the whole caller, which crashes on a variable
# that is undefined on some path into a join
INLINE = ("select", "dot1", "in_range", "trip_count", "shape_prod")

__all__ = ["divide", "remainder", "floor_divide", "broadcast_dim", "broadcast_step", "pick", "strong_mul", "strong_div", "select", "dot1", "reserve", "shape_prod", "trip_count", "in_range", "check_index", "index_error", "memory_error", "recursion_error", "slice_end_error", "broadcast_error", "check_indices", "check_range", "check_slice_end", "check_length", "check_broadcast",
           "check_tape", "check_depth", "set_view", "memory_span", "overlaps", "unshared", "add_into", "sum_axis", "accum1", "accum2", "scatter_add", "scatter_add2",
           "scatter_rows", "positions", "scatter_flat", "mask_index", "bmm", "rows", "bmm32", "expand",
           "axes_count", "mean_axis", "max_axis", "min_axis", "extreme_adjoint", "reshape_like", "sum0", "sum_keep", "as3", "prod_axis",
           "prod_others", "prod_others_axis", "rcumsum", "cumsum_axis", "rcumsum_axis",
           "cumprod_adjoint", "diff_adjoint1", "diff_adjoint2", "diag_embed", "lin_t", "others_into",
           "check_len", "check_zip", "assert_failed", "raise_error", "unbound_local", "check_split", "check_sections", "cholesky_adjoint", "sym_lower_adjoint",
           "scan_into", "erf", "erfc", "gammaln", "digamma", "digamma1", "logsumexp", "logsumexp_axis",
           "stack_list", "empty_stack", "concat_list", "unconcat", "concat_list_axis", "unconcat_axis", "list_accum",
           "column_stack_vectors", "column_stack_matrices",
           "check_mask", "nonzero_within", "mask_get", "mask_put", "mask_add", "put", "put2", "take_last", "take_last2",
           "pad1", "pad2", "pad3", "unpad1", "unpad2", "unpad3", "pad_index", "padix1", "padix2",
           "padix3", "unpadix1", "unpadix2", "unpadix3", "conv_window", "convolve",
           "conv_adjoint", "vander", "vander_adjoint", "repeat1", "repeat2", "repeat3", "repeat_adjoint3", "repeat_adjoint1", "trace3", "trace_adjoint3",
           "repeat_adjoint2", "tile1", "tile2", "untile1", "untile2", "roll_axis", "roll_flat", "flip_axis", "fsum",
           "kron_adjoint1", "kron_adjoint2", "mesh", "mesh_copies", "lanes_dot", "lanes_outer", "lanes_contract", "gradient_lane", "mesh_adjoint", "cummax", "cummax_adjoint",
           "log_add", "logcumsumexp", "ratio_below", "logcumsumexp_adjoint", "logcumsumexp_tangent",
           "eigh_w_adjoint", "eigh_v_adjoint", "qr_adjoint", "ndtr1", "log_ndtr1", "ndtr",
           "log_ndtr", "einsum_core", "multigammaln", "multidigamma"]

# helpers that call NumPy in object mode (they take the GIL there): compiled without nogil
NEEDS_GIL = ("partition_perm", "fft3", "rfft3", "irfft3", "eig")

# module-level names the helpers read besides np and math (the compiled helpers' module gets
# them too): constants, and numba for `numba.objmode` (a call NumPy makes, `partition_perm`)
CONSTANTS = ("RGAMMA_TAYLOR", "numba", "SMALL_MATVEC", "SMALL_MATMAT", "gemm")

# helpers compiled once for arrays of any layout (`_runtime_jit` types their array arguments
# as Numba's 'A'): the adjoint of `@` multiplies by transposed views (`g @ b.T`, `a.T @ g`),
# and each pair of layouts was a compilation of its own, with Numba's BLAS call inside (~10k
# LLVM lines of the GMM's gradient). Their loops index through strides, and their BLAS call
# reads the layouts at run time (`blas.gemm`: a transposed operand is no copy)
ANY_LAYOUT = ("matmat", "matmat_sum", "add_into", "accum1", "accum2")

# helpers whose compiled version is another function of this module (a loop Numba compiles
# where the Python version calls NumPy)
COMPILED_AS = {"pick": "_pick_loop", "strong_mul": "_strong_mul_loop", "strong_div": "_strong_div_loop", "dot1": "_dot1_loop", "einsum_core": "_einsum_loop",
               "matvec": "_matvec_loop", "vecmat": "_vecmat_loop", "matmat": "_matmat_loop",
               "matvec_sum": "_matvec_sum_loop", "vecmat_sum": "_vecmat_sum_loop",
               "matmat_sum": "_matmat_sum_loop",
               "outer": "_outer_loop", "add_outer": "_add_outer_loop",
               "add_matvec": "_add_matvec_loop", "add_vecmat": "_add_vecmat_loop",
               "stack_list": "_stack_list_loop",
               "first_add": "_first_add_new", "first_accum1": "_first_accum1_new",
               "first_accum2": "_first_accum2_new", "zeros_into": "_zeros_like_of",
               "empty_into": "_empty_like_of"}

# helpers whose compiled version `_runtime_jit` chooses by the argument types (a Numba overload
# of the plain function), not one `njit` of it
OVERLOADED = ("sum_axis", "max_axis", "set_view", "promoted", "extreme_adjoint", "empty_stack")


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


# Products of small matrices: a BLAS call costs ~100-250 ns before any arithmetic, more than the
# whole product of a 10 x 10 matrix and a vector (~30 ns as a loop; facts measured with
# OPENBLAS_NUM_THREADS=1 in one process: loops win up to ~500 multiply-adds for a matrix times a
# vector and ~1,000 for two matrices, BLAS beyond). The compiled helpers loop below those sizes
# and call np.dot (BLAS) above; any strides (a transposed operand is no copy).
SMALL_MATVEC = 512
SMALL_MATMAT = 1000

__all__ += ["matvec", "vecmat", "matmat", "outer", "add_outer", "add_matvec", "add_vecmat",
            "set_row", "promoted"]
# helpers that always return a newly allocated array (an adjoint may take it as its buffer)
FRESH = ("matvec", "vecmat", "matmat", "outer", "extreme_adjoint")


def promoted(a, b):
    """(a, b) in the dtype NumPy gives their product: np.dot of Numba (BLAS) takes two arrays
    of one dtype, NumPy's an int or bool array with a float one (`np.arange(1, n + 1) @ x`).
    Compiled, the operand of the other dtype is converted (`_runtime_jit`'s overload)."""
    return a, b


def matvec(a, b):
    """a @ b of a matrix and a vector."""
    return np.dot(a, b)


def _matvec_loop(a, b):
    m, k = a.shape
    if k != b.shape[0]:
        raise ValueError("matmul: shapes of the matrix and the vector are not aligned")
    if m * k > SMALL_MATVEC:
        x, y = promoted(a, b)
        return np.dot(x, y)
    # NumPy's result type, from a product of the dtypes' zeros: decided when Numba compiles
    # (products of empty slices made two or three arrays per call: 160 ns for a 10 x 10, not 60)
    out = np.zeros(m, type(a.dtype.type(0) * b.dtype.type(0)))
    for i in range(m):
        acc = out[i]
        for j in range(k):
            acc += a[i, j] * b[j]
        out[i] = acc
    return out


def vecmat(a, b):
    """a @ b of a vector and a matrix."""
    return np.dot(a, b)


def _vecmat_loop(a, b):
    k, n = b.shape
    if k != a.shape[0]:
        raise ValueError("matmul: shapes of the vector and the matrix are not aligned")
    if k * n > SMALL_MATVEC:
        x, y = promoted(a, b)
        return np.dot(x, y)
    out = np.zeros(n, type(a.dtype.type(0) * b.dtype.type(0)))
    for i in range(k):
        ai = a[i]
        for j in range(n):
            out[j] += ai * b[i, j]
    return out


def matmat(a, b):
    """a @ b of two matrices."""
    return np.dot(a, b)


def _matmat_loop(a, b):
    m, k = a.shape
    n = b.shape[1]
    if k != b.shape[0]:
        raise ValueError("matmul: shapes of the two matrices are not aligned")
    if m * k * n > SMALL_MATMAT:
        x, y = promoted(a, b)
        return gemm(x, y)
    out = np.zeros((m, n), type(a.dtype.type(0) * b.dtype.type(0)))
    for i in range(m):
        for p in range(k):
            aip = a[i, p]
            for j in range(n):
                out[i, j] += aip * b[p, j]
    return out


# a sum of two products of one kind, `a @ b + c @ d` (forward mode's product rule:
# `dA @ x + A @ dx`): one loop and one array where two products and their sum made three; each
# element adds the two products' sums, each in its own order, as the two products and `+` do
SUMS_OF_PRODUCTS = {"matvec": "matvec_sum", "vecmat": "vecmat_sum", "matmat": "matmat_sum"}
__all__ += list(SUMS_OF_PRODUCTS.values())
FRESH += tuple(SUMS_OF_PRODUCTS.values())


def _sum2(x, y):
    """x + y of two matrices (NumPy's broadcasting and its error), by a loop: matmat_sum adds
    its two large or broadcast products here, where Numba's array expression `x + y` made
    matmat_sum's compiled code 7,430 LLVM lines, 4,877 with this loop (its cold compile
    1.65 -> 1.3-1.45 s; a vector sum's array expression is smaller than such a loop's call).
    The broadcast rule written out, not `broadcast_dim`/`broadcast_step` calls: each helper
    called is one more compilation."""
    m0, m1 = x.shape
    n0, n1 = y.shape
    if not ((m0 == n0 or m0 == 1 or n0 == 1) and (m1 == n1 or m1 == 1 or n1 == 1)):
        raise ValueError("operands could not be broadcast together")
    r0 = n0 if m0 == 1 else m0
    r1 = n1 if m1 == 1 else m1
    sx0, sx1 = (1 if m0 == r0 else 0), (1 if m1 == r1 else 0)    # 0: broadcast along it
    sy0, sy1 = (1 if n0 == r0 else 0), (1 if n1 == r1 else 0)
    out = np.empty((r0, r1), type(x.dtype.type(0) + y.dtype.type(0)))
    for i in range(r0):
        for j in range(r1):
            out[i, j] = x[i * sx0, j * sx1] + y[i * sy0, j * sy1]
    return out


def matvec_sum(a, b, c, d):
    """a @ b + c @ d of matrices a, c and vectors b, d."""
    return np.dot(a, b) + np.dot(c, d)


def _matvec_sum_loop(a, b, c, d):
    m, k = a.shape
    n = c.shape[1]
    if c.shape[0] != m or m * (k + n) > SMALL_MATVEC:       # a broadcast, or large: as written
        return matvec(a, b) + matvec(c, d)
    if k != b.shape[0] or n != d.shape[0]:
        raise ValueError("matmul: shapes of the matrix and the vector are not aligned")
    out = np.empty(m, type(a.dtype.type(0) * b.dtype.type(0) + c.dtype.type(0) * d.dtype.type(0)))
    for i in range(m):
        acc = a.dtype.type(0) * b.dtype.type(0)
        for j in range(k):
            acc += a[i, j] * b[j]
        acc2 = c.dtype.type(0) * d.dtype.type(0)
        for j in range(n):
            acc2 += c[i, j] * d[j]
        out[i] = acc + acc2
    return out


def vecmat_sum(a, b, c, d):
    """a @ b + c @ d of vectors a, c and matrices b, d."""
    return np.dot(a, b) + np.dot(c, d)


def _vecmat_sum_loop(a, b, c, d):
    k, n = b.shape
    q = d.shape[0]
    if d.shape[1] != n or n * (k + q) > SMALL_MATVEC:
        return vecmat(a, b) + vecmat(c, d)
    if k != a.shape[0] or q != c.shape[0]:
        raise ValueError("matmul: shapes of the vector and the matrix are not aligned")
    out = np.empty(n, type(a.dtype.type(0) * b.dtype.type(0) + c.dtype.type(0) * d.dtype.type(0)))
    for j in range(n):
        acc = a.dtype.type(0) * b.dtype.type(0)
        for i in range(k):
            acc += a[i] * b[i, j]
        acc2 = c.dtype.type(0) * d.dtype.type(0)
        for i in range(q):
            acc2 += c[i] * d[i, j]
        out[j] = acc + acc2
    return out


def matmat_sum(a, b, c, d):
    """a @ b + c @ d of matrices."""
    return np.dot(a, b) + np.dot(c, d)


def _matmat_sum_loop(a, b, c, d):
    m, k = a.shape
    n = b.shape[1]
    q = c.shape[1]
    if c.shape[0] != m or d.shape[1] != n or m * n * (k + q) > SMALL_MATMAT:
        return _sum2(matmat(a, b), matmat(c, d))
    if k != b.shape[0] or q != d.shape[0]:
        raise ValueError("matmul: shapes of the two matrices are not aligned")
    out = np.empty((m, n), type(a.dtype.type(0) * b.dtype.type(0) + c.dtype.type(0) * d.dtype.type(0)))
    for i in range(m):
        for j in range(n):
            acc = a.dtype.type(0) * b.dtype.type(0)
            for p in range(k):
                acc += a[i, p] * b[p, j]
            acc2 = c.dtype.type(0) * d.dtype.type(0)
            for p in range(q):
                acc2 += c[i, p] * d[p, j]
            out[i, j] = acc + acc2
    return out


def outer(a, b):
    """np.outer of two vectors."""
    return np.outer(a, b)


def _outer_loop(a, b):
    out = np.empty((a.shape[0], b.shape[0]), type(a.dtype.type(0) * b.dtype.type(0)))
    for i in range(a.shape[0]):
        ai = a[i]
        for j in range(b.shape[0]):
            out[i, j] = ai * b[j]
    return out


def add_outer(d, a, b):
    """d += np.outer(a, b), in place (no temporary)."""
    d += np.outer(a, b)


def _add_outer_loop(d, a, b):
    m, n = d.shape
    if a.shape[0] not in (1, m) or b.shape[0] not in (1, n):
        raise ValueError("operands could not be broadcast together (outer into an array)")
    ra, rb = a.shape[0] == m, b.shape[0] == n    # else a length-1 operand, broadcast as += does
    for i in range(m):
        ai = a[i if ra else 0]
        for j in range(n):
            d[i, j] += ai * b[j if rb else 0]


def add_matvec(d, a, b):
    """d += a @ b of a matrix and a vector, in place (no temporary vector)."""
    d += np.dot(a, b)


def _add_matvec_loop(d, a, b):
    m, k = a.shape
    if k != b.shape[0]:
        raise ValueError("matmul: shapes of the matrix and the vector are not aligned")
    if d.shape[0] != m and m != 1:      # (Numba's `+=` does not check the shapes)
        raise ValueError("non-broadcastable output operand (a product added into an array)")
    if m * k > SMALL_MATVEC or d.shape[0] != m:      # BLAS, or += broadcasting a length-1 result
        d += matvec(a, b)
        return
    for i in range(m):
        acc = d[i]
        for j in range(k):
            acc += a[i, j] * b[j]
        d[i] = acc


def add_vecmat(d, a, b):
    """d += a @ b of a vector and a matrix, in place (no temporary vector)."""
    d += np.dot(a, b)


def _add_vecmat_loop(d, a, b):
    add_matvec(d, b.T, a)       # a @ b = b.T @ a, its terms added in the same order


# `d += rt.p(a, b)` written as `rt.add_p(d, a, b)` (`codegen`): the product added into d
ADDED_PRODUCTS = {"outer": "add_outer", "matvec": "add_matvec", "vecmat": "add_vecmat"}


# helpers compiled with NumPy's error model: a map's arithmetic on numbers is NumPy's on arrays
# (x / 0.0 is inf or nan with a warning, not ZeroDivisionError)
NUMPY_ERRORS = ("divide", "remainder", "floor_divide")


def divide(a, b):
    """a / b as NumPy divides arrays (used inside maps; see `maps`)."""
    return np.true_divide(a, b)


def remainder(a, b):
    """a % b as NumPy computes it on arrays."""
    return np.remainder(a, b)


def floor_divide(a, b):
    """a // b as NumPy computes it on arrays."""
    return np.floor_divide(a, b)


def broadcast_dim(a, b):
    """The length of an axis along which operands of lengths a and b broadcast (NumPy's
    rule: equal, or one of them 1); ValueError as NumPy raises it otherwise."""
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    raise ValueError("operands could not be broadcast together")


def broadcast_step(d, n):
    """How an operand's axis of length d is read along a loop of length n: 1 (runs along it)
    or 0 (length 1, broadcast); ValueError as NumPy raises it otherwise."""
    if d == n:
        return 1
    if d == 1:
        return 0
    raise ValueError("operands could not be broadcast together")


def pick(c, v):
    """v where c holds, else 0, for numbers and arrays alike: the cotangent a mask passes on
    (np.maximum's, np.clip's), chosen, never multiplied: 0 * inf would be nan where the
    derivative is 0 (np.sqrt(np.maximum(v, 0.0)) at v < 0)."""
    if np.ndim(c) == 0:
        return v if c else 0.0
    return np.where(c, v, 0.0)


def strong_mul(a, b):
    """a * b, and 0 where a == 0 even where b is infinite or nan (the "strong zero"): a rule's
    partial derivative b times a zero cotangent or tangent a contributes nothing (pow's
    partial b * x ** (b - 1) is inf at x == 0 for b < 1, where x ** 1.5 has a finite second
    derivative). Numbers and arrays alike (broadcast)."""
    if np.ndim(a) == 0 and np.ndim(b) == 0:
        return 0.0 if a == 0 else a * b
    return np.where(a == 0, 0.0, a * b)


def _strong_mul_loop(a, b):
    y = a * b
    if isinstance(a, (int, float, complex)):
        if isinstance(b, (int, float, complex)):
            return 0.0 if a == 0 else y
        return np.zeros_like(y) if a == 0 else y
    return np.where(np.broadcast_to(a == 0, y.shape), 0.0, y)


def strong_div(a, b):
    """a / b, and 0 where a == 0 even where b == 0 (the strong zero of a quotient): a rule's
    partial 1 / b at b == 0 times a zero cotangent or tangent contributes nothing (sqrt's
    g / (2 * y) at sqrt(0), where sqrt(x * m) of a zero m is constant); a nonzero a over a
    zero b is inf as NumPy divides. Numbers and arrays alike (broadcast)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if np.ndim(a) == 0 and np.ndim(b) == 0:
            return 0.0 if a == 0 else np.true_divide(a, b)
        return np.where(a == 0, 0.0, np.true_divide(a, b))


def _strong_div_loop(a, b):
    if isinstance(a, (int, float, complex)) and isinstance(b, (int, float, complex)):
        # a times 1 / b: the reciprocal is off a's chain (a cotangent's, in an adjoint loop),
        # and LLVM shares it with the other partials of the same b
        return 0.0 if a == 0 else a * np.true_divide(1.0, b)
    y = np.true_divide(a, b)
    if isinstance(a, (int, float, complex)):
        return np.zeros_like(y) if a == 0 else y
    return np.where(np.broadcast_to(a == 0, y.shape), 0.0, y)


def _pick_loop(c, v):
    if isinstance(c, bool):
        return v if c else 0.0
    return np.where(c, v, 0.0)


def select(c, a, b):
    """np.where(c, a, b) of three numbers: a number (Numba's np.where makes a 0-d array)."""
    return a if c else b


def reserve(buf, n):
    """`buf` if it holds n items, else a copy at least twice as large (explicit copy loop:
    a slice copy costs seconds of Numba compile time)."""
    if n <= buf.shape[0]:
        return buf
    new = np.empty(max(n, 2 * buf.shape[0]), buf.dtype)
    for k in range(buf.shape[0]):
        new[k] = buf[k]
    return new


def shape_prod(shape):
    """np.prod of a shape tuple (1 for a scalar's `()`)."""
    n = 1
    for d in shape:
        n *= d
    return n


def trip_count(start, stop, step):
    if step > 0:
        return max(0, (stop - start + step - 1) // step)
    return max(0, (start - stop - step - 1) // (-step))


def in_range(i, stop, step):
    return (step > 0 and i < stop) or (step < 0 and i > stop)


def check_index(i, n, site):
    """IndexError(site, i, n) unless -n <= i < n (Python's rule; Numba checks nothing)."""
    if i < -n or i >= n:
        index_error(site, i, n)


def index_error(site, i, n):
    """raise IndexError(site, i, n), in a helper of its own that the `check_*` helpers call:
    raising an exception that carries run-time values is ~500 LLVM instructions, which
    would otherwise be compiled again at every check site of every generated function."""
    raise IndexError(site, i, n)


def check_indices(idx, n, site):
    """check_index for every entry of an index array (of any rank)."""
    for i in idx.flat:
        if i < -n or i >= n:
            raise IndexError(site, i, n)


def check_range(start, stop, step, scale, offset, n, site):
    """check_index of `scale * i + offset` for every i in range(start, stop, step): its values
    are monotone in i, so checking the first and the last covers them all."""
    trips = trip_count(start, stop, step)
    if trips > 0:
        first = scale * start + offset
        last = scale * (start + (trips - 1) * step) + offset
        if first < -n or first >= n:
            index_error(site, first, n)
        if last < -n or last >= n:
            index_error(site, last, n)


def check_tape(used, limit, site):
    """MemoryError(site, used, limit) once a `while` loop's tapes hold more than `limit` bytes
    (a loop that never ends would otherwise fill the memory; compiled code ignores Ctrl-C)."""
    if used > limit:
        memory_error(site, used, limit)


def memory_error(site, used, limit):
    """raise MemoryError(site, used, limit), not inlined (see `index_error`)."""
    raise MemoryError(site, used, limit)


def check_depth(depth, limit, site):
    """RecursionError(site, depth, limit) past `limit` levels of compiled recursion."""
    if depth > limit:
        recursion_error(site, depth, limit)


def recursion_error(site, depth, limit):
    """raise RecursionError(site, depth, limit), not inlined (see `index_error`)."""
    raise RecursionError(site, depth, limit)


def sum_keep(c, k, n):
    """c summed over axis k, keeping it, when the array it is un-broadcast onto has length
    n == 1 there (rank >= 3 adjoints); c itself otherwise."""
    if n == 1 and c.shape[k] != 1:
        return np.expand_dims(np.sum(c, axis=k), k)
    return np.asarray(c)


def sum_axis(x, axis):
    """np.sum(x, axis=axis). Compiled (`_runtime_jit`), a matrix of floats, ints or bools is
    summed by two loops, each sum taken along the axis in index order from 0 as Numba's np.sum
    adds them -- the same bits -- without Numba's axis check, whose error message (str
    formatting, a repr chain) costs ~1 s of compile time per process; anything else by
    Numba's np.sum."""
    return np.sum(x, axis=axis)


def sum0(c):
    """Sum over the leading axis (un-broadcasting a leading dimension)."""
    return sum_axis(c, 0)


def set_view(view, src):
    """view[...] = src: a write through a basic index (`A[i] = row`, `T[:3, :3] = R`, the
    view `A[idx]`). Compiled (`_runtime_jit`'s overload), a view of rank 1 or 2 and a number
    or an array of at most its rank are written by element loops, with NumPy's broadcasting
    and a copy first where the source overlaps the view -- not as Numba's slice assignment,
    whose shape-error message (str formatting) costs seconds of compile time in a process's
    first function that has one; anything else as NumPy does."""
    view[...] = src


def memory_span(a):
    """The bytes an array's elements lie in: (first, last + 1); (0, 0) when it has none."""
    lo = hi = int(a.ctypes.data)     # a number (nothing of a: `alias.runtime_writes`)
    for k in range(a.ndim):
        if a.shape[k] == 0:
            return 0, 0
        ext = (a.shape[k] - 1) * a.strides[k]
        if ext < 0:
            lo += ext
        else:
            hi += ext
    return lo, hi + a.itemsize


def overlaps(a, b) -> bool:
    """Whether two arrays' spans of memory intersect (conservative: interleaved views of one
    buffer count as overlapping)."""
    alo, ahi = memory_span(a)
    blo, bhi = memory_span(b)
    return alo < bhi and blo < ahi


def add_into(view, g):
    """view += g, in place: a read's adjoint into the part of an adjoint it selected
    (`d[a:b] += g` compiled as this call, not as Numba's slice assignment, whose shape-error
    message helper costs every function that has one about 0.2 s of compile time)."""
    view += g


def set_row(M, k, g):
    """M[k] = the elements of g in C order (a Jacobian's or Hessian's row from one product;
    compiled as a loop, not as Numba's slice assignment and its error-message helper)."""
    flat = np.ravel(g)
    if flat.shape[0] != M.shape[1]:
        raise ValueError("set_row: the row and the array have different lengths")
    for j in range(flat.shape[0]):
        M[k, j] = flat[j]


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


# An adjoint's first contribution, when it is the whole value (`codegen._first_contribution`):
# `d = np.zeros_like(x); d += c` (or `accum1`, `accum2`) as one call that gives back c itself --
# no new array, no pass of zeros, no pass of additions -- when c is an array of x's dtype and
# shape, else the new array the two statements made. The caller shares c's buffer only where
# `alias.shared_safely` proves nothing writes it in place while both names may hold it.
# Compiled (`_runtime_jit`), the choice between the two is made by the types where it can be.
FIRST_ADDS = {"first_add": None, "first_accum1": "accum1", "first_accum2": "accum2"}
__all__ += list(FIRST_ADDS)


def _takes(x, c):
    return isinstance(c, np.ndarray) and c.dtype == x.dtype and c.shape == x.shape


def first_add(x, c):
    """np.zeros_like(x) + c (c broadcast to x's shape): c itself when shaped like x."""
    if _takes(x, c):
        return c
    d = np.zeros_like(x)
    d += c
    return d


def first_accum1(x, c):
    """`d = np.zeros_like(x); accum1(d, c)`: c itself when shaped like x."""
    if _takes(x, c):
        return c
    d = np.zeros_like(x)
    accum1(d, c)
    return d


def first_accum2(x, c):
    """`d = np.zeros_like(x); accum2(d, c)`: c itself when shaped like x."""
    if _takes(x, c):
        return c
    d = np.zeros_like(x)
    accum2(d, c)
    return d


# An array made again on every trip of a loop (`reuse`): `d = rt.zeros_into(d, x)` is
# `d = np.zeros_like(x)` in the array d already holds when it has x's shape (zeroed in place),
# else a new one; `empty_into` the same for `np.empty_like(x)`. The caller makes sure that
# array is d's alone when the statement runs again (`alias.owned_again`).
INTO = ("zeros_into", "empty_into")
__all__ += list(INTO)


def zeros_into(d, x):
    """np.zeros_like(x), in d's array when it is one of x's dtype and shape."""
    if isinstance(d, np.ndarray) and d.dtype == x.dtype and d.shape == x.shape:
        d[...] = 0.0
        return d
    return np.zeros_like(x)


def empty_into(d, x):
    """np.empty_like(x): d itself when it is an array of x's dtype and shape."""
    if isinstance(d, np.ndarray) and d.dtype == x.dtype and d.shape == x.shape:
        return d
    return np.empty_like(x)


# Compiled, `_runtime_jit` calls the helpers above by the argument types: where c (d) is a
# C-contiguous array of x's dtype and rank, `_first_add_take` (`_zeros_into_refill`, ...) of
# `_runtime_jit`, which may give it back; else these, which make the new array -- plain
# functions, compiled once per argument types and kept in the disk cache.
def _first_add_new(x, c):
    d = np.zeros_like(x)
    add_into(d, c)
    return d


def _first_accum1_new(x, c):
    d = np.zeros_like(x)
    accum1(d, c)
    return d


def _first_accum2_new(x, c):
    d = np.zeros_like(x)
    accum2(d, c)
    return d


def _zeros_like_of(d, x):
    return np.zeros_like(x)


def _empty_like_of(d, x):
    return np.empty_like(x)


def bmm(a, b):
    """a @ b for stacks of matrices (rank 3 @ rank 3), one matrix product per slice."""
    if a.shape[0] != b.shape[0]:
        raise ValueError("matmul: the two stacks of matrices have different lengths")
    first = np.ascontiguousarray(a[0]) @ np.ascontiguousarray(b[0])
    out = np.empty((a.shape[0],) + first.shape, first.dtype)
    out[0] = first
    for k in range(1, a.shape[0]):
        out[k] = np.ascontiguousarray(a[k]) @ np.ascontiguousarray(b[k])
    return out


def rows(a):
    """A rank-3 array as the matrix of its rows, (n * m, k)."""
    return np.ascontiguousarray(a).reshape((a.shape[0] * a.shape[1], a.shape[2]))


def bmm32(a, b):
    """a @ b for a stack of matrices times one matrix: one product over all the rows."""
    return (rows(a) @ np.ascontiguousarray(b)).reshape((a.shape[0], a.shape[1], b.shape[1]))


# np.linalg.solve / inv / det of a stack of matrices (rank 3): one per matrix, as NumPy's
__all__ += ["solve_stack", "inv_stack", "det_stack", "trace_stack"]


def solve_stack(a, b):
    """np.linalg.solve(a, b) of a stack of matrices a (k, n, n) and right-hand sides b
    (k, n, m): one solve per matrix."""
    if a.shape[0] != b.shape[0]:
        raise ValueError("solve: the stacks of matrices and of right-hand sides differ in length")
    out = np.empty((b.shape[0], b.shape[1], b.shape[2]))
    for k in range(a.shape[0]):
        out[k] = np.linalg.solve(np.ascontiguousarray(a[k]), np.ascontiguousarray(b[k]))
    return out


def inv_stack(a):
    """np.linalg.inv of a stack of matrices (k, n, n): one inverse per matrix."""
    out = np.empty((a.shape[0], a.shape[1], a.shape[2]))
    for k in range(a.shape[0]):
        out[k] = np.linalg.inv(np.ascontiguousarray(a[k]))
    return out


def det_stack(a):
    """np.linalg.det of a stack of matrices (k, n, n): a vector of k determinants."""
    out = np.empty(a.shape[0])
    for k in range(a.shape[0]):
        out[k] = np.linalg.det(np.ascontiguousarray(a[k]))
    return out


def trace_stack(a):
    """The trace of each matrix of a stack (k, n, n)."""
    out = np.zeros(a.shape[0])
    for k in range(a.shape[0]):
        for i in range(min(a.shape[1], a.shape[2])):
            out[k] += a[k, i, i]
    return out


# The other rank-3 products NumPy's matmul takes (`X @ w` of a batch): a stack of matrices
# times a vector, a vector or a matrix times a stack, and the sums their adjoints need.
__all__ += ["bmv", "mbm", "bmm_sum", "outer_each"]


def bmv(a, v):
    """a @ v for a stack of matrices times one vector: (b, m, n) @ (n,) -> (b, m)."""
    return (rows(a) @ np.ascontiguousarray(v)).reshape((a.shape[0], a.shape[1]))


def mbm(m, b):
    """m @ b for one matrix (or vector) times a stack of matrices: (p, n) @ (s, n, k) ->
    (s, p, k), (n,) @ (s, n, k) -> (s, k); one product per matrix of the stack."""
    mc = np.ascontiguousarray(m)
    first = mc @ np.ascontiguousarray(b[0])
    out = np.empty((b.shape[0],) + first.shape, first.dtype)
    out[0] = first
    for k in range(1, b.shape[0]):
        out[k] = mc @ np.ascontiguousarray(b[k])
    return out


def bmm_sum(a, b):
    """The sum over k of a[k] @ b[k] (a stack of matrices times a stack of matrices or of
    vectors): the adjoint of the operand a product shares across the stack."""
    if a.shape[0] != b.shape[0]:
        raise ValueError("matmul: the two stacks have different lengths")
    out = np.ascontiguousarray(a[0]) @ np.ascontiguousarray(b[0])
    for k in range(1, a.shape[0]):
        out = out + np.ascontiguousarray(a[k]) @ np.ascontiguousarray(b[k])
    return out


def outer_each(v, g):
    """The stack of np.outer(v, g[k]): (n,), (s, k) -> (s, n, k)."""
    out = np.empty((g.shape[0], v.shape[0], g.shape[1]), g.dtype)
    for k in range(g.shape[0]):
        out[k] = np.outer(v, g[k])
    return out


def scatter_add2(d, rows, cols, g):
    """d[rows, cols] += g, accumulating repeated (row, col) pairs."""
    if rows.shape[0] != cols.shape[0]:
        raise ValueError("shape mismatch: the two index arrays must have the same length")
    for k in range(rows.shape[0]):
        d[rows[k], cols[k]] += g[k]


def scatter_add(d, idx, g):
    """d[idx] += g, accumulating repeated indices."""
    for k in range(idx.shape[0]):
        d[idx[k]] += g[k]


# np.add.at(a, idx, v) as a new array (`add_at`): the write accumulates repeated indices
__all__ += ["add_at", "add_at2", "take2"]


def add_at(a, idx, v):
    """A copy of `a` with v added at the rows idx names, once per occurrence (v broadcast to
    idx.shape + a.shape[1:]); an index out of range raises IndexError, as NumPy's does."""
    out = a.copy()
    n = a.shape[0]
    vals = np.broadcast_to(v, (idx.shape[0],) + a.shape[1:])
    for k in range(idx.shape[0]):
        i = idx[k]
        if i < -n or i >= n:
            raise IndexError("np.add.at: an index is out of bounds")
        out[i] += vals[k]
    return out


def add_at2(a, rows, cols, v):
    """A copy of `a` with v added at (rows[k], cols[k]), once per occurrence."""
    if rows.shape[0] != cols.shape[0]:
        raise ValueError("shape mismatch: the two index arrays must have the same length")
    out = a.copy()
    n, m = a.shape[0], a.shape[1]
    vals = np.broadcast_to(v, (rows.shape[0],) + a.shape[2:])
    for k in range(rows.shape[0]):
        i, j = rows[k], cols[k]
        if i < -n or i >= n or j < -m or j >= m:
            raise IndexError("np.add.at: an index is out of bounds")
        out[i, j] += vals[k]
    return out


def take2(g, rows, cols):
    """g[rows, cols] for two index vectors (the entries, or rows of a higher-rank g)."""
    out = np.empty((rows.shape[0],) + g.shape[2:], g.dtype)
    for k in range(rows.shape[0]):
        out[k] = g[rows[k], cols[k]]
    return out


__all__ += ["window_sum"]


def window_sum(g, x, axes):
    """The adjoint of sliding_window_view(x, window, axis=axes): each window's cotangent
    (g's axes after x's rank) added back at the entries of x the window views."""
    out = np.zeros(x.shape)
    flat = out.reshape(-1)
    gc = np.ascontiguousarray(g).reshape(-1)
    nd, k = x.ndim, len(axes)
    stride = np.zeros(nd, np.int64)
    s = 1
    for d in range(nd - 1, -1, -1):
        stride[d] = s
        s *= x.shape[d]
    index = np.zeros(nd + k, np.int64)
    for f in range(gc.shape[0]):
        r = f
        for d in range(nd + k - 1, -1, -1):
            index[d] = r % g.shape[d]
            r //= g.shape[d]
        pos = 0
        for d in range(nd):
            pos += index[d] * stride[d]
        for j in range(k):
            pos += index[nd + j] * stride[axes[j]]
        flat[pos] += gc[f]
    return out


def scatter_rows(d, idx, g):
    """d[idx] += g for an integer index array of any rank (g shaped idx.shape + d.shape[1:]),
    accumulating repeated indices."""
    flat = np.ravel(idx)
    rows = np.ascontiguousarray(g).reshape((flat.shape[0],) + d.shape[1:])
    for k in range(flat.shape[0]):
        d[flat[k]] += rows[k]


def positions(d):
    """The flat (C-order) position of each entry of d, shaped like d."""
    return np.arange(d.size).reshape(d.shape)


def scatter_flat(d, pos, g):
    """d.flat[pos] += g entry by entry (pos shaped like g), accumulating repeated positions."""
    p = np.ravel(pos)
    v = np.ravel(g)
    for k in range(p.shape[0]):
        d.flat[p[k]] += v[k]


def mask_index(m, n):
    """The positions a boolean vector selects on an axis of length n (NumPy's rule for a mask
    among other indices), after checking its length."""
    if m.shape[0] != n:
        raise IndexError("boolean index did not match the indexed array's axis")
    return np.nonzero(m)[0]


def stack_list(l):
    """np.stack(l) / np.array(l) of a list of numbers or of arrays of one shape (an empty
    list: `empty_stack`)."""
    if len(l) == 0:
        return empty_stack(l)
    shape = np.asarray(l[0]).shape
    out = np.empty((len(l),) + shape, np.asarray(l[0]).dtype)
    for k in range(len(l)):
        if np.asarray(l[k]).shape != shape:
            raise ValueError("all input arrays must have the same shape")
        out[k] = l[k]
    return out


def empty_stack(l):
    """np.array(l) of an empty list: NumPy's empty array of floats (`np.array([])`, e.g. of a
    comprehension whose condition held nowhere; np.stack raises there, np.array does not).
    Compiled (`_runtime_jit`'s overload): an empty vector of the list's dtype for a list of
    numbers; for a list of arrays np.stack's error, as np.array([]) would have another rank
    than the stacked list's (the python backend, which cannot tell an empty list's elements,
    gives NumPy's value)."""
    return np.empty(0)


def _stack_list_loop(l):
    """stack_list, compiled: element by element into the rows of a flat view (`out[k] = l[k]`,
    Numba's slice assignment, compiles and links its shape-error message helper, str
    formatting: ~0.5 s of a cold first call)."""
    if len(l) == 0:
        return empty_stack(l)
    first = np.asarray(l[0])
    shape = first.shape
    out = np.empty((len(l),) + shape, first.dtype)
    flat = out.reshape((len(l), first.size))
    for k in range(len(l)):
        e = np.asarray(l[k])
        if e.shape != shape:
            raise ValueError("all input arrays must have the same shape")
        j = 0
        for v in e.flat:
            flat[k, j] = v
            j += 1
    return out


def concat_list(l):
    """np.concatenate(l) of a list of arrays (along axis 0)."""
    if len(l) == 0:
        raise ValueError("need at least one array to concatenate")
    n = 0
    for e in l:
        if e.shape[1:] != l[0].shape[1:]:
            raise ValueError("all the input array dimensions except for the concatenation "
                             "axis must match exactly")
        n += e.shape[0]
    out = np.empty((n,) + l[0].shape[1:], l[0].dtype)
    at = 0
    for e in l:
        out[at:at + e.shape[0]] = e
        at += e.shape[0]
    return out


def unconcat(g, l):
    """The pieces of g (the adjoint of concat_list(l)) that belong to each element of l."""
    out = []
    at = 0
    for e in l:
        out.append(g[at:at + e.shape[0]])
        at += e.shape[0]
    return out


def column_stack_vectors(l):
    """np.column_stack(l) of a list of vectors of one length: they are its columns."""
    return np.ascontiguousarray(stack_list(l).T)


def column_stack_matrices(l):
    """np.column_stack(l) of a list of matrices of one height: concatenated along axis 1."""
    return concat_list_axis(l, 1)


def concat_list_axis(l, axis):
    """np.concatenate(l, axis) of a list of arrays: concat_list of their axis swapped with the
    first, swapped back."""
    if len(l) == 0:
        raise ValueError("need at least one array to concatenate")
    if axis < 0:
        axis += l[0].ndim
    return np.swapaxes(concat_list([np.swapaxes(e, 0, axis) for e in l]), 0, axis)


def unconcat_axis(g, l, axis):
    """The pieces of g (the adjoint of concat_list_axis(l, axis)) that belong to each element."""
    if axis < 0:
        axis += g.ndim
    return [np.swapaxes(p, 0, axis)
            for p in unconcat(np.swapaxes(g, 0, axis), [np.swapaxes(e, 0, axis) for e in l])]


def list_accum(d, c):
    """d[k] += c[k] for every element of the list adjoint d (c: an array or a list)."""
    for k in range(len(d)):
        d[k] += c[k]


def check_mask(m, shape):
    if m.shape != shape[:m.ndim]:
        raise IndexError("boolean index did not match the indexed array's shape")


def nonzero_within(m, x):
    """The boolean mask of x's leading axes that `x[np.nonzero(m)]` selects: True at each
    nonzero position of m (m may be shorter than x along an axis, as NumPy's tuple index
    allows); NumPy's IndexError where a nonzero position lies outside x."""
    out = np.zeros(x.shape[:m.ndim], np.bool_)
    flat_o = out.reshape(-1)
    flat_m = m.ravel()
    for j in range(flat_m.shape[0]):
        if flat_m[j] != 0:
            rest, pos, scale = j, 0, 1
            for d in range(m.ndim - 1, -1, -1):
                i = rest % m.shape[d]
                rest //= m.shape[d]
                if i >= out.shape[d]:
                    raise IndexError("index out of bounds in x[np.nonzero(m)]")
                pos += i * scale
                scale *= out.shape[d]
            flat_o[pos] = True
    return out


def mask_get(x, m):
    """x[m] for a boolean mask m shaped like x (its entries) or like x's first axis (rows)."""
    check_mask(m, x.shape)
    if m.ndim == x.ndim:
        out = np.empty(np.count_nonzero(m), x.dtype)
        k = 0
        flat = m.ravel()
        for j in range(flat.shape[0]):
            if flat[j]:
                out[k] = x.flat[j]
                k += 1
        return out
    rows = np.nonzero(m)[0]
    out = np.empty((rows.shape[0],) + x.shape[1:], x.dtype)
    for k in range(rows.shape[0]):
        out[k] = x[rows[k]]
    return out


def mask_put(y, m, v):
    """y[m] = v (v broadcast to the selected entries or rows)."""
    check_mask(m, y.shape)
    n = np.count_nonzero(m)
    v = unshared(y, v)
    if m.ndim == y.ndim:
        vals = np.broadcast_to(v, (n,))
        k = 0
        flat = m.ravel()
        for j in range(flat.shape[0]):
            if flat[j]:
                y.flat[j] = vals[k]
                k += 1
        return
    rows = np.nonzero(m)[0]
    vals = np.broadcast_to(v, (n,) + y.shape[1:])
    for k in range(rows.shape[0]):
        y[rows[k]] = vals[k]


def mask_add(d, m, g):
    """d[m] += g (the adjoint of the read x[m])."""
    if m.ndim == d.ndim:
        k = 0
        flat = m.ravel()
        for j in range(flat.shape[0]):
            if flat[j]:
                d.flat[j] += g[k]
                k += 1
        return
    rows = np.nonzero(m)[0]
    for k in range(rows.shape[0]):
        d[rows[k]] += g[k]


def unshared(y, v):
    """v as an array, copied if its memory overlaps y's: the value of a write into y, read
    whole before any element is written (NumPy's `y[idx] = v` for a `v` that is y itself or a
    view of it, `y[idx] = y[::-1]`)."""
    a = np.asarray(v)
    return a.copy() if overlaps(y, a) else a


def put(y, idx, v):
    """y[idx] = v for an integer index array (a repeated index keeps the last value, as NumPy;
    a v that overlaps y is read whole first)."""
    vals = np.broadcast_to(unshared(y, v), (idx.shape[0],) + y.shape[1:])
    for k in range(idx.shape[0]):
        y[idx[k]] = vals[k]


def put2(y, rows, cols, v):
    """y[rows, cols] = v."""
    if rows.shape[0] != cols.shape[0]:
        raise ValueError("shape mismatch: the two index arrays must have the same length")
    vals = np.broadcast_to(unshared(y, v), rows.shape)
    for k in range(rows.shape[0]):
        y[rows[k], cols[k]] = vals[k]


def take_last(d, idx):
    """d[idx] where only the last occurrence of each index reads d (the adjoint of a write
    y[idx] = v: an earlier occurrence's value was overwritten, its adjoint is 0)."""
    n = d.shape[0]
    out = np.zeros((idx.shape[0],) + d.shape[1:], d.dtype)
    seen = np.zeros(n, np.bool_)
    for k in range(idx.shape[0] - 1, -1, -1):
        i = idx[k] + n if idx[k] < 0 else idx[k]
        if not seen[i]:
            seen[i] = True
            out[k] = d[i]
    return out


def take_last2(d, rows, cols):
    """d[rows, cols] where only the last occurrence of each pair reads d (see take_last)."""
    n, m = d.shape[0], d.shape[1]
    out = np.zeros(rows.shape[0], d.dtype)
    seen = np.zeros((n, m), np.bool_)
    for k in range(rows.shape[0] - 1, -1, -1):
        i = rows[k] + n if rows[k] < 0 else rows[k]
        j = cols[k] + m if cols[k] < 0 else cols[k]
        if not seen[i, j]:
            seen[i, j] = True
            out[k] = d[i, j]
    return out


def expand(g, axis):
    return np.expand_dims(g, axis)


def axes_count(x, axes):
    """How many entries of x lie along these axes (the product of their lengths)."""
    n = 1
    for a in axes:
        n *= x.shape[a % x.ndim]
    return n


def mean_axis(x, axis):
    return np.sum(x, axis=axis) / x.shape[axis]


def as3(x, axis):
    """x as a contiguous (outer, n, inner) array, `n` its length along `axis` (any rank)."""
    outer = 1
    inner = 1
    for k in range(axis):
        outer *= x.shape[k]
    for k in range(axis + 1, x.ndim):
        inner *= x.shape[k]
    return np.ascontiguousarray(x).reshape((outer, x.shape[axis], inner))


def max_axis(x, axis):
    """The maximum along `axis`, as an (outer, inner) matrix (the caller reshapes it).
    Compiled (`_runtime_jit`), a matrix is read in place by the same loops, without `as3`'s
    contiguous copy (and its compile time); any other rank runs this."""
    t = as3(x, axis)
    out = t[:, 0, :].copy()
    for i in range(t.shape[0]):
        for k in range(1, t.shape[1]):
            for j in range(t.shape[2]):
                if t[i, k, j] > out[i, j]:
                    out[i, j] = t[i, k, j]
    return out


def min_axis(x, axis):
    return -max_axis(-x, axis)


def extreme_adjoint(g, x, y, axis):
    """x's adjoint of y = np.max(x, axis) or np.min(x, axis) for y's cotangent g: each g
    shared equally among the entries of x equal to its extreme (ties split), 0 elsewhere.
    Compiled (`_runtime_jit`), a matrix is two loops over x (the array expression of
    `expand`, a count and a mask was ~2,700 LLVM lines in the GMM's gradient); any other
    rank runs this."""
    hit = x == np.expand_dims(y, axis)
    return np.expand_dims(g / np.sum(hit, axis=axis), axis) * hit


def prod_axis(x, axis):
    """The product along `axis`, as an (outer, inner) matrix (the caller reshapes it)."""
    t = as3(x, axis)
    out = np.ones((t.shape[0], t.shape[2]), t.dtype)
    for i in range(t.shape[0]):
        for k in range(t.shape[1]):
            for j in range(t.shape[2]):
                out[i, j] *= t[i, k, j]
    return out


def lanes_dot(x, w, axis):
    """The sum over k of w[k] times x's slice k along `axis` (np.average's weights given along
    one axis), shaped like x without that axis; w's length is checked."""
    t = as3(x, axis)
    if w.shape[0] != t.shape[1]:
        raise ValueError("np.average: the weights' length differs from the array's along axis")
    out = sum_axis(x, axis) * (w[0] * 0.0)      # x's shape less the axis, their dtype
    o2 = out.reshape((t.shape[0], t.shape[2]))  # a view: filled in place
    o2[:, :] = 0.0
    for i in range(t.shape[0]):
        for k in range(t.shape[1]):
            for j in range(t.shape[2]):
                o2[i, j] += w[k] * t[i, k, j]
    return out


def lanes_outer(g, w, x, axis):
    """The adjoint of lanes_dot in x: g (x's shape without `axis`) times w along `axis`,
    shaped like x."""
    t = as3(x, axis)
    g2 = np.ascontiguousarray(g).reshape((t.shape[0], t.shape[2]))
    out = np.empty(t.shape)
    for i in range(t.shape[0]):
        for k in range(t.shape[1]):
            for j in range(t.shape[2]):
                out[i, k, j] = g2[i, j] * w[k]
    return out.reshape(x.shape)


def lanes_contract(g, x, axis):
    """The adjoint of lanes_dot in w: for each k, the sum of g times x's slice k along
    `axis`."""
    t = as3(x, axis)
    g2 = np.ascontiguousarray(g).reshape((t.shape[0], t.shape[2]))
    out = np.zeros(t.shape[1])
    for i in range(t.shape[0]):
        for k in range(t.shape[1]):
            for j in range(t.shape[2]):
                out[k] += g2[i, j] * t[i, k, j]
    return out


def others_into(t, out):
    """out[i, k, j] = the product of t[i, :, j] without its k-th entry (prefix times suffix
    products: no division, exact where an entry is zero)."""
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            acc = 1.0
            for k in range(t.shape[1]):
                out[i, k, j] = acc
                acc *= t[i, k, j]
            acc = 1.0
            for k in range(t.shape[1] - 1, -1, -1):
                out[i, k, j] *= acc
                acc *= t[i, k, j]


def prod_others(x):
    """Each entry: the product of all the other entries of x (shaped like x)."""
    t = np.ascontiguousarray(x).reshape((1, x.size, 1))
    out = np.empty(t.shape)
    others_into(t, out)
    return out.reshape(x.shape)


def prod_others_axis(x, axis):
    """Each entry: the product of the other entries along `axis` (shaped like x)."""
    t = as3(x, axis)
    out = np.empty(t.shape)
    others_into(t, out)
    return out.reshape(x.shape)


def scan_into(t, out, reverse):
    n = t.shape[1]
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            acc = 0.0
            for m in range(n):
                k = n - 1 - m if reverse else m
                acc += t[i, k, j]
                out[i, k, j] = acc


def rcumsum(g):
    """The cumulative sum from the end (the adjoint of np.cumsum of a vector)."""
    t = np.ascontiguousarray(g).reshape((1, g.size, 1))
    out = np.empty(t.shape, t.dtype)
    scan_into(t, out, True)
    return out.reshape(g.shape)


def cumsum_axis(x, axis):
    t = as3(x, axis)
    out = np.empty(t.shape, t.dtype)
    scan_into(t, out, False)
    return out.reshape(x.shape)


def rcumsum_axis(g, axis):
    t = as3(g, axis)
    out = np.empty(t.shape, t.dtype)
    scan_into(t, out, True)
    return out.reshape(g.shape)


def cumprod_adjoint(x, g):
    """The adjoint of y = np.cumprod(x) for vectors: dx_i = prod(x[:i]) * s_i with
    s_i = g_i + x_{i+1} s_{i+1} (no division: exact where an entry is zero)."""
    n = x.shape[0]
    out = np.empty(n)
    s = 0.0
    for i in range(n - 1, -1, -1):
        s = g[i] + (x[i + 1] * s if i + 1 < n else 0.0)
        out[i] = s
    acc = 1.0
    for i in range(n):
        out[i] *= acc
        acc *= x[i]
    return out


def diff_adjoint1(g):
    """The adjoint of np.diff of a vector."""
    n = g.shape[0]
    out = np.zeros(n + 1, g.dtype)
    for k in range(n):
        out[k] -= g[k]
        out[k + 1] += g[k]
    return out


def diff_adjoint2(g):
    """The adjoint of np.diff of a matrix (along its last axis)."""
    out = np.zeros((g.shape[0], g.shape[1] + 1), g.dtype)
    for i in range(g.shape[0]):
        for k in range(g.shape[1]):
            out[i, k] -= g[i, k]
            out[i, k + 1] += g[i, k]
    return out


def diag_embed(g, x, k):
    """A matrix shaped like x, zero but for g on its k-th diagonal (the adjoint of
    np.diag(x, k))."""
    out = np.zeros(x.shape, g.dtype)
    for m in range(g.shape[0]):
        if k >= 0:
            out[m, m + k] = g[m]
        else:
            out[m - k, m] = g[m]
    return out


def check_len(n, k):
    """ValueError unless an array of length n unpacks into k names."""
    if n != k:
        raise ValueError("cannot unpack an array of this length into this many names")
    return n


def check_zip(n, k):
    """ValueError unless an array of length n zipped with a tuple of k items (a loop jitad
    unrolls k times) has k elements or more (Python would stop at the array's end)."""
    if n < k:
        raise ValueError("zip() of a tuple and a shorter array: jitad unrolls the loop over "
                         "the tuple's items (give the array at least as many)")
    return n


def assert_failed(line):
    """The assert statement at `line` of the user's function found its condition false."""
    raise AssertionError("an assert statement failed: the one at this line of the function "
                         "jitad compiled", line)


def unbound_local(line):
    """A local variable read at `line` of the user's function where no assignment of it had
    run (`unbound`): Python's UnboundLocalError."""
    raise UnboundLocalError("a local variable is read at this line of the function jitad "
                            "compiled before any assignment of it ran", line)


# the exceptions a raise statement of a compiled function may raise, by `raise_error`'s kind
RAISABLE = ("ValueError", "TypeError", "RuntimeError", "ArithmeticError", "ZeroDivisionError",
            "FloatingPointError", "OverflowError", "IndexError", "KeyError", "LookupError",
            "NotImplementedError", "AssertionError", "Exception")


def raise_error(kind, line):
    """The raise statement at `line` of the user's function, of the exception RAISABLE[kind]
    (its message, which compiled code cannot format, left out)."""
    msg = "raised by the function jitad compiled, at this line"
    if kind == 0:
        raise ValueError(msg, line)
    if kind == 1:
        raise TypeError(msg, line)
    if kind == 2:
        raise RuntimeError(msg, line)
    if kind == 3:
        raise ArithmeticError(msg, line)
    if kind == 4:
        raise ZeroDivisionError(msg, line)
    if kind == 5:
        raise FloatingPointError(msg, line)
    if kind == 6:
        raise OverflowError(msg, line)
    if kind == 7:
        raise IndexError(msg, line)
    if kind == 8:
        raise KeyError(msg, line)
    if kind == 9:
        raise LookupError(msg, line)
    if kind == 10:
        raise NotImplementedError(msg, line)
    if kind == 11:
        raise AssertionError(msg, line)
    raise Exception(msg, line)


def check_slice_end(n, stop):
    """IndexError unless an array of length n has `stop` elements: generated code that reads
    `x[lo:stop]` (constant bounds) as `stop - lo` numbers (`scalarize`) checks it first."""
    if n < stop:
        slice_end_error(stop, n)
    return n


def slice_end_error(stop, n):
    """raise check_slice_end's IndexError, not inlined (see `index_error`)."""
    raise IndexError("jitad: a slice with constant bounds runs past the end of its array", stop, n)


def check_broadcast(n, k):
    """ValueError, as NumPy raises it, unless an operand of length n broadcasts against k."""
    if n != k and n != 1 and k != 1:
        broadcast_error(n, k)
    return n


def broadcast_error(n, k):
    """raise ValueError as NumPy does for lengths n and k that do not broadcast, not inlined
    (see `index_error`)."""
    raise ValueError("operands could not be broadcast together", n, k)


def check_length(n, k):
    """ValueError, as NumPy's in-place arithmetic raises it, unless an array of length n
    receives k elements."""
    if n != k:
        broadcast_error(n, k)
    return n


def check_split(n, k):
    """ValueError unless np.split can cut length n into k equal parts."""
    check_sections(n, k)
    if n % k != 0:
        raise ValueError("array split does not result in an equal division")
    return n


def check_sections(n, k):
    """ValueError unless k, a number of sections of np.split / np.array_split, is positive."""
    if k <= 0:
        raise ValueError("number sections must be larger than 0.")
    return n


def cholesky_adjoint(L, g):
    """The adjoint of L = np.linalg.cholesky(A) (Murray 2016): with P = tril(L.T @ g) with its
    diagonal halved, S = sym(L^-T P L^-1) is the derivative along symmetric perturbations;
    NumPy's cholesky reads A's lower triangle only, so A_bar is S folded onto it
    (`sym_lower_adjoint`)."""
    P = L.T @ g
    n = P.shape[0]
    for i in range(n):
        P[i, i] *= 0.5
        for j in range(i + 1, n):
            P[i, j] = 0.0
    Y = np.linalg.solve(L.T, P)
    X = np.linalg.solve(L.T, np.ascontiguousarray(Y.T)).T
    return sym_lower_adjoint(0.5 * (X + X.T))


def sym_lower_adjoint(s):
    """The adjoint of `sym_lower` (the matrix a function reads from its argument's lower
    triangle -- np.linalg.cholesky, eigh, eigvalsh (UPLO='L'), SciPy's multivariate normal),
    from the derivative along symmetric perturbations s: the entries below the diagonal stand for both of their
    places (s[i, j] + s[j, i]), the diagonal for itself, the upper triangle is never read (0). What
    central differences of the NumPy function give; on a symmetric argument built from any
    matrix (x + x.T, x @ x.T) the chain rule gives back the symmetric answer."""
    n = s.shape[0]
    out = np.zeros_like(s)
    for i in range(n):
        out[i, i] = s[i, i]
        for j in range(i):
            out[i, j] = s[i, j] + s[j, i]
    return out


def lin_t(n):
    """np.linspace(0, 1, n): each point's weight on linspace's stop."""
    return np.linspace(0.0, 1.0, n)


def reshape_like(g, x):
    return np.ascontiguousarray(g).reshape(x.shape)


# Elementwise special functions (scipy.special's, which Numba cannot call): a scalar gives a
# float, an array of any rank an array of its shape. `isinstance` is settled when Numba types
# the call, so each specialization keeps one branch.

def erf(x):
    """math.erf elementwise."""
    if isinstance(x, (int, float)):
        return math.erf(x)
    f = np.ascontiguousarray(x).ravel()
    out = np.empty(f.shape[0])
    for k in range(f.shape[0]):
        out[k] = math.erf(f[k])
    return out.reshape(x.shape)


def erfc(x):
    """math.erfc elementwise."""
    if isinstance(x, (int, float)):
        return math.erfc(x)
    f = np.ascontiguousarray(x).ravel()
    out = np.empty(f.shape[0])
    for k in range(f.shape[0]):
        out[k] = math.erfc(f[k])
    return out.reshape(x.shape)


def gammaln(x):
    """log|gamma(x)| (math.lgamma) elementwise."""
    if isinstance(x, (int, float)):
        return math.lgamma(x)
    f = np.ascontiguousarray(x).ravel()
    out = np.empty(f.shape[0])
    for k in range(f.shape[0]):
        out[k] = math.lgamma(f[k])
    return out.reshape(x.shape)


def multigammaln(a, d):
    """log of the multivariate gamma function of dimension d (scipy.special.multigammaln)."""
    if d < 1 or a <= 0.5 * (d - 1):
        raise ValueError("multigammaln needs d >= 1 and a > (d - 1) / 2")
    out = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(d):
        out += math.lgamma(a - 0.5 * j)
    return out


def multidigamma(a, d):
    """d/da multigammaln(a, d): the sum of digamma(a - j / 2), j < d."""
    out = 0.0
    for j in range(d):
        out += digamma1(a - 0.5 * j)
    return out


def digamma1(x):
    """The digamma function psi(x) = d/dx log|gamma(x)| of a scalar (nan at 0, -1, -2 ...):
    the reflection psi(x) = psi(1 - x) - pi / tan(pi x) for x < 0, the recurrence
    psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series (error < 1e-14)."""
    x = float(x)
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    r = 0.0
    if x < 0.0:
        r = -math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < 10.0:
        r -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))))
    return r + math.log(x) - 0.5 / x - series


def digamma(x):
    """digamma1 elementwise."""
    if isinstance(x, (int, float)):
        return digamma1(x)
    f = np.ascontiguousarray(x).ravel()
    out = np.empty(f.shape[0])
    for k in range(f.shape[0]):
        out[k] = digamma1(f[k])
    return out.reshape(x.shape)


def logsumexp(x):
    """log(sum(exp(x))) of a whole array, shifted by its max (no overflow); -inf for an
    array of -inf, inf if an entry is inf."""
    m = np.max(x)
    if not np.isfinite(m):
        return m + 0.0
    return m + np.log(np.sum(np.exp(x - m)))


def logsumexp_axis(x, axis):
    """logsumexp along `axis` (any rank), as an (outer, inner) matrix (the caller reshapes it)."""
    t = as3(x, axis)
    m = max_axis(x, axis)
    out = np.empty(m.shape)
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            mm = m[i, j] if np.isfinite(m[i, j]) else 0.0
            acc = 0.0
            for k in range(t.shape[1]):
                acc += np.exp(t[i, k, j] - mm)
            out[i, j] = mm + np.log(acc)
    return out


# -- issue 12, NumPy as people write it: padding, convolution, repeats, scans, decompositions.
# Each forward helper computes what NumPy computes; each *_adjoint helper is its transpose.

def pad1(x, pw, c):
    """np.pad(x, pw, constant_values=c) of a vector; pw: ((before, after),)."""
    b, a = pw[0]
    out = np.full(x.shape[0] + b + a, c, x.dtype)
    out[b:b + x.shape[0]] = x
    return out


def pad2(x, pw, c):
    (b0, a0), (b1, a1) = pw[0], pw[1]
    out = np.full((x.shape[0] + b0 + a0, x.shape[1] + b1 + a1), c, x.dtype)
    out[b0:b0 + x.shape[0], b1:b1 + x.shape[1]] = x
    return out


def pad3(x, pw, c):
    (b0, a0), (b1, a1), (b2, a2) = pw[0], pw[1], pw[2]
    out = np.full((x.shape[0] + b0 + a0, x.shape[1] + b1 + a1, x.shape[2] + b2 + a2), c, x.dtype)
    out[b0:b0 + x.shape[0], b1:b1 + x.shape[1], b2:b2 + x.shape[2]] = x
    return out


def unpad1(g, pw):
    b, a = pw[0]
    return g[b:g.shape[0] - a].copy()


def unpad2(g, pw):
    (b0, a0), (b1, a1) = pw[0], pw[1]
    return g[b0:g.shape[0] - a0, b1:g.shape[1] - a1].copy()


def unpad3(g, pw):
    (b0, a0), (b1, a1), (b2, a2) = pw[0], pw[1], pw[2]
    return g[b0:g.shape[0] - a0, b1:g.shape[1] - a1, b2:g.shape[2] - a2].copy()


def pad_index(n, before, after, mode):
    """The entry of a length-n axis each position of np.pad's result reads in its index modes:
    1 'edge', 2 'wrap', 3 'reflect', 4 'symmetric' (NumPy's periodic extensions: 'reflect'
    mirrors about the end entries, 'symmetric' repeats them; a length-1 axis is its edge)."""
    idx = np.empty(n + before + after, np.int64)
    for i in range(idx.shape[0]):
        j = i - before
        if mode == 1 or (mode == 3 and n == 1):
            j = min(max(j, 0), n - 1)
        elif mode == 2:
            j = j % n
        elif mode == 3:
            j = j % (2 * n - 2)
            if j >= n:
                j = 2 * n - 2 - j
        else:
            j = j % (2 * n)
            if j >= n:
                j = 2 * n - 1 - j
        idx[i] = j
    return idx


def padix1(x, pw, mode):
    """np.pad(x, pw, mode) of a vector in an index mode (`pad_index`); pw: ((before, after),)."""
    return x[pad_index(x.shape[0], pw[0][0], pw[0][1], mode)]


def padix2(x, pw, mode):
    i0 = pad_index(x.shape[0], pw[0][0], pw[0][1], mode)
    i1 = pad_index(x.shape[1], pw[1][0], pw[1][1], mode)
    out = np.empty((i0.shape[0], i1.shape[0]), x.dtype)
    for i in range(i0.shape[0]):
        out[i] = x[i0[i]][i1]
    return out


def padix3(x, pw, mode):
    i0 = pad_index(x.shape[0], pw[0][0], pw[0][1], mode)
    i1 = pad_index(x.shape[1], pw[1][0], pw[1][1], mode)
    i2 = pad_index(x.shape[2], pw[2][0], pw[2][1], mode)
    out = np.empty((i0.shape[0], i1.shape[0], i2.shape[0]), x.dtype)
    for i in range(i0.shape[0]):
        for j in range(i1.shape[0]):
            out[i, j] = x[i0[i], i1[j]][i2]
    return out


def unpadix1(g, pw, mode):
    """The adjoint of `padix1`: each entry of g added into the entry it read."""
    n = g.shape[0] - pw[0][0] - pw[0][1]
    out = np.zeros(n, g.dtype)
    scatter_add(out, pad_index(n, pw[0][0], pw[0][1], mode), g)
    return out


def unpadix2(g, pw, mode):
    n0, n1 = g.shape[0] - pw[0][0] - pw[0][1], g.shape[1] - pw[1][0] - pw[1][1]
    i0, i1 = pad_index(n0, pw[0][0], pw[0][1], mode), pad_index(n1, pw[1][0], pw[1][1], mode)
    out = np.zeros((n0, n1), g.dtype)
    for i in range(g.shape[0]):
        scatter_add(out[i0[i]], i1, g[i])
    return out


def unpadix3(g, pw, mode):
    n0, n1 = g.shape[0] - pw[0][0] - pw[0][1], g.shape[1] - pw[1][0] - pw[1][1]
    n2 = g.shape[2] - pw[2][0] - pw[2][1]
    i0, i1 = pad_index(n0, pw[0][0], pw[0][1], mode), pad_index(n1, pw[1][0], pw[1][1], mode)
    i2 = pad_index(n2, pw[2][0], pw[2][1], mode)
    out = np.zeros((n0, n1, n2), g.dtype)
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            scatter_add(out[i0[i], i1[j]], i2, g[i, j])
    return out


def conv_window(n, m, mode):
    """(first index, length) of np.convolve's mode (0 full, 1 same, 2 valid) in the full
    convolution of lengths n and m."""
    lo, hi = min(n, m), max(n, m)
    if mode == 0:
        return 0, n + m - 1
    if mode == 1:
        return (lo - 1) // 2, hi
    return lo - 1, hi - lo + 1


def convolve(a, v, mode):
    """np.convolve(a, v, mode) of float vectors (mode: 0 full, 1 same, 2 valid)."""
    n, m = a.shape[0], v.shape[0]
    if n == 0 or m == 0:
        raise ValueError("np.convolve: an operand is empty")
    full = np.zeros(n + m - 1)
    for j in range(m):
        full[j:j + n] += a * v[j]
    lo, size = conv_window(n, m, mode)
    return full[lo:lo + size].copy()


def conv_adjoint(g, other, n, mode):
    """The adjoint of np.convolve(a, other, mode) in `a` (of length n): g put back in the full
    convolution, correlated with `other` (convolution is symmetric in its operands)."""
    m = other.shape[0]
    lo, size = conv_window(n, m, mode)
    full = np.zeros(n + m - 1)
    full[lo:lo + size] = g
    d = np.zeros(n)
    for j in range(m):
        d += full[j:j + n] * other[j]
    return d


def vander(x, N, increasing):
    """np.vander(x, N, increasing) of a vector (N -1: len(x)), by repeated products."""
    if N < -1:
        raise ValueError("negative dimensions are not allowed")
    cols = x.shape[0] if N == -1 else N
    out = np.empty((x.shape[0], cols))
    for i in range(x.shape[0]):
        p = 1.0
        for j in range(cols):
            out[i, j if increasing else cols - 1 - j] = p
            p *= x[i]
    return out


def vander_adjoint(x, w, increasing, order):
    """sum_j w[i, j] * (d/dx)^order x[i] ** p_j, with p_j the power of column j: np.vander's
    adjoint for order 1 (no 0 ** -1); its derivatives are the next orders (`vander_tangent`)."""
    cols = w.shape[1]
    d = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        for k in range(order, cols):
            c = 1.0     # k! / (k - order)! x ** (k - order)
            for m in range(order):
                c *= k - m
            for m in range(k - order):
                c *= x[i]
            d[i] += w[i, k if increasing else cols - 1 - k] * c
    return d


def repeat1(x, k):
    """np.repeat(x, k) of a vector, k >= 0."""
    if k < 0:
        raise ValueError("np.repeat: negative repeats")
    out = np.empty(x.shape[0] * k, x.dtype)
    for i in range(x.shape[0]):
        for j in range(k):
            out[i * k + j] = x[i]
    return out


def repeat2(x, k, axis):
    """np.repeat(x, k, axis) of a matrix (axis 0 or 1), k >= 0."""
    if k < 0:
        raise ValueError("np.repeat: negative repeats")
    n, m = x.shape
    out = np.empty((n * k, m) if axis == 0 else (n, m * k), x.dtype)
    for i in range(n):
        for j in range(m):
            for r in range(k):
                if axis == 0:
                    out[i * k + r, j] = x[i, j]
                else:
                    out[i, j * k + r] = x[i, j]
    return out


def repeat3(t, k):
    """np.repeat along the middle axis of an (outer, n, inner) array, k >= 0."""
    if k < 0:
        raise ValueError("np.repeat: negative repeats")
    out = np.empty((t.shape[0], t.shape[1] * k, t.shape[2]), t.dtype)
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            for r in range(k):
                out[i, j * k + r, :] = t[i, j, :]
    return out


def repeat_adjoint3(g, k):
    """The adjoint of `repeat3`: each run of k slices of g summed."""
    n = g.shape[1] // k if k else 0
    d = np.zeros((g.shape[0], n, g.shape[2]))
    for i in range(g.shape[0]):
        for j in range(n):
            for r in range(k):
                d[i, j, :] += g[i, j * k + r, :]
    return d


def trace3(t):
    """np.trace of an (n0, n1, inner) array: the sum of t[i, i, :] over i < min(n0, n1)."""
    out = np.zeros(t.shape[2], t.dtype)
    for i in range(min(t.shape[0], t.shape[1])):
        out += t[i, i, :]
    return out


def trace_adjoint3(g, n0, n1):
    """The adjoint of `trace3`: g on the first min(n0, n1) diagonal entries, zero elsewhere."""
    d = np.zeros((n0, n1, g.shape[0]))
    for i in range(min(n0, n1)):
        d[i, i, :] = g
    return d


def repeat_adjoint1(g, k):
    d = np.zeros(g.shape[0] // k if k else 0)
    for i in range(d.shape[0]):
        for j in range(k):
            d[i] += g[i * k + j]
    return d


def repeat_adjoint2(g, k, axis):
    n, m = (g.shape[0] // k, g.shape[1]) if axis == 0 else (g.shape[0], g.shape[1] // k)
    d = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            for r in range(k):
                d[i, j] += g[i * k + r, j] if axis == 0 else g[i, j * k + r]
    return d


def tile1(x, reps):
    """np.tile(x, r) of a vector; reps: (r,)."""
    n = x.shape[0]
    out = np.empty(n * reps[0], x.dtype)
    for r in range(reps[0]):
        out[r * n:(r + 1) * n] = x
    return out


def tile2(x, reps):
    """np.tile(x, (r0, r1)) of a matrix."""
    n, m = x.shape
    out = np.empty((n * reps[0], m * reps[1]), x.dtype)
    for a in range(reps[0]):
        for b in range(reps[1]):
            out[a * n:(a + 1) * n, b * m:(b + 1) * m] = x
    return out


def untile1(g, reps):
    n = g.shape[0] // reps[0]
    d = np.zeros(n)
    for r in range(reps[0]):
        d += g[r * n:(r + 1) * n]
    return d


def untile2(g, reps):
    n, m = g.shape[0] // reps[0], g.shape[1] // reps[1]
    d = np.zeros((n, m))
    for a in range(reps[0]):
        for b in range(reps[1]):
            d += g[a * n:(a + 1) * n, b * m:(b + 1) * m]
    return d


def roll_axis(x, shift, axis):
    """np.roll(x, shift, axis) (any rank)."""
    t = as3(x, axis)
    n = t.shape[1]
    out = np.empty_like(t)
    for k in range(n):
        out[:, (k + shift) % n, :] = t[:, k, :]
    return out.reshape(x.shape)


def fsum(x):
    """math.fsum of an array's entries: the correctly rounded sum, by Shewchuk's exact partials
    and CPython's final half-even correction (the same number as Python's); entries that are
    not all finite: their plain sum (inf or nan, where Python may raise)."""
    f = np.ascontiguousarray(x).ravel()
    if not np.all(np.isfinite(f)):
        return np.sum(f) * 1.0
    partials = np.empty(f.shape[0] + 1)   # non-overlapping, increasing magnitude
    m = 0
    for k in range(f.shape[0]):
        v = f[k] * 1.0
        i = 0
        for j in range(m):
            y = partials[j]
            if abs(v) < abs(y):
                v, y = y, v
            hi = v + y
            lo = y - (hi - v)
            if lo != 0.0:
                partials[i] = lo
                i += 1
            v = hi
        partials[i] = v
        m = i + 1
    if f.shape[0] == 0:
        return 0.0
    n = m - 1
    hi = partials[n]
    lo = 0.0
    while n > 0:
        v = hi
        y = partials[n - 1]
        n -= 1
        hi = v + y
        lo = y - (hi - v)
        if lo != 0.0:
            break
    if n > 0 and ((lo < 0.0 and partials[n - 1] < 0.0) or (lo > 0.0 and partials[n - 1] > 0.0)):
        y = lo * 2.0
        v = hi + y
        if y == v - hi:
            hi = v
    return hi


def flip_axis(x, axis):
    """np.flip(x, axis) as a new array (any rank)."""
    t = as3(x, axis)
    n = t.shape[1]
    out = np.empty_like(t)
    for k in range(n):
        out[:, k, :] = t[:, n - 1 - k, :]
    return out.reshape(x.shape)


def roll_flat(x, shift):
    """np.roll(x, shift) without an axis: the flattened array rolled, in x's shape."""
    f = np.ascontiguousarray(x).ravel()
    n = f.shape[0]
    out = np.empty_like(f)
    for k in range(n):
        out[(k + shift) % n] = f[k]
    return out.reshape(x.shape)


def kron_adjoint1(g, other, first):
    """The adjoint of np.kron(a, b) of vectors in a (first) or b."""
    n, m = (g.shape[0] // other.shape[0], other.shape[0]) if first else (other.shape[0], g.shape[0] // other.shape[0])
    g2 = np.ascontiguousarray(g).reshape((n, m))
    return g2 @ other if first else other @ g2


def kron_adjoint2(g, other, first):
    """The adjoint of np.kron(a, b) of matrices in a (first) or b:
    kron(a, b)[i * p + k, j * q + l] = a[i, j] * b[k, l]."""
    if first:
        p, q = other.shape
        n, m = g.shape[0] // p, g.shape[1] // q
    else:
        n, m = other.shape
        p, q = g.shape[0] // n, g.shape[1] // m
    d = np.zeros((n, m) if first else (p, q))
    for i in range(n):
        for j in range(m):
            for k in range(p):
                for l in range(q):
                    if first:
                        d[i, j] += g[i * p + k, j * q + l] * other[k, l]
                    else:
                        d[k, l] += g[i * p + k, j * q + l] * other[i, j]
    return d


def mesh(v, n, as_rows):
    """np.meshgrid's parts: v as each of n rows (as_rows) or as each of n columns."""
    out = np.empty((n, v.shape[0]) if as_rows else (v.shape[0], n), v.dtype)
    for i in range(v.shape[0]):
        for j in range(n):
            if as_rows:
                out[j, i] = v[i]
            else:
                out[i, j] = v[i]
    return out


def mesh_copies(v, n, as_rows):
    """mesh(v, n, as_rows) as the tangents of np.meshgrid call it: the primitive `mesh`
    (generated code read again differentiates through it; rt.mesh itself is also called by
    meshgrid's parts, with other arguments)."""
    return mesh(v, n, as_rows)


def gradient_lane(x, h, axis):
    """gradient_axis(x, h, axis) as the tangents of np.gradient call it: the primitive
    `gradient_lane` (read again as mesh_copies is)."""
    return gradient_axis(x, h, axis)


def mesh_adjoint(g, as_rows):
    """The adjoint of mesh(v, n, as_rows): g summed over the copies of v."""
    return np.sum(g, axis=0) if as_rows else np.sum(g, axis=1)


def cummax(x, axis):
    """np.maximum.accumulate(x, axis) (any rank)."""
    t = as3(x, axis)
    out = t.copy()
    for i in range(t.shape[0]):
        for k in range(1, t.shape[1]):
            for j in range(t.shape[2]):
                if out[i, k - 1, j] > out[i, k, j]:
                    out[i, k, j] = out[i, k - 1, j]
    return out.reshape(x.shape)


def log_add(a, b):
    """log(exp(a) + exp(b)) without overflow (-inf with -inf is -inf)."""
    if a < b:
        a, b = b, a
    if b == -np.inf:
        return a
    return a + np.log1p(np.exp(b - a))


def logcumsumexp(x, axis):
    """np.logaddexp.accumulate(x, axis) (any rank): y_k = log sum_{j <= k} exp(x_j)."""
    t = as3(x, axis)
    out = np.empty(t.shape)
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            run = t[i, 0, j]
            out[i, 0, j] = run
            for k in range(1, t.shape[1]):
                run = log_add(run, t[i, k, j])
                out[i, k, j] = run
    return out.reshape(x.shape)


def ratio_below(a, b):
    """exp(a - b) for a <= b (a log-sum's term over it), 0 where a is -inf."""
    return 0.0 if a == -np.inf else np.exp(a - b)


def logcumsumexp_adjoint(x, y, g, axis):
    """The adjoint of `logcumsumexp`: dx_k = sum_{i >= k} g_i exp(x_k - y_i), by the backward
    recursion r_k = g_k + exp(y_k - y_{k+1}) r_{k+1}, dx_k = exp(x_k - y_k) r_k (every factor
    at most 1: no overflow)."""
    xt, yt, gt = as3(x, axis), as3(y, axis), as3(g, axis)
    d = np.zeros(xt.shape)
    n = xt.shape[1]
    for i in range(xt.shape[0]):
        for j in range(xt.shape[2]):
            r = 0.0
            for k in range(n - 1, -1, -1):
                r = gt[i, k, j] + (ratio_below(yt[i, k, j], yt[i, k + 1, j]) * r if k + 1 < n else 0.0)
                d[i, k, j] = ratio_below(xt[i, k, j], yt[i, k, j]) * r
    return d.reshape(x.shape)


def logcumsumexp_tangent(x, y, t, axis):
    """The tangent of `logcumsumexp`: dy_k = sum_{j <= k} exp(x_j - y_k) t_j, by the forward
    recursion q_k = exp(y_{k-1} - y_k) q_{k-1} + exp(x_k - y_k) t_k."""
    xt, yt, tt = as3(x, axis), as3(y, axis), as3(t, axis)
    d = np.zeros(xt.shape)
    for i in range(xt.shape[0]):
        for j in range(xt.shape[2]):
            q = 0.0
            for k in range(xt.shape[1]):
                q = (ratio_below(yt[i, k - 1, j], yt[i, k, j]) * q if k > 0 else 0.0) \
                    + ratio_below(xt[i, k, j], yt[i, k, j]) * tt[i, k, j]
                d[i, k, j] = q
    return d.reshape(x.shape)


def cummax_positions(x, axis):
    """For each entry of `as3(x, axis)`, the position along the axis of the running maximum
    up to it (the first entry attaining it)."""
    t = as3(x, axis)
    pos = np.empty(t.shape, np.int64)
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            at = 0
            for k in range(t.shape[1]):
                if t[i, k, j] > t[i, at, j]:
                    at = k
                pos[i, k, j] = at
    return pos


def lane_gather(t, axis, pos):
    """out[i, k, j] = t[i, pos[i, k, j], j] over `as3(t, axis)`, in t's shape (the tangent
    of a result whose entries are operand entries at `pos` along the axis)."""
    tt = as3(t, axis)
    out = np.empty(tt.shape)
    for i in range(tt.shape[0]):
        for j in range(tt.shape[2]):
            for k in range(tt.shape[1]):
                out[i, k, j] = tt[i, pos[i, k, j], j]
    return out.reshape(t.shape)


def lane_scatter(g, axis, pos):
    """The transpose of `lane_gather`: d[i, pos[i, k, j], j] += g[i, k, j] (the adjoint)."""
    gt = as3(g, axis)
    d = np.zeros(gt.shape)
    for i in range(gt.shape[0]):
        for j in range(gt.shape[2]):
            for k in range(gt.shape[1]):
                d[i, pos[i, k, j], j] += gt[i, k, j]
    return d.reshape(g.shape)


def cummax_adjoint(x, g, axis):
    """The adjoint of np.maximum.accumulate(x, axis): each entry's cotangent goes to the
    position of the running maximum (the first entry attaining it)."""
    return lane_scatter(g, axis, cummax_positions(x, axis))


def eigh_w_adjoint(x, g):
    """The adjoint of the eigenvalues of a symmetric matrix: V diag(g) V^T along symmetric
    perturbations, folded onto the lower triangle eigh reads (`sym_lower_adjoint`)."""
    w, v = np.linalg.eigh(x)
    return sym_lower_adjoint((v * g) @ v.T)


def eigh_v_adjoint(x, g):
    """The adjoint of the eigenvectors of a symmetric matrix with distinct eigenvalues:
    V (F o (V^T g)) V^T with F[i, j] = 1 / (w[j] - w[i]) off the diagonal, made symmetric
    (the derivative along symmetric perturbations), folded onto the lower triangle eigh reads
    (`sym_lower_adjoint`)."""
    w, v = np.linalg.eigh(x)
    n = w.shape[0]
    m = v.T @ g
    for i in range(n):
        for j in range(n):
            m[i, j] = 0.0 if i == j else m[i, j] / (w[j] - w[i])
    d = v @ m @ v.T
    return sym_lower_adjoint(0.5 * (d + d.T))


def qr_adjoint(x, gq, gr):
    """The adjoint of the reduced QR decomposition of a square or tall full-rank matrix
    (Walter & Lehmann 2018; Seeger et al. 2017): with M = R gR^T - gQ^T Q and copyltu(M) its
    lower triangle mirrored, A_bar = (gQ + Q copyltu(M)) R^-T."""
    if x.shape[0] < x.shape[1]:
        raise ValueError("jitad differentiates np.linalg.qr of square or tall matrices only")
    q, r = np.linalg.qr(x)
    m = r @ gr.T - gq.T @ q
    n = m.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            m[i, j] = m[j, i]
    b = gq + q @ m
    return np.linalg.solve(r, np.ascontiguousarray(b.T)).T


def ndtr1(z):
    """The standard normal CDF of a scalar, by erfc in both tails (no cancellation)."""
    if z < 0.0:
        return 0.5 * math.erfc(-z * 0.7071067811865476)
    return 1.0 - 0.5 * math.erfc(z * 0.7071067811865476)


def log_ndtr1(z):
    """log of the standard normal CDF of a scalar: log(erfc) in the lower tail, its asymptotic
    series below -20 (where erfc underflows), log1p in the upper tail."""
    if z < -20.0:
        s = 1.0 / (z * z)
        series = 1.0 - s * (1.0 - s * (3.0 - s * (15.0 - s * (105.0 - s * 945.0))))
        return -0.5 * z * z - math.log(-z) - 0.9189385332046727 + math.log(series)
    if z < 0.0:
        return math.log(0.5 * math.erfc(-z * 0.7071067811865476))
    return math.log1p(-0.5 * math.erfc(z * 0.7071067811865476))


def ndtr(x):
    """ndtr1 elementwise."""
    if isinstance(x, (int, float)):
        return ndtr1(x)
    f = np.ascontiguousarray(x).ravel()
    out = np.empty(f.shape[0])
    for k in range(f.shape[0]):
        out[k] = ndtr1(f[k])
    return out.reshape(x.shape)


def log_ndtr(x):
    """log_ndtr1 elementwise."""
    if isinstance(x, (int, float)):
        return log_ndtr1(x)
    f = np.ascontiguousarray(x).ravel()
    out = np.empty(f.shape[0])
    for k in range(f.shape[0]):
        out[k] = log_ndtr1(f[k])
    return out.reshape(x.shape)


def _einsum_strides(x, letters, dims):
    """Per letter, the step in x's flat (C-order) buffer; ValueError if an axis's length is
    not its letter's size. Letters < 0 mark a stand-in operand (np.ones(1)): no steps."""
    st = np.zeros(len(dims), np.int64)
    step = 1
    for k in range(len(letters) - 1, -1, -1):
        L = letters[k]
        if L >= 0:
            if x.shape[k] != dims[L]:
                raise ValueError("np.einsum: an operand's shape does not match the subscripts")
            st[L] += step
            step *= x.shape[k]
    return st


def _einsum_loop(dims, lo, a, la, b, lb, c, lc):
    """einsum_core as one loop over every letter's range (an odometer), the offsets of each
    operand and of the output moved by their strides."""
    n = len(dims)
    so = np.zeros(n, np.int64)
    step = 1
    for k in range(len(lo) - 1, -1, -1):
        if lo[k] >= 0:
            so[lo[k]] += step
            step *= dims[lo[k]]
    out = np.zeros(step)
    sa, sb, sc = _einsum_strides(a, la, dims), _einsum_strides(b, lb, dims), _einsum_strides(c, lc, dims)
    fa, fb, fc = np.ascontiguousarray(a).ravel(), np.ascontiguousarray(b).ravel(), np.ascontiguousarray(c).ravel()
    total = 1
    for L in range(n):
        total *= dims[L]
    idx = np.zeros(n, np.int64)
    oa = ob = oc = oo = 0
    for _ in range(total):
        out[oo] += fa[oa] * fb[ob] * fc[oc]
        L = n - 1
        while L >= 0:
            idx[L] += 1
            oa += sa[L]
            ob += sb[L]
            oc += sc[L]
            oo += so[L]
            if idx[L] < dims[L]:
                break
            oa -= sa[L] * dims[L]
            ob -= sb[L] * dims[L]
            oc -= sc[L] * dims[L]
            oo -= so[L] * dims[L]
            idx[L] = 0
            L -= 1
    return out


def einsum_core(dims, lo, a, la, b, lb, c, lc):
    """The summation of up to three operands (each with its letter tuple; a stand-in is
    np.ones(1) with (-1,)) into the letters `lo` ((-1,) for a scalar), as a flat float array;
    `dims` gives each letter's size. An output letter may repeat (written on the diagonal,
    zero elsewhere) or be in no operand (constant along it): what adjoints need.
    Compiled: `_einsum_loop`; here np.einsum where it can."""
    ops = [(x, l) for x, l in ((a, la), (b, lb), (c, lc)) if l[0] >= 0]
    out = [L for L in lo if L >= 0]
    present = {L for _, l in ops for L in l}
    if ops and len(set(out)) == len(out) and all(L in present for L in out):
        args = []
        for x, l in ops:
            for k, L in enumerate(l):
                if x.shape[k] != dims[L]:
                    raise ValueError("np.einsum: an operand's shape does not match the "
                                     "subscripts")
            args += [x, list(l)]
        return np.ascontiguousarray(np.einsum(*args, out), dtype=np.float64).ravel()
    return _einsum_loop(dims, lo, a, la, b, lb, c, lc)


# -- issue 12, autograd's scipy.special: scalar kernels (`*1`) and their elementwise versions.
# A helper of two operands takes them already broadcast to one shape (the table's templates
# pass `a + 0.0 * b`), so it only loops.

def gamma1(x):
    """scipy.special.gamma of a scalar: inf at 0 (-inf at -0.0), nan at the negative
    integers, inf past the overflow (math.gamma raises in Python there)."""
    if x == math.floor(x) and x <= 0.0:
        if x == 0.0:
            return math.copysign(math.inf, x)
        return math.nan
    if x > 171.7:
        return math.inf
    return math.gamma(x)


def rgamma1(x):
    """1 / gamma(x): 0 at the poles and where gamma overflows."""
    if x == math.floor(x) and x <= 0.0:
        return 0.0
    if x > 171.7:
        return 0.0
    return 1.0 / math.gamma(x)


def rgamma_deriv1(x):
    """d/dx 1/gamma(x) = -digamma(x) / gamma(x); (-1)^n n! at the pole x = -n."""
    if x == math.floor(x) and x <= 0.0:
        n = int(-x)
        f = 1.0
        for k in range(2, n + 1):
            f *= k
        return f if n % 2 == 0 else -f
    return -digamma1(x) * rgamma1(x)


def stirling_corr(x):
    """lgamma(x) - ((x - 0.5) log x - x + log(2 pi) / 2) for x >= 10 (error < 1e-16)."""
    f = 1.0 / (x * x)
    return (1.0 / x) * (1.0 / 12 - f * (1.0 / 360 - f * (1.0 / 1260 - f * (
        1.0 / 1680 - f * (1.0 / 1188 - f * (691.0 / 360360 - f * (1.0 / 156)))))))


def betaln1(a, b):
    """log|B(a, b)|; for large arguments by Stirling differences (no cancellation between
    lgamma(a + b) and the others)."""
    lo, hi = min(a, b), max(a, b)
    if lo >= 10.0:
        return (-lo * math.log1p(hi / lo) - (hi - 0.5) * math.log1p(lo / hi)
                - 0.5 * math.log(lo) + 0.9189385332046727 + stirling_corr(lo)
                + stirling_corr(hi) - stirling_corr(lo + hi))
    if hi >= 10.0 and lo > 0.0:
        return (math.lgamma(lo) - (hi - 0.5) * math.log1p(lo / hi) - lo * math.log(lo + hi)
                + lo + stirling_corr(hi) - stirling_corr(lo + hi))
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def gamma_sign(x):
    if x > 0.0 or x == math.floor(x):
        return 1.0
    return -1.0 if int(math.floor(x)) % 2 != 0 else 1.0


def beta1(a, b):
    """B(a, b) = gamma(a) gamma(b) / gamma(a + b); inf where a or b is a pole and a + b is not."""
    if a > 0.0 and b > 0.0:
        return math.exp(betaln1(a, b))
    pa = a == math.floor(a) and a <= 0.0
    pb = b == math.floor(b) and b <= 0.0
    s = a + b
    if pa or pb:
        if s == math.floor(s) and s <= 0.0:
            return math.nan
        return math.inf
    if s == math.floor(s) and s <= 0.0:
        return 0.0
    return (gamma_sign(a) * gamma_sign(b) * gamma_sign(s)
            * math.exp(math.lgamma(a) + math.lgamma(b) - math.lgamma(s)))


def hurwitz_polygamma(n, x):
    """polygamma(n, x) for n >= 1: the recurrence up to x >= 2n + 20, then the asymptotic
    series (-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1)) + sum B_2k (2k+n-1)!/((2k)! x^(2k+n))]."""
    fact = 1.0                      # n!
    for k in range(2, n + 1):
        fact *= k
    sign = 1.0 if n % 2 == 1 else -1.0      # (-1)^(n+1)
    acc = 0.0
    lim = 2.0 * n + 20.0
    while x < lim:
        acc += 1.0 / x ** (n + 1)
        x += 1.0
    # sum over k of B_2k / (2k)! * (2k+n-1)! / x^(2k+n), built term by term
    b2k = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6,
           -3617.0 / 510, 43867.0 / 798, -174611.0 / 330)
    s = fact / n / x ** n + 0.5 * fact / x ** (n + 1)
    # t_k = (2k+n-1)! / ((2k)! x^(2k+n)), from t_1 = (n+1)! / (2 x^(n+2))
    t = fact * (n + 1) / (2.0 * x ** (n + 2))
    for k in range(1, 11):
        s += b2k[k - 1] * t
        t *= (2 * k + n) * (2 * k + n + 1) / ((2 * k + 1) * (2 * k + 2) * x * x)
    return sign * (s + fact * acc)


def polygamma1(n, x):
    """The n-th derivative of digamma at a scalar x (n >= 0; nan at the poles)."""
    if n < 0:
        return math.nan
    if n == 0:
        return digamma1(x)
    x = float(x)
    if x <= 0.0 and x == math.floor(x):
        return math.inf if n % 2 == 1 else math.nan
    return hurwitz_polygamma(n, x)


def erf_halley(y, x):
    """x with erf(x) = y, by Halley steps from x (|y| < 0.5: no cancellation in erf(x) - y)."""
    for _ in range(50):
        f = math.erf(x) - y
        d = 1.1283791670955126 * math.exp(-x * x)
        u = f / d
        step = u / (1.0 + x * u)
        x -= step
        if abs(step) <= 1e-16 * abs(x):
            break
    return x


def erfcinv1(z):
    """x with erfc(x) = z, 0 < z < 2 (inf at 0, -inf at 2, nan outside): Halley steps on
    erfc(x) - z for z < 0.5 (erfc is accurate relative to its small value), on erf otherwise."""
    if not 0.0 < z < 2.0:
        if z == 0.0:
            return math.inf
        if z == 2.0:
            return -math.inf
        return math.nan
    sign = 1.0
    if z > 1.0:         # erfcinv(z) = -erfcinv(2 - z); 2 - z is exact there
        sign = -1.0
        z = 2.0 - z
    if z >= 0.5:
        y = 1.0 - z
        return sign * erf_halley(y, 0.886226925452758 * y * (1.0 + 0.2617993877991494 * y * y))
    t = math.sqrt(-math.log(z))
    x = math.sqrt(max(-math.log(z * 1.772453850905516 * t), 0.25))
    for _ in range(100):
        f = math.erfc(x) - z
        d = -1.1283791670955126 * math.exp(-x * x)
        if d == 0.0:
            break
        u = f / d
        step = u / (1.0 + x * u)
        x -= step
        if abs(step) <= 1e-16 * abs(x):
            break
    return sign * x


def erfinv1(y):
    """x with erf(x) = y, -1 < y < 1 (+-inf at +-1, nan outside)."""
    if not -1.0 < y < 1.0:
        if y == 1.0:
            return math.inf
        if y == -1.0:
            return -math.inf
        return math.nan
    if abs(y) < 0.5:
        return erf_halley(y, 0.886226925452758 * y * (1.0 + 0.2617993877991494 * y * y))
    x = erfcinv1(1.0 - abs(y))
    return x if y > 0.0 else -x


def bessel_i_series(x, nu):
    """I_nu(x) for nu in (0, 1) by its power series (positive terms: accurate for |x| <= 20)."""
    q = 0.25 * x * x
    term = 1.0 if nu == 0 else 0.5 * x
    s = term
    k = 0
    while True:
        k += 1
        term *= q / (k * (k + nu))
        s += term
        if abs(term) <= 1e-17 * abs(s):
            break
    return s


def bessel_ie_asym(ax, nu):
    """e^-x I_nu(x) for x > 20 by the asymptotic series in 1/x (terms until they stop
    shrinking: the smallest is about e^-2x)."""
    mu = 4.0 * nu * nu
    term = 1.0
    s = 1.0
    for k in range(1, 60):
        nxt = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * ax)
        if abs(nxt) >= abs(term):
            break
        term = nxt
        s += term
        if abs(term) <= 1e-17 * abs(s):
            break
    return s / math.sqrt(6.283185307179586 * ax)


def i0e1(x):
    """exp(-|x|) I_0(x)."""
    ax = abs(x)
    if ax <= 20.0:
        return bessel_i_series(ax, 0) * math.exp(-ax)
    return bessel_ie_asym(ax, 0)


def i1e1(x):
    """exp(-|x|) I_1(x) (odd)."""
    ax = abs(x)
    if ax <= 20.0:
        v = bessel_i_series(ax, 1) * math.exp(-ax)
    else:
        v = bessel_ie_asym(ax, 1)
    return v if x >= 0.0 else -v


def i01(x):
    """The modified Bessel function I_0 (inf past overflow)."""
    ax = abs(x)
    if ax <= 20.0:
        return bessel_i_series(ax, 0)
    if ax > 713.0:
        return math.inf
    return bessel_ie_asym(ax, 0) * math.exp(ax)


def i11(x):
    """The modified Bessel function I_1 (odd)."""
    ax = abs(x)
    if ax <= 20.0:
        v = bessel_i_series(ax, 1)
    elif ax > 713.0:
        v = math.inf
    else:
        v = bessel_ie_asym(ax, 1) * math.exp(ax)
    return v if x >= 0.0 else -v


def entr1(x):
    """-x log x (0 at 0, -inf below)."""
    if x > 0.0:
        return -x * math.log(x)
    if x == 0.0:
        return 0.0
    return -math.inf if x < 0.0 else math.nan


def rel_entr1(x, y):
    """x log(x / y) for x, y > 0; 0 at x = 0 <= y; inf otherwise."""
    if x > 0.0 and y > 0.0:
        return x * math.log(x / y)
    if x == 0.0 and y >= 0.0:
        return 0.0
    if x != x or y != y:
        return math.nan
    return math.inf


def kl_div1(x, y):
    """x log(x / y) - x + y for x, y > 0; y at x = 0 <= y; inf otherwise."""
    if x > 0.0 and y > 0.0:
        return x * math.log(x / y) - x + y
    if x == 0.0 and y >= 0.0:
        return y
    if x != x or y != y:
        return math.nan
    return math.inf


def log_step1(z):
    """0 where z >= 0, -inf where z < 0 (a log-density's support, added to it)."""
    return 0.0 if z >= 0.0 else -math.inf


def log_count1(k):
    """0 where k is a non-negative integer, -inf elsewhere (a pmf's support)."""
    return 0.0 if k >= 0.0 and k == math.floor(k) else -math.inf


def gamma(x):
    """gamma1 elementwise."""
    if isinstance(x, (int, float)):
        return gamma1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = gamma1(v[k])
    return out.reshape(x.shape)

def rgamma(x):
    """rgamma1 elementwise."""
    if isinstance(x, (int, float)):
        return rgamma1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = rgamma1(v[k])
    return out.reshape(x.shape)

def rgamma_deriv(x):
    """rgamma_deriv1 elementwise."""
    if isinstance(x, (int, float)):
        return rgamma_deriv1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = rgamma_deriv1(v[k])
    return out.reshape(x.shape)

def erfinv(x):
    """erfinv1 elementwise."""
    if isinstance(x, (int, float)):
        return erfinv1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = erfinv1(v[k])
    return out.reshape(x.shape)

def erfcinv(x):
    """erfcinv1 elementwise."""
    if isinstance(x, (int, float)):
        return erfcinv1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = erfcinv1(v[k])
    return out.reshape(x.shape)

def i0(x):
    """i01 elementwise."""
    if isinstance(x, (int, float)):
        return i01(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = i01(v[k])
    return out.reshape(x.shape)

def i1(x):
    """i11 elementwise."""
    if isinstance(x, (int, float)):
        return i11(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = i11(v[k])
    return out.reshape(x.shape)

def i0e(x):
    """i0e1 elementwise."""
    if isinstance(x, (int, float)):
        return i0e1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = i0e1(v[k])
    return out.reshape(x.shape)

def i1e(x):
    """i1e1 elementwise."""
    if isinstance(x, (int, float)):
        return i1e1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = i1e1(v[k])
    return out.reshape(x.shape)

def entr(x):
    """entr1 elementwise."""
    if isinstance(x, (int, float)):
        return entr1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = entr1(v[k])
    return out.reshape(x.shape)

def log_step(x):
    """log_step1 elementwise."""
    if isinstance(x, (int, float)):
        return log_step1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = log_step1(v[k])
    return out.reshape(x.shape)

def log_count(x):
    """log_count1 elementwise."""
    if isinstance(x, (int, float)):
        return log_count1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = log_count1(v[k])
    return out.reshape(x.shape)

def beta(a, b):
    """beta1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return beta1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = beta1(u[k], v[k])
    return out.reshape(a.shape)

def betaln(a, b):
    """betaln1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return betaln1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = betaln1(u[k], v[k])
    return out.reshape(a.shape)

def rel_entr(a, b):
    """rel_entr1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return rel_entr1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = rel_entr1(u[k], v[k])
    return out.reshape(a.shape)

def kl_div(a, b):
    """kl_div1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return kl_div1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = kl_div1(u[k], v[k])
    return out.reshape(a.shape)

def polygamma(n, x):
    """polygamma1(n, .) elementwise (n one integer)."""
    if isinstance(x, (int, float)):
        return polygamma1(n, x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = polygamma1(n, v[k])
    return out.reshape(x.shape)


__all__ += ['gamma1', 'rgamma1', 'rgamma_deriv1', 'erfinv1', 'erfcinv1', 'i01', 'i11', 'i0e1', 'i1e1', 'entr1', 'log_step1', 'log_count1', 'beta1', 'betaln1', 'rel_entr1', 'kl_div1', 'gamma', 'rgamma', 'rgamma_deriv', 'erfinv', 'erfcinv', 'i0', 'i1', 'i0e', 'i1e', 'entr', 'log_step', 'log_count', 'beta', 'betaln', 'rel_entr', 'kl_div', 'polygamma1', 'polygamma', 'stirling_corr', 'gamma_sign', 'hurwitz_polygamma', 'erf_halley', 'bessel_i_series', 'bessel_ie_asym']


# -- issue 12, autograd's NumPy functions: flips, sorting, broadcasting, np.gradient, and the
# adjoints of np.linalg.pinv and np.linalg.svd

def fliplr(x):
    """np.fliplr(x) as a new array."""
    return x[:, ::-1].copy()


def flipud(x):
    """np.flipud(x) as a new array."""
    return x[::-1].copy()


def rot90(x, k):
    """np.rot90(x, k) of a matrix (k taken mod 4)."""
    k = k % 4
    m, n = x.shape
    if k == 0:
        return x.copy()
    if k == 2:
        out = np.empty((m, n), x.dtype)
        for i in range(m):
            for j in range(n):
                out[i, j] = x[m - 1 - i, n - 1 - j]
        return out
    out = np.empty((n, m), x.dtype)
    for i in range(n):
        for j in range(m):
            if k == 1:
                out[i, j] = x[j, n - 1 - i]
            else:
                out[i, j] = x[m - 1 - j, i]
    return out


def nan_to_num1(v):
    if v != v:
        return 0.0
    if v == math.inf:
        return 1.7976931348623157e308
    if v == -math.inf:
        return -1.7976931348623157e308
    return v


def nan_to_num(x):
    """np.nan_to_num(x): nan -> 0, +-inf -> the largest finite floats."""
    if isinstance(x, (int, float)):
        return nan_to_num1(float(x))
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = nan_to_num1(v[k])
    return out.reshape(x.shape)


def sort_axis(x, axis):
    """np.sort(x, axis) (any rank >= 1), through a stable argsort of each lane."""
    t = as3(x, axis)
    out = np.empty(t.shape, t.dtype)
    buf = np.empty(t.shape[1], t.dtype)
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            for k in range(t.shape[1]):
                buf[k] = t[i, k, j]
            perm = np.argsort(buf, kind="mergesort")
            for k in range(t.shape[1]):
                out[i, k, j] = buf[perm[k]]
    return out.reshape(x.shape)


def sort_perms(x, axis):
    """Each lane's stable argsort along `axis`, as perms[i, k, j] over `as3(x, axis)`: the
    position of the lane's k-th smallest entry (ties: in NumPy's stable order)."""
    t = as3(x, axis)
    perms = np.empty(t.shape, np.int64)
    buf = np.empty(t.shape[1], t.dtype)
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            for k in range(t.shape[1]):
                buf[k] = t[i, k, j]
            order = np.argsort(buf, kind="mergesort")
            for k in range(t.shape[1]):
                perms[i, k, j] = order[k]
    return perms


def take_along(x, idx, axis):
    """np.take_along_axis(x, idx, axis): out[i, k, j] = x[i, idx[i, k, j], j] over `as3`
    (idx of x's rank and lengths but along `axis`; a negative index counts from the end, one
    out of range an IndexError, as NumPy's)."""
    xt, it = as3(x, axis), as3(idx, axis)
    if xt.shape[0] != it.shape[0] or xt.shape[2] != it.shape[2]:
        raise ValueError("take_along_axis: the index's shape differs from the array's off the axis")
    n = xt.shape[1]
    out = np.empty(it.shape, x.dtype)
    for i in range(it.shape[0]):
        for j in range(it.shape[2]):
            for k in range(it.shape[1]):
                p = it[i, k, j]
                if p < 0:
                    p += n
                if p < 0 or p >= n:
                    raise IndexError("take_along_axis: an index is out of bounds")
                out[i, k, j] = xt[i, p, j]
    return out.reshape(idx.shape)


def take_along_adjoint(x, idx, g, axis):
    """The adjoint of take_along(x, idx, axis): g's entries added back where they were read."""
    it, gt = as3(idx, axis), as3(g, axis)
    xt = as3(x, axis)
    n = xt.shape[1]
    d = np.zeros(xt.shape)
    for i in range(it.shape[0]):
        for j in range(it.shape[2]):
            for k in range(it.shape[1]):
                p = it[i, k, j]
                d[i, p + n if p < 0 else p, j] += gt[i, k, j]
    return d.reshape(x.shape)


def argsort_axis(x, axis):
    """np.argsort(x, axis=axis): each lane's order (stable: ties in their order)."""
    return sort_perms(x, axis).reshape(x.shape)


def sort_adjoint(x, g, axis):
    """The adjoint of np.sort(x, axis): g's k-th entry of each lane goes back to the entry
    the stable argsort put k-th."""
    return lane_scatter(g, axis, sort_perms(x, axis))


def gradient1(x):
    """np.gradient of a vector: central differences inside, one-sided at the two ends."""
    n = x.shape[0]
    if n < 2:
        raise ValueError("np.gradient needs at least 2 entries")
    out = np.empty(n)
    out[0] = x[1] - x[0]
    out[n - 1] = x[n - 1] - x[n - 2]
    for i in range(1, n - 1):
        out[i] = 0.5 * (x[i + 1] - x[i - 1])
    return out


def gradient1_adjoint(g):
    """The transpose of gradient1."""
    n = g.shape[0]
    d = np.zeros(n)
    d[1] += g[0]
    d[0] -= g[0]
    d[n - 1] += g[n - 1]
    d[n - 2] -= g[n - 1]
    for i in range(1, n - 1):
        d[i + 1] += 0.5 * g[i]
        d[i - 1] -= 0.5 * g[i]
    return d


def broadcast_index(k, out_shape, x_shape, lead):
    """The flat index in x (C order) of the entry flat index k of its broadcast to out_shape
    (x's axes are the last ones; an axis of length 1 repeats)."""
    src = 0
    stride = 1
    for a in range(len(out_shape) - 1, -1, -1):
        i = k % out_shape[a]
        k //= out_shape[a]
        b = a - lead
        if b >= 0:
            if x_shape[b] != 1:
                src += i * stride
            stride *= x_shape[b]
    return src


def broadcast_to(x, shape):
    """np.broadcast_to(x, shape) as a new array (ValueError where NumPy raises)."""
    if isinstance(x, (int, float)):
        return np.full(shape, x)
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ValueError("np.broadcast_to: the shape has fewer axes than the array")
    for b in range(x.ndim):
        if x.shape[b] != 1 and x.shape[b] != shape[b + lead]:
            raise ValueError("np.broadcast_to: the array does not broadcast to that shape")
    out = np.empty(shape, x.dtype)
    flat = out.reshape(out.size)
    src = np.ascontiguousarray(x).ravel()
    for k in range(flat.shape[0]):
        flat[k] = src[broadcast_index(k, out.shape, x.shape, lead)]
    return out


def unbroadcast(g, x):
    """The adjoint of broadcast_to(x, g.shape): g summed back onto x's shape."""
    if isinstance(x, (int, float)):
        return np.sum(g)
    lead = g.ndim - x.ndim
    d = np.zeros(x.size)
    gf = np.ascontiguousarray(g).ravel()
    for k in range(gf.shape[0]):
        d[broadcast_index(k, g.shape, x.shape, lead)] += gf[k]
    return d.reshape(x.shape)


def pinv_adjoint(a, x, g):
    """The adjoint of X = np.linalg.pinv(A) for a full-rank A (Golub & Pereyra's derivative at
    constant rank): -X^T G X^T + (I - A X) G^T X X^T + X^T X G^T (I - X A); ValueError if A is
    not of full rank (the pseudo-inverse jumps there)."""
    pinv_full_rank(a, x)
    m, n = a.shape
    gt = np.ascontiguousarray(g.T)
    ax = a @ x
    xa2 = x @ a
    out = -(x.T @ g @ x.T)
    out += (np.eye(m) - ax) @ gt @ (x @ x.T)
    out += (x.T @ x) @ gt @ (np.eye(n) - xa2)
    return out


def svd_u(x, full):
    """U of np.linalg.svd(x, full_matrices=full). The full U of a tall matrix is the reduced U
    (the one the adjoint recomputes) followed by NumPy's columns past min(m, n): an orthonormal
    basis of the complement, arbitrary, so no gradient may flow through them (`svd_u_adjoint`)."""
    xc = np.ascontiguousarray(x)
    u = np.linalg.svd(xc, False)[0]
    if full and x.shape[0] > x.shape[1]:
        return np.concatenate((u, np.linalg.svd(xc, True)[0][:, x.shape[1]:]), axis=1)
    return u


def svd_s(x):
    return np.linalg.svd(np.ascontiguousarray(x), False)[1]


def svd_vh(x, full):
    """Vh of np.linalg.svd(x, full_matrices=full); of a wide matrix, the reduced Vh followed by
    NumPy's rows past min(m, n) (arbitrary, as in `svd_u`)."""
    xc = np.ascontiguousarray(x)
    vh = np.linalg.svd(xc, False)[2]
    if full and x.shape[1] > x.shape[0]:
        return np.concatenate((vh, np.linalg.svd(xc, True)[2][x.shape[0]:, :]), axis=0)
    return vh


def svd_free_part(g, extra, what):
    """Refuses a cotangent on the arbitrary part of a full U (columns) or Vh (rows)."""
    for v in extra.ravel():
        if v != 0.0:
            raise ValueError("np.linalg.svd(A) with full_matrices=True (the default): the "
                             + what + " past min(m, n) are arbitrary, no gradient determines "
                             "them; read only the first min(m, n) or pass full_matrices=False")
    return g


def svd_adjoint(x, gu, gs, gvh):
    """The adjoint of the reduced SVD A = U diag(s) Vh (distinct nonzero singular values;
    Townsend 2016): U [(F o (U^T gU - gU^T U)) S + diag(gs) + S (F o (V^T gV - gV^T V))] V^T
    + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T), F[i, j] = 1 / (s_j^2 - s_i^2)."""
    u, s, vh = np.linalg.svd(np.ascontiguousarray(x), False)
    m, n = x.shape
    k = s.shape[0]
    v = np.ascontiguousarray(vh.T)
    gv = np.ascontiguousarray(gvh.T)
    j = u.T @ gu
    kk = v.T @ gv
    inner = np.zeros((k, k))
    for a in range(k):
        for b in range(k):
            if a == b:
                inner[a, b] = gs[a]
            else:
                f = 1.0 / (s[b] * s[b] - s[a] * s[a])
                inner[a, b] = (f * (j[a, b] - j[b, a]) * s[b]
                               + s[a] * f * (kk[a, b] - kk[b, a]))
    out = u @ inner @ vh
    if m > k:
        out += ((gu - u @ j) / s) @ vh
    if n > k:
        out += (u / s) @ (gv - v @ kk).T
    return out


def svd_mix(x, w):
    """U diag(w) Vh of the reduced SVD of x: the derivative of sum_k w_k s_k (the matrix
    norms by singular values)."""
    u, _, vh = np.linalg.svd(np.ascontiguousarray(x), False)
    return np.ascontiguousarray(u * w) @ np.ascontiguousarray(vh)


def svd_mix_tangent(x, w, t):
    """The derivative of `svd_mix(x, w)` along t, w held (the Hessian of sum_k w_k s_k, so
    self-adjoint: also the adjoint of svd_mix in x). With P = U^T t V, the in-subspace part
    U C Vh has C[i, i] = 0 and, off the diagonal, C[i, j] = a_ij P_ij + b_ij P_ji with
    a_ij = (s_j w_j - s_i w_i) / (s_j^2 - s_i^2) and b_ij = (s_i w_j - s_j w_i) / (s_j^2 - s_i^2):
    where w_i == w_j these are w / (s_i + s_j) and -w / (s_i + s_j), exact at tied singular
    values (the nuclear norm, the tied top values of the 2-norm); the rest is
    (I - U U^T) t V (w / s) Vh + U (w / s) U^T t (I - V V^T). A singular value that is zero to
    rounding (at most max(m, n) eps s_max, as np.linalg.matrix_rank reads) has w / s taken as
    0: the derivative along the matrices of x's rank (the nuclear norm of a low-rank product
    U V^T, whose zero singular values stay zero), as the first derivative takes its subgradient."""
    u, s, vh = np.linalg.svd(np.ascontiguousarray(x), False)
    m, n = x.shape
    k = s.shape[0]
    v = np.ascontiguousarray(vh.T)
    tv = t @ v
    p = u.T @ tv
    tol = s[0] * max(m, n) * 2.220446049250313e-16
    ws = np.zeros(k)
    for i in range(k):
        if s[i] > tol:
            ws[i] = w[i] / s[i]
    c = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i != j:
                if w[i] == w[j]:
                    den = s[i] + s[j]
                    if den > tol:
                        c[i, j] = w[i] * (p[i, j] - p[j, i]) / den
                else:
                    f = 1.0 / (s[j] * s[j] - s[i] * s[i])
                    c[i, j] = f * ((s[j] * w[j] - s[i] * w[i]) * p[i, j]
                                   + (s[i] * w[j] - s[j] * w[i]) * p[j, i])
    out = u @ c @ vh
    if m > k:
        out += ((tv - u @ p) * ws) @ vh
    if n > k:
        out += (u * ws) @ (t.T @ u - v @ p.T).T
    return out


def svd_mix_tangent_dot(x, w, d, e):
    """The derivative of `svd_mix_tangent(x, w, d)` along e, w and d held: the third
    derivative of sum_k w_k s_k, D3[d, e, .], as a matrix -- symmetric in its directions, so
    also svd_mix_tangent's adjoint in x (cotangent e). `svd_mix_tangent`'s computation
    differentiated term by term, U, s and V moving by `svd_tangent`'s (dU, ds, dVh) along e:
    defined at distinct nonzero singular values (a ValueError elsewhere, never a guess)."""
    u, s, vh = np.linalg.svd(np.ascontiguousarray(x), False)
    m, n = x.shape
    k = s.shape[0]
    tol = s[0] * max(m, n) * 2.220446049250313e-16
    for i in range(k):
        if s[i] <= tol or (i > 0 and s[i] == s[i - 1]):
            raise ValueError("a third derivative of a matrix norm by singular values "
                             "(np.linalg.norm(A, 2), -2, 'nuc') needs A's singular values "
                             "distinct and nonzero")
    du, ds, dvh = svd_tangent(x, e)
    v = np.ascontiguousarray(vh.T)
    dv = np.ascontiguousarray(dvh.T)
    tv = d @ v
    dtv = d @ dv
    p = u.T @ tv
    dp = du.T @ tv + u.T @ dtv
    ws = w / s
    dws = -w * ds / (s * s)
    c = np.zeros((k, k))
    dc = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i != j:
                if w[i] == w[j]:
                    den = s[i] + s[j]
                    c[i, j] = w[i] * (p[i, j] - p[j, i]) / den
                    dc[i, j] = (w[i] * (dp[i, j] - dp[j, i]) / den
                                - c[i, j] * (ds[i] + ds[j]) / den)
                else:
                    f = 1.0 / (s[j] * s[j] - s[i] * s[i])
                    df = -f * f * 2.0 * (s[j] * ds[j] - s[i] * ds[i])
                    num = (s[j] * w[j] - s[i] * w[i]) * p[i, j] + (s[i] * w[j] - s[j] * w[i]) * p[j, i]
                    dnum = ((ds[j] * w[j] - ds[i] * w[i]) * p[i, j]
                            + (s[j] * w[j] - s[i] * w[i]) * dp[i, j]
                            + (ds[i] * w[j] - ds[j] * w[i]) * p[j, i]
                            + (s[i] * w[j] - s[j] * w[i]) * dp[j, i])
                    c[i, j] = f * num
                    dc[i, j] = df * num + f * dnum
    out = du @ c @ vh + u @ dc @ vh + u @ c @ dvh
    if m > k:
        a = tv - u @ p
        da = dtv - du @ p - u @ dp
        out += (da * ws + a * dws) @ vh + (a * ws) @ dvh
    if n > k:
        b = d.T @ u - v @ p.T
        db = d.T @ du - dv @ p.T - v @ dp.T
        out += (du * ws + u * dws) @ b.T + (u * ws) @ db.T
    return out


def svd_mix_tangent_w_adjoint(x, d, g):
    """The adjoint of `svd_mix_tangent(x, w, d)` in w (linear in w, at distinct singular
    values): entry k is <g, H_k d>, H_k the Hessian of s_k -- with P = U^T d V and
    Q = U^T g V, sum_i Q_ik F_ik (s_k P_ik + s_i P_ki) - sum_j Q_kj F_kj (s_k P_kj + s_j P_jk),
    F_ij = 1 / (s_j^2 - s_i^2), plus the parts off U's and V's span over s_k (0 where s_k is
    zero to rounding, as svd_mix_tangent takes w / s)."""
    u, s, vh = np.linalg.svd(np.ascontiguousarray(x), False)
    m, n = x.shape
    k = s.shape[0]
    v = np.ascontiguousarray(vh.T)
    tv = d @ v
    p = u.T @ tv
    gv = g @ v
    q = u.T @ gv
    tol = s[0] * max(m, n) * 2.220446049250313e-16
    out = np.zeros(k)
    for i in range(k):
        for j in range(k):
            if i != j:
                if s[i] == s[j]:
                    raise ValueError("the derivative in the weights of a matrix norm's "
                                     "singular values needs them distinct")
                f = q[i, j] / (s[j] * s[j] - s[i] * s[i])
                out[j] += f * (s[j] * p[i, j] + s[i] * p[j, i])
                out[i] -= f * (s[i] * p[i, j] + s[j] * p[j, i])
    ext = np.zeros(k)
    if m > k:
        ext += np.sum(gv * (tv - u @ p), axis=0)
    if n > k:
        ext += np.sum((g.T @ u) * (d.T @ u - v @ p.T), axis=0)
    for i in range(k):
        if s[i] > tol:
            out[i] += ext[i] / s[i]
    return out


def svd_mix_w_adjoint(x, g):
    """The adjoint of `svd_mix(x, w)` in w: diag(U^T g V)."""
    u, _, vh = np.linalg.svd(np.ascontiguousarray(x), False)
    return np.sum(u * (g @ np.ascontiguousarray(vh.T)), axis=0)


def tie_weights(v, y):
    """1/count on the entries of v equal to y (an extreme of v), 0 elsewhere: ties split
    the cotangent evenly."""
    m = (v == y) * 1.0
    return m / np.sum(m)


def svd_ties(x, k):
    """`tie_weights` of x's singular values at the k-th (0: the largest, -1: the smallest)."""
    s = svd_s(x)
    return tie_weights(s, s[k])


def svd_u_adjoint(x, g):
    k = min(x.shape[0], x.shape[1])
    gk = svd_free_part(g[:, :k], g[:, k:], "columns of its full U")
    return svd_adjoint(x, gk, np.zeros(k), np.zeros((k, x.shape[1])))


def svd_s_adjoint(x, g):
    k = min(x.shape[0], x.shape[1])
    return svd_adjoint(x, np.zeros((x.shape[0], k)), g, np.zeros((k, x.shape[1])))


def svd_vh_adjoint(x, g):
    k = min(x.shape[0], x.shape[1])
    gk = svd_free_part(g[:k, :], g[k:, :], "rows of its full Vh")
    return svd_adjoint(x, np.zeros((x.shape[0], k)), np.zeros(k), gk)


__all__ += ["fliplr", "flipud", "rot90", "nan_to_num1", "nan_to_num", "sort_axis", "sort_perms", "argsort_axis", "take_along", "take_along_adjoint", "cummax_positions", "lane_gather", "lane_scatter", "sort_adjoint", "gradient1",
            "gradient1_adjoint", "broadcast_index", "broadcast_to", "unbroadcast",
            "pinv_adjoint", "svd_u", "svd_s", "svd_vh", "svd_adjoint", "svd_u_adjoint",
            "svd_s_adjoint", "svd_vh_adjoint", "svd_mix", "svd_mix_tangent", "svd_mix_tangent_dot", "svd_mix_tangent_w_adjoint", "svd_mix_w_adjoint",
            "tie_weights", "svd_ties"]


# -- issue 12, scipy.stats distributions: log-densities with their supports (three operands
# arrive broadcast to one shape), and the multivariate normal by a Cholesky factor

def gamma_logz1(z, a):
    """log of the standard gamma density at z (shape a): -inf below 0; at 0 inf, 0 or -inf
    for a < 1, a = 1, a > 1."""
    if z < 0.0:
        return -math.inf
    if z == 0.0:
        if a < 1.0:
            return math.inf
        return 0.0 - math.lgamma(a) if a == 1.0 else -math.inf
    return (a - 1.0) * math.log(z) - z - math.lgamma(a)


def beta_logz1(z, a, b):
    """log of the standard beta density at z: -inf outside [0, 1], the limits at its ends."""
    if z < 0.0 or z > 1.0:
        return -math.inf
    out = -betaln1(a, b)
    if a != 1.0:
        out += (a - 1.0) * math.log(z) if z > 0.0 else (math.inf if a < 1.0 else -math.inf)
    if b != 1.0:
        out += (b - 1.0) * math.log1p(-z) if z < 1.0 else (math.inf if b < 1.0 else -math.inf)
    return out


def gamma_logz(z, a):
    """gamma_logz1 elementwise (operands of one shape)."""
    if isinstance(z, (int, float)):
        return gamma_logz1(z, a)
    u = np.ascontiguousarray(z).ravel()
    v = np.ascontiguousarray(a).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = gamma_logz1(u[k], v[k])
    return out.reshape(z.shape)


def beta_logz(z, a, b):
    """beta_logz1 elementwise (operands of one shape)."""
    if isinstance(z, (int, float)):
        return beta_logz1(z, a, b)
    u = np.ascontiguousarray(z).ravel()
    v = np.ascontiguousarray(a).ravel()
    w = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = beta_logz1(u[k], v[k], w[k])
    return out.reshape(z.shape)


def chol(a):
    """The lower Cholesky factor of a symmetric positive-definite matrix (plain loops: no
    LAPACK to compile); ValueError if it is not positive definite. Reads the lower triangle."""
    n = a.shape[0]
    if a.shape[1] != n:
        raise ValueError("the covariance must be a square matrix")
    L = np.zeros((n, n))
    for j in range(n):
        s = a[j, j]
        for k in range(j):
            s -= L[j, k] * L[j, k]
        if not s > 0.0:
            raise ValueError("the covariance matrix is not positive definite")
        L[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            t = a[i, j]
            for k in range(j):
                t -= L[i, k] * L[j, k]
            L[i, j] = t / L[j, j]
    return L


def chol_solve(L, r):
    """(L L^T)^-1 applied to each row of r (a matrix)."""
    n = L.shape[0]
    out = np.empty(r.shape)
    for row in range(r.shape[0]):
        y = np.empty(n)
        for i in range(n):
            t = r[row, i]
            for k in range(i):
                t -= L[i, k] * y[k]
            y[i] = t / L[i, i]
        for i in range(n - 1, -1, -1):
            t = y[i]
            for k in range(i + 1, n):
                t -= L[k, i] * out[row, k]
            out[row, i] = t / L[i, i]
    return out


def mvn_rows(x, mean, cov):
    """The residual rows x - mean of a vector or a matrix of rows, checked against cov."""
    d = mean.shape[0]
    if cov.shape[0] != d or cov.shape[1] != d:
        raise ValueError("multivariate_normal: mean and cov do not match")
    r = np.atleast_2d(x) - mean
    if r.shape[1] != d:
        raise ValueError("multivariate_normal: x's rows have another length than the mean")
    return r


def mvn_logpdf_rows(x, mean, cov):
    """multivariate_normal.logpdf of each row of x (a vector: one row), by a Cholesky factor."""
    r = mvn_rows(x, mean, cov)
    L = chol(cov)
    d = L.shape[0]
    logdet = 0.0
    for i in range(d):
        logdet += math.log(L[i, i])
    out = np.empty(r.shape[0])
    for row in range(r.shape[0]):
        q = 0.0
        y = np.empty(d)
        for i in range(d):
            t = r[row, i]
            for k in range(i):
                t -= L[i, k] * y[k]
            y[i] = t / L[i, i]
            q += y[i] * y[i]
        out[row] = -0.5 * q - logdet - 0.9189385332046727 * d
    return out


def mvn_alpha(x, mean, cov):
    """cov^-1 (x - mean) of each row, shaped like x."""
    r = mvn_rows(x, mean, cov)
    return chol_solve(chol(cov), r).reshape(x.shape)


def mvn_cov_adjoint(x, mean, cov, g):
    """The adjoint of the covariance: 1/2 (sum_i g_i a_i a_i^T - (sum_i g_i) cov^-1), a_i the
    rows of mvn_alpha, g a vector of one cotangent per row: the derivative along symmetric
    perturbations, folded onto the lower triangle SciPy reads (`sym_lower_adjoint`; the
    tangent reads it too, `sym_lower`)."""
    r = mvn_rows(x, mean, cov)
    L = chol(cov)
    a = chol_solve(L, r)
    gs = np.ascontiguousarray(g)         # one entry per row
    d = L.shape[0]
    inv = chol_solve(L, np.eye(d))
    out = np.zeros((d, d))
    total = 0.0
    for row in range(r.shape[0]):
        total += gs[row]
        for i in range(d):
            for j in range(d):
                out[i, j] += gs[row] * a[row, i] * a[row, j]
    return sym_lower_adjoint(0.5 * (out - total * inv))


__all__ += ["gamma_logz1", "beta_logz1", "gamma_logz", "beta_logz", "chol", "chol_solve",
            "mvn_rows", "mvn_logpdf_rows", "mvn_alpha", "mvn_cov_adjoint"]


def logsumexp_b(x, b):
    """log(sum(b * exp(x))) of a whole array, shifted by x's max (scipy.special.logsumexp
    with b=, b shaped like x): -inf for a zero sum, nan for a negative one."""
    m = np.max(x)
    if not np.isfinite(m):
        m = 0.0
    return m + np.log(np.sum(b * np.exp(x - m)))


__all__ += ["logsumexp_b"]


# -- issue 13, forward mode: the tangents of the scans, sorts and decompositions (what the
# result moves by along a tangent t of the operand; each is the transpose of the adjoint above
# it names, with the same conventions: the same running extreme, the same stable argsort, the
# lower triangle of a symmetric operand, distinct eigen- and singular values, full rank)

def cumprod_tangent(x, t):
    """The tangent of y = np.cumprod(x) of a vector: dy_k = dy_{k-1} x_k + y_{k-1} t_k (no
    division: exact where an entry is zero)."""
    n = x.shape[0]
    out = np.empty(n)
    y = 1.0
    d = 0.0
    for k in range(n):
        d = d * x[k] + y * t[k]
        y *= x[k]
        out[k] = d
    return out


# -- second derivatives: the derivatives of the helpers above that are primitives of their own
# (`prod_others`, `prod_others_axis`, `cumprod_tangent`: the jvp read again calls them), by the
# same recurrences differentiated once more, with no division (exact where an entry is zero)

def others_tangent_into(t, d, out):
    """out[i, k, j] = the derivative along d of the product of t[i, :, j] without its k-th
    entry: the prefix product's derivative times the suffix product plus the prefix product
    times the suffix's derivative (the sum over m != k of d[i, m, j] times the product of the
    entries other than k and m)."""
    n = t.shape[1]
    pre = np.empty(n)
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            p = 1.0
            dp = 0.0
            for k in range(n):
                pre[k] = p
                out[i, k, j] = dp
                dp = dp * t[i, k, j] + p * d[i, k, j]
                p *= t[i, k, j]
            s = 1.0
            ds = 0.0
            for k in range(n - 1, -1, -1):
                out[i, k, j] = out[i, k, j] * s + pre[k] * ds
                ds = ds * t[i, k, j] + s * d[i, k, j]
                s *= t[i, k, j]


def prod_others_tangent(x, dx):
    """The tangent of prod_others(x) along dx (shaped like x). Its Jacobian is symmetric (the
    Hessian of np.prod), so this is its adjoint too, with the cotangent for dx."""
    t = np.ascontiguousarray(x).reshape((1, x.size, 1))
    d = np.ascontiguousarray(dx).reshape((1, x.size, 1))
    out = np.empty(t.shape)
    others_tangent_into(t, d, out)
    return out.reshape(x.shape)


def prod_others_axis_tangent(x, dx, axis):
    """The tangent of prod_others_axis(x, axis) along dx (and its adjoint: symmetric)."""
    t = as3(x, axis)
    d = as3(dx, axis)
    out = np.empty(t.shape)
    others_tangent_into(t, d, out)
    return out.reshape(x.shape)


def cumprod_tangent2(x, a, b):
    """The second derivative of y = np.cumprod(x) (a vector) along a and b: cumprod_tangent's
    recurrence differentiated along b, d_ab y_k = d_ab y_{k-1} x_k + d_a y_{k-1} b_k
    + d_b y_{k-1} a_k (the tangent of cumprod_tangent(x, a) in x along b)."""
    n = x.shape[0]
    out = np.empty(n)
    y = 1.0
    da = 0.0
    db = 0.0
    dab = 0.0
    for k in range(n):
        dab = dab * x[k] + da * b[k] + db * a[k]
        da = da * x[k] + y * a[k]
        db = db * x[k] + y * b[k]
        y *= x[k]
        out[k] = dab
    return out


def cumprod_tangent_adjoint(x, a, g):
    """The adjoint in x of cumprod_tangent(x, a) for the cotangent g: its recurrence
    (d_k = d_{k-1} x_k + y_{k-1} a_k, y_k = y_{k-1} x_k) run backwards."""
    n = x.shape[0]
    ys = np.empty(n)        # y_{k-1}
    ds = np.empty(n)        # d_{k-1}
    y = 1.0
    d = 0.0
    for k in range(n):
        ys[k] = y
        ds[k] = d
        d = d * x[k] + y * a[k]
        y *= x[k]
    out = np.empty(n)
    ybar = 0.0
    dbar = 0.0
    for k in range(n - 1, -1, -1):
        dbar += g[k]
        out[k] = dbar * ds[k] + ybar * ys[k]
        ybar = dbar * a[k] + ybar * x[k]
        dbar = dbar * x[k]
    return out


def cummax_tangent(x, t, axis):
    """The tangent of np.maximum.accumulate(x, axis): each entry moves with the running
    maximum's position (the first entry attaining it, as cummax_adjoint)."""
    return lane_gather(t, axis, cummax_positions(x, axis))


def vander_tangent(x, t, cols, increasing, order):
    """t times the order-th derivative of np.vander(x, cols, increasing) in x, entry by entry:
    k! / (k - order)! x^(k - order) t in the column of power k >= order (no 0 ** -1). Order 1
    is np.vander's tangent; each order's derivatives are the next (`vander_adjoint`), so
    every order of derivative of np.vander is one of these two."""
    out = np.zeros((x.shape[0], cols))
    for i in range(x.shape[0]):
        for k in range(order, cols):
            c = t[i]
            for m in range(order):
                c *= k - m
            for m in range(k - order):
                c *= x[i]
            out[i, k if increasing else cols - 1 - k] = c
    return out


def sort_tangent(x, t, axis):
    """The tangent of np.sort(x, axis): t permuted by each lane's stable argsort (ties in
    NumPy's stable order, as sort_adjoint)."""
    return lane_gather(t, axis, sort_perms(x, axis))


def sym_lower(t):
    """The symmetric matrix a lower triangle means (what eigh and a Cholesky factor read)."""
    return np.tril(t) + np.tril(t, -1).T


def eigh_v_tangent(x, t):
    """The tangent of the eigenvectors of a symmetric matrix (lower triangle read, distinct
    eigenvalues): V (F o (V^T S V)), S = sym_lower(t), F[i, j] = 1 / (w[j] - w[i]) off the
    diagonal and 0 on it (each eigenvector moves orthogonally to itself)."""
    w, v = np.linalg.eigh(x)
    n = w.shape[0]
    m = v.T @ (sym_lower(t) @ v)
    for i in range(n):
        for j in range(n):
            m[i, j] = 0.0 if i == j else m[i, j] / (w[j] - w[i])
    return v @ m


def qr_tangent(x, t):
    """(dQ, dR) of the reduced QR decomposition of a square or tall full-rank matrix: with
    C = Q^T dA R^-1 and Omega = Q^T dQ (antisymmetric, C's strictly lower triangle mirrored
    with a minus), dR = (C - Omega) R (upper triangular) and dQ = dA R^-1 - Q (C - Omega)."""
    if x.shape[0] < x.shape[1]:
        raise ValueError("jitad differentiates np.linalg.qr of square or tall matrices only")
    q, r = np.linalg.qr(x)
    n = r.shape[0]
    ar = np.linalg.solve(np.ascontiguousarray(r.T), np.ascontiguousarray(t.T)).T   # dA R^-1
    c = q.T @ ar
    for i in range(n):
        for j in range(i):          # C - Omega: 0 below the diagonal, C + C^T above it
            c[j, i] += c[i, j]
            c[i, j] = 0.0
    return ar - q @ c, c @ r


def pinv_full_rank(a, x):
    """ValueError unless A (with X its pseudo-inverse) has full rank (the pseudo-inverse jumps
    where the rank drops)."""
    m, n = a.shape
    xa = x @ a if m >= n else a @ x
    for i in range(xa.shape[0]):
        for j in range(xa.shape[1]):
            if abs(xa[i, j] - (1.0 if i == j else 0.0)) > 1e-6:
                raise ValueError("jitad differentiates np.linalg.pinv of full-rank matrices only")


def pinv_tangent(a, x, t):
    """The tangent of X = np.linalg.pinv(A) for a full-rank A (Golub & Pereyra, the transpose
    of pinv_adjoint): -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X."""
    pinv_full_rank(a, x)
    m, n = a.shape
    tt = np.ascontiguousarray(t.T)
    out = -(x @ t @ x)
    out += (x @ x.T) @ tt @ (np.eye(m) - a @ x)
    out += (np.eye(n) - x @ a) @ tt @ (x.T @ x)
    return out


def svd_tangent(x, t):
    """(dU, ds, dVh) of the reduced SVD A = U diag(s) Vh (distinct nonzero singular values):
    with P = U^T dA V, ds = diag(P); U^T dU = Ou and V^T dV = Ov, antisymmetric,
    Ou[i, j] = (s_j P_ij + s_i P_ji) / (s_j^2 - s_i^2), Ov[i, j] = (s_i P_ij + s_j P_ji) /
    (s_j^2 - s_i^2); dU = U Ou + (I - U U^T) dA V / s, dV = V Ov + (I - V V^T) dA^T U / s."""
    u, s, vh = np.linalg.svd(np.ascontiguousarray(x), False)
    m, n = x.shape
    k = s.shape[0]
    v = np.ascontiguousarray(vh.T)
    tv = t @ v
    tu = t.T @ u
    p = u.T @ tv
    ds = np.empty(k)
    ou = np.zeros((k, k))
    ov = np.zeros((k, k))
    for i in range(k):
        ds[i] = p[i, i]
        for j in range(k):
            if i != j:
                f = 1.0 / (s[j] * s[j] - s[i] * s[i])
                ou[i, j] = f * (s[j] * p[i, j] + s[i] * p[j, i])
                ov[i, j] = f * (s[i] * p[i, j] + s[j] * p[j, i])
    du = u @ ou
    dv = v @ ov
    if m > k:
        du += (tv - u @ p) / s
    if n > k:
        dv += (tu - v @ p.T) / s
    return du, ds, np.ascontiguousarray(dv.T)


def svd_no_free_tangent(x, full, tall):
    if full and tall:
        raise ValueError("np.linalg.svd(A) with full_matrices=True (the default): the "
                         + ("columns of its full U" if x.shape[0] > x.shape[1] else
                            "rows of its full Vh")
                         + " past min(m, n) are arbitrary, no derivative determines them "
                         "(forward mode); pass full_matrices=False")


def svd_tangent_u(x, t, full):
    """The tangent of `svd_u`; of a full U with arbitrary columns, refused (forward mode)."""
    svd_no_free_tangent(x, full, x.shape[0] > x.shape[1])
    return svd_tangent(x, t)[0]


def svd_tangent_vh(x, t, full):
    """The tangent of `svd_vh`; of a full Vh with arbitrary rows, refused (forward mode)."""
    svd_no_free_tangent(x, full, x.shape[1] > x.shape[0])
    return svd_tangent(x, t)[2]


__all__ += ["svd_tangent_u", "svd_tangent_vh", "svd_no_free_tangent", "svd_free_part"]


def mvn_cov_tangent(x, mean, cov, t):
    """The tangent of multivariate_normal.logpdf of each row along a covariance tangent t (its
    lower triangle read, as chol): 1/2 a^T S a - 1/2 tr(cov^-1 S), S = sym_lower(t), a the
    row's mvn_alpha."""
    r = mvn_rows(x, mean, cov)
    L = chol(cov)
    a = chol_solve(L, r)
    d = L.shape[0]
    s = sym_lower(t)
    inv = chol_solve(L, np.eye(d))
    tr = 0.0
    for i in range(d):
        for j in range(d):
            tr += inv[i, j] * s[j, i]
    out = np.empty(r.shape[0])
    for row in range(r.shape[0]):
        q = 0.0
        for i in range(d):
            for j in range(d):
                q += a[row, i] * s[i, j] * a[row, j]
        out[row] = 0.5 * (q - tr)
    return out


def cumprod_lanes(x, a, b, axis, which):
    """np.cumprod(x, axis) and its derivatives, each lane along `axis` by the vector rules:
    which 0: cumprod(x); 1: cumprod_adjoint(x, a); 2: cumprod_tangent(x, a);
    3: cumprod_tangent_adjoint(x, a, b); 4: cumprod_tangent2(x, a, b) (a, b of x's shape;
    unread ones any array)."""
    xt = as3(x, axis)
    at = as3(a, axis) if which > 0 else xt
    bt = as3(b, axis) if which > 2 else xt
    out = np.empty(xt.shape)
    for i in range(xt.shape[0]):
        for j in range(xt.shape[2]):
            lane = np.ascontiguousarray(xt[i, :, j])
            if which == 0:
                out[i, :, j] = np.cumprod(lane)
            elif which == 1:
                out[i, :, j] = cumprod_adjoint(lane, at[i, :, j])
            elif which == 2:
                out[i, :, j] = cumprod_tangent(lane, at[i, :, j])
            elif which == 3:
                out[i, :, j] = cumprod_tangent_adjoint(lane, at[i, :, j], bt[i, :, j])
            else:
                out[i, :, j] = cumprod_tangent2(lane, at[i, :, j], bt[i, :, j])
    return out.reshape(x.shape)


def cumprod_axis(x, axis):
    """np.cumprod(x, axis) (any rank >= 1)."""
    return cumprod_lanes(x, x, x, axis, 0)


def cumprod_tangent_axis(x, dx, axis):
    """The tangent of np.cumprod(x, axis) along dx (a primitive: the jvp read again calls it)."""
    return cumprod_lanes(x, dx, x, axis, 2)


__all__ += ["cumprod_lanes", "cumprod_axis", "cumprod_tangent_axis", "cumprod_tangent", "others_tangent_into", "prod_others_tangent",
            "prod_others_axis_tangent", "cumprod_tangent2", "cumprod_tangent_adjoint",
            "cummax_tangent", "vander_tangent", "sort_tangent", "sym_lower",
            "eigh_v_tangent", "qr_tangent", "pinv_full_rank", "pinv_tangent", "svd_tangent",
            "mvn_cov_tangent"]


# np.quantile / np.percentile / np.median with NumPy's default (linear) interpolation: the
# value lies between the lane's sorted entries `lo` and `lo + 1` (`quantile_position`); the
# derivative goes to those two entries (the stable argsort's, ties in NumPy's stable order),
# weighted 1 - frac and frac (the two middle entries by halves for a median of even length)
def quantile_position(n, q):
    """(lo, hi, frac): the sorted positions and the weight of `hi` of quantile q of n entries."""
    pos = q * (n - 1)
    lo = int(math.floor(pos))
    if lo < 0:
        lo = 0
    if lo > n - 1:
        lo = n - 1
    hi = lo + 1 if lo + 1 < n else n - 1
    return lo, hi, pos - lo


def quantile_axis(x, q, axis):
    """np.quantile(x, q, axis) as an (outer, inner) matrix (the caller reshapes it); a lane
    holding a nan (or of no entries) gives nan, as in NumPy."""
    if q < 0.0 or q > 1.0:
        raise ValueError("quantiles must be in the range [0, 1] (percentiles in [0, 100])")
    t = as3(x, axis)
    n = t.shape[1]
    out = np.empty((t.shape[0], t.shape[2]))
    buf = np.empty(n)
    lo, hi, frac = quantile_position(n, q)
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            nan = n == 0
            for k in range(n):
                buf[k] = t[i, k, j]
                if buf[k] != buf[k]:
                    nan = True
            if nan:
                out[i, j] = np.nan
                continue
            perm = np.argsort(buf, kind="mergesort")
            a = buf[perm[lo]]
            b = buf[perm[hi]]
            if frac >= 0.5:      # NumPy's lerp: from the nearer end
                out[i, j] = b - (b - a) * (1.0 - frac)
            else:
                out[i, j] = a + (b - a) * frac
    return out


def quantile_weights(x, q, axis):
    """d quantile_axis(x, q, axis) / dx, shaped like x: 1 - frac at each lane's sorted entry
    `lo`, frac at `hi` (their sum where they are the same entry), zero elsewhere."""
    t = as3(x, axis)
    n = t.shape[1]
    w = np.zeros(t.shape)
    buf = np.empty(n)
    lo, hi, frac = quantile_position(n, q)
    for i in range(t.shape[0]):
        for j in range(t.shape[2]):
            if n == 0:
                continue
            for k in range(n):
                buf[k] = t[i, k, j]
            perm = np.argsort(buf, kind="mergesort")
            w[i, perm[lo], j] += 1.0 - frac
            w[i, perm[hi], j] += frac
    return w.reshape(x.shape)


def quantile_all(x, q):
    """np.quantile(x, q) of every entry of x (any rank >= 1)."""
    return quantile_axis(np.ascontiguousarray(x).ravel(), q, 0)[0, 0]


def quantile_weights_all(x, q):
    return quantile_weights(np.ascontiguousarray(x).ravel(), q, 0).reshape(x.shape)


__all__ += ["quantile_position", "quantile_axis", "quantile_weights", "quantile_all",
            "quantile_weights_all"]


# -- issue 12, the rest of autograd's scipy.special: the regularized incomplete gamma and beta
# functions and the Bessel functions of real order, as scalar kernels (`*1`) and elementwise
# versions (operands already broadcast to one shape, as above). The kernels follow the
# classical algorithms: the incomplete gamma by its series below x = a + 1 and Legendre's
# continued fraction above (the prefactor x^a e^-x / gamma(a) through log1pmx for large a);
# the incomplete beta by its continued fraction on the side where it converges; J, Y by
# Temme's series (x < 2) or Steed's continued fraction, I, K likewise (Temme 1975, 1976;
# Numerical Recipes' bessjy/bessik), reflected to negative orders.

# 1 / gamma(1 + z) = sum RGAMMA_TAYLOR[k] z^k (|z| <= 1/2: terms past these are below 1e-20)
RGAMMA_TAYLOR = (1.0, 0.5772156649015329, -0.6558780715202538, -0.0420026350340952,
                 0.1665386113822915, -0.0421977345555443, -0.0096219715278770,
                 0.0072189432466630, -0.0011651675918591, -0.0002152416741149,
                 0.0001280502823882, -0.0000201348547807, -0.0000012504934821,
                 0.0000011330272320, -0.0000002056338417, 0.0000000061160950,
                 0.0000000050020075, -0.0000000011812746, 0.0000000001043427,
                 0.0000000000077823, -0.0000000000036968, 0.0000000000005100,
                 -0.0000000000000206, -0.0000000000000054, 0.0000000000000014)


def log1pmx(t):
    """log(1 + t) - t without cancellation for small t (t > -1)."""
    if abs(t) > 0.25:
        return math.log1p(t) - t
    s = 0.0
    p = -t * t
    k = 2
    while True:
        term = p / k
        s += term
        if abs(term) <= 1e-17 * abs(s):
            break
        p *= -t
        k += 1
    return s


def igam_prefactor(a, x):
    """x^a e^-x / gamma(a) (x > 0, a > 0): for a >= 10 through Stirling's series, with
    log1pmx near x = a, so that a log x - x - lgamma(a) loses nothing to cancellation."""
    if a < 10.0:
        return math.exp(a * math.log(x) - x - math.lgamma(a))
    t = (x - a) / a
    e = a * log1pmx(t) if abs(t) < 0.5 else a * (math.log(x / a) - t)
    return math.exp(e - stirling_corr(a)) * math.sqrt(a / 6.283185307179586)


def rgamma1p_minus1(a):
    """1 / gamma(1 + a) - 1 for |a| <= 1/2, by its Taylor series (no cancellation)."""
    s = 0.0
    p = a
    for k in range(1, len(RGAMMA_TAYLOR)):
        s += RGAMMA_TAYLOR[k] * p
        p *= a
    return s


def gammainc_pq(a, x):
    """(P(a, x), Q(a, x)): the regularized lower and upper incomplete gamma functions (nan for
    a < 0 or x < 0; P(0, x) = 1 for x > 0, as SciPy). Below x = a + 1, P by its series; Q
    then as 1 - P, except for a <= 1/2 where 1 - P cancels: Q = (1 - u) - u a S with
    u = x^a / gamma(1 + a) and S = sum_{n >= 1} (-x)^n / (n! (a + n)) (DLMF 8.7.3), 1 - u by
    expm1. Above, Q by Legendre's continued fraction and P = 1 - Q."""
    if a != a or x != x or a < 0.0 or x < 0.0:
        return math.nan, math.nan
    if a == 0.0:
        if x > 0.0:
            return 1.0, 0.0
        return math.nan, math.nan
    if x == 0.0:
        return 0.0, 1.0
    if x == math.inf:
        return 1.0, 0.0
    if a == math.inf:
        return 0.0, 1.0
    if x < a + 1.0:
        # P = x^a e^-x / gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))
        term = 1.0
        s = 1.0
        n = 0
        while n < 100000:
            n += 1
            term *= x / (a + n)
            s += term
            if term <= 1e-17 * s:
                break
        p = igam_prefactor(a, x) / a * s
        if a > 0.5:
            return p, 1.0 - p
        r = rgamma1p_minus1(a)
        lu = a * math.log(x) + math.log1p(r)        # log u
        u = math.exp(lu)
        sm = 0.0
        term = 1.0
        n = 0
        while n < 1000:
            n += 1
            term *= -x / n
            sm += term / (a + n)
            if abs(term) <= 1e-17 * abs(sm) * (a + n):
                break
        return p, -math.expm1(lu) - u * a * sm
    # Q by Legendre's continued fraction, modified Lentz
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    i = 0
    while i < 100000:
        i += 1
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        if abs(d) < tiny:
            d = tiny
        c = b + an / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) <= 1e-16:
            break
    q = igam_prefactor(a, x) * h
    return 1.0 - q, q


def gammainc1(a, x):
    return gammainc_pq(a, x)[0]


def gammaincc1(a, x):
    return gammainc_pq(a, x)[1]


def gammainc_dx1(a, x):
    """d/dx P(a, x) = x^(a-1) e^-x / gamma(a) (0 for x < 0; at 0: inf, 1, 0 for a < 1,
    a = 1, a > 1)."""
    if x != x or a != a or a <= 0.0:
        return math.nan
    if x < 0.0:
        return 0.0
    if x == 0.0:
        if a < 1.0:
            return math.inf
        return 1.0 if a == 1.0 else 0.0
    if x == math.inf:
        return 0.0
    return igam_prefactor(a, x) / x


def betacf(a, b, x):
    """The continued fraction of the incomplete beta function (modified Lentz): I_x(a, b) =
    x^a (1 - x)^b / (a B(a, b)) * betacf(a, b, x), fast for x < (a + 1) / (a + b + 2)."""
    tiny = 1e-300
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    m = 0
    while m < 100000:
        m += 1
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) <= 1e-16:
            break
    return h


def betainc1(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (nan outside 0 <= x <= 1 or for
    negative a, b; SciPy's limits where a or b is 0)."""
    if a != a or b != b or x != x or a < 0.0 or b < 0.0 or x < 0.0 or x > 1.0:
        return math.nan
    if a == 0.0 or b == 0.0:
        if a == 0.0 and b == 0.0:
            return math.nan
        if a == 0.0:
            return 1.0 if x > 0.0 else 0.0
        return 0.0 if x < 1.0 else 1.0
    if x == 0.0:
        return 0.0
    if x == 1.0:
        return 1.0
    lead = a * math.log(x) + b * math.log1p(-x) - betaln1(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lead) * betacf(a, b, x) / a
    return 1.0 - math.exp(lead) * betacf(b, a, 1.0 - x) / b


def log_betainc1(a, b, x):
    """log I_x(a, b) for a, b > 0 and 0 < x < 1, in log space where I_x is small (the
    continued fraction's side), so that it does not underflow."""
    if x <= 0.0:
        return -math.inf
    if x >= 1.0:
        return 0.0
    lead = a * math.log(x) + b * math.log1p(-x) - betaln1(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return lead + math.log(betacf(a, b, x) / a)
    return math.log1p(-math.exp(lead) * betacf(b, a, 1.0 - x) / b)


def betainc_dx1(a, b, x):
    """d/dx I_x(a, b) = x^(a-1) (1 - x)^(b-1) / B(a, b) (0 outside [0, 1])."""
    if a != a or b != b or x != x or a <= 0.0 or b <= 0.0:
        return math.nan
    if x < 0.0 or x > 1.0:
        return 0.0
    if x == 0.0:
        if a < 1.0:
            return math.inf
        return math.exp(-betaln1(a, b)) if a == 1.0 else 0.0
    if x == 1.0:
        if b < 1.0:
            return math.inf
        return math.exp(-betaln1(a, b)) if b == 1.0 else 0.0
    return math.exp((a - 1.0) * math.log(x) + (b - 1.0) * math.log1p(-x) - betaln1(a, b))


def gammasgn1(x):
    """The sign of gamma(x) as SciPy gives it: nan at the negative integers, -inf and nan,
    the sign bit at zeros."""
    if x != x or x == -math.inf:
        return math.nan
    if x > 0.0:
        return 1.0
    if x == 0.0:
        return math.copysign(1.0, x)
    if x == math.floor(x):
        return math.nan
    return -1.0 if math.floor(x) % 2.0 != 0.0 else 1.0


def sinpi(v):
    """sin(pi v), exactly 0 at the integers."""
    r = v - 2.0 * math.floor(0.5 * v)        # in [0, 2)
    if r == 0.0 or r == 1.0:
        return 0.0
    return math.sin(math.pi * r)


def cospi(v):
    """cos(pi v), exactly 0 at the half-integers."""
    r = v - 2.0 * math.floor(0.5 * v)
    if r == 0.5 or r == 1.5:
        return 0.0
    return math.cos(math.pi * r)


def temme_gammas(mu):
    """(gam1, gam2, 1 / gamma(1 + mu), 1 / gamma(1 - mu)) of Temme's series, |mu| <= 1/2:
    gam1 = (1/gamma(1 - mu) - 1/gamma(1 + mu)) / (2 mu) = -sum_{k odd} c_k mu^(k-1) (no
    cancellation), gam2 their mean."""
    plus = 0.0
    minus = 0.0
    odd = 0.0
    p = 1.0
    prev = 0.0
    for k in range(len(RGAMMA_TAYLOR)):
        c = RGAMMA_TAYLOR[k]
        plus += c * p
        if k % 2 == 0:
            minus += c * p
        else:
            minus -= c * p
            odd += c * prev
        prev = p
        p *= mu
    return -odd, 0.5 * (plus + minus), plus, minus


def hankel_pq(nu, x):
    """(P, Q) of Hankel's asymptotic expansion of J_nu, Y_nu for large x (x > 25 + nu^2 / 2:
    terms a_k = prod_{j <= k} (4 nu^2 - (2j - 1)^2) / (k! 8^k x^k), alternating in pairs."""
    mu = 4.0 * nu * nu
    p = 1.0
    q = 0.0
    term = 1.0
    for k in range(1, 40):
        term *= (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if k % 2 == 1:
            q += term if (k // 2) % 2 == 0 else -term
        else:
            p += -term if (k // 2) % 2 == 1 else term
        if abs(term) < 1e-17:
            break
    return p, q


def bessel_jy_large(nu, x):
    """(J_nu(x), Y_nu(x)) by Hankel's expansion, the phase x - (nu/2 + 1/4) pi taken apart
    (cos x and sin x are exact for large x; the subtraction would not be)."""
    p, q = hankel_pq(nu, x)
    phi = (0.5 * nu + 0.25) * math.pi
    c = math.cos(x) * math.cos(phi) + math.sin(x) * math.sin(phi)
    s = math.sin(x) * math.cos(phi) - math.cos(x) * math.sin(phi)
    f = math.sqrt(2.0 / (math.pi * x))
    return f * (p * c - q * s), f * (p * s + q * c)


def bessel_jy(nu, x):
    """(J_nu(x), Y_nu(x)) for nu >= 0 and x > 0: Hankel's expansion for x > 25 + nu^2 / 2,
    and from the fractional order up by recurrence for x >= 30, nu < 0.8 x; otherwise
    Temme's series for x < 2, Steed's continued fraction above, the ratio J'/J by its
    continued fraction and the order brought from nu - floor to nu by recurrences
    (Numerical Recipes' bessjy)."""
    if x > 25.0 + 0.5 * nu * nu:
        return bessel_jy_large(nu, x)
    if x >= 30.0 and nu < 0.8 * x:
        # up from the fractional order by the three-term recurrence, stable for both J and Y
        # while the order stays below x (Steed's continued fraction loses digits over the
        # ~x steps it would take here)
        m = math.floor(nu)
        mu = nu - m
        j0, y0 = bessel_jy_large(mu, x)
        j1, y1 = bessel_jy_large(mu + 1.0, x)
        if m == 0:
            return j0, y0
        for k in range(1, int(m)):
            f = 2.0 * (mu + k) / x
            j0, j1 = j1, f * j1 - j0
            y0, y1 = y1, f * y1 - y0
        return j1, y1
    eps = 1e-16
    fpmin = 1e-300
    if x < 2.0:
        nl = int(nu + 0.5)
    else:
        nl = max(0, int(nu - x + 1.5))
    mu = nu - nl
    mu2 = mu * mu
    xi = 1.0 / x
    xi2 = 2.0 * xi
    w = xi2 / math.pi
    isign = 1.0
    h = nu * xi
    if h < fpmin:
        h = fpmin
    b = xi2 * nu
    d = 0.0
    c = h
    for _ in range(1000000):
        b += xi2
        d = b - d
        if abs(d) < fpmin:
            d = fpmin
        c = b - 1.0 / c
        if abs(c) < fpmin:
            c = fpmin
        d = 1.0 / d
        delta = c * d
        h = delta * h
        if d < 0.0:
            isign = -isign
        if abs(delta - 1.0) < eps:
            break
    rjl = isign * fpmin
    rjpl = h * rjl
    rjl1 = rjl
    fact = nu * xi
    for _ in range(nl):
        rjtemp = fact * rjl + rjpl
        fact -= xi
        rjpl = fact * rjtemp - rjl
        rjl = rjtemp
        if abs(rjl) > 1e250:        # keep the unnormalized recurrence in range
            rjl *= 1e-250
            rjpl *= 1e-250
            rjl1 *= 1e-250
    if rjl == 0.0:
        rjl = eps
    f = rjpl / rjl
    if x < 2.0:
        x2 = 0.5 * x
        pimu = math.pi * mu
        fact = 1.0 if abs(pimu) < eps else pimu / math.sin(pimu)
        d = -math.log(x2)
        e = mu * d
        fact2 = 1.0 if abs(e) < eps else math.sinh(e) / e
        gam1, gam2, gampl, gammi = temme_gammas(mu)
        ff = 2.0 / math.pi * fact * (gam1 * math.cosh(e) + gam2 * fact2 * d)
        e = math.exp(e)
        p = e / (gampl * math.pi)
        q = 1.0 / (e * math.pi * gammi)
        pimu2 = 0.5 * pimu
        fact3 = 1.0 if abs(pimu2) < eps else math.sin(pimu2) / pimu2
        r = math.pi * pimu2 * fact3 * fact3
        c = 1.0
        d = -x2 * x2
        s = ff + r * q
        s1 = p
        i = 0
        while i < 100000:
            i += 1
            ff = (i * ff + p + q) / (i * i - mu2)
            c *= d / i
            p /= i - mu
            q /= i + mu
            delta = c * (ff + r * q)
            s += delta
            delta1 = c * p - i * delta
            s1 += delta1
            if abs(delta) < (1.0 + abs(s)) * eps:
                break
        rymu = -s
        ry1 = -s1 * xi2
        rymup = mu * xi * rymu - ry1
        rjmu = w / (rymup - f * rymu)
    else:
        a = 0.25 - mu2
        p = -0.5 * xi
        q = 1.0
        br = 2.0 * x
        bi = 2.0
        fact = a * xi / (p * p + q * q)
        cr = br + q * fact
        ci = bi + p * fact
        den = br * br + bi * bi
        dr = br / den
        di = -bi / den
        dlr = cr * dr - ci * di
        dli = cr * di + ci * dr
        temp = p * dlr - q * dli
        q = p * dli + q * dlr
        p = temp
        i = 1
        while i < 100000:
            i += 1
            a += 2.0 * (i - 1)
            bi += 2.0
            dr = a * dr + br
            di = a * di + bi
            if abs(dr) + abs(di) < fpmin:
                dr = fpmin
            fact = a / (cr * cr + ci * ci)
            cr = br + cr * fact
            ci = bi - ci * fact
            if abs(cr) + abs(ci) < fpmin:
                cr = fpmin
            den = dr * dr + di * di
            dr /= den
            di /= -den
            dlr = cr * dr - ci * di
            dli = cr * di + ci * dr
            temp = p * dlr - q * dli
            q = p * dli + q * dlr
            p = temp
            if abs(dlr - 1.0) + abs(dli) < eps:
                break
        gam = (p - f) / q
        rjmu = math.sqrt(w / ((p - f) * gam + q))
        rjmu = math.copysign(rjmu, rjl)
        rymu = rjmu * gam
        rymup = rymu * (p + q / gam)
        ry1 = mu * xi * rymu - rymup
    rj = rjl1 * (rjmu / rjl)
    for i in range(1, nl + 1):
        rytemp = (mu + i) * xi2 * ry1 - rymu
        rymu = ry1
        ry1 = rytemp
        if abs(ry1) == math.inf or ry1 != ry1:      # Y_nu overflows (large order, small x)
            return rj, -math.inf
    return rj, rymu


def bessel_ik(nu, x):
    """(e^-x I_nu(x), e^x K_nu(x)) for nu >= 0 and x > 0, scaled so that neither overflows:
    Temme's series for x < 2, Steed's continued fraction (Temme's form) otherwise, the
    ratio I'/I by its continued fraction (Numerical Recipes' bessik)."""
    if x > 25.0 + 0.5 * nu * nu:
        return bessel_ie_asym(x, nu), kve_asym(nu, x)
    eps = 1e-16
    fpmin = 1e-300
    nl = int(nu + 0.5)
    mu = nu - nl
    mu2 = mu * mu
    xi = 1.0 / x
    xi2 = 2.0 * xi
    h = nu * xi
    if h < fpmin:
        h = fpmin
    b = xi2 * nu
    d = 0.0
    c = h
    for _ in range(1000000):
        b += xi2
        d = 1.0 / (b + d)
        c = b + 1.0 / c
        delta = c * d
        h = delta * h
        if abs(delta - 1.0) < eps:
            break
    ril = fpmin
    ripl = h * ril
    ril1 = ril
    fact = nu * xi
    for _ in range(nl):
        ritemp = fact * ril + ripl
        fact -= xi
        ripl = fact * ritemp + ril
        ril = ritemp
        if abs(ril) > 1e250:        # keep the unnormalized recurrence in range
            ril *= 1e-250
            ripl *= 1e-250
            ril1 *= 1e-250
    f = ripl / ril
    if x < 2.0:
        x2 = 0.5 * x
        pimu = math.pi * mu
        fact = 1.0 if abs(pimu) < eps else pimu / math.sin(pimu)
        d = -math.log(x2)
        e = mu * d
        fact2 = 1.0 if abs(e) < eps else math.sinh(e) / e
        gam1, gam2, gampl, gammi = temme_gammas(mu)
        ff = fact * (gam1 * math.cosh(e) + gam2 * fact2 * d)
        s = ff
        e = math.exp(e)
        p = 0.5 * e / gampl
        q = 0.5 / (e * gammi)
        c = 1.0
        d = x2 * x2
        s1 = p
        i = 0
        while i < 100000:
            i += 1
            ff = (i * ff + p + q) / (i * i - mu2)
            c *= d / i
            p /= i - mu
            q /= i + mu
            delta = c * ff
            s += delta
            delta1 = c * (p - i * ff)
            s1 += delta1
            if abs(delta) < abs(s) * eps:
                break
        ex = math.exp(x)
        rkmu = s * ex
        rk1 = s1 * xi2 * ex
    else:
        b = 2.0 * (1.0 + x)
        d = 1.0 / b
        h = d
        delh = d
        q1 = 0.0
        q2 = 1.0
        a1 = 0.25 - mu2
        q = a1
        c = a1
        a = -a1
        s = 1.0 + q * delh
        i = 1
        while i < 100000:
            i += 1
            a -= 2.0 * (i - 1)
            c = -a * c / i
            qnew = (q1 - b * q2) / a
            q1 = q2
            q2 = qnew
            q += c * qnew
            b += 2.0
            d = 1.0 / (b + a * d)
            delh = (b * d - 1.0) * delh
            h += delh
            dels = q * delh
            s += dels
            if abs(dels / s) < eps:
                break
        h = a1 * h
        rkmu = math.sqrt(math.pi / (2.0 * x)) / s
        rk1 = rkmu * (mu + x + 0.5 - h) * xi
    rkmup = mu * xi * rkmu - rk1
    rimu = xi / (f * rkmu - rkmup)
    ri = rimu * ril1 / ril
    for i in range(1, nl + 1):
        rktemp = (mu + i) * xi2 * rk1 + rkmu
        rkmu = rk1
        rk1 = rktemp
    return ri, rkmu


def bessel_series(v, x, sgn):
    """sum_k (sgn x^2 / 4)^k / (k! gamma(v + k + 1)) times (x/2)^v: J_v (sgn -1) or I_v
    (sgn 1) by its power series, for 0 < x <= 2 and v not a negative integer (the terms
    shrink at once: no cancellation to speak of)."""
    if v + 1.0 < 170.0:
        lead = (0.5 * x) ** v * rgamma1(v + 1.0)
    else:
        lead = math.exp(v * math.log(0.5 * x) - math.lgamma(v + 1.0))
    q = 0.25 * x * x * sgn
    s = 1.0
    term = 1.0
    k = 0
    while k < 1000:
        k += 1
        term *= q / (k * (v + k))
        s += term
        if abs(term) <= 1e-17 * abs(s):
            break
    return lead * s


def jv1(v, x):
    """The Bessel function of the first kind J_v(x), any real order (x < 0: integer orders
    only, nan otherwise, as SciPy): its power series for |x| <= 2, else Steed's method."""
    if v != v or x != x:
        return math.nan
    if abs(v) == math.inf:
        return 0.0 if v > 0.0 else math.nan
    integer = v == math.floor(v)
    sign = 1.0
    if integer and v < 0.0:         # J_-n = (-1)^n J_n
        v = -v
        if math.floor(0.5 * v) != 0.5 * v:
            sign = -1.0
    if x < 0.0:
        if not integer:
            return math.nan
        x = -x
        if math.floor(0.5 * v) != 0.5 * v:      # J_n(-x) = (-1)^n J_n(x)
            sign = -sign
    if x == 0.0:
        if v == 0.0:
            return 1.0
        if v > 0.0:
            return 0.0
        return math.copysign(math.inf, gammasgn1(v + 1.0))     # (x/2)^v / gamma(v + 1)
    if x == math.inf:
        return 0.0
    if x <= 2.0:
        return sign * bessel_series(v, x, -1.0)
    if v >= 0.0:
        return sign * bessel_jy(v, x)[0]
    j, y = bessel_jy(-v, x)     # J_-v = cos(pi v) J_v - sin(pi v) Y_v
    return sign * (cospi(-v) * j - sinpi(-v) * y)


def yv1(v, x):
    """The Bessel function of the second kind Y_v(x) (nan for x < 0, -inf at 0)."""
    if v != v or x != x or x < 0.0 or abs(v) == math.inf:
        return math.nan
    if x == 0.0:        # SciPy's signs at the pole
        return -math.inf if v >= 0.0 or math.ceil(-v - 0.5) % 2.0 == 0.0 else math.inf
    if x == math.inf:
        return 0.0
    if v >= 0.0:
        return bessel_jy(v, x)[1]
    j, y = bessel_jy(-v, x)     # Y_-v = sin(pi v) J_v + cos(pi v) Y_v
    return sinpi(-v) * j + cospi(-v) * y


def ive1(v, x):
    """e^-|x| I_v(x), any real order (x < 0: integer orders only): the power series for
    |x| <= 2, else Steed's method with K."""
    if v != v or x != x:
        return math.nan
    if abs(v) == math.inf:
        return 0.0 if v > 0.0 else math.nan
    integer = v == math.floor(v)
    if integer and v < 0.0:         # I_-n = I_n
        v = -v
    sign = 1.0
    if x < 0.0:
        if not integer:
            return math.nan
        x = -x
        if math.floor(0.5 * v) != 0.5 * v:      # I_n(-x) = (-1)^n I_n(x)
            sign = -1.0
    if x == 0.0:        # SciPy's values at the pole of a negative order: nan (iv: inf)
        if v == 0.0:
            return 1.0
        return 0.0 if v > 0.0 else math.nan
    if x == math.inf:
        return 0.0
    if x <= 2.0:
        return sign * bessel_series(v, x, 1.0) * math.exp(-x)
    if v >= 0.0:
        return sign * bessel_ik(v, x)[0]
    i, k = bessel_ik(-v, x)     # I_-v = I_v + (2 / pi) sin(pi v) K_v
    return sign * (i + 0.6366197723675814 * sinpi(-v) * k * math.exp(-2.0 * x))


def kve_asym(nu, x):
    """e^x K_nu(x) for large x by its asymptotic series (terms until they stop shrinking)."""
    mu = 4.0 * nu * nu
    term = 1.0
    s = 1.0
    for k in range(1, 60):
        nxt = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if abs(nxt) >= abs(term):
            break
        term = nxt
        s += term
        if abs(term) <= 1e-17 * abs(s):
            break
    return s * math.sqrt(math.pi / (2.0 * x))


def iv1(v, x):
    """The modified Bessel function of the first kind I_v(x)."""
    if x == 0.0 and v < 0.0 and v != math.floor(v):
        return math.inf
    if abs(x) == math.inf and v == v and abs(v) != math.inf:
        if x > 0.0:
            return math.inf
        if v != math.floor(v):
            return math.nan
        return math.inf if math.floor(0.5 * v) == 0.5 * v else -math.inf
    r = ive1(v, x)
    if r != r or r == 0.0 or abs(r) == math.inf:
        return r
    ax = abs(x)
    if ax > 700.0:
        lr = math.log(abs(r)) + ax
        if lr > 709.78:
            return math.copysign(math.inf, r)
        return math.copysign(math.exp(lr), r)
    return r * math.exp(ax)


def bessel_j0(x):
    return jv1(0.0, x)


def bessel_j1(x):
    return jv1(1.0, x)


def bessel_y0(x):
    return yv1(0.0, x)


def bessel_y1(x):
    return yv1(1.0, x)


# the elementwise versions (several operands arrive broadcast to one shape)

def gammasgn(x):
    """gammasgn1 elementwise."""
    if isinstance(x, (int, float)):
        return gammasgn1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = gammasgn1(v[k])
    return out.reshape(x.shape)


def j0(x):
    """bessel_j0 elementwise."""
    if isinstance(x, (int, float)):
        return bessel_j0(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = bessel_j0(v[k])
    return out.reshape(x.shape)


def j1(x):
    """bessel_j1 elementwise."""
    if isinstance(x, (int, float)):
        return bessel_j1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = bessel_j1(v[k])
    return out.reshape(x.shape)


def y0(x):
    """bessel_y0 elementwise."""
    if isinstance(x, (int, float)):
        return bessel_y0(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = bessel_y0(v[k])
    return out.reshape(x.shape)


def y1(x):
    """bessel_y1 elementwise."""
    if isinstance(x, (int, float)):
        return bessel_y1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = bessel_y1(v[k])
    return out.reshape(x.shape)


def gammainc(a, b):
    """gammainc1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return gammainc1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = gammainc1(u[k], v[k])
    return out.reshape(a.shape)


def gammaincc(a, b):
    """gammaincc1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return gammaincc1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = gammaincc1(u[k], v[k])
    return out.reshape(a.shape)


def gammainc_dx(a, b):
    """gammainc_dx1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return gammainc_dx1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = gammainc_dx1(u[k], v[k])
    return out.reshape(a.shape)


def jv(a, b):
    """jv1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return jv1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = jv1(u[k], v[k])
    return out.reshape(a.shape)


def yv(a, b):
    """yv1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return yv1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = yv1(u[k], v[k])
    return out.reshape(a.shape)


def iv(a, b):
    """iv1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return iv1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = iv1(u[k], v[k])
    return out.reshape(a.shape)


def ive(a, b):
    """ive1 elementwise (a and b of one shape)."""
    if isinstance(a, (int, float)):
        return ive1(a, b)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = ive1(u[k], v[k])
    return out.reshape(a.shape)


def betainc(a, b, x):
    """betainc1 elementwise (a, b and x of one shape)."""
    if isinstance(a, (int, float)):
        return betainc1(a, b, x)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    w = np.ascontiguousarray(x).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = betainc1(u[k], v[k], w[k])
    return out.reshape(a.shape)


def betainc_dx(a, b, x):
    """betainc_dx1 elementwise (a, b and x of one shape)."""
    if isinstance(a, (int, float)):
        return betainc_dx1(a, b, x)
    u = np.ascontiguousarray(a).ravel()
    v = np.ascontiguousarray(b).ravel()
    w = np.ascontiguousarray(x).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = betainc_dx1(u[k], v[k], w[k])
    return out.reshape(a.shape)


__all__ += ['log1pmx', 'igam_prefactor', 'rgamma1p_minus1', 'gammainc_pq', 'gammainc1', 'gammaincc1', 'gammainc_dx1', 'betacf', 'betainc1', 'log_betainc1', 'betainc_dx1', 'gammasgn1', 'bessel_series', 'sinpi', 'cospi', 'temme_gammas', 'hankel_pq', 'bessel_jy_large', 'bessel_jy', 'bessel_ik', 'jv1', 'yv1', 'ive1', 'kve_asym', 'iv1', 'bessel_j0', 'bessel_j1', 'bessel_y0', 'bessel_y1', 'gammasgn', 'j0', 'j1', 'y0', 'y1', 'gammainc', 'gammaincc', 'gammainc_dx', 'jv', 'yv', 'iv', 'ive', 'betainc', 'betainc_dx']


# -- issue 12, the rest of autograd's scipy.stats: Student's t CDF (through the incomplete
# beta function on the side where it is accurate), the Dirichlet log-density, the entropy of
# a multivariate normal

def t_cdf1(z, df):
    """Student's t CDF at z with df degrees of freedom: h = I_{df/(df+z^2)}(df/2, 1/2) / 2 in
    the lower tail (relative accuracy there), 1 - h in the upper one."""
    if z != z or df != df or df <= 0.0:
        return math.nan
    if z == math.inf:
        return 1.0
    if z == -math.inf:
        return 0.0
    zz = z * z
    h = 0.5 * betainc1(0.5 * df, 0.5, df / (df + zz))     # the lower tail, to its last digits
    return h if z <= 0.0 else 1.0 - h


def t_logcdf1(z, df):
    """log of t_cdf1, with the tail that is small taken as itself (log1p on the other)."""
    if z != z or df != df or df <= 0.0:
        return math.nan
    if z == math.inf:
        return 0.0
    if z == -math.inf:
        return -math.inf
    zz = z * z
    x = df / (df + zz)
    if z <= 0.0:        # the lower tail in log space: no underflow far out
        return -0.6931471805599453 + log_betainc1(0.5 * df, 0.5, x)
    return math.log1p(-0.5 * betainc1(0.5 * df, 0.5, x))


def t_cdf(z, df):
    """t_cdf1 elementwise (z and df of one shape)."""
    if isinstance(z, (int, float)):
        return t_cdf1(z, df)
    u = np.ascontiguousarray(z).ravel()
    v = np.ascontiguousarray(df).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = t_cdf1(u[k], v[k])
    return out.reshape(z.shape)


def t_logcdf(z, df):
    """t_logcdf1 elementwise (z and df of one shape)."""
    if isinstance(z, (int, float)):
        return t_logcdf1(z, df)
    u = np.ascontiguousarray(z).ravel()
    v = np.ascontiguousarray(df).ravel()
    out = np.empty(u.shape[0])
    for k in range(u.shape[0]):
        out[k] = t_logcdf1(u[k], v[k])
    return out.reshape(z.shape)


def dirichlet_logpdf(x, alpha):
    """scipy.stats.dirichlet.logpdf of x (a vector, or a matrix whose columns are the points,
    as SciPy takes them) at alpha, one value per point, with SciPy's checks (ValueError):
    alpha > 0, x in [0, 1] summing to 1 (1e-9), x > 0 where alpha < 1; x with one entry fewer
    than alpha is not supported here."""
    k = alpha.shape[0]
    for i in range(k):
        if not alpha[i] > 0.0:
            raise ValueError("All parameters must be greater than 0")
    xm = np.atleast_2d(x) if x.ndim == 2 else np.ascontiguousarray(x).reshape((x.shape[0], 1))
    if xm.shape[0] != k:
        raise ValueError("dirichlet: x must have one entry per entry of alpha here (SciPy's "
                         "x of one entry fewer is not supported)")
    n = xm.shape[1]
    lnb = 0.0
    tot = 0.0
    for i in range(k):
        lnb += math.lgamma(alpha[i])
        tot += alpha[i]
    lnb -= math.lgamma(tot)
    out = np.empty(n)
    for j in range(n):
        s = 0.0
        acc = 0.0
        for i in range(k):
            v = xm[i, j]
            if v < 0.0 or v > 1.0:
                raise ValueError("Each entry in 'x' must be greater than or equal to zero "
                                 "and less than or equal to one.")
            if v == 0.0 and alpha[i] < 1.0:
                raise ValueError("Each entry in 'x' must be greater than zero if its alpha "
                                 "is less than one.")
            s += v
            if alpha[i] != 1.0:
                acc += (alpha[i] - 1.0) * math.log(v)
        if abs(s - 1.0) > 1e-9:
            raise ValueError("The input vector 'x' must lie within the normal simplex. but "
                             "np.sum(x, 0) - 1.0 is not 0 (within 1e-9)")
        out[j] = acc - lnb
    return out


def dirichlet_alpha_adjoint(x, alpha, g):
    """d/d alpha of sum_j g_j logpdf(x[:, j]): sum_j g_j (digamma(sum alpha) - digamma(alpha)
    + log x[:, j]) (x a vector: one point)."""
    xm = np.atleast_2d(x) if x.ndim == 2 else np.ascontiguousarray(x).reshape((x.shape[0], 1))
    gs = np.atleast_1d(g)
    k = alpha.shape[0]
    tot = 0.0
    for i in range(k):
        tot += alpha[i]
    dt = digamma1(tot)
    out = np.zeros(k)
    for j in range(xm.shape[1]):
        for i in range(k):
            out[i] += gs[j] * (dt - digamma1(alpha[i]) + math.log(xm[i, j]))
    return out


def mvn_entropy(cov):
    """The entropy of a multivariate normal, d/2 (1 + log 2 pi) + log det(cov) / 2, by a
    Cholesky factor (ValueError if cov is not positive definite)."""
    L = chol(cov)
    d = L.shape[0]
    out = 0.5 * d * 2.8378770664093453
    for i in range(d):
        out += math.log(L[i, i])
    return out


def mvn_entropy_adjoint(cov, g):
    """d entropy / d cov = cov^-1 / 2 along symmetric perturbations, folded onto the lower
    triangle SciPy reads (as mvn_cov_adjoint)."""
    L = chol(cov)
    return sym_lower_adjoint(0.5 * g * chol_solve(L, np.eye(L.shape[0])))


def mvn_entropy_tangent(cov, t):
    """The tangent of the entropy along t (its lower triangle read, as chol): tr(cov^-1 S) / 2,
    S = sym_lower(t)."""
    L = chol(cov)
    inv = chol_solve(L, np.eye(L.shape[0]))
    s = sym_lower(t)
    out = 0.0
    for i in range(L.shape[0]):
        for j in range(L.shape[0]):
            out += inv[i, j] * s[j, i]
    return 0.5 * out


__all__ += ["t_cdf1", "t_logcdf1", "t_cdf", "t_logcdf", "dirichlet_logpdf",
            "dirichlet_alpha_adjoint", "mvn_entropy", "mvn_entropy_adjoint", "mvn_entropy_tangent"]


# -- issue 12, scipy.linalg: triangular and banded solves, the Sylvester equation and the
# principal square root, in loops and LAPACK calls Numba compiles

def tri_part(a, lower, unit):
    """The triangle of a that a triangular solve reads: lower or upper, the diagonal ones if
    `unit` (the stored diagonal is not read)."""
    n = a.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if (lower and j < i) or (not lower and j > i):
                out[i, j] = a[i, j]
        out[i, i] = 1.0 if unit else a[i, i]
    return out


def tri_solve(a, b, trans, lower, unit):
    """scipy.linalg.solve_triangular(a, b, trans, lower, unit_diagonal): op(T) x = b by
    substitution, T the triangle of a read (tri_part), op(T) = T or T^T (trans 0 or 1); b a
    vector or a matrix of columns. LinAlgError at a zero diagonal entry, as SciPy."""
    n = a.shape[0]
    if a.shape[1] != n:
        raise ValueError("expected square matrix")
    if b.shape[0] != n:
        raise ValueError("shapes of a and b are incompatible")
    t = tri_part(a, lower, unit)
    if trans == 1:
        t = np.ascontiguousarray(t.T)
        lower = not lower
    bm = np.ascontiguousarray(b).reshape((n, b.size // n if n else 0))
    x = np.empty(bm.shape)
    for c in range(bm.shape[1]):
        for step in range(n):
            i = step if lower else n - 1 - step
            s = bm[i, c]
            if lower:
                for k in range(i):
                    s -= t[i, k] * x[k, c]
            else:
                for k in range(i + 1, n):
                    s -= t[i, k] * x[k, c]
            if t[i, i] == 0.0:
                raise np.linalg.LinAlgError("singular matrix: resolution failed at a zero "
                                            "diagonal entry")
            x[i, c] = s / t[i, i]
    return x.reshape(b.shape)


def tri_solve_a_adjoint(a, x, g, trans, lower, unit):
    """The adjoint in a of x = tri_solve(a, b, ...): with gb = op(T)^-T g, dT = -gb x^T (or its
    transpose for trans 1), kept on the triangle read (the strict one if `unit`)."""
    return tri_outer(-tri_solve(a, g, 1 - trans, lower, unit), x, trans, lower, unit)


def tri_mul(t, x, trans, lower, unit):
    """op(T') x, T' the part of t a triangular solve reads (its diagonal not, if `unit`): what
    a tangent t of the matrix moves op(T) x by."""
    n = t.shape[0]
    p = tri_part(t, lower, False)
    if unit:
        for i in range(n):
            p[i, i] = 0.0
    if trans == 1:
        p = np.ascontiguousarray(p.T)
    xm = np.ascontiguousarray(x).reshape((n, x.size // n if n else 0))
    return (p @ xm).reshape(x.shape)


def tri_outer(c, x, trans, lower, unit):
    """c x^T (its transpose for trans 1) on the part of a matrix a triangular solve reads (its
    diagonal not, if `unit`): tri_mul's adjoint in the matrix. tri_mul and tri_outer are each
    other's adjoints, so derivatives of every order stay in the two."""
    n = c.shape[0]
    cm = np.ascontiguousarray(c).reshape((n, c.size // n if n else 0))
    xm = np.ascontiguousarray(x).reshape((n, x.size // n if n else 0))
    d = cm @ xm.T
    if trans == 1:
        d = np.ascontiguousarray(d.T)
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if (lower and j < i) or (not lower and j > i) or (i == j and not unit):
                out[i, j] = d[i, j]
    return out


def banded_full(ab, lu):
    """The square matrix of scipy's banded storage: a[i, j] = ab[u + i - j, j] within the
    band (l below the diagonal, u above), zero outside."""
    lo, up = lu
    n = ab.shape[1]
    if ab.shape[0] != lo + up + 1:
        raise ValueError("invalid values for the number of lower and upper diagonals: "
                         "ab must have l + u + 1 rows")
    a = np.zeros((n, n))
    for j in range(n):
        for i in range(max(0, j - up), min(n, j + lo + 1)):
            a[i, j] = ab[up + i - j, j]
    return a


def banded_pack(d, lu):
    """The banded storage of the band of d (banded_full's transpose: entries of ab outside the
    matrix get zero)."""
    lo, up = lu
    n = d.shape[0]
    ab = np.zeros((lo + up + 1, n))
    for j in range(n):
        for i in range(max(0, j - up), min(n, j + lo + 1)):
            ab[up + i - j, j] = d[i, j]
    return ab


def banded_solve(ab, b, lu):
    """scipy.linalg.solve_banded(lu, ab, b) through LAPACK's dense solve of the band's matrix
    (b a vector or a matrix of columns); LinAlgError where the matrix is singular."""
    a = banded_full(ab, lu)
    if b.shape[0] != a.shape[0]:
        raise ValueError("shapes of ab and b are incompatible")
    return np.linalg.solve(a, np.ascontiguousarray(b))


def banded_ab_adjoint(ab, x, g, lu):
    """The adjoint in ab of x = banded_solve(ab, b, lu): -(A^-T g) x^T on the band, packed."""
    a = banded_full(ab, lu)
    gb = np.linalg.solve(np.ascontiguousarray(a.T), np.ascontiguousarray(g))
    n = a.shape[0]
    gbm = np.ascontiguousarray(gb).reshape((n, gb.size // n if n else 0))
    xm = np.ascontiguousarray(x).reshape((n, x.size // n if n else 0))
    return banded_pack(-(gbm @ xm.T), lu)


def sylvester(a, b, q):
    """X with A X + X B = Q (scipy.linalg.solve_sylvester), by the Kronecker form
    (I (x) A + B^T (x) I) vec X = vec Q solved with LAPACK: O((n m)^3), for the small
    matrices jitad's users pass; LinAlgError where A and -B share an eigenvalue."""
    n = a.shape[0]
    m = b.shape[0]
    if a.shape[1] != n or b.shape[1] != m or q.shape[0] != n or q.shape[1] != m:
        raise ValueError("solve_sylvester: a (n, n), b (m, m) and q (n, m) do not match")
    k = np.zeros((n * m, n * m))
    for j in range(m):
        for i in range(n):
            r = i + j * n
            for c in range(n):
                k[r, c + j * n] += a[i, c]
            for c in range(m):
                k[r, i + c * n] += b[c, j]
    rhs = np.empty(n * m)
    for j in range(m):
        for i in range(n):
            rhs[i + j * n] = q[i, j]
    v = np.linalg.solve(k, rhs)
    out = np.empty((n, m))
    for j in range(m):
        for i in range(n):
            out[i, j] = v[i + j * n]
    return out


def sylvester_t(a, b, g):
    """sylvester(a^T, b^T, g): what the adjoints of solve_sylvester and sqrtm solve."""
    return sylvester(np.ascontiguousarray(a.T), np.ascontiguousarray(b.T), g)


def sqrtm(a):
    """The principal square root of a real matrix with no eigenvalue on the closed negative
    real axis (scipy.linalg.sqrtm where its result is real), by the scaled Denman-Beavers
    iteration; ValueError where it does not converge (a negative or zero eigenvalue: SciPy's
    result is complex or singular there, and jitad differentiates real matrices)."""
    n = a.shape[0]
    if a.shape[1] != n:
        raise ValueError("scipy.linalg.sqrtm takes a square matrix")
    y = np.ascontiguousarray(a).copy()
    z = np.eye(n)
    for it in range(100):
        dy = np.linalg.det(y)
        dz = np.linalg.det(z)
        if not (dy != 0.0 and dz != 0.0 and np.isfinite(dy) and np.isfinite(dz)):
            break
        g = abs(dy * dz) ** (-0.5 / n) if it < 10 else 1.0      # determinant scaling
        yi = np.linalg.inv(y)
        zi = np.linalg.inv(z)
        ny = 0.5 * (g * y + zi / g)
        nz = 0.5 * (g * z + yi / g)
        diff = 0.0
        size = 0.0
        for i in range(n):
            for j in range(n):
                diff += (ny[i, j] - y[i, j]) ** 2
                size += ny[i, j] ** 2
        y = ny
        z = nz
        if diff <= 1e-30 * size and it >= 10:
            r = y @ y - a      # the square must be a: a negative eigenvalue converges elsewhere
            err = 0.0
            norm = 0.0
            for i in range(n):
                for j in range(n):
                    err += r[i, j] ** 2
                    norm += a[i, j] ** 2
            if err <= 1e-16 * max(norm, 1e-300):
                return y
            break
    raise ValueError("scipy.linalg.sqrtm: the matrix has no real principal square root "
                     "jitad can differentiate (an eigenvalue on the negative real axis, or "
                     "a singular matrix)")


def sqrtm_adjoint(x, g):
    """The adjoint of X = sqrtm(A): the Z with X^T Z + Z X^T = G."""
    return sylvester_t(x, x, g)


def sqrtm_tangent(x, t):
    """The tangent of X = sqrtm(A) along t: the dX with X dX + dX X = t."""
    return sylvester(x, x, t)


__all__ += ["tri_part", "tri_solve", "tri_solve_a_adjoint", "tri_mul", "tri_outer", "banded_full",
            "banded_pack", "banded_solve", "banded_ab_adjoint", "sylvester", "sylvester_t",
            "sqrtm", "sqrtm_adjoint", "sqrtm_tangent"]


# -- issue 12, scipy.signal.convolve of two vectors or two matrices (direct sums), its modes
# as SciPy defines them: 'full', 'same' (centred on in1) and 'valid' (the larger operand
# slid over the smaller; the operands must be ordered one way in every axis)

def sconv_window(n, m, mode):
    """(start, length) of the output along an axis of lengths n (in1) and m (in2), in the
    full convolution's coordinates: mode 0 full, 1 same, 2 valid."""
    full = n + m - 1
    if mode == 0:
        return 0, full
    if mode == 1:
        return (full - n) // 2, n
    return min(n, m) - 1, max(n, m) - min(n, m) + 1


def sconv_check(a, v, mode):
    if mode == 2:
        ge = True
        le = True
        for k in range(a.ndim):
            ge = ge and a.shape[k] >= v.shape[k]
            le = le and a.shape[k] <= v.shape[k]
        if not (ge or le):
            raise ValueError("For 'valid' mode, one must be at least as large as the other "
                             "in every dimension")


def sconv2(a, v, mode):
    """scipy.signal.convolve(a, v, mode) of two matrices (vectors: as one row)."""
    sconv_check(a, v, mode)
    r0, nr = sconv_window(a.shape[0], v.shape[0], mode)
    c0, nc = sconv_window(a.shape[1], v.shape[1], mode)
    out = np.zeros((nr, nc))
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            aij = a[i, j]
            for p in range(v.shape[0]):
                r = i + p - r0
                if r < 0 or r >= nr:
                    continue
                for q in range(v.shape[1]):
                    c = j + q - c0
                    if 0 <= c < nc:
                        out[r, c] += aij * v[p, q]
    return out


def sconv2_adjoint(g, other, shape, mode, first):
    """The adjoint of sconv2 in one operand (of `shape`; `first`: in1, whose size the 'same'
    window follows) given the other: the correlation of g, placed in the full output, with
    the other operand."""
    if first:
        n0, n1, m0, m1 = shape[0], shape[1], other.shape[0], other.shape[1]
    else:
        n0, n1, m0, m1 = other.shape[0], other.shape[1], shape[0], shape[1]
    r0, nr = sconv_window(n0, m0, mode)
    c0, nc = sconv_window(n1, m1, mode)
    out = np.zeros((shape[0], shape[1]))
    for i in range(shape[0]):
        for j in range(shape[1]):
            s = 0.0
            for p in range(other.shape[0]):
                r = i + p - r0
                if r < 0 or r >= nr:
                    continue
                for q in range(other.shape[1]):
                    c = j + q - c0
                    if 0 <= c < nc:
                        s += g[r, c] * other[p, q]
            out[i, j] = s
    return out


def sconv(a, v, mode):
    """scipy.signal.convolve of two vectors or two matrices."""
    if a.ndim == 1:
        return sconv2(a.reshape((1, a.shape[0])), v.reshape((1, v.shape[0])), mode)[0]
    return sconv2(np.ascontiguousarray(a), np.ascontiguousarray(v), mode)


def sconv_adjoint(g, other, x, mode, first):
    """The adjoint of sconv in its operand x (in1 if `first`), the other operand given."""
    if x.ndim == 1:
        return sconv2_adjoint(g.reshape((1, g.shape[0])), other.reshape((1, other.shape[0])),
                              (1, x.shape[0]), mode, first)[0]
    return sconv2_adjoint(np.ascontiguousarray(g), np.ascontiguousarray(other), x.shape, mode,
                          first)


__all__ += ["sconv_window", "sconv_check", "sconv2", "sconv2_adjoint", "sconv", "sconv_adjoint"]


# -- issue 12, NumPy: np.partition (NumPy's own permutation, through object mode: Numba's
# quickselect orders the other entries differently) and the FFT shifts

def partition_perm(x, kth, axis):
    """NumPy's np.argpartition(x, kth, axis) laid out as sort_perms (over as3(x, axis)), the
    permutation np.partition applies (the same introselect): computed by NumPy itself, so the
    partitioned array is NumPy's to the last entry."""
    t = np.ascontiguousarray(as3(x, axis))
    with numba.objmode(perms="int64[:, :, ::1]"):
        perms = np.ascontiguousarray(np.argpartition(t, kth, axis=1)).astype(np.int64)
    return perms


def partition(x, kth, axis):
    """np.partition(x, kth, axis) as NumPy orders it."""
    return lane_gather(x, axis, partition_perm(x, kth, axis))


def partition_adjoint(x, g, kth, axis):
    return lane_scatter(g, axis, partition_perm(x, kth, axis))


def partition_tangent(x, t, kth, axis):
    return lane_gather(t, axis, partition_perm(x, kth, axis))


def fftshift(x, inverse):
    """np.fft.fftshift of every axis (ifftshift with `inverse`): a roll by half each axis."""
    out = x.copy()
    for a in range(x.ndim):
        n = x.shape[a]
        out = roll_axis(out, (-(n // 2)) if inverse else n // 2, a)
    return out


__all__ += ["partition_perm", "partition", "partition_adjoint", "partition_tangent", "fftshift"]


# -- issue 12, the FFTs: NumPy's own (pocketfft) called in object mode on a (outer, n, inner)
# view of the array (`as3`), so that every rank and axis is one helper; the adjoints are the
# transforms' transposes (the DFT matrix is symmetric), resized to the operand's length

FFT_NORMS = ("backward", "ortho", "forward")


def fft_n(length, n):
    """The transform length: n, or the operand's length along the axis (n < 0: not given)."""
    return length if n < 0 else n


def irfft_n(length, n):
    """irfft's output length: n, or 2 (m - 1) for m input entries."""
    return 2 * (length - 1) if n < 0 else n


def fft3(t, n, inverse, norm):
    """np.fft.fft (ifft with `inverse`) along axis 1 of a 3-D array, n entries (n < 0: its
    length), norm a code of FFT_NORMS."""
    m = t.shape[1] if n < 0 else n
    with numba.objmode(out="complex128[:, :, ::1]"):
        f = np.fft.ifft if inverse else np.fft.fft
        out = np.ascontiguousarray(f(t, m, axis=1, norm=FFT_NORMS[norm]), dtype=np.complex128)
    return out


def rfft3(t, n, norm):
    """np.fft.rfft along axis 1 of a real 3-D array."""
    m = t.shape[1] if n < 0 else n
    with numba.objmode(out="complex128[:, :, ::1]"):
        out = np.ascontiguousarray(np.fft.rfft(t, m, axis=1, norm=FFT_NORMS[norm]),
                                   dtype=np.complex128)
    return out


def irfft3(t, n, norm):
    """np.fft.irfft along axis 1 of a 3-D array (n < 0: 2 (m - 1) entries)."""
    m = 2 * (t.shape[1] - 1) if n < 0 else n
    with numba.objmode(out="float64[:, :, ::1]"):
        out = np.ascontiguousarray(np.fft.irfft(t, m, axis=1, norm=FFT_NORMS[norm]),
                                   dtype=np.float64)
    return out


def resize3(t, length):
    """t along axis 1 truncated or padded with zeros to `length` entries (what fft(x, n) does
    to x; its transpose on the way back)."""
    out = np.zeros((t.shape[0], length, t.shape[2]), t.dtype)
    k = min(length, t.shape[1])
    for i in range(t.shape[0]):
        for j in range(k):
            for l in range(t.shape[2]):
                out[i, j, l] = t[i, j, l]
    return out


def irfft3_adjoint(g, length, norm):
    """The adjoint of irfft3 (N = g's length along axis 1) in an operand of `length` entries:
    c ifft(g)[:N // 2 + 1], c = 1 at 0 and (N even) at N / 2, 2 elsewhere -- the entries
    irfft reads once or as a conjugate pair -- resized to `length` (NumPy's irfft pads or
    truncates its input to N // 2 + 1 entries)."""
    big = g.shape[1]
    m = big // 2 + 1
    w = fft3(g, -1, True, norm)
    out = np.zeros((g.shape[0], length, g.shape[2]), np.complex128)
    for i in range(g.shape[0]):
        for j in range(min(m, length)):
            c = 1.0 if j == 0 or (big % 2 == 0 and j == big // 2) else 2.0
            for l in range(g.shape[2]):
                out[i, j, l] = c * w[i, j, l]
    return out


def fft_same(x, axis, inverse, norm):
    """np.fft.fft (ifft with `inverse`) of x along `axis`, its length kept: x's shape."""
    return fft3(as3(x, axis), -1, inverse, norm).reshape(x.shape)


__all__ += ["fft_n", "irfft_n", "fft3", "rfft3", "irfft3", "resize3", "irfft3_adjoint",
            "fft_same"]
CONSTANTS = CONSTANTS + ("FFT_NORMS",)


# -- issue 12, np.linalg.eig: LAPACK's (NumPy's, in object mode: Numba's refuses a real matrix
# with complex eigenvalues), always complex; distinct eigenvalues. Each eigenvector has norm 1
# and its largest entry real (LAPACK's gauge): its derivative is the one in V's basis with no
# component along itself, dv' = V (E o C), C = V^-1 dA V, E[i, j] = 1 / (w_j - w_i) off the
# diagonal, plus alpha v with Re(alpha) keeping the norm and Im(alpha) the largest entry real

def eig(x):
    """np.linalg.eig(x) as complex arrays (w, V)."""
    with numba.objmode(w="complex128[::1]", v="complex128[:, ::1]"):
        w0, v0 = np.linalg.eig(x)
        w = np.ascontiguousarray(w0, dtype=np.complex128)
        v = np.ascontiguousarray(v0, dtype=np.complex128)
    return w, v


def eig_w(x):
    return eig(x)[0]


def eig_v(x):
    return eig(x)[1]


def eig_gaps(w):
    """E[i, j] = 1 / (w_j - w_i) for i != j, 0 on the diagonal (distinct eigenvalues)."""
    n = w.shape[0]
    e = np.zeros((n, n), np.complex128)
    for i in range(n):
        for j in range(n):
            if i != j:
                e[i, j] = 1.0 / (w[j] - w[i])
    return e


def eig_pivots(v):
    """The row of each eigenvector's largest entry (the one LAPACK makes real)."""
    n = v.shape[0]
    k = np.zeros(v.shape[1], np.int64)
    for j in range(v.shape[1]):
        best = -1.0
        for i in range(n):
            a = abs(v[i, j])
            if a > best:
                best = a
                k[j] = i
    return k


def eig_adjoint(x, gw, gv):
    """The adjoint of (w, V) = eig(x) for cotangents gw, gv (docs/architecture.md's
    convention): V^-T (diag(gw) + E o (V^T gv')) V^T, gv' the eigenvectors' cotangent through
    the gauge (gv - Re(s) conj(v) - i Im(s) / v[k] e_k per column, s = gv^T v)."""
    w, v = eig(np.ascontiguousarray(x))
    n = w.shape[0]
    k = eig_pivots(v)
    g2 = gv.astype(np.complex128).copy()
    for j in range(n):
        s = 0.0 + 0.0j
        for i in range(n):
            s += gv[i, j] * v[i, j]
        for i in range(n):
            g2[i, j] -= s.real * np.conj(v[i, j])
        g2[k[j], j] -= 1j * s.imag / v[k[j], j].real
    inner = eig_gaps(w) * (v.T @ g2)
    for i in range(n):
        inner[i, i] += gw[i]
    vt = np.ascontiguousarray(v.T)
    return np.linalg.solve(vt, inner @ vt)


def eig_w_adjoint(x, g):
    n = x.shape[0]
    return eig_adjoint(x, g, np.zeros((n, n), np.complex128))


def eig_v_adjoint(x, g):
    return eig_adjoint(x, np.zeros(x.shape[0], np.complex128), g)


def eig_tangent(x, t):
    """(dw, dV) of eig(x) along t: dw = diag(C), dV = V (E o C) + V diag(alpha), C =
    V^-1 t V, alpha as the gauge requires (see above)."""
    w, v = eig(np.ascontiguousarray(x))
    n = w.shape[0]
    c = np.linalg.solve(v, t.astype(np.complex128) @ v)
    dw = np.empty(n, np.complex128)
    for i in range(n):
        dw[i] = c[i, i]
    dv = v @ (eig_gaps(w) * c)
    k = eig_pivots(v)
    for j in range(n):
        b = 0.0 + 0.0j
        for i in range(n):
            b += np.conj(v[i, j]) * dv[i, j]
        alpha = -b.real - 1j * dv[k[j], j].imag / v[k[j], j].real
        for i in range(n):
            dv[i, j] += alpha * v[i, j]
    return dw, dv


__all__ += ["eig", "eig_w", "eig_v", "eig_gaps", "eig_pivots", "eig_adjoint", "eig_w_adjoint",
            "eig_v_adjoint", "eig_tangent"]


# -- the inverse of the standard normal CDF (scipy.special.ndtri, scipy.stats.norm.ppf / isf)

def ndtri1(p):
    """x with ndtr(x) = p, 0 < p < 1 (-inf at 0, inf at 1, nan outside): Wichura's rational
    approximations (AS 241, PPND16; relative error ~1e-16), the tails by r = sqrt(-log(min(p,
    1 - p))), 1 - p exact for p >= 0.5."""
    if not 0.0 < p < 1.0:
        if p == 0.0:
            return -math.inf
        if p == 1.0:
            return math.inf
        return math.nan
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        num = (((((((2.5090809287301226727e3 * r + 3.3430575583588128105e4) * r
                    + 6.7265770927008700853e4) * r + 4.5921953931549871457e4) * r
                  + 1.3731693765509461125e4) * r + 1.9715909503065514427e3) * r
                + 1.3314166789178437745e2) * r + 3.3871328727963666080e0)
        den = (((((((5.2264952788528545610e3 * r + 2.8729085735721942674e4) * r
                    + 3.9307895800092710610e4) * r + 2.1213794301586595867e4) * r
                  + 5.3941960214247511077e3) * r + 6.8718700749205790830e2) * r
                + 4.2313330701600911252e1) * r + 1.0)
        return q * num / den
    r = p if q < 0.0 else 1.0 - p
    r = math.sqrt(-math.log(r))
    if r <= 5.0:
        r -= 1.6
        num = (((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r
                    + 2.41780725177450611770e-1) * r + 1.27045825245236838258e0) * r
                  + 3.64784832476320460504e0) * r + 5.76949722146069140550e0) * r
                + 4.63033784615654529590e0) * r + 1.42343711074968357734e0)
        den = (((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r
                    + 1.51986665636164571966e-2) * r + 1.48103976427480074590e-1) * r
                  + 6.89767334985100004550e-1) * r + 1.67638483018380384940e0) * r
                + 2.05319162663775882187e0) * r + 1.0)
    else:
        r -= 5.0
        num = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r
                    + 1.24266094738807843860e-3) * r + 2.65321895265761230930e-2) * r
                  + 2.96560571828504891230e-1) * r + 1.78482653991729133580e0) * r
                + 5.46378491116411436990e0) * r + 6.65790464350110377720e0)
        den = (((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r
                    + 1.84631831751005468180e-5) * r + 7.86869131145613259100e-4) * r
                  + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r
                + 5.99832206555887937690e-1) * r + 1.0)
    x = num / den
    return -x if q < 0.0 else x


def ndtri(x):
    """ndtri1 elementwise."""
    if isinstance(x, (int, float)):
        return ndtri1(x)
    v = np.ascontiguousarray(x).ravel()
    out = np.empty(v.shape[0])
    for k in range(v.shape[0]):
        out[k] = ndtri1(v[k])
    return out.reshape(x.shape)


__all__ += ["ndtri1", "ndtri"]


# -- np.gradient of any rank along one axis, a scalar spacing h (edge_order=1)

def gradient3(t, h):
    """np.gradient of t (outer, n, inner) along its middle axis: central differences inside,
    one-sided at the two ends, divided by the spacing h."""
    a, n, b = t.shape
    if n < 2:
        raise ValueError("np.gradient needs at least 2 entries along the axis")
    out = np.empty((a, n, b))
    for i in range(a):
        for k in range(b):
            out[i, 0, k] = (t[i, 1, k] - t[i, 0, k]) / h
            out[i, n - 1, k] = (t[i, n - 1, k] - t[i, n - 2, k]) / h
            for j in range(1, n - 1):
                out[i, j, k] = (t[i, j + 1, k] - t[i, j - 1, k]) / (2.0 * h)
    return out


def gradient3_adjoint(g, h):
    """The transpose of gradient3 (g shaped like its result)."""
    a, n, b = g.shape
    d = np.zeros((a, n, b))
    for i in range(a):
        for k in range(b):
            d[i, 1, k] += g[i, 0, k] / h
            d[i, 0, k] -= g[i, 0, k] / h
            d[i, n - 1, k] += g[i, n - 1, k] / h
            d[i, n - 2, k] -= g[i, n - 1, k] / h
            for j in range(1, n - 1):
                d[i, j + 1, k] += g[i, j, k] / (2.0 * h)
                d[i, j - 1, k] -= g[i, j, k] / (2.0 * h)
    return d


def gradient_axis(x, h, axis):
    """np.gradient(x, h, axis=axis) (edge_order=1) of an array of any rank >= 1."""
    return gradient3(as3(x, axis), h).reshape(x.shape)


def gradient_axis_adjoint(g, h, axis):
    """The transpose of gradient_axis (linear in x)."""
    return gradient3_adjoint(as3(g, axis), h).reshape(g.shape)


__all__ += ["gradient3", "gradient3_adjoint", "gradient_axis", "gradient_axis_adjoint"]


def trailing_fit(g, a):
    """Whether a's shape is g's trailing axes (no length-1 broadcasting)."""
    if a.ndim > g.ndim:
        return False
    for k in range(a.ndim):
        if a.shape[a.ndim - 1 - k] != g.shape[g.ndim - 1 - k]:
            return False
    return True
__all__ += ["trailing_fit"]
