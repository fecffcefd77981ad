"""The Dask client jitad.dask works with, and how a value reaches the tasks.

Takes: an optional `distributed.Client` and values (parameters, constants) tasks need.
Guarantees: `get_client` returns the client given, else Dask's default (the last one made),
else raises a `JitadError` saying how to make one. `send` wraps a value in a `Payload` -- an
object Dask passes through untouched (it never looks inside it for tasks or futures) -- and,
when it holds more than `SCATTER_BYTES` of arrays, scatters it to every worker at once
(`Client.scatter(broadcast=True)`), so n tasks on a worker share one copy and the value is
sent once per worker instead of once per task through the scheduler.
"""
from __future__ import annotations

import numpy as np

from ..errors import JitadError

SCATTER_BYTES = 1 << 16


class Payload:
    """A value travelling to tasks as one object."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __reduce__(self):
        return (Payload, (self.value,))


def get_client(client=None):
    if client is not None:
        return client
    from distributed import default_client
    try:
        return default_client()
    except ValueError:
        raise JitadError("jitad.dask needs a Dask client: make one first (from dask.distributed "
                         "import Client; client = Client(...)) or pass client=") from None


def nbytes(value) -> int:
    """The bytes of the arrays in a value (tuples, lists and dicts followed)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    return 8 if isinstance(value, (int, float, np.generic)) else 0


def send(client, value):
    """`value` as a task argument: a `Payload`, scattered to every worker if it is large."""
    p = Payload(value)
    if nbytes(value) <= SCATTER_BYTES:
        return p
    return client.scatter([p], broadcast=True, hash=False)[0]
