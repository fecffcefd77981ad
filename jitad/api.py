"""The public transformations: `grad`, `value_and_grad`, `vjp`, forward mode's `jvp` and the
Jacobians `jacfwd`/`jacrev` (= `jacobian`), and `source` (the generated code after any pass). `differentiable` lives in `differentiable.py`.

Takes: plain Python functions (decorated or not) and their run-time arguments.
Guarantees: each (function, argument signature, wrt) is transformed once per process and
compiled once (on disk across processes); gradients come back shaped like their arguments
(a single gradient for `wrt=int|str`, a tuple for a tuple `wrt`); the caller's arrays are
never written; anything jitad cannot differentiate raises a `JitadError` at the user's line.
"""
from __future__ import annotations

import weakref

import numpy as np

from . import higher, monadic, pipeline
from .differentiable import (Compiled, Transform, as_differentiable, copy_names, quick_key,
                             refuse_outputs, wrt_indices)
from .capture import first_changed
from .errors import JitadError
from .pipeline import frontend
from .types import (Ty, is_structured, leaves, one_float_output, rebuild, structured_value,
                    ty_of_value)

class _Transformed(Transform):
    """Shared machinery of grad / value_and_grad / vjp objects."""

    def __init__(self, f, wrt, mode="compiled", parallel=None, argnums=None):
        self._ran = {}
        self._eager_vg = weakref.WeakKeyDictionary()     # function run -> eager value_and_grad
        self.d = as_differentiable(f, parallel=parallel)
        if argnums is not None:     # JAX's name for wrt
            if wrt not in (0, None):
                raise JitadError("give wrt= or argnums= (JAX's name for it), not both")
            wrt = argnums
        self.wrt_spec = wrt
        self.wrt, self.single = wrt_indices(self.d, wrt)
        self.mode = mode
        copy_names(self, getattr(self.d, "__jitad_function__", self.d))

    def specialize(self, *args, **kwargs) -> Compiled:
        args = self.d.bind(args, kwargs)
        self._refuse_nested(args)
        return self.d.specialize(args, self.wrt)

    def _out_tree(self, args):
        """The structure f returns when it nests tuples or dicts (`ir.Function.out_tree`: the
        compiled code returns its leaves flat), else None."""
        return self.d.concrete(args).out_tree(args)

    def _refuse_nested(self, args):
        """A nested tuple or dict output is for `vjp` (and `has_aux`, through it) only."""
        if isinstance(self, vjp):
            return
        d = self.d.concrete(args)
        if d.out_tree(args) is not None:
            f = d.entry_ir(args)
            from .errors import UnsupportedError
            raise UnsupportedError(
                f"{type(self).__name__} needs {self.d.__name__} to return one value (or a flat "
                "tuple), not a nested tuple or a dict: for `return loss, aux` give has_aux=True; "
                "jitad.vjp takes any such output (with a cotangent of its structure)",
                f.return_loc(), "nested return")

    def _scalar_check(self, comp):
        if not comp.gen.scalar_output:
            refuse_outputs("grad", self.d.__name__, comp.gen.out_types, comp.loc)

    def _eager(self, args):
        # eager.value_and_grad runs the checking passes first (`Differentiable.check`); one
        # per function run (a `higher.Derived` runs one per signature), which keeps what it
        # checked
        self._refuse_nested(args)
        fn = self.d.concrete(args).__jitad_function__
        vg = self._eager_vg.get(fn)
        if vg is None:
            from . import eager
            vg = self._eager_vg[fn] = eager.value_and_grad(fn, self.wrt)
        value, grads = vg(*args)
        return value, (grads[0] if self.single else tuple(grads))

    def _value_and_grads(self, args):
        # fast path: the same argument kinds as a call that already ran
        key = quick_key(args)
        comp = self._ran.get(key)
        if comp is not None and comp.stale():
            self._ran.clear()
            comp = None
        if comp is not None:
            value, grads = comp.run(comp.gen.vjp, args + (1.0,))
            grads = comp.regroup(grads, args)
            return value, (grads[0] if self.single else tuple(grads))
        if self.mode == "eager":
            return self._eager(args)
        if self.mode != "compiled":
            raise JitadError(f"unknown mode {self.mode!r} (use 'compiled' or 'eager')")
        comp = self.specialize(*args)
        self._scalar_check(comp)
        value, grads = comp.run(comp.gen.vjp, tuple(args) + (1.0,))
        grads = comp.regroup(grads, args)
        if key is not None:
            self._ran[key] = comp
        return value, (grads[0] if self.single else tuple(grads))

    def compiled(self, *example_args, **kwargs):
        """The compiled function for this signature, callable from your own `@numba.njit`
        code: `grad(...).compiled(x, w)` returns `f_grad(x, w) -> grads` and
        `value_and_grad(...).compiled(x, w)` returns `f_value_and_grad(x, w) -> (value, grads)`
        (it takes every parameter, defaults included, positionally)."""
        comp = self.specialize(*self.d.bind(example_args, kwargs))
        if not isinstance(self, (vjp, jvp, _Jacobian)):
            self._scalar_check(comp)
        return comp.fn(self._compiled_name(comp))


    def compiled_into(self, *example_args, **kwargs):
        """The compiled kernel that adds the gradient into buffers the caller owns, for a
        per-sample loop in your `@numba.njit` code that should not make gradient arrays per
        call: `value_and_grad(f, wrt).compiled_into(x, w)` returns
        `f_value_and_grad_into(x, w, *buffers) -> (value, grads)`, with one buffer per array
        parameter in `wrt` (in wrt's order, shaped and typed like it); each call ADDS that
        parameter's gradient into its buffer (zero it first for the gradient alone) and
        returns the buffers and the scalar gradients as `grads`."""
        if not isinstance(self, (grad, value_and_grad)):
            raise JitadError("compiled_into is for grad and value_and_grad")
        args = self.d.bind(example_args, kwargs)
        self._refuse_nested(args)
        comp = self.d.specialize(args, self.wrt, mode="into")
        self._scalar_check(comp)
        if comp.gen.into is None:
            raise JitadError(f"compiled_into: {self.d.__name__} is recursive; use "
                             "value_and_grad(...).compiled")
        return comp.fn(comp.gen.into)


