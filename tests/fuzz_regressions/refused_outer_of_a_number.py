# seed: 260095 (size normal, --second), a side product of minimizing it
# expect: refused
# backend: python
# found: compiled mode crashed in matmul ("Input operand 1 does not have enough dimensions")
#   while eager ran, on np.outer(u, w) with w a number (NumPy flattens it to a vector of one;
#   a matrix operand likewise).  jitad's adjoints of np.outer are those of two vectors.
#   Checked without Numba: the refusal is in the front end.
# fixed: a35a841 (np.outer takes two vectors: anything else is refused at its line, both modes)
import numpy as np


def f(x, M, w, n):
    return np.sum(np.sin(np.outer(x[1:], w)))


def fuzz_args():
    x = np.array([0.2027, -0.4617, -0.132, 0.6331])
    M = np.array([[-0.739, 0.8079, 0.7692, 0.3104], [0.6974, -0.6429, 0.2977, -0.3414],
                  [-0.5574, -1.0945, -0.2807, -0.0844]])
    return x, M, 0.6872, 2


WRT = (0, 1, 2)
