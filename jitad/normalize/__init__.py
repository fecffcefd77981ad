"""Stage 3 — normalize: the fenced `gast` tree becomes structured A-normal-form IR.

Takes: a fenced `capture.Captured`.
Guarantees (the invariants of the returned `ir.Function`):
  * every operand is an atom; every `Bind` applies one `Primitive` (a table rule or a
    structural one); every name a call refers to has been resolved to a rule or a user function;
  * sugar is gone: `elif`, `+=`, tuple targets, `a if c else b`, `and`/`or` (short-circuit kept,
    as `If`), chained comparisons, `for row in X` (a range loop over `X.shape[0]`), loops
    over `reversed(...)` (the same range loop run backwards);
  * `break`, `continue` and early `return` are gone: they became boolean flags that guard the
    rest of their block and join loop tests, so control flow is purely structured;
  * a counted loop's variable is assigned only by its loop: one whose body assigns it too
    (`if c: i = i + 1`, an inner `for i`) counts with an index of its own and assigns the
    user's name from it first thing in its body (`structure.own_loop_indices`);
  * the body ends with exactly one `Return`; `If`/`While` tests are bool-typed names computed
    right before them and never assigned inside them;
  * temporaries are named after the user's variable they help compute (`x_mul`, `y_sin`) and
    never collide with a user name;
  * a variable is one def-use web (`webs`): a name assigned again with nothing in common with
    its earlier values is another variable (`q_2`, named `q` in messages); a local holding
    a tuple is one variable per position (`tuple_values`);
  * no variable has a name generated code reads as a global (`np`, `math`, `rt`, `range`,
    `bool`, the builtins and primitives the rule templates call, `_`): a user local or
    parameter with such a name is renamed everywhere to a fresh one (`rt` -> `rt_1`), and
    `Function.renamed` maps each new name back to the user's (for messages);
  * a call goes to a user helper only if the callee is a plain Python function of the user's
    code (`is_user_helper`): a library function (NumPy, SciPy, the standard library, any
    installed package) is never transformed; without a rule it is refused at the user's call,
    named as the user spelled it ("np.sort has no derivative rule in jitad ...").
"""
from .anf import normalize, rename_locals  # noqa: F401
from .calls import is_library, is_user_helper  # noqa: F401
from .simplify import eliminate_common_temps, fold_constant_decisions  # noqa: F401