class _WithAux(_Transformed):
    """`has_aux=True` (JAX's): f returns `(value, aux)`; the gradient is the value's, and aux
    comes back beside it, not differentiated."""

    def __init__(self, f, wrt, mode, parallel, has_aux, argnums):
        super().__init__(f, wrt, mode, parallel, argnums)
        self.has_aux = bool(has_aux)
        if self.has_aux:
            self._pull = vjp(self.d, self.wrt_spec, mode)

    def _value_aux_grads(self, args):
        """((value, aux), grads) of f returning (value, aux): its vjp with the cotangent 1 on
        the value and zeros on aux."""
        y, pullback = self._pull(*args)
        if not (isinstance(y, tuple) and len(y) >= 2 and np.ndim(y[0]) == 0
                and np.issubdtype(np.asarray(y[0]).dtype, np.floating)):
            raise JitadError(f"has_aux=True needs {self.d.__name__} to return (value, aux) with "
                             f"value one float; it returns {type(y).__name__} "
                             f"{y if not isinstance(y, tuple) else len(y)}")
        ct = (1.0,) + tuple(_zeros_like(a) for a in y[1:])
        grads = pullback(ct)
        aux = y[1] if len(y) == 2 else tuple(y[1:])
        return (y[0], aux), grads


class grad(_WithAux):
    """`jitad.grad(f, wrt=0)(*args)`: the gradient of a scalar-valued f. `parallel=True`: the
    entry's independent calls of costly helpers run at the same time, forward and adjoint
    (`jitad.parallel`; the gradient is the sequential one, bit for bit). JAX's names work too:
    `argnums=` for wrt, and `has_aux=True` for an f returning `(value, aux)`: then the call
    returns `(grads, aux)`."""

    derivable = False
    called_inside = "grad"

    def __init__(self, f, wrt=0, mode="compiled", parallel=None, has_aux=False, argnums=None):
        super().__init__(f, wrt, mode, parallel, has_aux, argnums)

    def __call__(self, *args, **kwargs):
        args = self.d.bind(args, kwargs)
        if self.has_aux:
            (_, aux), grads = self._value_aux_grads(args)
            return grads, aux
        return self._value_and_grads(args)[1]

    def _compiled_name(self, comp):
        return comp.gen.grad


class value_and_grad(_WithAux):
    """`jitad.value_and_grad(f, wrt=0)(*args) -> (value, grads)`; `parallel=`, `argnums=` as
    for `grad`; `has_aux=True`: `((value, aux), grads)`, as JAX returns them."""

    derivable = True
    called_inside = "grad"

    def __init__(self, f, wrt=0, mode="compiled", parallel=None, has_aux=False, argnums=None):
        super().__init__(f, wrt, mode, parallel, has_aux, argnums)

    def __call__(self, *args, **kwargs):
        args = self.d.bind(args, kwargs)
        if self.has_aux:
            return self._value_aux_grads(args)
        return self._value_and_grads(args)

    def _compiled_name(self, comp):
        return comp.gen.value_and_grad


class vjp(_Transformed):
    """`y, pullback = jitad.vjp(f, wrt=0)(*args)`; `pullback(cotangent)` gives the grads.

    The pullback re-runs the compiled forward-with-tape and then the adjoint with the given
    cotangent (nothing is kept alive between the two calls)."""

    def __init__(self, f, wrt=0, mode="compiled"):
        super().__init__(f, wrt, mode)

    def __call__(self, *args, **kwargs):
        args = self.d.bind(args, kwargs)
        if self.mode == "eager":
            return self._eager_vjp(args)
        if self.mode != "compiled":
            raise JitadError(f"unknown mode {self.mode!r} (use 'compiled' or 'eager')")
        comp = self.specialize(*args)
        y = comp.run(comp.gen.primal, args)
        single = self.single
        outs = comp.gen.out_types
        tree = self._out_tree(args)

        def pullback(cotangent):
            ct = _cotangent(_flat(tree, cotangent, len(outs)), outs, y)
            _, grads = comp.run(comp.gen.vjp, tuple(args) + (ct,))
            grads = comp.regroup(grads, args)
            return grads[0] if single else tuple(grads)

        return _nest(tree, y, len(outs)), pullback

    def _eager_vjp(self, args):
        """The eager pullback: f run again, recording, and the reverse pass from the cotangent
        (checked against the output as the compiled one is)."""
        from .eager.functional import vjp_eager
        d = self.d.concrete(args)
        outs = d.check(args, self.wrt).out
        y, pull = vjp_eager(d.__jitad_function__, args, self.wrt)
        single = self.single
        tree = self._out_tree(args)
        flat_y = y if tree is None else (tuple(leaves(y)) if len(outs) > 1 else leaves(y)[0])

        def pullback(cotangent):
            grads = pull(_cotangent(_flat(tree, cotangent, len(outs)), outs, flat_y))
            return grads[0] if single else tuple(grads)

        return y, pullback

    def _compiled_name(self, comp):
        """vjp(...).compiled(*args) is `f_vjp(*args, cotangent) -> (value, grads)`."""
        return comp.gen.vjp


