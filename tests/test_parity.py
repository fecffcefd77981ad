"""Eager mode handles exactly what compiled mode handles, and both refuse the rest with the same
`JitadError` at the user's line (issue 12).

Eager mode runs compiled mode's checking passes (`pipeline.CHECKING`, through
`Differentiable.check`) before it runs a function, once per function, signature and wrt. Here:
every refusal of the error corpora (every function with an `# ERR:` marker in the test files,
the list misuses of tests/test_lists.py) raises, in both modes, a JitadError of the same type
and text -- message, construct, file, line, caret -- never chained to an internal exception;
every transformation refuses like its compiled counterpart; what eager mode used to run and
now refuses (tests/parity_funcs.py) still runs through the Var API, which checks nothing
(the refusal is the checks', not eager mode's machinery); the checks run once per signature
and wrt, again when a global they read is rebound; and they leave eager mode's per-call time
where it was.
"""
import importlib
import inspect
import pathlib
import re
import time

import numpy as np
import pytest

import jitad
from jitad import eager, pipeline
from jitad.errors import JitadError

from . import argument_funcs as af
from . import coverage_funcs as cof
from . import error_funcs as ef
from . import frontend_funcs as ff
from . import heldout_forms_funcs as hf
from . import test_heldout4_forms, test_heldout6, test_heldout7, test_heldout8, test_heldout9
from . import test_heldout10
from . import heldout11_funcs as h11
from . import test_heldout12, test_heldout14, test_heldout15, test_local_imports
from . import test_heldout16, test_heldout17, test_heldout18, test_heldout19, test_heldout20
from . import adbench_funcs, test_heldout21, test_heldout22, test_heldout23, test_heldout24
from . import test_heldout25
from . import test_called_transforms, test_match, test_record_homes, test_shapes
from . import heldout13_funcs as h13
from . import test_heldout13
from . import numpy_forms_funcs as nf
from . import parity_funcs as pf
from . import test_arguments, test_coverage, test_errors, test_frontend, test_heldout_forms, test_lists
from . import test_eager_errors as tee
from . import test_writes_aliases as twa
from . import test_suites as tsu
from .harness import error_marker

TESTS = pathlib.Path(__file__).parent
X3 = np.array([0.5, -1.0, 2.0])
A3 = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0], [0.7, 0.1, 1.5]])


class Case:
    """A refused function, its arguments and wrt, and where the error must point: the function
    holding the `# ERR:` marker (`marked`), or a line of source (`line`)."""

    def __init__(self, fn, args, wrt=0, marked=None, line=None):
        self.fn, self.args, self.wrt, self.line = fn, args, wrt, line
        self.marked = marked or (None if line else fn)

    @property
    def id(self):
        return f"{self.fn.__module__.rsplit('.', 1)[-1]}.{self.fn.__name__}"


def _numpy_forms_args(fn):
    return {"refused_einsum_ellipsis": (np.ones((2, 2)),), "refused_pad_mode": (np.ones(3),),
            "refused_repeat_no_axis": (np.ones((2, 2)),)}.get(fn.__name__, (A3,))


