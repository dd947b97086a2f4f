"""TF1 behaviour of cast, clip_by_value, cumsum and where beyond the per-op cases."""

import warnings

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run


def test_cast_same_dtype_returns_input_and_names():
    x = tf.placeholder(tf.float32, [2])
    assert tf.cast(x, tf.float32) is x
    assert tf.cast(x, "float") is x
    assert tf.cast(x, tf.int32).op.name == "Cast"
    assert tf.to_float(tf.constant([1])).op.name == "ToFloat"
    assert tf.to_double(x).op.name == "ToDouble"
    assert tf.to_int32(x).op.name == "ToInt32"
    assert tf.to_int64(x).op.name == "ToInt64"
    assert tf.to_int64(x, name="n").op.name == "n"


def test_cast_semantics():
    vals = tf.constant([-1.8, -0.2, 0.0, 0.7, 1.8])
    python = tf.cast(1.5, tf.int32)
    got = run([tf.cast(vals, tf.int32), tf.cast(vals, tf.bool), python,
                tf.cast(tf.constant([True, False]), tf.int64),
                tf.cast(tf.constant([300, -1]), tf.uint8)])
    np.testing.assert_array_equal(got[0], [-1, 0, 0, 0, 1])
    np.testing.assert_array_equal(got[1], [True, True, False, True, True])
    assert got[2] == 1 and got[2].dtype == np.int32
    np.testing.assert_array_equal(got[3], [1, 0])
    assert got[3].dtype == np.int64
    np.testing.assert_array_equal(got[4], [44, 255])  # wraps modulo 256


def test_cast_nan_to_int_emits_no_warning():
    t = tf.cast(tf.constant([np.nan, np.inf, 1.0]), tf.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = run(t)
    assert got[2] == 1


def test_cast_refuses_strings():
    with pytest.raises(TypeError):
        tf.cast(tf.constant(["a"]), tf.int32)


def test_saturate_cast():
    f = tf.constant([1e10, -1e10, 3.7, -3.7])
    i = tf.constant([-5, 300, 7])
    to_i32 = tf.saturate_cast(f, tf.int32)
    to_u8 = tf.saturate_cast(i, tf.uint8)
    widen = tf.saturate_cast(i, tf.int64)
    assert to_u8.dtype == tf.uint8 and widen.dtype == tf.int64
    assert widen.op.type == "Cast" and widen.op.inputs[0] is i  # nothing to clamp
    assert to_u8.op.inputs[0].op.type == "ClipByValue"
    got = run([to_i32, to_u8, widen])
    np.testing.assert_array_equal(got[0], [2147483520, -2147483648, 3, -3])
    np.testing.assert_array_equal(got[1], [0, 255, 7])
    np.testing.assert_array_equal(got[2], [-5, 300, 7])


def test_clip_by_value():
    t = tf.placeholder(tf.float32, [None, 3])
    clipped = tf.clip_by_value(t, 0.0, [1.0, 2.0, 3.0])
    assert clipped.op.name == "clip_by_value" and clipped.shape.as_list() == [None, 3]
    with pytest.raises(ValueError):
        tf.clip_by_value(t, 0.0, tf.placeholder(tf.float32, [4, 1, 3]))
    with pytest.raises(TypeError):
        tf.clip_by_value(t, 0.0, tf.constant(1.0, tf.float64))
    v = np.array([[-1.0, 1.5, 2.5], [0.5, 5.0, 9.0]], np.float32)
    got = run(clipped, {t: v})
    np.testing.assert_array_equal(got, [[0.0, 1.5, 2.5], [0.5, 2.0, 3.0]])
    assert got.dtype == np.float32
    np.testing.assert_array_equal(v[0], [-1.0, 1.5, 2.5])  # input untouched


def test_cumsum_axis_forms():
    x = tf.placeholder(tf.int32, [2, 3])
    axis = tf.placeholder(tf.int32, [])
    dyn = tf.cumsum(x, axis, reverse=True)
    assert dyn.shape.as_list() == [2, 3] and dyn.op.name == "Cumsum"
    with pytest.raises(ValueError, match="out of range"):
        tf.cumsum(x, 2)
    with pytest.raises(ValueError):
        tf.cumsum(x, [0, 1])
    v = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    got = run([dyn, tf.cumsum(x, -1, exclusive=True), tf.cumprod(x, 1)], {x: v, axis: 0})
    np.testing.assert_array_equal(got[0], [[5, 7, 9], [4, 5, 6]])
    np.testing.assert_array_equal(got[1], [[0, 1, 3], [0, 4, 9]])
    np.testing.assert_array_equal(got[2], [[1, 2, 6], [4, 20, 120]])
    assert got[0].dtype == np.int32


def test_where_argument_rules():
    c = tf.placeholder(tf.bool, [2, 3])
    x = tf.placeholder(tf.float32, [2, 3])
    assert tf.where(c, x, x).op.name == "Select"
    assert tf.where(c).op.name == "Where"
    assert tf.where_v2(c, x, 0.0).op.name == "SelectV2"
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None"):
        tf.where(c, x)
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None"):
        tf.where_v2(c, y=x)
    with pytest.raises(ValueError):
        tf.where(c, x, 0.0)  # TF1's Select needs equal shapes
    with pytest.raises(TypeError):
        tf.where(tf.placeholder(tf.float32, [2, 3]), x, x)
    with pytest.raises(TypeError):
        tf.where(c, x, tf.placeholder(tf.float64, [2, 3]))


def test_where_shapes_and_values():
    c = tf.placeholder(tf.bool, [None])
    x = tf.placeholder(tf.int32, [3, 2])
    rows = tf.where(c, x, -x)
    coords = tf.where(tf.placeholder(tf.bool))
    assert rows.shape.as_list() == [3, 2]
    assert coords.shape.as_list() == [None, None] and coords.dtype == tf.int64
    b = tf.where_v2(tf.placeholder(tf.bool, [None, 1]), tf.placeholder(tf.float32, [4]), 1.0)
    assert b.shape.as_list() == [None, 4]
    v = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    got = run(rows, {c: [True, False, True], x: v})
    np.testing.assert_array_equal(got, [[1, 2], [-3, -4], [5, 6]])
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(rows, {c: [True, False], x: v})
    pts = tf.where([[True, False], [False, True]])
    np.testing.assert_array_equal(run(pts), [[0, 0], [1, 1]])


# ---------------------------------------------------------------------- gradients
def test_cast_gradient_is_cast_back_for_floats_and_none_for_ints():
    x = tf.placeholder(tf.float64, [3])
    y = tf.cast(x, tf.float32)
    g, = tf.gradients(tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0])), x)
    assert g.dtype == tf.float64
    np.testing.assert_array_equal(run(g, {x: [0.1, 0.2, 0.3]}), [1.0, 2.0, 3.0])
    assert tf.gradients(tf.cast(x, tf.int32), x) == [None]
    # TF1: a float -> int -> float round trip carries no gradient, the other path does
    z = tf.cast(tf.cast(x, tf.int32), tf.float64) + 2.0 * x
    g, = tf.gradients(z, x)
    np.testing.assert_array_equal(run(g, {x: [1.5, 2.5, -3.5]}), [2.0, 2.0, 2.0])