class jvp(_Transformed):
    """`y, y_dot = jitad.jvp(f, wrt=0)(*args, tangents=v)`: the value and its directional
    derivative along `v` (shaped like the `wrt` argument; a tuple for a tuple `wrt`), by the
    generated forward-mode code: one tangent statement beside each primal one, no tape.
    `mode="eager"` evaluates the same tangent rules on NumPy values, statement by statement."""

    def __init__(self, f, wrt=0, mode="compiled"):
        super().__init__(f, wrt, mode)

    def __call__(self, *args, tangents=None, **kwargs):
        if tangents is None:
            raise JitadError("jvp needs tangents=: the direction, shaped like the argument "
                             "(a tuple of them for a tuple wrt)")
        args = self.d.bind(args, kwargs)
        tans = (tangents,) if self.single else tuple(tangents)
        if len(tans) != len(self.wrt):
            raise JitadError(f"jvp: {len(self.wrt)} tangents expected (one per wrt), got {len(tans)}")
        for i, v in zip(self.wrt, tans):
            if structured_value(args[i]):
                continue        # checked leaf by leaf against the structure (both modes)
            if np.shape(v) != np.shape(args[i]):
                raise JitadError(f"the tangent of {self.d.params[i]!r} must have its shape "
                                 f"{np.shape(args[i])}, got {np.shape(v)}")
        self._refuse_nested(args)
        if self.mode == "eager":
            from .eager.forward import jvp_eager
            d = self.d.concrete(args)
            d.check(args, self.wrt, all_leaves=True)
            return jvp_eager(d.__jitad_function__, args, self.wrt, tans)
        if self.mode != "compiled":
            raise JitadError(f"unknown mode {self.mode!r} (use 'compiled' or 'eager')")
        key = quick_key(args)       # fast path: the argument kinds of a call that ran
        comp = self._ran.get(key)
        if comp is None or comp.stale():
            comp = self.specialize(*args)
            if key is not None:
                self._ran[key] = comp
        return comp.run(comp.gen.jvp, tuple(args) + _tangent_args(comp, args, self.wrt, tans))

    def specialize(self, *args, **kwargs) -> Compiled:
        args = self.d.bind(args, kwargs)
        self._refuse_nested(args)
        return self.d.specialize(args, self.wrt, mode="jvp")

    def _compiled_name(self, comp):
        """jvp(...).compiled(*args) is `f_jvp(*args, *tangents) -> (value, tangent)` (a tangent
        for each parameter of `comp.gen.jvp_args`, the wrt ones)."""
        return comp.gen.jvp


def _tangent_args(comp, args, wrt, tans):
    """The tangent arguments the jvp function takes (`gen.jvp_args`, positions among the flat
    parameters: a structured argument is one per leaf): the given ones, zeros for the others
    (a recursive entry may take tangents its recursive calls need)."""
    flat_args, given = [], {}
    for i, a in enumerate(args):
        leaves = _leaves(a, comp, i)
        if i in wrt:
            for k, v in enumerate(_leaves(tans[wrt.index(i)], comp, i)):
                given[len(flat_args) + k] = v
        flat_args += leaves
    out = []
    for pos in comp.gen.jvp_args:
        a, v = flat_args[pos], given.get(pos)
        if v is None:
            v = np.zeros(np.shape(a)) if np.ndim(a) else 0.0
        elif np.ndim(a) == 0:
            v = float(v)
        else:
            v = np.ascontiguousarray(np.asarray(v, dtype=np.asarray(a).dtype))
        out.append(v)
    return tuple(out)


def _leaves(a, comp, i):
    if comp.structs and i < len(comp.structs) and comp.structs[i] is not None:
        from .types import leaves
        return list(leaves(a, comp.structs[i]))
    return [a]


