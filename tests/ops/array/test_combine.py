"""TF1 behaviour of concat/stack/unstack/split beyond the generic cases: names, static
shapes and values, dtype rules, multi-output conventions and errors."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from staticgraph.ops import constant_value, constant_value_as_shape
from staticgraph.graphlib.op_def import get_op_def
from ...helpers import run, shape


# ------------------------------------------------------------------- concat
def test_concat_is_concatv2_with_axis_last():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [2, None])
    c = tf.concat([x, y], 1)
    assert c.op.type == "ConcatV2" and c.op.name == "concat"
    assert c.op.inputs[-1].op.name == "concat/axis" and c.op.inputs[-1].dtype == tf.int32
    assert len(c.op.inputs) == 3 and shape(c) == (2, None)
    assert shape(tf.concat([x, x], 1)) == (None, 6)
    assert shape(tf.concat([x, tf.placeholder(tf.float32)], 0)) == (None, 3)
    assert shape(tf.concat([x, x], tf.placeholder(tf.int32, []))) == (None, None)


def test_concat_of_one_value_is_identity():
    x = tf.placeholder(tf.float32, [2])
    c = tf.concat([x], 0)
    assert c.op.type == "Identity" and c.op.name == "concat"
    assert tf.concat(x, 0).op.type == "Identity"
    with pytest.raises(ValueError):
        tf.concat([x], [0, 1])


def test_concat_errors():
    x = tf.placeholder(tf.float32, [2, 3])
    with pytest.raises(TypeError, match="don't all match"):
        tf.concat([x, tf.placeholder(tf.int32, [2, 3])], 0)
    with pytest.raises(ValueError, match=r"Expected concatenating dimensions in the range "
                                         r"\[-2, 2\), but got 2"):
        tf.concat([x, x], 2)
    with pytest.raises(ValueError, match="Dimension 1 in both shapes must be equal"):
        tf.concat([x, tf.placeholder(tf.float32, [2, 4])], 0)
    with pytest.raises(ValueError, match="Can't concatenate scalars"):
        tf.concat([tf.constant(1.0), tf.constant(2.0)], 0)
    with pytest.raises(TypeError):
        tf.concat([x, [[1, 2, 3]]], 0.5)


def test_concat_static_value_feeds_shape_inference():
    x = tf.placeholder(tf.float32, [None, 2, 3])
    s = tf.concat([tf.shape(x)[:1], [6]], 0)
    assert constant_value(s) is None
    assert constant_value_as_shape(s).raw == (None, 6)
    assert shape(tf.reshape(x, s)) == (None, 6)
    assert constant_value(tf.concat([[1, 2], [3]], 0)).tolist() == [1, 2, 3]


def test_concat_python_values_take_the_tensor_dtype():
    x = tf.placeholder(tf.float64, [1, 2])
    c = tf.concat([[[1, 2]], x], 0)
    assert c.dtype == tf.float64
    np.testing.assert_array_equal(run(c, {x: [[3, 4]]}), [[1, 2], [3, 4]])


# -------------------------------------------------------------------- stack
def test_stack_of_constants_is_a_constant():
    s = tf.stack([[1, 2], [3, 4]])
    assert s.op.type == "Const" and s.op.name == "stack" and shape(s) == (2, 2)
    t = tf.stack([[1, 2], [3, 4]], axis=1)
    assert t.op.type == "Pack" and run(t).tolist() == [[1, 3], [2, 4]]


def test_stack_shapes_names_and_errors():
    x = tf.placeholder(tf.float32, [None, 3])
    s = tf.stack([x, x, x], axis=1)
    assert s.op.type == "Pack" and s.op.name == "stack" and s.op.attrs["axis"] == 1
    assert shape(s) == (None, 3, 3)
    assert shape(tf.stack([x, tf.placeholder(tf.float32, [2, None])], -1)) == (2, 3, 2)
    with pytest.raises(ValueError, match=r"axis = 3 not in \[-3, 3\)"):
        tf.stack([x, x], axis=3)
    with pytest.raises(ValueError):
        tf.stack([x, tf.placeholder(tf.float32, [None, 4])])
    with pytest.raises(TypeError, match="don't all match"):
        tf.stack([x, tf.placeholder(tf.int32, [None, 3])])


def test_pack_static_value_and_shape():
    x = tf.placeholder(tf.float32, [None, 3])
    p = tf.stack([tf.shape(x)[0], 3])
    assert p.op.type == "Pack" and constant_value(p) is None
    assert constant_value_as_shape(p).raw == (None, 3)
    k = tf.stack([tf.shape(x)[1], tf.constant(5)])
    assert constant_value(k).tolist() == [3, 5] and constant_value(k).dtype == np.int32
    z = tf.zeros(k)
    assert shape(z) == (3, 5)
    # auto-packing a list with tensors (convert_to_tensor) goes through stack
    auto = tf.convert_to_tensor([tf.constant(1), 2])
    assert auto.op.type == "Pack" and constant_value(auto).tolist() == [1, 2]


# ------------------------------------------------------------------ unstack
def test_unstack_infers_num_and_returns_a_list():
    x = tf.placeholder(tf.float32, [None, 3])
    parts = tf.unstack(x, axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    assert parts[0].op.type == "Unpack" and parts[0].op.name == "unstack"
    assert [shape(p) for p in parts] == [(None,)] * 3
    one = tf.unstack(tf.placeholder(tf.float32, [1, 2]))
    assert isinstance(one, list) and len(one) == 1 and shape(one[0]) == (2,)
    assert tf.unstack(tf.placeholder(tf.float32, [0, 2])) == []
    with pytest.raises(ValueError, match="Cannot infer num from shape"):
        tf.unstack(x)
    with pytest.raises(ValueError, match="Cannot infer num from shape"):
        tf.unstack(tf.placeholder(tf.float32))
    with pytest.raises(ValueError, match=r"axis = 2 not in \[-2, 2\)"):
        tf.unstack(x, axis=2)
    v = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = run(parts, {x: v})
    for i in range(3):
        np.testing.assert_array_equal(got[i], v[:, i])


def test_unstack_runtime_mismatch():
    x = tf.placeholder(tf.float32, [None])
    parts = tf.unstack(x, num=2)
    with pytest.raises(InvalidArgumentError):
        run(parts, {x: np.zeros(3, np.float32)})


# -------------------------------------------------------------------- split
def test_split_ops_names_and_lists():
    x = tf.placeholder(tf.float32, [5, 30])
    a, b, c = tf.split(x, [4, 15, 11], 1)
    assert a.op.type == "SplitV" and a.op.name == "split" and a.op.attrs["num_split"] == 3
    assert [shape(t) for t in (a, b, c)] == [(5, 4), (5, 15), (5, 11)]
    parts = tf.split(x, num_or_size_splits=3, axis=1)
    assert parts[0].op.type == "Split" and len(parts) == 3
    assert all(shape(p) == (5, 10) for p in parts)
    assert parts[0].op.inputs[0].dtype == tf.int32  # split_dim comes first, like TF1
    one = tf.split(x, 1)
    assert isinstance(one, list) and len(one) == 1 and shape(one[0]) == (5, 30)
    dim = tf.split(x, x.shape[0])
    assert len(dim) == 5 and shape(dim[0]) == (1, 30)
    rest = tf.split(x, [2, -1], 1)
    assert [shape(t) for t in rest] == [(5, 2), (5, 28)]


def test_split_errors():
    x = tf.placeholder(tf.float32, [5, 30])
    with pytest.raises(ValueError, match="evenly divisible by 4"):
        tf.split(x, 4, 1)
    with pytest.raises(ValueError, match="Determined shape must either match"):
        tf.split(x, [4, 15], 1)
    with pytest.raises(ValueError, match="Only one dimensions can have a value of -1"):
        tf.split(x, [-1, -1, 30], 1)
    with pytest.raises(ValueError, match="Rank-0 tensors are not supported"):
        tf.split(x, tf.constant(3), 1)
    with pytest.raises(ValueError, match="Cannot infer num from shape"):
        tf.split(x, tf.placeholder(tf.int32, [None]), 1)
    sizes = tf.placeholder(tf.int32, [None])
    parts = tf.split(x, sizes, 1, num=2)
    assert [shape(p) for p in parts] == [(5, None)] * 2
    v = np.zeros((5, 30), np.float32)
    got = run(parts, {x: v, sizes: [10, 20]})
    assert [g.shape for g in got] == [(5, 10), (5, 20)]
    with pytest.raises(InvalidArgumentError):
        run(parts, {x: v, sizes: [10, 10]})


def test_split_unknown_dimension_uneven_fails_at_run_time():
    x = tf.placeholder(tf.float32, [None])
    parts = tf.split(x, 2)
    assert [shape(p) for p in parts] == [(None,), (None,)]
    np.testing.assert_array_equal(run(parts, {x: [1, 2, 3, 4]})[1], [3, 4])
    with pytest.raises(InvalidArgumentError, match="evenly divide"):
        run(parts, {x: [1, 2, 3]})


@pytest.mark.parametrize("op_type,args,attrs", [
    ("Unpack", (np.arange(6.0).reshape(2, 3),), {"num": 2, "axis": 0}),
    ("Split", (np.array(0, np.int32), np.arange(6.0)), {"num_split": 2}),
    ("SplitV", (np.arange(6.0), np.array([2, 4], np.int32), np.array(0, np.int32)),
     {"num_split": 2}),
])
def test_multi_output_kernels_return_views(op_type, args, attrs):
    d = get_op_def(op_type)
    out = d.compute(*args, **attrs)
    assert isinstance(out, tuple) and len(out) == 2
    data = args[1] if op_type == "Split" else args[0]
    assert all(np.shares_memory(o, data) for o in out)
    assert d.returns_view


def test_concat_and_pack_kernels_copy():
    a = np.arange(3.0)
    for op_type, out in (("ConcatV2", get_op_def("ConcatV2").compute(a, np.array(0))),
                         ("Pack", get_op_def("Pack").compute(a, axis=0))):
        assert not np.shares_memory(out, a)
        assert not get_op_def(op_type).returns_view


# ---------------------------------------------------------------- gradients
def test_concat_gradient_is_one_splitv_with_static_sizes(fresh_graph):
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32, [None, 3])
    c = tf.concat([x, y, x], 1)
    g = tf.placeholder(tf.float32, [None, 7])
    dx, dy = tf.gradients(c, [x, y], grad_ys=g)
    splits = [op for op in fresh_graph.get_operations()
              if op.name.startswith("gradients/") and op.type == "SplitV"]
    assert len(splits) == 1 and constant_value(splits[0].inputs[1]).tolist() == [2, 3, 2]
    assert shape(dx) == (None, 2) and shape(dy) == (None, 3)
    gv = np.arange(28, dtype=np.float32).reshape(4, 7)
    feed = {x: np.zeros((4, 2)), y: np.zeros((4, 3)), g: gv}
    got_x, got_y = run([dx, dy], feed)
    np.testing.assert_array_equal(got_x, gv[:, :2] + gv[:, 5:])
    np.testing.assert_array_equal(got_y, gv[:, 2:5])


def test_concat_gradient_with_unknown_sizes_and_axis_tensor():
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.placeholder(tf.float32)
    a = tf.placeholder(tf.int64, [])
    c = tf.concat([x, y], a)
    w = np.arange(10, dtype=np.float32).reshape(5, 2)
    dx, dy = tf.gradients(tf.reduce_sum(c * w), [x, y])
    assert shape(dx) == (None, 2)
    got_x, got_y = run([dx, dy], {x: np.zeros((2, 2)), y: np.zeros((3, 2)), a: -2})
    np.testing.assert_array_equal(got_x, w[:2])
    np.testing.assert_array_equal(got_y, w[2:])
    b = tf.placeholder(tf.float32, [2, None])
    c2 = tf.concat([b, b], 1)
    (db,) = tf.gradients(tf.reduce_sum(c2 * np.arange(8, dtype=np.float32).reshape(2, 4)), b)
    np.testing.assert_array_equal(run(db, {b: np.zeros((2, 2))}), [[2, 4], [10, 12]])


def test_stack_unstack_split_gradients_fill_unused_outputs_with_zeros():
    x = tf.placeholder(tf.float32, [None, 3])
    parts = tf.unstack(x, axis=1)
    (dx,) = tf.gradients(parts[1] * 2.0, x)
    np.testing.assert_array_equal(run(dx, {x: np.ones((2, 3))}), [[0, 2, 0], [0, 2, 0]])
    a, b, c = tf.split(x, 3, axis=1)
    (dx,) = tf.gradients(c, x)
    np.testing.assert_array_equal(run(dx, {x: np.ones((2, 3))}), [[0, 0, 1], [0, 0, 1]])
    p, q = tf.split(x, [1, -1], 1)
    (dx,) = tf.gradients(q * 3.0, x)
    np.testing.assert_array_equal(run(dx, {x: np.ones((1, 3))}), [[0, 3, 3]])
    s = tf.stack([x, 2.0 * x], axis=-1)
    (dx,) = tf.gradients(s, x)
    assert dx.shape.raw == (None, 3)
    np.testing.assert_array_equal(run(dx, {x: np.ones((2, 3))}), np.full((2, 3), 3.0))
