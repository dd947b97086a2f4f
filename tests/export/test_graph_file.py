"""save_graph / load_graph: round trips of real graphs, and hostile or corrupted files."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import OpError
from staticgraph.export.graph_file import graph_file_paths, load_graph_from_bytes


def _sidecars(path):
    """The sidecar files of the graph file ``path``."""
    return graph_file_paths(path)[1:]


def _sidecar(path):
    """The one sidecar of the graph file ``path``."""
    sidecars = _sidecars(path)
    assert len(sidecars) == 1, sidecars
    return sidecars[0]


def _model():
    """Variables, scopes, control deps, devices, unknown dims, big/small consts, seeded rng."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        big = tf.constant(np.linspace(-1, 1, 4 * 300, dtype=np.float32).reshape(4, 300),
                          name="big")                      # 4800 bytes: sidecar
        with tf.variable_scope("layer1"), tf.device("/cpu:0"):
            w = tf.get_variable("w", [300, 3], initializer=tf.random_normal_initializer(seed=3))
            b = tf.Variable(tf.zeros([3]), name="b")
        with tf.name_scope("model"):
            h = tf.matmul(tf.matmul(x, big), w) + b
            noise = tf.random_uniform(tf.shape(h), maxval=0.01)
            with tf.control_dependencies([tf.assert_rank(h, 2) if hasattr(tf, "assert_rank")
                                          else tf.no_op()]):
                logits = tf.identity(h + noise, name="logits")
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits), name="loss")
        step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
        tf.add_to_collection("train_op", train)
        tf.add_to_collection("loss", loss)
    return g


FEED = {"x:0": np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32),
        "labels:0": np.array([0, 1, 2, 1, 0])}


def _feed(g):
    return {g.get_tensor_by_name(k): v for k, v in FEED.items()}


def _train(g, steps=3):
    with g.as_default(), tf.Session(graph=g) as s:
        s.run(tf.global_variables_initializer())
        train = g.get_collection("train_op")[0]
        loss = g.get_collection("loss")[0]
        out = [s.run([loss, train], _feed(g))[0] for _ in range(steps)]
        w = g.get_collection("trainable_variables")[0]
        return out, s.run(w), s.run(g.get_tensor_by_name("model/logits:0"), _feed(g))


def test_roundtrip_model_trains_identically(tmp_path):
    g = _model()
    path = str(tmp_path / "model.json")
    tf.export.save_graph(g, path)
    assert os.path.exists(_sidecar(path))
    g2 = tf.export.load_graph(path)
    assert [op.name for op in g2.get_operations()] == [op.name for op in g.get_operations()]
    for a, b in zip(g.get_operations(), g2.get_operations()):
        assert (a.type, a.device, a.traceback) == (b.type, b.device, b.traceback)
        assert [c.name for c in a.control_inputs] == [c.name for c in b.control_inputs]
        assert [t.shape.raw for t in a.outputs] == [t.shape.raw for t in b.outputs]
    assert g2.get_tensor_by_name("x:0").shape.raw == (None, 4)
    assert g2.seed == 7
    vars1, vars2 = g.get_collection("variables"), g2.get_collection("variables")
    assert [v.name for v in vars1] == [v.name for v in vars2]
    assert all(isinstance(v, tf.Variable) for v in vars2)
    assert [v.trainable for v in vars1] == [v.trainable for v in vars2]
    assert g2.get_collection("global_step")[0].name == "global_step:0"
    loss1, w1, logits1 = _train(g)
    loss2, w2, logits2 = _train(g2)
    np.testing.assert_array_equal(loss1, loss2)        # same seeded streams, same updates
    np.testing.assert_array_equal(w1, w2)
    np.testing.assert_array_equal(logits1, logits2)
    assert loss2[-1] < loss2[0]                          # the loaded training graph trains


def test_gradients_on_loaded_graph_match(tmp_path):
    g = _model()
    path = str(tmp_path / "model.json")
    tf.export.save_graph(g, path)
    g2 = tf.export.load_graph(path)
    results = []
    for graph in (g, g2):
        with graph.as_default():
            loss = graph.get_tensor_by_name("loss:0")
            wrt = [graph.get_tensor_by_name("x:0")] + [v for v in tf.trainable_variables()]
            grads = tf.gradients(loss, wrt)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                results.append(s.run(grads, _feed(graph)))
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_variable_from_loaded_graph_behaves_like_a_variable(tmp_path):
    g = tf.Graph()
    with g.as_default():
        tf.Variable([1.0, 2.0], name="v")
    path = str(tmp_path / "v.json")
    tf.export.save_graph(g, path)
    assert graph_file_paths(path) == [path]               # everything small: inline
    g2 = tf.export.load_graph(path)
    with g2.as_default():
        v2, = tf.global_variables()
        assert v2.initializer.name == "v/Assign" and v2.value().name == "v/read:0"
        inc = v2.assign_add([1.0, 1.0])
        with tf.Session() as s:
            s.run(v2.initializer)
            s.run(inc)
            np.testing.assert_allclose(s.run(v2), [2.0, 3.0])
            v2.load([5.0, 6.0], s)
            np.testing.assert_allclose(v2.eval(s), [5.0, 6.0])
        assert tf.Variable([0.0], name="v").name == "v_1:0"  # names stay unique afterwards