class _Jacobian(_Transformed):
    how = ""
    called_inside = "jacobian"

    def __init__(self, f, wrt=0, mode="compiled", argnums=None):
        super().__init__(f, wrt, mode, argnums=argnums)

    def __call__(self, *args, **kwargs):
        args = self.d.bind(args, kwargs)
        hess = self._hessian(args)     # jacfwd/jacrev(grad(f)): a gradient is never nested
        if hess is not None:
            return hess(*args)
        self._refuse_nested(args)
        if self.mode == "eager":
            return self._eager_jacobian(args)
        if self.mode != "compiled":
            raise JitadError(f"unknown mode {self.mode!r} (use 'compiled' or 'eager')")
        comp = self.specialize(*args)
        name = self._compiled_name(comp)
        shaped = comp.gen.shaped.get(name)
        if shaped is not None:      # an output of rank >= 2: the kernel says its shape
            blocks, y_shape = comp.run(shaped, tuple(args))
        else:
            blocks = comp.run(name, tuple(args))
            y_shape = _out_shape(comp, args, blocks, self.how)
        x_shapes = [np.shape(x) for i in self.wrt for x in _arg_leaves(args[i])]
        jacs = []
        for x_shape, b in zip(x_shapes, blocks):
            b = np.asarray(b)
            if self.how == "jvp":
                b = b.reshape(int(np.prod(x_shape)), -1).T
            jacs.append(np.ascontiguousarray(b).reshape(y_shape + x_shape))
        jacs = comp.regroup(jacs, args)     # a tuple, list or dict argument: its structure
        return jacs[0] if self.single else tuple(jacs)

    def _hessian(self, args):
        """`jacfwd(grad(f, wrt), wrt)` (or jacrev) of a tuple, list or dict argument: f's
        Hessian for wrt, in `hessian`'s layout -- JAX's for this composition (the gradient is
        a structure, which generated code does not return, so grad(f) is not written out as a
        function here); None for any other function."""
        t = getattr(self.d, "t", None)
        if not isinstance(self.d, higher.Derived) or t.derivable or \
                not any(structured_value(args[i]) for i in self.wrt):
            return None
        if tuple(t.wrt) != tuple(self.wrt) or t.single != self.single:
            raise JitadError(f"{type(self).__name__}({self.d.__name__}) of a tuple, list or dict "
                             "argument: only with the gradient's own wrt (the Hessian; "
                             f"jitad.hessian(f, wrt={t.wrt_spec!r}) gives all its blocks)")
        return hessian(t.d, wrt=t.wrt_spec, mode=self.mode)

    def _eager_jacobian(self, args):
        from .eager.forward import jvp_eager
        d = self.d.concrete(args)
        out = d.check(args, self.wrt, all_leaves=True).out
        if len(out) != 1 or not isinstance(out[0], Ty):
            refuse_outputs(type(self).__name__, self.d.__name__, out)
        fn = d.__jitad_function__
        parts = [_arg_leaves(args[i]) for i in self.wrt]       # per wrt: its leaves

        def zeros(j, put=None):         # the tangent of wrt j: zeros, `put` = (leaf, value)
            ls = [np.zeros_like(np.asarray(x, dtype=float)) if np.ndim(x) else 0.0
                  for x in parts[j]]
            if put is not None:
                ls[put[0]] = put[1]
            a = args[self.wrt[j]]
            return rebuild(a, ls) if structured_value(a) else ls[0]

        jacs = []
        for j in range(len(self.wrt)):
            for leaf, x in enumerate(parts[j]):
                x = np.asarray(x, dtype=float)
                cols = []
                for k in range(x.size):
                    e = np.zeros(x.size)
                    e[k] = 1.0
                    tans = tuple(zeros(m, (leaf, e.reshape(x.shape) if x.ndim else 1.0))
                                 if m == j else zeros(m) for m in range(len(self.wrt)))
                    cols.append(np.asarray(jvp_eager(fn, args, self.wrt, tans)[1]))
                y_shape = cols[0].shape
                jacs.append(np.moveaxis(np.array(cols), 0, -1).reshape(y_shape + x.shape))
        it = iter(jacs)
        jacs = [rebuild(args[i], it) if structured_value(args[i]) else next(it)
                for i in self.wrt]
        return jacs[0] if self.single else tuple(jacs)

    def specialize(self, *args, **kwargs) -> Compiled:
        args = self.d.bind(args, kwargs)
        self._refuse_nested(args)
        return self.d.specialize(args, self.wrt, mode="jvp" if self.how == "jvp" else "jacrev")

    def _compiled_name(self, comp):
        """jacrev(...).compiled(*args) is `f_jacrev(*args) -> blocks`, one (y.size, x.size)
        array per wrt parameter x (row k: the gradient of y.flat[k]); jacfwd's blocks are
        (x.size, y.size) (row k: the tangent along x's k-th basis vector). A scalar is a
        length-1 axis."""
        name = comp.gen.jacfwd if self.how == "jvp" else comp.gen.jacrev
        if name is None:
            refuse_outputs(type(self).__name__, self.d.__name__, comp.gen.out_types)
        return name


def _arg_leaves(a):
    """An argument's arrays and scalars (itself when it is no tuple, list or dict)."""
    return leaves(a, ty_of_value(a)) if structured_value(a) else [a]


def _out_shape(comp, args, blocks, how):
    """The output's shape where the kernel does not return it (`Generated.shaped`): a
    vector's length is the blocks' (jacrev's rows, jacfwd's columns), so only an output of
    rank >= 2 of a jacrev whose forward runs once runs something for it: the primal."""
    t = comp.gen.out_types[0]
    if t.ndim == 0:
        return ()
    if t.ndim == 1:
        return (np.shape(blocks[0])[1 if how == "jvp" else 0],)
    return np.shape(comp.run(comp.gen.primal, tuple(args)))


