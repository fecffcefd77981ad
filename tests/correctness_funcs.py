"""Functions for tests/test_correctness.py: the silent-wrong-result cases of issue 9, reduced."""
import functools
import math

import numpy as np


# -- a view read, then overwritten ---------------------------------------------------------
def row_alias(w, st):
    s = st.copy()
    total = 0.0
    for t in range(2):
        y = w * s[0]
        s[0] = y
        total += np.sum(y)
    return total


def scale_row(r, w):
    return r * w + 0.1


def row_alias_helper(w, st):
    s = st.copy()
    total = 0.0
    for i in range(2):
        y = scale_row(s[2 * i], w)
        s[2 * i] = np.tanh(y)
        total += np.sum(y * y)
    return total


def view_then_write_in_branch(w, st):
    s = st.copy()
    total = 0.0
    for t in range(3):
        r = s[1]
        z = np.sin(r * w)
        total += np.sum(z * r)
        if total < 100.0:
            s[1] = z * 2.0
    return total


def transposed_view(w, st):
    s = st.copy()
    total = 0.0
    for t in range(2):
        v = s.T
        y = np.sum(v[0] * w)
        s[0, 0] = y
        total += y * y
    return total


# -- tape capacity -------------------------------------------------------------------------
def push_after_inner_loop(x, n, m, a):
    main = np.zeros(m)
    tot = 0.0
    for i in range(n):
        for j in range(m):
            t = 0.0
            for k in range(a):
                t += math.sin(x * (k + 1.0))
            main[j] = t * x
        tot += np.sum(main * main)
    return tot


def push_after_while(x, n, a):
    tot = 0.0
    for i in range(n):
        t = x
        c = 0
        while c < a:
            t = math.sin(t) + x
            c += 1
        tot = tot * 0.5 + t * t
    return tot


def push_after_branch_loop(x, n, a):
    tot = 0.0
    for i in range(n):
        t = x * i
        if i % 2 == 0:
            for k in range(a):
                t = math.cos(t) * x
            t = t * t
        tot = math.sin(tot) + t
    return tot


# -- index bounds ----------------------------------------------------------------------
def read_at(x, i):
    return x[i] * 2.0


def write_at(x, i):
    s = np.zeros(3)
    s[i] = x[0]
    return np.sum(s * s)


def gather(x, idx):
    return np.sum(x[idx] * x[idx])


def shifted_loop(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i + 1]
    return s


def strided_loop(x, n):
    s = 0.0
    for i in range(n):
        s += x[2 * i + 1] * x[i]
    return s


def read_2d(x, i, j):
    return x[i, j] * x[i, j]


def guarded_read(x, n):
    s = 0.0
    for i in range(n):
        if i < x.shape[0]:
            s += x[i] * x[i]
    return s


def rows_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    for row in x:
        s += row * 2.0
    return s


def bpr_loss(U, V, u, i, j):
    x = np.dot(U[u], V[i]) - np.dot(U[u], V[j])
    return math.log1p(math.exp(-x))


# -- captured values -----------------------------------------------------------------------
SCALE = 2.0


def uses_global(x):
    return SCALE * x * x


def make_closure(c):
    def f(x):
        return c * math.sin(x)
    return f


def helper_a(x):
    return x * x


def calls_helper(x):
    return helper_a(x) + x


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


@doubled
def cube(x):
    return x * x * x


def cube_plain(x):
    return x * x * x


def vector_out(x):
    return x * x


def first_row(s):
    return s[0]


def alias_through_helper(w, st):
    s = st.copy()
    r = first_row(s)             # a view of s, made by a helper
    s[0] = w * 3.0               # ... which this write changes before r is read
    return np.sum(r * w)


def fresh_from_helper(w, st):
    s = st.copy()
    r = scale_row(s[0], w)       # a new array: the write below cannot change it
    s[0] = w * 3.0
    return np.sum(r * w) + np.sum(s * s)


# -- writes an alias may observe: decided on the control-flow graph ------------------------
def dead_view_around_loop(x):       # the row view is dead before the next iteration's write
    S = np.zeros((3, 4))
    for i in range(2):
        S[2] += x
        u = np.sin(S[i])
    return np.sum(S) + np.sum(u)


def view_made_before_loop(x):       # r is read after the loop's write changed it
    S = np.zeros((3, 4))
    r = S[1]
    t = 0.0
    for i in range(2):
        S[1] += x
        t = np.sum(r * x)
    return t


def view_rebound_before_write(x):   # S points at another buffer before the write
    S = np.zeros(4)
    r = S[1:]
    S = np.ones(4)
    S[1] = x[0]
    return np.sum(r * x[1:]) + np.sum(S * x)


def view_read_next_iteration(x):    # r from the last iteration, after this one's write
    S = np.zeros((3, 4))
    t = 0.0
    for i in range(3):
        if i > 0:
            t += np.sum(r * x)
        r = S[0]
        S[0] = x * i
    return t + np.sum(S)


def loop_local_read_after_loop(x):
    for j in range(3):
        t = x[j] * 2.0
    return t


def loop_local_nested(x):
    s = 0.0
    for i in range(2):
        for j in range(3):
            t = x[j] * x[i]
        s += t * x[i]
    return s


