import numpy as np


def bad_for_numba(v):
    z = np.zeros(np.sum(v))  # a float shape: jitad passes it on, Numba's typing rejects it
    return np.sum(z) + np.sum(v)