class jacfwd(_Jacobian):
    """`J = jitad.jacfwd(f, wrt=0)(*args)`: the Jacobian, shaped `f(...).shape + x.shape`, by
    forward mode: one compiled call looping over the basis vectors of x, each a jvp."""

    how = "jvp"


class jacrev(_Jacobian):
    """`J = jitad.jacrev(f, wrt=0)(*args)`: the Jacobian, shaped `f(...).shape + x.shape`, by
    reverse mode: one compiled call looping over the output's basis cotangents, each a vjp."""

    how = "vjp"


jacobian = jacrev


class _Second(_Transformed):
    """Second derivatives, reverse over forward (see `higher`): the gradient of f's tangent
    function `f_tangent(params..., d_w...)` (its generated jvp code, read again) for wrt."""

    def __init__(self, f, wrt=0, mode="compiled", argnums=None):
        super().__init__(f, wrt, mode, argnums=argnums)

    def _tangent(self, args):
        """(the tangent function's Differentiable, its wrt, the positions of its tangents):
        a structured argument is one parameter per leaf (`_flat`)."""
        self._refuse_nested(args)
        base = self.d.concrete(args)
        fn = higher.tangent_function(base, base.signature(args), self.wrt)
        flat, wrt = self._flat(args)
        n = len(flat)
        return as_differentiable(fn, base.backend), wrt, tuple(n + k for k in range(len(wrt)))

    def _flat(self, args):
        """(the arguments, then the arrays f reads from globals or closure variables (the
        tangent function takes them as parameters), with each tuple, list or dict as its
        leaves, the positions of the wrt leaves among them)."""
        args = tuple(args) + self.d.concrete(args).hidden_values()
        structs = tuple(t if is_structured(t) else None
                        for t in (ty_of_value(a) for a in args))
        if not any(structs):
            return tuple(args), tuple(self.wrt)
        flat, starts = [], []
        for a, t in zip(args, structs):
            starts.append(len(flat))
            flat.extend(leaves(a, t) if t is not None else [a])
        wrt = tuple(starts[w] + k for w in self.wrt
                    for k in range(len(leaves(args[w], structs[w])) if structs[w] else 1))
        return tuple(flat), wrt

    def _recalled(self, args):
        """(the flat arguments: the arguments and the hidden values, the compiled module of a
        call that ran with the same argument kinds -- no structures --, or None, the key to
        keep this call's module under, or None): nothing any function it was made from reads
        may have changed since (`higher.tangent_watch`); else every module kept is dropped.
        The Python around a small Hessian's kernel was 2/3 of a call (Rosenbrock n = 100: 40
        of 61 us)."""
        full = tuple(args) + self.d.concrete(args).hidden_values()
        key = quick_key(full) if self.mode == "compiled" else None
        hit = self._ran.get(key)
        if hit is not None:
            comp, watch = hit
            if not comp.stale() and first_changed(watch) is None:
                return full, comp, key
            self._ran.clear()
        return full, None, key

    def _keep(self, key, comp, args):
        """Keep `comp`, the compiled module of this call, for the next call of these argument
        kinds (`_recalled`)."""
        if key is not None:
            base = self.d.concrete(args)
            self._ran[key] = (comp, higher.tangent_watch(base, base.signature(args), self.wrt))

    def _regroup(self, grads, args):
        """Per wrt argument: its leaves' results in its structure."""
        it = iter(grads)
        return tuple(rebuild(args[w], it) if structured_value(args[w])
                     else next(it) for w in self.wrt)

    def _check_scalar(self, out_types):
        if not one_float_output(out_types):
            refuse_outputs(type(self).__name__, self.d.__name__, out_types)

    def _eager_grads(self, td, flat, wrt, tans):
        """The gradient of the tangent function by eager mode, after the checks compiled mode
        makes of it (its checking passes, its output)."""
        from . import eager
        args = tuple(flat) + tans
        self._check_scalar(td.check(args, wrt).out)
        _, grads = eager.value_and_grad(td.__jitad_function__, wrt)(*args)
        return tuple(grads)


def _zero_tangents(args, wrt):
    return tuple(np.zeros_like(np.asarray(args[i], dtype=float)) if np.ndim(args[i]) else 0.0
                 for i in wrt)


