# seed: 940575 (size normal, backend python; skipped there: non-finite gradients), reduced by hand
# found: a nan gradient in both modes: np.linalg.norm(x - x, ord=3) at zero -- the p-norm's
#   adjoint (|x| / y) ** (ord - 1) is 0 / 0 there -- where the 2-norm's slope at 0 is 0
#   (docs/language.md); its forward-mode tangent alike, and the same along an axis.
# fixed: the p-norm divides by y + (y == 0.0), as the 2-norm (`primitives/table.py`: norm_p,
#   norm_p_axis; `primitives/tangents.py`)
# backend: python
# second: yes
import math
import numpy as np


def f(x, M, w, n):
    z = M * 0.0
    return (math.tanh(np.linalg.norm(x - x, ord=3)) + np.linalg.norm(x * w, 3) + w * np.linalg.norm(x * 0.0, 1.5)
            + np.sum(np.linalg.norm(z, ord=3, axis=0)) + np.sum(np.linalg.norm(M * z, 4, axis=1)))


def fuzz_args():
    x = np.array([-0.2248, -0.9493, -0.5719, 0.5856])
    M = np.array([[0.4688, -0.5127, 0.8273, 0.4319], [-0.3016, 0.7459, 1.0574, -0.8508], [-0.6281, -0.7249, 0.4782, -1.1673]])
    return x, M, -0.4995, 1


WRT = (0, 1, 2)
