"""The `numba.njit` versions of `runtime`'s helpers (what compiled generated code calls).

Each helper is re-bound to this module's globals (`_G`), so a helper calling another helper
calls the compiled one; the constants they read (`runtime.CONSTANTS`) are copied here. A
helper in `runtime.OVERLOADED` is the plain function itself, with a Numba overload that picks
its compiled implementation by the argument types.

Helpers are made on first use, not at import: `rt.<name>` (this module's `__getattr__`, what
Numba reads typing a generated module's `rt.<name>`) and a helper's global name read by Numba
typing another helper (`_G`, a dict that makes a missing helper) make it once and keep it in
the module. A generated module calls a few dozen of the ~390 helpers; making every dispatcher
with its disk cache at import cost ~0.2-0.4 s of every new process's first call."""
import threading
import types

import numpy as np  # noqa: F401  (the helpers' global `np`)

from . import runtime as _py
from .cache import njit

math = _py.math    # the helpers' global `math`
for _name in _py.CONSTANTS:
    globals()[_name] = getattr(_py, _name)


class _Globals(dict):
    """The globals of every function compiled here: this module's names, and a helper not
    made yet made when Numba (or Python) reads its name."""

    def __missing__(self, name):
        mod = globals()
        if name not in mod:
            if name not in _LAZY:
                raise KeyError(name)
            _make(name)
        value = mod[name]
        self[name] = value
        return value


_G = _Globals(__name__=__name__, __builtins__=__builtins__)
_MAKING = threading.RLock()


def _rebind(f):
    """`f` (a function of this module or of `runtime`) reading its globals from `_G`."""
    g = types.FunctionType(f.__code__, _G, f.__name__, f.__defaults__, f.__closure__)
    g.__qualname__ = f.__qualname__
    return g

