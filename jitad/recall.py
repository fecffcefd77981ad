"""Recall: a back end's result read back from disk instead of made again.

Takes: a back-end `Job` before any pass ran (its entry function, signature, wrt, mode flags,
optimizer, backend) and, after the back end ran, the same job with its `Generated`.
Guarantees: `key(job)` is a digest of every input of the back end's passes, or None when one
of them has no description that is the same in another process (nothing is then recalled
or stored, and the job is transformed as always). It covers
  * jitad's own source (every file of the package) and the versions of Python, NumPy, Numba
    and gast;
  * the `JITAD_*` environment switches (those that change generated code among them);
  * the job: signature types, wrt, mode flags, optimizer key, backend, parallel, forms;
  * the entry's closure (`closure`): the entry and every function reachable from it through
    free names and attribute chains on them -- each one's file, line, name, source text and
    defaults, and what each free name and chain means (numbers, strings and tuples of them by
    value, modules and library callables by their dotted name, user helpers by this same
    description, recursively; a NamedTuple or dataclass class by its fields, defaults,
    constants and methods, also the class of an argument), and its hidden parameters by name (the arrays it reads at
    every call: their types are the signature's). A value without such a description (an
    object of a user class, a compiled dispatcher) makes the key None.
  Jobs made while user rules are registered (`defvjp`, `@jitad.primitive`, plugins:
  `primitives.core.USER_RULES`) are never recalled.
`recall(key)` is the stored `Generated` and the entry's `Loc`, or None: a missing,
unreadable or untrusted file (the trust rule of `cache`) is a miss. `store(key, job)` writes
them (atomically, 0600) into the cache directory.
Invariants: the closure is a superset of the functions the passes read (they reach callees
only through free names and attribute chains), so a changed helper, constant, default, rule,
switch or jitad version changes the key: a stale record is never recalled. A hit skips the
passes from `specialize` to `module`, so it makes no refusal -- the key's inputs were
accepted when the record was stored, and the passes are deterministic. `JITAD_NO_RECALL=1`
turns recall off.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import os
import pickle
import sys
import types
from pathlib import Path

import gast
import numpy as np

from . import cache, primitives, records
from .capture import capture
from .errors import JitadError

FORMAT = 1                           # of the records: a new layout is a new key
# switches that only report or locate, never change what is generated
_NOT_CODE = {"JITAD_CACHE_DIR", "JITAD_TIMINGS", "JITAD_NO_RECALL", "JITAD_SCALARIZE_DEBUG"}


class Unstable(Exception):
    """A value with no description that holds in another process."""


def off() -> bool:
    return os.environ.get("JITAD_NO_RECALL", "") not in ("", "0")


@functools.lru_cache(maxsize=None)
def _jitad_digest() -> str:
    """jitad's own source and the versions of what shapes its output."""
    import numba
    from importlib import metadata
    h = hashlib.sha256()
    root = Path(__file__).parent
    for p in sorted(root.rglob("*.py")):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    try:
        gast_version = metadata.version("gast")
    except metadata.PackageNotFoundError:
        gast_version = "?"
    h.update(repr((FORMAT, sys.version, np.__version__, numba.__version__,
                   gast_version)).encode())
    return h.hexdigest()


def key(job) -> tuple[str | None, list]:
    """(the digest of everything the back end reads for `job`, or None; the captures of the
    entry's closure) -- see the module."""
    if off() or primitives.core.USER_RULES:
        return None, []
    validate = job.validate
    if validate is not None:        # jitad's own checks of the typed entry (train_step's)
        if not (getattr(validate, "__module__", "") or "").startswith("jitad."):
            return None, []
        validate = validate.__qualname__
    try:
        desc, caps = closure(job.fn)
        seen = {}
        for cls in _record_classes(job.argtys):     # an argument's methods are read too
            desc.append(("argument class", _value(cls, desc, caps, seen)))
        parts = [_jitad_digest(),
                 sorted((k, v) for k, v in os.environ.items()
                        if k.startswith("JITAD_") and k not in _NOT_CODE),
                 (job.argtys, job.wrt, job.want_vjp, job.want_jvp, job.jacobian, job.hessian,
                  job.parallel_columns, job.into, job.grads, job.reentrant,
                  None if job.train is None else job.train.key(), job.backend, job.parallel,
                  job.forms, validate),
                 desc]
        text = repr(parts)
    except (Unstable, JitadError, OSError, TypeError):
        return None, []
    if " at 0x" in text:            # a repr naming an address: not the same in another process
        return None, []
    return hashlib.sha256(text.encode()).hexdigest()[:32], caps


