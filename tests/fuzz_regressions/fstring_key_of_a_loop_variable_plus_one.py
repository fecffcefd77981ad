# found by hand (fuzz26, a program for this session's f-string dict keys), backend python
# found: refused in both modes as "unsupported construct: f-string", where docs/language.md
#   says keys made by f-strings in a loop over a constant range are constants: the loop was
#   written out, but a copy's key f"r{0 + 1}" was not folded (only f-strings formatting a
#   constant were), and fence refused it.
# fixed: fstring_keys folds formatted values that are integer + - * // of constants and global
#   integers, as it reads range's bounds
# backend: python
# second: yes
import numpy as np

K = 2


def f(x, M, w, n):
    d = {}
    for i in range(3):
        d[f"r{i}"] = np.tanh(M[i] * w)
    for k in range(K):
        d[f"r{k}"] = d[f"r{k + 1}"] * x + d[f"r{K - k}"]
    return np.sum(d["r0"]) + np.sum(d["r1"] * d["r2"])


def fuzz_args():
    x = np.array([-0.1673, -1.104, 0.4585, 0.4473])
    M = np.array([[-0.906, -1.0685, 0.88, 1.0138], [0.8936, 0.0122, -0.8288, 0.8079],
                  [-0.9283, -0.8262, 0.6013, -1.0028]])
    return x, M, 0.6791, 3


WRT = (0, 1, 2)
