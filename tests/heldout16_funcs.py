"""Held-out corpus #16: shapes as values, the way a README reader writes them. `shape =
x.shape` kept and reused, `np.zeros(x.shape)` / `np.zeros(shape)` accumulators, `np.empty_like`
filled in place, `(n,) + x.shape[1:]`, `x.reshape(x.shape[0], -1)`, `len(shape)`, `for d in
shape`, `np.prod(x.shape)`, `x.size`, `x.shape == y.shape` checks, `x.shape[-1]`, `tuple(...)`,
`(*x.shape, 3)`, helpers returning shapes, and the training idiom of flattening a list or dict
of weight arrays into one parameter vector and unflattening it with `np.reshape(g, w.shape)`.
The models are small everyday ones written for this corpus (none copied from earlier corpora
or other projects): an MLP on a flat parameter vector, batch reshapes, broadcasting against
`x.shape`, im2col patches, a GRU-like scan over `h = np.zeros((B,) + x.shape[2:])`, einsum
with shapes.

`cases()` holds the functions with their arguments and wrt, `refused_forms()` what stays
refused on purpose; tests/test_heldout16.py checks them in both modes.

`python -m tests.heldout16_funcs [--backend python] [-v] [names...]` runs each through the
compiled path and eager mode against central finite differences (tests/harness.py
`triage`)."""
import math

import numpy as np

SHAPES = ((3, 2), (2,), (2, 1))        # a network's weight shapes, as a module constant


# -- parameter vectors: flatten / unflatten ----------------------------------------------------
def unflatten_mlp(theta, X, y, W1, b1, W2):
    """theta holds W1, b1, W2 flat; the templates give the shapes."""
    n1, n2 = W1.size, b1.size
    A = np.reshape(theta[:n1], W1.shape)
    b = theta[n1:n1 + n2].reshape(b1.shape)
    B = theta[n1 + n2:].reshape(W2.shape)
    h = np.tanh(X @ A + b)
    return np.mean((h @ B - y) ** 2)


def _take(theta, k, like):
    """The next like.size entries of theta, shaped like `like`."""
    return theta[k:k + like.size].reshape(like.shape)


def unflatten_with_helper(theta, X, W1, b1):
    W = _take(theta, 0, W1)
    b = _take(theta, W1.size, b1)
    return np.sum(np.tanh(X @ W + b) ** 2)


def unflatten_list_of_shapes(theta, X):
    W1, b1, W2 = theta[:6].reshape(SHAPES[0]), theta[6:8].reshape(SHAPES[1]), \
        theta[8:].reshape(SHAPES[2])
    return np.sum(np.tanh(X @ W1 + b1) @ W2)


def flatten_dict_params(p, X, y):
    """The gradient-of-a-flat-vector idiom: the dict's arrays concatenated and read back."""
    flat = np.concatenate([p["W"].ravel(), p["b"].ravel()])
    W = flat[:p["W"].size].reshape(p["W"].shape)
    b = flat[p["W"].size:].reshape(p["b"].shape)
    return np.sum((X @ W + b - y) ** 2)


def flatten_list_params(params, x):
    flat = np.concatenate([w.ravel() for w in params])
    total = 0.0
    k = 0
    for w in params:
        piece = np.reshape(flat[k:k + w.size], w.shape)
        total = total + np.sum(np.sin(piece) * w)
        k += w.size
    return total + np.sum(x * flat[:x.size])


def sgd_step_then_loss(theta, W_like, X, y):
    """One gradient step on W = theta.reshape(W_like.shape), written by hand."""
    shape = W_like.shape
    W = theta.reshape(shape)
    r = X @ W - y
    G = X.T @ r / X.shape[0]
    W2 = W - 0.1 * G.reshape(shape)
    return 0.5 * np.sum((X @ W2 - y) ** 2)


# -- shapes kept as values ------------------------------------------------------------------------
def keep_shape_reshape_back(x, w):
    shape = x.shape
    flat = x.reshape(-1)
    z = np.tanh(flat * w)
    return np.sum(z.reshape(shape) * x)


