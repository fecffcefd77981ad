"""Engine of jitad.eager: the Var handle, graph nodes, recording and the reverse pass.

Layout of the graph
-------------------
A ``Var`` is the user's handle: ``value`` (a Python/NumPy scalar or an ndarray),
``_node``, and ``_views``/``_view_of`` (None unless views are involved).  ``_node`` is ``None`` for a constant (needs no gradient), a
``Leaf`` for a user input created with ``requires_grad=True``, or a ``Node``
recorded by an operation.  A ``Node`` holds, for each input position ``i``, the
parent node and the rule ``vjps[i](g, ans, *args)`` that maps the output
adjoint ``g`` to the adjoint of input ``i``; ``args`` are the saved input values
(or only their shapes, for rules registered with ``save='shapes'``) and ``ans``
the output value (kept only when the rule reads it).  Nodes point to nodes,
never to Vars, so an in-place write can give a Var a new node while the nodes
already recorded keep the old one.

The reverse pass (``backward``) is Kahn's algorithm over the nodes reachable
from the output: one iterative pass counts consumers, a second pops a node once
all its consumers have contributed.  No recursion, every node and edge is
visited once (a diamond of depth n costs O(n)).

Everything the reverse pass needs is checked when a node is recorded: an
operation eager mode cannot differentiate raises ``refuse(...)`` (a
``jitad.errors.JitadError`` at ``user_loc()``, the innermost frame outside
jitad and NumPy) during the forward call, so backward() never meets an
unsupported node.  NumPy calls with no eager rule go through ``_fallback``
(plain NumPy unless a Var that requires grad is involved and the result holds
floats); ndarray attributes Var lacks go through ``Var.__getattr__`` to the
same policy.
"""
import dis
import os
import sys
import weakref

import numpy as np

from ..errors import Loc, NotDifferentiableError, UnsupportedError

ndarray = np.ndarray
_getrefcount = sys.getrefcount

# Module state (single-threaded by design: eager mode runs Python code).
_grad_enabled = True
_nodes_created = 0


# ----------------------------------------------------------------------------
# Errors at the user's line
# ----------------------------------------------------------------------------
# Frames in these directories are not the user's: jitad itself, and NumPy (whose
# Python-level functions sit between a user's call and __array_function__).
_INTERNAL_DIRS = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,   # jitad/
    os.path.dirname(os.path.abspath(np.__file__)) + os.sep,                 # numpy/
)


def _is_internal(filename):
    if filename.startswith("<__array_function__"):
        return True
    return not filename.startswith("<") and os.path.abspath(filename).startswith(_INTERNAL_DIRS)


def user_loc():
    """Loc of the innermost frame on the stack outside jitad and NumPy (None if none).

    The column range is that of the instruction running in that frame (Python
    >= 3.11), i.e. the call or operator that reached jitad.eager."""
    f = sys._getframe(1)
    while f is not None and _is_internal(f.f_code.co_filename):
        f = f.f_back
    if f is None:
        return None
    code = f.f_code
    line, col, end_col = f.f_lineno, 0, None
    positions = getattr(code, "co_positions", None)
    if positions is not None and f.f_lasti >= 0:
        for k, pos in enumerate(positions()):
            if k == f.f_lasti // 2:
                if pos[0] is not None and pos[2] is not None:
                    line, col = pos[0], pos[2]
                    end_col = pos[3] if pos[1] == pos[0] else None
                break
    return Loc(code.co_filename, line, col, end_col, code.co_name)


def refuse(message, construct, cls=NotDifferentiableError):
    """The JitadError for an operation eager mode cannot record, at the user's line."""
    return cls(message, user_loc(), construct)


# ----------------------------------------------------------------------------
# Graph nodes
# ----------------------------------------------------------------------------
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
    return _grad_enabled


