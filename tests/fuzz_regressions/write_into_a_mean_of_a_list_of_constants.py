# found: fuzz seed 950116 (python backend): one mode only (compiled ran, eager refused
#   np.asarray()): `u2 = np.mean(hs0, axis=0)` of a list of arrays made from constants, then a
#   write of a differentiated value into u2.  Eager mode gave the reduction the list as it was
#   (nothing in it had a gradient), so the result was a plain ndarray; a write of a Var into it
#   was refused, and `u2[1] = w` (an element) crashed with NumPy's ValueError.
# fixed: eager stacks a list a reduction reads into a Var as np.array([...]) does
#   (`eager.ops._lists`); a module's array is a Var without grad too (`_Patcher.replace`)
# expect: ok
# backend: python
import numpy as np

G = np.linspace(0.5, 1.0, 4)


def f(x, M, w, n):
    hs0 = [np.tanh(np.ones(4)), np.ones(4) * 0.5]
    u2 = np.mean(hs0, axis=0) + 0.0
    u2[u2 > 0.6] = w * 2.0
    u3 = np.mean(hs0, axis=0)
    u3[1] = w
    g = G * 2.0
    g[n] = np.sum(x) * w
    return np.sum(u2 * x) + np.sum(u3 * np.sin(x)) + np.sum(g * M[0])


def fuzz_args():
    x = np.array([0.1272, -1.0463, 0.4907, -1.0497])
    M = np.array([[1.0418, -0.0781, -0.1463, -0.4997], [0.6784, -0.6279, -1.0179, -0.9758],
                  [1.0256, -0.8274, 0.3123, 0.816]])
    return x, M, -0.462, 2


WRT = (0, 1, 2)
