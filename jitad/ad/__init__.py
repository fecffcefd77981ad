"""Differentiation of the typed IR: reverse mode, and forward mode (`forward`: the jvp).

`analysis` decides what the adjoint needs (what the forward keeps, and what the adjoint computes
again instead: `remat`) and refuses what it cannot differentiate; `tapes`
are the typed stacks between the sweeps and their run-time limits; `recompute` decides which
loops push a checkpoint per iteration and compute their values again; `reverse` generates the
primal and the fused forward-with-tape + adjoint sweeps; `calls` plans how callees are
differentiated; `training` adds the optimizer's update for `train_step`; `forward` generates the tangent
(jvp) functions.
"""
from .analysis import check_writes  # noqa: F401
from .calls import callee_wrt, costly, float_args, split_callees  # noqa: F401
from .reverse import Reverse, forward_expr, rule_for  # noqa: F401
from .tapes import max_recursion, max_tape_bytes  # noqa: F401
from .forward import Forward, tangent_args  # noqa: F401
