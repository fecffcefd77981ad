"""Functions with arguments bound: `functools.partial(f, ...)` and bound methods (`model.loss`).

Takes: a `functools.partial` of a plain function (or of another partial), or a method bound
to an object, as the transformations take it (`jitad.grad(partial(loss, X=X, y=y))`,
`jitad.grad(model.loss)`).
Guarantees: `bound_differentiable(fn, ...)` is a `BoundDifferentiable`: the `Differentiable`
of the underlying plain function f (its compiled specializations shared with f's own), whose
`bind` makes f's arguments from the caller's: the bound positional arguments first, then the
caller's, the bound keywords where the caller gives none (as Python's partial does). For a
method, the first is `self` read at every call as a namedtuple of the attributes the method
reads (`self.W` -> field W; all of the object's data attributes when the method hands `self`
on whole), so an attribute changed or rebound between calls is seen, never a snapshot.
`bound` counts the leading arguments bound: `wrt` by index counts the caller's arguments
(wrt=0 is the first one the caller gives), by name any parameter of f's.
Invariants: the gradient is f's with those arguments (the bound values are arguments like any
other: never frozen into compiled code); an attribute the method writes (`self.n = 0`), or one
whose value jitad cannot pass (an object, a function), is refused naming it.
"""
from __future__ import annotations

import collections
import functools
import inspect
import textwrap
import types

import gast
import numpy as np

from .differentiable import Differentiable
from .errors import JitadError

_SELF_TYPES: dict = {}      # (class, fields) -> namedtuple class


def is_bound(fn) -> bool:
    return isinstance(fn, functools.partial) or (
        isinstance(fn, types.MethodType) and inspect.isfunction(fn.__func__))


def unbind(fn):
    """(plain function, bound positional arguments, bound keywords, the method's object or
    None): a nest of partials flattened, as Python's partial does."""
    args, keywords = (), {}
    while isinstance(fn, functools.partial):
        args, keywords = tuple(fn.args) + args, {**fn.keywords, **keywords}
        fn = fn.func
    owner = None
    if isinstance(fn, types.MethodType):
        owner, fn = fn.__self__, fn.__func__
    return fn, args, keywords, owner


