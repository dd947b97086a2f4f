"""The fusion pass: what fuses (structure after optimize_signature at level 2), what
must not (fetched or shared intermediates, control edges), and that fused graphs
compute what level 0 computes (bitwise for these patterns: the same ufuncs run in the
same order on the same dtype)."""

import time

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib.op_def import get_op_def
from staticgraph.optimizer import optimize_signature
from staticgraph.optimizer.cse import eliminate_common_subexpressions
from staticgraph.optimizer.fusion import elementwise_rule, fuse
from staticgraph.optimizer.working_graph import WorkingGraph

R = np.random.default_rng(5)


def types_after(graph, fetches, feeds=(), level=2):
    working = optimize_signature(graph, fetches, feeds, level)
    return working, working.report.ops_by_type_after


def run_levels(graph, fetches, feed, levels=(0, 2)):
    out = {}
    for level in levels:
        with tf.Session(graph=graph, optimizer_level=level) as sess:
            out[level] = sess.run(fetches, feed)
    return out


def assert_bitwise(a, b):
    for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x.reshape(-1).view(np.uint8), y.reshape(-1).view(np.uint8))


ACTIVATIONS = {"": lambda h: h, "Relu": tf.nn.relu, "Relu6": tf.nn.relu6,
               "Sigmoid": tf.sigmoid, "Tanh": tf.tanh,
               "LeakyRelu": lambda h: tf.nn.leaky_relu(h, alpha=0.1)}


def dense(x, w, b, bias, activation, ta=False, tb=False):
    h = tf.matmul(x, w, transpose_a=ta, transpose_b=tb)
    h = {"bias_add": lambda: tf.nn.bias_add(h, b), "add": lambda: h + b,
         "radd": lambda: b + h}[bias]()
    return ACTIVATIONS[activation](h)


# ------------------------------------------------------------------ FusedMatMul
@pytest.mark.parametrize("activation", list(ACTIVATIONS))
@pytest.mark.parametrize("bias", ["bias_add", "add", "radd"])
def test_matmul_bias_activation_fuse(activation, bias):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        w = tf.constant(R.standard_normal((4, 3)).astype(np.float32))
        b = tf.constant(R.standard_normal(3).astype(np.float32))
        y = dense(x, w, b, bias, activation)
    working, types = types_after(g, [y], [x])
    assert types.get("FusedMatMul") == 1
    assert not {"MatMul", "BiasAdd", "Add", activation} & set(types)
    fused = [op for op in working.graph.get_operations() if op.type == "FusedMatMul"][0]
    assert fused.attrs["activation"] == activation
    assert fused.name == f"{y.op.name}/fused"
    assert fused.traceback is y.op.traceback  # the user's line of the last op
    assert any("replaces MatMul" in c.description for c in working.report.changes)
    feed = {x: R.standard_normal((5, 4)).astype(np.float32)}
    out = run_levels(g, y, feed)
    assert_bitwise(out[0], out[2])


@pytest.mark.parametrize("ta,tb", [(True, False), (False, True), (True, True)])
def test_matmul_transposes_fuse(ta, tb):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4, 5] if ta else [5, 4])
        w = tf.constant(R.standard_normal((3, 4) if tb else (4, 3)).astype(np.float32))
        b = tf.constant(R.standard_normal(3).astype(np.float32))
        y = dense(x, w, b, "add", "Relu", ta, tb)
    assert types_after(g, [y], [x])[1].get("FusedMatMul") == 1
    feed = {x: R.standard_normal(x.shape.raw).astype(np.float32)}
    out = run_levels(g, y, feed)
    assert_bitwise(out[0], out[2])


def _mlp_layer():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w = tf.constant(R.standard_normal((4, 3)).astype(np.float32))
    b = tf.constant(R.standard_normal(3).astype(np.float32))
    mm = tf.matmul(x, w)
    pre = tf.nn.bias_add(mm, b)
    return x, mm, pre, tf.nn.relu(pre)


def test_fetched_product_is_not_fused():
    g = tf.Graph()
    with g.as_default():
        x, mm, pre, y = _mlp_layer()
    types = types_after(g, [y, mm], [x])[1]
    assert "FusedMatMul" not in types and types["MatMul"] == 1
    feed = {x: R.standard_normal((2, 4)).astype(np.float32)}
    out = run_levels(g, [y, mm], feed)
    assert_bitwise(out[0], out[2])


def test_fetched_pre_activation_keeps_the_activation_apart():
    g = tf.Graph()
    with g.as_default():
        x, mm, pre, y = _mlp_layer()
    working, types = types_after(g, [y, pre], [x])
    assert types["FusedMatMul"] == 1 and types["Relu"] == 1
    fused = [op for op in working.graph.get_operations() if op.type == "FusedMatMul"][0]
    assert fused.attrs["activation"] == ""
    out = run_levels(g, [y, pre], {x: R.standard_normal((2, 4)).astype(np.float32)})
    assert_bitwise(out[0], out[2])


