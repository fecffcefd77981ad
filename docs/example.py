"""The example docs/how-it-works.md follows through every stage (docs/build.py runs it)."""
import math


def glide(x, w):
    """A glider loses height until it reaches the ground; above 2.0 it also gets lift."""
    t = 0.0
    while x > 0.5:
        if x > 2.0:
            x = x * w + 0.1 * math.sin(x)
        else:
            x = x * w
        t = t + x
    return t
