"""`ad.reuse`: a loop adjoint's per-iteration array adjoint is zeroed again in its buffer
(`rt.zeroed`) only when no other name can hold that array.

The rule on hand-written adjoint bodies (element updates, shapes, arithmetic and the runtime's
adding helpers are harmless; an alias, a view, a return, an unknown call are not); gradients
(compiled, against central finite differences) and Hessian-vector products (against finite
differences of the gradient) of loops whose adjoints reuse buffers, with the compiled code
checked to run and to say `rt.zeroed`."""
import ast

import numpy as np
import pytest

import jitad
from jitad.ad.reuse import reusable

from .harness import assert_grads_close, central_fd


def _found(src):
    body = ast.parse(src).body
    return [d for d, _ in reusable(body, lambda name: 1 if name.startswith("d") else None)]


@pytest.mark.parametrize("use, ok", [
    ("d[i] += g", True),                        # an element updated
    ("s = d[i] * 2.0", True),                   # an element read
    ("n = d.shape[0]", True),                   # its shape
    ("e = d * 2.0", True),                      # arithmetic: a new array
    ("rt.add_outer(dW, d, h)", True),           # a runtime helper adding into its first argument
    ("e = rt.vecmat(d, W)", True),              # one making a new array
    ("e = d", False),                           # an alias: e would see the next zeros
    ("e = d[1:]", False),                       # a view
    ("rt.add_into(e, d[:-1])", False),          # a view, even as a helper's argument
    ("ds.append(d)", False),                    # stored
    ("e = f(d)", False),                        # an unknown call may keep it
    ("d += g", False),                          # may become an assignment (first contribution)
])
def test_the_rule(use, ok):
    src = f"d = np.zeros_like(x)\nfor i in range(3):\n    {use}\n"
    assert (_found(src) == ["d"]) is ok


def rnn(W, xs, scale):
    h = np.zeros(W.shape[0])
    s = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + scale * xs[t])
        s = s + (h[0] - 0.3) ** 2
    return s


def sliced(x, w):
    s = 0.0
    for t in range(3):
        u = np.tanh(x * w + t)
        s = s + np.sum(u[1:] * u[:-1])
    return s


def _args():
    rng = np.random.default_rng(3)
    return rng.normal(size=(4, 4)) / 2.0, rng.normal(size=(5, 4)), 0.7


def test_gradients_of_loops_with_reused_adjoints():
    for fn, args in ((rnn, _args()), (sliced, (np.array([0.3, -0.7, 1.1, 0.4]), 0.8))):
        g = jitad.grad(fn, wrt=(0,))
        assert_grads_close(g(*args), central_fd(fn, args, (0,), eps=1e-5), rtol=1e-6, atol=1e-8,
                           label=fn.__name__)
        assert g.specialize(*args).compiled_ran
        assert "rt.zeroed(" in jitad.source(fn, "adjoint", args=args, wrt=0)


def test_hvp_of_a_loop_with_reused_adjoints():
    W, xs, scale = args = _args()
    v = np.random.default_rng(4).normal(size=W.shape)
    hv = jitad.hvp(rnn, wrt=0)
    out = hv(*args, v=v)
    assert hv.specialize(*args, v=v).compiled_ran
    g = jitad.grad(rnn, wrt=0)
    e = 1e-6
    fd = (g(W + e * v, xs, scale) - g(W - e * v, xs, scale)) / (2 * e)
    assert np.allclose(out, fd, rtol=1e-5, atol=1e-7)
    assert "rt.zeroed(" in jitad.source(hv, "adjoint", args=args)
