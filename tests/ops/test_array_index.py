"""TF1 behaviour of the indexing ops beyond the generic cases: names, errors, static
shapes, dtype rules, tie-breaking and first-occurrence order."""

import time

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.ops import constant_value


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def shape(t):
    return t.shape.raw


# ------------------------------------------------------------------ slicing
def test_getitem_is_one_strided_slice_named_like_tf1():
    x = tf.placeholder(tf.float32, [3, 4])
    y = x[1:, -1]
    assert y.op.type == "StridedSlice"
    assert y.op.name == "strided_slice"
    assert [t.op.name for t in y.op.inputs[1:]] == [
        "strided_slice/stack", "strided_slice/stack_1", "strided_slice/stack_2"]
    assert y.op.attrs["begin_mask"] == 0 and y.op.attrs["end_mask"] == 1
    assert y.op.attrs["shrink_axis_mask"] == 2
    assert constant_value(y.op.inputs[1]).tolist() == [1, -1]
    assert constant_value(y.op.inputs[2]).tolist() == [0, 0]
    assert tf.strided_slice(x, [0], [1]).op.name == "StridedSlice"


def test_out_of_range_constant_index_raises_at_declaration():
    x = tf.placeholder(tf.float32, [3, None])
    with pytest.raises(ValueError, match="slice index 3 of dimension 0 out of bounds"):
        x[3]
    with pytest.raises(ValueError, match="out of bounds"):
        x[-4]
    y = x[:, 7]  # unknown dimension: checked when run
    assert shape(y) == (3,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        run(y, {x: np.zeros((3, 2), np.float32)})


def test_static_shapes_of_slices():
    x = tf.placeholder(tf.float32, [None, 6, 5])
    assert shape(x[:, 1]) == (None, 5)
    assert shape(x[..., ::2]) == (None, 6, 3)
    assert shape(x[0, ::-1, tf.newaxis]) == (6, 1, 5)
    assert shape(x[1:3]) == (None, 6, 5)
    assert shape(x[:, -2:, 1:-1]) == (None, 2, 3)
    assert shape(x[:, 10:]) == (None, 0, 5)
    assert shape(x[..., 1, :]) == (None, 5)
    u = tf.placeholder(tf.float32, None)
    assert u[0].shape.rank is None


def test_strided_slice_stride_zero_and_multiple_ellipses():
    x = tf.placeholder(tf.float32, [3, 4])
    with pytest.raises(ValueError, match="must be non-zero"):
        x[::0]
    with pytest.raises(ValueError, match="Multiple ellipses"):
        x[..., ...]
    with pytest.raises(ValueError, match="Index out of range"):
        x[0, 0, 0]


def test_invalid_index_types_raise_type_error():
    x = tf.placeholder(tf.float32, [3, 4])
    for key in (1.5, "a", [[0, 1]], tf.constant([0, 1]), tf.constant(1.0)):
        with pytest.raises(TypeError, match="valid indices"):
            x[key]


def test_numpy_integers_and_dimensions_as_indices():
    x = tf.constant(np.arange(12).reshape(3, 4))
    i = np.int64(2)
    got = run([x[i], x[:, np.int32(-1)], x[x.shape[0] - 2]])
    assert got[0].tolist() == [8, 9, 10, 11]
    assert got[1].tolist() == [3, 7, 11]
    assert got[2].tolist() == [4, 5, 6, 7]


def test_constant_slices_are_known_while_declaring():
    c = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert constant_value(c[1, ::-1]).tolist() == [6, 5, 4]
    assert constant_value(tf.slice(c, [0, 1], [-1, 1])).tolist() == [[2], [5]]
    assert constant_value(tf.gather(c, [1, 0], axis=1)).tolist() == [[2, 1], [5, 4]]


def test_known_entries_of_a_partly_known_shape_are_static():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    assert constant_value(tf.shape(x)[1]) == 3
    assert constant_value(tf.shape(x)[-2:]).tolist() == [3, 4]
    assert constant_value(tf.shape(x)[0]) is None
    assert constant_value(tf.shape(x)[:2]) is None


def test_kernel_returns_views_without_touching_input():
    v = np.arange(10, dtype=np.float32)
    x = tf.placeholder(tf.float32, [10])
    y = x[::-3]
    assert tf.ops.get_op_def("StridedSlice").returns_view
    assert run(y, {x: v}).tolist() == [9.0, 6.0, 3.0, 0.0]
    assert v.tolist() == list(range(10))


def test_getitem_with_scalar_tensor_index_keeps_static_rank():
    x = tf.placeholder(tf.float32, [4, 3])
    i = tf.placeholder(tf.int32, [])
    y = x[i]
    assert y.op.type == "StridedSlice"
    assert shape(y) == (3,)
    assert shape(x[i:, 1]) == (None,)
    v = np.arange(12, dtype=np.float32).reshape(4, 3)
    assert run(y, {x: v, i: 2}).tolist() == [6.0, 7.0, 8.0]
    assert run(x[:i, ::-1], {x: v, i: 1}).tolist() == [[2.0, 1.0, 0.0]]


def test_slice_sizes_and_errors():
    x = tf.placeholder(tf.float32, [4, None])
    assert tf.slice(x, [0, 0], [1, 1]).op.name == "Slice"
    assert shape(tf.slice(x, [1, 2], [-1, 3])) == (3, 3)
    assert shape(tf.slice(x, [1, 2], [2, -1])) == (2, None)
    with pytest.raises(ValueError, match=r"Expected size\[0\] in \[0, 3\], but got 4"):
        tf.slice(x, [1, 0], [4, 1])
    with pytest.raises(ValueError, match=r"Expected begin\[0\] in \[0, 4\], but got 5"):
        tf.slice(x, [5, 0], [0, 1])
    y = tf.slice(x, [0, 1], [1, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="size"):
        run(y, {x: np.zeros((4, 2), np.float32)})


# ------------------------------------------------------------------- gather
def test_gather_out_of_range_names_the_index_at_run_time():
    p = tf.placeholder(tf.float32, [5, 2])
    i = tf.placeholder(tf.int32, [None])
    y = tf.gather(p, i)
    assert y.op.type == "GatherV2" and y.op.name == "GatherV2"
    assert shape(y) == (None, 2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = 7 is not in \[0, 5\)"):
        run(y, {p: np.zeros((5, 2), np.float32), i: [0, 7, 1]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = -1 is not in"):
        run(y, {p: np.zeros((5, 2), np.float32), i: [-1]})


def test_gather_axis_defaults_to_batch_dims():
    p = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    idx = np.array([[2, 0], [1, 1]], np.int32)
    y = tf.gather(p, idx, batch_dims=1)
    assert shape(y) == (2, 2, 4)
    want = np.stack([p[0][[2, 0]], p[1][[1, 1]]])
    np.testing.assert_array_equal(run(y), want)
    with pytest.raises(ValueError, match="batch_dims"):
        tf.gather(p, idx, axis=0, batch_dims=1)
    with pytest.raises(ValueError, match="axis"):
        tf.gather(p, idx, axis=3)


def test_gather_static_shape_with_unknown_axis():
    p = tf.placeholder(tf.float32, [2, 3])
    a = tf.placeholder(tf.int32, [])
    assert shape(tf.gather(p, [[0]], axis=a)) == (None, None, None)


def test_gather_nd_errors():
    p = tf.placeholder(tf.float32, [3, 5])
    i = tf.placeholder(tf.int32, [None, 2])
    y = tf.gather_nd(p, i)
    assert y.op.name == "GatherNd" and shape(y) == (None,)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"indices\[1\] = \[1, 7\] does not index into param shape \[3,5\]"):
        run(y, {p: np.zeros((3, 5), np.float32), i: [[0, 0], [1, 7]]})
    with pytest.raises(ValueError, match="must be <= params.rank"):
        tf.gather_nd(p, tf.placeholder(tf.int32, [4, 3]))


# ------------------------------------------------------------------ one_hot
def test_one_hot_dtypes_and_name():
    i = tf.constant([0, 2])
    y = tf.one_hot(i, 3)
    assert y.dtype == tf.float32 and y.op.name == "one_hot" and y.op.type == "OneHot"
    assert tf.one_hot(i, 3, on_value=5).dtype == tf.int32
    assert tf.one_hot(i, 3, off_value=0.5).dtype == tf.float32
    assert tf.one_hot(i, 3, on_value=2.0, dtype=tf.float64).dtype == tf.float64
    assert tf.one_hot(i, 3, dtype=tf.int64).dtype == tf.int64
    with pytest.raises(TypeError, match="does not match"):
        tf.one_hot(i, 3, on_value=1.0, off_value=0)
    with pytest.raises(TypeError, match="does not match dtype parameter"):
        tf.one_hot(i, 3, on_value=tf.constant(1.0), dtype=tf.int32)
    assert run(tf.one_hot(i, 3, on_value=5)).tolist() == [[5, 0, 0], [0, 0, 5]]


def test_one_hot_static_shape_and_out_of_range_rows():
    i = tf.placeholder(tf.int64, [None, 2])
    assert shape(tf.one_hot(i, 4)) == (None, 2, 4)
    assert shape(tf.one_hot(i, 4, axis=1)) == (None, 4, 2)
    assert shape(tf.one_hot(i, tf.placeholder(tf.int32, []))) == (None, 2, None)
    got = run(tf.one_hot(i, 3), {i: [[-1, 3], [1, 2]]})
    assert got.tolist() == [[[0, 0, 0], [0, 0, 0]], [[0, 1, 0], [0, 0, 1]]]


# ------------------------------------------------------------- boolean_mask
def test_boolean_mask_shapes_and_name():
    x = tf.placeholder(tf.float32, [None, 3, 2])
    m = tf.placeholder(tf.bool, [None])
    y = tf.boolean_mask(x, m)
    assert y.op.name == "boolean_mask" and shape(y) == (None, 3, 2)
    assert shape(tf.boolean_mask(x, tf.placeholder(tf.bool, [3, 2]), axis=1)) == (None, None)
    c = tf.boolean_mask(tf.constant([[1, 2], [3, 4], [5, 6]]), [True, False, True])
    assert shape(c) == (2, 2)
    assert run(c).tolist() == [[1, 2], [5, 6]]
    with pytest.raises(ValueError, match="scalar"):
        tf.boolean_mask(x, True)
    with pytest.raises(ValueError, match="incompatible"):
        tf.boolean_mask(x, tf.placeholder(tf.bool, [None, 4]))


# -------------------------------------------------------------------- top_k
def test_top_k_ties_lower_index_first_and_outputs():
    x = tf.constant([1.0, 3.0, 3.0, 2.0, 3.0])
    out = tf.top_k(x, k=2)
    assert out.values.op.type == "TopKV2" and out.values.op.name == "TopKV2"
    assert out.indices.dtype == tf.int32
    values, indices = run(out)
    assert values.tolist() == [3.0, 3.0] and indices.tolist() == [1, 2]
    assert run(tf.top_k([[5, 5, 5, 5]], 3).indices).tolist() == [[0, 1, 2]]


def test_top_k_errors_and_static_shape():
    x = tf.placeholder(tf.float32, [None, 4])
    assert shape(tf.top_k(x, 3).values) == (None, 3)
    assert shape(tf.top_k(x, tf.placeholder(tf.int32, [])).indices) == (None, None)
    with pytest.raises(ValueError, match="k = 5"):
        tf.top_k(x, 5)
    with pytest.raises(ValueError, match="k >= 0"):
        tf.top_k(x, -1)
    k = tf.placeholder(tf.int32, [])
    with pytest.raises(tf.errors.InvalidArgumentError, match="at least k columns"):
        run(tf.top_k(x, k), {x: np.zeros((1, 4), np.float32), k: 6})


def test_top_k_matches_stable_sort_on_large_input_and_is_fast():
    rng = np.random.default_rng(3)
    v = rng.integers(0, 50, (200, 5000)).astype(np.float32)  # many ties
    x = tf.placeholder(tf.float32, [None, None])
    out = tf.top_k(x, 7)
    with tf.Session() as sess:
        sess.run(out, {x: v})
        start = time.perf_counter()
        values, indices = sess.run(out, {x: v})
        elapsed = time.perf_counter() - start
    want = np.argsort(-v, axis=1, kind="stable")[:, :7]
    np.testing.assert_array_equal(indices, want)
    np.testing.assert_array_equal(values, np.take_along_axis(v, want, 1))
    assert elapsed < 0.5, elapsed


def test_top_k_is_exported_under_nn():
    assert tf.nn.top_k is tf.top_k


# ------------------------------------------------------ sequence_mask/unique
def test_sequence_mask_static_shape_and_values():
    n = tf.placeholder(tf.int32, [3])
    assert shape(tf.sequence_mask(n)) == (3, None)
    assert shape(tf.sequence_mask(n, 4)) == (3, 4)
    assert shape(tf.sequence_mask([1, 4])) == (2, 4)
    got = run(tf.sequence_mask(n, 3, dtype=tf.int32), {n: [0, 1, 3]})
    assert got.dtype == np.int32 and got.tolist() == [[0, 0, 0], [1, 0, 0], [1, 1, 1]]
    with pytest.raises(ValueError, match="scalar"):
        tf.sequence_mask(n, [3, 4])


def test_unique_first_occurrence_order_not_sorted():
    y, idx = tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
    assert y.op.type == "Unique" and y.op.name == "Unique" and idx.dtype == tf.int32
    out = run(tf.unique(tf.constant([9, 3, 9, 1, 3])))
    assert out.y.tolist() == [9, 3, 1] and out.idx.tolist() == [0, 1, 0, 2, 1]
    got_y, got_idx = run([y, idx])
    assert got_y.tolist() == [1, 2, 4, 7, 8]
    assert got_idx.tolist() == [0, 0, 1, 2, 2, 2, 3, 4, 4]
    with pytest.raises(ValueError, match="1D"):
        tf.unique(tf.constant([[1, 2]]))


def _random_key(rng, rank):
    items, dims = [], 0
    ellipsis = False
    for _ in range(rng.integers(0, rank + 2)):
        kind = rng.integers(0, 10)
        if kind == 0:
            items.append(None)
        elif kind == 1 and not ellipsis:
            items.append(Ellipsis)
            ellipsis = True
        elif dims < rank and kind < 5:
            items.append(int(rng.integers(-3, 3)))
            dims += 1
        elif dims < rank:
            pick = lambda: None if rng.random() < 0.3 else int(rng.integers(-8, 8))  # noqa: E731
            step = None if rng.random() < 0.3 else int(rng.choice([-3, -2, -1, 1, 2, 3]))
            items.append(slice(pick(), pick(), step))
            dims += 1
    return tuple(items)


@pytest.mark.parametrize("known", [True, False])
def test_getitem_matches_numpy_on_random_keys(known):
    rng = np.random.default_rng(11)
    v = np.arange(3 * 4 * 5, dtype=np.int32).reshape(3, 4, 5)
    x = tf.placeholder(tf.int32, [3, 4, 5] if known else [None, None, None])
    keys = [_random_key(rng, 3) for _ in range(300)]
    outs = [x[k] for k in keys]
    got = run(outs, {x: v})
    for k, t, g in zip(keys, outs, got):
        want = v[k]
        assert g.shape == want.shape, k
        np.testing.assert_array_equal(g, want, err_msg=str(k))
        if known:
            assert shape(t) == want.shape, k
        else:
            assert t.shape.is_compatible_with(want.shape), k


def test_second_getitem_is_strided_slice_1():
    x = tf.placeholder(tf.float32, [3])
    x[0]
    assert x[1].op.name == "strided_slice_1"


def test_getitem_on_variables_and_default_strides_from_tensor():
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = tf.placeholder(tf.int32, [None])
    e = tf.placeholder(tf.int32, [None])
    y = tf.strided_slice(v, b, e)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first, rev, part = sess.run([v[1], v[:, ::-1][0], y], {b: [0, 1], e: [2, 3]})
    assert first.tolist() == [3.0, 4.0, 5.0]
    assert rev.tolist() == [2.0, 1.0, 0.0]
    assert part.tolist() == [[1.0, 2.0], [4.0, 5.0]]


def test_top_k_on_empty_inputs():
    x = tf.placeholder(tf.float32, [None, None])
    values, indices = run(tf.top_k(x, 2), {x: np.zeros((0, 5), np.float32)})
    assert values.shape == (0, 2) and indices.shape == (0, 2) and indices.dtype == np.int32
