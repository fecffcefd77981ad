# seed: 1022 (size normal), hand-reduced
# backend: python
# found: eager raises TypeError (compiled runs and is right): the rule of math.fabs computes
#   (x > 0) - (x < 0), which for a NumPy float64 (an element x[0]) subtracts two np.bool_
#   ("numpy boolean subtract, the `-` operator, is not supported").
# fixed: passes at 1d5103f (the eager rework of 8f57979)
import math

import numpy as np


def f(x):
    return math.fabs(x[0])


def fuzz_args():
    return (np.array([0.5, -0.25]),)


WRT = (0,)
