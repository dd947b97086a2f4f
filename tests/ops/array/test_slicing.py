"""TF1 behaviour of slicing (``tensor[...]``, strided_slice, slice) beyond the generic
cases: names, errors, static shapes and values, and random keys against numpy."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.ops import constant_value
from staticgraph.ops.array.slicing import strided_slice_grad
from ...helpers import run, shape


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


# ------------------------------------------------------------- gradients
def test_strided_slice_gradient_is_one_strided_slice_grad_op():
    x = tf.placeholder(tf.float32, [3, 4])
    (g,) = tf.gradients(tf.reduce_sum(x[1:, ::-2]), [x])
    assert g.op.type == "StridedSliceGrad" and shape(g) == (3, 4)
    assert g.op.attrs["begin_mask"] == 2 and g.op.attrs["end_mask"] == 3
    got = run(g, {x: np.zeros((3, 4), np.float32)})
    np.testing.assert_array_equal(got, [[0, 0, 0, 0], [0, 1, 0, 1], [0, 1, 0, 1]])


@pytest.mark.parametrize("known_rank", [True, False])
def test_slice_gradients_with_unknown_shapes(known_rank):
    from .test_gather import grads_unknown
    x = np.arange(20, dtype=np.float64).reshape(4, 5)
    (g,), w = grads_unknown(lambda v: v[None, 1:, -1::-2], [x], known_rank=known_rank)
    want = np.zeros_like(x)
    want[1:, -1::-2] = w[0]
    np.testing.assert_allclose(g, want)
    (g,), w = grads_unknown(lambda v, b: tf.slice(v, b, [2, -1]),
                            [x, np.array([1, 2], np.int64)], known_rank=known_rank)
    assert g.shape == (4, 5)
    want = np.zeros_like(x)
    want[1:3, 2:] = w
    np.testing.assert_allclose(g, want)


def test_slice_gradient_pads_dy_back():
    x = tf.placeholder(tf.float64, [3, 4])
    (g,) = tf.gradients(tf.reduce_sum(tf.slice(x, [1, 1], [1, 2])), [x])
    assert g.op.type == "Pad"
    assert run(g, {x: np.zeros((3, 4))}).tolist() == [[0, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]]


def test_strided_slice_grad_errors():
    masks = dict(begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                 shrink_axis_mask=0)
    with pytest.raises(ValueError, match="does not match the slice"):
        strided_slice_grad(tf.constant([5]), [1], [3], [1], tf.zeros([3]), masks)
    dy = tf.placeholder(tf.float32, None)
    g = strided_slice_grad(tf.constant([5]), [1], [3], [1], dy, masks)
    assert shape(g) == (5,)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not match the slice"):
        run(g, {dy: np.zeros([3], np.float32)})
    with pytest.raises(TypeError):
        strided_slice_grad(tf.constant([5], tf.int64), [1], [3], [1], dy, masks)
