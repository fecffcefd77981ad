# found by hand (fuzz26, a program for this session's x[np.nonzero(m)]), backend python
# found: crash in both modes, AttributeError 'TupleTy' object has no attribute 'ndim'
#   (typerules.subscript_write): nonzero_index rewrites reads x[np.nonzero(m)] into masks and
#   leaves writes for typeinfer to refuse as a tuple index, but the write rule did not check
#   for a tuple
# fixed: subscript_write refuses a tuple index at the user's line, as the read rule does
#   (docs/language.md lists the writes through index arrays: y[idx], y[rows, cols], y[mask])
# backend: python
# expect: refused
import numpy as np


def f(x, M, w, n):
    y = x.copy()
    y[np.nonzero(x[:2] < 0.0)] = w
    return np.sum(y * x) + np.sum(x[np.nonzero(M[0, :3] > 0.0)])


def fuzz_args():
    x = np.array([-0.1673, -1.104, 0.4585, 0.4473])
    M = np.array([[-0.906, -1.0685, 0.88, 1.0138], [0.8936, 0.0122, -0.8288, 0.8079],
                  [-0.9283, -0.8262, 0.6013, -1.0028]])
    return x, M, 0.6791, 3


WRT = (0, 1, 2)
