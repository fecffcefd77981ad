"""jitad.eager: reverse-mode AD by running plain Python functions on recording values.

The eager mode of jitad: no compilation, same functions as the compiler.

What it takes
-------------
* ``Var(value, requires_grad=False)``: a float or NumPy array.  Operations on
  Vars (Python operators, NumPy functions through ``__array_ufunc__`` /
  ``__array_function__``, indexing, ``y[i] = v``) record a graph node only when
  an input requires grad and recording is on (``no_grad()`` turns it off).
* ``value_and_grad(f, argnums)``: a plain Python function (the same one the
  compiler takes) and a tuple of argument indices; returns
  ``(*args) -> (value, grads)`` with plain floats/ndarrays.  Before f runs, compiled
  mode's checking passes run for f, the signature and argnums (once per signature;
  ``Differentiable.check``), so it takes exactly the functions compiled mode takes.
  f is rebuilt (not modified) with ``math``/``np``/``np.linalg``/``float``/``max``/``min``/helper
  names bound to eager versions, so ``math.sin``, ``np.zeros`` + writes,
  ``max(a, b)``, helpers and recursion are recorded.
* The primitive subset of the compiler (see ``rules.py``, one line per rule):
  + - * / ** %, unary -, abs, comparisons; math sin cos tan exp log log1p sqrt
  tanh atan2 hypot fabs pow (and a few more); np ufuncs, where, clip, sign,
  sum/mean/max/min (with axis), linalg.norm, dot, @, outer, reshape,
  transpose/.T, concatenate/stack, zeros/ones/empty/full/*_like, linspace and
  arange (differentiable in their float start/stop/step; the length is not),
  x[i], x[i, j], slices, x[int_array] and writes ``y[idx] = v`` / ``y[idx] += v``.

What it guarantees
------------------
* Gradients accumulate over every use of a value; the reverse pass visits the
  graph in reverse topological order without recursion (a 10^6-node chain is
  fine) and touches each node once (a depth-n diamond costs O(n)).
* Broadcasting is undone in the adjoints; ``x[idx]`` with repeated indices
  accumulates (np.add.at).
* The conventions of the compiled mode at non-differentiable points: a tie of
  ``np.max``/``np.min``/``.max()``/``.min()`` (per reduced slice with ``axis=``)
  splits the cotangent evenly among the tied entries; a tie of
  ``np.maximum``/``np.minimum`` and of the builtins ``max(a, b)``/``min(a, b)``
  gives each side g/2 (under value_and_grad; a plain call on Vars runs Python's
  builtin, which picks one argument); ``np.clip`` passes g where lo <= x <= hi
  (bounds included); ``abs``/``np.abs``/``math.fabs`` give g * sign(x) (0 at 0).
* What compiled mode refuses, value_and_grad refuses before f runs, with compiled
  mode's ``jitad.JitadError`` (the same text, at the same line). What eager mode
  itself cannot differentiate -- reached through the Var API, which checks
  nothing -- raises a ``jitad.JitadError`` while the operation is recorded, before any backward pass,
  located at the user's file and line (the innermost frame outside jitad and
  NumPy) and naming the construct: a NumPy function or array method with no
  rule (``np.cumsum``, ``np.linalg.inv``, ``x.prod()``, ``np.add.at`` ...) on a
  Var that requires grad, ``float()``/``np.asarray()``/``.item()``/``.tolist()``
  of one (which would cut the graph), a write into a leaf, a differentiable
  write into an integer array or with repeated indices, and, in
  value_and_grad, an int/bool argument in argnums or a non-scalar output.
  The same calls on values that are not differentiated (constants, no_grad,
  int/bool results such as ``np.argsort(x)``) run as plain NumPy; a float array
  they return is a constant Var.  ``bool()``, comparisons and ``int()`` read
  the value, so Python control flow on data works.  Errors plain NumPy would
  raise on the same values (shape mismatches, ``bool`` of a vector) are NumPy's.
* In-place writes (``y[idx] = v``, ``y[idx] += v``, ``a += b`` on arrays,
  ``np.add(a, b, out=y)``, ``y.fill(v)``, ``y.sort()``, ``np.copyto(y, v)``) have
  value semantics with copy-on-write: a write never changes a value that a
  recorded node saved.  The array is written in place only when nothing else
  references it (reference count), otherwise it is copied first.  Writes into a
  view (``A[i][j] = v``, a slice, ``x.T``, ``x.reshape(...)``) are written back
  into the base Var, and live views of a written Var are recomputed, as with
  NumPy.  Writes into a leaf that requires grad are refused (outside no_grad).
  (value_and_grad refuses writes into arguments and through views, as compiled
  mode does; the arguments are copies all the same, so the caller's arrays never
  change.)
* ``backward()`` frees the graph (saved values) unless ``retain_graph=True``;
  a second backward through a freed graph raises a clear error.
* value_and_grad never modifies the caller's arrays; each gradient has its
  argument's shape and float dtype.
* ``tape_size()`` counts the nodes recorded so far (``no_grad`` adds none).
* The recording machinery (Var, the rules, dispatch) depends only on NumPy, the
  standard library, ``jitad.errors`` and the primitives' rules; value_and_grad and
  forward mode also read the compiler's front end and checking passes (never its
  code generation or Numba).  Recording state is global: not thread-safe.
"""
from . import rules  # noqa: F401  (registers the derivative table)
from . import ops  # noqa: F401  (installs operators/methods on Var)
from . import from_primitives  # noqa: F401  (eager ops of the other primitives)
from . import math_ns as math
from . import numpy_ns as numpy
from .graph import enable_grad, is_grad_enabled, no_grad, tape_size
from .var import Var, backward
from .functional import eager_function, grad, value_and_grad

__all__ = ["Var", "no_grad", "enable_grad", "is_grad_enabled", "tape_size", "backward",
           "value_and_grad", "grad", "eager_function", "numpy", "math"]