class no_grad:
    """Context manager (or decorator): operations inside record no graph."""

    def __enter__(self):
        global _grad_enabled
        self._prev = _grad_enabled
        _grad_enabled = False
        return self

    def __exit__(self, *exc):
        global _grad_enabled
        _grad_enabled = self._prev
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
        global _grad_enabled
        self._prev = _grad_enabled
        _grad_enabled = True
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


def _accumulate(adj, owned, p, prev, c):
    """adj[p] = prev + c, in place when the engine owns prev."""
    if type(prev) in _LAZY:
        prev = prev.dense()
        powned = True
    else:
        powned = p in owned
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


def backward(var, cotangent=None, retain_graph=False):
    """Accumulate d(var)/d(leaf) (times cotangent) into every leaf's .grad."""
    root = var._node
    if root is None:
        raise RuntimeError("backward() on a Var that does not require grad (no input "
                           "of its computation had requires_grad=True, or it was "
                           "computed under no_grad()).")
    value = var.value
    if cotangent is None:
        if np.size(value) != 1:
            raise RuntimeError("backward() needs a cotangent for a non-scalar Var of "
                               "shape %s: call y.backward(cotangent)." % (np.shape(value),))
        cot = np.ones(value.shape) if type(value) is ndarray else 1.0
    else:
        if type(cotangent) is Var:
            cotangent = cotangent.value
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


# ----------------------------------------------------------------------------
# Rules and recording
# ----------------------------------------------------------------------------
class Rule:
    __slots__ = ("vjps", "argnum_vjp", "keep_ans", "shapes_only", "by_arity")

    def __init__(self, vjps, argnum_vjp, save):
        if save not in ("values", "shapes"):
            raise ValueError("save must be 'values' or 'shapes'")
        self.vjps = vjps
        self.argnum_vjp = argnum_vjp
        fns = [argnum_vjp] if argnum_vjp is not None else [f for f in vjps if f is not None]
        self.keep_ans = any(_reads_name(f, "ans") for f in fns)
        self.shapes_only = save == "shapes"
        self.by_arity = {}

    def vjps_for(self, nargs):
        """Tuple of per-position rules for a call with nargs positional args."""
        if self.argnum_vjp is None:
            return self.vjps
        t = self.by_arity.get(nargs)
        if t is None:
            f = self.argnum_vjp
            t = tuple((lambda i: lambda g, ans, *args: f(i, g, ans, *args))(i)
                      for i in range(nargs))
            self.by_arity[nargs] = t
        return t


RULES = {}           # forward function -> Rule
NONDIFF = set()      # functions whose result is piecewise constant (zero gradient)


def _reads_name(fn, name):
    """Does function fn read its argument `name`? (decides whether ans is saved)"""
    code = getattr(fn, "__code__", None)
    if code is None:
        return True
    if name in code.co_cellvars:
        return True
    for ins in dis.get_instructions(code):
        if ins.opname.startswith("LOAD"):
            a = ins.argval
            if a == name or (type(a) is tuple and name in a):
                return True
    return False


def defvjp(fun, *vjps, save="values"):
    """Register the reverse rules of ``fun``: ``vjps[i](g, ans, *args)`` is the
    adjoint of positional argument i (None: not differentiable).  With
    ``save='shapes'`` the rules only see the shape/dtype of array arguments
    (nothing is kept alive, and in-place writes need not copy)."""
    RULES[fun] = Rule(tuple(vjps), None, save)


def defvjp_argnum(fun, vjp, save="values"):
    """Like defvjp for a variadic function: ``vjp(i, g, ans, *args)``."""
    RULES[fun] = Rule((), vjp, save)


def nondiff(*funs):
    """Mark functions as having zero derivative (their result is recorded as a constant)."""
    NONDIFF.update(funs)


def _save(vals, parents, shapes_only):
    """Values a node keeps: with save='shapes', differentiable array inputs are
    reduced to their Meta (static arguments such as an index array are kept)."""
    if shapes_only:
        return tuple(Meta(v) if (p is not None and type(v) is ndarray) else v
                     for v, p in zip(vals, parents))
    return vals


