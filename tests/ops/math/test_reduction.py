"""TF1 behaviour of reductions beyond the per-op cases: keywords, names, shapes, composites."""

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run


def test_int_mean_is_truncating_integer_division():
    got = run([tf.reduce_mean(tf.constant([1, 2])),
                tf.reduce_mean(tf.constant([-1, -2])),
                tf.reduce_mean(tf.constant([[7, -8], [2, 3]], tf.int64), axis=0)])
    assert got[0] == 1 and got[0].dtype == np.int32
    assert got[1] == -1
    np.testing.assert_array_equal(got[2], np.array([4, -2], np.int64))
    assert got[2].dtype == np.int64


def test_result_dtype_equals_input_dtype():
    x = np.array([[100, 100], [100, 100]], np.int8)
    got = run([tf.reduce_sum(tf.constant(x)), tf.reduce_prod(tf.constant(x[0].astype(np.int16))),
                tf.reduce_max(tf.constant(x)), tf.reduce_mean(tf.constant([1.5, 2.0], tf.float16))])
    assert [g.dtype for g in got] == [np.int8, np.int16, np.int8, np.float16]
    assert got[0] == np.int8(-112)  # 400 wraps around like TF1's int8 accumulator
    assert got[3] == np.float16(1.75)


def test_python_lists_and_defaults():
    total = tf.reduce_sum([[1, 1, 1], [1, 1, 1]], 1)
    assert total.dtype == tf.int32 and total.shape.as_list() == [2]
    np.testing.assert_array_equal(run(total), [3, 3])
    assert run(tf.reduce_sum([[1., 2.], [3., 4.]])) == 10.0


def test_deprecated_aliases_conflict():
    # TF1's deprecated_argument_lookup names the old keyword first
    x = tf.constant([[1.0, 2.0]])
    with pytest.raises(ValueError, match="Cannot specify both 'reduction_indices' and 'axis'"):
        tf.reduce_sum(x, axis=0, reduction_indices=0)
    with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
        tf.reduce_max(x, keepdims=True, keep_dims=True)
    with pytest.raises(ValueError, match="Cannot specify both 'dimension' and 'axis'"):
        tf.argmax(x, axis=0, dimension=0)


def test_default_and_given_op_names():
    x = tf.constant([[1.0, 2.0]])
    for fn, op_type in [(tf.reduce_sum, "Sum"), (tf.reduce_mean, "Mean"),
                        (tf.reduce_max, "Max"), (tf.reduce_min, "Min"),
                        (tf.reduce_prod, "Prod"), (tf.argmax, "ArgMax"),
                        (tf.argmin, "ArgMin")]:
        t = fn(x)
        assert t.op.type == op_type and t.op.name == op_type
        assert fn(x, name=f"my{op_type}").op.name == f"my{op_type}"
    b = tf.constant([True])
    assert tf.reduce_any(b).op.name == "Any" and tf.reduce_all(b).op.name == "All"


def test_static_shapes():
    x = tf.placeholder(tf.float32, [None, 3, 5])
    assert tf.reduce_sum(x, 1).shape.as_list() == [None, 5]
    assert tf.reduce_sum(x, -1, keepdims=True).shape.as_list() == [None, 3, 1]
    assert tf.reduce_sum(x).shape.as_list() == []
    assert tf.reduce_mean(x, keep_dims=True).shape.as_list() == [1, 1, 1]
    assert tf.argmax(x, 2).shape.as_list() == [None, 3]
    assert tf.reduce_sum(x, [0, 0, -3]).shape.as_list() == [3, 5]


def test_axis_out_of_range_raises_while_declaring():
    x = tf.placeholder(tf.float32, [2, 3])
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2"):
        tf.reduce_sum(x, 2)
    with pytest.raises(ValueError, match="Invalid reduction dimension -3"):
        tf.reduce_mean(x, [0, -3])
    with pytest.raises(ValueError, match="Expected dimension in the range"):
        tf.argmax(x, 2)
    with pytest.raises(TypeError):
        tf.reduce_sum(x, 0.5)