def corpus():
    cases = []
    for fn in test_errors.CASES:
        params = list(inspect.signature(fn).parameters)
        cases.append(Case(fn, tuple(test_errors.ARGS[p] for p in params if p in test_errors.ARGS)))
    cases += [Case(fn, args) for fn, args in test_heldout_forms.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout4_forms.REFUSED]
    cases += [Case(fn, args) for fn, args in test_arguments.REFUSALS]
    cases += [Case(fn, args) for fn, args in test_frontend.LIBRARY_CASES]
    cases.append(Case(ff.median_of_data_in_helpers, (0.5, np.array([1.0, 5.0, 2.0])), wrt=1,
                      marked=ff._median_of))
    for name, fn in vars(nf).items():
        if name.startswith("refused_"):     # (three without a marker: their one line)
            marked = "# ERR:" in inspect.getsource(fn)
            cases.append(Case(fn, _numpy_forms_args(fn), line=None if marked else
                              inspect.getsourcelines(fn)[0][-1].strip()))
    cases += [Case(fn, (np.ones(3),), line=line) for fn, line, _ in test_lists.MISUSES]
    cases += [Case(fn, args, wrt=(0, 1)) for fn, args in test_coverage.REFUSED]
    cases += [Case(fn, args) for fn, args, _ in test_heldout6.REFUSED]
    cases += [Case(fn, args) for fn, args, _ in test_heldout7.REFUSED]
    cases += [Case(fn, args) for fn, args, _ in test_heldout8.REFUSED]
    cases += [Case(fn, args, marked=test_heldout9._bump if fn is test_heldout9.augassign_in_a_helper
                   else None) for fn, args in test_heldout9.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout10.REFUSED]
    cases += [Case(fn, args) for fn, args in h11.refused_forms()]
    cases.append(Case(h11.calls_nested_helper, (np.array([0.3, -0.2, 0.5]),),
                      marked=h11._nested_helper))
    cases += [Case(fn, args) for fn, args in test_heldout12.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout14.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout15.REFUSED]
    cases += [Case(fn, args) for fn, args in test_local_imports.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout16.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout17.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout18.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout19.REFUSED]
    cases += [Case(fn, args) for fn, args in test_heldout20.hf.refused_forms()]
    cases.append(Case(test_heldout20.squeeze_mixed_axes, (np.ones((3, 4)),)))
    cases.append(Case(test_record_homes.record_then_another_record, (np.ones(3), 0.7), wrt=(0, 1)))
    cases += [Case(fn, (np.array([0.3, -0.4]),)) for fn in test_called_transforms.REFUSED]
    cases.append(Case(test_match.sequence_pattern, (X3,)))
    cases += [Case(fn, args) for fn, args in test_heldout21.hf.refused_forms()]
    cases += [Case(fn, args) for fn, args in test_heldout22.hf.refused_forms()]
    cases += [Case(fn, args) for fn, args in test_heldout23.hf.refused_forms()]
    cases += [Case(fn, args) for fn, args in test_heldout24.hf.refused_forms()]
    cases += [Case(fn, args) for fn, args in test_heldout25.hf.refused_forms()]
    cases += [Case(fn, args) for fn, args in adbench_funcs.refused_forms()]
    cases += [Case(fn, args) for fn, args in test_shapes.REFUSED]
    cases.append(Case(test_heldout12.mutual_recursion_without_base_case, (0.3,),
                      marked=test_heldout12._second))
    cases += [Case(fn, args) for fn, args in test_heldout13.REFUSED]
    cases += [Case(fn, args) for fn, args in h13.refused_forms()]
    cases += [Case(fn, args) for fn, args in twa.REFUSED]
    cases += [Case(cof.complex_argument, (np.array([1.0 + 2j, 0.5 - 1j]), np.array([0.3, 0.4])),
                   wrt=(0, 1)),
              Case(cof.complex_output, (np.array([0.3, 0.4]),)),
              Case(cof.norm_of_order_three, (np.array([1.0, -2.0, 3.0]),)),
              Case(tsu.bad_take, (np.ones(3), np.ones(2)))]
    cases += [Case(fn, (X3,)) for fn in tee.GRAD_CASES if fn is not tee._helper]
    cases.append(Case(tee.calls_a_helper, (X3,), marked=tee._helper))
    cases += [Case(fn, args, marked=pf._add_in_place if fn is pf.update_of_an_argument_in_a_helper
                   else None) for fn, args in NEWLY_REFUSED]
    return cases


# what eager mode ran before it made compiled mode's checks (besides the corpora's constructs)
NEWLY_REFUSED = [
    (pf.ufunc_method_on_data, (0.5, np.array([3.0, 1.0, 2.0]))),
    (pf.sorted_in_place, (0.5, np.array([3.0, 1.0, 2.0]))),
    (pf.linspace_with_retstep, (0.3,)),
    (pf.rank_changes_in_a_loop, (X3, 2)),
    (pf.write_through_a_row_view, (X3,)),
    (pf.update_of_an_argument_in_a_helper, (0.5, X3)),
]
# marked functions no case above reaches by name: the Var API's own refusals (no function is
# checked there), and helpers reached through a caller
NOT_TRANSFORMED = {tee.var_writes_into_leaf, tee.var_math_on_grad_var, tee.var_list_to_array,
                   tee.var_unsupported_method, tee._helper, ff._median_of, pf._add_in_place}

CASES = corpus()


def refusals(case, transform=None):
    """The JitadErrors of the compiled and the eager run of `case` (grad unless `transform`)."""
    transform = transform or (lambda f, mode: jitad.grad(f, wrt=case.wrt, mode=mode)(*case.args))
    out = []
    for mode in ("compiled", "eager"):
        f = jitad.differentiable(case.fn, backend="python") if mode == "compiled" else case.fn
        with pytest.raises(JitadError) as info:
            transform(f, mode)
        out.append(info.value)
    return out


