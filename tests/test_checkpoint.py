"""Checkpointed loops (`jitad/ad/recompute.py`): a loop of numbers pushes the values each
iteration starts from, and its adjoint computes the iteration's values again. Each function
here takes that path (asserted on the generated adjoint: the loop pushes its checkpoint and
nothing else) and one corner of it; gradients against central differences and eager mode
(the compiled path ran), Hessians and Hessian-vector products against differences of the
gradient."""
import math
import re

import numpy as np
import pytest

import jitad
from tests.harness import check_both_modes, check_hessian, fd_hessian
# `continue` and `break` in a while loop whose state is returned: test_extra's case, which
# returned 1.08 for 4.24
from tests.extra_funcs import ex_while_with_continue_and_break as exits
# a helper of tuple results called twice in a loop, one result dropped each time: test_extra's
# case, which returned 0.0 (the state s, returned)
from tests.extra_funcs import ex_helper_in_loop as helper_pairs


def ode(c, vx, vy):
    """An adaptive step: a branch on the error, the state carried, temporaries per step."""
    h, x, y = 0.1, 0.0, 0.0
    while y >= 0.0:
        v = math.sqrt(vx * vx + vy * vy)
        ax = -c * v * vx
        ay = -9.81 - c * v * vy
        vx2 = vx + h * ax
        vy2 = vy + h * ay
        err = 0.5 * h * math.sqrt((vx2 - vx) ** 2 + (vy2 - vy) ** 2) + 1e-300
        if err <= 1e-2:
            x = x + 0.5 * h * (vx + vx2)
            y = y + 0.5 * h * (vy + vy2)
            vx = vx2
            vy = vy2
        h = h * min(2.0, max(0.2, 0.9 * math.sqrt(1e-2 / err)))
    return x


def before(x, w):
    """`a` is read before the loop (by `r`'s adjoint) and is a temporary in it: the loop's
    adjoint must leave it as it was before the loop."""
    a = x * 2.0
    r = a * a
    i = 0
    while i < 3:
        a = w * x
        b = math.sin(a)
        x = x + a * b
        i += 1
    return r + x


def nested(x, w):
    """A while loop in a for loop: `p`, assigned in the inner loop, is read after it in each
    outer iteration."""
    s = 0.0
    for k in range(3):
        y = x + 0.1 * k
        p = 0.0
        while y < 5.0:
            p = math.sin(y) * w
            q = p * p
            y = y + q * 0.5 + 0.3
        s = s + p * p + y * w
    return s


def twice(x, w):
    """A variable assigned twice in the body, and the carried state read after its own
    update (`y` reads the new `x`)."""
    y = 1.0
    for i in range(4):
        t = x * x
        u = math.tanh(t * w)
        t = t + u
        x = t * 0.5
        y = y * x + math.cos(x)
    return y * x


def counter(x, w):
    """An integer carried with the floats (its value enters the arithmetic)."""
    n = 0
    while x < 4.0:
        n = n + 1
        x = x * w + 0.1 * n + math.exp(-x)
    return x * n


def returned_state(x, w):
    """The returned `s` is state no adjoint reads (`q`, `r` are computed again from it): the
    adjoint loop leaves s as its first iteration's recomputation made it, so the value
    returned is the one the forward sweep ended with, kept before the adjoint (it returned
    the loop's starting value)."""
    s = 0.5
    for i in range(4):
        q = s + x
        r = math.sin(q)
        s = s + w * r * q
    return s


def overwritten_after(x, w):
    """The recomputation reads `w`, which the forward overwrites after the loop: the loop's
    adjoint must see w's value of the loop's time (fuzz seed 920026 with the "numloop"
    extension; it read the last w and gave a wrong d/dx)."""
    c = -0.4
    for j in range(2):
        t = c + x
        t1 = math.sin(t * math.tanh(math.exp(w)))
        c = 0.6 * c + 0.4 * math.tanh(t1)
    w += math.tanh(c)
    return w


CASES = [(ode, (0.05, 20.0, 20.0), (0, 1, 2)), (before, (0.7, 1.3), (0, 1)),
         (nested, (0.5, 1.2), (0, 1)), (twice, (0.9, 0.8), (0, 1)), (counter, (0.5, 1.3), (0, 1)),
         (returned_state, (0.3, 0.7), (0, 1)), (exits, (0.9, 1.2), (0, 1)),
         (helper_pairs, (np.array([0.3, -0.5, 0.8, 1.1]), 0.5), (0, 1)),
         (overwritten_after, (0.3, 0.9), (0, 1))]
IDS = [c[0].__name__ for c in CASES]


def _loop_pushes(src):
    """Tape pushes inside the forward sweep's loops (the lines `tape_x[top_x] = ...` indented
    past the function's body level, of any tape), before the adjoint."""
    forward = src.split("# adjoint")[0]
    return [ln.strip() for ln in forward.splitlines()
            if ln.startswith("        ") and re.match(r"tape_\w+\[top_\w+\] = ", ln.strip())]


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=IDS)
def test_checkpointed_gradient(fn, args, wrt):
    check_both_modes(fn, args, wrt)
    src = jitad.source(fn, "adjoint", args=args, wrt=wrt)
    pushes = _loop_pushes(src)
    assert pushes, src
    # the loop's checkpoint only: one push per carried variable, no temporary
    pushed = {p.split("=", 1)[1].strip() for p in pushes}
    assert not pushed & {"v", "ax", "ay", "vx2", "vy2", "err", "b", "q", "u"}, pushed


def test_ode_checkpoint_is_its_state():
    src = jitad.source(ode, "adjoint", args=(0.05, 20.0, 20.0), wrt=(0, 1, 2))
    assert sorted(p.split("=", 1)[1].strip() for p in _loop_pushes(src)) == ["h", "vx", "vy"]
    assert "tape_b" not in src          # the branch test is computed again, never taped


@pytest.mark.parametrize("fn,args,wrt", CASES, ids=IDS)
def test_checkpointed_hessian(fn, args, wrt):
    check_hessian(fn, args, wrt, backend="python")


@pytest.mark.parametrize("fn,args,wrt", CASES[:2], ids=IDS[:2])
def test_checkpointed_hvp_compiled(fn, args, wrt):
    v = tuple(0.3 + 0.2 * k for k in range(len(wrt)))
    hv = jitad.hvp(fn, wrt=wrt)
    got = hv(*args, v=v)
    assert hv.specialize(*args, v=v).compiled_ran
    H = fd_hessian(jitad.grad(fn, wrt=wrt, mode="eager"), args, wrt)
    want = [sum(float(H[a][b]) * v[b] for b in range(len(wrt))) for a in range(len(wrt))]
    scale = max(1.0, max(abs(w) for w in want))
    assert max(abs(g - w) for g, w in zip(got, want)) / scale < 1e-5, (got, want)


def test_checkpointed_jacrev():
    """jacrev runs the adjoint sweep once per output on one forward: the checkpoint's pops
    must leave the tape for the next sweep."""
    def f(x, w):
        a = x[0]
        b = x[1]
        while a < 3.0:
            t = a * w
            a = a + math.sin(t) * 0.3 + 0.2
            b = b * math.cos(t)
        return np.array([a * b, b + a])
    args = (np.array([0.5, 1.5]), 0.9)
    assert _loop_pushes(jitad.source(f, "adjoint", args=args, wrt=0))
    J = jitad.jacrev(f, wrt=0)(*args)
    Jf = jitad.jacfwd(f, wrt=0)(*args)
    assert np.allclose(J, Jf, rtol=1e-10, atol=1e-12)
