"""Held-out corpus #18 (tests/heldout18_funcs.py: the README's whole API on everyday
scientific code -- residual vectors for jacfwd / jacrev / jvp, log-likelihoods and energies for
hessian / hvp, ODE steps and iterations, has_aux metrics, wrt by name, index and tuple --
written with NamedTuple and dataclass parameters, the walrus, `*args` / `**kwargs` helpers,
dicts, module constants, loops with break and early returns). Its findings, fixed in both
modes:
  * a dataclass argument was refused; a NamedTuple's or dataclass's method called in the
    function (`p.loss(x)`, `self.hidden(X)` inside it), a record made in the function
    (`Layer(W, b)`, `Oscillator(k=k)`, `p._replace(W=...)`, `dataclasses.replace(m, ...)`),
    a class constant (`self.MASS`) were refused (`records`, `structs.record`,
    `anf.record_method`); the gradient for a dataclass argument is an object of its class;
  * the walrus was refused (`walrus`: in `if`/`while` tests, values, `and`/`or` operands);
  * a helper's `*args` and `**kwargs`, `f(**opts)` of a dict structure, and `sum(xs)` /
    `np.stack(xs)` of a tuple structure were refused (`capture._star_param_plain`,
    `anf.pass_star`, `anf.sequence_arguments`);
  * a loop over a module tuple of rows of numbers (`for i, j, rest in EDGES`) was refused
    (`structs.iterable_of`).
What stays refused, at its line in both modes: a walrus in a comprehension, `*args` of the
differentiated function, iterating a dataclass object, a dataclass with a `__post_init__`
made inside, `**` of a value that is no dict structure.
Each gradient against central finite differences (and autograd where it runs the function),
both modes, the arguments unchanged; each Jacobian (jacfwd and jacrev, both modes) against
central differences of the function, jvp against the Jacobian; each Hessian against central
differences of the gradient, hvp against it; two compiled by Numba (a record made inside
with methods, `*args`), the rest as generated Python."""
import numpy as np
import pytest

import jitad

from . import heldout18_funcs as hf
from .harness import (check_corpus_case, check_form_refused, check_hessian_and_hvp,
                      check_jacobians_and_jvp)

CASES = hf.cases()
# Numba where the generated code differs in kind: a record's methods as helpers made inside,
# a helper specialized on its *args (a dataclass argument is flattened before the call)
NUMBA = {"oscillator_energy", "star_args_penalty"}
# autograd cannot run these: keyword-only parameters, dict and dataclass parameters, np.where
# on its boxes with a scalar branch, `dataclasses.replace` of boxed fields
NO_AUTOGRAD = {"logistic_nll", "mixture_nll_dict", "mlp_dataclass_loss", "huber_regression",
               "dataclass_replace"}