def zeros_like_shape_accumulator(X, w):
    acc = np.zeros(X.shape)
    for i in range(X.shape[0]):
        acc[i] = np.sin(X[i] * w)
    return np.sum(acc ** 2)


def zeros_from_local_shape(X):
    shape = X.shape
    out = np.zeros(shape)
    out = out + X * X
    ones = np.ones(shape)
    return np.sum(out * ones) + np.sum(np.full(shape, 0.5) * X)


def empty_like_filled_rows(X):
    Y = np.empty_like(X)
    for i in range(X.shape[0]):
        Y[i, :] = np.exp(-X[i] ** 2)
    return np.sum(Y)


def batch_flatten_linear(x, W):
    """(batch, h, w) images flattened per example, then a linear layer."""
    flat = x.reshape(x.shape[0], -1)
    return np.sum(np.tanh(flat @ W))


def batch_rest_of_shape(x, b):
    n = x.shape[0]
    rest = x.shape[1:]
    h = np.zeros((n,) + rest)
    h = h + x * b
    return np.sum(h ** 2)


def star_shape_channels(x, c):
    z = np.zeros((*x.shape, 3))
    z = z + x[..., None] * c
    return np.sum(np.sin(z))


def len_of_shape_dispatch(x):
    s = x.shape
    if len(s) == 2:
        return np.sum(x ** 2) / s[0]
    return np.sum(x ** 3)


def last_dim_normalize(x):
    d = x.shape[-1]
    return np.sum(x ** 2) / math.sqrt(d)


def product_of_dims_loop(x):
    n = 1
    for d in x.shape:
        n = n * d
    return np.sum(x) ** 2 / n


def prod_and_size(x):
    return np.sum(x ** 2) / np.prod(x.shape) + np.mean(x) * x.size


def shapes_equal_check(x, y):
    if x.shape == y.shape:
        return np.sum(x * y)
    return np.sum(x) * np.sum(y)


def shapes_differ_broadcast(x, v):
    if x.shape != v.shape:
        v = np.broadcast_to(v, x.shape)    # ERR: a variable must keep one rank
    return np.sum(np.tanh(x + v))


def tuple_of_shape(x):
    s = tuple(x.shape)
    return np.sum(np.ones(s) * np.sin(x))


def _output_shape(a, k):
    return a.shape[:-1] + (k,)


def helper_returns_shape(x, W):
    out = np.zeros(_output_shape(x, W.shape[1]))
    out = out + x @ W
    return np.sum(out ** 2)


def broadcast_against_shape(x, b):
    B = np.broadcast_to(b, x.shape)
    return np.sum((x - B) ** 2)


def mean_over_leading_axes(x):
    """Everything but the last axis averaged, whatever the rank."""
    flat = x.reshape(-1, x.shape[-1])
    m = flat.mean(axis=0)
    return np.sum(m ** 2)


def im2col_1d(x, w):
    """Windows of a signal stacked into a matrix, then a dot with the filter."""
    k = w.shape[0]
    n = x.shape[0] - k + 1
    cols = np.zeros((n, k))
    for i in range(n):
        cols[i] = x[i:i + k]
    return np.sum(np.tanh(cols @ w))


def im2col_2d(img, K):
    kh, kw = K.shape
    H, W = img.shape
    oh, ow = H - kh + 1, W - kw + 1
    cols = np.zeros((oh * ow, kh * kw))
    for i in range(oh):
        for j in range(ow):
            cols[i * ow + j] = img[i:i + kh, j:j + kw].reshape(-1)
    out = (cols @ K.reshape(-1)).reshape(oh, ow)
    return np.sum(out ** 2)


def rnn_hidden_from_shape(xs, Wx, Wh):
    """A scan over time; the hidden state's shape from the input's and a weight's."""
    T, B = xs.shape[0], xs.shape[1]
    h = np.zeros((B,) + Wh.shape[1:])
    for t in range(T):
        h = np.tanh(xs[t] @ Wx + h @ Wh)
    return np.sum(h ** 2)


def einsum_with_shapes(A, x):
    n, m = A.shape
    y = np.einsum("ij,j->i", A, x)
    return np.sum(y ** 2) / (n * m)


