"""The recorded graph of jitad.eager and its reverse pass.

Takes: nodes recorded by the operations (`record`, `views`): a `Node` holds, for each input
position ``i``, the parent node (None: that input needs no gradient) and the rule
``vjps[i](g, ans, *args)`` mapping the output adjoint ``g`` to the adjoint of input ``i``;
``args`` are the saved input values (a `Meta` in place of an array whose values the rule
does not read, for rules registered with ``save='shapes'``) and ``ans`` the output value
(kept only when the rule reads it). A `Leaf` is the gradient sink of a user input created
with ``requires_grad=True``.
Guarantees: `reverse_pass(root, value, cotangent)` accumulates d(value)/d(leaf) (times the
cotangent) into every reachable leaf's ``.grad`` by Kahn's algorithm: one iterative pass
counts consumers, a second pops a node once all its consumers have contributed -- no
recursion, every node and edge visited once (a diamond of depth n costs O(n)). Broadcasting
is undone in the adjoints, so rules may return the broadcast shape; the adjoint of an
indexing read (`Sparse`) and of the overwritten array of a write (`Masked`) stay lazy, so
indexing costs O(size of the index), not O(size of the array). The graph is freed after the
pass unless ``retain_graph=True``; a pass through a freed part raises a clear error.
Invariants: nodes point to nodes, never to Vars (an in-place write gives a Var a new node
while the nodes already recorded keep the old one); everything the reverse pass needs was
checked when a node was recorded, so it never meets an unsupported node. The recording
state lives here and only here: `grad_enabled` (read it as ``graph.grad_enabled``, never
``from .graph import grad_enabled``, which copies the bool; only `no_grad`/`enable_grad`
set it) and the node counter behind `tape_size()`. Single-threaded by design: eager mode
runs Python code.
"""
import numpy as np

ndarray = np.ndarray

# Module state (single-threaded by design: eager mode runs Python code).
grad_enabled = True     # whether operations record nodes (no_grad/enable_grad set it)
converting = 0          # > 0 inside value_and_grad: x.item() of a Var stays differentiable
_nodes_created = 0


class Node:
    """A recorded operation.  ``parents is None`` once backward() freed it."""

    __slots__ = ("vjps", "parents", "args", "ans")

    def __init__(self, vjps, parents, args, ans):
        global _nodes_created
        _nodes_created += 1
        self.vjps = vjps
        self.parents = parents
        self.args = args
        self.ans = ans


class Leaf:
    """Gradient sink of a Var created with requires_grad=True."""

    __slots__ = ("grad", "shape")
    vjps = None          # marks a leaf in the reverse pass
    parents = ()

    def __init__(self, shape):
        self.grad = None
        self.shape = shape   # None for a Python-float leaf (its grad is a float)


class Meta:
    """Shape and dtype of a saved array whose values a rule does not read."""

    __slots__ = ("shape", "dtype")

    def __init__(self, a):
        self.shape = a.shape
        self.dtype = a.dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape))


def tape_size():
    """Number of graph nodes recorded since import (monotonic counter).

    Take the difference around a block to see how many nodes it recorded;
    e.g. a block run under ``no_grad()`` records 0.
    """
    return _nodes_created


def is_grad_enabled():
    return grad_enabled


class no_grad:
    """Context manager (or decorator): operations inside record no graph."""

    def __enter__(self):
        global grad_enabled
        self._prev = grad_enabled
        grad_enabled = False
        return self

    def __exit__(self, *exc):
        global grad_enabled
        grad_enabled = self._prev
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with no_grad():
                return fn(*args, **kwargs)
        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper


class enable_grad(no_grad):
    """Context manager: turn recording back on (used by value_and_grad)."""

    def __enter__(self):
        global grad_enabled
        self._prev = grad_enabled
        grad_enabled = True
        return self


