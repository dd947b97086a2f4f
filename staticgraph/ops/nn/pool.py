"""Pooling: MaxPool and AvgPool (``max_pool``, ``avg_pool`` and TF2's ``*_pool2d``).

Kernels work in NHWC on strided views of the padded input, one per kernel offset;
SAME padding never wins a maximum and is not counted in an average (TF1). Window
geometry and padding rules live in :mod:`.conv_windows`; the gradient ops
MaxPoolGrad, MaxPoolGradGrad and AvgPoolGrad in :mod:`.nn_pool_grad`.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import dtypes, name_scope
from ..array import shape as _array_shape
from . import pool_grad as _grad
from .conv_windows import (_check_format, _check_outer_ones, _dims, _from_nhwc, _get_sequence,
                           _lookup, _shape, _spatial, _to_nhwc, pad_spatial, window_geometry)
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
        n, h, w, c = _dims(x.shape, data_format)
        (kh, kw), (sh, sw) = _spatial(ksize, data_format), _spatial(strides, data_format)
        oh = window_geometry(h, kh, sh, 1, padding)[0]
        ow = window_geometry(w, kw, sw, 1, padding)[0]
        return Spec(x.dtype, _shape(n, oh, ow, c, data_format))


def _pool_windows(x, ksize, strides, padding, data_format):
    """Padded NHWC input, the window geometry and the padding of a pooling op."""
    x = _to_nhwc(x, data_format)
    (kh, kw), (sh, sw) = _spatial(ksize, data_format), _spatial(strides, data_format)
    oh, pt, pb = window_geometry(x.shape[1], kh, sh, 1, padding)
    ow, pl, pr = window_geometry(x.shape[2], kw, sw, 1, padding)
    return x, (kh, kw), (sh, sw), (oh, ow), ((pt, pb), (pl, pr))


def _window_slices(xp, ksize, strides, out_hw):
    """One strided view ``(N, OH, OW, C)`` per kernel offset of padded NHWC ``xp``."""
    (kh, kw), (sh, sw), (oh, ow) = ksize, strides, out_hw
    if kh == sh and kw == sw and xp.shape[1] >= oh * kh and xp.shape[2] >= ow * kw:
        v = xp[:, :oh * kh, :ow * kw].reshape(xp.shape[0], oh, kh, ow, kw, xp.shape[3])
        return [v[:, :, i, :, j] for i in range(kh) for j in range(kw)]
    return [xp[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
            for i in range(kh) for j in range(kw)]


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


@register
class MaxPool(_Pool):
    """Maximum over each ``ksize`` window (SAME padding never wins the maximum)."""

    allowed = NUMERIC

    @staticmethod
    def compute(x, *, ksize, strides, padding, data_format):
        low = _lowest(x.dtype)
        x, k, s, out_hw, pads = _pool_windows(x, ksize, strides, padding, data_format)
        views = _window_slices(pad_spatial(x, pads, low), k, s, out_hw)
        out = np.array(views[0], copy=True) if len(views) == 1 else np.maximum(views[0], views[1])
        for v in views[2:]:
            np.maximum(out, v, out=out)
        return _from_nhwc(out, data_format)

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
        x, k, s, (oh, ow), pads = _pool_windows(x, ksize, strides, padding, data_format)
        acc = np.float32 if dtype == np.float16 else dtype
        views = _window_slices(pad_spatial(x, pads), k, s, (oh, ow))
        out = np.array(views[0], dtype=acc, copy=True)
        for v in views[1:]:
            np.add(out, v, out=out)
        (pt, _), (pl, _) = pads
        rows = _valid_counts(x.shape[1], oh, k[0], s[0], pt)
        cols = _valid_counts(x.shape[2], ow, k[1], s[1], pl)
        out /= (rows[:, None] * cols[None, :]).astype(acc)[:, :, None]
        return _from_nhwc(out.astype(dtype, copy=False), data_format)

    def grad(self, op, dy):
        # TF1's _AvgPoolGrad.
        return [_grad.avg_pool_grad(_shape_tensor(op.inputs[0]), dy, **op.attrs)]

    def onnx(self, ctx, op, x):
        return _onnx.avg_pool(ctx, op, x)


def _valid_counts(size, out, k, stride, pad_before):
    """Number of non-padded elements in each of ``out`` windows along one dimension."""
    start = np.arange(out) * stride - pad_before
    return np.minimum(start + k, size) - np.maximum(start, 0)


def _shape_tensor(t):
    """``t``'s shape as an int32 vector: a constant when static, else ``tf.shape``."""
    if t.shape.is_fully_defined():
        return convert_to_tensor(list(t.shape.raw), dtype=dtypes.int32)
    return _array_shape.shape(t)


# ---------------------------------------------------------------- public functions
def _pool(op_type, default_name, value, ksize, strides, padding, data_format, name):
    data_format = _check_format(data_format)
    ksize = _get_sequence(ksize, "ksize", data_format)
    strides = _get_sequence(strides, "strides", data_format)
    _check_outer_ones(ksize, "ksize", data_format, "pooling")
    _check_outer_ones(strides, "strides", data_format)
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
    value = _lookup("input", input, "value", value)
    return _pool("MaxPool", "MaxPool", value, ksize, strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None,
             input=None):  # noqa: A002 - TF1's keyword
    """Average pooling over 2-D windows; SAME padding averages only the real elements.

    Args and raises as :func:`max_pool` (float dtypes only); default name ``"AvgPool"``.
    """
    value = _lookup("input", input, "value", value)
    return _pool("AvgPool", "AvgPool", value, ksize, strides, padding, data_format, name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Alias of :func:`max_pool` with TF2's argument name ``input``."""
    return _pool("MaxPool", "MaxPool2d", input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Alias of :func:`avg_pool` with TF2's argument name ``input``."""
    return _pool("AvgPool", "AvgPool2D", input, ksize, strides, padding, data_format, name)