def einsum_batch_reshape(x, W):
    b = x.shape[0]
    z = np.einsum("bi,ij->bj", x.reshape(b, -1), W)
    return np.sum(np.tanh(z))


def shape_index_by_loop(x):
    s = x.shape
    t = 0.0
    for k in range(len(s)):
        t = t + s[k] * np.sum(x ** (k + 1))
    return t


def reshape_to_other_shape(g, w):
    """np.reshape(g, w.shape): a gradient vector laid back on a weight."""
    G = np.reshape(g, w.shape)
    return np.sum(G * w) + np.sum(G ** 2)


def unpack_local_shape(x):
    shape = x.shape
    n, m = shape
    return np.sum(x[:, 0]) * m + np.sum(x[0]) * n


def full_like_shape_scale(x, a):
    s = x.shape
    scale = np.full(s, a)
    return np.sum(scale * x ** 2)


def reshape_batch_matrix(x, W):
    """(b, n*m) rows as (b, n, m) matrices, each times W."""
    b = x.shape[0]
    m = W.shape[0]
    M = x.reshape(b, -1, m)
    return np.sum((M @ W) ** 2)


def unflatten_list_append(flat, params):
    """Pieces of a flat vector appended to a list, each shaped like its parameter (of one
    rank: a list holds values of one type)."""
    out = []
    k = 0
    for w in params:
        out.append(flat[k:k + w.size].reshape(w.shape))
        k += w.size
    return np.sum(out[0] ** 2) + np.sum(np.sin(out[1]))


def unflatten_into_dict_display(flat, p):
    nW = p["W"].size
    new = {"W": flat[:nW].reshape(p["W"].shape),
           "b": flat[nW:nW + p["b"].size].reshape(p["b"].shape)}
    return np.sum(new["W"] ** 2) + np.sum(new["b"])


# -- refused on purpose ----------------------------------------------------------------------------
def unflatten_mixed_ranks_into_list(flat, params):
    out = []
    k = 0
    for w in params:
        out.append(flat[k:k + w.size].reshape(w.shape))  # ERR: a list holds values of one type
        k += w.size
    return np.sum(out[0] ** 2) + np.sum(np.sin(out[1]))


def unflatten_into_dict_by_key(flat, p):
    """A dict built key by key in a loop over a dict argument (accepted since corpus 17)."""
    out = {}
    k = 0
    for name, v in p.items():
        out[name] = flat[k:k + v.size].reshape(v.shape)
        k += v.size
    return np.sum(out["W"] ** 2) + np.sum(out["b"])


def list_of_shapes(params, x):
    shapes = [w.shape for w in params]  # ERR: a list holds numbers or arrays
    return np.sum(x) * len(shapes)


def shape_reassigned_to_other(x, k):
    s = x.shape
    if k > 0:
        s = 3          # ERR: is (int, int) in one place and int here
    return np.sum(x) * s