def loop_variable_reused(x, X):     # two loops assign `row`: each iteration resets its adjoint
    s = 0.0
    for row in X:
        s += np.sum(row) * x
    for row in X:
        s = s + row[1]
    return s


def never_ends(x):
    while x > -1.0:               # sin keeps x above -1: it never stops
        x = math.sin(x) + 0.5 * x
    return x


def no_base_case(x, n):           # n never reaches 0 for n < 0
    if n == 0:
        return x
    return math.sin(no_base_case(x, n - 1))


# -- adjoints of values whose shape changes from one iteration to the next ---------------------
def causal_prefix_attention(q, K, V):
    """Attention over a growing prefix: s, p and K[:t + 1] get longer every step. Their
    adjoints used to start as zeros shaped like the last step's values (a NaN gradient, or
    an IndexError under bounds checking)."""
    out = 0.0
    for t in range(K.shape[0]):
        s = K[:t + 1] @ q
        p = np.exp(s - np.max(s))
        p = p / np.sum(p)
        out += np.sum(p @ V[:t + 1])
    return out


def list_of_varying_length(x, M):
    """A list made in each iteration, grown under a test: its stack's length varies."""
    acc = 0.0
    for i in range(M.shape[0]):
        hs = [math.sin(i) * x[0]]
        if M[i, 0] > 0.0:
            hs.append(x[1] * M[i, 1])
        acc = acc + np.sum(np.stack(hs) ** 2)
    return acc


def fixed_shapes_in_a_loop(W, V, xs):
    """Arrays made in each iteration whose shapes are the parameters' (`W @ h`: W's rows, the
    tanh of a broadcast of rows): one shape for the call, so the adjoint's zeros take the last
    value's shape and `a`, `b` (read by the adjoint for nothing else) are not taped."""
    h = np.zeros(W.shape[0])
    s = 0.0
    for t in range(xs.shape[0]):
        a = W @ h
        b = V @ h
        h = np.tanh(a + b + xs[t])
        s = s + h[0] * h[1]
    return s


def shrinking_in_a_loop(x):
    """A name rebound to a shorter slice of itself (a binomial tree's backward induction): the
    adjoint restarted as zeros shaped like the shorter value (a silently wrong gradient)."""
    for i in range(2):
        x = x[1:] * 2.0
    return np.sum(x)


def shrinking_once(k):
    v = k * np.ones(3)
    v = v[:-1]
    return np.sum(v * v)


def concat_parts_varying(A, W):
    """ADBench GMM's column-by-column lower triangle: in a loop, np.concatenate of an inactive
    part whose size changes each iteration and a slice; the adjoint placed each part's slice
    by the last iteration's sizes (a silently wrong gradient, uninitialised entries in 2-D)."""
    cols = []
    start = 0
    for j in range(3):
        m = 2 - j
        cols.append(np.concatenate((np.zeros((A.shape[0], j + 1)), A[:, start:start + m]), axis=1))
        start += m
    return np.sum(np.stack(cols, axis=2) * W)


def concat_parts_varying_1d(a, w):
    s = 0.0
    start = 0
    for j in range(3):
        m = 2 - j
        c = np.concatenate((np.zeros(j + 1), a[start:start + m]))
        s = s + np.sum(c * w[j])
        start += m
    return s


def swapped_recursion(x, y, n):     # the recursive call moves the differentiated value to y
    if n == 0:
        return x * y * y
    return swapped_recursion(y, x * 1.5, n - 1)


# held-out corpus #4 (heston_mc): a mask's cotangent multiplied by an infinite one was nan
def sqrt_of_clamped(v):
    return np.sum(np.sqrt(np.maximum(v, 0.0))) + np.sum(np.sqrt(np.clip(v, 0.0, None)))


# held-out corpus #4 (isotonic_penalty, elastic_net ...): two runs of different lengths
def two_lengths(x):
    v = x[:-1] * 2.0
    return np.sum(x * x) + np.sum(v)


# held-out corpus #4 (icp_point_to_plane): np.hstack's axis, and np.indices
def stacked_columns(a, b):
    A = np.hstack([a[:, None] * 2.0, b[:, None]])
    yy, xx = np.indices((2, 3))
    return np.sum(A * A) + np.sum(xx * a[0] + yy * b[1])


# a loop-carried value first assigned inside the loop: its adjoint was re-zeroed each
# iteration (the gradient dropped every read of an earlier iteration's value), and the
# compiled primal and jvp did not compile (Numba: "Variable 'prev' is not defined")
def carried_from_inside(x, n):
    s = 0.0
    for i in range(n):
        if i > 0:
            s = s + prev * x
        prev = x * i + math.sin(x)
    return s


def carried_array_from_inside(x, n):
    s = np.zeros(x.shape[0])
    for i in range(n):
        if i > 0:
            s = s + np.tanh(prev) * x
        prev = x * (i + 1.0)
    return np.sum(s)


def carried_in_while(x, n):
    s = 0.0
    i = 0
    while i < n:
        if i % 2 == 1:
            s = s + last * last
        else:
            last = x * (i + 1.0)
        i += 1
    return s


def carried_in_inner_loop(x, n):
    s = 0.0
    for j in range(2):
        for i in range(n):
            if i > 0:
                s = s + prev * x * (j + 1.0)
            prev = x + i
    return s