def test_clip_by_value_gradients_follow_tf1():
    t = tf.constant([-2.0, -1.0, 0.5, 1.0, 3.0])
    lo = tf.constant(-1.0)
    hi = tf.constant([1.0, 1.0, 1.0, 1.0, 2.0])
    dt, dlo, dhi = tf.gradients(tf.reduce_sum(tf.clip_by_value(t, lo, hi)
                                              * [1.0, 2.0, 3.0, 4.0, 5.0]), [t, lo, hi])
    got = run([dt, dlo, dhi])
    np.testing.assert_array_equal(got[0], [0, 2, 3, 4, 0])  # bounds included: t's gradient
    assert got[1].shape == () and got[1] == 1.0
    np.testing.assert_array_equal(got[2], [0, 0, 0, 0, 5])


def test_cumsum_and_cumprod_gradients():
    x = tf.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
    w = np.array([[1.0, 10.0, 100.0], [2.0, 3.0, 5.0]])
    g_sum, = tf.gradients(tf.reduce_sum(tf.cumsum(x, 1, exclusive=True) * w), x)
    np.testing.assert_allclose(run(g_sum), [[110, 100, 0], [8, 5, 0]])
    g_prod, = tf.gradients(tf.reduce_sum(tf.cumprod(x, 1, reverse=True) * w), x)
    # d/dx_j sum_i w_i prod_{k>=i} x_k  =  sum_{i<=j} w_i prod_{k>=i, k!=j} x_k
    want = np.array([[6, 3 + 30, 2 + 20 + 100], [-8, 2 * 2 + 3 * 4, 2 * -0.5 + 3 * -1 + 5]])
    np.testing.assert_allclose(run(g_prod), want)


def test_select_gradients_route_to_the_chosen_input():
    c = tf.constant([True, False])
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([[5.0, 6.0], [7.0, 8.0]])
    dx, dy = tf.gradients(tf.where(c, x, y), [x, y])
    np.testing.assert_array_equal(run(dx), [[1, 1], [0, 0]])
    np.testing.assert_array_equal(run(dy), [[0, 0], [1, 1]])
    s = tf.constant(2.0)
    dx, ds = tf.gradients(tf.where_v2([[True], [False]], x, s), [x, s])
    np.testing.assert_array_equal(run(dx), [[1, 1], [0, 0]])
    assert run(ds) == 2.0
    assert tf.gradients(tf.cast(tf.where(x > 2.0), tf.float32), x) == [None]
