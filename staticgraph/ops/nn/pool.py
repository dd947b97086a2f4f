"""Pooling: MaxPool and AvgPool (``max_pool``, ``avg_pool`` and TF2's ``*_pool2d``).

Kernels work in NHWC on strided views of the padded input, one per kernel offset;
SAME padding never wins a maximum and is not counted in an average (TF1). Window
geometry and padding rules live in :mod:`.conv_windows`; the gradient ops
MaxPoolGrad, MaxPoolGradGrad and AvgPoolGrad in :mod:`.pool_grad`.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import name_scope
from ..array import shape as _array_shape
from . import pool_grad as _grad
from .conv_windows import (check_data_format, check_outer_ones, from_nhwc, lowest_value, nhwc_dims,
                           pad_spatial, pool_windows, shape_in_format, spatial_hw, valid_counts,
                           window_geometry, window_sequence, window_slices)
from ..argument_aliases import deprecated_argument_lookup
from . import conv_onnx as _onnx
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, NUMERIC, require_dtype

__all__ = ["max_pool", "avg_pool", "max_pool2d", "avg_pool2d"]


# ---------------------------------------------------------------- pooling
class _Pool(OpDef):
    """Shared inference of MaxPool/AvgPool."""

    attrs = {"ksize": (1, 1, 1, 1), "strides": (1, 1, 1, 1), "padding": "VALID",
             "data_format": "NHWC"}
    allowed = FLOATS

    def infer(self, x, *, ksize, strides, padding, data_format):
        require_dtype(x, self.allowed, "input")
        n, h, w, c = nhwc_dims(x.shape, data_format)
        (kh, kw), (sh, sw) = spatial_hw(ksize, data_format), spatial_hw(strides, data_format)
        oh = window_geometry(h, kh, sh, 1, padding)[0]
        ow = window_geometry(w, kw, sw, 1, padding)[0]
        return Spec(x.dtype, shape_in_format(n, oh, ow, c, data_format))


@register
class MaxPool(_Pool):
    """Maximum over each ``ksize`` window (SAME padding never wins the maximum)."""

    allowed = NUMERIC

    @staticmethod
    def compute(x, *, ksize, strides, padding, data_format):
        low = lowest_value(x.dtype)
        x, k, s, out_hw, pads = pool_windows(x, ksize, strides, padding, data_format)
        views = window_slices(pad_spatial(x, pads, low), k, s, out_hw)
        out = np.array(views[0], copy=True) if len(views) == 1 else np.maximum(views[0], views[1])
        for v in views[2:]:
            np.maximum(out, v, out=out)
        return from_nhwc(out, data_format)

    def grad(self, op, dy):
        # TF1's _MaxPoolGrad.
        return [_grad.max_pool_grad(op.inputs[0], op.outputs[0], dy, **op.attrs)]

    def onnx(self, ctx, op, x):
        return _onnx.max_pool(ctx, op, x)


@register
class AvgPool(_Pool):
    """Mean over each ``ksize`` window, counting only non-padded elements (TF1)."""

    @staticmethod
    def compute(x, *, ksize, strides, padding, data_format):
        dtype = x.dtype
        x, k, s, (oh, ow), pads = pool_windows(x, ksize, strides, padding, data_format)
        acc = np.float32 if dtype == np.float16 else dtype
        views = window_slices(pad_spatial(x, pads), k, s, (oh, ow))
        out = np.array(views[0], dtype=acc, copy=True)
        for v in views[1:]:
            np.add(out, v, out=out)
        (pt, _), (pl, _) = pads
        rows = valid_counts(x.shape[1], oh, k[0], s[0], pt)
        cols = valid_counts(x.shape[2], ow, k[1], s[1], pl)
        out /= (rows[:, None] * cols[None, :]).astype(acc)[:, :, None]
        return from_nhwc(out.astype(dtype, copy=False), data_format)

    def grad(self, op, dy):
        # TF1's _AvgPoolGrad.
        return [_grad.avg_pool_grad(_array_shape.shape_vector(op.inputs[0]), dy, **op.attrs)]

    def onnx(self, ctx, op, x):
        return _onnx.avg_pool(ctx, op, x)


# ---------------------------------------------------------------- public functions
def _pool(op_type, default_name, value, ksize, strides, padding, data_format, name):
    data_format = check_data_format(data_format)
    ksize = window_sequence(ksize, "ksize", data_format)
    strides = window_sequence(strides, "strides", data_format)
    check_outer_ones(ksize, "ksize", data_format, "pooling")
    check_outer_ones(strides, "strides", data_format)
    if not isinstance(padding, str) or padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding!r}")
    with name_scope(name, default_name, [value] if hasattr(value, "graph") else []) as scope:
        x = convert_to_tensor(value)
        attrs = {"ksize": ksize, "strides": strides, "padding": padding,
                 "data_format": data_format}
        return apply_op(op_type, [x], attrs, name=scope)


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):  # noqa: A002 - TF1's keyword
    """Max pooling over 2-D windows of a 4-D tensor.

    Args:
        value: tensor ``[batch, height, width, channels]`` (NHWC) or NCHW (``input`` alias).
        ksize: window size: an int or 1, 2 or 4 ints (batch and channel entries 1).
        strides: window stride, like ``ksize``.
        padding: ``'SAME'`` (padding never wins) or ``'VALID'``.
        data_format: ``'NHWC'`` or ``'NCHW'``.
        name: op name (default ``"MaxPool"``).

    Raises:
        ValueError: bad ``ksize``/``strides``/``padding`` or a window larger than the input.

    Example:
        >>> tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    """
    value = deprecated_argument_lookup("input", input, "value", value)
    return _pool("MaxPool", "MaxPool", value, ksize, strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):  # noqa: A002 - TF1's keyword
    """Average pooling over 2-D windows; SAME padding averages only the real elements.

    Args and raises as :func:`max_pool` (float dtypes only); default name ``"AvgPool"``.
    """
    value = deprecated_argument_lookup("input", input, "value", value)
    return _pool("AvgPool", "AvgPool", value, ksize, strides, padding, data_format, name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Alias of :func:`max_pool` with TF2's argument name ``input``."""
    return _pool("MaxPool", "MaxPool2d", input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Alias of :func:`avg_pool` with TF2's argument name ``input``."""
    return _pool("AvgPool", "AvgPool2D", input, ksize, strides, padding, data_format, name)