# ----------------------------------------------------------------------------
# Lazy adjoints: keep indexing O(size of the index), not O(size of the array)
# ----------------------------------------------------------------------------
def _needs_add_at(idx):
    """True if idx holds an integer array (repeated entries must accumulate)."""
    if type(idx) is not tuple:
        idx = (idx,)
    for i in idx:
        if type(i) is ndarray and i.dtype.kind in "iu":
            return True
    return False


def _adj_dtype(dtype):
    return dtype if dtype.kind in "fc" else np.float64


class Sparse:
    """Adjoint of ``x[idx]``: zeros shaped like x, plus g at idx (repeats add)."""

    __slots__ = ("shape", "dtype", "idx", "vals")

    def __init__(self, like, idx, vals):
        self.shape = like.shape
        self.dtype = _adj_dtype(like.dtype)
        self.idx = idx
        self.vals = vals

    def add_to(self, a):
        if _needs_add_at(self.idx):
            np.add.at(a, self.idx, self.vals)
        else:
            a[self.idx] += self.vals

    def dense(self):
        z = np.zeros(self.shape, self.dtype)
        self.add_to(z)
        return z


class Masked:
    """Adjoint of the overwritten input of ``y[idx] = v``: g with g[idx] = 0.

    When the engine owns g (nobody else holds it) it is zeroed in place, so a
    loop of n writes costs O(n) in the reverse pass, not O(n * size).  It must
    be the last reader of g: the rule of the written value (input 2) reads
    g[idx], so backward() visits a node's inputs last to first.
    """

    __slots__ = ("g", "idx", "owned", "shape")

    def __init__(self, g, idx):
        self.g = g
        self.idx = idx
        self.owned = False
        self.shape = g.shape

    def dense(self):
        g = self.g if self.owned else np.array(self.g, copy=True)
        g[self.idx] = 0.0
        return g

    def add_to(self, a):
        a += self.dense()


_LAZY = (Sparse, Masked)


# ----------------------------------------------------------------------------
# Un-broadcasting and accumulation of adjoints
# ----------------------------------------------------------------------------
def _unbroadcast(c, xs):
    """Reduce (or expand) contribution c to shape xs (None: Python scalar)."""
    if not xs:
        if type(c) is ndarray:
            return c.sum() if c.ndim else c[()]
        return c
    c = np.asarray(c)
    if c.shape == xs:
        return c
    lead = c.ndim - len(xs)
    if lead > 0:
        c = c.sum(axis=tuple(range(lead)))
    if c.ndim == len(xs):
        axes = tuple(i for i, d in enumerate(xs) if d == 1 and c.shape[i] != 1)
        if axes:
            c = c.sum(axis=axes, keepdims=True)
    if c.shape != xs:
        c = np.broadcast_to(c, xs)
    return c


def _is_complex(v):
    """Whether a value (an array, a saved Meta, a lazy adjoint, a number) is complex."""
    t = type(v)
    if t is complex or t is np.complex128:
        return True
    if t is Masked:
        v = v.g
    dt = getattr(v, "dtype", None)
    return dt is not None and dt.kind == "c"


def _accumulate(adj, owned, p, prev, c):
    """adj[p] = prev + c, in place when the engine owns prev (and the sum keeps its dtype: a
    complex contribution to a real one makes a new complex array)."""
    if type(prev) in _LAZY:
        prev = prev.dense()
        powned = True
    else:
        powned = p in owned
    if powned and _is_complex(c) and not _is_complex(prev):
        powned = False
        if type(c) in _LAZY:
            c = c.dense()
    if powned and type(prev) is ndarray:
        if type(c) in _LAZY:
            c.add_to(prev)
        else:
            prev += c
        adj[p] = prev
        owned.add(p)
        return
    if type(c) in _LAZY:
        c = c.dense()
        c += prev
        adj[p] = c
        owned.add(p)
        return
    s = prev + c
    adj[p] = s
    if type(s) is ndarray:
        owned.add(p)
    else:
        owned.discard(p)


