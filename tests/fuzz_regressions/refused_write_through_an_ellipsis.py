# seed: - (found while the generator learned indices after `...`: "ellipsis")
# found: crash in compiled mode only: `S[..., 1] = v` passed the front end with `...` taken
#   for an index on axis 0 (the generated bounds check compared Ellipsis with an int: an
#   internal TypeError), while eager mode ran it.
# fixed: a write through an index with `...` is refused at the user's line in both modes
#   (`normalize.anf.subscript_parts`), as docs/language.md says; reads through `...` are
#   supported (`new_axes`).
# expect: refused
# backend: python
import numpy as np


def f(x, M, w, n):
    S = M * w
    S[..., 1] = x[:3]
    return np.sum(S ** 2) + np.sum(M[..., 1] * x[:3])


def fuzz_args():
    x = np.array([0.31, -0.72, 0.55, 1.03])
    M = np.array([[0.2, -0.5, 0.7, 0.11], [-0.33, 0.45, 0.9, -1.1], [0.6, 0.05, -0.8, 0.37]])
    return x, M, 0.83, 2


WRT = (0, 1, 2)
