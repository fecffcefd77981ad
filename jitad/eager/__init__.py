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
  ``(*args) -> (value, grads)`` with plain floats/ndarrays.  f is rebuilt (not
  modified) with ``math``/``np``/``float``/helper names bound to eager versions,
  so ``math.sin``, ``np.zeros`` + writes, helpers and recursion are recorded.
* The primitive subset of the compiler (see ``rules.py``, one line per rule):
  + - * / ** %, unary -, abs, comparisons; math sin cos tan exp log log1p sqrt
  tanh atan2 hypot fabs pow (and a few more); np ufuncs, where, clip, sign,
  sum/mean/max/min (with axis), dot, @, outer, reshape, transpose/.T,
  concatenate/stack, zeros/ones/empty/full/*_like, x[i], x[i, j], slices,
  x[int_array] and writes ``y[idx] = v`` / ``y[idx] += v``.

What it guarantees
------------------
* Gradients accumulate over every use of a value; the reverse pass visits the
  graph in reverse topological order without recursion (a 10^6-node chain is
  fine) and touches each node once (a depth-n diamond costs O(n)).
* Broadcasting is undone in the adjoints; ``x[idx]`` with repeated indices
  accumulates (np.add.at).
* ``float()``/``np.asarray()``/``.item()`` of a Var that requires grad raise
  instead of silently cutting the graph; ``bool()``, comparisons and ``int()``
  read the value, so Python control flow on data works.
* In-place writes (``y[idx] = v``, ``y[idx] += v``, ``a += b`` on arrays) have
  value semantics with copy-on-write: a write never changes a value that a
  recorded node saved.  The array is written in place only when nothing else
  references it (reference count), otherwise it is copied first.  Writes into a
  view (``A[i][j] = v``, a slice, ``x.T``, ``x.reshape(...)``) are written back
  into the base Var, and live views of a written Var are recomputed, as with
  NumPy.  Writes into a leaf that requires grad are refused (outside no_grad).
* ``backward()`` frees the graph (saved values) unless ``retain_graph=True``;
  a second backward through a freed graph raises a clear error.
* value_and_grad never modifies the caller's arrays.
* ``tape_size()`` counts the nodes recorded so far (``no_grad`` adds none).
* Depends only on NumPy and the standard library (not on the compiler).
  Recording state is global: not thread-safe.
"""
from . import rules  # noqa: F401  (registers the derivative table)
from . import ops  # noqa: F401  (installs operators/methods on Var)
from . import math_ns as math
from . import numpy_ns as numpy
from .core import Var, backward, enable_grad, is_grad_enabled, no_grad, tape_size
from .functional import eager_function, grad, value_and_grad

__all__ = ["Var", "no_grad", "enable_grad", "is_grad_enabled", "tape_size", "backward",
           "value_and_grad", "grad", "eager_function", "numpy", "math"]
