"""Call targets: whether a called function is the user's helper or a library's.

Takes: a called object.
Guarantees: `is_user_helper(obj)` is true only for a plain Python function of the user's code
with no derivative rule (or a `@jitad.differentiable` one): a library function (NumPy, SciPy,
the standard library, any installed package) is never transformed; `is_library(fn)` decides by
its module and file.
"""
from __future__ import annotations

import functools
import os
import site
import sysconfig
import types

import gast

from ..primitives import lookup_callable


LIBRARY_PACKAGES = frozenset({"numpy", "scipy", "math", "numba", "jitad", "builtins"})


@functools.lru_cache(maxsize=None)
def _library_roots() -> tuple:
    """The directories the interpreter's standard library and installed packages live in."""
    paths = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            paths.add(p)
    try:
        paths.update(site.getsitepackages())
        paths.add(site.getusersitepackages())
    except AttributeError:  # some embedded interpreters have a reduced `site`
        pass
    return tuple(sorted({os.path.realpath(p) for p in paths}))


def is_library(fn) -> bool:
    """Whether a function belongs to a library rather than to the user's code: its module is
    one of `LIBRARY_PACKAGES`, or its file lies in the standard library or in an installed
    package (site-packages / dist-packages; an editable install of the user's own package lives
    in the user's tree and counts as user code)."""
    mod = getattr(fn, "__module__", None) or ""
    if mod.partition(".")[0] in LIBRARY_PACKAGES:
        return True
    code = getattr(fn, "__code__", None)
    filename = getattr(code, "co_filename", "") or ""
    if not filename or filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    parts = path.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return True
    return any(path.startswith(root + os.sep) for root in _library_roots())


def is_user_helper(obj) -> bool:
    """Whether a called object is a helper jitad transforms like the function itself: a plain
    Python function with no derivative rule that is the user's code, not a library's (a
    library function without a rule is refused at the call instead of transformed). A function
    decorated with `@jitad.differentiable` is always a helper, wherever it is defined."""
    if lookup_callable(obj) is not None:
        return False
    if hasattr(obj, "__jitad_function__"):
        return isinstance(obj.__jitad_function__, types.FunctionType)
    return isinstance(obj, types.FunctionType) and not is_library(obj)


def transformed_function(obj, call, resolve):
    """The function a transformation of it means where a call reads `obj`, else `obj`: f of
    `grad(f)` (a transformation object, `higher.called`) and of `jitad.grad(f, ...)` (`call`
    made with the class), its arrays read at every call then passed on as a helper's are."""
    from ..differentiable import called_transform, is_transform_class
    derived = called_transform(obj)
    if derived is not None:
        return derived.base_function
    if is_transform_class(obj) and call.args:     # jitad.grad(jitad.grad(f)) too
        inner = call.args[0]
        return transformed_function(resolve(inner.func), inner, resolve) \
            if isinstance(inner, gast.Call) else resolve(inner)
    return obj


def source_resolver(cap):
    """What a call's function expression means in a captured function's source, read without
    normalizing it: a global or a module's attribute (a name the function assigns or takes as
    a parameter means nothing here: MISSING)."""
    from ..capture import MISSING
    local = {n.id for n in gast.walk(cap.tree) if isinstance(n, gast.Name)} - set(cap.free)

    def resolve(func):
        if isinstance(func, gast.Name):
            return MISSING if func.id in local else cap.resolve(func.id)
        if isinstance(func, gast.Attribute):
            base = resolve(func.value)
            return MISSING if base is MISSING else getattr(base, func.attr, MISSING)
        return MISSING
    return resolve
