"""Cases for the pooling gradient ops MaxPoolGrad, MaxPoolGradGrad and AvgPoolGrad.

The references loop over windows (TF1's padding rule from ``nn_conv_cases``); the
max-pool gradients route to (or gather from) the window's first maximum in
row-major order.
"""

import math

import numpy as np

import staticgraph as tf

from staticgraph.ops.nn import pool_grad as nn_pool_grad

from . import Case
from .nn_conv_cases import F64_IN_F32, _back, _f, _nhwc, ref_pads
from .nn_pool_cases import TIES


def _windows(shape, ksize, strides, padding):
    """Yield ``(i, j, rows, cols)``: each output position and its valid input ranges."""
    _, h, w, _ = shape
    (kh, kw), (sh, sw) = ksize, strides
    pt, pl = ref_pads(h, kh, sh, 1, padding)[0], ref_pads(w, kw, sw, 1, padding)[0]
    oh = math.ceil(h / sh) if padding == "SAME" else (h - kh) // sh + 1
    ow = math.ceil(w / sw) if padding == "SAME" else (w - kw) // sw + 1
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * sh - pt, j * sw - pl
            yield i, j, range(max(r0, 0), min(r0 + kh, h)), range(max(c0, 0), min(c0 + kw, w))


def _first_max(x, b, rows, cols, ch):
    """(row, col) of the first maximum of ``x[b, rows, cols, ch]`` in row-major order."""
    best = None
    for r in rows:
        for c in cols:
            if best is None or x[b, r, c, ch] > x[b, best[0], best[1], ch]:
                best = (r, c)
    return best


def naive_max_pool_grad(x, g, ksize, strides, padding, fmt="NHWC"):
    """Each window's gradient added at its first maximum."""
    x, g = _nhwc(x, fmt), _nhwc(g, fmt)
    dx = np.zeros(x.shape)
    for i, j, rows, cols in _windows(x.shape, ksize, strides, padding):
        for b in range(x.shape[0]):
            for ch in range(x.shape[3]):
                r, c = _first_max(x, b, rows, cols, ch)
                dx[b, r, c, ch] += g[b, i, j, ch]
    return _back(dx.astype(g.dtype), fmt)


def naive_max_pool_grad_grad(x, gg, ksize, strides, padding, fmt="NHWC"):
    """Each window's value of ``gg`` at its first maximum."""
    x, gg = _nhwc(x, fmt), _nhwc(gg, fmt)
    out = None
    for i, j, rows, cols in _windows(x.shape, ksize, strides, padding):
        if out is None:
            oh = math.ceil(x.shape[1] / strides[0]) if padding == "SAME" else \
                (x.shape[1] - ksize[0]) // strides[0] + 1
            ow = math.ceil(x.shape[2] / strides[1]) if padding == "SAME" else \
                (x.shape[2] - ksize[1]) // strides[1] + 1
            out = np.zeros((x.shape[0], oh, ow, x.shape[3]), gg.dtype)
        for b in range(x.shape[0]):
            for ch in range(x.shape[3]):
                r, c = _first_max(x, b, rows, cols, ch)
                out[b, i, j, ch] = gg[b, r, c, ch]
    return _back(out, fmt)


def naive_avg_pool_grad(shape, g, ksize, strides, padding, fmt="NHWC"):
    """Each window's gradient divided by its count of valid elements, spread over it."""
    g = _nhwc(g, fmt)
    shape = shape if fmt == "NHWC" else (shape[0], shape[2], shape[3], shape[1])
    dx = np.zeros(shape)
    for i, j, rows, cols in _windows(shape, ksize, strides, padding):
        share = g[:, i, j].astype(np.float64) / (len(rows) * len(cols))
        for r in rows:
            for c in cols:
                dx[:, r, c] += share
    return _back(dx.astype(g.dtype), fmt)


def _pooled_shape(xs, ksize, strides, padding, fmt):
    nhwc = xs if fmt == "NHWC" else (xs[0], xs[2], xs[3], xs[1])
    out = [nhwc[0]] + [math.ceil(n / s) if padding == "SAME" else (n - k) // s + 1
                       for n, k, s in zip(nhwc[1:3], ksize, strides)] + [nhwc[3]]
    return out if fmt == "NHWC" else [out[0], out[3], out[1], out[2]]


def _full(v, fmt):
    return (1, *v, 1) if fmt == "NHWC" else (1, 1, *v)


def max_grad_case(xs, ksize, strides, padding, fmt="NHWC", dtype=np.float32, x=None, id="",
                  **kw):
    """MaxPoolGrad of MaxPool(x) and a random gradient ``g``."""
    x = _f(*xs, dtype=dtype) if x is None else x.astype(dtype)
    g = _f(*_pooled_shape(x.shape, ksize, strides, padding, fmt), dtype=dtype)
    k, s = _full(ksize, fmt), _full(strides, fmt)
    return Case("MaxPoolGrad",
                lambda x, g: nn_pool_grad.max_pool_grad(
                    x, tf.nn.max_pool(x, k, s, padding, data_format=fmt), g, k, s, padding,
                    data_format=fmt),
                [x, g], lambda x, g: naive_max_pool_grad(x, g, ksize, strides, padding, fmt),
                id=id, **kw)


