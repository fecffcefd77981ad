"""The ADBench objectives as ADBench's Python modules write them (tests/adbench_funcs.py) and
the two forms the GMM needed. Findings, fixed in both modes:
  * `np.column_stack(cols)` of a list the function built was refused (only a tuple or list
    written out was read): the list primitive `list_column_stack` (vectors: its columns;
    matrices: concatenated along axis 1), with its tangent and re-readable forwards
    (`rt.column_stack_vectors` / `rt.column_stack_matrices`), so Hessians go through it;
  * a function's own attribute used as one call's variable -- assigned at the top of its
    body (`constructL.Lparamidx = d`), then read and updated by a nested function called in
    a list comprehension -- was refused ("cannot assign to Attribute"): a local
    (`function_attrs`), the nested function's `nonlocal`, the comprehension the loop it runs
    (`nonlocals`). An attribute kept from an earlier call, set in a branch, or of a function
    that may run itself again before it returns (a recursion: Python's attribute is one value
    for every run, which a local per run is not -- the first version gave 9.0 where Python
    gives 0.0, caught in review) stays refused, both modes, with a message saying what works.
Each gradient against central finite differences and autograd, both modes; Hessians
against central differences of the gradient; the GMM (both forms at once) also compiled by
Numba."""
from . import adbench_funcs as af
from .harness import corpus_tests

NUMBA = {"gmm_objective"}
# autograd cannot run these: item assignment (s2[i + 1], s2[i] = ...; reproj_err[i] = ...)
NO_AUTOGRAD = {"lstm_objective", "ba_objective"}

globals().update(corpus_tests(af, NUMBA, NO_AUTOGRAD, at_least=10))
