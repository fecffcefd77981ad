"""``jitad.eager.scipy_special``: scipy.special with differentiable versions of the functions
jitad has rules for (erf erfc expit logit gammaln xlogy xlog1py digamma polygamma beta ...,
logsumexp without return_sign=; see docs/language.md).

value_and_grad binds the user's ``scipy.special`` (and ``scipy``, through `SCIPY`, and
``logsumexp`` imported by name) to these. The elementwise ones are ufuncs, so they also work
on Vars through NumPy's dispatch however they are reached. Every other attribute is
scipy.special's own.
"""
import scipy as _scipy
import scipy.special as _special

from . import ops as _ops
import types as _types

from .from_primitives import library_ops as _library_ops
from .from_primitives import namespace as _namespace

globals().update(_ops.SPECIAL)
# softmax, log_softmax ...: the eager versions of scipy.special's primitives
globals().update({f.__name__: op for f, op in _library_ops("scipy").items()})
logsumexp = _ops.logsumexp


def __getattr__(name):
    return getattr(_special, name)


class _Scipy:
    """``scipy`` whose ``special`` is this module, whose ``stats`` has the eager distributions
    and whose other submodules are `from_primitives.Namespace`s (their functions with a
    primitive eager, scipy.integrate.odeint refused); the rest is scipy's own."""

    def __getattr__(self, name):
        if name == "special":
            return __import__(__name__, fromlist=["_"])
        obj = getattr(_scipy, name)
        if name == "stats":         # scipy.stats.norm.cdf: the eager distributions
            from . import scipy_stats
            return scipy_stats.bind().get(id(obj), obj)
        if isinstance(obj, _types.ModuleType):     # scipy.linalg, scipy.signal, scipy.integrate
            return _namespace(obj)
        return obj


SCIPY = _Scipy()