def max_grad_grad_case(xs, ksize, strides, padding, fmt="NHWC", dtype=np.float32, x=None,
                       id="", **kw):
    """MaxPoolGradGrad of MaxPool(x) and a random input-shaped ``gg``."""
    x = _f(*xs, dtype=dtype) if x is None else x.astype(dtype)
    gg = _f(*x.shape, dtype=dtype)
    k, s = _full(ksize, fmt), _full(strides, fmt)
    return Case("MaxPoolGradGrad",
                lambda x, gg: nn_pool_grad.max_pool_grad_grad(
                    x, tf.nn.max_pool(x, k, s, padding, data_format=fmt), gg, k, s, padding,
                    data_format=fmt),
                [x, gg], lambda x, gg: naive_max_pool_grad_grad(x, gg, ksize, strides,
                                                                padding, fmt),
                id=id, **kw)


def avg_grad_case(xs, ksize, strides, padding, fmt="NHWC", dtype=np.float32, id="", **kw):
    g = _f(*_pooled_shape(xs, ksize, strides, padding, fmt), dtype=dtype)
    k, s = _full(ksize, fmt), _full(strides, fmt)
    return Case("AvgPoolGrad",
                lambda g: nn_pool_grad.avg_pool_grad(list(xs), g, k, s, padding, data_format=fmt),
                [g], lambda g: naive_avg_pool_grad(xs, g, ksize, strides, padding, fmt),
                id=id, **kw)


CASES = [
    max_grad_case((2, 6, 8, 3), (2, 2), (2, 2), "VALID", id="2x2_valid", grad2=True,
                  bad=[[(2, 6, 8, 3), (2, 3, 3, 3)], [(6, 8, 3), (2, 3, 4, 3)]],
                  bad_dtypes=[[np.float32, np.float64], [np.int32, np.int32]]),
    max_grad_case((2, 7, 5, 2), (3, 3), (2, 2), "SAME", id="3x3_s2_same_overlapping"),
    max_grad_case((2, 5, 6, 2), (3, 3), (1, 1), "SAME", dtype=np.float64, id="3x3_s1_same"),
    max_grad_case((2, 5, 5, 2), (2, 2), (2, 2), "SAME", id="2x2_same_odd"),
    max_grad_case((1, 7, 7, 2), (2, 2), (2, 2), "VALID", id="2x2_valid_odd"),
    max_grad_case((2, 3, 6, 5), (2, 2), (2, 2), "SAME", fmt="NCHW", id="nchw"),
    max_grad_case((1, 5, 7, 2), (1, 2), (2, 3), "VALID", id="gaps"),
    max_grad_case(None, (2, 2), (2, 2), "SAME", x=TIES, id="ties_2x2", grad=False),
    max_grad_case(None, (3, 3), (2, 2), "SAME", x=TIES, id="ties_3x3_overlapping",
                  grad=False),
    max_grad_case(None, (2, 3), (1, 1), "VALID", x=-TIES, id="ties_negative", grad=False),

    max_grad_grad_case((2, 6, 8, 3), (2, 2), (2, 2), "VALID", id="2x2_valid",
                       bad=[[(2, 6, 8, 3), (2, 6, 7, 3)]], bad_dtypes=[[np.float32, np.float64]]),
    max_grad_grad_case((2, 7, 5, 2), (3, 3), (2, 2), "SAME", id="3x3_s2_same", grad2=True),
    max_grad_grad_case((2, 3, 6, 5), (2, 2), (2, 2), "SAME", fmt="NCHW", dtype=np.float64,
                       id="nchw"),
    max_grad_grad_case(None, (3, 3), (2, 2), "SAME", x=TIES, id="ties", grad=False),

    avg_grad_case((2, 6, 8, 3), (2, 2), (2, 2), "VALID", id="2x2_valid", grad2=True,
                  bad=[[(2, 3, 3, 3)], [(2, 3, 4)]], bad_dtypes=[[np.int32]]),
    avg_grad_case((2, 7, 5, 2), (3, 3), (2, 2), "SAME", id="3x3_s2_same", grad2=True),
    avg_grad_case((2, 5, 6, 2), (3, 3), (1, 1), "SAME", dtype=np.float64, id="3x3_s1_same",
                  **F64_IN_F32),
    avg_grad_case((1, 7, 7, 2), (2, 2), (2, 2), "VALID", id="2x2_valid_odd"),
    avg_grad_case((2, 2, 5, 5), (2, 2), (2, 2), "SAME", fmt="NCHW", id="nchw", grad2=True),
    avg_grad_case((1, 5, 7, 2), (2, 3), (2, 2), "SAME", dtype=np.float16, id="float16",
                  rtol=2e-3, atol=2e-3),
    # orig_input_shape from tf.shape: with unknown dims the window counts, the padding
    # and the channels are only known at run time
    Case("AvgPoolGrad",
         lambda x, g: nn_pool_grad.avg_pool_grad(tf.shape(x), g, (1, 3, 3, 1), (1, 2, 2, 1),
                                                 "SAME"),
         [_f(2, 7, 5, 2), _f(2, 4, 3, 2)],
         lambda x, g: naive_avg_pool_grad(x.shape, g, (3, 3), (2, 2), "SAME"),
         id="sizes_from_shape", grad_inputs=[1]),
    Case("AvgPoolGrad",
         lambda x, g: nn_pool_grad.avg_pool_grad(tf.shape(x), g, (1, 1, 2, 3), (1, 1, 2, 2),
                                                 "VALID", data_format="NCHW"),
         [_f(1, 3, 7, 8), _f(1, 3, 3, 3)],
         lambda x, g: naive_avg_pool_grad(x.shape, g, (2, 3), (2, 2), "VALID", "NCHW"),
         id="sizes_from_shape_valid_nchw", grad_inputs=[1]),
]
