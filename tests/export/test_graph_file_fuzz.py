"""A bounded fuzz of the graph file and meta graph loaders: mutated files (with their
checksums recomputed, so the deeper checks are reached) either load or raise a
``tf.errors`` class, never TypeError, KeyError, AttributeError, RecursionError ..."""

from __future__ import annotations

import copy
import json
import os
import random

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import OpError
from staticgraph.export.graph_file import graph_file_paths, load_graph_from_bytes
from staticgraph.graphlib.graph_def_format import content_digest

CASES = int(os.environ.get("STATICGRAPH_FUZZ_CASES", "300"))

_ODD_VALUES = [None, True, False, 0, -1, 1, 2**31, -(2**63) - 1, 2**64, 10**30, 1e308, -0.0,
               0.5, "", "x", "x:0", "x:999999", "^x", "é\u202e\U0001f600", "\x00", "a" * 5000,
               [], {}, [None], [[]], {"": None}, {"i": 1}, {"list": [{"i": 1}]},
               {"array": {"dtype": "float32", "shape": [-1], "b64": ""}},
               {"array": {"dtype": "float32", "shape": [2**40, 2**40], "b64": ""}},
               {"array": {"dtype": "int32", "shape": [0, 2**40], "b64": ""}},
               {"array": {"dtype": "bool", "shape": [1], "b64": "Ag=="}},
               {"scalar": {"dtype": "string", "shape": [], "items": [{"s": "a"}]}},
               {"shape": [None, -3]}, {"shape": [2**41]}, {"dtype": "resource"},
               {"dtype": "float32"}, {"f": 10**400}, {"f": "nan"}, {"tuple": []},
               {"dict": {"a": {"b": True}}}, {"variable": {}}, {"tensor": 5}]


def _model():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        big = tf.constant(np.linspace(0, 1, 4 * 300, dtype=np.float32).reshape(4, 300),
                          name="big")
        with tf.variable_scope("layer"):
            w = tf.get_variable("w", [300, 2])
        v = tf.Variable(tf.zeros([2]), name="v")
        y = tf.reshape(tf.matmul(tf.matmul(x, big), w) + v, tf.stack([tf.shape(x)[0], 2]))
        with tf.control_dependencies([y.op]):
            out = tf.identity(tf.nn.relu(y), name="out")
        tf.add_to_collection("outputs", out)
        tf.add_to_collection("notes", "note")
        tf.add_to_collection("numbers", 3)
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(out))
    return g


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("fuzz") / "m.json")
    tf.export.save_graph(_model(), path)
    with open(path, "rb") as f:
        text = f.read()
    with open(graph_file_paths(path)[1], "rb") as f:
        side = f.read()
    return text, side


def _with_checksum(data) -> bytes:
    body = {k: v for k, v in data.items() if k != "sha256"}
    try:
        body["sha256"] = content_digest(body)
    except (ValueError, TypeError):    # a value json cannot write (e.g. not finite)
        pass
    return json.dumps(body).encode()


def _paths(value, prefix=()):
    """Every (path, value) inside parsed JSON."""
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


def _names(data):
    """Op and tensor names of a description: swapping references between them reaches
    the checks of what the names point to."""
    ops = [op["name"] for op in (data["graph_def"] if "graph_def" in data else data)["ops"]]
    return ops + [f"{n}:{i}" for n in ops for i in range(2)]


def _mutate(data, rng):
    names = _names(data)
    data = copy.deepcopy(data)
    paths = [p for p, _ in _paths(data) if p]
    for _ in range(rng.randint(1, 3)):
        parent = data
        *route, key = rng.choice(paths)
        try:
            for step in route:
                parent = parent[step]
            old = parent[key]
        except (KeyError, IndexError, TypeError):
            continue                                  # an earlier mutation moved it
        action = rng.random()
        if isinstance(old, str) and action < 0.4:
            parent[key] = rng.choice(names)           # another op's or tensor's name
        elif isinstance(old, int) and not isinstance(old, bool) and action < 0.4:
            parent[key] = rng.choice([-old, old + 1, old * 2**40])
        elif action < 0.75:
            parent[key] = copy.deepcopy(rng.choice(_ODD_VALUES))
        elif action < 0.9:
            del parent[key]
        elif isinstance(parent, list):
            parent.insert(key, copy.deepcopy(old))   # duplicate an entry
    return data


def _check_loads_or_op_error(text, side, case):
    try:
        g = load_graph_from_bytes(text, side)
    except OpError:
        return False
    except Exception as exc:   # anything else is a bug: report the case
        raise AssertionError(f"case {case}: {type(exc).__name__}: {exc}\n"
                             f"{text[:3000]!r}") from exc
    with g.as_default():   # what a loaded graph is used for must work too
        tf.global_variables_initializer()
        tf.trainable_variables()
    return True


def test_structural_mutations_with_valid_checksums(files):
    text, side = files
    data = json.loads(text)
    rng = random.Random(7)
    loaded = 0
    for case in range(CASES):
        loaded += _check_loads_or_op_error(_with_checksum(_mutate(data, rng)), side, case)
    assert loaded < CASES        # most mutations are refused ...
    assert _check_loads_or_op_error(text, side, "original")   # ... the original loads


def test_byte_flips_with_valid_checksums(files):
    text, side = files
    rng = random.Random(11)
    reached = 0
    for case in range(CASES):
        bad = bytearray(text)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(bad))
            bad[i] = rng.choice(b'0123456789-.eE"{}[],:\\ az\xff\x00')
        try:
            data = json.loads(bytes(bad))
        except ValueError:
            data = None
        if isinstance(data, dict):
            bad = _with_checksum(data)
            reached += 1
        _check_loads_or_op_error(bytes(bad), side, case)
    assert reached > CASES // 4


def test_meta_graph_mutations(tmp_path):
    path = str(tmp_path / "m.meta")
    with _model().as_default():
        tf.train.export_meta_graph(path)
    with open(path, "rb") as f:
        data = json.loads(f.read())
    rng = random.Random(5)
    for case in range(CASES // 3):
        with open(path, "wb") as f:
            f.write(_with_checksum(_mutate(data, rng)))
        with tf.Graph().as_default():
            try:
                tf.train.import_meta_graph(path)
            except OpError:
                pass
            except Exception as exc:
                raise AssertionError(f"case {case}: {type(exc).__name__}: {exc}") from exc
