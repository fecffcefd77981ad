"""NumPy functions jitad defines by other NumPy code it differentiates.

Takes: nothing (a table read by the front end and by eager mode).
Guarantees: `DEFINITIONS` maps a NumPy callable to a plain Python function computing it, in
the forms written here (others are refused at the user's call, naming the arguments these
take). The front end reads a call of one as a call of a user's helper (`normalize.anf`),
and eager mode runs the same function on Vars (`eager_functions`, NumPy's dispatch reaching
it): one definition, both modes, derivatives from the primitives it calls.
Invariants: a definition calls only what jitad differentiates, reads no globals but `np`,
and takes no argument that must be a compile-time constant (an axis) -- such a form stays
a primitive of its own.
"""
import numpy as np


def ptp(a):
    """np.ptp(a): the range of all entries."""
    return np.max(a) - np.min(a)


def vdot(a, b):
    """np.vdot(a, b) of real arrays: the dot product of the flattened arrays."""
    return np.sum(np.ravel(a) * np.ravel(b))


def take(a, indices):
    """np.take(a, indices): entries of the flattened array."""
    return np.ravel(a)[indices]


def trapezoid(y, dx=1.0):
    """np.trapezoid(y, dx=dx) of a vector: the trapezoid rule on samples spaced dx."""
    return np.sum(y[1:] + y[:-1]) * dx / 2.0


def trapezoid_at(y, x):
    """np.trapezoid(y, x) of vectors: the trapezoid rule on samples y at x."""
    return np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1])) / 2.0


def nansum(a):
    """np.nansum(a): the sum of the entries that are not NaN."""
    return np.sum(np.where(np.isnan(a), 0.0, a))


def nanmean(a):
    """np.nanmean(a): the mean of the entries that are not NaN."""
    keep = ~np.isnan(a)
    return np.sum(np.where(keep, a, 0.0)) / np.sum(keep)


# a callable -> its definitions, the first whose parameters take the call's arguments
DEFINITIONS = {np.ptp: (ptp,), np.vdot: (vdot,), np.take: (take,), np.nansum: (nansum,),
               np.nanmean: (nanmean,), np.trapezoid: (trapezoid_at, trapezoid)}
_BY_ID = {id(k): v for k, v in DEFINITIONS.items()}


def _takes(fn, nargs, keywords) -> bool:
    code = fn.__code__
    params = code.co_varnames[:code.co_argcount]
    required = code.co_argcount - len(fn.__defaults__ or ())
    return (nargs <= len(params) and set(keywords) <= set(params[nargs:])
            and all(p in keywords for p in params[nargs:required]))


def definition(obj, nargs, keywords):
    """The definition of NumPy callable `obj` for a call with `nargs` positional arguments
    and these keyword names: None if `obj` has none, the first definition if none takes them
    (its call then names what it takes)."""
    choices = _BY_ID.get(id(obj))
    if choices is None:
        return None
    return next((fn for fn in choices if _takes(fn, nargs, keywords)), choices[0])


def eager_functions() -> dict:
    """NumPy callable -> a function choosing its definition per call: eager mode's version
    (`dispatch.FUNCTION_OPS`: a call on Vars runs the definition on them)."""
    def chooser(obj):
        def call(*args, **kwargs):
            return definition(obj, len(args), kwargs)(*args, **kwargs)
        call.__name__ = call.__qualname__ = obj.__name__
        return call
    return {obj: chooser(obj) for obj in DEFINITIONS}
