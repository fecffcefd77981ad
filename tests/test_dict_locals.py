"""Local dicts with constant keys (jitad/dict_locals.py): one variable per key, in both modes --
each function's compiled gradient against central finite differences and eager mode (which runs
the dict itself), the compiled path ran, the arguments unchanged; what still cannot work is
refused at the user's line in both modes."""
import numpy as np
import pytest

import jitad

from .test_correctness import check

rng = np.random.default_rng(31)


def display_then_reads(x, W):
    layer = {"W": W, "b": np.tanh(x[:2]), "scale": 0.5}
    h = np.tanh(layer["W"] @ x + layer["b"])
    return layer["scale"] * np.sum(h ** 2)


def built_key_by_key(x, W):
    cache = {}
    cache["z"] = W @ x
    cache["h"] = np.tanh(cache["z"])
    cache["h"] += 0.1 * cache["z"]           # an update of a key
    cache["z"] = cache["z"] * 2.0            # a key written again
    return np.sum(cache["h"] * cache["z"])


def loops_over_items_keys_values(x, W):
    parts = {"lin": W @ x, "sq": x[:2] ** 2}
    parts["sin"] = np.sin(x[:2])
    s = 0.0
    for name, v in parts.items():
        if name == "sq":                     # the key is a constant in each copy: decided
            s = s + 3.0 * np.sum(v)
        else:
            s = s + np.sum(v * v)
    for k in parts:
        s = s + np.sum(parts[k]) * len(parts)
    for v in parts.values():
        s = s + np.max(v)
    for k in parts.keys():
        parts[k] = parts[k] * 0.5            # written through the key target
    return s + np.sum(parts["lin"])


def integer_keys_in_a_loop(x, W):
    # a dict per step of a loop, read back by constant keys (a Python-level record)
    h = x[:2]
    for t in range(3):
        state = {0: np.tanh(W @ x + h), 1: h}
        h = state[0] * 0.5 + state[1] * 0.5
    return np.sum(h ** 2)


def nested_dicts(x, W):
    net = {"enc": {"W": W, "b": x[:2]}, "gain": 2.0}
    enc = net["enc"]
    return net["gain"] * np.sum(np.tanh(enc["W"] @ x + enc["b"]))


def swap_by_display(x, W):
    # a display reads the old values before it binds the new ones
    d = {"a": W @ x, "b": x[:2]}
    d = {"a": d["b"] * 2.0, "b": d["a"]}
    return np.sum(d["a"] * np.sin(d["b"]))


def _layer(p, h):
    return np.tanh(p["W"] @ h + p["b"])


def handed_whole_and_viewed(x, W):
    params = {"W": W[:, :2], "b": x[:2] * 0.5}
    h = x[:2]
    for t in range(3):
        h = _layer(params, h)                # the dict handed whole to a helper
    h2 = _layer({"W": W[:, 1:], "b": np.ones(2)}, x[1:])     # a dict written out as an argument
    extra = {"a": h ** 2, "b": np.sin(h2)}
    return sum(np.sum(v) for v in extra.values()) + len(extra)


def nested_dict_in_a_loop_under_a_test(x, W):
    # the inner dict, split out of the outer one, is made anew in the loop under a test:
    # `enc = net["enc"]` right after is that dict each time round (was refused: "the dict
    # 'net_enc' is assigned once, outside branches")
    s = 0.0
    if x[0] > -5.0:
        for t in range(2):
            net = {"enc": {"W": W * (t + 1.0), "b": x[:2]}, "gain": 0.5}
            enc = net["enc"]
            s = s + net["gain"] * np.sum(np.tanh(enc["W"] @ x + enc["b"]))
    return s


@pytest.mark.parametrize("fn", [display_then_reads, built_key_by_key, loops_over_items_keys_values,
                                integer_keys_in_a_loop, nested_dicts, swap_by_display,
                                handed_whole_and_viewed, nested_dict_in_a_loop_under_a_test],
                         ids=lambda f: f.__name__)
def test_local_dicts_in_both_modes(fn):
    x, W = rng.normal(size=3), rng.normal(size=(2, 3))
    check(fn, (x, W), wrt=(0, 1))


def dict_returned(x):
    d = {"a": x}
    return d


def loop_with_break(x):
    d = {"a": x, "b": 2.0 * x}
    s = 0.0
    for v in d.values():
        s = s + np.sum(v)
        if s > 1.0:
            break
    return s


def computed_key(x):
    d = {"a": x, "b": 2.0 * x}
    k = "a"
    return np.sum(d[k])


@pytest.mark.parametrize("fn", [dict_returned, loop_with_break, computed_key],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["compiled", "eager"])
def test_what_stays_refused_names_the_users_line(fn, mode):
    with pytest.raises(jitad.JitadError) as e:
        jitad.grad(fn, mode=mode)(np.arange(3.0))
    assert "test_dict_locals.py" in str(e.value)
