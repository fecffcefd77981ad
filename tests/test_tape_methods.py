"""A vjp's tape lists are pushed and popped by Numba methods of jitad's (`codegen.tape_methods`,
`_runtime_jit._tape_methods`): calls, not a list append and pop lowered inline at every site.
The list is typed as append types it: a C vector and a strided view pushed on one list make a
list of 'A' vectors, the view pushed as itself (no copy). The gradient against central finite
differences and eager mode, compiled by Numba."""
import numpy as np

import jitad
from tests.harness import check_both_modes


def views_on_tape(W, x, n):
    h = x
    g = x * 1.0
    for t in range(n):
        a = np.sin(h) + 0.1 * g                # (the last trip's g read: g is taped, not
        #                                        computed again in the adjoint, `remat`)
        g = np.concatenate((a, a))[::2]        # a strided view: not C-contiguous
        h = np.tanh(W @ g) * a + g
    return np.sum(h * h)


def test_tape_pushes_and_pops_are_method_calls_and_a_view_stays_a_view():
    rng = np.random.default_rng(3)
    W = rng.standard_normal((3, 3)) * 0.5
    x = rng.standard_normal(3)
    check_both_modes(views_on_tape, (W, x, 3), (0, 1))
    comp = jitad.value_and_grad(views_on_tape, wrt=(0, 1)).specialize(W, x, 3)
    vjp = comp.gen.functions[comp.gen.vjp]
    assert ".tape_push(g)" in vjp and ".tape_pop()" in vjp, vjp
    assert ".append(" not in vjp and ".pop()" not in vjp.replace(".tape_pop()", ""), vjp
    (cres,) = getattr(comp.module, comp.gen.vjp).overloads.values()
    lists = {str(t) for v, t in cres.type_annotation.typemap.items() if v.startswith("tape_f8_1d")}
    assert lists == {"list(array(float64, 1d, A))<iv=None>"}, lists


def lists_in_loops(W, x, n):
    h = x
    total = 0.0
    for t in range(n):
        rows = []
        for k in range(2):
            h = np.tanh(W @ h)
            rows.append(h)
            rows.append(np.sin(h))
        total = total + np.sum(np.stack(rows) ** 2)
    return total


def test_the_users_lists_and_their_adjoint_lists_are_pushed_and_popped_by_the_methods():
    """A list the function makes (`rows = []`), saved on a tape per outer trip and popped back
    (`rows = tape.tape_pop()`), and its adjoint list: every append and pop is a method call."""
    rng = np.random.default_rng(4)
    W = rng.standard_normal((3, 3)) * 0.5
    x = rng.standard_normal(3)
    check_both_modes(lists_in_loops, (W, x, 3), (0, 1))
    comp = jitad.value_and_grad(lists_in_loops, wrt=(0, 1)).specialize(W, x, 3)
    vjp = comp.gen.functions[comp.gen.vjp]
    code = "\n".join(ln for ln in vjp.splitlines() if not ln.strip().startswith("#"))
    assert "rows.tape_push(" in code and "rows.tape_pop()" in code, vjp
    assert "d_rows.tape_pop()" in code, vjp
    assert ".append(" not in code and ".pop()" not in code.replace(".tape_pop()", ""), vjp