def _one_specialization(disp, callee, any_layout=False, special=None):
    """Make Numba compile the helper `disp` once per argument types, not once per constant
    (nor, with `any_layout`, once per layout of its array arguments), and compiled code call
    `callee`, the same function compiled without wrappers. `special`, triples (test,
    dispatcher, any layout): a call from compiled code whose argument types pass a `test` is
    typed and lowered as a call of that dispatcher instead, for its exact argument types or,
    with any layout, its arrays typed 'A' (`add_into`'s loops for two float vectors, two float
    matrices).

    Numba compiles two wrappers with every specialization of a function: a CPython one (to
    call it from Python: unboxing each argument, boxing the result) and a C one (to pass it as
    a first-class function). Compiled code calling a helper needs neither, and both were
    linked into every caller: a third of a small helper's code (the GMM's gradient: 57,703
    LLVM lines into module optimization, 50,827 without). So `disp` (what Python calls, as
    the tests do) keeps its wrappers, and a call from compiled code is typed and lowered as
    a call of `callee` (compiled with `no_cpython_wrapper` and `no_cfunc_wrapper`).

    Compiled code calling a helper types its constant arguments as literals
    (`Literal[str]('gmm.py:107:17')`, `Literal[int](1)`), and Numba compiles the helper again
    for every distinct constant: every `check_range` site of every generated function was a
    compilation of its own. The helper is compiled for the arguments' plain types instead (a
    literal converts to its plain type at the call), and for the literal types only when the
    plain ones do not type. With `any_layout` an array argument is typed as Numba's 'A'
    layout (a C or F array converts to it at the call): `runtime.ANY_LAYOUT`."""
    from numba.core import errors, sigutils
    from numba.core import types as nbtypes
    literal_call_template = callee.get_call_template
    own_overload = disp.get_overload

    def as_any_layout(t):
        return t.copy(layout="A") if isinstance(t, nbtypes.Array) and t.layout != "A" else t

    def plain_type(t):
        t = nbtypes.unliteral(t)
        return as_any_layout(t) if any_layout else t

    def get_call_template(args, kws):
        for test, other, any_layout_other in special or ():
            if not kws and test(*args):
                return other.get_call_template(
                    tuple(map(as_any_layout, args)) if any_layout_other else args, kws)
        plain = tuple(plain_type(a) for a in args)
        plain_kws = {k: plain_type(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != kws:
            try:
                return literal_call_template(plain, plain_kws)
            except errors.TypingError:
                pass
        return literal_call_template(args, kws)

    def get_overload(sig):          # lowering a call typed by `get_call_template`
        args = tuple(sigutils.normalize_signature(sig)[0])
        for _, other, _ in special or ():
            if args in other.overloads:
                return other.get_overload(sig)
        return (callee.get_overload if args in callee.overloads else own_overload)(sig)
    disp.get_call_template = get_call_template
    disp.get_overload = get_overload
    disp.compiled_callee = callee


def _helper(name, f, inline="never", special=None):
    """`f` (runtime's plain function) compiled as the helper `name`: re-bound to this module's
    globals; not inlined, it is compiled once per plain argument types and called from
    compiled code without wrappers (`_one_specialization`)."""
    g = types.FunctionType(f.__code__, _G, name, f.__defaults__)
    errors = {"error_model": "numpy"} if name in _py.NUMPY_ERRORS else {}
    disp = njit(g, nogil=name not in _py.NEEDS_GIL, inline=inline, **errors)
    if inline == "never":
        # its own qualified name: Numba's disk cache is keyed on it, not on the wrappers
        c = types.FunctionType(f.__code__, _G, name, f.__defaults__)
        c.__qualname__ = name + "_callee"
        _one_specialization(disp, njit(c, nogil=name not in _py.NEEDS_GIL, inline=inline,
                                       no_cpython_wrapper=True, no_cfunc_wrapper=True, **errors),
                            any_layout=name in _py.ANY_LAYOUT, special=special)
    return disp


def _row_source(view, src, n):
    """(what to read, its step) for writing the vector `src` over `n` elements of `view`:
    NumPy's broadcasting (length n, step 1; length 1, step 0; else a ValueError), a copy
    first if src overlaps the view (`set_view`)."""
    m = src.shape[0]
    if m != n and m != 1:
        raise ValueError("could not broadcast the value into the slice it is assigned to "
                         "(their lengths differ)")
    return (src.copy() if overlaps(view, src) else src), (1 if m == n else 0)


_row_source = njit(_rebind(_row_source), nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def _matrix_source(view, src):
    """(what to read, its row step, its column step) for writing the matrix `src` over the
    matrix `view`: NumPy's broadcasting per axis (the same length, step 1; length 1, step 0;
    else a ValueError), a copy first if src overlaps the view (`set_view`, `add_into`)."""
    for k in range(2):
        if src.shape[k] != view.shape[k] and src.shape[k] != 1:
            raise ValueError("could not broadcast the value into the slice it is assigned to "
                             "(their shapes differ)")
    s = src.copy() if overlaps(view, src) else src
    return s, (1 if s.shape[0] == view.shape[0] else 0), (1 if s.shape[1] == view.shape[1] else 0)


_matrix_source = njit(_rebind(_matrix_source), nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def _add_into_vec(view, g):
    """`add_into` for two float vectors: an element loop (Numba's `view += g` goes through its
    ufunc machinery, ~4x slower per element: a Rosenbrock Hessian's column loop spent a third
    of its time there), with NumPy's broadcasting (g of length 1 repeats; another length is a
    ValueError) and g copied first if it overlaps the view."""
    src, step = _row_source(view, g, view.shape[0])
    if step == 1:
        for i in range(view.shape[0]):
            view[i] += src[i]
    else:
        for i in range(view.shape[0]):
            view[i] += src[0]


def _add_into_mat(view, g):
    """`add_into` for two float matrices: two element loops (Numba's `view += g` of two 'A'
    matrices is its ufunc machinery, ~1,100 LLVM lines linked into every caller), with NumPy's
    broadcasting and g copied first if it overlaps the view (`_matrix_source`)."""
    s, r, c = _matrix_source(view, g)
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            view[i, j] += s[i * r, j * c]


def _floats(ndim):
    def test(*args):
        from numba.core import types as nbtypes
        return all(isinstance(a, nbtypes.Array) and a.ndim == ndim
                   and isinstance(a.dtype, nbtypes.Float) for a in args)
    return test


def _callee(f):
    return njit(_rebind(f), nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


# a helper whose calls from compiled code with some argument types are another function's
# (`_one_specialization`'s `special`): add_into of two float vectors is the loop above, compiled
# for their exact types; of two float matrices the loops above, compiled once for any layouts;
# any other add_into the helper compiled once for any layouts (`runtime.ANY_LAYOUT`), called
# directly, with no overload typed per argument types between
_SPECIAL = {"add_into": ((_floats(1), _callee(_add_into_vec), False),
                         (_floats(2), _callee(_add_into_mat), True))}


def _kept(held, like):
    """A call whose argument `held` (d, c) is a C-contiguous array of `like`'s dtype and rank:
    its array may be the result, which is then typed as the np.zeros_like(like) it stands for
    (`runtime.first_add`, `zeros_into`; arguments (x, c) or (d, x))."""
    def test(*args):
        from numba.core import types as nbtypes
        h, x = args[held], args[like]
        return isinstance(h, nbtypes.Array) and isinstance(x, nbtypes.Array) \
            and h.dtype == x.dtype and h.ndim == x.ndim and h.layout == "C"
    return test


def _first_add_take(x, c):
    """`runtime.first_add` where c is a C array of x's dtype and rank: c itself when it has
    x's shape, else zeros and the (broadcasting) addition."""
    if c.shape == x.shape:
        return c
    d = np.zeros_like(x)
    add_into(d, c)
    return d


def _first_accum1_take(x, c):
    if c.shape == x.shape:
        return c
    d = np.zeros_like(x)
    accum1(d, c)
    return d


def _first_accum2_take(x, c):
    if c.shape == x.shape:
        return c
    d = np.zeros_like(x)
    accum2(d, c)
    return d


def _zeros_into_refill(d, x):
    """`runtime.zeros_into` where d is a C array of x's dtype and rank: d zeroed in place when
    it has x's shape."""
    if d.shape == x.shape:
        d.fill(0)
        return d
    return np.zeros_like(x)


def _empty_into_again(d, x):
    if d.shape == x.shape:
        return d
    return np.empty_like(x)


# an adjoint's first contribution and an array made again per loop trip (`runtime.first_add`,
# `zeros_into`, ...): the kept-array version for the types that allow it (above), else the
# plain one (`runtime.COMPILED_AS`) -- plain functions, disk-cached, no overload typed per
# process
for _n, _f, _args in (("first_add", _first_add_take, (1, 0)),
                      ("first_accum1", _first_accum1_take, (1, 0)),
                      ("first_accum2", _first_accum2_take, (1, 0)),
                      ("zeros_into", _zeros_into_refill, (0, 1)),
                      ("empty_into", _empty_into_again, (0, 1))):
    _SPECIAL[_n] = ((_kept(*_args), _callee(_f), False),)


_LAZY = frozenset(("_einsum_strides", "_sum2")
                  + tuple(n for n in _py.__all__ if n not in _py.OVERLOADED))


def _make(name):
    """Make the helper `name` (once, whichever thread asks first)."""
    with _MAKING:
        mod = globals()
        if name not in mod:
            mod[name] = _helper(name, getattr(_py, _py.COMPILED_AS.get(name, name)),
                                "always" if name in _py.INLINE else "never", _SPECIAL.get(name))
        return mod[name]


def __getattr__(name):
    if name in _LAZY:
        return _make(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# the overloads' implementations are only called from compiled code: no wrappers (see above)
_CALLEE = {"nogil": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
# an overload taking an axis is typed with the axis as the literal the call site passes
# (`prefer_literal`): Numba prunes the branches of the other axes (its dead-branch pruning reads
# a literal argument), one compilation per axis used instead of both axes' loops in one (GMM
# gradient: sum_axis 1,377 -> 414 LLVM lines, max_axis 970 -> 419, extreme_adjoint 1,004 ->
# 557, each linked into every caller); an axis that is not a constant still compiles both
_BY_AXIS = {"prefer_literal": True}


def _overloads():
    from numba.core import types
    from numba.extending import overload

    @overload(_py.sum_axis, jit_options=_CALLEE, **_BY_AXIS)
    def _sum_axis(x, axis):
        """A matrix of floats, ints or bools: two loops into zeros of NumPy's result dtype
        (the float's own; int64 for ints and bools), see `runtime.sum_axis`; else np.sum."""
        if not (isinstance(x, types.Array) and x.ndim == 2
                and isinstance(x.dtype, (types.Float, types.Integer, types.Boolean))):
            return lambda x, axis: np.sum(x, axis=axis)
        acc = np.dtype(str(x.dtype)) if isinstance(x.dtype, types.Float) else np.int64

        def impl(x, axis):
            if axis == 0 or axis == -2:
                out = np.zeros(x.shape[1], acc)
                for i in range(x.shape[0]):
                    for j in range(x.shape[1]):
                        out[j] += x[i, j]
            elif axis == 1 or axis == -1:
                out = np.zeros(x.shape[0], acc)
                for i in range(x.shape[0]):
                    for j in range(x.shape[1]):
                        out[i] += x[i, j]
            else:
                raise ValueError("axis is out of bounds for array of dimension 2")
            return out
        return impl

    @overload(_py.empty_stack, jit_options=_CALLEE)
    def _empty_stack(l):
        """The stack of an empty list (`runtime.empty_stack`): an empty vector of a list of
        numbers' dtype; for a list of rank-k arrays NumPy's error (the empty rank-k+1 array
        after it only types the call)."""
        elem = l.dtype
        array = isinstance(elem, types.Array)
        shape = (0,) * ((elem.ndim if array else 0) + 1)
        dt = np.dtype(str(elem.dtype if array else elem))
        if not array:
            return lambda l: np.empty(shape, dt)

        def impl(l):
            if len(l) == 0:
                raise ValueError("need at least one array to stack")
            return np.empty(shape, dt)
        return impl

    @overload(_py.max_axis, jit_options=_CALLEE, **_BY_AXIS)
    def _max_axis(x, axis):
        """A matrix: `runtime.max_axis`'s loops (the same comparisons in the same order), on x
        itself; any other rank: `runtime.max_axis` compiled as it is."""
        if not (isinstance(x, types.Array) and x.ndim == 2):
            return lambda x, axis: _max_axis_nd(x, axis)

        def impl(x, axis):
            if axis == 1 or axis == -1:
                out = np.empty((x.shape[0], 1), x.dtype)
                for i in range(x.shape[0]):
                    out[i, 0] = x[i, 0]
                    for k in range(1, x.shape[1]):
                        if x[i, k] > out[i, 0]:
                            out[i, 0] = x[i, k]
            elif axis == 0 or axis == -2:
                out = np.empty((1, x.shape[1]), x.dtype)
                for j in range(x.shape[1]):
                    out[0, j] = x[0, j]
                for k in range(1, x.shape[0]):
                    for j in range(x.shape[1]):
                        if x[k, j] > out[0, j]:
                            out[0, j] = x[k, j]
            else:
                raise ValueError("axis is out of bounds for array of dimension 2")
            return out
        return impl


    @overload(_py.extreme_adjoint, jit_options={**_CALLEE, "error_model": "numpy"}, **_BY_AXIS)
    def _extreme_adjoint(g, x, y, axis):
        """A matrix x: per row (axis 1) or column (axis 0), count the entries equal to y's,
        then write g / count times 1.0 there and times 0.0 elsewhere (the products
        `runtime.extreme_adjoint`'s expression makes); any other rank: that expression."""
        if not (isinstance(x, types.Array) and x.ndim == 2 and isinstance(g, types.Array)):
            return lambda g, x, y, axis: _extreme_adjoint_nd(g, x, y, axis)

        def impl(g, x, y, axis):
            out = np.empty(x.shape, type(g.dtype.type(0) / np.int64(1)))
            rows = axis == 1 or axis == -1
            if not rows and axis != 0 and axis != -2:
                raise ValueError("axis is out of bounds for array of dimension 2")
            n = x.shape[0] if rows else x.shape[1]
            m = x.shape[1] if rows else x.shape[0]
            for i in range(n):
                count = 0
                for k in range(m):
                    if (x[i, k] if rows else x[k, i]) == y[i]:
                        count += 1
                share = g[i] / count
                for k in range(m):
                    hit = (x[i, k] if rows else x[k, i]) == y[i]
                    v = share * (1.0 if hit else 0.0)
                    if rows:
                        out[i, k] = v
                    else:
                        out[k, i] = v
            return out
        return impl

    @overload(_py.set_view, jit_options=_CALLEE)
    def _set_view(view, src):
        """A view of rank 1 or 2 and a number or an array of rank <= the view's: element
        loops, NumPy's broadcasting (a length-1 axis repeats), the source copied first if it
        overlaps the view, a mismatch a ValueError with a constant message; else NumPy's
        assignment (`runtime.set_view`)."""
        if not (isinstance(view, types.Array) and view.ndim in (1, 2)):
            return lambda view, src: _set_view_nd(view, src)
        if isinstance(src, (types.Number, types.Boolean)):
            if view.ndim == 1:
                def fill1(view, src):
                    for i in range(view.shape[0]):
                        view[i] = src
                return fill1

            def fill2(view, src):
                for i in range(view.shape[0]):
                    for j in range(view.shape[1]):
                        view[i, j] = src
            return fill2
        if not (isinstance(src, types.Array) and 1 <= src.ndim <= view.ndim):
            return lambda view, src: _set_view_nd(view, src)
        if view.ndim == 1:
            def copy1(view, src):
                s, st = _row_source(view, src, view.shape[0])
                for i in range(view.shape[0]):
                    view[i] = s[i * st]
            return copy1
        if src.ndim == 1:
            def row2(view, src):
                s, st = _row_source(view, src, view.shape[1])
                for i in range(view.shape[0]):
                    for j in range(view.shape[1]):
                        view[i, j] = s[j * st]
            return row2

        def copy2(view, src):
            s, r, c = _matrix_source(view, src)
            for i in range(view.shape[0]):
                for j in range(view.shape[1]):
                    view[i, j] = s[i * r, j * c]
        return copy2


    @overload(_py.promoted, jit_options=_CALLEE)
    def _promoted(a, b):
        """`runtime.promoted`: two arrays of one dtype as they are; else the one whose dtype
        is not NumPy's result dtype converted to it."""
        if not (isinstance(a, types.Array) and isinstance(b, types.Array)) or a.dtype == b.dtype:
            return lambda a, b: (a, b)
        from numba.np.numpy_support import as_dtype
        dt = np.promote_types(as_dtype(a.dtype), as_dtype(b.dtype))
        if as_dtype(a.dtype) == dt:
            return lambda a, b: (a, b.astype(dt))
        if as_dtype(b.dtype) == dt:
            return lambda a, b: (a.astype(dt), b)
        return lambda a, b: (a.astype(dt), b.astype(dt))


def _list_intrinsics():
    """`_push_keep(lst, x)` and `_pop_keep(lst)`: Numba's `list.append` and `list.pop`
    lowerings (numba.cpython.listobj) with the storage grown to 2n + 16 when full and never
    shrunk by a pop (see `_tape_methods`)."""
    from llvmlite import ir
    from numba.core import cgutils
    from numba.core import types as nt
    from numba.core.imputils import impl_ret_new_ref
    from numba.core.typing import signature
    from numba.cpython.listobj import ListInstance
    from numba.extending import intrinsic

    @intrinsic
    def push_keep(typingctx, lst, x):
        def codegen(context, builder, sig, args):
            inst = ListInstance(context, builder, sig.args[0], args[0])
            n = inst.size
            with builder.if_then(builder.icmp_signed(">=", n, inst._payload.allocated),
                                 likely=False):
                # resize's growing branch (never its shrinking one): room for 2n + 16
                inst.resize(builder.add(builder.shl(n, ir.Constant(n.type, 1)),
                                        ir.Constant(n.type, 16)))
                inst.size = n
            item = context.cast(builder, args[1], sig.args[1], sig.args[0].dtype)
            inst.inititem(n, item, incref=True)
            inst.size = builder.add(n, ir.Constant(n.type, 1))
            inst.set_dirty(True)
            return context.get_dummy_value()
        return signature(nt.none, lst, x), codegen

    @intrinsic
    def pop_keep(typingctx, lst):
        def codegen(context, builder, sig, args):       # list.pop's lowering, no resize
            inst = ListInstance(context, builder, sig.args[0], args[0])
            n = inst.size
            cgutils.guard_zero(context, builder, n, (IndexError, "pop from empty list"))
            n = builder.sub(n, ir.Constant(n.type, 1))
            res = inst.getitem(n)
            inst.incref_value(res)
            inst.clear_value(n)
            inst.size = n
            inst.set_dirty(True)
            return impl_ret_new_ref(context, builder, sig.return_type, res)
        return signature(lst.dtype, lst), codegen

    return push_keep, pop_keep


_push_keep, _pop_keep = _list_intrinsics()


def _tape_push_impl(lst, x):
    _push_keep(lst, x)


def _tape_pop_impl(lst):
    return _pop_keep(lst)


def _tape_methods():
    """`tape_push` and `tape_pop`, two methods of Numba's list: a tape list's push and pop in
    the numba back end's module text (`codegen.tape_methods`). `lst.append(x)` and `lst.pop()`
    are lowered inline at every site (a resize, reference counts, the empty pop's IndexError:
    ~95 and ~105 LLVM lines each); these are calls of one small function per list type.
    `tape_push` is typed as `append` is (Numba's `resolve_append`: the list takes the
    unification of every pushed type -- a list made as `[]` the type of what is pushed on it,
    a C vector and a strided view a list of 'A' vectors -- and the pushed value converts to
    that element type at the call), so a pushed array is the array itself, never a copy (a
    view pushed still points into its base). Lowered as a call of a dispatcher compiled once
    per list type (its own overloads cache): an `overload_method` returning the refined
    signature compiled a new dispatcher at every typing of such a call (GMM: 7 tape_push
    compilations for 3 list types), and Numba's overload cache is keyed on the caller's
    flags too.

    The storage grows by doubling and a pop never shrinks it (`_push_keep`, `_pop_keep`):
    append grows a list by a quarter and pop reallocates it down at a quarter full, ~11
    reallocations (copies) per call of the rnn's Hessian-vector product, whose 90 arrays are
    pushed then popped (the @njit kernel 4.20x -> 4.00x its forward pass, paired). A tape
    lives for one call: what a pop leaves allocated is freed with the list."""
    from numba.core import types
    from numba.core.imputils import lower_builtin
    from numba.core.typing import signature
    from numba.core.typing.templates import AttributeTemplate, bound_function, infer_getattr

    @infer_getattr
    class TapeListAttribute(AttributeTemplate):
        key = types.List

        @bound_function("list.tape_push")
        def resolve_tape_push(self, lst, args, kws):
            if len(args) != 1 or kws:
                return None
            unified = self.context.unify_pairs(lst.dtype, args[0])
            if unified is not None:
                return signature(types.none, unified).replace(recvr=lst.copy(dtype=unified))

        @bound_function("list.tape_pop")
        def resolve_tape_pop(self, lst, args, kws):
            if args or kws or not lst.is_precise():
                return None
            return signature(lst.dtype)

    push = njit(_tape_push_impl, **_CALLEE)
    pop = njit(_tape_pop_impl, **_CALLEE)

    def call(disp):
        def lower(context, builder, sig, args):
            fnty = context.typing_context.resolve_value_type(disp)
            call_sig = fnty.get_call_type(context.typing_context, sig.args, {})
            return context.get_function(fnty, call_sig)(builder, args)
        return lower

    lower_builtin("list.tape_push", types.List, types.Any)(call(push))
    lower_builtin("list.tape_pop", types.List)(call(pop))


_set_view_nd = njit(types.FunctionType(_py.set_view.__code__, _G, "set_view"), nogil=True)
_max_axis_nd = njit(types.FunctionType(_py.max_axis.__code__, _G, "max_axis"), nogil=True)
_extreme_adjoint_nd = njit(types.FunctionType(_py.extreme_adjoint.__code__, _G,
                                              "extreme_adjoint"), nogil=True)


_overloads()
_tape_methods()
max_axis = _py.max_axis       # compiled code calling rt.max_axis gets the overload above
sum_axis = _py.sum_axis       # compiled code calling rt.sum_axis gets the overload above
set_view = _py.set_view       # compiled code calling rt.set_view gets the overload above
promoted = _py.promoted       # compiled helpers calling promoted get the overload above
extreme_adjoint = _py.extreme_adjoint    # ... and rt.extreme_adjoint the overload above
empty_stack = _py.empty_stack    # ... and stack_list's empty case the overload above