class hvp(_Second):
    """`hv = jitad.hvp(f, wrt=0)(*args, v=v)`: the Hessian of a scalar f for wrt times `v`
    (shaped like the wrt argument -- a tuple, list or dict of arrays for such an argument; a
    tuple of them for a tuple wrt), without forming the Hessian: the gradient of f's tangent
    along v (reverse over the generated forward mode)."""

    def __call__(self, *args, v=None, **kwargs):
        if v is None:
            raise JitadError("hvp needs v=: the vector, shaped like the argument (a tuple of "
                             "them for a tuple wrt)")
        args = self.d.bind(args, kwargs)
        full, comp, key = self._recalled(args)
        if comp is not None:
            with higher.user_lines(self.d.__name__):
                grads = self._run(comp, full + self._tangents(args, v))
            return grads[0] if self.single else tuple(grads)
        with higher.user_lines(self.d.__name__):
            td, wrt, _ = self._tangent(args)
            flat, _ = self._flat(args)
            tans = self._tangents(args, v)
            if self.mode == "eager":
                grads = self._eager_grads(td, flat, wrt, tans)
            elif self.mode == "compiled":
                comp = self.specialize(*args, v=v)
                grads = self._run(comp, flat + tans)
                self._keep(key, comp, args)
            else:
                raise JitadError(f"unknown mode {self.mode!r} (use 'compiled' or 'eager')")
        grads = self._regroup(grads, args)
        return grads[0] if self.single else tuple(grads)

    def _tangents(self, args, v):
        """The vectors as the tangent function takes them (one per wrt leaf), checked
        against the arguments' structures and shapes."""
        vs = (v,) if self.single else tuple(v)
        if len(vs) != len(self.wrt):
            raise JitadError(f"hvp: {len(self.wrt)} vectors expected (one per wrt), got {len(vs)}")
        tans = []
        for i, t in zip(self.wrt, vs):
            structured = structured_value(args[i])
            a_leaves = leaves(args[i], ty_of_value(args[i])) if structured else [args[i]]
            if structured:
                try:
                    t_leaves = leaves(t, ty_of_value(args[i]))
                except JitadError:
                    raise JitadError(f"v for {self.d.params[i]!r} must have its structure") from None
            else:
                t_leaves = [t]
            for a, tl in zip(a_leaves, t_leaves):
                if np.shape(tl) != np.shape(a):
                    raise JitadError(f"v for {self.d.params[i]!r} must have its shape "
                                     f"{np.shape(a)}, got {np.shape(tl)}")
                tans.append(float(tl) if np.ndim(a) == 0 else
                            np.ascontiguousarray(np.asarray(tl, dtype=np.asarray(a).dtype)))
        return tuple(tans)

    @staticmethod
    def _run(comp, args):
        """The gradients of the tangent function (`f_grads`: no value computed, if made)."""
        if comp.gen.grads:
            return comp.run(comp.gen.grads, args + (1.0,))
        return comp.run(comp.gen.vjp, args + (1.0,))[1]

    def specialize(self, *args, v=None, **kwargs) -> Compiled:
        """The compiled module of the tangent function's gradient for these arguments (an
        example `v=`; zeros if none), with `f_grads` (what a call runs): `compiled_ran` says
        whether its Numba code ran."""
        args = self.d.bind(args, kwargs)
        with higher.user_lines(self.d.__name__):
            td, wrt, _ = self._tangent(args)
            flat, _ = self._flat(args)
            tans = _zero_tangents(flat, wrt) if v is None else self._tangents(args, v)
            comp = td.specialize(flat + tans, wrt, mode="grads")
            self._check_scalar(comp.gen.out_types)
        return comp

    def compiled(self, *example_args, v=None, **kwargs):
        """The compiled `f_tangent_grads(params..., v..., 1.0) -> (hv...)` for this signature
        (pass an example `v=`; one product per wrt leaf), callable from your own `@numba.njit`
        code (a structured argument is one parameter per leaf). A recursive f (whose tangent
        function counts its depth) gives `f_tangent_vjp(...) -> (tangent, (hv...))` instead."""
        comp = self.specialize(*example_args, v=v, **kwargs)
        return comp.fn(comp.gen.grads or comp.gen.vjp)


