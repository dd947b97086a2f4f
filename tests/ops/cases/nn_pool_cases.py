"""Cases for MaxPool and AvgPool.

The references loop over windows: max or mean over the valid (non-padded) part of
each window, with TF1's padding rule from ``nn_conv_cases``. The gradient ops'
cases are in ``nn_pool_grad_cases`` (which uses ``TIES``, drawn here).
"""

import math

import numpy as np

import staticgraph as tf

from . import Case
from .nn_conv_cases import F64_IN_F32, _back, _f, _nhwc, ref_pads


def naive_pool(x, ksize, strides, padding, kind, fmt="NHWC"):
    """Max or mean over the valid (non-padded) part of each window."""
    x = _nhwc(x, fmt)
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = ksize, strides
    pt, pl = ref_pads(h, kh, sh, 1, padding)[0], ref_pads(w, kw, sw, 1, padding)[0]
    oh = math.ceil(h / sh) if padding == "SAME" else (h - kh) // sh + 1
    ow = math.ceil(w / sw) if padding == "SAME" else (w - kw) // sw + 1
    out = np.zeros((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * sh - pt, j * sw - pl
            win = x[:, max(r0, 0):min(r0 + kh, h), max(c0, 0):min(c0 + kw, w)]
            if kind == "max":
                out[:, i, j] = win.max(axis=(1, 2))
            else:
                out[:, i, j] = win.astype(np.float64).mean(axis=(1, 2))
    return _back(out, fmt)


# Relu-like input: many windows are all zeros or share their maximum (ties).
TIES = np.maximum(np.round(_f(2, 6, 7, 3, dtype=np.float64)), 0)


def pool_case(kind, xs, ksize, strides, padding, fmt="NHWC", dtype=np.float32, id="", **kw):
    x = _f(*xs, dtype=np.float64)
    x = (x * 10).astype(dtype) if np.dtype(dtype).kind == "i" else x.astype(dtype)
    fn = tf.nn.max_pool if kind == "max" else tf.nn.avg_pool
    full = lambda v: [1, *v, 1] if fmt == "NHWC" else [1, 1, *v]  # noqa: E731
    tol = {"rtol": 2e-3, "atol": 2e-3} if dtype == np.float16 else {}
    return Case("MaxPool" if kind == "max" else "AvgPool",
                lambda x: fn(x, full(ksize), full(strides), padding, data_format=fmt),
                [x], lambda x: naive_pool(x, ksize, strides, padding, kind, fmt),
                id=id, **tol, **kw)


CASES = [
    pool_case("max", (2, 6, 8, 3), (2, 2), (2, 2), "VALID", id="2x2_valid",
              bad=[[(2, 1, 8, 3)], [(6, 8, 3)]], bad_dtypes=[[np.bool_]]),
    pool_case("max", (2, 7, 5, 2), (3, 3), (2, 2), "SAME", id="3x3_s2_same", grad2=True),
    pool_case("max", (2, 5, 6, 2), (3, 3), (1, 1), "SAME", dtype=np.int32, id="int32_same"),
    pool_case("max", (2, 5, 5, 2), (2, 2), (2, 2), "SAME", id="2x2_same_odd"),
    pool_case("max", (1, 7, 7, 2), (2, 2), (2, 2), "VALID", id="2x2_valid_odd"),
    pool_case("max", (2, 3, 6, 5), (2, 2), (2, 2), "SAME", fmt="NCHW", id="nchw"),
    pool_case("max", (2, 6, 7, 2), (2, 3), (1, 2), "VALID", dtype=np.float64, id="2x3_s12"),
    Case("MaxPool", lambda x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
         [-np.abs(_f(1, 3, 3, 2)) - 1], lambda x: naive_pool(x, (2, 2), (2, 2), "SAME", "max"),
         id="negative_same"),

    pool_case("avg", (2, 6, 8, 3), (2, 2), (2, 2), "VALID", id="2x2_valid",
              bad=[[(2, 6, 1, 3)]], bad_dtypes=[[np.int32]]),
    pool_case("avg", (2, 7, 5, 2), (3, 3), (2, 2), "SAME", id="3x3_s2_same", grad2=True),
    pool_case("avg", (2, 5, 6, 2), (3, 3), (1, 1), "SAME", dtype=np.float64, id="3x3_s1_same",
              **F64_IN_F32),
    pool_case("avg", (2, 2, 5, 5), (2, 2), (2, 2), "SAME", fmt="NCHW", id="nchw", grad2=True),
    pool_case("avg", (1, 5, 7, 2), (2, 3), (2, 2), "SAME", dtype=np.float16, id="float16"),
]
