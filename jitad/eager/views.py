"""In-place writes into Vars (copy-on-write) and the views that alias them.

Takes: a write ``var[idx] = v`` (also the writes NumPy's ``out=`` and in-place methods
make, see `dispatch`), and the views the operations register (``register_view``: a Var
computed from a base by basic indexing, ``reshape`` or ``transpose``, which NumPy would
let share the base's memory).
Guarantees: `write` has value semantics and is recorded as a setitem node: the array is
modified in place only if nothing else references it (no saved value, no view, no user
handle: checked with the reference count), otherwise it is copied first, so a value saved
by an earlier node never changes. A write into a view (``A[i][j] = v``, ``x.T[0] = v``) is
written back into its base, and every live view of a written Var is recomputed from the
new value, as NumPy would show it. Refused at the user's line while recording: a write
into a leaf that requires grad (or a view of one), a differentiable write into an integer
array, and one with repeated indices.
Invariants: a Var's ``_views`` holds only weak references (no cycles, pruned as it grows);
``_view_of`` names the base, the kind of view and what undoes it. `VIEW_OPS` (how to
recompute each kind of view, and undo it) and `SETITEM_RULE` are filled by ops.py; this
module installs ``Var.__setitem__`` (= `write`).
"""
import sys
import weakref

import numpy as np

from . import graph, rules
from .graph import Leaf, Meta, Node
from .refusal import refuse
from .var import Var

ndarray = np.ndarray
_getrefcount = sys.getrefcount


# The reference count of an array that only its Var holds, counted as write() counts it
# (a local `a = var.value` and getrefcount's argument): write() changes an array in place
# only at or below this count.
def _rc_probe(var):
    a = var.value
    return _getrefcount(a)


def norm_index(idx, top=True):
    """Replace Vars (and sequences) inside an index by plain values/arrays: the index's own
    tuple holds one index per axis; a list, or a tuple inside it (`M[(0, 0, 2),]`, what
    `np.take(M, (0, 0, 2), axis=0)` reads), is an integer array, as NumPy reads it (so the
    adjoint adds up repeated entries)."""
    t = type(idx)
    if t is int or t is slice:
        return idx
    if t is Var:
        return idx.value
    if t is tuple and top:
        return tuple(norm_index(i, False) for i in idx)
    if t is list or t is tuple:
        return np.asarray([norm_index(i, False) if type(i) in (list, tuple)
                           else i.value if type(i) is Var else i for i in idx])
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


def refresh_views(var):
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
        if graph.grad_enabled:
            w._node = t._node
        refresh_views(w)


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
    idx = norm_index(idx)
    if graph.grad_enabled:
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
    record = graph.grad_enabled and (n is not None or vn is not None)
    if record and vn is not None and a.dtype.kind not in "fc":
        raise refuse("writing a differentiable value into an array of dtype %s would "
                     "truncate it; create the array with a float dtype" % a.dtype,
                     "write into an integer array")
    if record and vn is not None and not is_basic_index(idx) and _has_repeats(idx) \
            and rules.leading_arrays(idx) is None:
        raise refuse("y[idx] = v with repeated indices in idx is supported with the index "
                     "arrays first (y[idx] = v, y[rows, cols] = v)", "write with repeated indices")
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
        refresh_views(var)


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


_RC_EXCLUSIVE = _rc_probe(Var(np.zeros(1), None))

Var.__setitem__ = write