def _to_leaf(leaf, g, own):
    if type(g) in _LAZY:
        g = g.dense()
        own = True
    if _is_complex(g):          # leaves are real (complex arguments are never differentiated)
        g = np.real(g)
    if leaf.shape is None:
        g = float(g.sum()) if type(g) is ndarray else float(g)
    else:
        if type(g) is not ndarray or not own or g.shape != leaf.shape:
            g = np.array(np.broadcast_to(g, leaf.shape), dtype=np.result_type(g, np.float64))
    if leaf.grad is None:
        leaf.grad = g
    else:
        leaf.grad = leaf.grad + g


_FREED_MSG = ("backward() reached a part of the graph that an earlier backward() "
              "already freed. Pass retain_graph=True to the first backward() to "
              "differentiate through the same graph again.")


def reverse_pass(root, value, cotangent=None, retain_graph=False):
    """Accumulate d(output)/d(leaf) (times cotangent) into every leaf's .grad.

    root: the node of the output (None: it does not require grad, an error); value: its
    value; cotangent: a plain value shaped like it (Var.backward unwraps a Var)."""
    if root is None:
        raise RuntimeError("backward() on a Var that does not require grad (no input "
                           "of its computation had requires_grad=True, or it was "
                           "computed under no_grad()).")
    if cotangent is None:
        if np.size(value) != 1:
            raise RuntimeError("backward() needs a cotangent for a non-scalar Var of "
                               "shape %s: call y.backward(cotangent)." % (np.shape(value),))
        cot = np.ones(value.shape) if type(value) is ndarray else 1.0
    else:
        if np.shape(cotangent) != np.shape(value):
            raise ValueError("cotangent has shape %s but the Var has shape %s"
                             % (np.shape(cotangent), np.shape(value)))
        cot = (np.array(cotangent, dtype=np.result_type(cotangent, np.float64))
               if type(value) is ndarray else cotangent)
    owned = {root} if type(cot) is ndarray else set()
    if root.vjps is None:
        _to_leaf(root, cot, bool(owned))
        return

    # Pass 1: count, for every reachable node, the edges that point to it.
    deg = {}
    stack = [root]
    while stack:
        n = stack.pop()
        ps = n.parents
        if ps is None:
            raise RuntimeError(_FREED_MSG)
        for p in ps:
            if p is not None:
                d = deg.get(p)
                if d is None:
                    deg[p] = 1
                    stack.append(p)
                else:
                    deg[p] = d + 1

    # Pass 2: pop a node once all its consumers have contributed (Kahn).
    adj = {root: cot}
    ready = [root]
    while ready:
        n = ready.pop()
        g = adj.pop(n)
        tg = type(g)
        if tg is Sparse or tg is Masked:
            g = g.dense()
            own = True
        else:
            own = n in owned
        vjps = n.vjps
        if vjps is None:
            _to_leaf(n, g, own)
            continue
        args = n.args
        ans = n.ans
        # Inputs in reverse order: a setitem node's Masked adjoint of the overwritten array
        # (position 0) may zero g in place, so it must come after the rule of the written
        # value (position 2), which reads g[idx].
        ps = n.parents
        i = len(ps)
        while i:
            i -= 1
            p = ps[i]
            if p is None:
                continue
            c = vjps[i](g, ans, *args)
            if _is_complex(c) and not _is_complex(args[i]):
                # a real input of a complex operation: the real part (the convention of
                # docs/architecture.md, as compiled mode's `reverse.real_part`)
                c = np.real(c.dense() if type(c) in _LAZY else c)
            if type(c) is Masked:
                c.owned = own and c.g is g
            xs = getattr(args[i], "shape", None)
            cs = getattr(c, "shape", None)
            if xs != cs and (xs or cs):
                c = _unbroadcast(c, xs)
            prev = adj.get(p)
            if prev is None:
                adj[p] = c
            else:
                _accumulate(adj, owned, p, prev, c)
            d = deg[p] - 1
            if d:
                deg[p] = d
            else:
                ready.append(p)
        if own:
            owned.discard(n)
        if not retain_graph:
            n.parents = None
            n.args = None
            n.ans = None

