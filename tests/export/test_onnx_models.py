"""Whole models through ONNX: the digits classifier's inference graph and training step.

The model is the main example's (``examples/train_digits.py``): its inference
graph exported and run by onnxruntime at several batch sizes equals the session;
its training step exported with ``training=True`` and stepped five times in
onnxruntime (feeding each step's updated variables back) equals five numpy
steps; and five steps on the onnxruntime session backend equal five on numpy.
Also: names, dim_params, doc strings, initializers, and the export errors.
"""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import staticgraph as tf
from staticgraph.export import OnnxExportError, to_onnx

EXAMPLE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                                       "train_digits.py"))


def _example():
    spec = importlib.util.spec_from_file_location("train_digits_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def digits():
    example = _example()
    (x_train, y_train), (x_test, y_test) = example.load()
    return example, x_train[:256], y_train[:256], x_test, y_test


def _ort(model):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def _build(example):
    graph = tf.Graph()
    with graph.as_default():
        parts = example.build_model()
        init = tf.global_variables_initializer()
    return graph, parts, init


def test_inference_graph_matches_the_session_at_any_batch_size(digits, tmp_path):
    example, x_train, y_train, x_test, _ = digits
    graph, (x, y, keep_prob, loss, accuracy, train_op, step), init = _build(example)
    logits = graph.get_tensor_by_name("logits/BiasAdd:0")
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for i in range(3):  # train a little so the weights are not the initial ones
            sess.run(train_op, {x: x_train[i * 64:(i + 1) * 64], y: y_train[i * 64:(i + 1) * 64]})
        path = tmp_path / "digits.onnx"
        model = to_onnx(logits, [x], session=sess, path=path)
        for batch in (1, 7, len(x_test)):
            want = sess.run(logits, {x: x_test[:batch]})
            got, = _ort(onnx.load(str(path))).run(None, {"images:0": x_test[:batch]})
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    onnx.checker.check_model(model, full_check=True)
    assert [i.name for i in model.graph.input] == ["images:0"]
    assert [o.name for o in model.graph.output] == ["logits/BiasAdd:0"]
    batch_in = model.graph.input[0].type.tensor_type.shape.dim[0]
    batch_out = model.graph.output[0].type.tensor_type.shape.dim[0]
    assert batch_in.dim_param and batch_out.dim_param == batch_in.dim_param
    assert {i.name for i in model.graph.initializer} >= {"hidden1/weights", "logits/bias"}
    matmul = [n for n in model.graph.node if n.op_type in ("MatMul", "Gemm")]
    assert matmul and all("test_onnx_models.py" not in n.doc_string for n in matmul)
    assert all("train_digits.py:" in n.doc_string for n in matmul)


def test_training_step_in_onnxruntime_equals_numpy_steps(digits):
    example, x_train, y_train, _, _ = digits
    graph, (x, y, keep_prob, loss, accuracy, train_op, step), init = _build(example)
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        model = to_onnx([loss, train_op], [x, y], session=sess, training=True)
        state = {v.op.name: sess.run(v) for v in graph.get_collection("variables")}
        want = [sess.run([loss, train_op], {x: x_train[k * 50:(k + 1) * 50],
                                            y: y_train[k * 50:(k + 1) * 50]})[0]
                for k in range(5)]
        final = {name: sess.run(graph.get_tensor_by_name(name + ":0")) for name in state}
    meta = json.loads({p.key: p.value for p in model.metadata_props}["staticgraph.state"])
    assert set(meta["outputs"]) <= set(meta["inputs"]) | set(meta["outputs"])
    assert "hidden1/weights" in meta["inputs"] and "hidden1/weights" in meta["outputs"]
    runner = _ort(model)
    out_names = [o.name for o in model.graph.output]
    got = []
    for k in range(5):  # batches of 50 for the unknown batch dimension
        feeds = {"images:0": x_train[k * 50:(k + 1) * 50], "labels:0": y_train[k * 50:(k + 1) * 50]}
        feeds.update({meta["inputs"][n]: np.asarray(state[n]) for n in meta["inputs"]})
        outs = dict(zip(out_names, runner.run(None, feeds)))
        got.append(outs["loss/Mean:0"])
        for name, out in meta["outputs"].items():
            state[name] = outs[out]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for name, value in final.items():
        np.testing.assert_allclose(state[name], value, rtol=1e-4, atol=1e-6, err_msg=name)


def test_onnxruntime_backend_trains_like_numpy(digits):
    example, x_train, y_train, x_test, y_test = digits
    graph, (x, y, keep_prob, loss, accuracy, train_op, step), init = _build(example)
    variables = graph.get_collection("variables")
    sessions = {"numpy": tf.Session(graph=graph),
                "onnxruntime": tf.Session(graph=graph, backend="onnxruntime", device="cpu")}
    for sess in sessions.values():
        sess.run(init)
    # onnxruntime's random streams differ from numpy's: start both from the same values
    start = sessions["numpy"].run(variables)
    for v, value in zip(variables, start):
        v.load(value, sessions["onnxruntime"])
    results = {}
    for backend, sess in sessions.items():
        losses = [sess.run([train_op, loss], {x: x_train[k * 64:(k + 1) * 64],
                                              y: y_train[k * 64:(k + 1) * 64]})[1]
                  for k in range(5)]
        results[backend] = (losses, sess.run(accuracy, {x: x_test, y: y_test}), sess.run(step),
                            sess.run(variables))
        sess.close()
    np.testing.assert_allclose(results["onnxruntime"][0], results["numpy"][0], rtol=1e-5)
    np.testing.assert_allclose(results["onnxruntime"][1], results["numpy"][1], rtol=1e-6)
    assert results["onnxruntime"][2] == results["numpy"][2] == 5
    for v, a, b in zip(variables, results["onnxruntime"][3], results["numpy"][3]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6, err_msg=v.op.name)


# ------------------------------------------------------------------- errors
def test_uninitialized_variable_is_named():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable(np.ones((2, 2), np.float32), name="weights")
        y = tf.matmul(x, w)
    with tf.Session(graph=graph) as sess:
        with pytest.raises(OnnxExportError, match="variable 'weights'.*test_onnx_models.py:"):
            to_onnx(y, [x], session=sess)
    with pytest.raises(OnnxExportError, match="weights.*session=sess"):
        to_onnx(y, [x])


def test_op_without_lowering_names_op_and_line():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        s = tf.summary.scalar("loss", x)
    with pytest.raises(OnnxExportError) as info:
        to_onnx(s, [x])
    assert "ScalarSummary" in str(info.value) and "test_onnx_models.py:" in str(info.value)


def test_missing_placeholder_is_named():
    graph = tf.Graph()
    with graph.as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        b = tf.placeholder(tf.float32, [2], name="b")
        c = tf.identity(tf.stack([a, b]))
    with pytest.raises(OnnxExportError, match="placeholder 'b'.*inputs="):
        to_onnx(c, [a])
    model = to_onnx(c)  # default inputs: every placeholder needed
    assert [i.name for i in model.graph.input] == ["a:0", "b:0"]


def test_bad_opset_and_outputs():
    graph = tf.Graph()
    with graph.as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        b = tf.identity(a)
    with pytest.raises(ValueError, match="opset"):
        to_onnx(b, [a], opset=7)
    with pytest.raises(TypeError, match="outputs must be Tensors"):
        to_onnx([3.0], [a])
    model = to_onnx(b, [a], opset=21)
    assert model.opset_import[0].version == 21 and model.ir_version == 10
    onnx.checker.check_model(model, full_check=True)
