"""Random streams are the same on both backends: a seeded program draws the same initial
weights, dropout masks and samples whether numpy or onnxruntime runs it, runs that
alternate between them continue one stream, and exported models draw what the session
drew."""

import threading
import warnings

import numpy as np
import onnxruntime as ort
import pytest

import staticgraph as tf
from staticgraph.ops.random import random_bits

BACKENDS = ("numpy", "onnxruntime")


def _assert_same(got, want, what=""):
    """Integers exactly; floats to the rounding of log/sin/cos (a few ulp)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    if want.dtype.kind == "f":
        tol = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-13}[want.dtype.name]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


# ------------------------------------------------------------------ a whole program
def _training_program(graph_seed):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(graph_seed)
        x = tf.placeholder(tf.float32, [None, 8], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        w1 = tf.get_variable("w1", [8, 16], initializer=tf.glorot_uniform_initializer())
        b1 = tf.get_variable("b1", [16], initializer=tf.random_uniform_initializer(-0.1, 0.1))
        w2 = tf.get_variable("w2", [16, 4],
                             initializer=tf.truncated_normal_initializer(stddev=0.3))
        h = tf.nn.dropout(tf.nn.relu(tf.matmul(x, w1) + b1), keep_prob=0.6)
        logits = tf.matmul(h, w2)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        init = tf.global_variables_initializer()
    return g, x, y, [w1, b1, w2], loss, train, init


def _train(backend, graph_seed=1, steps=6):
    g, x, y, weights, loss, train, init = _training_program(graph_seed)
    data = np.random.default_rng(0)
    xb = data.standard_normal((32, 8)).astype(np.float32)
    yb = data.integers(0, 4, 32)
    with tf.Session(graph=g, backend=backend) as sess, warnings.catch_warnings():
        warnings.simplefilter("error")  # no op falls back to numpy
        sess.run(init)
        initial = sess.run(weights)
        losses = [sess.run([train, loss], {x: xb, y: yb})[1] for _ in range(steps)]
        final = sess.run(weights)
    return initial, np.array(losses), final


def test_seeded_training_gives_the_same_losses_on_both_backends():
    (init_np, loss_np, final_np), (init_ort, loss_ort, final_ort) = (_train(b)
                                                                     for b in BACKENDS)
    for a, b in zip(init_ort, init_np):
        _assert_same(a, b, "initial weights")
    # dropout draws a new mask each step: losses would drift apart if the masks differed
    np.testing.assert_allclose(loss_ort, loss_np, rtol=1e-5)
    for a, b in zip(final_ort, final_np):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    assert len(set(np.round(loss_np, 6))) == len(loss_np)
    # the numbers do depend on the seed
    other = _train("numpy", graph_seed=2, steps=1)
    assert not np.allclose(other[0][0], init_np[0])


# ------------------------------------------------------------------ every random op
def _every_kind():
    n = tf.placeholder(tf.int32, [2], name="n")  # shapes known only when running
    rows = tf.placeholder(tf.float32, [None, 3], name="rows")
    k = tf.placeholder(tf.int32, [], name="k")
    return [
        tf.random_normal([3, 5]), tf.random_normal(n, dtype=tf.float64),
        tf.random_normal([7], dtype=tf.float16), tf.random_uniform([4, 4]),
        tf.random_uniform(n, -2.0, 3.0, dtype=tf.float64), tf.random_uniform([9], dtype=tf.float16),
        tf.random_uniform([50], -7, 9, dtype=tf.int32),
        tf.random_uniform(n, -2 ** 40, 2 ** 62, dtype=tf.int64),
        tf.truncated_normal([6, 2]), tf.truncated_normal(n, dtype=tf.float64),
        tf.random_shuffle(np.arange(12).reshape(6, 2)), tf.random_shuffle(rows),
        tf.multinomial([[0.0, 1.0, 2.0], [1.0, -np.inf, 0.0]], 20),
        tf.multinomial(tf.log([[0.2, 0.3, 0.5]]), k, output_dtype=tf.int32),
        tf.nn.dropout(tf.ones([4, 4]), keep_prob=0.5),
    ], {n: [3, 4], rows: np.arange(15, dtype=np.float32).reshape(5, 3), k: 11}


def _draws(backend, runs=3):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(7)
        outs, feed = _every_kind()
    with tf.Session(graph=g, backend=backend) as sess, warnings.catch_warnings():
        warnings.simplefilter("error")  # no op falls back to numpy
        return [sess.run(outs, feed) for _ in range(runs)]


def test_every_random_op_draws_the_same_values_on_both_backends():
    numpy_runs, ort_runs = _draws("numpy"), _draws("onnxruntime")
    for r, (got_run, want_run) in enumerate(zip(ort_runs, numpy_runs)):
        for i, (got, want) in enumerate(zip(got_run, want_run)):
            _assert_same(got, want, f"run {r}, output {i}")
    for i in range(len(numpy_runs[0]) - 1):  # consecutive runs continue the stream
        assert not np.array_equal(numpy_runs[0][i], numpy_runs[1][i]), i


@pytest.mark.tensorboard   # a summary makes a run fall back to numpy
def test_runs_alternating_between_backends_continue_one_stream():
    # In an onnxruntime session, a signature with an op that has no ONNX lowering runs
    # on numpy; the random op it shares with an onnxruntime signature keeps one stream.
    def build():
        tf.set_random_seed(3)
        r = tf.random_normal([4, 3])
        return r, tf.summary.scalar("s", tf.reduce_sum(r))
    g = tf.Graph()
    with g.as_default():
        r, summary = build()
    with tf.Session(graph=g, backend="numpy") as sess:
        want = [sess.run(r) for _ in range(5)]
    g = tf.Graph()
    with g.as_default():
        r, summary = build()
    got = []
    with tf.Session(graph=g, backend="onnxruntime") as sess, warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the fallback's warning
        got.append(sess.run(r))                    # onnxruntime
        got.append(sess.run([r, summary])[0])      # numpy (fallback)
        got.append(sess.run(r))
        got.append(sess.run(r))
        got.append(sess.run([r, summary])[0])
    for i, (a, b) in enumerate(zip(got, want)):
        _assert_same(a, b, f"run {i}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_unseeded_ops_differ_between_sessions(backend):
    g = tf.Graph()
    with g.as_default():
        r = tf.random_uniform([20])
    with tf.Session(graph=g, backend=backend) as a, tf.Session(graph=g, backend=backend) as b:
        assert not np.array_equal(a.run(r), b.run(r))


@pytest.mark.parametrize("backend", BACKENDS)
def test_concurrent_runs_each_draw_one_execution(backend):
    g = tf.Graph()
    with g.as_default():
        r = tf.random_uniform([8], maxval=2 ** 31 - 1, dtype=tf.int64, seed=4)
    with tf.Session(graph=g, backend=backend) as sess:
        want = {tuple(sess.run(r)) for _ in range(40)}
    got = []
    with tf.Session(graph=g, backend=backend) as sess:
        def work():
            for _ in range(10):
                got.append(tuple(sess.run(r)))
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sess._runtime.rngs[r.op.name][1] == 40
    assert len(got) == 40 and set(got) == want  # no execution counter drawn twice


# ------------------------------------------------------------------ exported models
def _ort_session(model):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def test_exported_model_draws_the_sessions_first_run():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 6], name="x")
        out = tf.nn.dropout(x, keep_prob=0.5) + tf.random_normal([6])  # unseeded
    xb = np.ones((3, 6), np.float32)
    with tf.Session(graph=g) as sess:
        first = sess.run(out, {x: xb})
        model = tf.export.to_onnx([out], [x], session=sess)
    assert [i.name for i in model.graph.input] == ["x:0"]  # keys and counter are constants
    got = _ort_session(model).run(None, {"x:0": xb})[0]
    _assert_same(got, first)
    with tf.Session(graph=g) as other:  # another session: other keys, other numbers
        assert not np.allclose(other.run(out, {x: xb}), first)


def test_training_export_takes_the_execution_counter_as_an_input():
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.ones(5, np.float32), name="w")
        noise = tf.random_uniform([5], seed=9)
        step = tf.assign_add(w, noise)
    with tf.Session(graph=g) as sess:
        sess.run(w.initializer)
        want = [sess.run(noise) for _ in range(3)]
        model = tf.export.to_onnx([step], session=sess, training=True)
    names = [i.name for i in model.graph.input]
    counter = [n for n in names if n.endswith(":random_counter")]
    assert len(counter) == 1 and not any(n.endswith(":random_key") for n in names)
    session = _ort_session(model)
    ones = np.ones(5, np.float32)
    default = session.run(None, {"w": ones})[0]  # counter defaults to 0
    _assert_same(default - ones, want[0])
    for k in range(3):
        got = session.run(None, {"w": ones, counter[0]: np.array(k, np.int64)})[0]
        np.testing.assert_allclose(got - ones, want[k], rtol=1e-6, atol=1e-6)
    props = {p.key: p.value for p in model.metadata_props}
    assert random_bits.STREAMS_METADATA_KEY in props


def test_export_without_a_session_uses_the_seeded_key():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        out = tf.truncated_normal([4, 4]) + tf.cast(tf.random_shuffle(tf.range(4)), tf.float32)
    model = tf.export.to_onnx([out], [])
    with tf.Session(graph=g) as sess:
        first = sess.run(out)
    _assert_same(_ort_session(model).run(None, {})[0], first)