def make_op(fun, name=None):
    """Eager version of ``fun`` (positional arguments, any of which may be Vars)."""
    rule = RULES[fun]
    shapes_only = rule.shapes_only
    keep_ans = rule.keep_ans
    fixed = rule.argnum_vjp is None
    nvjps = len(rule.vjps)
    nondiff_pos = [i for i, v in enumerate(rule.vjps) if v is None]

    def op(*args):
        anyvar = False
        rec = False
        vals = []
        parents = []
        for a in args:
            if type(a) is Var:
                anyvar = True
                n = a._node
                vals.append(a.value)
                parents.append(n)
                if n is not None:
                    rec = True
            else:
                vals.append(a)
                parents.append(None)
        ans = fun(*vals)
        if not anyvar:
            return ans
        if not (rec and _grad_enabled):
            return Var(ans, None)
        vjps = rule.vjps if fixed else rule.vjps_for(len(args))
        if fixed and len(args) > nvjps and any(p is not None for p in parents[nvjps:]):
            raise refuse("%s: argument %d has no eager derivative rule; it is a Var that "
                         "requires grad" % (op.__name__, nvjps), op.__name__)
        for i in nondiff_pos:              # e.g. the condition of where(): zero gradient
            if i < len(parents):
                parents[i] = None
        parents = tuple(parents)
        return Var(ans, Node(vjps, parents, _save(tuple(vals), parents, shapes_only),
                             ans if keep_ans else None))

    op.__name__ = name or getattr(fun, "__name__", "op")
    op.__qualname__ = op.__name__
    op.__doc__ = "Eager (differentiable) version of %s." % op.__name__
    return op


def make_unary(fun, rule_key=None, name=None):
    """Fast path of make_op for one-argument functions."""
    rule = RULES[rule_key if rule_key is not None else fun]
    vjps = rule.vjps
    keep_ans = rule.keep_ans
    shapes_only = rule.shapes_only

    def op(x, **kwargs):
        if kwargs or type(x) is not Var:   # out=, where= ...: NumPy's dispatch (fallback)
            return fun(x, **kwargs)
        xv = x.value
        ans = fun(xv)
        n = x._node
        if n is None or not _grad_enabled:
            return Var(ans, None)
        return Var(ans, Node(vjps, (n,), (Meta(xv),) if shapes_only and type(xv) is ndarray
                             else (xv,), ans if keep_ans else None))

    op.__name__ = op.__qualname__ = name or getattr(fun, "__name__", "op")
    op.__doc__ = "Eager (differentiable) version of %s." % op.__name__
    return op


def make_binary(fun, rule_key=None, name=None):
    """Fast path of make_op for two-argument functions (and Var operators)."""
    rule = RULES[rule_key if rule_key is not None else fun]
    vjps = rule.vjps
    keep_ans = rule.keep_ans
    shapes_only = rule.shapes_only

    def op(x, y, **kwargs):
        if kwargs:                          # out=, where= ...: NumPy's dispatch (fallback)
            return fun(x, y, **kwargs)
        if type(x) is Var:
            xv = x.value
            xn = x._node
            if type(y) is Var:
                yv = y.value
                yn = y._node
            else:
                yv = y
                yn = None
        elif type(y) is Var:
            xv = x
            xn = None
            yv = y.value
            yn = y._node
        else:
            return fun(x, y)
        ans = fun(xv, yv)
        if (xn is None and yn is None) or not _grad_enabled:
            return Var(ans, None)
        return Var(ans, Node(vjps, (xn, yn), _save((xv, yv), (xn, yn), True) if shapes_only
                             else (xv, yv), ans if keep_ans else None))

    op.__name__ = op.__qualname__ = name or getattr(fun, "__name__", "op")
    op.__doc__ = "Eager (differentiable) version of %s." % op.__name__
    return op


