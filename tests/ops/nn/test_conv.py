"""TF1 behaviour of conv2d / conv2d_transpose beyond the generic cases, and of the tf.nn
convolution and pooling API together (names, keywords, arguments, layouts)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.ops.nn import conv_windows

from ..cases.nn_conv_cases import (naive_conv2d, naive_conv2d_backprop_filter,
                                   naive_conv2d_transpose)
from ..cases.nn_pool_cases import naive_pool
from ...helpers import run

R = np.random.default_rng(11)


# ------------------------------------------------------------------ padding rules
def test_same_padding_puts_the_extra_pad_after():
    # 3x3 ones, 2x2 ones kernel, SAME stride 1: pad_total 1 -> 0 before, 1 after (TF1).
    x = np.ones((1, 3, 3, 1), np.float32)
    f = np.ones((2, 2, 1, 1), np.float32)
    got = run(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"))
    want = np.array([[4, 4, 2], [4, 4, 2], [2, 2, 1]], np.float32)
    np.testing.assert_array_equal(got[0, :, :, 0], want)


def test_same_stride2_even_input_pads_after_only():
    # in 4, k 3, s 2: out 2, pad_total max((2-1)*2 + 3 - 4, 0) = 1 -> (0, 1).
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    f = np.ones((3, 3, 1, 1), np.float32)
    got = run(tf.nn.conv2d(x, f, 2, "SAME"))[0, :, :, 0]
    want = np.array([[x[0, 0:3, 0:3].sum(), x[0, 0:3, 2:4].sum()],
                     [x[0, 2:4, 0:3].sum(), x[0, 2:4, 2:4].sum()]], np.float32)
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------ names and keywords
def test_default_op_names():
    x = tf.placeholder(tf.float32, [1, 4, 4, 2])
    f = tf.constant(np.ones((3, 3, 2, 2), np.float32))
    assert tf.nn.conv2d(x, f, 1, "SAME").op.name == "Conv2D"
    assert tf.nn.conv2d(x, f, 1, "SAME").op.name == "Conv2D_1"
    assert tf.nn.max_pool(x, 2, 2, "VALID").op.name == "MaxPool"
    assert tf.nn.avg_pool(x, 2, 2, "VALID").op.name == "AvgPool"
    t = tf.nn.conv2d_transpose(x, f, [1, 4, 4, 2], [1, 1, 1, 1])
    assert t.op.name == "conv2d_transpose" and t.op.type == "Conv2DBackpropInput"
    assert t.op.inputs[0].op.name == "conv2d_transpose/output_shape"
    assert tf.nn.conv2d(x, f, 1, "SAME", name="c1").op.name == "c1"
    assert tf.nn.max_pool(x, 2, 2, "VALID", name="p1").op.name == "p1"
    assert tf.nn.conv2d_transpose(x, f, [1, 4, 4, 2], 1, name="up").op.name == "up"
    assert tf.nn.max_pool2d(x, 2, 2, "VALID").op.type == "MaxPool"
    assert tf.nn.avg_pool2d(x, 2, 2, "VALID").op.type == "AvgPool"


def test_strides_and_dilations_int_and_short_forms():
    x = R.standard_normal((2, 7, 7, 2)).astype(np.float32)
    f = R.standard_normal((3, 3, 2, 3)).astype(np.float32)
    full = tf.nn.conv2d(x, f, [1, 2, 2, 1], "SAME", dilations=[1, 2, 2, 1])
    short = tf.nn.conv2d(x, f, [2, 2], "SAME", dilations=2)
    one = tf.nn.conv2d(x, f, 2, "SAME", dilations=[2])
    assert full.op.get_attr("strides") == short.op.get_attr("strides") == (1, 2, 2, 1)
    assert one.op.get_attr("dilations") == (1, 2, 2, 1)
    a, b, c = run([full, short, one])
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    np.testing.assert_allclose(a, naive_conv2d(x, f, (2, 2), "SAME", (2, 2)), rtol=1e-4,
                               atol=1e-5)


def test_keyword_aliases():
    x = R.standard_normal((1, 4, 4, 2)).astype(np.float32)
    f = R.standard_normal((2, 2, 2, 3)).astype(np.float32)
    a = tf.nn.conv2d(x, filter=f, strides=1, padding="VALID")
    b = tf.nn.conv2d(input=x, filters=f, strides=1, padding="VALID")
    p = tf.nn.max_pool(None, ksize=2, strides=2, padding="VALID", input=x)
    y = R.standard_normal((1, 4, 4, 3)).astype(np.float32)
    t = tf.nn.conv2d_transpose(input=y, filters=f, output_shape=[1, 4, 4, 2], strides=1)
    ra, rb, rp, rt = run([a, b, p, t])
    np.testing.assert_array_equal(ra, rb)
    np.testing.assert_array_equal(rp, naive_pool(x, (2, 2), (2, 2), "VALID", "max"))
    np.testing.assert_allclose(rt, naive_conv2d_transpose(y, f, (1, 4, 4, 2)), rtol=1e-4,
                               atol=1e-5)
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.nn.conv2d(x, f, 1, "VALID", filters=f)
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.nn.max_pool(x, 2, 2, "VALID", input=x)


@pytest.mark.parametrize("call", [
    lambda x, f: tf.nn.conv2d(x, f, [2, 1, 1, 1], "SAME"),
    lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 2], "SAME"),
    lambda x, f: tf.nn.conv2d(x, f, 1, "same"),
    lambda x, f: tf.nn.conv2d(x, f, 1, "SAME", data_format="NWHC"),
    lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1], "SAME"),
    lambda x, f: tf.nn.conv2d(x, f, 0, "SAME"),
    lambda x, f: tf.nn.conv2d(x, f, 1, [[1, 1], [0, 0], [0, 0], [0, 0]]),
    lambda x, f: tf.nn.conv2d(x, f, 1, None),
    lambda x, f: tf.nn.max_pool(x, [2, 2, 2, 1], 1, "VALID"),
    lambda x, f: tf.nn.max_pool(x, 2, 1, [[0, 0], [1, 1], [1, 1], [0, 0]]),
    lambda x, f: tf.nn.avg_pool(x, 2, [1, 1, 1, 2], "VALID"),
])
def test_bad_arguments_raise_value_error(call):
    x = tf.placeholder(tf.float32, [1, 5, 5, 2])
    f = tf.placeholder(tf.float32, [3, 3, 2, 2])
    with pytest.raises(ValueError):
        call(x, f)


def test_channel_mismatch_raises_at_the_users_line():
    x = tf.placeholder(tf.float32, [None, 28, 28, 3])
    f = tf.placeholder(tf.float32, [3, 3, 1, 32])
    with pytest.raises(ValueError) as info:
        tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME")
    message = str(info.value)
    assert "Declared at" in message and os.path.basename(__file__) in message
    assert "3" in message and "1" in message


# ------------------------------------------------------------------ static shapes
def test_static_shapes_with_unknown_dimensions():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    f = tf.placeholder(tf.float32, [5, 5, 1, 32])
    assert tf.nn.conv2d(x, f, 1, "SAME").shape.as_list() == [None, 28, 28, 32]
    assert tf.nn.conv2d(x, f, 2, "VALID").shape.as_list() == [None, 12, 12, 32]
    assert tf.nn.conv2d(x, f, 1, "VALID", dilations=2).shape.as_list() == [None, 20, 20, 32]
    assert tf.nn.max_pool(x, 2, 2, "SAME").shape.as_list() == [None, 14, 14, 1]
    assert tf.nn.avg_pool(x, 3, 2, "VALID").shape.as_list() == [None, 13, 13, 1]
    u = tf.placeholder(tf.float32, [None, None, 7, 3])
    assert tf.nn.conv2d(u, tf.placeholder(tf.float32, [3, 3, 3, 4]), 2,
                        "SAME").shape.as_list() == [None, None, 4, 4]
    nchw = tf.placeholder(tf.float32, [8, 3, 9, 10])
    assert tf.nn.conv2d(nchw, tf.placeholder(tf.float32, [3, 3, 3, 6]), 2, "SAME",
                        data_format="NCHW").shape.as_list() == [8, 6, 5, 5]
    unknown = tf.placeholder(tf.float32)
    assert tf.nn.conv2d(unknown, f, 1, "SAME").shape.as_list() == [None, None, None, 32]


def test_conv2d_transpose_with_dynamic_output_shape():
    y = tf.placeholder(tf.float32, [None, 4, 4, 4])
    f = R.standard_normal((3, 3, 2, 4)).astype(np.float32)
    shape = tf.placeholder(tf.int32, [4])
    t = tf.nn.conv2d_transpose(y, f, shape, 2, "SAME")
    assert t.shape.rank == 4 and t.shape.as_list()[3] == 2
    yv = R.standard_normal((3, 4, 4, 4)).astype(np.float32)
    got = run(t, {y: yv, shape: [3, 8, 7, 2]})
    np.testing.assert_allclose(got, naive_conv2d_transpose(yv, f, (3, 8, 7, 2), (2, 2)),
                               rtol=1e-4, atol=1e-5)


def test_conv2d_transpose_checks_output_shape_channels():
    y = tf.placeholder(tf.float32, [1, 4, 4, 4])
    f = tf.placeholder(tf.float32, [3, 3, 2, 4])
    with pytest.raises(ValueError):
        tf.nn.conv2d_transpose(y, f, [1, 4, 4, 3], 1)
    with pytest.raises(ValueError):
        tf.nn.conv2d_transpose(y, f, [1, 4, 4], 1)


def test_conv2d_transpose_accepts_two_spatial_sizes():
    y = R.standard_normal((2, 3, 3, 4)).astype(np.float32)
    f = R.standard_normal((3, 3, 2, 4)).astype(np.float32)
    attrs = {"strides": (1, 2, 2, 1), "padding": "SAME"}
    t = tf.ops.apply_op("Conv2DBackpropInput",
                        [tf.constant([6, 5]), tf.constant(f), tf.constant(y)], attrs)
    assert t.shape.as_list() == [2, 6, 5, 2]
    np.testing.assert_allclose(run(t), naive_conv2d_transpose(y, f, (2, 6, 5, 2), (2, 2)),
                               rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------ adjointness
ADJOINT = [  # x shape, filter shape, strides, padding, dilations
    ((2, 7, 7, 3), (3, 3, 3, 4), (1, 1), "SAME", (1, 1)),
    ((2, 7, 6, 3), (3, 3, 3, 4), (2, 2), "SAME", (1, 1)),
    ((1, 8, 9, 2), (3, 2, 2, 3), (2, 3), "VALID", (1, 1)),
    ((2, 9, 8, 2), (3, 3, 2, 2), (1, 1), "SAME", (2, 2)),
    ((1, 10, 9, 1), (2, 3, 1, 2), (2, 1), "VALID", (2, 3)),
    ((2, 6, 5, 5), (3, 3, 5, 2), (2, 2), "SAME", (1, 1)),
    ((1, 9, 9, 8), (2, 3, 8, 3), (1, 2), "VALID", (2, 1)),
]


@pytest.mark.parametrize("xs,fs,strides,padding,dil", ADJOINT)
def test_conv2d_transpose_is_the_adjoint_of_conv2d(xs, fs, strides, padding, dil):
    x = R.standard_normal(xs)
    f = R.standard_normal(fs)
    conv = tf.nn.conv2d(x, f, strides, padding, dilations=dil)
    y = R.standard_normal(conv.shape.as_list())
    back = tf.nn.conv2d_transpose(y, f, list(xs), strides, padding, dilations=dil)
    cx, ty = run([conv, back])
    assert ty.shape == xs
    np.testing.assert_allclose(np.vdot(cx, y), np.vdot(x, ty), rtol=1e-10)
    np.testing.assert_allclose(ty, naive_conv2d_transpose(y, f, xs, strides, padding, dil),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("xs,fs,strides,padding,dil", ADJOINT)
def test_im2col_and_col2im_are_adjoint(xs, fs, strides, padding, dil):
    x = R.standard_normal(xs)
    k = fs[:2]
    geo = [conv_windows.window_geometry(s, kk, st, d, padding)
           for s, kk, st, d in zip(xs[1:3], k, strides, dil)]
    pads = tuple(g[1:] for g in geo)
    cols, out_hw = conv_windows.im2col(x, k, strides, dil, pads)
    assert out_hw == (geo[0][0], geo[1][0])
    assert cols.shape == (xs[0] * out_hw[0] * out_hw[1], k[0] * k[1] * xs[3])
    c = R.standard_normal(cols.shape)
    back = conv_windows.col2im(c, xs, k, strides, dil, pads)
    np.testing.assert_allclose(np.vdot(cols, c), np.vdot(x, back), rtol=1e-10)


# ------------------------------------------------------------------ layouts and inputs
def test_nchw_matches_nhwc():
    x = R.standard_normal((2, 6, 5, 3)).astype(np.float32)
    f = R.standard_normal((3, 3, 3, 4)).astype(np.float32)
    to_nchw = (0, 3, 1, 2)
    a = tf.nn.conv2d(x, f, [1, 2, 2, 1], "SAME")
    b = tf.nn.conv2d(x.transpose(to_nchw), f, [1, 1, 2, 2], "SAME", data_format="NCHW")
    p = tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    q = tf.nn.max_pool(x.transpose(to_nchw), [1, 1, 3, 3], [1, 1, 2, 2], "SAME",
                       data_format="NCHW")
    ra, rb, rp, rq = run([a, b, p, q])
    np.testing.assert_allclose(rb, ra.transpose(to_nchw), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(rq, rp.transpose(to_nchw))


def test_kernels_do_not_modify_their_inputs():
    x = R.standard_normal((2, 5, 5, 2)).astype(np.float32)
    f = R.standard_normal((3, 3, 2, 2)).astype(np.float32)
    xc, fc = x.copy(), f.copy()
    xp = tf.placeholder(tf.float32, x.shape)
    outs = [tf.nn.conv2d(xp, f, 2, "SAME"), tf.nn.max_pool(xp, 1, 1, "VALID"),
            tf.nn.avg_pool(xp, 2, 2, "SAME"), tf.nn.conv2d_transpose(xp, f, [2, 9, 9, 2], 2)]
    res = run(outs, {xp: x})
    res[1][...] = 0  # a 1x1 max pool result must be a copy, not the fed array
    np.testing.assert_array_equal(x, xc)
    np.testing.assert_array_equal(f, fc)


def test_python_and_numpy_filters_take_the_input_dtype():
    x = np.ones((1, 2, 2, 1), np.float64)
    y = tf.nn.conv2d(x, [[[[1.0]]]], 1, "VALID")
    assert y.dtype == tf.float64
    np.testing.assert_array_equal(run(y), x)
    xp = tf.placeholder(tf.float32, [1, 2, 2, 1])
    z = tf.nn.conv2d(xp, np.full((1, 1, 1, 1), 2.0), 1, "VALID")  # float64 array -> float32
    assert z.dtype == tf.float32
    np.testing.assert_array_equal(run(z, {xp: x}), 2 * x)
    with pytest.raises(TypeError):
        tf.nn.conv2d(xp, tf.constant(np.ones((1, 1, 1, 1))), 1, "VALID")


# ------------------------------------------------------------------ gradients
def test_conv2d_gradients_are_the_tf1_backprop_ops():
    x = tf.placeholder(tf.float32, [None, 6, 6, 2])
    f = tf.Variable(R.standard_normal((3, 3, 2, 4)).astype(np.float32))
    y = tf.nn.conv2d(x, f, [1, 2, 2, 1], "SAME")
    dx, df = tf.gradients(tf.reduce_sum(y * y), [x, f])
    assert dx.op.type == "Conv2DBackpropInput" and df.op.type == "Conv2DBackpropFilter"
    assert dx.op.get_attr("strides") == (1, 2, 2, 1) and df.op.get_attr("padding") == "SAME"
    assert dx.shape.as_list() == [None, 6, 6, 2] and df.shape.as_list() == [3, 3, 2, 4]
    xv = R.standard_normal((3, 6, 6, 2)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        fv, yv, gx, gf = sess.run([f, y, dx, df], {x: xv})
    dy = 2 * yv
    np.testing.assert_allclose(gx, naive_conv2d_transpose(dy, fv, xv.shape, (2, 2)),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gf, naive_conv2d_backprop_filter(xv, fv.shape, dy, (2, 2),
                                                                "SAME"), rtol=1e-4, atol=1e-3)


def test_backprop_filter_is_the_adjoint_of_conv2d_in_the_filter():
    for xs, fs, strides, padding, dil in ADJOINT:
        x = R.standard_normal(xs)
        f = R.standard_normal(fs)
        conv = tf.nn.conv2d(x, f, strides, padding, dilations=dil)
        y = R.standard_normal(conv.shape.as_list())
        back = tf.nn.conv2d_backprop_filter(x, list(fs), y, strides, padding, dilations=dil)
        cx, df = run([conv, back])
        np.testing.assert_allclose(np.vdot(cx, y), np.vdot(f, df), rtol=1e-10)


def test_backprop_function_names_keywords_and_errors():
    x = tf.placeholder(tf.float32, [2, 5, 5, 3])
    dy = tf.placeholder(tf.float32, [2, 5, 5, 4])
    f = tf.placeholder(tf.float32, [3, 3, 3, 4])
    a = tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, [1, 1, 1, 1], "SAME")
    b = tf.nn.conv2d_backprop_input([2, 5, 5, 3], filters=f, out_backprop=dy, strides=1,
                                    padding="SAME")
    assert (a.op.name, a.op.type) == ("Conv2DBackpropFilter", "Conv2DBackpropFilter")
    assert (b.op.name, b.op.type) == ("Conv2DBackpropInput", "Conv2DBackpropInput")
    assert a.shape.as_list() == [3, 3, 3, 4] and b.shape.as_list() == [2, 5, 5, 3]
    with pytest.raises(ValueError, match="filter_sizes"):
        tf.nn.conv2d_backprop_filter(x, [3, 3, 2, 4], dy, 1, "SAME")
    with pytest.raises(ValueError, match="out_backprop"):
        tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, 1, "VALID")
    with pytest.raises(TypeError):
        tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], tf.cast(dy, tf.float64), 1, "SAME")
    sizes = tf.placeholder(tf.int32, [4])
    dyn = tf.nn.conv2d_backprop_filter(x, sizes, dy, 1, "SAME")
    assert dyn.shape.as_list() == [None, None, 3, 4]
    xv = R.standard_normal((2, 5, 5, 3)).astype(np.float32)
    yv = R.standard_normal((2, 5, 5, 4)).astype(np.float32)
    got = run(dyn, {x: xv, dy: yv, sizes: [3, 3, 3, 4]})
    np.testing.assert_allclose(got, naive_conv2d_backprop_filter(xv, (3, 3, 3, 4), yv,
                                                                 padding="SAME"),
                               rtol=1e-4, atol=1e-4)


def test_gradients_with_unknown_batch_use_dynamic_shapes():
    x = tf.placeholder(tf.float64, [None, None, None, 2])
    f = tf.constant(R.standard_normal((2, 2, 2, 3)))
    y = tf.nn.conv2d(x, f, 1, "VALID")
    (dx,) = tf.gradients(tf.reduce_sum(y), [x])
    assert dx.op.inputs[0].op.type == "Shape"
    xv = R.standard_normal((2, 4, 3, 2))
    ones = np.ones((2, 3, 2, 3))
    np.testing.assert_allclose(run(dx, {x: xv}),
                               naive_conv2d_transpose(ones, run(f), xv.shape, padding="VALID"),
                               rtol=1e-10)


def test_chunked_convolution_matches_the_reference(monkeypatch):
    monkeypatch.setattr(conv_windows, "CHUNK_BYTES", 2048)
    for xs, fs, strides, padding, dil in ADJOINT + [((5, 6, 7, 8), (3, 3, 8, 3), (1, 1),
                                                     "SAME", (1, 1))]:
        x = R.standard_normal(xs).astype(np.float32)
        f = R.standard_normal(fs).astype(np.float32)
        got = run(tf.nn.conv2d(x, f, strides, padding, dilations=dil))
        np.testing.assert_allclose(got, naive_conv2d(x, f, strides, padding, dil),
                                   rtol=1e-4, atol=1e-4)
