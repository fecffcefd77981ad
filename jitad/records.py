"""Records: objects of a user's `typing.NamedTuple` (or `collections.namedtuple`) or
`@dataclass` class, as jitad reads them -- a structure of named fields, like a tuple.

Takes: classes and their objects (arguments, globals a function's constructor calls name).
Guarantees: `is_record(cls)` holds for a namedtuple class and a dataclass (not an object of
one); `field_names(cls)` are its fields in their order (a dataclass's `fields()`, its
`ClassVar`s not among them); `is_sequence(cls)` tells a namedtuple (a tuple: indexed,
unpacked, iterated) from a dataclass (read by field only); `values(obj)` are an object's
field values in that order; `remade(like, values)` is an object of `like`'s class holding
`values` -- a namedtuple by `_make`, a dataclass as a copy of `like` whose fields are set
directly (its `__init__` and `__post_init__` are not run again: they may check or convert a
value that is now a gradient or an eager-mode variable); `constructor(cls)` is why a call
`cls(...)` cannot be read as a structure of its arguments (None when it can: a namedtuple,
a dataclass whose `__init__` is the one `@dataclass` wrote, with no `__post_init__`, each
field given by the call or by a plain default); `defaults(cls)` are the fields' defaults
(only those it has); `method(cls, name)` is the plain function `obj.name(...)` calls (a
method defined in the class or a base), with whether the object is its first argument (a
static method's is not), or None.
Invariants: nothing here changes a class or an object given to it.
"""
from __future__ import annotations

import copy
import dataclasses
import inspect
import types

import numpy as np


def is_record(cls) -> bool:
    return isinstance(cls, type) and (
        (issubclass(cls, tuple) and hasattr(cls, "_fields")) or dataclasses.is_dataclass(cls))


def is_sequence(cls) -> bool:
    return issubclass(cls, tuple)


def field_names(cls) -> tuple:
    if is_sequence(cls):
        return tuple(cls._fields)
    return tuple(f.name for f in dataclasses.fields(cls))


def values(obj) -> list:
    if isinstance(obj, tuple):
        return list(obj)
    return [getattr(obj, name) for name in field_names(type(obj))]


def remade(like, items):
    if isinstance(like, tuple):
        return type(like)._make(items)
    obj = copy.copy(like)
    for name, v in zip(field_names(type(like)), items):
        object.__setattr__(obj, name, v)      # a frozen dataclass's fields too
    return obj


def defaults(cls) -> dict:
    if is_sequence(cls):
        return dict(getattr(cls, "_field_defaults", {}))
    return {f.name: f.default for f in dataclasses.fields(cls)
            if f.default is not dataclasses.MISSING}


def constructor(cls) -> str | None:
    """Why `cls(...)` made inside a function is not a structure of its arguments, or None."""
    if is_sequence(cls):
        return None
    init = cls.__init__
    if getattr(getattr(init, "__code__", None), "co_filename", None) != "<string>":
        return f"{cls.__name__} defines its own __init__"
    if hasattr(cls, "__post_init__"):
        return f"{cls.__name__} has a __post_init__"
    for f in dataclasses.fields(cls):
        if not f.init:
            return f"its field {f.name!r} is not an argument of __init__ (init=False)"
        if f.default is dataclasses.MISSING and f.default_factory is not dataclasses.MISSING:
            return f"its field {f.name!r} has a default_factory"
    return None


def method(cls, name):
    """(function, takes the object first) for `obj.name(...)`, or None."""
    for klass in cls.__mro__:
        if name in vars(klass):
            attr = vars(klass)[name]
            if isinstance(attr, staticmethod):
                return attr.__func__, False
            if isinstance(attr, types.FunctionType):
                return attr, True
            return None
    return None


def class_constant(cls, name):
    """A number, string or tuple of numbers the class holds as `name` (not a field), or
    None."""
    if name in field_names(cls):
        return None
    v = inspect.getattr_static(cls, name, None)
    if isinstance(v, (bool, int, float, str)) or (
            isinstance(v, tuple) and all(isinstance(x, (int, float)) for x in v)):
        return v
    return None


# -- plain objects read as records -----------------------------------------------------------

_VIEWS = {}         # (class, attribute names) -> the record class viewing such objects
_NUMBERS = (np.ndarray, bool, int, float, np.number, np.bool_)


def is_plain_object(obj) -> bool:
    """An object of a user's ordinary class (not a record, a module, a function, a class or
    a builtin type's object) whose attributes live in its `__dict__` (no `__slots__`, no
    `__getattr__` / `__getattribute__` / `__setattr__` of its own), with at least one, each
    a number or a NumPy array (a model's weights, a config's numbers)."""
    cls = type(obj)
    if not isinstance(getattr(obj, "__dict__", None), dict) or not obj.__dict__ \
            or is_record(cls) or isinstance(obj, (type, types.ModuleType, types.FunctionType)) \
            or cls.__module__ == "builtins" or "__slots__" in vars(cls) \
            or type(cls) is not type:
        return False
    if any(name in vars(k) for k in cls.__mro__[:-1]
           for name in ("__getattr__", "__getattribute__", "__setattr__")):
        return False
    return all(isinstance(k, str) and k.isidentifier() and not k.startswith("__")
               and isinstance(v, _NUMBERS) for k, v in obj.__dict__.items())


def view(obj):
    """A plain object (`is_plain_object`) as a dataclass object of the same attributes, in
    the order of its `__dict__`: its class a dataclass made (once per class and attribute
    names) as a subclass of the object's own, so `view.name(...)` finds the same methods
    (`method`), read as a record's are. The object itself is not changed."""
    cls, names = type(obj), tuple(obj.__dict__)
    made = _VIEWS.get((cls, names))
    if made is None:
        made = dataclasses.make_dataclass(
            cls.__name__, names, bases=(cls,), eq=False, repr=False,
            namespace={"__module__": cls.__module__, "__qualname__": cls.__qualname__})
        _VIEWS[cls, names] = made
    out = object.__new__(made)
    out.__dict__.update(obj.__dict__)
    return out