def assert_same(compiled, eager_err):
    assert type(compiled) is type(eager_err), (type(compiled), type(eager_err), str(eager_err))
    assert str(compiled) == str(eager_err), f"compiled:\n{compiled}\neager:\n{eager_err}"
    assert compiled.loc == eager_err.loc
    for err in (compiled, eager_err):      # the refusal itself, not an internal exception's
        assert err.__cause__ is None and (err.__context__ is None or err.__suppress_context__), \
            repr(err.__context__)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_both_modes_refuse_with_the_same_error_at_the_users_line(case):
    compiled, eager_err = refusals(case)
    assert_same(compiled, eager_err)
    text = str(compiled)
    if case.marked is not None:
        line, expected = error_marker(case.marked)
        assert compiled.loc is not None and compiled.loc.line == line, text
        assert compiled.loc.filename == inspect.getsourcefile(case.marked), text
        assert expected in text, text
    else:
        assert case.line in text, text
    assert re.search(r"\n\s*\^+\s*$", text), text


def _marked_functions():
    """Every function of the test files with an `# ERR:` marker in its source."""
    out = set()
    for path in sorted(TESTS.glob("*.py")):
        if path.name in ("harness.py", "test_parity.py") or "# ERR:" not in path.read_text():
            continue
        module = importlib.import_module(f"tests.{path.stem}")
        for fn in vars(module).values():
            if inspect.isfunction(fn) and fn.__module__ == module.__name__ \
                    and "# ERR:" in inspect.getsource(fn):
                out.add(fn)
    return out


def test_every_marked_refusal_is_in_the_parity_corpus():
    """A refusal added to a corpus must be run here too (or say why it is not transformed)."""
    covered = {c.fn for c in CASES} | {c.marked for c in CASES}
    missing = _marked_functions() - covered - NOT_TRANSFORMED
    assert not missing, sorted(f"{f.__module__}.{f.__name__}" for f in missing)


@pytest.mark.parametrize("fn,args", NEWLY_REFUSED, ids=[c[0].__name__ for c in NEWLY_REFUSED])
def test_what_eager_mode_ran_is_refused_by_the_checks_alone(fn, args):
    """The Var API (no function to check) still runs these: eager mode's refusal of them is
    the checks', made before the function runs."""
    x = args[0]
    leaf = eager.Var(np.array(x, dtype=float) if np.ndim(x) else float(x), requires_grad=True)
    rest = [eager.Var(a) if isinstance(a, np.ndarray) else a for a in args[1:]]
    out = eager.eager_function(fn)(leaf * 1.0, *rest)
    out.backward()
    assert leaf.grad is not None


# -- every transformation, both modes --------------------------------------------------------
# one refusal per checking pass: fence, normalize, type inference, the write rules, activity
BY_PASS = [Case(ef.uses_try, (0.5,)), Case(ef.uses_list_as_value, (0.5,)),
           Case(hf.ranks_meet, (X3, 1.0)), Case(ef.writes_argument, (0.5, X3)),
           Case(hf.differentiated_median, (X3,))]
TRANSFORMS = {
    "grad": lambda c: lambda f, m: jitad.grad(f, wrt=c.wrt, mode=m)(*c.args),
    "value_and_grad": lambda c: lambda f, m: jitad.value_and_grad(f, wrt=c.wrt, mode=m)(*c.args),
    "vjp": lambda c: lambda f, m: jitad.vjp(f, wrt=c.wrt, mode=m)(*c.args),
    "jvp": lambda c: lambda f, m: jitad.jvp(f, wrt=c.wrt, mode=m)(
        *c.args, tangents=np.ones_like(c.args[c.wrt])),
    "jacfwd": lambda c: lambda f, m: jitad.jacfwd(f, wrt=c.wrt, mode=m)(*c.args),
    "jacrev": lambda c: lambda f, m: jitad.jacrev(f, wrt=c.wrt, mode=m)(*c.args),
    "hessian": lambda c: lambda f, m: jitad.hessian(f, wrt=c.wrt, mode=m)(*c.args),
    "hvp": lambda c: lambda f, m: jitad.hvp(f, wrt=c.wrt, mode=m)(
        *c.args, v=np.ones_like(c.args[c.wrt])),
    # jitad.eager's own entry point, against the compiled gradient
    "eager.value_and_grad": lambda c: lambda f, m: (
        jitad.grad(f, wrt=c.wrt)(*c.args) if m == "compiled"
        else eager.value_and_grad(f, (c.wrt,))(*c.args)),
}