def test_product_with_two_readers_is_not_fused():
    g = tf.Graph()
    with g.as_default():
        x, mm, pre, y = _mlp_layer()
        z = y + tf.reduce_sum(mm)
    types = types_after(g, [z], [x])[1]
    assert "FusedMatMul" not in types
    out = run_levels(g, z, {x: R.standard_normal((2, 4)).astype(np.float32)})
    assert_bitwise(out[0], out[2])


def test_activation_under_control_dependency_stays_apart():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        v = tf.Variable(tf.zeros([]))
        w = tf.constant(R.standard_normal((4, 3)).astype(np.float32))
        pre = tf.matmul(x, w) + tf.constant(np.ones(3, np.float32))
        inc = tf.assign_add(v, 1.0)
        with tf.control_dependencies([inc]):
            y = tf.nn.relu(pre)
        init = tf.global_variables_initializer()
    working, types = types_after(g, [y], [x])
    assert types["FusedMatMul"] == 1 and types["Relu"] == 1
    with tf.Session(graph=g) as sess:
        sess.run(init)
        sess.run(y, {x: np.ones((2, 4), np.float32)})
        assert sess.run(v) == 1.0  # the assignment still runs


# ------------------------------------------------------------------ FusedConv2D
@pytest.mark.parametrize("fmt", ["NHWC", "NCHW"])
@pytest.mark.parametrize("activation", ["", "Relu", "Tanh"])
def test_conv_bias_activation_fuse(fmt, activation):
    g = tf.Graph()
    shape = (2, 6, 6, 3) if fmt == "NHWC" else (2, 3, 6, 6)
    with g.as_default():
        x = tf.placeholder(tf.float32, [None] + list(shape[1:]))
        f = tf.constant(R.standard_normal((3, 3, 3, 4)).astype(np.float32))
        b = tf.constant(R.standard_normal(4).astype(np.float32))
        h = tf.nn.conv2d(x, f, strides=[1, 1, 1, 1], padding="SAME", data_format=fmt)
        y = ACTIVATIONS[activation](tf.nn.bias_add(h, b, data_format=fmt))
    types = types_after(g, [y], [x])[1]
    assert types.get("FusedConv2D") == 1 and "Conv2D" not in types
    out = run_levels(g, y, {x: R.standard_normal(shape).astype(np.float32)})
    assert_bitwise(out[0], out[2])


# ------------------------------------------------------------------ FusedElementwise
def tanh_chain(n, shape=(None,)):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, list(shape), name="x")
        y = x
        for _ in range(n):
            y = tf.tanh(y * 1.0001 + 0.001)
    return g, x, y


@pytest.mark.parametrize("size", [(), (1,), (7,), (300,)])
def test_elementwise_chain_is_one_op_and_bitwise_equal(size):
    g, x, y = tanh_chain(50, [None] * len(size))
    working, types = types_after(g, [y], [x])
    assert types == {"Placeholder": 1, "FusedElementwise": 1}
    fused = working.graph.get_operations()[-1]
    assert len(fused.attrs["program"]) == 150
    assert fused.attrs["program"][:3] == (
        ("multiply", (("input", 0), ("const", float(np.float32(1.0001))))),
        ("add", (("step", 0), ("const", float(np.float32(0.001))))),
        ("tanh", (("step", 1),)))
    value = R.standard_normal(size).astype(np.float32)
    kept = value.copy()
    out = run_levels(g, y, {x: value})
    assert_bitwise(out[0], out[2])
    np.testing.assert_array_equal(value, kept)  # the feed is never written into


def test_elementwise_tree_of_same_shape_tensors():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [3, 4])
        b = tf.placeholder(tf.float32, [3, 4])
        s = tf.placeholder(tf.float32, [])
        d = s - (a * 2.0 + tf.exp(b))
        y = tf.square(d) / tf.sqrt(b) + tf.nn.relu6(a) - tf.abs(-a)
    working, types = types_after(g, [y], [a, b, s])
    assert types.get("FusedElementwise") == 1
    assert sum(types.values()) == 4  # three placeholders and the fused op
    feed = {a: R.standard_normal((3, 4)).astype(np.float32),
            b: R.uniform(0.5, 2, (3, 4)).astype(np.float32), s: np.float32(0.7)}
    out = run_levels(g, y, feed)
    assert_bitwise(out[0], out[2])


def test_elementwise_ops_on_same_lineage_fuse_with_unknown_shapes():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [None, None])
        y = tf.exp(x) * tf.sin(x) + x
    types = types_after(g, [y], [x])[1]
    assert types == {"Placeholder": 1, "FusedElementwise": 1}
    out = run_levels(g, y, {x: R.standard_normal((3, 2))})
    assert_bitwise(out[0], out[2])