class hessian(_Second):
    """`H = jitad.hessian(f, wrt=0)(*args)`: the Hessian of a scalar f, shaped
    `x.shape + x.shape` (for a tuple wrt, a tuple of tuples: `H[a][b]` shaped
    `a.shape + b.shape`), by one compiled call looping over the basis vectors, each a
    Hessian-vector product (reverse over the generated forward mode).
    A tuple, list or dict argument nests its blocks as JAX does: for `params = (W, b)`,
    `H[0][1]` is d2f/(dW db), shaped `W.shape + b.shape` (a dict's keys, `H["W"]["b"]`); with a
    tuple wrt, `H[i][p][j][q]` is the block of leaf p of the i-th wrt argument and leaf q of
    the j-th (a plain array argument has no leaf level: `H[i][j]`).
    `parallel=True`: the columns (one Hessian-vector product each) run at the same time on
    Numba's threads; each writes its own row of H (`codegen.hessian`), so H is the sequential
    one, bit for bit."""

    called_inside = "hessian"

    def __init__(self, f, wrt=0, mode="compiled", parallel=None, argnums=None):
        super().__init__(f, wrt, mode, argnums=argnums)
        self.parallel_columns = bool(parallel)

    def __call__(self, *args, **kwargs):
        args = self.d.bind(args, kwargs)
        full, comp, key = self._recalled(args)      # (as hvp's)
        if comp is not None:
            with higher.user_lines(self.d.__name__):
                blocks = comp.run(comp.gen.hessian, full)
            return self._nest(self._blocks(blocks, full, tuple(self.wrt)), args)
        flat, wrt = self._flat(args)
        with higher.user_lines(self.d.__name__):
            if self.mode == "eager":
                B = self._eager_blocks(self._tangent(args)[0], flat, wrt)
            elif self.mode == "compiled":
                comp = self.specialize(*args)
                B = self._blocks(comp.run(comp.gen.hessian, flat), flat, wrt)
                self._keep(key, comp, args)
            else:
                raise JitadError(f"unknown mode {self.mode!r} (use 'compiled' or 'eager')")
        return self._nest(B, args)

    @staticmethod
    def _blocks(blocks, flat, wrt):
        """`B[a][b]` of the compiled Hessian's flat blocks, shaped `a.shape + b.shape`."""
        shapes = [np.shape(flat[i]) for i in wrt]
        m = len(wrt)
        return [[np.asarray(blocks[b * m + a]).reshape(shapes[a] + shapes[b])
                 for b in range(m)] for a in range(m)]

    def _nest(self, B, args):
        """The blocks of the wrt leaves (`B[a][b]`, leaves in `_flat`'s order) in the layout of
        the class docstring: rows in the structure of the wrt argument they belong to, and in
        each row, per wrt argument, its leaves' blocks in its structure."""
        def group(arg, items):
            return rebuild(arg, items) if structured_value(arg) else items[0]

        counts = [len(leaves(args[w], ty_of_value(args[w])))
                  if structured_value(args[w]) else 1 for w in self.wrt]
        starts = [sum(counts[:j]) for j in range(len(counts))]

        def row(a):
            per = [group(args[w], [B[a][starts[j] + k] for k in range(counts[j])])
                   for j, w in enumerate(self.wrt)]
            return per[0] if self.single else tuple(per)

        rows = [group(args[w], [row(starts[i] + k) for k in range(counts[i])])
                for i, w in enumerate(self.wrt)]
        return rows[0] if self.single else tuple(rows)

    def _eager_blocks(self, td, flat, wrt):
        """`B[a][b]` of the wrt leaves by eager mode: per basis vector of leaf b, the recorded
        backward pass of the tangent function."""
        shapes = [np.shape(flat[i]) for i in wrt]
        m = len(wrt)
        rows = [[None] * m for _ in range(m)]
        for b in range(m):
            size = int(np.prod(shapes[b]))
            cols = [[] for _ in range(m)]
            for k in range(size):
                tans = list(_zero_tangents(flat, wrt))
                if shapes[b]:
                    tans[b] = np.zeros(size)
                    tans[b][k] = 1.0
                    tans[b] = tans[b].reshape(shapes[b])
                else:
                    tans[b] = 1.0
                grads = self._eager_grads(td, flat, wrt, tuple(tans))
                for a in range(m):
                    cols[a].append(np.ravel(np.asarray(grads[a], dtype=float)))
            for a in range(m):
                rows[a][b] = np.array(cols[a]).T.reshape(shapes[a] + shapes[b])
        return rows

    def specialize(self, *args, **kwargs) -> Compiled:
        """The compiled module of the Hessian loop for these arguments (`compiled_ran` says
        whether its Numba code ran)."""
        args = self.d.bind(args, kwargs)
        with higher.user_lines(self.d.__name__):
            td, wrt, basis = self._tangent(args)
            flat, _ = self._flat(args)
            mode = ("hessian", basis) + (("parallel",) if self.parallel_columns else ())
            comp = td.specialize(flat + _zero_tangents(flat, wrt), wrt, mode=mode)
            self._check_scalar(comp.gen.out_types)
        return comp

    def compiled(self, *example_args, **kwargs):
        """The compiled `f_tangent_hessian(params...)` for this signature, callable from your
        own `@numba.njit` code (a tuple, list or dict argument is one parameter per leaf): it
        returns, per pair (b, a) of wrt parameters (b outer), the block `(a.size, b.size)` of
        second derivatives d2f/(da db), flattened (`H[a][b]` is
        `block.reshape(a.shape + b.shape)`; for one wrt parameter x, `H` is
        `block.reshape(x.shape + x.shape)`)."""
        comp = self.specialize(*example_args, **kwargs)
        return comp.fn(comp.gen.hessian)


def _zeros_like(v):
    """A zero cotangent for an output value (nested tuples and dicts alike)."""
    if isinstance(v, tuple):
        return tuple(_zeros_like(a) for a in v)
    if isinstance(v, dict):
        return {k: _zeros_like(a) for k, a in v.items()}
    return np.zeros(np.shape(v)) if np.ndim(v) else 0.0


def _same_structure(v, tree) -> bool:
    if isinstance(tree, tuple):
        return isinstance(v, (tuple, list)) and len(v) == len(tree) and all(
            _same_structure(a, t) for a, t in zip(v, tree))
    if isinstance(tree, dict):
        return isinstance(v, dict) and tuple(v) == tuple(tree) and all(
            _same_structure(v[k], t) for k, t in tree.items())
    return not isinstance(v, (tuple, dict))


def _nest(tree, flat, n):
    """The compiled function's flat output (n leaves: a tuple, or one value) in f's nested
    structure `tree` (None: as it is)."""
    if tree is None:
        return flat
    return rebuild(tree, iter(flat if n > 1 else (flat,)))


def _flat(tree, ct, n):
    """A cotangent given in the output's nested structure `tree`, flat as the compiled vjp
    takes it (None: as it is)."""
    if tree is None:
        return ct
    if not _same_structure(ct, tree):
        raise JitadError("the cotangent must have the output's structure (its nested tuples "
                         "and dict keys, in order)")
    flat = leaves(ct)
    return tuple(flat) if n > 1 else flat[0]


