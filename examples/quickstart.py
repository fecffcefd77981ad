"""jitad quick start: differentiate a function with a data-dependent `while` and an `if`.

Run:  python examples/quickstart.py
"""
import math

import jitad


@jitad.differentiable
def bounce(h, k):
    """Height after a ball dropped from h bounces until it is lower than 0.1.

    Each bounce keeps a fraction k of the height; a bounce above 1.0 also loses air drag.
    The number of bounces depends on the data — a plain Python `while`.
    """
    energy = 0.0
    while h > 0.1:
        if h > 1.0:
            h = k * h - 0.05 * math.sqrt(h)
        else:
            h = k * h
        energy += h * h
    return energy + h


def central_difference(f, args, i, eps=1e-6):
    lo, hi = list(args), list(args)
    lo[i] -= eps
    hi[i] += eps
    return (f(*hi) - f(*lo)) / (2 * eps)


if __name__ == "__main__":
    h0, k = 3.0, 0.7
    value, (d_h, d_k) = jitad.value_and_grad(bounce, wrt=("h", "k"))(h0, k)
    plain = bounce.__wrapped__
    print(f"bounce({h0}, {k}) = {value:.10f}")
    print(f"  d/dh  jitad {d_h: .10f}   finite difference {central_difference(plain, (h0, k), 0): .10f}")
    print(f"  d/dk  jitad {d_k: .10f}   finite difference {central_difference(plain, (h0, k), 1): .10f}")
    print()
    print("The monadic form (jitad.source(bounce, 'monadic')):")
    print(jitad.source(bounce, "monadic"))
    print("The generated adjoint, compiled with Numba (jitad.source(bounce, 'adjoint')):")
    print(jitad.source(bounce, "adjoint"))
