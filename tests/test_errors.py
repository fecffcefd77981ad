"""Every unsupported construct gives a jitad error at the user's file, line and construct,
with the source line and a caret — never an internal traceback and never a wrong gradient."""
import inspect
import re

import numpy as np
import pytest

import jitad
from jitad.errors import JitadError

from . import error_funcs as ef
from .harness import error_marker

FILE = inspect.getsourcefile(ef)
SOURCE = open(FILE).read().splitlines()




ARGS = {
    "x": 0.5, "n": 3, "k": 0, "v": np.array([0.5, -1.0, 2.0]),
}

CASES = [f for name, f in vars(ef).items()
         if inspect.isfunction(f) and f.__module__ == ef.__name__ and f is not ef.vector_output]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_unsupported_construct_is_reported_at_the_users_line(fn):
    line, expected = error_marker(fn)
    params = list(inspect.signature(fn).parameters)
    args = tuple(ARGS[p] for p in params if p in ARGS)
    with pytest.raises(JitadError) as info:
        jitad.grad(fn)(*args)
    err = info.value
    text = str(err)
    assert expected in text, text
    assert err.loc is not None, text
    assert err.loc.filename == FILE
    assert err.loc.line == line, (err.loc.line, line, text)
    assert f'File "{FILE}", line {line}' in text
    # the offending source line and a caret under it
    assert SOURCE[line - 1].strip() in text
    assert re.search(r"\n\s*\^+\s*$", text), text
    assert "Traceback" not in text


def test_caret_points_at_the_construct():
    with pytest.raises(JitadError) as info:
        jitad.grad(ef.uses_lambda)(1.0)
    lines = str(info.value).splitlines()
    src, caret = lines[-2], lines[-1]
    start = caret.index("^")
    assert src[start:].startswith("lambda")


def test_non_scalar_output_under_grad_points_to_vjp():
    with pytest.raises(JitadError, match="vjp"):
        jitad.grad(ef.vector_output)(0.5, np.ones(3))


def test_grad_wrt_an_int_argument_is_an_error_not_a_zero():
    def f(x, n):
        return x * n
    with pytest.raises(jitad.NotDifferentiableError, match="float"):
        jitad.grad(f, wrt=1)(0.5, 3)


def test_wrt_by_unknown_name():
    def f(x, w):
        return x * w
    with pytest.raises(JitadError, match="no parameter named 'z'"):
        jitad.grad(f, wrt="z")


def test_numba_typing_error_is_reported_at_the_users_line():
    # int(x) on an array type-checks in jitad's rules but not in Numba: the error must point
    # at the user's line, not at the generated file
    from . import numba_error_funcs as nf
    line = inspect.getsourcelines(nf.bad_for_numba)[1] + 1
    with pytest.raises(JitadError) as info:
        jitad.grad(nf.bad_for_numba)(np.ones(3))
    assert info.value.loc is not None and info.value.loc.line == line, str(info.value)
    assert "python" in str(info.value)
