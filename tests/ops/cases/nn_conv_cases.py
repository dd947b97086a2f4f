"""Cases for Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter.

The references below loop over output positions (small sizes) and compute TF1's
padding from its documented rule, independently of the kernels. ``nn_pool_cases``
shares the padding rule, the layout helpers and the input generator ``_f`` (it
draws from ``R`` after the cases below).
"""

import math

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(7)


def ref_pads(size, k, stride, dilation, padding):
    """TF1's (before, after) padding of one dimension."""
    if padding == "VALID":
        return 0, 0
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def _nhwc(x, fmt):
    return x if fmt == "NHWC" else np.transpose(x, (0, 2, 3, 1))


def _back(x, fmt):
    return x if fmt == "NHWC" else np.transpose(x, (0, 3, 1, 2))


def naive_conv2d(x, f, strides=(1, 1), padding="VALID", dilations=(1, 1), fmt="NHWC",
                 pads=None):
    """Convolution by a loop over output positions; ``pads`` overrides the padding rule."""
    x = _nhwc(x, fmt)
    n, h, w, c = x.shape
    kh, kw, _, oc = f.shape
    (sh, sw), (dh, dw) = strides, dilations
    (pt, pb), (pl, pr) = pads or (ref_pads(h, kh, sh, dh, padding),
                                  ref_pads(w, kw, sw, dw, padding))
    xp = np.zeros((n, h + pt + pb, w + pl + pr, c), np.float64)
    xp[:, pt:pt + h, pl:pl + w] = x
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, oh, ow, oc))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                rows = [i * sh + a * dh for a in range(kh)]
                cols = [j * sw + a * dw for a in range(kw)]
                window = xp[b][np.ix_(rows, cols)]          # (kh, kw, c)
                out[b, i, j] = np.einsum("hwc,hwco->o", window, f.astype(np.float64))
    return _back(out.astype(x.dtype), fmt)


def naive_conv2d_transpose(dy, f, out_shape, strides=(1, 1), padding="SAME", dilations=(1, 1),
                           fmt="NHWC"):
    """Transposed convolution: scatter every ``dy`` position through the filter."""
    dy = _nhwc(dy, fmt)
    n, h, w, c = out_shape if fmt == "NHWC" else (out_shape[0], *out_shape[2:], out_shape[1])
    kh, kw = f.shape[:2]
    (sh, sw), (dh, dw) = strides, dilations
    (pt, pb), (pl, pr) = ref_pads(h, kh, sh, dh, padding), ref_pads(w, kw, sw, dw, padding)
    dx = np.zeros((n, h + pt + pb, w + pl + pr, c))
    for b in range(n):
        for i in range(dy.shape[1]):
            for j in range(dy.shape[2]):
                for a in range(kh):
                    for e in range(kw):
                        dx[b, i * sh + a * dh, j * sw + e * dw] += f[a, e] @ dy[b, i, j]
    return _back(dx[:, pt:pt + h, pl:pl + w].astype(dy.dtype), fmt)


def naive_conv2d_backprop_filter(x, fsizes, dy, strides=(1, 1), padding="VALID",
                                 dilations=(1, 1), fmt="NHWC", pads=None):
    """Filter gradient: every output position adds its window times its ``dy`` row."""
    x, dy = _nhwc(x, fmt), _nhwc(dy, fmt)
    n, h, w, c = x.shape
    kh, kw = fsizes[:2]
    (sh, sw), (dh, dw) = strides, dilations
    (pt, pb), (pl, pr) = pads or (ref_pads(h, kh, sh, dh, padding),
                                  ref_pads(w, kw, sw, dw, padding))
    xp = np.zeros((n, h + pt + pb, w + pl + pr, c))
    xp[:, pt:pt + h, pl:pl + w] = x
    dw_ = np.zeros(tuple(fsizes))
    for b in range(n):
        for i in range(dy.shape[1]):
            for j in range(dy.shape[2]):
                rows = [i * sh + a * dh for a in range(kh)]
                cols = [j * sw + a * dw for a in range(kw)]
                window = xp[b][np.ix_(rows, cols)]          # (kh, kw, c)
                dw_ += window[..., None] * dy[b, i, j].astype(np.float64)
    return dw_.astype(x.dtype)


