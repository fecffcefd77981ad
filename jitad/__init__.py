"""jitad: automatic differentiation by source transformation.

`@jitad.differentiable` functions are parsed, normalized to a monadic A-normal form,
differentiated in reverse mode (and forward mode: `jvp`, `jacfwd`) into readable Python
source, and compiled with Numba.
"""
__version__ = "0.1.0"    # the one version constant (pyproject.toml and generated headers read it)

from .api import (grad, hessian, hvp, jacfwd, jacobian, jacrev, jvp, source, value_and_grad,
                  vjp)
from .differentiable import Differentiable, differentiable
from .errors import JitadError, NotDifferentiableError, UnsupportedError
from . import optim
from .extend import defvjp, primitive
from .train import TrainState, fit, train_step

__all__ = ["differentiable", "grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev",
           "jacobian", "hessian", "hvp", "source", "defvjp",
           "Differentiable", "optim", "primitive", "train_step", "fit", "TrainState", "JitadError", "UnsupportedError", "NotDifferentiableError",
           "__version__"]
