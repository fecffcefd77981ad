# seed: - (np.take's forms checked one by one while the generator learned them: "take")
# found: crashes in both modes on indices written out: np.take(x, [3, 0, 1]) raised an
#   internal KeyError (the prelude's definition took the list as a tuple argument, refused
#   it, and the lookup re-raising that at the user's call did not know a definition given a
#   structure); np.take(M, (0, 2), axis=0) an internal ValueError (the tuple read as two
#   indices); np.take(x, (3, 0)) an IndexError in eager mode.
# fixed: indices written out (a list or tuple, nested too) are one integer array, with or
#   without an axis (`normalize.library.take_along`; eager mode: `prelude.eager_functions`);
#   `typeinfer.at_the_call` names a specialized definition's NumPy function.
# second: yes
# backend: python
import numpy as np


def f(x, M, w, n):
    a = np.sum(np.take(x * w, [3, 0, 1]))
    b = np.sum(np.take(M, (0, 2), axis=0) * x)
    c = np.sum(np.take(M * w, (1, 3), axis=1) * x[:2])
    d = np.sum(np.take(x, (3, 0)) ** 2)
    e = np.sum(np.take(np.tanh(M), [[0, 1], [2, 3]], axis=1))
    g = np.sum(np.take(M, [5, 0, 11]) * w)
    return a + b + c + d + e + g


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
