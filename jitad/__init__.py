"""jitad: automatic differentiation by source transformation.

`@jitad.differentiable` functions are parsed, normalized to a monadic A-normal form,
differentiated in reverse mode into readable Python source, and compiled with Numba.
"""
from .api import Differentiable, differentiable, grad, source, value_and_grad, vjp
from .errors import JitadError, NotDifferentiableError, UnsupportedError
from . import optim
from .extend import defvjp, primitive
from .train import TrainState, fit, train_step

__version__ = "0.1.0"

__all__ = ["differentiable", "grad", "value_and_grad", "vjp", "source", "defvjp",
           "Differentiable", "optim", "primitive", "train_step", "fit", "TrainState", "JitadError", "UnsupportedError", "NotDifferentiableError",
           "__version__"]