@pytest.mark.parametrize("fn,args,wrt", CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_corpus_both_modes(fn, args, wrt):
    check_corpus_case(fn, args, wrt, NUMBA, NO_AUTOGRAD)


def test_corpus_is_large_enough():
    names = {c[0] for c in CASES} | {c[0] for c in hf.jacobians()}
    assert len(names) >= 35


JACS = hf.jacobians()


@pytest.mark.parametrize("fn,args,k", JACS, ids=[c[0].__name__ for c in JACS])
def test_jacobians_and_jvp(fn, args, k):
    check_jacobians_and_jvp(fn, args, k)


HESS = [next(c for c in CASES if c[0].__name__ == name) for name in hf.HESSIANS]


@pytest.mark.parametrize("fn,args,wrt", HESS, ids=hf.HESSIANS)
def test_hessians_and_hvp(fn, args, wrt):
    check_hessian_and_hvp(fn, args, wrt)


def _case(name):
    return next(c for c in CASES if c[0].__name__ == name)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_has_aux_metrics(mode):
    """value_and_grad with has_aux: the loss's gradient, the metrics dict as computed."""
    fn, args, _ = _case("logistic_nll")
    w, X, y = args
    f = jitad.differentiable(hf.loss_with_metrics, backend="python") \
        if mode == "compiled" else hf.loss_with_metrics
    (loss, aux), g = jitad.value_and_grad(f, has_aux=True, mode=mode)(w, X, y)
    ref_loss, ref_aux = hf.loss_with_metrics(w, X, y)
    assert abs(loss - ref_loss) < 1e-12 and set(aux) == {"acc", "mean_p"}
    assert abs(aux["acc"] - ref_aux["acc"]) < 1e-12
    assert abs(aux["mean_p"] - ref_aux["mean_p"]) < 1e-12
    eps = 1e-6
    fd = np.array([(hf.loss_with_metrics(w + eps * e, X, y)[0]
                    - hf.loss_with_metrics(w - eps * e, X, y)[0]) / (2 * eps)
                   for e in np.eye(w.size)])
    assert np.allclose(g, fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_wrt_by_name_index_and_tuple(mode):
    """The same gradients by names, indices and a mixed tuple; one name gives one array."""
    fn, args, _ = _case("kalman_loglik")
    f = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
    by_name = jitad.grad(f, wrt=("log_q", "log_r"), mode=mode)(*args)
    by_index = jitad.grad(f, wrt=(0, 1), mode=mode)(*args)
    mixed = jitad.grad(f, wrt=("log_q", 1), mode=mode)(*args)
    one = jitad.grad(f, wrt="log_r", mode=mode)(*args)
    assert np.allclose(by_name, by_index) and np.allclose(mixed, by_index)
    assert np.isclose(one, by_index[1])


@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_dataclass_gradient_is_a_dataclass(mode):
    """grad wrt a dataclass argument: an object of its class holding the fields' gradients,
    the argument itself unchanged; wrt a NamedTuple: a NamedTuple."""
    fn, args, _ = _case("mlp_dataclass_loss")
    f = jitad.differentiable(fn, backend="python") if mode == "compiled" else fn
    g = jitad.grad(f, mode=mode)(*args)
    assert type(g) is hf.MLP and g is not args[0]
    assert g.W1.shape == args[0].W1.shape and g.w2.shape == args[0].w2.shape
    p = hf.Layer(np.ones((3, 2)) * 0.1, np.zeros(2))
    X = np.arange(6.0).reshape(2, 3) / 6

    def nt_loss(layer, X):
        return np.sum(layer.__call__(X) ** 2)
    h = nt_loss if mode == "eager" else jitad.differentiable(nt_loss, backend="python")
    gl = jitad.grad(h, mode=mode)(p, X)
    assert type(gl) is hf.Layer and gl.W.shape == (3, 2)


def test_second_order_through_records_and_walrus():
    """grad(grad(f)) through a record's methods (made inside) and a walrus-stopped Newton
    loop, against central differences of the first derivative."""
    eps = 1e-5
    osc = jitad.differentiable(hf.oscillator_energy, backend="python")
    d2 = jitad.grad(jitad.grad(osc, wrt=0), wrt=0)(0.7, -0.4, 1.5)
    g1 = jitad.grad(hf.oscillator_energy, wrt=0, mode="eager")
    fd = (g1(0.7 + eps, -0.4, 1.5) - g1(0.7 - eps, -0.4, 1.5)) / (2 * eps)
    assert abs(d2 - fd) < 1e-6 * max(1.0, abs(fd))
    cb = jitad.differentiable(hf.walrus_newton_cbrt, backend="python")
    d2 = jitad.grad(jitad.grad(cb))(2.5)
    assert abs(d2 - (-2.0 / 9.0) * 2.5 ** (-5.0 / 3.0)) < 1e-8


FORMS = hf.forms()


@pytest.mark.parametrize("fn,args,wrt", FORMS,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(FORMS)])
def test_forms(fn, args, wrt):
    """The walrus where Python evaluates it (an operand before it, `or`, a conditional, a
    `while` test with `continue`), `*args` before keyword-only parameters and into np.stack,
    `**kwargs` read by key and `.get`, `**` of a dict argument, zip of an array and a tuple."""
    check_corpus_case(fn, args, wrt, (), {"star_then_keyword_only", "kwargs_get",
                                          "dict_argument_splat", "record_in_unrolled_loop"})


def test_zip_with_a_shorter_array_is_an_error():
    """zip(x, (a, b, c)) with x shorter than the tuple: a ValueError, never rows past x's end."""
    f = jitad.differentiable(hf.zip_array_with_constant_tuple, backend="python")
    with pytest.raises(ValueError, match="shorter array"):
        jitad.grad(f)(np.ones(2))


REFUSED = hf.refused_forms()


@pytest.mark.parametrize("fn,args", REFUSED, ids=[c[0].__name__ for c in REFUSED])
def test_refused_forms(fn, args):
    check_form_refused(fn, args, hf.__file__)