def test_possibly_broadcasting_operands_do_not_fuse():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        z = tf.placeholder(tf.float32, [None, 3])
        y = tf.tanh(x) + tf.exp(z)  # (1, 3) + (4, 3) would broadcast
    types = types_after(g, [y], [x, z])[1]
    assert "FusedElementwise" not in types
    feed = {x: np.ones((1, 3), np.float32), z: np.ones((4, 3), np.float32)}
    out = run_levels(g, y, feed)
    assert out[2].shape == (4, 3)
    assert_bitwise(out[0], out[2])


def test_fetched_or_shared_intermediates_split_chains():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None])
        a = tf.exp(x) * 2.0      # fetched: stays observable
        b = tf.tanh(a) + 1.0
        c = tf.sin(b) - 3.0      # read twice below
        y = c * c + tf.reduce_sum(c)
    working, types = types_after(g, [y, a], [x])
    fused = [op for op in working.graph.get_operations() if op.type == "FusedElementwise"]
    # exp*2 | tanh+1, sin-3 | c*c + sum(c): c is read twice, so it ends a chain
    assert sorted(len(op.attrs["program"]) for op in fused) == [2, 2, 4]
    assert types.get("Sin", 0) == 0 and types["Sum"] == 1
    out = run_levels(g, [y, a], {x: R.standard_normal(6).astype(np.float32)})
    assert_bitwise(out[0], out[2])


def test_elementwise_fusion_with_int_dtype():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [None])
        y = tf.maximum(x * 3 - 7, -4) + tf.abs(x)
    assert "FusedElementwise" in types_after(g, [y], [x])[1]
    out = run_levels(g, y, {x: np.arange(-5, 6, dtype=np.int32)})
    assert_bitwise(out[0], out[2])


def test_which_ops_fuse_is_read_from_their_definitions():
    """An op joins when its definition states ufunc steps (TruncateMod's ``np.fmod``,
    for floats only: its integer kernel also checks the divisor)."""
    assert elementwise_rule(get_op_def("TruncateMod")) == ((("fmod", (0, 1)),), False)
    assert elementwise_rule(get_op_def("Rsqrt"))[0] == (("sqrt", (0,)),
                                                         ("reciprocal", ("prev",)))
    assert elementwise_rule(get_op_def("Less")) is None       # bool results never fuse
    assert elementwise_rule(get_op_def("Sigmoid")) is None    # no ufunc steps stated
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [None])
        y = tf.truncatemod(tf.exp(x), tf.constant(0.75, tf.float64)) * 3.0
        i = tf.placeholder(tf.int32, [None])
        k = tf.truncatemod(i * 3, 5) + 1           # integers: the divisor check stays
    types = types_after(g, [y], [x])[1]
    assert types == {"Placeholder": 1, "FusedElementwise": 1}
    assert "TruncateMod" in types_after(g, [k], [i])[1]
    out = run_levels(g, [y, k], {x: R.standard_normal(7), i: np.arange(-3, 4, dtype=np.int32)})
    assert_bitwise(out[0], out[2])


def test_long_chain_fuses_in_linear_time():
    def fuse_seconds(n):
        g, x, y = tanh_chain(n)
        best = float("inf")
        for _ in range(3):
            working = WorkingGraph.copy(g, [y], [x])
            eliminate_common_subexpressions(working)
            working.prune()
            start = time.perf_counter()
            assert fuse(working) == 1
            best = min(best, time.perf_counter() - start)
        return best
    small, large = fuse_seconds(250), fuse_seconds(1000)
    assert large < 12 * small + 0.05, (small, large)  # quadratic would be ~16x


# ------------------------------------------------------------------ training graphs
def _mlp_training_graph():
    g = tf.Graph()
    rng = np.random.default_rng(3)
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 6], name="x")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        h = x
        for i, n in enumerate([8, 8, 3]):
            w = tf.Variable((rng.standard_normal((h.shape.raw[1], n)) * 0.5).astype(np.float32),
                            name=f"w{i}")
            b = tf.Variable(np.full(n, 0.1, np.float32), name=f"b{i}")
            h = tf.matmul(h, w) + b
            if i < 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=h))
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        init = tf.global_variables_initializer()
        variables = tf.global_variables()
    return g, x, labels, loss, train, init, variables


def test_mlp_training_step_fuses_and_trains_identically():
    g, x, labels, loss, train, init, variables = _mlp_training_graph()
    working, types = types_after(g, [train, loss], [x, labels])
    fused = [op for op in working.graph.get_operations() if op.type == "FusedMatMul"]
    assert len(fused) == 3
    assert sorted(op.attrs["activation"] for op in fused) == ["", "Relu", "Relu"]
    assert "Relu" not in types and types["ReluGrad"] == 2  # gradients read the fused output
    rng = np.random.default_rng(0)
    batches = [(rng.standard_normal((5, 6)).astype(np.float32), rng.integers(0, 3, 5))
               for _ in range(4)]
    results = {}
    for level in (0, 2):
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            losses = [sess.run([train, loss], {x: xb, labels: yb})[1] for xb, yb in batches]
            results[level] = losses + sess.run(variables)
    assert_bitwise(results[0], results[2])