def make_nondiff(fun, name=None, wrap=True):
    """Eager version of a function with zero derivative: computes on values.

    wrap=True returns a constant Var when an input was a Var; wrap=False
    returns the raw result (used for comparisons, whose bools drive control flow).
    """
    def op(*args, **kwargs):
        anyvar = False
        vals = []
        for a in args:
            if type(a) is Var:
                anyvar = True
                a = a.value
            vals.append(a)
        ans = fun(*vals, **kwargs)
        return Var(ans, None) if (anyvar and wrap) else ans

    op.__name__ = op.__qualname__ = name or getattr(fun, "__name__", "op")
    return op


# ----------------------------------------------------------------------------
# In-place writes (copy-on-write) and views
# ----------------------------------------------------------------------------
def _rc_probe(var):
    a = var.value
    return _getrefcount(a)


def _norm_index(idx):
    """Replace Vars (and lists) inside an index by plain values/arrays."""
    t = type(idx)
    if t is int or t is slice:
        return idx
    if t is Var:
        return idx.value
    if t is tuple:
        return tuple(_norm_index(i) for i in idx)
    if t is list:
        return np.asarray([i.value if type(i) is Var else i for i in idx])
    return idx


def is_basic_index(idx):
    """Basic indexing (ints, slices, None, Ellipsis): NumPy returns a view."""
    if type(idx) is not tuple:
        idx = (idx,)
    for i in idx:
        if not (i is None or i is Ellipsis or type(i) is slice or isinstance(i, (int, np.integer))):
            return False
    return True


class _ViewInfo:
    __slots__ = ("base", "kind", "info")

    def __init__(self, base, kind, info):
        self.base = base
        self.kind = kind      # 'index' | 'reshape' | 'transpose'
        self.info = info      # index, or inverse axes for 'transpose'


class _Views:
    """Weak references to the live views of a Var (pruned as it grows; no cycles)."""

    __slots__ = ("refs", "limit")

    def __init__(self):
        self.refs = []
        self.limit = 8

    def add(self, view):
        refs = self.refs
        if len(refs) >= self.limit:
            refs[:] = [r for r in refs if r() is not None]
            self.limit = 2 * len(refs) + 8
        refs.append(weakref.ref(view))

    def live(self):
        return [w for w in (r() for r in self.refs) if w is not None]


def register_view(view, base, kind, info):
    """Record that ``view`` aliases ``base`` (NumPy would share memory)."""
    view._view_of = _ViewInfo(base, kind, info)
    views = base._views
    if views is None:
        views = base._views = _Views()
    views.add(view)
    return view


# filled by ops.py: functions computing (without registering) a view of a Var
VIEW_OPS = {}


def _refresh_views(var):
    """After var changed, recompute every live view of it from its new value."""
    views = var._views
    if views is None:
        return
    for w in views.live():
        if w._view_of.base is not var:
            continue
        vi = w._view_of
        t = VIEW_OPS[vi.kind](var, vi.info)
        w.value = t.value
        if _grad_enabled:
            w._node = t._node
        _refresh_views(w)


_LEAF_WRITE_MSG = ("in-place write into a leaf Var that requires grad (or into a view "
                   "of one): its gradient would be ambiguous. Write into a copy "
                   "(y = x.copy(); y[i] = v), or wrap the write in no_grad()")