@pytest.mark.parametrize("name", list(TRANSFORMS))
@pytest.mark.parametrize("case", BY_PASS, ids=lambda c: c.fn.__name__)
def test_every_transformation_refuses_like_its_compiled_counterpart(case, name):
    assert_same(*refusals(case, TRANSFORMS[name](case)))


def test_the_outputs_and_the_wrt_are_checked_alike():
    """What a transformation needs its function to return, and an integer wrt, are one check
    for both modes, made from the types before anything runs."""
    def pair(x, w):
        return x * w, w

    jac = Case(pair, (X3, 0.5))
    for case, name in [(Case(ef.vector_output, (0.5, X3)), "grad"),
                       (Case(ef.vector_output, (0.5, X3)), "hessian"),
                       (Case(tee.int_argument, (1.5, 3), wrt=1), "grad"),
                       (jac, "jacfwd"), (jac, "jacrev")]:
        assert_same(*refusals(case, TRANSFORMS[name](case)))


def test_a_refusal_code_generation_makes_is_the_same_in_eager_forward_mode():
    """A primitive without a tangent rule is refused by compiled mode's `tangent` pass (code
    generation, not the checks) and by eager forward mode when it reaches the call: the
    same error."""
    from . import test_forward as tf
    assert_same(*refusals(Case(tf.squashed, (tf.X3,)),
                          lambda f, m: jitad.jvp(f, mode=m)(tf.X3, tangents=tf.V3)))


# -- the checks run once per signature and wrt --------------------------------------------------
def _counting(monkeypatch):
    runs = []
    real = pipeline.run

    def run(passes, job, stop_after=None):
        if passes is pipeline.CHECKING:
            runs.append((job.fn.__name__, job.argtys, job.wrt))
        return real(passes, job, stop_after)

    monkeypatch.setattr(pipeline, "run", run)
    return runs


def test_the_checks_run_once_per_signature_and_wrt(monkeypatch):
    runs = _counting(monkeypatch)
    x = np.array([0.1, 0.2, 0.3])
    g = jitad.grad(pf.scaled, mode="eager")
    for _ in range(3):
        np.testing.assert_allclose(g(x), np.cos(x) * pf.SCALE)
    assert len(runs) == 1
    jitad.grad(pf.scaled, mode="eager")(x)              # another transform object, same key
    eager.value_and_grad(pf.scaled, 0)(x)               # jitad.eager's entry point
    jitad.vjp(pf.scaled, mode="eager")(x)[1](1.0)       # the same (signature, wrt)
    jitad.jvp(pf.scaled, mode="eager")(x, tangents=x)
    assert len(runs) == 1
    g(x.astype(np.float32))                             # another signature
    assert len(runs) == 2
    g(np.ones((2, 2)))                                  # another rank
    assert len(runs) == 3


def test_the_checks_run_again_when_a_global_they_read_is_rebound(monkeypatch):
    runs = _counting(monkeypatch)
    x = np.array([0.1, 0.2, 0.3])
    g = jitad.grad(pf.scaled, mode="eager")
    g(x)
    n = len(runs)
    monkeypatch.setattr(pf, "SCALE", 3.0)               # the constant the front end inlined
    np.testing.assert_allclose(g(x), np.cos(x) * 3.0)
    assert len(runs) == n + 1


def test_eager_per_call_time_did_not_grow():
    """Once checked, a call costs a key and a staleness test: the per-call time of a small
    function with the checks is close to that of the same calls with the checks' lookups
    stubbed out (min of several repeats: robust to a busy machine)."""
    differentiable = importlib.import_module("jitad.differentiable")
    functional = importlib.import_module("jitad.eager.functional")
    x = np.array([0.1, 0.2, 0.3])
    g = eager.grad(pf.small, 0)
    g(x, 0.5)                                           # the first call checks

    def per_call():
        best = float("inf")
        for _ in range(7):
            t = time.perf_counter()
            for _ in range(200):
                g(x, 0.5)
            best = min(best, (time.perf_counter() - t) / 200)
        return best

    checked = per_call()
    key, stale = functional.quick_key, differentiable.Checked.stale
    try:
        functional.quick_key = lambda args: ()          # the memo's key without reading args
        differentiable.Checked.stale = lambda self: False
        g = eager.grad(pf.small, 0)
        g(x, 0.5)
        stubbed = per_call()
    finally:
        functional.quick_key, differentiable.Checked.stale = key, stale
    # loose bounds: a shared 2-core machine's noise stays inside them, while checking again
    # per call (the specialize and check passes: milliseconds) does not
    assert checked < 2.0 * stubbed + 50e-6, (checked, stubbed)
