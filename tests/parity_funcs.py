"""Functions for tests/test_parity.py: eager mode ran each of these (Python does) until it made
compiled mode's checks before running a function; compiled mode refuses them, so both modes now
refuse them with one error. The offending line carries `# ERR: <what the message names>`.
The corpora of refusals elsewhere (tests/error_funcs.py, ...) hold the rest."""
import numpy as np

SCALE = 2.0


def ufunc_method_on_data(x, c):
    return x * np.subtract.reduce(c)  # ERR: np.subtract.reduce


def sorted_in_place(x, c):
    m = c.copy()
    m.partition(1)  # ERR: expression statements
    return x * m[0]


def linspace_with_retstep(a):
    return np.sum(np.linspace(a, 1.5, 4, retstep=True)[0] ** 2)  # ERR: retstep=


def rank_changes_in_a_loop(x, n):
    y = x * 2.0
    for k in range(n):
        y = np.sum(y)  # ERR: keep one rank
    return np.sum(y)


def write_through_a_row_view(x):
    B = np.outer(x, x)
    B[1][2] = x[0]  # ERR: only `name[index] = value` writes
    return np.sum(B)


def update_of_an_argument_in_a_helper(x, v):
    return x * _add_in_place(v, x)


def _add_in_place(v, x):
    v += x  # ERR: argument
    return np.sum(v)


def scaled(x):
    return np.sum(np.sin(x)) * SCALE


def small(x, w):
    return np.sum(np.tanh(x * w))
