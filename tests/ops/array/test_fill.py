"""TF1 behaviour of fill, zeros, ones, zeros_like, ones_like, range and linspace beyond
the generic cases: constants when small, names, dtype rules, static values and errors."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from staticgraph.ops import constant_value
from ...helpers import run, shape


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


# ---------------------------------------------------------------- gradients
def test_fill_gradient_is_the_sum_of_dy_for_value_and_none_for_dims():
    v = tf.placeholder(tf.float32, [])
    d = tf.placeholder(tf.int32, [2])
    y = tf.fill(d, v)
    g = tf.placeholder(tf.float32, [None, None])
    dd, dv = tf.gradients(y, [d, v], grad_ys=g)
    assert dd is None and shape(dv) == ()
    gv = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert run(dv, {v: 1.0, d: [2, 3], g: gv}) == 15.0


def test_zeros_like_range_linspace_have_none_gradients_as_in_tf1():
    x = tf.placeholder(tf.float32, [None, 3])
    s = tf.placeholder(tf.float32, [])
    z = tf.zeros_like(x, optimize=False)
    assert z.op.type == "ZerosLike" and tf.gradients(z, x) == [None]
    r = tf.range(s, 5.0, 1.0)
    assert r.op.type == "Range" and tf.gradients(r, s) == [None]
    ls = tf.lin_space(s, 2.0 * s, 4)
    assert ls.op.type == "LinSpace" and tf.gradients(ls, s) == [None]
    # only the paths through the other ops count
    (ds,) = tf.gradients(tf.reduce_sum(tf.lin_space(s, 1.0, 3)) + 3.0 * s, s)
    assert run(ds, {s: 0.5}) == 3.0
