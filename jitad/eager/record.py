"""Derivative rules and the recording operations built from them.

Takes: rules registered by `rules.py` (`defvjp(fun, *vjps)`, `defvjp_argnum(fun, vjp)`,
`nondiff(*funs)`), and the functions `ops.py` turns into eager operations.
Guarantees: `RULES` maps a forward function to its `Rule`: one reverse rule
``vjp_i(g, ans, *args)`` per positional argument (or one ``vjp(i, g, ans, *args)`` for a
variadic function), whether the rules read ``ans`` (found in their bytecode: only then is
the output kept alive), and whether they read only shapes (``save='shapes'``: a `graph.Meta`
is saved in place of a differentiable array argument). `NONDIFF` holds the functions whose
result is piecewise constant. `make_op`/`make_unary`/`make_binary` return the eager version
of a function: it computes on the values and, when an input requires grad and recording is
on, returns a Var holding a new `graph.Node`; otherwise a constant Var (or the plain result
when no argument is a Var). A Var that requires grad in a position with no rule is refused
at the user's line when the node would be recorded; one in a position whose derivative is
refused (`Primitive.refused`) when the reverse pass reaches it (its result is used), at the
line of the call. `make_nondiff` computes on values only.
Invariants: the operations here are the hot path of eager mode: each reads the recording
flag at most once (``graph.grad_enabled``) and builds at most one Node and one Var per call.
"""
import dis

import numpy as np

from . import graph
from .graph import Meta, Node
from .refusal import refuse
from .var import Var

ndarray = np.ndarray


class Rule:
    __slots__ = ("vjps", "argnum_vjp", "keep_ans", "shapes_only", "by_arity", "refused")

    def __init__(self, vjps, argnum_vjp, save, refused=None):
        if save not in ("values", "shapes"):
            raise ValueError("save must be 'values' or 'shapes'")
        self.vjps = vjps
        self.argnum_vjp = argnum_vjp
        fns = [argnum_vjp] if argnum_vjp is not None else [f for f in vjps if f is not None]
        self.keep_ans = any(_reads_name(f, "ans") for f in fns)
        self.shapes_only = save == "shapes"
        self.by_arity = {}
        self.refused = dict(refused or {})     # position -> the refusal's message

    def vjps_for(self, nargs):
        """Tuple of per-position rules for a call with nargs positional args."""
        if self.argnum_vjp is None:
            return self.vjps
        t = self.by_arity.get(nargs)
        if t is None:
            f = self.argnum_vjp
            t = tuple((lambda i: lambda g, ans, *args: f(i, g, ans, *args))(i)
                      for i in range(nargs))
            self.by_arity[nargs] = t
        return t


RULES = {}           # forward function -> Rule
NONDIFF = set()      # functions whose result is piecewise constant (zero gradient)


def _reads_name(fn, name):
    """Does function fn read its argument `name`? (decides whether ans is saved)"""
    code = getattr(fn, "__code__", None)
    if code is None:
        return True
    if name in code.co_cellvars:
        return True
    for ins in dis.get_instructions(code):
        if ins.opname.startswith("LOAD"):
            a = ins.argval
            if a == name or (type(a) is tuple and name in a):
                return True
    return False


def defvjp(fun, *vjps, save="values", refused=None):
    """Register the reverse rules of ``fun``: ``vjps[i](g, ans, *args)`` is the
    adjoint of positional argument i (None: not differentiable).  With
    ``save='shapes'`` the rules only see the shape/dtype of array arguments
    (nothing is kept alive, and in-place writes need not copy). ``refused``: {i: message}
    of the positions whose derivative is refused (`Primitive.refused`): a Var that requires
    grad there is a JitadError at the user's line when the gradient needs it, not a zero."""
    RULES[fun] = Rule(tuple(vjps), None, save, refused)


def defvjp_argnum(fun, vjp, save="values"):
    """Like defvjp for a variadic function: ``vjp(i, g, ans, *args)``."""
    RULES[fun] = Rule((), vjp, save)


def nondiff(*funs):
    """Mark functions as having zero derivative (their result is recorded as a constant)."""
    NONDIFF.update(funs)


def _save(vals, parents, shapes_only):
    """Values a node keeps: with save='shapes', differentiable array inputs are
    reduced to their Meta (static arguments such as an index array are kept)."""
    if shapes_only:
        return tuple(Meta(v) if (p is not None and type(v) is ndarray) else v
                     for v, p in zip(vals, parents))
    return vals