def test_missing_file_and_sidecar(tmp_path):
    with pytest.raises(tf.errors.NotFoundError):
        tf.export.load_graph(str(tmp_path / "nope.json"))
    path = str(tmp_path / "m.json")
    tf.export.save_graph(_model(), path)
    os.remove(_sidecar(path))
    with pytest.raises(tf.errors.NotFoundError):
        tf.export.load_graph(path)


def test_size_limit(tmp_path):
    path = str(tmp_path / "m.json")
    tf.export.save_graph(_model(), path)
    with pytest.raises(tf.errors.InvalidArgumentError, match="limit"):
        tf.export.load_graph(path, max_bytes=100)


def _small_files(tmp_path):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        tf.Variable(np.arange(300, dtype=np.float32), name="v")     # sidecar
        tf.nn.relu(x * 2.0, name="y")
    path = str(tmp_path / "s.json")
    tf.export.save_graph(g, path)
    with open(path, "rb") as f:
        text = f.read()
    with open(_sidecar(path), "rb") as f:
        side = f.read()
    return path, text, side


def _load_expecting_error(path):
    try:
        tf.export.load_graph(path)
    except OpError:
        return True
    return False   # any other exception propagates and fails the test


def _bytes_refused(text, side):
    try:
        load_graph_from_bytes(text, side)
    except OpError:
        return True
    return False   # any other exception propagates and fails the test


def test_every_truncation_is_refused(tmp_path):
    path, text, side = _small_files(tmp_path)
    body = text.rstrip(b"\n")
    for n in range(len(body)):                       # every length, in memory
        assert _bytes_refused(body[:n], side), f"truncation to {n} bytes loaded"
    for n in range(len(side)):
        assert _bytes_refused(text, side[:n]), f"sidecar truncated to {n} bytes loaded"
    for n in range(0, len(body), 97):                # and through real files
        with open(path, "wb") as f:
            f.write(body[:n])
        assert _load_expecting_error(path), f"truncation to {n} bytes loaded"
    assert load_graph_from_bytes(text, side).get_operation_by_name("y").type == "Relu"


def test_random_byte_flips_are_refused(tmp_path):
    path, text, side = _small_files(tmp_path)
    rng = np.random.default_rng(1234)
    for which in (0, 1):
        blob = (text, side)[which]
        refused = 0
        for _ in range(1000):
            bad = bytearray(blob)
            for _ in range(int(rng.integers(1, 4))):
                i = int(rng.integers(0, len(bad)))
                bad[i] ^= 1 << int(rng.integers(0, 8))
            refused += _bytes_refused(*((bytes(bad), side) if which == 0 else (text, bytes(bad))))
        # A flip may keep the text equivalent (e.g. 'e' -> 'E' in a number, or the final
        # newline); every other one is caught by the checksums.
        assert refused >= 990, (which, refused)
    bad = bytearray(text)
    bad[len(bad) // 2] ^= 0x10
    with open(path, "wb") as f:
        f.write(bytes(bad))
    assert _load_expecting_error(path)


def test_hostile_but_well_formed_files_are_refused(tmp_path):
    path, text, _ = _small_files(tmp_path)
    data = json.loads(text)
    data.pop("sha256")
    hostile = [
        {**data, "ops": [{"name": "p", "type": "Const", "attrs": {"value": {"array": {
            "dtype": "float32", "shape": [2**40, 2**40], "b64": ""}}}}]},
        {**data, "ops": [{"name": "p", "type": "Placeholder",
                          "attrs": {"dtype": {"dtype": "float32"},
                                    "shape": {"shape": [1] * 1000}}}]},
        {**data, "ops": [{"name": "p", "type": "__import__('os').system('true')"}]},
        {**data, "ops": [{"name": "p", "type": "Const",
                          "attrs": {"value": {"list": [{"i": 1}]}, "dtype": {"dtype": "int32"}}}]},
        {**data, "version": 2**80},
        "[" * 50000 + "]" * 50000,
        {**data, "tensors_sha256": 5},
    ]
    for item in hostile:
        with open(path, "w") as f:
            f.write(item if isinstance(item, str) else json.dumps(item))
        with pytest.raises(OpError):
            tf.export.load_graph(path)