def cases(seed=16):
    rng = np.random.default_rng(seed)
    nrm = rng.normal
    X, y = nrm(size=(5, 3)), nrm(size=5)
    W1, b1, W2 = nrm(size=(3, 4)), nrm(size=4), nrm(size=(4, 1))
    theta = 0.5 * nrm(size=W1.size + b1.size + W2.size)
    return [
        (unflatten_mlp, (theta, X, y[:, None], W1, b1, W2), (0,)),
        (unflatten_with_helper, (0.5 * nrm(size=16), X, W1, b1), (0,)),
        (unflatten_list_of_shapes, (0.5 * nrm(size=10), nrm(size=(4, 3))), (0,)),
        (flatten_dict_params, ({"W": nrm(size=(3, 2)), "b": nrm(size=2)}, X, nrm(size=(5, 2))),
         (0,)),
        (flatten_list_params, ([nrm(size=(2, 2)), nrm(size=3)], nrm(size=3)), (0, 1)),
        (sgd_step_then_loss, (nrm(size=6), np.zeros((3, 2)), X, nrm(size=(5, 2))), (0,)),
        (keep_shape_reshape_back, (nrm(size=(2, 3)), 0.7), (0, 1)),
        (zeros_like_shape_accumulator, (nrm(size=(3, 2)), 0.4), (0, 1)),
        (zeros_from_local_shape, (nrm(size=(2, 3)),), (0,)),
        (empty_like_filled_rows, (nrm(size=(3, 2)),), (0,)),
        (batch_flatten_linear, (nrm(size=(2, 3, 2)), 0.5 * nrm(size=(6, 2))), (0, 1)),
        (batch_rest_of_shape, (nrm(size=(2, 3, 2)), 0.8), (0, 1)),
        (star_shape_channels, (nrm(size=(2, 3)), np.array([0.5, -1.0, 2.0])), (0, 1)),
        (len_of_shape_dispatch, (nrm(size=(2, 3)),), (0,)),
        (len_of_shape_dispatch, (nrm(size=4),), (0,)),
        (last_dim_normalize, (nrm(size=(2, 4)),), (0,)),
        (product_of_dims_loop, (nrm(size=(2, 3, 2)),), (0,)),
        (prod_and_size, (nrm(size=(3, 2)),), (0,)),
        (shapes_equal_check, (nrm(size=(2, 3)), nrm(size=(2, 3))), (0, 1)),
        (shapes_equal_check, (nrm(size=(2, 3)), nrm(size=3)), (0, 1)),
        (tuple_of_shape, (nrm(size=(2, 3)),), (0,)),
        (helper_returns_shape, (nrm(size=(2, 3)), nrm(size=(3, 2))), (0, 1)),
        (broadcast_against_shape, (nrm(size=(3, 2)), nrm(size=2)), (0, 1)),
        (mean_over_leading_axes, (nrm(size=(2, 3, 2)),), (0,)),
        (im2col_1d, (nrm(size=7), nrm(size=3)), (0, 1)),
        (im2col_2d, (nrm(size=(4, 4)), nrm(size=(2, 2))), (0, 1)),
        (rnn_hidden_from_shape, (nrm(size=(3, 2, 2)), 0.5 * nrm(size=(2, 3)),
                                 0.5 * nrm(size=(3, 3))), (0, 1, 2)),
        (einsum_with_shapes, (nrm(size=(3, 2)), nrm(size=2)), (0, 1)),
        (einsum_batch_reshape, (nrm(size=(2, 2, 2)), nrm(size=(4, 3))), (0, 1)),
        (shape_index_by_loop, (nrm(size=(2, 3)),), (0,)),
        (reshape_to_other_shape, (nrm(size=6), nrm(size=(2, 3))), (0, 1)),
        (unpack_local_shape, (nrm(size=(3, 2)),), (0,)),
        (full_like_shape_scale, (nrm(size=(2, 3)), 0.3), (0, 1)),
        (reshape_batch_matrix, (nrm(size=(2, 6)), nrm(size=(3, 2))), (0, 1)),
        (unflatten_list_append, (nrm(size=8), [nrm(size=(2, 2)), nrm(size=(2, 2))]), (0, 1)),
        (unflatten_into_dict_display, (nrm(size=7), {"W": nrm(size=(2, 2)), "b": nrm(size=3)}),
         (0, 1)),
        (unflatten_into_dict_by_key, (nrm(size=7), {"W": nrm(size=(2, 2)), "b": nrm(size=3)}),
         (0, 1)),
    ]


def refused_forms():
    """Refused on purpose (at the marked line, both modes): a name that holds a shape in one
    place and a number in another, an array broadcast to a higher rank under an `if` on
    shapes (one variable, one type and rank: broadcast it unconditionally, or name it anew);
    a list of pieces of different ranks and a list of shapes (a list holds values of one
    type: unpack into names, or a dict display)."""
    nrm = np.random.default_rng(1606).normal
    two = [nrm(size=(2, 2)), nrm(size=3)]
    return [(shape_reassigned_to_other, (nrm(size=(2, 3)), 1)),
            (shapes_differ_broadcast, (nrm(size=(2, 3)), nrm(size=3))),
            (unflatten_mixed_ranks_into_list, (nrm(size=7), two)),
            (list_of_shapes, (two, nrm(size=3)))]


if __name__ == "__main__":
    import sys

    from .harness import triage_main
    triage_main(cases(), sys.argv[1:])
