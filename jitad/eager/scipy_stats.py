"""``jitad.eager.scipy_stats``: scipy.stats with differentiable versions of the distribution
methods jitad has primitives for (``norm.cdf/pdf/logpdf/logcdf``, ``t``, ``gamma``, ``beta``,
``expon``, ``laplace``, ``logistic``, ``cauchy``, ``poisson.logpmf/pmf``,
``multivariate_normal.logpdf``; see docs/language.md).

Takes: scipy.stats, once the user's code has imported it (jitad never imports it itself: it is
slow to import); `functional` asks `bind` for the replacements when scipy.stats is loaded.
Guarantees: `bind()` returns {object: eager stand-in} for the ``scipy.stats`` module and each
distribution object with primitive methods (``norm`` ...): the stand-in's methods are the
primitives' eager ops (`from_primitives.method_ops`, the call read as compiled mode reads it),
its other methods scipy's own on values (refused at the user's line on a Var that requires
grad), every other attribute is scipy's own.
Invariants: built once per process, on first use.
"""
import sys

from ..primitives.core import methods
from .dispatch import fallback
from .from_primitives import method_ops

_BOUND: dict = {}


class _Distribution:
    """A scipy.stats distribution object whose primitive methods are eager ops; its other
    methods run as scipy's on values, and refuse at the user's line a Var that requires grad
    (scipy's own code would convert it deep inside scipy)."""

    def __init__(self, original):
        self._original = original
        self.__dict__.update(method_ops(original))

    def __getattr__(self, name):
        attr = getattr(self._original, name)
        if not callable(attr) or name.startswith("_"):
            return attr
        owner = self._original
        label = f"scipy.stats.{getattr(owner, 'name', type(owner).__name__)}.{name}"

        def method(*args, **kwargs):
            return fallback(attr, label, attr, args, kwargs)
        return method


class _Stats:
    """``scipy.stats`` whose distributions with primitive methods are `_Distribution`s."""

    def __init__(self, module, replaced):
        self._module = module
        self._replaced = replaced

    def __getattr__(self, name):
        obj = getattr(self._module, name)
        return self._replaced.get(id(obj), obj)


def bind() -> dict:
    """{id(original): stand-in} for scipy.stats and its distributions with primitive methods;
    empty while scipy.stats is not imported."""
    if _BOUND or "scipy.stats" not in sys.modules:
        return _BOUND
    module = sys.modules["scipy.stats"]
    owners = {id(o): o for o, _, _ in methods()}
    replaced = {i: _Distribution(o) for i, o in owners.items()
                if getattr(type(o), "__module__", "").startswith("scipy.stats")}
    _BOUND.update(replaced)
    _BOUND[id(module)] = _Stats(module, replaced)
    return _BOUND
