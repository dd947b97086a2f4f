"""TF1 behaviour of reshape, transpose, expand_dims, squeeze, shape, size and rank beyond
the generic cases: names, keyword aliases, static shapes and values, and errors; and the
view/copy contract of the array kernels."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from staticgraph.ops import constant_value, constant_value_as_shape
from staticgraph.graphlib.op_def import get_op_def
from ...helpers import run, shape


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


# ---------------------------------------------------------------- gradients
def _grad_ops(graph):
    """Op types created by tf.gradients (under the gradients/ scope), constants left out."""
    return [op.type for op in graph.get_operations()
            if op.name.startswith("gradients/") and op.type != "Const"]


def test_reshape_gradient_is_one_reshape_when_the_shape_is_known(fresh_graph):
    x = tf.placeholder(tf.float32, [2, 3, 4])
    y = tf.reshape(x, [6, 4])
    g = tf.placeholder(tf.float32, [6, 4])
    before = len(fresh_graph.get_operations())
    (dx,) = tf.gradients(y, x, grad_ys=g)
    new = [op for op in fresh_graph.get_operations()[before:] if op.type != "Const"]
    assert [op.type for op in new] == ["Reshape"] and shape(dx) == (2, 3, 4)
    gv = np.arange(24, dtype=np.float32).reshape(6, 4)
    np.testing.assert_array_equal(run(dx, {x: np.zeros((2, 3, 4)), g: gv}),
                                  gv.reshape(2, 3, 4))


def test_reshape_gradient_with_one_unknown_dimension_needs_no_shape_op(fresh_graph):
    x = tf.placeholder(tf.float32, [None, 3, 4])
    (dx,) = tf.gradients(tf.reduce_sum(tf.reshape(x, [-1, 12]) * 2.0), x)
    reshapes = [op for op in fresh_graph.get_operations()
                if op.name.startswith("gradients/Reshape_grad/") and op.type != "Const"]
    assert [op.type for op in reshapes] == ["Reshape"]
    assert constant_value(reshapes[0].inputs[1]).tolist() == [-1, 3, 4]
    assert shape(dx) == (None, 3, 4)
    np.testing.assert_array_equal(run(dx, {x: np.ones((5, 3, 4))}), np.full((5, 3, 4), 2.0))


def test_reshape_gradient_with_unknown_dimensions_uses_the_dynamic_shape():
    x = tf.placeholder(tf.float32, [None, None])
    u = tf.placeholder(tf.float32)
    (dx,) = tf.gradients(tf.reshape(x, [-1]) * tf.range(6.0), x)
    (du,) = tf.gradients(tf.reduce_sum(tf.reshape(u, [2, -1])), u)
    assert dx.op.inputs[1].op.type == "Shape" and shape(dx) == (None, None)
    np.testing.assert_array_equal(run(dx, {x: np.zeros((2, 3))}),
                                  np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(run(du, {u: np.zeros((2, 2, 1))}), np.ones((2, 2, 1)))
    z = tf.placeholder(tf.float32, [None, 0])  # -1 cannot stand for a dim beside a 0
    (dz,) = tf.gradients(tf.reshape(z, [-1]), z)
    assert run(dz, {z: np.zeros((4, 0))}).shape == (4, 0)


def test_transpose_gradient_is_one_transpose_by_the_inverse_permutation(fresh_graph):
    x = tf.placeholder(tf.float32, [2, 3, 4])
    y = tf.transpose(x, [1, 2, 0])
    g = tf.placeholder(tf.float32, [3, 4, 2])
    (dx,) = tf.gradients(y, x, grad_ys=g)
    assert _grad_ops(fresh_graph) == ["Transpose"]
    assert constant_value(dx.op.inputs[1]).tolist() == [2, 0, 1]
    gv = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    np.testing.assert_array_equal(run(dx, {x: np.zeros((2, 3, 4)), g: gv}),
                                  np.transpose(gv, [2, 0, 1]))


def test_transpose_gradient_with_a_perm_tensor_inverts_it_at_run_time():
    x = tf.placeholder(tf.float32, [2, 3, 4])
    p = tf.placeholder(tf.int64, [3])
    w = np.arange(24, dtype=np.float32).reshape(3, 4, 2)
    (dx,) = tf.gradients(tf.reduce_sum(tf.transpose(x, p) * w), x)
    assert dx.op.inputs[1].op.type == "InvertPermutation"
    np.testing.assert_array_equal(run(dx, {x: np.zeros((2, 3, 4)), p: [1, 2, 0]}),
                                  np.transpose(w, [2, 0, 1]))
    u = tf.placeholder(tf.float32)  # unknown rank: the default perm is built at run time
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    (du,) = tf.gradients(tf.reduce_sum(tf.transpose(u) * w), u)
    np.testing.assert_array_equal(run(du, {u: np.zeros((2, 3))}), w.T)


def test_invert_permutation():
    p = tf.invert_permutation([3, 4, 0, 2, 1])
    assert p.op.type == "InvertPermutation" and p.op.name == "InvertPermutation"
    assert p.dtype == tf.int32 and constant_value(p).tolist() == [2, 4, 3, 0, 1]
    with pytest.raises(ValueError, match="not a permutation"):
        tf.invert_permutation([0, 0, 1])
    q = tf.placeholder(tf.int32, [None])
    assert shape(tf.invert_permutation(q)) == (None,)
    np.testing.assert_array_equal(run(tf.invert_permutation(q), {q: [1, 2, 0]}), [2, 0, 1])
    with pytest.raises(InvalidArgumentError, match="not a permutation"):
        run(tf.invert_permutation(q), {q: [1, 3, 0]})
    assert not get_op_def("InvertPermutation").differentiable


def test_expand_dims_and_squeeze_gradients_reshape_back():
    x = tf.placeholder(tf.float32, [None, 3])
    e = tf.expand_dims(x, 1)
    s = tf.squeeze(tf.placeholder_with_default(np.ones((2, 1, 3), np.float32), [None, 1, None]))
    xe, = tf.gradients(tf.reduce_sum(e * np.arange(3, dtype=np.float32).reshape(1, 1, 3)), x)
    assert xe.op.type == "Reshape" and shape(xe) == (None, 3)
    np.testing.assert_array_equal(run(xe, {x: np.zeros((4, 3))}), np.tile(np.arange(3.0), (4, 1)))
    src = s.op.inputs[0]
    ds, = tf.gradients(tf.reduce_sum(s), src)
    assert ds.op.type == "Reshape" and run(ds).shape == (2, 1, 3)


def test_shape_size_rank_carry_no_gradient():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.cast(tf.shape(x), tf.float32)
    assert tf.gradients(tf.reduce_sum(y), x) == [None]
    assert tf.gradients(tf.cast(tf.size(x), tf.float32) + tf.cast(tf.rank(x), tf.float32),
                        x) == [None]
    z = tf.reshape(x, tf.shape(x)) * 3.0  # the shape path carries nothing, the data path does
    np.testing.assert_array_equal(run(tf.gradients(z, x)[0], {x: np.ones((2, 3))}),
                                  np.full((2, 3), 3.0))