def _record_classes(tys) -> list:
    """The classes of the NamedTuple and dataclass arguments among types `tys`, nested too."""
    from .types import DictTy, TupleTy
    out = []
    for t in tys:
        if isinstance(t, TupleTy) and t.cls is not None and t.cls not in out:
            out.append(t.cls)
        if isinstance(t, (TupleTy, DictTy)):
            out += [c for c in _record_classes(t.items) if c not in out]
    return out


def closure(fn) -> tuple[list, list]:
    """(description, captures) of `fn` and every function reachable from it (see the module);
    raises `Unstable` (or the `JitadError` of a function whose source cannot be read)."""
    desc, caps, seen = [], [], {}
    _function(fn, desc, caps, seen)
    return desc, caps


def _function(fn, desc, caps, seen):
    fn = getattr(fn, "__jitad_function__", fn)
    if id(fn) in seen:
        desc.append(("again", seen[id(fn)]))
        return
    seen[id(fn)] = len(seen)
    cap = capture(fn)
    caps.append(cap)
    code = fn.__code__
    desc.append(("def", cap.filename, code.co_firstlineno, fn.__module__, fn.__qualname__,
                 cap.source, _value(fn.__defaults__, desc, caps, seen),
                 _value(fn.__kwdefaults__, desc, caps, seen)))
    desc.append(("hidden", tuple((h.param, h.name) for h in cap.hidden)))
    for name in sorted(cap.free):
        desc.append(("free", name, _value(cap.free[name], desc, caps, seen)))
    for chain in sorted(_chains(cap.tree, cap.free)):
        obj = cap.free[chain[0]]
        for attr in chain[1:]:
            if not (isinstance(obj, (types.ModuleType, type)) or _library(obj)):
                break       # the root's description covers what its attributes mean
            obj = getattr(obj, attr, None)
        desc.append(("attr", chain, _value(obj, desc, caps, seen)))


def _chains(tree, free) -> set:
    """The attribute chains (`np.linalg.norm` as ("np", "linalg", "norm")) rooted at a free
    name of a function's tree."""
    out = set()
    for node in gast.walk(tree):
        if isinstance(node, gast.Attribute):
            parts = []
            while isinstance(node, gast.Attribute):
                parts.append(node.attr)
                node = node.value
            if isinstance(node, gast.Name) and node.id in free:
                out.add((node.id, *reversed(parts)))
    return out


