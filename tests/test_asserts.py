"""`assert` statements in differentiated functions (the entry, a nested function, a helper, a
loop): the gradient and Hessian as without them, against finite differences and eager mode;
a false condition raises AssertionError in both modes, compiled with the statement's line.
`raise` of a builtin exception: the same exception, compiled with the statement's line.
`print`, logging and `warnings.warn` calls: left out of compiled code with a warning naming
their lines, run by eager mode; `with np.errstate(...)` / `warnings.catch_warnings()` blocks
are their bodies. String methods of a string argument (`kind.lower() == "l2"`) are decided
when the function is compiled."""
import numpy as np
import pytest

import jitad

from .asserts_funcs import chatty, guarded, logging_chatty, piecewise_or_raise, validated
from .test_correctness import check


x0 = np.array([0.3, 0.5, -0.2])


def test_asserts_keep_the_gradient():
    check(guarded, (x0, 2.0), wrt=(0, 1))


def test_asserts_keep_the_hessian():
    H = jitad.hessian(guarded, wrt=0)(x0, 2.0)
    np.testing.assert_allclose(H, np.diag(-4.0 * np.sin(2.0 * x0) + 2.0), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("args,line", [((x0, -1.0), "assert w > 0"), ((x0 * 100, 2.0), "assert z > -10.0"),
                                       ((x0[:1], 2.0), "assert v.shape[0] > 1")])
def test_a_false_assert_raises_in_both_modes(args, line):
    import inspect
    src = inspect.getsource(inspect.getmodule(guarded)).splitlines()
    lineno = next(k + 1 for k, t in enumerate(src) if t.strip().startswith(line))
    with pytest.raises(AssertionError) as e:
        jitad.grad(guarded, wrt=(0, 1))(*args)
    assert lineno in e.value.args
    with pytest.raises(AssertionError):
        jitad.grad(guarded, wrt=(0, 1), mode="eager")(*args)


def test_prints_are_left_out_of_compiled_code_with_a_warning(capsys):
    import inspect
    src, first = inspect.getsourcelines(chatty)
    lines = [str(first + k) for k, t in enumerate(src) if t.strip().startswith("print(")]
    with pytest.warns(jitad.errors.JitadWarning, match=r"print\(\), .* calls of chatty .*lines "
                      + ", ".join(lines)):
        check(chatty, (x0, 0.5), wrt=(0, 1))
    assert "y is" in capsys.readouterr().out        # eager mode printed


def test_logging_and_warnings_are_left_out_of_compiled_code_with_a_warning():
    with pytest.warns(jitad.errors.JitadWarning, match=r"calls of logging_chatty .*lines "):
        check(logging_chatty, (x0, 0.5), wrt=(0, 1))
    with pytest.warns(UserWarning, match="w is large"):          # eager mode runs them
        jitad.grad(logging_chatty, mode="eager")(x0, 200.0)


def test_raise_of_a_builtin_exception():
    check(validated, (x0, 2.0), wrt=(0, 1))
    for args, exc in (((x0, -1.0), ValueError), ((x0 * 1e7, 2.0), OverflowError)):
        with pytest.raises(exc) as e:
            jitad.grad(validated, wrt=(0, 1))(*args)
        assert isinstance(e.value.args[-1], int)          # the raise statement's line
        with pytest.raises(exc):
            jitad.grad(validated, wrt=(0, 1), mode="eager")(*args)


def test_a_function_ending_in_raise():
    for x in (1.5, -1.5):
        check(piecewise_or_raise, (x, 2.0), wrt=(0, 1))
    for kw in ({}, {"mode": "eager"}):
        with pytest.raises(ValueError):
            jitad.grad(piecewise_or_raise, **kw)(-0.5, 2.0)


def test_errstate_and_catch_warnings_blocks_are_their_bodies():
    from .asserts_funcs import quiet_log_ratio
    check(quiet_log_ratio, (x0, 0.5), wrt=(0, 1), backend="python")



@pytest.mark.parametrize("kind", ["L2", " l2 ", "L1", "huber"])
def test_string_methods_of_a_string_argument_are_decided(kind):
    from .asserts_funcs import penalty_by_name
    check(lambda w: penalty_by_name(w, kind), (x0 + 0.1,), wrt=(0,), backend="python")