def test_axis_from_a_computed_tensor():
    x = tf.placeholder(tf.float32, [2, 3])
    ax_vec = tf.placeholder(tf.int32, [None])
    ax = tf.placeholder(tf.int32, [])
    plain = tf.reduce_sum(x, ax_vec)
    kept = tf.reduce_max(x, ax_vec, keepdims=True)
    single = tf.reduce_min(x, ax)
    arg = tf.argmax(x, ax)
    assert plain.shape.rank is None
    assert kept.shape.as_list() == [None, None]
    assert single.shape.as_list() == [None]
    assert arg.shape.as_list() == [None]
    v = np.array([[1, 5, 2], [4, 0, 6]], np.float32)
    got = run([plain, kept, single, arg], {x: v, ax_vec: [1, -1], ax: -1})
    np.testing.assert_array_equal(got[0], [8, 10])
    np.testing.assert_array_equal(got[1], [[5], [6]])
    np.testing.assert_array_equal(got[2], [1, 0])
    np.testing.assert_array_equal(got[3], [1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(plain, {x: v, ax_vec: [2]})


def test_empty_reductions_give_identities():
    e = tf.constant(np.zeros((0,), np.int32))
    got = run([tf.reduce_max(e), tf.reduce_min(e), tf.reduce_sum(e), tf.reduce_prod(e),
                tf.reduce_min(tf.constant(np.zeros((0,), np.float32)))])
    assert got[:4] == [np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0, 1]
    assert got[4] == np.inf


def test_argmax_defaults_to_axis_zero_and_int64():
    x = tf.constant([[1, 9], [5, 2], [3, 3]])
    a = tf.argmax(x)
    assert a.dtype == tf.int64 and a.shape.as_list() == [2]
    np.testing.assert_array_equal(run(a), [1, 0])
    b = tf.argmin(x, 1, output_type=tf.int32)
    assert b.dtype == tf.int32
    np.testing.assert_array_equal(run(b), [0, 1, 0])
    with pytest.raises(TypeError):
        tf.argmax(x, output_type=tf.float32)


def test_reduce_logsumexp_is_stable():
    x = np.array([[1000.0, 1000.0, 990.0], [-1000.0, -1000.0, -1e4]], np.float32)
    t = tf.constant(x)
    rows = tf.reduce_logsumexp(t, axis=1)
    kept = tf.reduce_logsumexp(t, 1, keep_dims=True)
    everything = tf.reduce_logsumexp(tf.constant([0., 0., 0., 0.]))
    inf = tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf]))
    assert rows.shape.as_list() == [2] and kept.shape.as_list() == [2, 1]
    assert everything.shape.as_list() == []
    got = run([rows, kept, everything, inf])
    want = np.array([1000 + np.log(2 + np.exp(-10.0)), -1000 + np.log(2)])
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    np.testing.assert_allclose(got[1], want[:, None], rtol=1e-6)
    np.testing.assert_allclose(got[2], np.log(4.0), rtol=1e-6)
    assert got[3] == -np.inf
    assert rows.op.name.startswith("ReduceLogSumExp/")


def test_count_nonzero():
    x = tf.constant([[0.0, 1.5, -0.0], [np.nan, 2.0, 0.0]])
    total = tf.count_nonzero(x)
    rows = tf.count_nonzero(x, axis=1, keepdims=True, dtype=tf.int32)
    old = tf.count_nonzero(input=x, reduction_indices=[0], keep_dims=False)
    flags = tf.count_nonzero(tf.constant([True, False, True]))
    assert total.dtype == tf.int64 and rows.dtype == tf.int32
    assert rows.shape.as_list() == [2, 1] and old.shape.as_list() == [3]
    got = run([total, rows, old, flags])
    assert got[0] == 3
    np.testing.assert_array_equal(got[1], [[1], [2]])
    np.testing.assert_array_equal(got[2], [1, 2, 0])
    assert got[3] == 2
    assert total.op.name.startswith("count_nonzero")


def test_unknown_rank_reduce_all_is_scalar():
    x = tf.placeholder(tf.float32, None)
    s = tf.reduce_sum(x)
    k = tf.reduce_mean(x, keepdims=True)
    assert s.shape.as_list() == []
    assert k.shape.rank is None
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = run([s, k], {x: v})
    assert got[0] == 15.0
    np.testing.assert_allclose(got[1], [[2.5]])


# ---------------------------------------------------------------------- gradients
_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1


def _grad(build, value, shape):
    """d sum(build(x) * w) / dx for a placeholder of ``shape``, with fixed weights."""
    x = tf.placeholder(tf.float32, shape)
    y = build(x)
    w = np.random.default_rng(3).standard_normal(run(y, {x: value}).shape).astype(np.float32)
    g, = tf.gradients(tf.reduce_sum(y * w), x)
    return run(g, {x: value}), w


@pytest.mark.parametrize("shape", [(2, 3, 4), (None, 3, None), None])
@pytest.mark.parametrize("axis,keep", [(1, False), ([0, -1], False), ([2, 0, 2], True),
                                       (None, False), ([], False)])