def _value(obj, desc, caps, seen):
    """A description of what a free name means that holds in another process."""
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        return (type(obj).__name__, repr(obj))
    if isinstance(obj, (np.bool_, np.number)):
        return (type(obj).__name__, repr(obj.item()))
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__, tuple(_value(x, desc, caps, seen) for x in obj))
    if isinstance(obj, dict) and all(type(k) is str for k in obj):
        return ("dict", tuple((k, _value(v, desc, caps, seen)) for k, v in obj.items()))
    if isinstance(obj, types.ModuleType):
        return ("module", obj.__name__)
    if isinstance(obj, np.dtype):
        return ("dtype", obj.str)
    from .normalize.calls import is_user_helper
    if is_user_helper(obj):
        _function(obj, desc, caps, seen)
        return ("helper", seen[id(getattr(obj, "__jitad_function__", obj))])
    from .higher import called
    derived = called(obj)
    if derived is not None:         # grad(f) called by the function: what it is of what f is
        f = derived.base_function
        _function(f, desc, caps, seen)
        chain = []
        while derived is not None:      # grad(grad(f)): each level's transformation
            chain.append((type(derived.t).__name__, repr(derived.t.wrt_spec)))
            derived = derived.d if hasattr(derived.d, "t") else None
        return ("transform", tuple(chain), seen[id(f)])
    rule = primitives.lookup_callable(obj)
    if records.is_record(obj):      # a NamedTuple or dataclass: its fields and its methods
        methods = []
        for klass in obj.__mro__:
            for name, attr in sorted(vars(klass).items()):
                f = getattr(attr, "__func__", attr)
                if is_user_helper(f):
                    _function(f, desc, caps, seen)
                    methods.append((klass.__qualname__, name, seen[id(f)]))
        constants = sorted((k, repr(v)) for k, v in vars(obj).items()
                           if isinstance(v, (bool, int, float, str, tuple)))
        return ("record", obj.__module__, obj.__qualname__, records.field_names(obj),
                repr(records.defaults(obj)), tuple(methods), tuple(constants),
                records.constructor(obj))
    if rule is not None or _library(obj):
        return ("library", getattr(obj, "__module__", None) or type(obj).__module__,
                getattr(obj, "__qualname__", None) or type(obj).__qualname__,
                None if rule is None else rule.name, _methods(obj))
    raise Unstable(type(obj).__name__)


def _library(obj) -> bool:
    """A library's callable, class or object (NumPy, SciPy, math, the standard library, any
    installed package): what it means is its name."""
    from .normalize.calls import LIBRARY_PACKAGES, is_library
    if isinstance(obj, (types.BuiltinFunctionType, np.ufunc)):
        return True
    if isinstance(obj, types.FunctionType):
        return is_library(obj)
    if isinstance(obj, type) or callable(obj):    # a class, NumPy's array-function dispatchers
        mod = getattr(obj, "__module__", None) or ""
        top = mod.partition(".")[0]
        return (top in LIBRARY_PACKAGES or top in sys.stdlib_module_names) and _named(obj, mod)
    mod = (type(obj).__module__ or "").partition(".")[0]
    return mod in LIBRARY_PACKAGES and primitives.core.has_methods(obj)


def _named(obj, mod) -> bool:
    """Whether `obj` is what its module and qualified name name (`np.concatenate`), not an
    object made at run time that only borrows them (`np.vectorize(f)`: its name is not f's)."""
    found = sys.modules.get(mod)
    for part in (getattr(obj, "__qualname__", None) or "<none>").split("."):
        found = getattr(found, part, None)
    return found is obj


def _methods(obj) -> tuple:
    """The primitives registered as methods of this very object (`scipy.stats.norm.cdf`)."""
    from .primitives.core import METHODS_OF
    return tuple(sorted(name for (owner, attr), name in METHODS_OF.items() if owner == id(obj)))


def _path(k: str) -> Path:
    return cache.cache_dir() / f"jitad_recall_{k}.pkl"


def recall(k: str | None):
    """(Generated, entry Loc) stored under key `k`, or None."""
    if k is None:
        return None
    path = _path(k)
    try:
        if not path.exists() or cache.untrusted(path) is not None:
            return None
        record = pickle.loads(path.read_bytes())
        if record.get("key") != k:
            return None
        return record["gen"], record["loc"]
    except Exception:               # unreadable, truncated, from another layout: a miss
        return None


def store(k: str | None, job):
    if k is None:
        return
    data = pickle.dumps({"key": k, "gen": job.gen, "loc": job.entry.ir.loc},
                        protocol=pickle.HIGHEST_PROTOCOL)
    try:
        cache.write_bytes(_path(k), data)
    except OSError:
        pass                        # a cache that cannot be written: made again next time
