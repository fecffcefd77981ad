"""A user primitive (a fused, numerically stable log-sigmoid) and a loss using it."""
import math

import numpy as np

import jitad


@jitad.primitive(x="g / (1.0 + math.exp(x))", kind="float")
def logsigmoid(x):
    if x >= 0.0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def bpr_stable(U, V, u, i, j):
    x = np.dot(U[u], V[i]) - np.dot(U[u], V[j])
    return -logsigmoid(x)


def uses_plugin_rule(x):
    return softsign(x) * x  # noqa: F821  (softsign comes from the test plugin's globals)
