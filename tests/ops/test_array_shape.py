"""TF1 behaviour of reshape, transpose, expand_dims, squeeze, shape, size and rank beyond
the generic cases: names, keyword aliases, static shapes and values, and errors; and the
view/copy contract of the array kernels."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from staticgraph.ops import constant_value, constant_value_as_shape, get_op_def
from ..helpers import run, shape


# ------------------------------------------------------------------ reshape
def test_reshape_static_shapes():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    assert shape(tf.reshape(x, [-1, 12])) == (None, 12)
    assert shape(tf.reshape(x, [tf.shape(x)[0], -1])) == (None, 12)
    assert shape(tf.reshape(x, [tf.shape(x)[0], 2, -1])) == (None, 2, 6)
    assert shape(tf.reshape(x, tf.shape(x))) == (None, 3, 4)
    assert shape(tf.reshape(x, [-1, 5])) == (None, 5)  # cannot refuse: batch unknown
    y = tf.placeholder(tf.float32, [2, 3, 4])
    assert shape(tf.reshape(y, [4, -1])) == (4, 6)
    assert shape(tf.reshape(y, tf.stack([tf.shape(y)[0], -1]))) == (2, 12)
    s = tf.placeholder(tf.int32, [3])
    assert shape(tf.reshape(y, s)) == (None, None, None)
    assert tf.reshape(y, tf.placeholder(tf.int32)).shape.rank is None
    u = tf.placeholder(tf.float32)
    assert shape(tf.reshape(u, [2, -1])) == (2, None)


def test_reshape_refuses_known_mismatch_at_declaration():
    y = tf.placeholder(tf.float32, [2, 3])
    with pytest.raises(ValueError, match="Cannot reshape a tensor with 6 elements"):
        tf.reshape(y, [4, 2])
    with pytest.raises(ValueError, match="not divisible"):
        tf.reshape(y, [4, -1])
    with pytest.raises(ValueError, match="Only one input size may be -1"):
        tf.reshape(y, [-1, -1])
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match="not a multiple"):
        tf.reshape(x, [2, 4])


def test_reshape_names_and_values():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    r = tf.reshape(x, [tf.shape(x)[0], -1])
    assert r.op.name == "Reshape" and r.op.type == "Reshape"
    assert r.op.inputs[1].op.name == "Reshape/shape" and r.op.inputs[1].op.type == "Pack"
    v = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(run(r, {x: v}), v.reshape(2, 12))
    z = np.zeros((0, 3, 4), np.float32)
    assert run(r, {x: z}).shape == (0, 12)  # TF1 infers -1 from the non-zero sizes


def test_reshape_runtime_mismatch_is_invalid_argument():
    x = tf.placeholder(tf.float32, [None, 3])
    r = tf.reshape(x, [2, 3])
    with pytest.raises(InvalidArgumentError, match="Reshape"):
        run(r, {x: np.zeros((3, 3), np.float32)})


# ---------------------------------------------------------------- transpose
def test_transpose_default_perm_and_names():
    x = tf.placeholder(tf.float32, [2, None, 4])
    t = tf.transpose(x)
    assert t.op.name == "transpose" and t.op.type == "Transpose"
    assert shape(t) == (4, None, 2)
    assert constant_value(t.op.inputs[1]).tolist() == [2, 1, 0]
    assert shape(tf.transpose(x, perm=[0, 2, 1], name="tr")) == (2, 4, None)
    with pytest.raises(ValueError, match="transpose expects a vector of size 3"):
        tf.transpose(x, [1, 0])
    with pytest.raises(ValueError):
        tf.transpose(x, [0, 0, 1])


def test_transpose_unknown_rank_reverses_at_run_time():
    u = tf.placeholder(tf.float32)
    t = tf.transpose(u)
    v = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = run(t, {u: v})
    assert got.shape == (4, 3, 2)
    assert got[3, 2, 1] == v[1, 2, 3]


# ------------------------------------------------------- expand_dims/squeeze
def test_expand_dims_aliases_and_errors():
    x = tf.placeholder(tf.float32, [2, 3])
    e = tf.expand_dims(x, dim=1)
    assert e.op.name == "ExpandDims" and shape(e) == (2, 1, 3)
    assert shape(tf.expand_dims(x, -1)) == (2, 3, 1)
    assert shape(tf.expand_dims(x, axis=-3)) == (1, 2, 3)
    with pytest.raises(ValueError, match="both"):
        tf.expand_dims(x, axis=0, dim=0)
    with pytest.raises(ValueError, match="Must specify an axis"):
        tf.expand_dims(x)
    with pytest.raises(ValueError, match="Tried to expand dim index 3"):
        tf.expand_dims(x, 3)


def test_squeeze_aliases_and_static_shapes():
    x = tf.placeholder(tf.float32, [1, 2, 1, 3])
    s = tf.squeeze(x)
    assert s.op.name == "Squeeze" and shape(s) == (2, 3)
    assert shape(tf.squeeze(x, squeeze_dims=[0])) == (2, 1, 3)
    assert shape(tf.squeeze(x, axis=-2)) == (1, 2, 3)
    with pytest.raises(ValueError, match="both"):
        tf.squeeze(x, axis=[0], squeeze_dims=[0])
    with pytest.raises(ValueError, match=r"Can not squeeze dim\[1\]"):
        tf.squeeze(x, [1])
    assert tf.squeeze(tf.placeholder(tf.float32, [None, 3])).shape.rank is None
    y = tf.placeholder(tf.float32, [None, 1])
    with pytest.raises(InvalidArgumentError):
        run(tf.squeeze(y, [0]), {y: np.zeros((2, 1), np.float32)})


# ------------------------------------------------------ shape / size / rank
def test_shape_size_rank_fold_to_constants_when_known():
    x = tf.placeholder(tf.float32, [2, 3])
    s = tf.shape(x)
    assert s.op.type == "Shape" and s.op.name == "Shape" and s.dtype == tf.int32
    assert constant_value(s).tolist() == [2, 3] and constant_value(s).dtype == np.int32
    assert constant_value(tf.shape(x, out_type=tf.int64)).dtype == np.int64
    n, r = tf.size(x), tf.rank(x)
    assert constant_value(n) == 6 and n.op.name == "Size" and n.dtype == tf.int32
    assert constant_value(r) == 2 and r.op.name == "Rank" and r.dtype == tf.int32
    y = tf.placeholder(tf.float32, [None, 3])
    assert constant_value(tf.shape(y)) is None and shape(tf.shape(y)) == (2,)
    assert constant_value(tf.size(y)) is None
    assert constant_value(tf.rank(y)) == 2
    assert constant_value(tf.rank(tf.placeholder(tf.float32))) is None
    assert constant_value_as_shape(tf.shape(y)).raw == (None, 3)
    with pytest.raises(TypeError):
        tf.shape(x, out_type=tf.float32)
    got = run([tf.shape(y), tf.size(y)], {y: np.zeros((5, 3), np.float32)})
    assert got[0].tolist() == [5, 3] and got[1] == 15


# ------------------------------------------------------------------ views
VIEW_KERNELS = {
    "Reshape": (np.arange(6.0).reshape(2, 3), np.array([3, 2], np.int32)),
    "Transpose": (np.arange(6.0).reshape(2, 3), np.array([1, 0], np.int32)),
    "ExpandDims": (np.arange(6.0).reshape(2, 3), np.array(0, np.int32)),
    "StopGradient": (np.arange(3.0),),
    "BroadcastTo": (np.arange(3.0), np.array([2, 3], np.int32)),
    "ReverseV2": (np.arange(6.0).reshape(2, 3), np.array([1], np.int32)),
}


@pytest.mark.parametrize("op_type", sorted(VIEW_KERNELS))
def test_view_kernels_are_marked_returns_view(op_type):
    d = get_op_def(op_type)
    args = VIEW_KERNELS[op_type]
    out = d.compute(*args)
    assert np.shares_memory(out, args[0])
    assert d.returns_view
    assert get_op_def("Squeeze").returns_view
    assert np.shares_memory(get_op_def("Squeeze").compute(args[0][None], squeeze_dims=(0,)),
                            args[0])


@pytest.mark.parametrize("op_type,args", [
    ("Tile", (np.arange(3.0), np.array([1], np.int32))),
    ("Pad", (np.arange(3.0), np.zeros((1, 2), np.int32))),
    ("Fill", (np.array([2], np.int32), np.array(1.0))),
    ("ZerosLike", (np.arange(3.0),)),
])
def test_copying_kernels_never_alias_their_inputs(op_type, args):
    d = get_op_def(op_type)
    assert not d.returns_view
    out = d.compute(*args)
    assert not any(np.shares_memory(out, a) for a in args)