def _explicit_transpose(dy, f, out_shape, pads):
    """Transposed convolution with explicit ``pads`` as the adjoint of ``naive_conv2d``."""
    n, h, w, c = out_shape
    basis = np.eye(n * h * w * c).reshape(-1, n, h, w, c)
    rows = np.stack([naive_conv2d(b, f.astype(np.float64), pads=pads).ravel() for b in basis])
    return (rows @ dy.astype(np.float64).ravel()).reshape(out_shape).astype(dy.dtype)


# onnxruntime has no float64 Conv/ConvTranspose/AveragePool kernels: the ONNX lowerings
# compute float64 convolutions and average pools in float32 (float32 tolerances).
F64_IN_F32 = {"onnx_rtol": 1e-5, "onnx_atol": 1e-5}


def _f(*shape, dtype=np.float32):
    return R.standard_normal(shape).astype(dtype)


def conv_case(xs, fs, strides, padding, dilations=(1, 1), fmt="NHWC", dtype=np.float32,
              id="", **kw):
    x, f = _f(*xs, dtype=dtype), _f(*fs, dtype=dtype)
    full = lambda v: [1, *v, 1] if fmt == "NHWC" else [1, 1, *v]  # noqa: E731
    return Case("Conv2D",
                lambda x, f: tf.nn.conv2d(x, f, full(strides), padding, data_format=fmt,
                                          dilations=full(dilations)),
                [x, f], lambda x, f: naive_conv2d(x, f, strides, padding, dilations, fmt),
                rtol=1e-4, atol=1e-5, id=id, **kw)


def transpose_case(ys, fs, out_shape, strides, padding, dilations=(1, 1), fmt="NHWC",
                   dtype=np.float32, id="", **kw):
    y, f = _f(*ys, dtype=dtype), _f(*fs, dtype=dtype)
    full = lambda v: [1, *v, 1] if fmt == "NHWC" else [1, 1, *v]  # noqa: E731
    return Case("Conv2DBackpropInput",
                lambda y, f: tf.nn.conv2d_transpose(y, f, out_shape, full(strides), padding,
                                                    data_format=fmt, dilations=full(dilations)),
                [y, f], lambda y, f: naive_conv2d_transpose(y, f, out_shape, strides, padding,
                                                            dilations, fmt),
                rtol=1e-4, atol=1e-5, id=id, **kw)


def filter_case(xs, fsizes, strides, padding, dilations=(1, 1), fmt="NHWC", dtype=np.float32,
                id="", **kw):
    x = _f(*xs, dtype=dtype)
    nhwc = xs if fmt == "NHWC" else (xs[0], xs[2], xs[3], xs[1])
    ys = [nhwc[0]] + [
        math.ceil(size / s) if padding == "SAME" else (size - (k - 1) * d - 1) // s + 1
        for size, k, s, d in zip(nhwc[1:3], fsizes[:2], strides, dilations)] + [fsizes[3]]
    dy = _f(*(ys if fmt == "NHWC" else (ys[0], ys[3], ys[1], ys[2])), dtype=dtype)
    full = lambda v: [1, *v, 1] if fmt == "NHWC" else [1, 1, *v]  # noqa: E731
    return Case("Conv2DBackpropFilter",
                lambda x, dy: tf.nn.conv2d_backprop_filter(
                    x, list(fsizes), dy, full(strides), padding, data_format=fmt,
                    dilations=full(dilations)),
                [x, dy], lambda x, dy: naive_conv2d_backprop_filter(
                    x, fsizes, dy, strides, padding, dilations, fmt),
                rtol=1e-4, atol=1e-4, id=id, **kw)