def test_sum_and_mean_gradients_with_unknown_shapes(shape, axis, keep):
    axes = tuple(range(3)) if axis is None else tuple(sorted({a % 3 for a in axis})) \
        if isinstance(axis, list) else (axis,)
    for fn, scale in ((tf.reduce_sum, 1.0), (tf.reduce_mean, None)):
        got, w = _grad(lambda x, fn=fn: fn(x, axis, keepdims=keep), _X, shape)
        count = int(np.prod([_X.shape[a] for a in axes]))
        want = np.broadcast_to(w if keep else np.expand_dims(w, axes), _X.shape)
        want = want * (scale if scale is not None else 1.0 / max(count, 1))
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
        assert got.shape == _X.shape and got.dtype == np.float32


def test_sum_gradient_with_computed_axis_and_unknown_rank():
    x = tf.placeholder(tf.float32)
    axis = tf.placeholder(tf.int32)
    y = tf.reduce_sum(x, axis, keepdims=False)
    g, = tf.gradients(tf.reduce_sum(y * y), x)
    got = run(g, {x: _X, axis: [2, -3]})
    np.testing.assert_allclose(got, np.broadcast_to(2 * _X.sum((0, 2), keepdims=True),
                                                    _X.shape), rtol=1e-6)


def test_sum_gradient_of_full_reduction_is_one_broadcast():
    # The training loop's loss reduction: a single BroadcastTo in the gradient.
    x = tf.placeholder(tf.float32, [128, 10])
    g, = tf.gradients(tf.reduce_mean(x), x)
    grad_ops = [op.type for op in tf.get_default_graph().get_operations()
                if op.name.startswith("gradients/Mean_grad/")]
    assert sorted(grad_ops).count("BroadcastTo") == 1 and "Reshape" not in grad_ops
    np.testing.assert_allclose(run(g, {x: np.zeros((128, 10), np.float32)}),
                               np.full((128, 10), 1 / 1280, np.float32))


def test_max_and_min_gradients_split_ties_equally():
    x = tf.constant([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [0.0, -1.0, 5.0]])
    gmax, = tf.gradients(tf.reduce_max(x, 1), x)
    gmin, = tf.gradients(tf.reduce_min(x, keepdims=True), x)
    np.testing.assert_allclose(run(gmax), [[0, .5, .5], [1 / 3, 1 / 3, 1 / 3], [0, 0, 1]])
    np.testing.assert_allclose(run(gmin), [[0, 0, 0], [0, 0, 0], [0, 1, 0]])


def test_max_gradient_with_unknown_shape():
    got, w = _grad(lambda x: tf.reduce_max(x, [0, 2]), _X, None)
    want = np.zeros_like(_X)
    want[1, :, 3] = w  # the largest values are in the last row of the second block
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("shape", [(3, 4), (None, None), None])
def test_prod_gradient_with_zeros_like_tf1(shape):
    x = np.array([[0.0, 2.0, 0.0, 1.5], [1.0, 0.0, -2.0, 3.0], [2.0, 3.0, 0.5, 1.0]],
                 np.float32)
    got, w = _grad(lambda t: tf.reduce_prod(t, 1), x, shape)
    want = np.array([[0, 0, 0, 0], [0, -6.0, 0, 0], [1.5, 1.0, 6.0, 3.0]], np.float32)
    np.testing.assert_allclose(got, want * w[:, None], rtol=1e-6)
    got, w = _grad(lambda t: tf.reduce_prod(t, [0, 1]), x, shape)
    assert got.shape == x.shape and not np.any(got)  # two zeros: every gradient is zero


def test_prod_gradient_of_several_axes_with_unknown_rank():
    x = tf.placeholder(tf.float32)
    axis = tf.placeholder(tf.int32)
    g, = tf.gradients(tf.reduce_prod(x, axis), x)
    value = np.array([[[1.0, 2.0], [3.0, -1.0]], [[0.5, 2.0], [1.0, 4.0]]], np.float32)
    got = run(g, {x: value, axis: [2, 0]})
    prods = value.prod((0, 2), keepdims=True)
    np.testing.assert_allclose(got, np.broadcast_to(prods, value.shape) / value, rtol=1e-6)


def test_integer_reductions_block_gradients():
    x = tf.placeholder(tf.float32, [3])
    # as in TF1, no gradient flows through the integer index (None, not an error)
    assert tf.gradients(tf.cast(tf.argmax(x), tf.float32), x) == [None]
    g, = tf.gradients(tf.cast(tf.argmin(x), tf.float32) * x, x)
    np.testing.assert_allclose(run(g, {x: [3.0, 1.0, 2.0]}), [1.0, 1.0, 1.0])
