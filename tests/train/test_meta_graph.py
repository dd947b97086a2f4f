"""export_meta_graph / import_meta_graph: reload a trained model without its Python source."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.export.graph_file import graph_file_paths
from staticgraph.train.meta_graph import export_meta_graph, import_meta_graph

X = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]], np.float32)
Y = np.array([[1.0], [2.0], [0.0]], np.float32)


def _build():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.ones([2, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
    train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    tf.add_to_collection("train_op", train)
    return loss, train


def test_train_save_reload_and_continue(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    g = tf.Graph()
    with g.as_default():
        loss, train = _build()
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(3):
                s.run(train, {"x:0": X, "y:0": Y})
            saved_path = saver.save(s, prefix)
            export_meta_graph(prefix + ".meta", saver_def=saver.as_saver_def())
            expected = [s.run([loss, train], {"x:0": X, "y:0": Y})[0] for _ in range(3)]
    g2 = tf.Graph()
    with g2.as_default():
        saver2 = import_meta_graph(prefix + ".meta")
        assert isinstance(saver2, tf.train.Saver)
        assert saver2.as_saver_def().max_to_keep == 2
        train2 = tf.get_collection("train_op")[0]
        loss2 = g2.get_tensor_by_name("loss:0")
        with tf.Session() as s:
            saver2.restore(s, saved_path)
            got = [s.run([loss2, train2], {"x:0": X, "y:0": Y})[0] for _ in range(3)]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_import_scope_and_saver_names(tmp_path):
    prefix = str(tmp_path / "m.ckpt")
    g = tf.Graph()
    with g.as_default():
        _build()
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(tf.assign(g.get_tensor_by_name("w:0"), [[2.0], [3.0]]))
            saver.save(s, prefix)
        meta = export_meta_graph(saver_def=saver)
    json.dumps(meta, allow_nan=False)
    g2 = tf.Graph()
    with g2.as_default():
        saver2 = import_meta_graph(meta, import_scope="imported")
        w = [v for v in tf.global_variables() if v.op.name == "imported/w"][0]
        with tf.Session() as s:
            saver2.restore(s, prefix)
            np.testing.assert_allclose(s.run(w), [[2.0], [3.0]])


def test_no_variables_gives_no_saver_and_clear_devices():
    g = tf.Graph()
    with g.as_default(), tf.device("/gpu:0"):
        tf.constant(1.0, name="c")
    meta = export_meta_graph(graph=g)
    assert meta["saver_def"] is None
    g2 = tf.Graph()
    with g2.as_default():
        assert import_meta_graph(meta, clear_devices=True) is None
        assert g2.get_operation_by_name("c").device == ""


def test_export_scope_and_collection_list():
    g = tf.Graph()
    with g.as_default():
        with tf.name_scope("keep"):
            a = tf.constant(2.0, name="a")
            tf.identity(a, name="b")
        tf.constant(5.0, name="other")
        tf.add_to_collection("mine", a)
        tf.add_to_collection("theirs", a)
    meta = export_meta_graph(graph=g, export_scope="keep", collection_list=["mine"])
    names = [o["name"] for o in meta["graph_def"]["ops"]]
    assert names == ["a", "b"]
    assert list(meta.collection_def) == ["mine"]
    with g.as_default():
        with tf.name_scope("inner"):
            tf.identity(g.get_tensor_by_name("other:0"))
    with pytest.raises(ValueError, match="outside the scope"):
        export_meta_graph(graph=g, export_scope="inner")


def test_corrupted_meta_files_are_refused(tmp_path):
    path = str(tmp_path / "m.meta")
    g = tf.Graph()
    with g.as_default():
        _build()
        export_meta_graph(path)
    with open(path, "rb") as f:
        text = f.read()
    for n in range(0, len(text) - 1, 37):
        with open(path, "wb") as f:
            f.write(text[:n])
        with tf.Graph().as_default(), pytest.raises(tf.errors.OpError):
            import_meta_graph(path)
    data = json.loads(text)
    data.pop("sha256")
    for bad in ({**data, "format": "x"}, {**data, "version": 3}, {**data, "graph_def": []},
                {**data, "saver_def": {"variables": {"w": "loss"}}},
                {**data, "saver_def": {"max_to_keep": "5"}}, {**data, "extra": 1}):
        with open(path, "w") as f:
            json.dump(bad, f)
        with tf.Graph().as_default(), pytest.raises(tf.errors.InvalidArgumentError):
            import_meta_graph(path)


def _big_model():
    table = np.arange(20000, dtype=np.float32).reshape(200, 100)  # 80 kB: sidecar
    w = tf.Variable(table, name="w")
    out = tf.reduce_sum(tf.matmul(tf.placeholder(tf.float32, [None, 200], name="x"), w),
                        name="out")
    return table, out


def test_large_constants_go_to_a_sidecar_and_load_back(tmp_path):
    path = str(tmp_path / "m.meta")
    with tf.Graph().as_default():
        table, _ = _big_model()
        meta = export_meta_graph(path, as_text=True)
    files = graph_file_paths(path)
    assert len(files) == 2 and files[1].endswith(".safetensors")
    assert os.path.getsize(path) < 40_000               # the table is not inline in the JSON
    assert "\n " in open(path).read()                    # as_text indents
    assert json.dumps(meta)                               # the returned one is self-contained
    for source in (path, meta):
        with tf.Graph().as_default():
            import_meta_graph(source)
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                np.testing.assert_array_equal(s.run("w:0"), table)
                got = s.run("out:0", {"x:0": np.ones((2, 200), np.float32)})
                np.testing.assert_allclose(got, 2 * table.sum(dtype=np.float64), rtol=1e-6)
    with tf.Graph().as_default():                        # overwriting drops the old sidecar
        _build()
        export_meta_graph(path)
    assert graph_file_paths(path) == [path]


def test_meta_files_of_the_earlier_inline_layout_still_load(tmp_path):
    path = str(tmp_path / "m.meta")
    with tf.Graph().as_default():
        table, _ = _big_model()
        meta = export_meta_graph()
    with open(path, "w") as f:       # earlier staticgraph wrote every constant inline
        f.write(meta.to_json())
    with tf.Graph().as_default():
        import_meta_graph(path)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(s.run("w:0"), table)


def test_meta_file_with_a_missing_or_stale_sidecar_is_refused(tmp_path):
    path = str(tmp_path / "m.meta")
    with tf.Graph().as_default():
        _big_model()
        export_meta_graph(path)
    sidecar = graph_file_paths(path)[1]
    with open(sidecar, "rb") as f:
        blob = bytearray(f.read())
    blob[-1] ^= 1
    with open(sidecar, "wb") as f:
        f.write(bytes(blob))
    with tf.Graph().as_default(), pytest.raises(tf.errors.DataLossError, match="tensors file"):
        import_meta_graph(path)
    os.remove(sidecar)
    with tf.Graph().as_default(), pytest.raises(tf.errors.NotFoundError):
        import_meta_graph(path)


def test_fifo_meta_file_is_refused(tmp_path):
    path = str(tmp_path / "m.meta")
    os.mkfifo(path)
    with tf.Graph().as_default(), pytest.raises(tf.errors.InvalidArgumentError, match="FIFO"):
        import_meta_graph(path)


def test_saver_checkpoints_keep_meta_sidecars_with_their_checkpoint(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    with tf.Graph().as_default():
        table, _ = _big_model()
        saver = tf.train.Saver(max_to_keep=1)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            saver.save(s, prefix, global_step=1)
            saver.save(s, prefix, global_step=2)
    assert len(graph_file_paths(prefix + "-2.meta")) == 2
    assert graph_file_paths(prefix + "-1.meta") == []    # removed with its checkpoint
    with tf.Graph().as_default():
        saver2 = import_meta_graph(prefix + "-2.meta")
        with tf.Session() as s:
            saver2.restore(s, prefix + "-2")
            np.testing.assert_array_equal(s.run("w:0"), table)


def test_public_names():
    assert tf.train.export_meta_graph is export_meta_graph
    assert tf.train.import_meta_graph is import_meta_graph
