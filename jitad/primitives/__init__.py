"""Primitives: one object per operation, holding every rule it has.

`core` defines `Primitive` and the registry; `typerules` the result-type rules; `forms` the
chains of primitives a call with constant arguments means (axis tuples, keepdims); `templates`
how rule templates are instantiated; `table` the built-in primitives (the one-line rule
table and the structural operations); `lists` the list primitives;
`define` registration from outside (`defvjp`); `tangents` the forward-mode rules;
`runtime_calls` the runtime functions generated code calls, as the primitives they compute.
Every pass and mode reads these objects; none compares operation names.
"""
from . import core, lists, table  # noqa: F401  (table and lists register the built-ins)
from . import tangents  # noqa: F401  (after them: fills their `tangents`)
from . import runtime_calls  # noqa: F401  (runtime calls in generated code, as primitives)
from .core import (CALLABLES, PRIMITIVES, TEMPLATE_GLOBALS, Primitive, callables, find, get,  # noqa: F401
                   lookup_callable, version)
from .define import define, defvjp, resolve, spelling  # noqa: F401
from .table import (CALL, CONCAT, COPY, FUNCTION_METHODS, GETITEM, METHODS, SHAPE,  # noqa: F401
                    UFUNC_REDUCTIONS)
from .templates import substitute  # noqa: F401