def write(var, idx, v):
    """``var[idx] = v`` with value semantics, recorded as a setitem node.

    The array is modified in place only if nothing else references it (no saved
    value, no view, no user handle: checked with the reference count); otherwise
    it is copied first, so values saved by earlier nodes never change.  A write
    into a view (``A[i][j] = v``, ``x.T[0] = v``) is written back into the base
    Var, and live views of a written Var are recomputed, as NumPy would show.
    """
    idx = _norm_index(idx)
    if _grad_enabled:
        b = var
        while b is not None:
            if type(b._node) is Leaf:
                raise refuse(_LEAF_WRITE_MSG, "write into a leaf")
            vi = b._view_of
            b = vi.base if vi is not None else None
    a = var.value
    if type(a) is not ndarray:
        raise TypeError("'%s' object (the value of this Var) does not support item "
                        "assignment" % type(a).__name__)
    if type(v) is Var:
        vv = v.value
        vn = v._node
    else:
        vv = v
        vn = None
    n = var._node
    record = _grad_enabled and (n is not None or vn is not None)
    if record and vn is not None and a.dtype.kind not in "fc":
        raise refuse("writing a differentiable value into an array of dtype %s would "
                     "truncate it; create the array with a float dtype" % a.dtype,
                     "write into an integer array")
    if record and vn is not None and not is_basic_index(idx) and _has_repeats(idx):
        raise refuse("y[idx] = v with repeated indices in idx is not differentiable (which "
                     "write wins is unspecified)", "write with repeated indices")
    if not (a.base is None and a.flags.writeable and _getrefcount(a) <= _RC_EXCLUSIVE):
        a = a.copy()
    a[idx] = vv
    if record:
        node = Node(SETITEM_RULE.vjps, (n, None, vn),
                    (Meta(a), idx, Meta(vv) if type(vv) is ndarray else vv), None)
    else:
        node = n
    var.value = a
    var._node = node
    vi = var._view_of
    if vi is not None:
        _write_back(vi, var)
    else:
        _refresh_views(var)


def _has_repeats(idx):
    if type(idx) is not tuple:
        idx = (idx,)
    arrays = [np.asarray(i) for i in idx if type(i) is ndarray and i.dtype.kind in "iu"]
    if not arrays:
        return False
    flat = np.stack([x.ravel() for x in np.broadcast_arrays(*arrays)], axis=1)
    return len(np.unique(flat, axis=0)) != len(flat)


def _write_back(vi, view):
    """Propagate a write into ``view`` to its base (which refreshes the view)."""
    if vi.kind == "index":
        write(vi.base, vi.info, view)
    else:
        write(vi.base, Ellipsis, VIEW_OPS["undo_" + vi.kind](view, vi))


def set_whole(var, new):
    """var[...] = new (used by +=, -=, ... on array Vars: NumPy updates in place)."""
    write(var, Ellipsis, new)
    return var


SETITEM_RULE = None   # set by ops.py once the rules table is loaded


# ----------------------------------------------------------------------------
# Var
# ----------------------------------------------------------------------------
_SCALAR_TYPES = (int, float, complex, bool, np.generic)


def _float_value(value):
    if type(value) is Var:
        value = value.value
    if isinstance(value, ndarray):
        if value.dtype.kind == "c":
            raise refuse("complex values are not differentiated by jitad.eager", "complex value")
        dt = value.dtype if value.dtype.kind == "f" else np.float64
        return np.array(value, dtype=dt, copy=True)
    if isinstance(value, (int, float, bool, np.integer, np.floating, np.bool_)):
        return float(value)
    a = np.asarray(value)
    if a.dtype.kind not in "biuf":
        raise refuse("cannot make a differentiable Var from a value of type %s (dtype %s)"
                     % (type(value).__name__, a.dtype), "requires_grad=True")
    return np.array(a, dtype=np.float64)


_CONVERSION_HINT = {
    "float()": "float() (which math.* functions and a write into a plain ndarray also call)",
    "complex()": "complex()",
    ".item()": ".item()",
    ".tolist()": ".tolist()",
    "np.asarray()": "np.asarray() (which np.array([...]) and a write into a plain ndarray "
                    "also call)",
}


def _conversion_error(what):
    return refuse(
        "%s of a Var that requires grad would drop it from the graph (its gradient would "
        "silently be zero). Keep it a Var (np.sin rather than math.sin, eager.numpy.zeros "
        "rather than a plain ndarray), read .value if you mean a constant, or run the function "
        "through jitad.grad(f, mode='eager'), which routes math.*, float() and np.* to "
        "differentiable versions" % _CONVERSION_HINT[what], what)


