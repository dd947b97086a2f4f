"""TF1 behaviour of the random ops beyond the cases: seeding rules, names, bounds, errors."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.ops.random import random_ops


def _graph(build, graph_seed=None):
    g = tf.Graph()
    with g.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        out = build()
    return g, out


def _runs(graph, fetch, n=2, backend="numpy"):
    with tf.Session(graph=graph, backend=backend) as sess:
        return [sess.run(fetch) for _ in range(n)]


# ---------------------------------------------------------------- seeding rules
ALL_KINDS = [
    lambda seed: tf.random_normal([4, 3], seed=seed),
    lambda seed: tf.random_uniform([7], seed=seed),
    lambda seed: tf.random_uniform([7], maxval=1000, dtype=tf.int32, seed=seed),
    lambda seed: tf.truncated_normal([5], seed=seed),
    lambda seed: tf.random_shuffle(np.arange(50), seed=seed),
    lambda seed: tf.multinomial([[0.0, 0.0, 0.0, 0.0]], 30, seed=seed),
]


BACKENDS = ("numpy", "onnxruntime")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", range(len(ALL_KINDS)))
def test_graph_seed_gives_same_sequence_in_two_sessions(kind, backend):
    g, out = _graph(lambda: ALL_KINDS[kind](None), graph_seed=42)
    first, second = _runs(g, out, backend=backend), _runs(g, out, backend=backend)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])  # consecutive runs continue the stream
    # The same program in a new graph with the same graph seed: the same values.
    g2, out2 = _graph(lambda: ALL_KINDS[kind](None), graph_seed=42)
    np.testing.assert_array_equal(_runs(g2, out2, 1, backend)[0], first[0])
    # Another graph seed: other values.
    g3, out3 = _graph(lambda: ALL_KINDS[kind](None), graph_seed=43)
    assert not np.array_equal(_runs(g3, out3, 1, backend)[0], first[0])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", range(len(ALL_KINDS)))
def test_op_seed_alone_is_reproducible(kind, backend):
    g, out = _graph(lambda: ALL_KINDS[kind](7))
    first, second = _runs(g, out, backend=backend), _runs(g, out, backend=backend)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])
    g2, out2 = _graph(lambda: ALL_KINDS[kind](8))
    assert not np.array_equal(_runs(g2, out2, 1, backend)[0], first[0])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", range(len(ALL_KINDS)))
def test_no_seed_differs_between_sessions(kind, backend):
    g, out = _graph(lambda: ALL_KINDS[kind](None))
    first, second = _runs(g, out, backend=backend), _runs(g, out, backend=backend)
    assert not np.array_equal(first[0], second[0])
    assert not np.array_equal(first[0], first[1])


def test_graph_seed_gives_each_op_its_own_stream():
    g, (a, b) = _graph(lambda: (tf.random_normal([10]), tf.random_normal([10])), graph_seed=1)
    va, vb = _runs(g, [a, b], 1)[0]
    assert not np.array_equal(va, vb)


def test_same_op_seed_gives_same_stream_in_one_graph():
    # TF1: two ops with the same (graph seed, op seed) pair draw the same values.
    g, (a, b) = _graph(lambda: (tf.random_normal([10], seed=3), tf.random_normal([10], seed=3)))
    with tf.Session(graph=g) as sess:
        va, vb = sess.run([a, b])
        np.testing.assert_array_equal(va, vb)
        va2 = sess.run(a)
        assert not np.array_equal(va, va2)


def test_graph_seed_and_op_seed_combine():
    g1, out1 = _graph(lambda: tf.random_normal([10], seed=5), graph_seed=1)
    g2, out2 = _graph(lambda: tf.random_normal([10], seed=5), graph_seed=2)
    g3, out3 = _graph(lambda: tf.random_normal([10], seed=5))
    v1, v2, v3 = (_runs(g, o, 1)[0] for g, o in ((g1, out1), (g2, out2), (g3, out3)))
    assert not np.array_equal(v1, v2) and not np.array_equal(v1, v3)


def test_seed_attributes_follow_get_seed():
    g = tf.Graph()
    with g.as_default():
        a = tf.random_uniform([2], seed=7)
        tf.set_random_seed(5)
        b = tf.random_normal([2], seed=9)
        c = tf.truncated_normal([2])
    ops = {op.type: op for op in g.get_operations()}
    assert (ops["RandomUniform"].attrs["seed"], ops["RandomUniform"].attrs["seed2"]) == \
        (tf.graphlib.DEFAULT_GRAPH_SEED, 7)
    assert (ops["RandomStandardNormal"].attrs["seed"],
            ops["RandomStandardNormal"].attrs["seed2"]) == (5, 9)
    assert ops["TruncatedNormal"].attrs["seed"] == 5
    assert isinstance(ops["TruncatedNormal"].attrs["seed2"], int)
    with tf.Graph().as_default():
        d = tf.random_shuffle([1, 2])
    assert (d.op.attrs["seed"], d.op.attrs["seed2"]) == (None, None)
    assert all(t.op.op_def.stateful for t in (d,)) and ops["RandomUniform"].op_def.stateful
    del a, b, c


def test_runs_with_other_fetches_continue_the_same_stream():
    g, x = _graph(lambda: tf.random_normal([3], seed=1))
    with g.as_default():
        y = x * 2.0
    with tf.Session(graph=g) as sess:
        vx = sess.run(x)
        vy = sess.run(y)
    with tf.Session(graph=g) as sess:
        wx, wx2 = sess.run(x), sess.run(x)
    np.testing.assert_array_equal(vx, wx)
    np.testing.assert_allclose(vy, 2 * wx2)


# ---------------------------------------------------------------- distributions
def test_truncated_normal_stays_within_two_stddev():
    g, t = _graph(lambda: tf.truncated_normal([200, 100], mean=10.0, stddev=0.5, seed=1))
    v = _runs(g, t, 1)[0].astype(np.float64)
    assert np.all(np.abs(v - 10.0) <= 1.0 + 1e-5)
    assert abs(v.std() - 0.5 * 0.8796) < 0.01
    # Values near the bound are drawn (the distribution is not clipped elsewhere).
    assert np.sum(np.abs(v - 10.0) > 0.9) > 100


def test_random_normal_mean_stddev_tensors_broadcast():
    g, t = _graph(lambda: tf.random_normal([5000, 2], mean=[0.0, 100.0],
                                           stddev=tf.constant([1.0, 0.01]), seed=1))
    assert t.shape.as_list() == [5000, 2]
    v = _runs(g, t, 1)[0]
    assert abs(v[:, 0].mean()) < 0.1 and abs(v[:, 1].mean() - 100) < 0.01
    assert abs(v[:, 1].std() - 0.01) < 0.002


def test_int_uniform_range_and_errors():
    g = tf.Graph()
    with g.as_default():
        lo = tf.placeholder(tf.int64, [])
        hi = tf.placeholder(tf.int64, [])
        x = tf.random_uniform([1000], lo, hi, dtype=tf.int64, seed=1)
    with tf.Session(graph=g) as sess:
        v = sess.run(x, {lo: -2, hi: 1})
        assert v.dtype == np.int64 and v.min() == -2 and v.max() == 0
        v = sess.run(x, {lo: 4, hi: 5})
        assert np.all(v == 4)
        with pytest.raises(tf.errors.InvalidArgumentError, match="minval < maxval"):
            sess.run(x, {lo: 3, hi: 3})
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="maxval"):
            tf.random_uniform([2], dtype=tf.int32)
        with pytest.raises(ValueError, match="Invalid dtype"):
            tf.random_uniform([2], maxval=3, dtype=tf.int8)
        with pytest.raises(ValueError):  # a float32 tensor cannot be an int32 bound
            tf.random_uniform([2], maxval=tf.constant(3.0), dtype=tf.int32)


def test_float_uniform_default_maxval_is_one():
    g, x = _graph(lambda: tf.random_uniform([5000], minval=-1.0, seed=3))
    v = _runs(g, x, 1)[0]
    assert v.min() >= -1.0 and v.max() < 1.0 and v.min() < -0.99 and v.max() > 0.99


def test_multinomial_frequencies_follow_softmax():
    logits = np.array([[1.0, 2.0, 3.0, 0.0], [0.0, -np.inf, 0.0, np.log(2.0)]])
    n = 20000
    g, s = _graph(lambda: tf.multinomial(logits, n, seed=2))
    out = _runs(g, s, 1)[0]
    assert out.shape == (2, n) and out.dtype == np.int64
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    for row, p in zip(out, probs):
        counts = np.bincount(row, minlength=4)
        assert len(counts) == 4
        assert np.all(counts[p == 0] == 0)
        keep = p > 0
        chi2 = np.sum((counts[keep] - n * p[keep]) ** 2 / (n * p[keep]))
        assert chi2 < 25.0, (counts, n * p)  # df <= 3: p-value ~ 1e-5


def test_multinomial_shapes_and_errors():
    with tf.Graph().as_default():
        logits = tf.placeholder(tf.float32, [None, 5])
        n = tf.placeholder(tf.int32, [])
        assert tf.multinomial(logits, 3).shape.as_list() == [None, 3]
        assert tf.multinomial(logits, n).shape.as_list() == [None, None]
        assert tf.multinomial(logits, n, output_dtype=tf.int32).dtype == tf.int32
        with pytest.raises(ValueError):
            tf.multinomial([1.0, 2.0], 3)
        with pytest.raises(ValueError):
            tf.multinomial([[1.0, 2.0]], -1)
        with pytest.raises(TypeError):
            tf.multinomial([[1.0, 2.0]], 3, output_dtype=tf.float32)


def test_categorical_is_multinomial_with_dtype_argument():
    g, s = _graph(lambda: random_ops.categorical([[0.0, -np.inf, 0.0]], 100, tf.int32, seed=1))
    v = _runs(g, s, 1)[0]
    assert v.dtype == np.int32 and v.shape == (1, 100) and not np.any(v == 1)
    assert s.op.name == "categorical/Multinomial"


def test_random_shuffle_is_a_permutation_of_rows():
    x = np.arange(30).reshape(10, 3)
    g, s = _graph(lambda: tf.random_shuffle(x, seed=4))
    first, second = _runs(g, s)
    for v in (first, second):
        assert sorted(v[:, 0].tolist()) == list(range(0, 30, 3))
        np.testing.assert_array_equal(v[:, 1:], v[:, :1] + [1, 2])  # rows intact
    assert not np.array_equal(first, second)
    assert not (np.array_equal(first, x) and np.array_equal(second, x))


# ---------------------------------------------------------------- shapes, names, errors
def test_static_shapes_from_shape_arguments():
    with tf.Graph().as_default():
        assert tf.random_normal((2, 3)).shape.as_list() == [2, 3]
        assert tf.random_uniform(tf.TensorShape([4, 1])).shape.as_list() == [4, 1]
        assert tf.truncated_normal([]).shape.as_list() == []
        assert tf.random_normal(tf.constant([5], tf.int64)).shape.as_list() == [5]
        assert tf.random_normal(np.array([2, 2])).shape.as_list() == [2, 2]
        s = tf.placeholder(tf.int32, [3])
        assert tf.random_uniform(s).shape.as_list() == [None, None, None]
        assert tf.random_uniform(tf.placeholder(tf.int32)).shape.rank is None
        assert tf.random_shuffle(tf.placeholder(tf.float32, [None, 4])).shape.as_list() == \
            [None, 4]


def test_shape_argument_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="rank 1"):
            tf.random_normal(5)
        with pytest.raises(TypeError):
            tf.random_normal(tf.constant([2.0, 3.0]))
        with pytest.raises(ValueError, match="non-negative"):
            tf.random_uniform([2, -3])
        with pytest.raises(TypeError):
            tf.random_normal([2], dtype=tf.int32)
        with pytest.raises(ValueError):  # mean tensor of another dtype
            tf.random_normal([2], mean=tf.constant(1.0, tf.float64))
    g = tf.Graph()
    with g.as_default():
        s = tf.placeholder(tf.int32, [None])
        x = tf.random_normal(s)
    with tf.Session(graph=g) as sess:
        assert sess.run(x, {s: [2, 3]}).shape == (2, 3)
        with pytest.raises(tf.errors.InvalidArgumentError, match="non-negative"):
            sess.run(x, {s: [2, -1]})


def test_default_names_follow_tf1():
    with tf.Graph().as_default() as g:
        n = tf.random_normal([2])
        u = tf.random_uniform([2])
        i = tf.random_uniform([2], maxval=4, dtype=tf.int32)
        t = tf.truncated_normal([2])
        s = tf.random_shuffle([1, 2])
        m = tf.multinomial([[0.0, 1.0]], 2)
        named = tf.random_normal([2], name="noise")
    names = {op.name for op in g.get_operations()}
    assert n.op.name == "random_normal" and n.op.type == "Add"
    assert {"random_normal/RandomStandardNormal", "random_normal/mul", "random_normal/shape",
            "random_normal/mean", "random_normal/stddev"} <= names
    assert u.op.name.startswith("random_uniform")
    assert {"random_uniform/RandomUniform", "random_uniform/sub", "random_uniform/mul",
            "random_uniform/min", "random_uniform/max"} <= names
    assert i.op.type == "RandomUniformInt"
    assert t.op.name == "truncated_normal" and "truncated_normal/TruncatedNormal" in names
    assert s.op.name == "RandomShuffle"
    assert m.op.name == "multinomial/Multinomial"
    assert named.op.name == "noise" and "noise/RandomStandardNormal" in names


def test_second_call_is_suffixed_1():
    with tf.Graph().as_default():
        tf.random_normal([2])
        assert tf.random_normal([2]).op.name == "random_normal_1"


def test_output_dtypes():
    with tf.Graph().as_default() as g:
        outs = [tf.random_normal([3], dtype=tf.float16), tf.random_uniform([3], dtype=tf.float64),
                tf.truncated_normal([3], dtype="float64"),
                tf.random_uniform([3], maxval=2, dtype=tf.int64)]
    with tf.Session(graph=g) as sess:
        got = sess.run(outs)
    assert [v.dtype for v in got] == [np.float16, np.float64, np.float64, np.int64]
    assert [t.dtype for t in outs] == [tf.float16, tf.float64, tf.float64, tf.int64]


def test_public_names_and_aliases():
    assert set(random_ops.__all__) == {"random_normal", "random_uniform", "truncated_normal",
                                       "random_shuffle", "multinomial"}
    assert tf.random_normal is random_ops.random_normal
    assert tf.random.normal is tf.random_normal
    assert tf.random.uniform is tf.random_uniform
