"""Optimizers as data: a plugin is a state layout plus an update rule that the code generator
inlines into the compiled adjoint, element by element.

Takes: hyperparameters.
Guarantees: every optimizer is an `Optimizer` with
  * `slots`    — per-element state arrays, zero-initialized, shaped like the parameter;
  * `scalars`  — per-parameter scalar state (e.g. Adam's step count), zero-initialized;
  * `per_step` — statements run once per step for each parameter (may assign scalars);
  * `update`   — statements run for each element, in the names `p` (the element), `g` (its
                 gradient), the slots, the scalars and the hyperparameters; they assign `p`
                 and slots.
Rules are Python statement text parsed once; hyperparameters become constants in the
generated code. Third-party optimizers register with `register(cls)` or the entry-point group
`jitad.optimizers` (an entry point naming an `Optimizer` subclass).
"""
from __future__ import annotations

import ast

_REGISTRY: dict = {}
ENTRY_POINT_GROUP = "jitad.optimizers"


class Optimizer:
    name = "optimizer"
    defaults: dict = {}
    slots: tuple = ()
    scalars: tuple = ()
    per_step = ""
    update = ""

    def __init__(self, **hyper):
        unknown = set(hyper) - set(self.defaults)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no hyperparameter {sorted(unknown)[0]!r} "
                            f"(it takes {', '.join(self.defaults)})")
        self.hyper = {**self.defaults, **hyper}
        for k, v in self.hyper.items():
            if not isinstance(v, (int, float)):
                raise TypeError(f"hyperparameter {k} must be a number")
            self.hyper[k] = float(v)

    def statements(self, which):
        text = self.per_step if which == "per_step" else self.update
        return ast.parse(text.strip() or "pass").body if text.strip() else []

    def key(self):
        """What identifies this optimizer in generated code (part of its cache key)."""
        return (type(self).__name__, tuple(sorted(self.hyper.items())), self.per_step, self.update)

    def __repr__(self):
        args = ", ".join(f"{k}={v:g}" for k, v in self.hyper.items())
        return f"{type(self).__name__}({args})"


def register(cls):
    """Class decorator: make an optimizer available as `jitad.optim.<Name>` and by name."""
    _REGISTRY[cls.name] = cls
    globals().setdefault(cls.__name__, cls)
    return cls


@register
class SGD(Optimizer):
    name = "sgd"
    defaults = {"lr": 0.01}
    update = "p = p - lr * g"


@register
class Momentum(Optimizer):
    name = "momentum"
    defaults = {"lr": 0.01, "beta": 0.9}
    slots = ("velocity",)
    update = """
velocity = beta * velocity + g
p = p - lr * velocity
"""


@register
class Adagrad(Optimizer):
    name = "adagrad"
    defaults = {"lr": 0.01, "eps": 1e-8}
    slots = ("sum_sq",)
    update = """
sum_sq = sum_sq + g * g
p = p - lr * g / (np.sqrt(sum_sq) + eps)
"""


@register
class Adam(Optimizer):
    """Adam; on row-sparse parameters only the touched rows' moments advance (lazy Adam)."""

    name = "adam"
    defaults = {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8}
    slots = ("m", "v")
    scalars = ("t",)
    per_step = "t = t + 1.0"
    update = """
m = beta1 * m + (1.0 - beta1) * g
v = beta2 * v + (1.0 - beta2) * g * g
p = p - lr * (m / (1.0 - beta1 ** t)) / (np.sqrt(v / (1.0 - beta2 ** t)) + eps)
"""


def get(name_or_optimizer):
    if isinstance(name_or_optimizer, Optimizer):
        return name_or_optimizer
    load_plugins()
    cls = _REGISTRY.get(str(name_or_optimizer).lower())
    if cls is None:
        raise KeyError(f"no optimizer named {name_or_optimizer!r} (known: {', '.join(sorted(_REGISTRY))})")
    return cls()


def load_plugins():
    """Register the optimizers third-party packages declare in the `jitad.optimizers` group."""
    from .extend import entry_points_once
    for name, cls in entry_points_once(ENTRY_POINT_GROUP):
        if not (isinstance(cls, type) and issubclass(cls, Optimizer)):
            raise TypeError(f"entry point {name} in {ENTRY_POINT_GROUP} is not an Optimizer")
        register(cls)


def available():
    load_plugins()
    return sorted(_REGISTRY)