def _cotangent(ct, outs, y):
    """The cotangent as the compiled vjp takes it, checked against the output `y` it pairs with
    (a wrong shape would otherwise be truncated or read past its end)."""
    if len(outs) > 1:
        if not isinstance(ct, tuple) or len(ct) != len(outs):
            raise JitadError(f"the cotangent must be a tuple of {len(outs)} values, like the output")
        return tuple(_cotangent(c, (t,), v) for c, t, v in zip(ct, outs, y))
    t = outs[0]
    if np.shape(ct) != np.shape(y):
        raise JitadError(f"the cotangent must have the output's shape {np.shape(y)}, got shape "
                         f"{np.shape(ct)}")
    if isinstance(t, Ty) and t.ndim == 0:
        return float(ct)
    arr = np.asarray(ct, dtype=np.float64 if t.dtype != "f4" else np.float32)
    return np.ascontiguousarray(arr)


STAGES = ("monadic", "normalized", "forward", "adjoint", "jvp") + pipeline.PASS_NAMES


def source(f, stage="adjoint", args=None, wrt=None) -> str:
    """The generated code of `f` at a stage: "monadic" (do-notation of the IR), "forward"
    (the compiled primal), "adjoint" (the fused forward-with-tape and adjoint), "jvp" (the
    forward-mode tangent functions, callees' first), or what any
    pass of the pipeline has produced (`jitad.pipeline.PASS_NAMES`: "capture", "normalize",
    "specialize", "plan", "primal", ..., "module").

    Stages after "normalize" are specialized to a signature: pass example `args=(...)` (and
    `wrt`), or call a gradient of `f` first and the last specialization is shown.
    For `hessian(f)`/`hvp(f)` (with `args=`): "jvp" is f's tangent function as it is read
    again, any other stage that function's (its "adjoint" is what the Hessian runs)."""
    if stage not in STAGES:
        raise JitadError(f"unknown stage {stage!r}; choose one of {', '.join(STAGES)}")
    if hasattr(f, "source_at"):              # a training step shows its own functions
        return f.source_at(stage, args)
    if isinstance(f, _Second):               # hessian/hvp: the tangent function they read
        if args is None:
            raise JitadError(f"jitad.source({type(f).__name__}(...), {stage!r}) needs "
                             "args=(example arguments)")
        args = f.d.bind(tuple(args), {})
        with higher.user_lines(f.d.__name__):
            td = f._tangent(args)[0]
        if stage == "jvp":                   # the generated jvp, as it is read again
            return higher.text_of(td.__jitad_function__)
        flat, wrt = f._flat(args)
        return source(td, stage, flat + _zero_tangents(flat, wrt), wrt)
    if isinstance(f, _Transformed):
        wrt = f.wrt_spec if wrt is None else wrt
        f = f.d
    d = as_differentiable(f)
    if stage in ("monadic", "normalized"):
        notes = None
        if d.parallel and stage == "monadic":    # what `par` decided, for a signature
            comp = d.specialize(d.bind(tuple(args), {})) if args is not None else d.last
            if comp is None:
                raise JitadError(f"jitad.source({d.__name__}, 'monadic') of a parallel function "
                                 "decides per signature: pass args=(example arguments) or call it")
            notes = [(dec.targets, dec.note()) for dec in comp.gen.decisions]
        fn = d.__jitad_function__
        if args is not None:                # a parameter's dtype, isinstance: for these types
            tys = tuple(ty_of_value(a) for a in d.bind(tuple(args), {}))
            if not any(is_structured(t) for t in tys):
                return monadic.render(pipeline.typed_frontend(fn, tys), notes)
        return monadic.render(frontend(fn), notes)
    if stage in pipeline.PASS_NAMES:
        return d.text_after(stage, args, None if wrt is None and args is None else
                            wrt_indices(d, 0 if wrt is None else wrt)[0])
    if stage == "jvp":
        if args is not None:
            comp = d.specialize(tuple(args), wrt_indices(d, 0 if wrt is None else wrt)[0],
                                mode="jvp")
        else:
            comp = next((c for c in reversed(list(d._specs.values())) if c.gen.jvp), None)
            if comp is None:
                raise JitadError(f"jitad.source({d.__name__}, 'jvp') needs a signature: pass "
                                 "args=(example arguments) or call jitad.jvp of it first")
        gen = comp.gen
        names = [n for n in gen.functions if n.endswith("_jvp") or n == gen.jvp]
        names = [n for n in names if n != gen.jvp] + [gen.jvp]
        return "\n\n".join(gen.functions[n] for n in names)
    if args is not None:
        wrt_idx = wrt_indices(d, 0 if wrt is None else wrt)[0]
        comp = d.specialize(tuple(args), wrt_idx if stage == "adjoint" else None)
    else:
        comp = d.last
        if comp is None:
            raise JitadError(f"jitad.source({d.__name__}, {stage!r}) needs a signature: pass "
                             "args=(example arguments) or call a gradient of it first")
        if stage == "adjoint" and comp.gen.vjp is None:
            raise JitadError("no gradient of this function has been compiled yet; pass args= and wrt=")
    gen = comp.gen
    if stage == "forward":
        return gen.functions[gen.primal]
    names = [n for n in gen.functions if n != gen.primal and not n.startswith(gen.primal + "_grad")
             and n != gen.value_and_grad and n != gen.grad]
    # the entry's own vjp last, callees' before it
    body = [gen.functions[n] for n in names if n != gen.vjp] + [gen.functions[gen.vjp]]
    return "\n\n".join(body)
