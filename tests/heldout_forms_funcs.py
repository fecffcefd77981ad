"""Small functions for each mechanism held-out corpus #3 needed (tests/test_heldout_forms.py):
rank-3 matmul, variables that change rank between webs, tuples as local values, loops over
reversed(...), library calls without a rule, np.add.at, array methods. The refused ones mark
their offending line with `# ERR: <text the error names>`."""
import numpy as np


# -- @ / np.dot of rank-3 stacks -----------------------------------------------------------
def stack_times_vector(X, w):
    return np.sum(np.tanh(X @ w) ** 2)


def vector_times_stack(w, X):
    return np.sum(np.tanh(w @ X) ** 2)


def matrix_times_stack(M, X):
    return np.sum(np.tanh(M @ X) ** 2)


def dot_stack_vector(X, w):
    return np.sum(np.sin(np.dot(X, w)) + X.dot(w) ** 2)


def dot_matrix_stack(M, X):
    return np.sum(np.dot(M, X))  # ERR: np.dot of a rank-3 array and a matrix or stack


# -- webs: one variable per web of definitions and uses --------------------------------------
def heads(x, W):
    T, D = x.shape
    q, k, v = np.split(x @ W, 3, axis=-1)
    q = q.reshape(T, 2, D // 2).transpose(1, 0, 2)
    k = k.reshape(T, 2, D // 2).transpose(1, 0, 2)
    v = v.reshape(T, 2, D // 2).transpose(1, 0, 2)
    s = q @ k.transpose(0, 2, 1)
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    s = s / s.sum(axis=-1, keepdims=True)
    return np.sum((s @ v) ** 2)


def scalar_then_vector(x):
    y = 0.5
    y = x * y                       # the second y is a vector, the first a number
    return np.sum(y ** 2)


def loop_carried_then_summed(x, n):
    h = x
    for i in range(n):
        h = np.tanh(h * 1.1 + i)
    h = np.sum(h)
    return h * h


def parameter_reshaped(W, x):
    W = W.reshape(-1)
    return np.sum(W * x)


def ranks_meet(x, c):
    if c > 0:
        q = x * 2.0
    else:
        q = np.outer(x, x)  # ERR: 'q' is float[:] in one place and float[:,:] here
    return np.sum(q)


def second_web_ranks_meet(x, c):
    y = np.sum(x)
    y = x * y                       # a web of its own: y_2, named y in messages
    if c > 0:
        y = np.outer(x, x)  # ERR: 'y' is float[:] in one place and float[:,:] here
    return np.sum(y)


# -- tuples as local values ------------------------------------------------------------------
def cell(p, x, state):
    h, c = state
    W, U = p
    z = np.tanh(W @ x + U @ h)
    c = 0.5 * c + z
    return np.tanh(c), c


def recurrent(p, xs):
    H = p[1].shape[0]
    state = (np.zeros(H), np.zeros(H))
    outs = []
    for x in xs:
        state = cell(p, x, state)
        outs.append(np.sum(state[0]))
    h, c = state
    return sum(o * o for o in outs) + np.sum(h * c)


def carried_from_argument(h0c0, xs):
    state = h0c0                    # a tuple argument, then the helper's tuple results
    for x in xs:
        state = small_cell(state, x)
    return np.sum(state[0] * state[1])


def small_cell(state, x):
    h, c = state
    c = 0.5 * c + np.tanh(x * h)
    return np.tanh(c), c


def swap_in_loop(x, n):
    pair = (x, 2.0 * x)
    for i in range(n):
        new_pair = (np.tanh(pair[1]), pair[0] * 0.5)
        pair = new_pair
    return np.sum(pair[0] * pair[-1]) + len(pair)


def chosen_pair(x, c):
    st = (x, -x) if c > 0 else (-x, x)
    a, b = st
    return np.sum(a * np.exp(b))


def constant_tuples(x):
    axes = (0, 1)
    shape = (2, 3)
    return np.sum(np.ones(shape) * x, axis=axes)


def tuple_then_array(x):
    t = (x, x)
    t = x * 2.0  # ERR: 't' holds a tuple of 2 values elsewhere
    return np.sum(t)


def tuple_index_unknown(x, k):
    t = (x, 2.0 * x)
    return np.sum(t[k])  # ERR: index a tuple of 2 values with a constant


# -- loops over reversed(...) ----------------------------------------------------------------
def discounted(x, rewards):
    T = len(rewards)
    out = np.zeros(T)
    G = 0.0
    for t in reversed(range(T)):
        G = rewards[t] * x + 0.9 * G
        out[t] = G
    return np.sum(out ** 2)


def backwards_rows(x, X):
    s = 0.0
    for i, row in reversed(list(enumerate(X))):
        s = np.tanh(s * x + i * np.sum(row))
    for k, row in enumerate(reversed(X)):
        s = s + k * np.sum(row * x)
    return s


def stepped_backwards(x, n):
    s = 0.0
    for k in reversed(range(1, n, 3)):
        s = np.sin(s * x + k)
    return s


def reversed_value(x):
    r = reversed(x)  # ERR: reversed() is supported as what a for loop
    return np.sum(x)


# -- library calls without a rule ------------------------------------------------------------
def counts_and_windows(K, img, ids):
    kh, kw = K.shape
    windows = np.lib.stride_tricks.sliding_window_view(img, (kh, kw))
    out = np.einsum('hwij,ij->hw', windows, K)
    counts = np.bincount(ids, minlength=4)
    return np.sum(np.tanh(out)) * np.sum(counts) / len(ids)


def windows_differentiated(x, w):
    m = np.lib.stride_tricks.sliding_window_view(x, 3) @ w
    v = np.lib.stride_tricks.sliding_window_view(np.outer(x, w), (2, 2), axis=(0, 1))
    return np.sum(np.tanh(m) ** 2) + np.sum(v.max(axis=(2, 3)) ** 2)


def nonzero_rows(x, m):
    idx = np.nonzero(m)[0]
    i, j = (np.outer(m, m)).nonzero()
    return np.sum(x[idx] ** 2) + np.sum(x[i] * x[j])


def any_all(x):
    if (x > -10.0).all() and np.any(x > 0.0):
        return np.sum(x ** 2)
    return np.sum(x)


def differentiated_median(x):
    return np.nanmedian(x * 2.0)  # ERR: np.nanmedian has no derivative rule in jitad


# -- np.add.at, np.bincount(weights=), np.diag_indices ---------------------------------------
def scatter_rows(E, word_ids, doc_ids, n_docs):
    doc = np.zeros((n_docs, E.shape[1]))
    np.add.at(doc, doc_ids, E[word_ids])
    doc = doc / np.bincount(doc_ids, minlength=n_docs)[:, None]
    return np.sum(np.tanh(doc) ** 2)


def scatter_entries(x, rows, cols):
    A = np.ones((3, 3))
    np.subtract.at(A, (rows, cols), x ** 2)
    np.add.at(A, rows, 0.5 * x[0])
    return np.sum(np.tanh(A) * np.arange(9.0).reshape(3, 3))


def weighted_counts(w, ids):
    s = np.bincount(ids, weights=w ** 2, minlength=6)
    return np.sum(np.sin(s) * np.arange(6.0))


def diagonal_write(x):
    L = np.zeros((3, 3))
    L[np.tril_indices(3)] = x
    L[np.diag_indices(3)] = np.exp(np.diag(L))
    return np.sum(L @ L.T)


def scatter_into_argument(x, idx):
    np.add.at(x, idx, 1.0)  # ERR: would update 'x' in place
    return np.sum(x)


def scatter_seen_by_view(x, idx):
    y = x * 2.0
    z = y[1:]
    np.add.at(y, idx, x[:3])  # ERR: would also change 'z'
    return np.sum(z) + np.sum(y)


def update_seen_by_view(x):
    y = x * 2.0
    z = y[1:]
    y += x  # ERR: would also change 'z'
    return np.sum(z) + np.sum(y)


# -- array methods ---------------------------------------------------------------------------
def methods(X):
    p = X.clip(-0.5, 0.6) + X.clip(min=-0.2) + X.round(1) * X
    s = X.astype(np.float64).sum(axis=0) + (X > 0).astype(float).sum(axis=0)
    i = X.argmax(axis=1)
    return (np.sum(p ** 2) + np.sum(s * s) + X[0, i].sum() + X[0:1, 0:1].item()
            + X.std(ddof=1) + np.sum(X.cumprod()) + X.trace() + np.sum(X.diagonal())
            + float((X > -9.0).all()) + np.sum(X * (X > 0).any(axis=0)))