class Var:
    """A value (float or ndarray) that records the operations applied to it.

    ``Var(value, requires_grad=True)`` makes a leaf: ``.grad`` receives
    d(output)/d(this Var) after ``output.backward()``.  The value of a leaf is
    copied (as float); a constant ``Var(value)`` is not copied.
    """

    __slots__ = ("value", "_node", "_views", "_view_of", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, value, requires_grad=False):
        # _views/_view_of always exist (None: no views / not a view): reading them never
        # reaches __getattr__
        self._views = self._view_of = None
        if requires_grad is None or type(requires_grad) is Node:
            # internal fast path: result of an operation (None: constant)
            self.value = value
            self._node = requires_grad
            return
        if requires_grad:
            value = _float_value(value)
            self._node = Leaf(value.shape if type(value) is ndarray else None)
        else:
            if type(value) is Var:
                value = value.value
            elif not isinstance(value, (ndarray,) + _SCALAR_TYPES):
                value = np.asarray(value)
            self._node = None
        self.value = value

    # -- graph ---------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._node is not None

    @property
    def is_leaf(self):
        return type(self._node) is not Node

    @property
    def grad(self):
        n = self._node
        return n.grad if type(n) is Leaf else None

    @grad.setter
    def grad(self, g):
        n = self._node
        if type(n) is not Leaf:
            raise AttributeError("only leaf Vars (requires_grad=True inputs) have .grad")
        n.grad = g

    def backward(self, cotangent=None, retain_graph=False):
        """Accumulate gradients into the .grad of every leaf this Var depends on.

        cotangent: required for a non-scalar Var (same shape).  The graph is
        freed afterwards unless retain_graph=True.
        """
        backward(self, cotangent, retain_graph)

    def detach(self):
        return Var(self.value, None)

    # -- plain-value protocol (control flow reads values) -------------------
    def __bool__(self):
        return bool(self.value)

    def __int__(self):
        return int(self.value)

    def __index__(self):
        import operator
        return operator.index(self.value)

    def __float__(self):
        if self._node is not None and _grad_enabled:
            raise _conversion_error("float()")
        return float(self.value)

    def __complex__(self):
        if self._node is not None and _grad_enabled:
            raise _conversion_error("complex()")
        return complex(self.value)

    def item(self, *args):
        if self._node is not None and _grad_enabled:
            raise _conversion_error(".item()")
        return np.asarray(self.value).item(*args)

    def tolist(self):
        if self._node is not None and _grad_enabled:
            raise _conversion_error(".tolist()")
        return np.asarray(self.value).tolist()

    def __array__(self, dtype=None, copy=None):
        if self._node is not None and _grad_enabled:
            raise _conversion_error("np.asarray()")
        return np.asarray(self.value, dtype=dtype)

    def __format__(self, spec):
        return format(self.value, spec)

    def __round__(self, ndigits=None):
        return round(self.value, ndigits) if ndigits is not None else round(self.value)

    def __floor__(self):
        import math
        return math.floor(self.value)

    def __ceil__(self):
        import math
        return math.ceil(self.value)

    def __trunc__(self):
        import math
        return math.trunc(self.value)

    __hash__ = object.__hash__

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        for i in range(len(self.value)):
            yield self[i]

    def __repr__(self):
        rg = ", requires_grad=True" if self._node is not None else ""
        return "Var(%r%s)" % (self.value, rg)

    # -- array attributes ----------------------------------------------------
    @property
    def shape(self):
        return np.shape(self.value)

    @property
    def ndim(self):
        return np.ndim(self.value)

    @property
    def size(self):
        return np.size(self.value)

    @property
    def dtype(self):
        return np.asarray(self.value).dtype if type(self.value) is not ndarray else self.value.dtype

    # -- NumPy dispatch --------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__":
            op = UFUNC_OPS.get(ufunc)
            if op is not None:
                if not kwargs:
                    return op(*inputs)
                if len(kwargs) == 1 and "out" in kwargs:      # np.add(x, y, out=z)
                    return _write_outputs(kwargs["out"], op(*inputs))
        name = "np.%s%s" % (ufunc.__name__, "" if method == "__call__" else "." + method)
        if method == "at":                                    # np.add.at(y, idx, v)
            return _inplace_fallback(ufunc, name, inputs[0],
                                     lambda a: getattr(ufunc, method)(a, *unwrap(inputs[1:]),
                                                                      **unwrap(kwargs)),
                                     inputs[1:], kwargs)
        return _fallback(ufunc, name, getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        op = FUNCTION_OPS.get(func)
        if op is not None:
            return op(*args, **kwargs)
        mod = (getattr(func, "__module__", None) or "numpy").replace("numpy", "np", 1)
        return _fallback(func, "%s.%s" % (mod, func.__name__), func, args, kwargs)

    def __getattr__(self, name):
        # Reached only when normal lookup fails: an ndarray attribute or method that
        # Var has no eager version of (see the module docstring of jitad.eager).
        if name[:1] == "_":
            raise AttributeError(name)
        if name in Var.__dict__:          # a Var property raised AttributeError: re-raise it
            return object.__getattribute__(self, name)
        if not hasattr(ndarray, name):
            raise AttributeError("'Var' object has no attribute %r" % name)
        op = ATTR_OPS.get(name)
        if op is not None:
            return op(self)
        v = self.value
        attr = getattr(v if type(v) is ndarray else np.asarray(v), name)
        if not callable(attr):
            if (name in _METADATA or is_constant_result(attr) or self._node is None
                    or not _grad_enabled):
                return attr
            raise refuse(".%s of a Var that requires grad has no eager derivative rule"
                         % name, "." + name)
        construct = ".%s()" % name
        if name in _INPLACE_METHODS:
            if type(v) is not ndarray:
                raise AttributeError("'%s' object (the value of this Var) has no attribute %r"
                                     % (type(v).__name__, name))
            return lambda *args, **kwargs: _inplace_fallback(
                None, construct, self,
                lambda a: getattr(a, name)(*unwrap(args), **unwrap(kwargs)), args, kwargs)
        if name in _REFUSED_METHODS:
            raise refuse("%s is not supported by jitad.eager: %s" % (construct,
                                                                     _REFUSED_METHODS[name]),
                         construct, UnsupportedError)
        func = getattr(np, name, None)
        return lambda *args, **kwargs: _fallback(
            func, construct, lambda a, *r, **k: getattr(np.asarray(a), name)(*r, **k),
            (self,) + args, kwargs)

    # operators and methods (__add__, sum, reshape, ...) are installed by ops.py

    def __setitem__(self, idx, v):
        write(self, idx, v)


UFUNC_OPS = {}      # numpy ufunc -> eager op   (filled by ops.py)
ATTR_OPS = {}       # ndarray attribute name -> eager function of the Var (filled by ops.py)
# ndarray attributes that describe memory layout: read from the value, never refused
_METADATA = frozenset(("strides", "itemsize", "nbytes", "flags", "device"))
# ndarray methods that change the array in place (see _inplace_fallback)
_INPLACE_METHODS = frozenset(("sort", "partition", "put", "itemset", "setfield"))
_REFUSED_METHODS = {"resize": "it changes the shape in place; use np.resize(x, shape) or "
                              "x.reshape(shape)",
                    "setflags": "a Var's value is managed by jitad.eager (copy-on-write)"}
FUNCTION_OPS = {}   # numpy function -> eager op (filled by ops.py)


def _contains_grad_var(obj):
    """Whether obj (or a list/tuple/dict inside it) holds a Var that requires grad."""
    return _contains_var(obj, grad_only=True)


def unwrap(obj):
    """Replace Vars (also inside lists/tuples/dicts) by their values."""
    t = type(obj)
    if t is Var:
        return obj.value
    if t is tuple or t is list:
        return t(unwrap(o) for o in obj)
    if t is dict:
        return {k: unwrap(v) for k, v in obj.items()}
    return obj


def _contains_var(obj, grad_only=False):
    """Whether obj (or a list/tuple/dict inside it) holds a Var (one that requires grad)."""
    t = type(obj)
    if t is Var:
        return obj._node is not None or not grad_only
    if t is tuple or t is list:
        return any(_contains_var(o, grad_only) for o in obj)
    if t is dict:
        return any(_contains_var(o, grad_only) for o in obj.values())
    return False


def is_constant_result(obj):
    """True if obj holds no float values: None, bools, ints, strings, dtypes, int/bool
    arrays, and tuples/lists of those.  Such a result has no derivative."""
    if obj is None:
        return True
    t = type(obj)
    if t is bool or t is int or t is str:
        return True
    if t is ndarray:
        return obj.dtype.kind in "biuSUmM"
    if isinstance(obj, (np.integer, np.bool_, np.dtype)):
        return True
    if isinstance(obj, (tuple, list)):
        return all(is_constant_result(o) for o in obj)
    return False


_NO_RULE = "%s has no eager derivative rule; it was called on a Var that requires grad"


def _fallback(func, name, call, args, kwargs):
    """A NumPy function (ufunc method, array method) that has no eager rule.

    Without a Var that requires grad among its arguments (or under no_grad) it is
    plain NumPy on the values; a float array result comes back as a constant Var
    (so that a later ``y[i] = v`` into it is recorded).  With one, it still runs
    on the values, and a result with no float values (ints, bools, indices) or
    a function in NONDIFF comes back as is; a float result is refused with a
    NotDifferentiableError at the user's line, before anything is recorded.
    An ``out=`` naming Vars is written with value semantics (``write``).
    """
    out = kwargs.get("out")
    if out is not None and _contains_var(out):
        kw = dict(kwargs)
        del kw["out"]
        return _write_outputs(out, _fallback(func, name, call, args, kw))
    if _grad_enabled and (_contains_grad_var(args) or _contains_grad_var(kwargs)):
        try:
            ans = call(*unwrap(args), **unwrap(kwargs))
        except Exception:
            if func in NONDIFF:
                raise
            raise refuse(_NO_RULE % name, name) from None
        if func in NONDIFF or is_constant_result(ans):
            return ans
        raise refuse(_NO_RULE % name, name)
    ans = call(*unwrap(args), **unwrap(kwargs))
    if type(ans) is ndarray and ans.dtype.kind in "fc" and (_contains_var(args)
                                                             or _contains_var(kwargs)):
        return Var(ans, None)
    return ans


def _write_outputs(out, ans):
    """``out=`` of a NumPy call: write each result into its target (Vars by ``write``)."""
    single = type(out) is not tuple
    targets = (out,) if single else out
    results = (ans,) if (single or len(out) == 1) else ans
    for t, r in zip(targets, results):
        if type(t) is Var:
            write(t, Ellipsis, r)
        else:
            t[...] = r       # a plain ndarray: only constants convert (else a JitadError)
    return out if single or len(out) > 1 else out[0]


def _inplace_fallback(func, name, target, apply, args, kwargs):
    """A NumPy operation that changes ``target`` in place (``np.add.at(y, ...)``,
    ``y.sort()``, ``y.fill(v)`` ...) and has no eager rule.

    With a Var that requires grad involved it is refused; otherwise it is applied
    to a copy of the value, which is then written back with ``write`` (so values
    saved by recorded nodes never change).  Returns what the operation returned."""
    if type(target) is not Var:
        if _grad_enabled and (_contains_grad_var(args) or _contains_grad_var(kwargs)):
            raise refuse(_NO_RULE % name, name)
        return apply(target)
    if _grad_enabled and (target._node is not None or _contains_grad_var(args)
                          or _contains_grad_var(kwargs)):
        raise refuse("%s changes an array in place and has no eager derivative rule; it "
                     "was called with a Var that requires grad" % name, name)
    a = np.array(target.value, copy=True)
    ans = apply(a)
    write(target, Ellipsis, a)
    return ans


_RC_EXCLUSIVE = _rc_probe(Var(np.zeros(1), None))