CASES = [
    conv_case((2, 6, 7, 3), (3, 3, 3, 4), (1, 1), "SAME", id="same_s1",
              bad=[[(2, 6, 7, 3), (3, 3, 2, 4)], [(6, 7, 3), (3, 3, 3, 4)],
                   [(2, 6, 7, 3), (3, 3, 4)]],
              bad_dtypes=[[np.float32, np.float64], [np.int32, np.int32]]),
    conv_case((2, 7, 5, 2), (3, 3, 2, 3), (2, 2), "SAME", id="same_s2_odd", grad2=True),
    conv_case((2, 7, 8, 2), (3, 2, 2, 3), (2, 2), "VALID", id="valid_s2",
              bad=[[(1, 2, 8, 2), (3, 2, 2, 3)]]),
    conv_case((1, 8, 7, 2), (3, 3, 2, 2), (1, 1), "SAME", (2, 2), dtype=np.float64,
              id="same_dilated", **F64_IN_F32),
    conv_case((2, 9, 8, 1), (2, 3, 1, 2), (1, 1), "VALID", (2, 2), id="valid_dilated",
              grad2=True),
    conv_case((2, 9, 9, 2), (2, 2, 2, 3), (2, 3), "SAME", (2, 1), id="same_s2_dilated_even_k"),
    conv_case((2, 3, 7, 5), (3, 3, 3, 4), (2, 2), "SAME", fmt="NCHW", id="nchw", grad2=True),
    conv_case((3, 4, 5, 6), (1, 1, 6, 2), (1, 1), "VALID", id="1x1"),
    conv_case((2, 6, 7, 6), (3, 2, 6, 3), (1, 2), "SAME", id="6_channels"),
    conv_case((1, 9, 8, 4), (3, 3, 4, 2), (2, 1), "VALID", (1, 2), id="4_channels_dilated"),
    conv_case((0, 5, 5, 2), (3, 3, 2, 3), (1, 1), "SAME", id="empty_batch"),
    Case("Conv2D", lambda x, f: tf.nn.conv2d(x, f, 1, [[0, 0], [1, 2], [0, 1], [0, 0]]),
         [_f(2, 5, 6, 2), _f(3, 3, 2, 2)],
         lambda x, f: naive_conv2d(x, f, pads=((1, 2), (0, 1))), rtol=1e-4, atol=1e-5,
         id="explicit", grad2=True),

    transpose_case((2, 4, 4, 4), (3, 3, 3, 4), [2, 7, 7, 3], (2, 2), "SAME", id="same_s2",
                   bad=[[(2, 4, 4, 5), (3, 3, 3, 4)], [(2, 5, 4, 4), (3, 3, 3, 4)],
                        [(2, 4, 4, 4), (3, 3, 2, 4)]],
                   bad_dtypes=[[np.float64, np.float32]], grad2=True),
    transpose_case((2, 3, 4, 2), (3, 3, 3, 2), [2, 5, 6, 3], (1, 1), "VALID", id="valid_s1"),
    transpose_case((1, 3, 3, 2), (3, 3, 1, 2), [1, 8, 7, 1], (2, 2), "VALID",
                   id="valid_s2_uncovered"),
    transpose_case((2, 5, 6, 2), (3, 2, 3, 2), [2, 5, 6, 3], (1, 1), "SAME", (2, 2),
                   dtype=np.float64, id="same_dilated", **F64_IN_F32),
    transpose_case((2, 4, 3, 3), (3, 3, 2, 4), [2, 2, 5, 6], (2, 2), "SAME", fmt="NCHW",
                   id="nchw", grad2=True),
    transpose_case((1, 3, 3, 3), (2, 3, 2, 3), [1, 7, 8, 2], (2, 2), "VALID", (2, 1),
                   dtype=np.float64, id="valid_dilated", grad2=True, **F64_IN_F32),
    Case("Conv2DBackpropInput",
         lambda y, f: tf.nn.conv2d_backprop_input([2, 5, 4, 2], f, y, 1,
                                                  [[0, 0], [1, 0], [2, 1], [0, 0]]),
         [_f(2, 5, 5, 3), _f(2, 3, 2, 3)],
         lambda y, f: _explicit_transpose(y, f, (2, 5, 4, 2), ((1, 0), (2, 1))),
         rtol=1e-4, atol=1e-5, id="explicit", grad2=True),
    # input_sizes from tf.shape: with unknown dims the sizes are only known at run time
    Case("Conv2DBackpropInput",
         lambda x, f, y: tf.nn.conv2d_backprop_input(tf.shape(x), f, y, [1, 2, 2, 1], "SAME"),
         [_f(2, 7, 8, 3), _f(3, 3, 3, 4), _f(2, 4, 4, 4)],
         lambda x, f, y: naive_conv2d_transpose(y, f, x.shape, (2, 2), "SAME"),
         rtol=1e-4, atol=1e-5, id="sizes_from_shape", grad_inputs=[1, 2]),
    Case("Conv2DBackpropInput",
         lambda x, f, y: tf.nn.conv2d_backprop_input(tf.shape(x), f, y, [1, 1, 2, 2], "VALID",
                                                     data_format="NCHW",
                                                     dilations=[1, 1, 1, 2]),
         [_f(1, 2, 8, 8), _f(2, 2, 2, 3), _f(1, 3, 4, 3)],
         lambda x, f, y: naive_conv2d_transpose(y, f, x.shape, (2, 2), "VALID", (1, 2), "NCHW"),
         rtol=1e-4, atol=1e-5, id="sizes_from_shape_valid_nchw", grad_inputs=[1, 2]),

    filter_case((2, 5, 6, 3), (3, 3, 3, 4), (1, 1), "SAME", id="same_s1", grad2=True,
                bad=[[(2, 5, 6, 3), (2, 5, 6, 5)], [(2, 5, 6, 2), (2, 5, 6, 4)],
                     [(2, 5, 6, 3), (2, 4, 6, 4)], [(3, 5, 6, 3), (2, 5, 6, 4)],
                     [(5, 6, 3), (2, 5, 6, 4)]],
                bad_dtypes=[[np.float32, np.float64], [np.int32, np.int32]]),
    filter_case((2, 7, 8, 1), (3, 2, 1, 3), (2, 2), "VALID", id="valid_s2_1_channel",
                grad2=True),
    filter_case((2, 7, 5, 2), (3, 3, 2, 3), (2, 2), "SAME", id="same_s2_odd"),
    filter_case((1, 8, 7, 2), (3, 3, 2, 2), (1, 1), "SAME", (2, 2), dtype=np.float64,
                id="same_dilated", grad2=True, **F64_IN_F32),
    filter_case((2, 9, 8, 4), (2, 3, 4, 2), (1, 2), "VALID", (2, 1), id="valid_dilated_4ch"),
    filter_case((2, 3, 7, 5), (3, 3, 3, 4), (2, 2), "SAME", fmt="NCHW", id="nchw", grad2=True),
    filter_case((0, 5, 5, 2), (3, 3, 2, 3), (1, 1), "SAME", id="empty_batch"),
    Case("Conv2DBackpropFilter",
         lambda x, dy: tf.nn.conv2d_backprop_filter(x, [3, 2, 2, 2], dy, [1, 1, 1, 1],
                                                    [[0, 0], [1, 2], [0, 1], [0, 0]]),
         [_f(2, 5, 6, 2), _f(2, 6, 6, 2)],
         lambda x, dy: naive_conv2d_backprop_filter(x, (3, 2, 2, 2), dy,
                                                    pads=((1, 2), (0, 1))),
         rtol=1e-4, atol=1e-4, id="explicit", grad2=True),
]