def make_op(fun, name=None):
    """Eager version of ``fun`` (positional arguments, any of which may be Vars)."""
    rule = RULES[fun]
    shapes_only = rule.shapes_only
    keep_ans = rule.keep_ans
    fixed = rule.argnum_vjp is None
    nvjps = len(rule.vjps)
    refused = rule.refused
    nondiff_pos = [i for i, v in enumerate(rule.vjps) if v is None and i not in refused]

    def op(*args):
        anyvar = False
        rec = False
        vals = []
        parents = []
        for a in args:
            if type(a) is Var:
                anyvar = True
                n = a._node
                vals.append(a.value)
                parents.append(n)
                if n is not None:
                    rec = True
            else:
                vals.append(a)
                parents.append(None)
        ans = fun(*vals)
        if not anyvar:
            return ans
        if not (rec and graph.grad_enabled):
            return Var(ans, None)
        vjps = rule.vjps if fixed else rule.vjps_for(len(args))
        if fixed and len(args) > nvjps and any(p is not None for p in parents[nvjps:]):
            raise refuse("%s: argument %d has no eager derivative rule; it is a Var that "
                         "requires grad" % (op.__name__, nvjps), op.__name__)
        for i, message in refused.items():
            if i < len(parents) and parents[i] is not None:
                # raised if the reverse pass reaches this operand (its result is used), at
                # the user's line of this call
                vjps = vjps[:i] + (_raiser(refuse(message, op.__name__)),) + vjps[i + 1:]
        for i in nondiff_pos:              # e.g. the condition of where(): zero gradient
            if i < len(parents):
                parents[i] = None
        parents = tuple(parents)
        return Var(ans, Node(vjps, parents, _save(tuple(vals), parents, shapes_only),
                             ans if keep_ans else None))

    op.__name__ = name or getattr(fun, "__name__", "op")
    op.__qualname__ = op.__name__
    op.__doc__ = "Eager (differentiable) version of %s." % op.__name__
    return op


def _raiser(error):
    def vjp(g, ans, *args):
        raise error
    return vjp


def make_unary(fun, rule_key=None, name=None):
    """Fast path of make_op for one-argument functions."""
    rule = RULES[rule_key if rule_key is not None else fun]
    vjps = rule.vjps
    keep_ans = rule.keep_ans
    shapes_only = rule.shapes_only

    def op(x, **kwargs):
        if kwargs or type(x) is not Var:   # out=, where= ...: NumPy's dispatch (fallback)
            return fun(x, **kwargs)
        xv = x.value
        ans = fun(xv)
        n = x._node
        if n is None or not graph.grad_enabled:
            return Var(ans, None)
        return Var(ans, Node(vjps, (n,), (Meta(xv),) if shapes_only and type(xv) is ndarray
                             else (xv,), ans if keep_ans else None))

    op.__name__ = op.__qualname__ = name or getattr(fun, "__name__", "op")
    op.__doc__ = "Eager (differentiable) version of %s." % op.__name__
    return op


def make_binary(fun, rule_key=None, name=None):
    """Fast path of make_op for two-argument functions (and Var operators)."""
    rule = RULES[rule_key if rule_key is not None else fun]
    vjps = rule.vjps
    keep_ans = rule.keep_ans
    shapes_only = rule.shapes_only

    def op(x, y, **kwargs):
        if kwargs:                          # out=, where= ...: NumPy's dispatch (fallback)
            return fun(x, y, **kwargs)
        if type(x) is Var:
            xv = x.value
            xn = x._node
            if type(y) is Var:
                yv = y.value
                yn = y._node
            else:
                yv = y
                yn = None
        elif type(y) is Var:
            xv = x
            xn = None
            yv = y.value
            yn = y._node
        else:
            return fun(x, y)
        ans = fun(xv, yv)
        if (xn is None and yn is None) or not graph.grad_enabled:
            return Var(ans, None)
        return Var(ans, Node(vjps, (xn, yn), _save((xv, yv), (xn, yn), True) if shapes_only
                             else (xv, yv), ans if keep_ans else None))

    op.__name__ = op.__qualname__ = name or getattr(fun, "__name__", "op")
    op.__doc__ = "Eager (differentiable) version of %s." % op.__name__
    return op


def make_nondiff(fun, name=None, wrap=True):
    """Eager version of a function with zero derivative: computes on values.

    wrap=True returns a constant Var when an input was a Var; wrap=False
    returns the raw result (used for comparisons, whose bools drive control flow).
    """
    def op(*args, **kwargs):
        anyvar = False
        vals = []
        for a in args:
            if type(a) is Var:
                anyvar = True
                a = a.value
            vals.append(a)
        ans = fun(*vals, **kwargs)
        return Var(ans, None) if (anyvar and wrap) else ans

    op.__name__ = op.__qualname__ = name or getattr(fun, "__name__", "op")
    return op