def _data(value) -> bool:
    if isinstance(value, (np.ndarray, np.generic, int, float, bool, complex, str, type(None))):
        return True
    if isinstance(value, (tuple, list)):
        return all(_data(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _data(v) for k, v in value.items())
    return False


@functools.lru_cache(maxsize=None)
def _self_reads(fn):
    """(the attributes a method reads of its first parameter, whether it hands it on whole)."""
    try:
        tree = gast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return (), True
    me = tree.args.args[0].id if tree.args.args else None
    attrs, whole = [], False
    parents = {id(c): n for n in gast.walk(tree) for c in gast.iter_child_nodes(n)}
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and node.id == me and node is not tree.args.args[0]:
            up = parents.get(id(node))
            if isinstance(up, gast.Attribute) and up.value is node:
                if isinstance(up.ctx, gast.Store):
                    raise JitadError(f"{fn.__qualname__} assigns self.{up.attr}: a method jitad "
                                     "differentiates reads its object, and returns what it "
                                     "computes")
                if up.attr not in attrs:
                    attrs.append(up.attr)
            else:
                whole = True
    return tuple(attrs), whole


def _reads_through_calls(fn, owner):
    """(attributes, whole) a method reads of its object, with those of the methods of the
    object it calls (`self.m(...)`, read as helpers: `capture._self_calls`), and those methods
    (name -> plain function). A method the object's class overrides is refused: the helper is
    the defining class's."""
    from .capture import defining_class, self_methods
    attrs, whole, called, todo = [], False, {}, [fn]
    seen = set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        a, w = _self_reads(f)
        whole = whole or w
        attrs += [x for x in a if x not in attrs]
        cls = defining_class(f)
        if cls is None:
            continue
        for m, (target, takes_self) in self_methods(cls, a).items():
            if inspect.getattr_static(type(owner), m, None) is not inspect.getattr_static(cls, m):
                raise JitadError(f"{f.__qualname__} calls self.{m}, which "
                                 f"{type(owner).__name__} overrides: jitad reads "
                                 f"{cls.__name__}.{m}; differentiate a method of "
                                 f"{type(owner).__name__} itself")
            called[m] = target
            if takes_self:                  # a static method reads no object
                todo.append(target)
    return tuple(attrs), whole, called


def self_struct(fn, owner):
    """The method's object as a namedtuple of the attributes it reads (and the methods it
    calls read), their values now; the methods it calls are the namedtuple's own, run as
    eager mode runs helpers."""
    attrs, whole, called = _reads_through_calls(fn, owner)
    if whole:
        names = list(attrs) + [k for k in vars(owner) if k not in attrs and not k.startswith("_")
                               and _data(getattr(owner, k))]
    else:
        names = list(attrs)
    fields, values = [], []
    for k in names:
        try:
            v = getattr(owner, k)
        except AttributeError:
            raise JitadError(f"{fn.__qualname__} reads self.{k}, which its object does not "
                             "have") from None
        if callable(v) and not isinstance(v, np.ndarray):
            continue        # a method called on self: the front end refuses the call, at its line
        if not _data(v):
            raise JitadError(f"{fn.__qualname__} reads self.{k}, a {type(v).__name__}: jitad "
                             "passes a method's object as its arrays, numbers, strings and "
                             "tuples/lists/dicts of them (call another method's code as a "
                             "function of its own)")
        fields.append(k)
        values.append(v)
    names = fields
    key = (type(owner), tuple(names))
    cls = _SELF_TYPES.get(key)
    if cls is None:
        cls = _SELF_TYPES[key] = collections.namedtuple(f"{type(owner).__name__}_self", names)
    for m, target in called.items():       # eager mode runs `self.m(...)` on the namedtuple
        if m not in names and not isinstance(getattr(cls, m, None), _EagerMethod):
            setattr(cls, m, _EagerMethod(target, inspect.isfunction(
                inspect.getattr_static(type(owner), m, None))))
    return cls(*values)


class _EagerMethod:
    """A method of the object, on the namedtuple that stands for it: eager mode's version of
    its plain function (NumPy and math as eager mode reads them), given the namedtuple."""

    def __init__(self, fn, takes_self):
        self.fn, self.takes_self = fn, takes_self

    def __get__(self, obj, objtype=None):
        from .eager.functional import eager_function
        f = eager_function(self.fn)
        return functools.partial(f, obj) if self.takes_self and obj is not None else f


def bound_differentiable(fn, backend=None, parallel=None):
    from .differentiable import as_differentiable
    f, args, keywords, owner = unbind(fn)
    inner = as_differentiable(f, backend, parallel)
    return BoundDifferentiable(inner, args, keywords, owner, fn)


class BoundDifferentiable(Differentiable):
    """f with some arguments bound (see the module docstring)."""

    def __init__(self, inner, args, keywords, owner, shown):
        super().__init__(inner.__jitad_function__, inner.backend, inner.parallel)
        self._specs, self._checked = inner._specs, inner._checked    # f's own, shared
        self.bound_args, self.bound_keywords, self.owner = args, keywords, owner
        self.bound = len(args) + (owner is not None)
        self.shown = shown

    def bind(self, args, kwargs):
        if not kwargs and len(args) == len(self.params):
            return tuple(args)          # bound already (the transformations bind, then pass on)
        lead = ((self_struct(self.__jitad_function__, self.owner),)
                if self.owner is not None else ()) + self.bound_args
        return super().bind(lead + tuple(args), {**self.bound_keywords, **kwargs})

    def __repr__(self):
        return f"jitad.differentiable({self.shown!r})"
