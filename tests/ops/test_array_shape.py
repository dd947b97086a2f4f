"""TF1 behaviour of the array shape ops beyond the generic cases: names, keyword aliases,
static shapes and values, dtype rules, composites and errors."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from staticgraph.ops import constant_value, constant_value_as_shape, get_op_def


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def shape(t):
    return t.shape.raw


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


# ------------------------------------------------------- fill, zeros, ones
def test_zeros_and_ones_are_constants_when_small():
    z = tf.zeros([2, 3])
    assert z.op.type == "Const" and z.op.name == "zeros" and z.dtype == tf.float32
    o = tf.ones((2,), dtype=tf.int64, name="o")
    assert o.op.type == "Const" and o.op.name == "o" and o.dtype == tf.int64
    big = tf.zeros([100, 10])
    assert big.op.type == "Fill" and shape(big) == (100, 10)
    assert run(big).sum() == 0
    b = tf.ones([2], tf.bool)
    assert run(b).tolist() == [True, True]
    np.testing.assert_array_equal(run(tf.ones(tf.TensorShape([2, 2]))), np.ones((2, 2)))


def test_zeros_from_tensor_shape():
    x = tf.placeholder(tf.float32, [None, 3])
    z = tf.zeros(tf.shape(x), tf.int32)
    assert z.op.type == "Fill" and z.op.name == "zeros" and shape(z) == (None, 3)
    assert run(z, {x: np.ones((2, 3), np.float32)}).tolist() == [[0, 0, 0], [0, 0, 0]]
    n = tf.placeholder(tf.int32, [])
    assert run(tf.ones(n), {n: 3}).tolist() == [1.0, 1.0, 1.0]  # scalar shape: a vector


def test_zeros_like_ones_like():
    y = tf.placeholder(tf.int32, [None, 2])
    z = tf.zeros_like(y, dtype=tf.float32)
    assert z.dtype == tf.float32 and shape(z) == (None, 2) and z.op.name == "zeros_like"
    o = tf.ones_like(y)
    assert o.dtype == tf.int32 and shape(o) == (None, 2) and o.op.name == "ones_like"
    got = run([z, o, tf.ones_like(y, dtype=tf.bool)], {y: [[1, 2], [3, 4], [5, 6]]})
    assert got[0].dtype == np.float32 and got[0].shape == (3, 2) and not got[0].any()
    assert got[1].tolist() == [[1, 1]] * 3
    assert got[2].all() and got[2].dtype == np.bool_
    x = tf.placeholder(tf.float32, [2, 3])
    c = tf.zeros_like(x)
    assert c.op.type == "Const" and c.op.name == "zeros_like_1"  # optimize: known shape
    assert tf.zeros_like(x, optimize=False).op.type == "ZerosLike"
    assert tf.ones_like(x).op.type == "Const"


def test_fill_static_value_and_errors():
    f = tf.fill([2, 2], 7)
    assert f.op.name == "Fill" and f.dtype == tf.int32
    assert constant_value(f).tolist() == [[7, 7], [7, 7]]
    assert constant_value(tf.fill([1000, 1000], 0.0)) is None  # too large to fold
    with pytest.raises(ValueError, match="Fill dimensions must be >= 0"):
        tf.fill([2, -1], 1.0)


# ------------------------------------------------------------------ range
def test_range_dtype_inference():
    assert tf.range(5).dtype == tf.int32
    assert tf.range(1, 5.0).dtype == tf.float32
    assert tf.range(0, 1, 0.25).dtype == tf.float32
    assert tf.range(np.float64(3)).dtype == tf.float64
    assert tf.range(3, dtype=tf.int64).dtype == tf.int64
    n = tf.placeholder(tf.int64, [])
    r = tf.range(n)
    assert r.dtype == tf.int64 and shape(r) == (None,)
    assert run(r, {n: 3}).tolist() == [0, 1, 2]
    m = tf.placeholder(tf.int32, [])
    rf = tf.range(m, 2.5)  # int32 tensor start cast to float32
    assert rf.dtype == tf.float32
    np.testing.assert_allclose(run(rf, {m: 1}), [1.0, 2.0])


def test_range_names_values_and_errors():
    r = tf.range(3, 18, 3)
    assert r.op.name == "range" and r.op.type == "Range" and shape(r) == (5,)
    assert constant_value(r).tolist() == [3, 6, 9, 12, 15]
    assert shape(tf.range(10, 0, -3)) == (4,)
    assert shape(tf.range(0.0, 1.0, 0.3)) == (4,)
    np.testing.assert_allclose(run(tf.range(0.0, 1.0, 0.3)), [0.0, 0.3, 0.6, 0.9], rtol=1e-6)
    with pytest.raises(ValueError, match="Requires delta != 0"):
        tf.range(0, 5, 0)
    with pytest.raises(ValueError, match="Requires start <= limit when delta > 0"):
        tf.range(5, 1)
    d = tf.placeholder(tf.int32, [])
    with pytest.raises(InvalidArgumentError, match="delta != 0"):
        run(tf.range(0, 5, d), {d: 0})


def test_linspace_alias_and_values():
    assert tf.linspace is tf.lin_space
    t = tf.lin_space(10.0, 12.0, 3)
    assert t.op.name == "LinSpace" and shape(t) == (3,) and t.dtype == tf.float32
    np.testing.assert_allclose(constant_value(t), [10.0, 11.0, 12.0])
    with pytest.raises(ValueError, match="Requires num > 0"):
        tf.linspace(0.0, 1.0, 0)


# ------------------------------------------------------------------- misc
def test_stop_gradient_and_broadcast_to_static_shapes():
    x = tf.placeholder(tf.float32, [None, 3])
    s = tf.stop_gradient(x)
    assert s.op.type == "StopGradient" and s.op.name == "StopGradient" and shape(s) == (None, 3)
    assert not get_op_def("StopGradient").differentiable
    n = tf.placeholder(tf.int32, [])
    b = tf.broadcast_to(x, tf.stack([n, 2, 3]))
    assert b.op.name == "BroadcastTo" and shape(b) == (None, 2, 3)
    assert shape(tf.broadcast_to(x, tf.stack([2, n]))) == (2, 3)
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.broadcast_to(x, [2, 4])
    with pytest.raises(ValueError, match="Rank of input"):
        tf.broadcast_to(x, [3])


def test_tile_static_shapes_and_runtime_errors():
    x = tf.placeholder(tf.float32, [None, 3])
    t = tf.tile(x, [2, 2])
    assert t.op.name == "Tile" and shape(t) == (None, 6)
    assert shape(tf.tile(x, [0, 1])) == (0, 3)
    m = tf.placeholder(tf.int32, [None])
    with pytest.raises(InvalidArgumentError, match="multiples"):
        run(tf.tile(x, m), {x: np.zeros((1, 3), np.float32), m: [1, 1, 1]})
    with pytest.raises(ValueError, match="Expected multiples"):
        tf.tile(x, [-1, 1])


def test_pad_modes_names_and_errors():
    x = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert tf.pad(x, [[1, 1], [2, 2]]).op.name == "Pad"
    assert tf.pad(x, [[1, 1], [2, 2]], constant_values=3).op.type == "PadV2"
    m = tf.pad(x, [[1, 1], [2, 2]], "reflect")
    assert m.op.type == "MirrorPad" and m.op.attrs["mode"] == "REFLECT" and shape(m) == (4, 7)
    # TF1's documented examples
    assert run(m).tolist() == [[6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1],
                               [6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1]]
    assert run(tf.pad(x, [[1, 1], [2, 2]], "SYMMETRIC")).tolist() == [
        [2, 1, 1, 2, 3, 3, 2], [2, 1, 1, 2, 3, 3, 2], [5, 4, 4, 5, 6, 6, 5],
        [5, 4, 4, 5, 6, 6, 5]]
    with pytest.raises(ValueError, match="Unknown padding mode"):
        tf.pad(x, [[1, 1], [2, 2]], "EDGE")
    with pytest.raises(ValueError, match="less than the dimension size"):
        tf.pad(x, [[2, 0], [0, 0]], "REFLECT")
    y = tf.placeholder(tf.int32, [None, 3])
    with pytest.raises(InvalidArgumentError, match="less than the dimension size"):
        run(tf.pad(y, [[1, 1], [0, 0]], "REFLECT"), {y: [[1, 2, 3]]})
    assert shape(tf.pad(y, tf.placeholder(tf.int32, [2, 2]))) == (None, None)


def test_reverse_is_reverse_v2():
    assert tf.reverse is tf.reverse_v2
    x = tf.constant([[1, 2], [3, 4]])
    r = tf.reverse(x, [1])
    assert r.op.type == "ReverseV2" and r.op.name == "ReverseV2"
    assert run(r).tolist() == [[2, 1], [4, 3]]
    with pytest.raises(ValueError, match="specified more than once"):
        tf.reverse(x, [1, -1])
    with pytest.raises(ValueError, match="out of valid range"):
        tf.reverse(x, [2])


# --------------------------------------------------------------- meshgrid
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = [1, 2, 3], [4.0, 5.0], [7, 8, 9, 10]
    xs = tf.meshgrid(tf.constant(a, tf.float32), b, indexing=indexing)
    want = np.meshgrid(np.float32(a), np.float32(b), indexing=indexing)
    assert [shape(t) for t in xs] == [w.shape for w in want]
    for g, w in zip(run(xs), want):
        np.testing.assert_array_equal(g, w)
    three = tf.meshgrid(a, [4, 5], c, indexing=indexing)
    for g, w in zip(run(three), np.meshgrid(a, [4, 5], c, indexing=indexing)):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_meshgrid_arguments():
    with pytest.raises(ValueError, match="indexing parameter"):
        tf.meshgrid([1], [2], indexing="yx")
    with pytest.raises(TypeError, match="'foo' is an invalid keyword argument"):
        tf.meshgrid([1], [2], foo=1)
    x = tf.placeholder(tf.int32, [None])
    out = tf.meshgrid(x, [1, 2, 3], name="grid")
    assert shape(out[0]) == (3, None) and out[0].op.name.startswith("grid/")
    got = run(out, {x: [5, 6]})
    np.testing.assert_array_equal(got[0], [[5, 6]] * 3)


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
