"""Convolution and pooling: Conv2D, Conv2DBackpropInput, MaxPool, AvgPool.

Kernels work in NHWC (NCHW values are transposed in and out). Convolution is
im2col (a strided view of the padded input, copied once into a matrix) followed by
one matrix product; the transposed convolution is one matrix product followed by
col2im (one strided slice added per kernel offset). ``im2col``/``col2im`` and
``window_geometry`` are reusable by the gradient rules.

Padding follows TF1: ``VALID`` uses no padding; ``SAME`` gives ``ceil(in / stride)``
outputs with ``pad_total = max((out - 1) * stride + (k - 1) * dilation + 1 - in, 0)``
and ``pad_before = pad_total // 2``; an explicit list of ``[before, after]`` pairs
(one per dimension) gives padding ``EXPLICIT``.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..graphlib import TensorShape, dtypes, name_scope
from .convert import convert_to_tensor
from .registry import OpDef, Spec, apply_op, register
from .shape_rules import FLOATS, NUMERIC, check_same_dtype, require_dtype
from .static_value import constant_value_as_shape

__all__ = ["conv2d", "conv2d_transpose", "max_pool", "avg_pool", "max_pool2d", "avg_pool2d"]

_FORMATS = ("NHWC", "NCHW")


# ---------------------------------------------------------------- geometry helpers
def window_geometry(size, k, stride, dilation=1, padding="VALID", explicit=(0, 0)):
    """Output size and padding of one spatial dimension: ``(out, pad_before, pad_after)``.

    ``size`` may be None (unknown): the output size is then None and the pads are
    None for SAME. Raises ValueError when the (dilated) window does not fit.
    """
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        if size is None:
            return None, None, None
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    before, after = explicit if padding == "EXPLICIT" else (0, 0)
    if size is None:
        return None, before, after
    padded = size + before + after
    if padded < eff:
        raise ValueError(f"Computed output size would be negative: input size {size} "
                         f"(padded {padded}) is smaller than the window size {eff} "
                         f"(kernel {k}, dilation {dilation}) with padding {padding}")
    return (padded - eff) // stride + 1, before, after


def _spatial(values, data_format):
    """The (height, width) entries of a 4-tuple given in ``data_format`` order."""
    return (values[1], values[2]) if data_format == "NHWC" else (values[2], values[3])


def _explicit_pairs(explicit_paddings, data_format):
    """((top, bottom), (left, right)) from a flat 8-tuple in ``data_format`` order."""
    if not explicit_paddings:
        return (0, 0), (0, 0)
    pairs = [tuple(explicit_paddings[i:i + 2]) for i in range(0, 8, 2)]
    return _spatial(pairs, data_format)


def _to_nhwc(x, data_format):
    return x if data_format == "NHWC" else x.transpose(0, 2, 3, 1)


def _from_nhwc(x, data_format):
    return x if data_format == "NHWC" else np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def pad_spatial(x, pads, value=0):
    """NHWC ``x`` padded by ``((top, bottom), (left, right))`` with ``value`` (no copy if 0)."""
    (pt, pb), (pl, pr) = pads
    if not (pt or pb or pl or pr):
        return x
    n, h, w, c = x.shape
    out = (np.zeros if value == 0 else np.empty)((n, h + pt + pb, w + pl + pr, c), x.dtype)
    if value != 0:
        out.fill(value)
    out[:, pt:pt + h, pl:pl + w] = x
    return out


def patches(xp, ksize, strides, dilations, out_hw):
    """Read-only view ``(N, OH, OW, KH, KW, C)`` of the windows of padded NHWC ``xp``."""
    n, _, _, c = xp.shape
    sn, sh, sw, sc = xp.strides
    (kh, kw), (st_h, st_w), (dh, dw), (oh, ow) = ksize, strides, dilations, out_hw
    return as_strided(xp, (n, oh, ow, kh, kw, c),
                      (sn, sh * st_h, sw * st_w, sh * dh, sw * dw, sc), writeable=False)


def im2col(x, ksize, strides, dilations, pads):
    """The patch matrix of NHWC ``x``: ``(N*OH*OW, KH*KW*C)`` and ``(OH, OW)``.

    Columns are ordered (kh, kw, c) like a reshaped filter. The matrix is a fresh
    array (C- or, for fewer than 4 channels, Fortran-ordered), never a view of ``x``
    except for 1x1 stride-1 windows without padding.

    Args:
        x: input ``(N, H, W, C)``.
        ksize, strides, dilations: ``(h, w)`` pairs.
        pads: ``((top, bottom), (left, right))`` (see :func:`window_geometry`).
    """
    n, h, w, c = x.shape
    (pt, pb), (pl, pr) = pads
    (kh, kw), (dh, dw) = ksize, dilations
    oh = (h + pt + pb - (kh - 1) * dh - 1) // strides[0] + 1
    ow = (w + pl + pr - (kw - 1) * dw - 1) // strides[1] + 1
    view = patches(pad_spatial(x, pads), ksize, strides, dilations, (oh, ow))
    if c < 4:  # few channels: copy whole output rows per tap, hand BLAS the transpose
        cols_t = np.ascontiguousarray(view.transpose(3, 4, 5, 0, 1, 2))
        return cols_t.reshape(kh * kw * c, n * oh * ow).T, (oh, ow)
    return view.reshape(n * oh * ow, kh * kw * c), (oh, ow)


def col2im(cols, x_shape, ksize, strides, dilations, pads):
    """Adjoint of :func:`im2col`: sum patch values back into an NHWC array of ``x_shape``.

    ``cols`` is ``(N*OH*OW, KH*KW*C)`` or ``(N, OH, OW, KH, KW, C)``; overlapping
    windows add up. One strided slice is added per kernel offset (KH*KW iterations).
    """
    n, h, w, c = x_shape
    (pt, pb), (pl, pr) = pads
    (kh, kw), (sh, sw), (dh, dw) = ksize, strides, dilations
    oh = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (w + pl + pr - (kw - 1) * dw - 1) // sw + 1
    cols = cols.reshape(n, oh, ow, kh, kw, c)
    out = np.zeros((n, h + pt + pb, w + pl + pr, c), cols.dtype)
    for i in range(kh):
        rows = slice(i * dh, i * dh + (oh - 1) * sh + 1, sh)
        for j in range(kw):
            out[:, rows, j * dw:j * dw + (ow - 1) * sw + 1:sw] += cols[:, :, :, i, j]
    if pt or pb or pl or pr:
        out = np.ascontiguousarray(out[:, pt:pt + h, pl:pl + w])
    return out


# ---------------------------------------------------------------- attribute normalisation
def _get_sequence(value, name, data_format, allow_none_as=None):
    """TF1's rule: an int, or 1, 2 or 4 values -> a 4-tuple in ``data_format`` order."""
    if value is None:
        if allow_none_as is None:
            raise ValueError(f"{name} must be given")
        value = allow_none_as
    if isinstance(value, (int, np.integer)):
        value = [int(value)]
    value = [int(v) for v in value]
    if len(value) == 1:
        value = value * 2
    if len(value) == 2:
        value = [1, value[0], value[1], 1] if data_format == "NHWC" else [1, 1, *value]
    if len(value) != 4:
        raise ValueError(f"{name} should be of length 1, 2 or 4 but was {len(value)}")
    if any(v < 1 for v in value):
        raise ValueError(f"{name} must be positive, got {value}")
    return tuple(value)


def _check_format(data_format):
    if data_format not in _FORMATS:
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    return data_format


def _convert_padding(padding, data_format):
    """``(padding, explicit_paddings)``: a string, or explicit pairs -> 'EXPLICIT'."""
    if isinstance(padding, str):
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"padding must be 'SAME', 'VALID' or a list of explicit "
                             f"paddings, got {padding!r}")
        return padding, ()
    pairs = [tuple(int(v) for v in p) for p in padding]
    if len(pairs) != 4 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"explicit padding must be 4 [before, after] pairs, got {padding!r}")
    outer = (pairs[0], pairs[3]) if data_format == "NHWC" else (pairs[0], pairs[1])
    if any(v != 0 for p in outer for v in p):
        raise ValueError(f"explicit padding of the batch and channel dimensions must be 0, "
                         f"got {padding!r}")
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"explicit paddings must be non-negative, got {padding!r}")
    return "EXPLICIT", tuple(v for p in pairs for v in p)


def _check_outer_ones(values, name, data_format, what="strides"):
    n, c = (values[0], values[3]) if data_format == "NHWC" else (values[0], values[1])
    if n != 1 or c != 1:
        raise ValueError(f"Current implementation does not yet support {what} in the batch "
                         f"and depth dimensions ({name}={list(values)}).")


def _lookup(new_name, new, old_name, old):
    """TF1's deprecated_argument_lookup: one of two keyword aliases."""
    if new is not None:
        if old is not None:
            raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'")
        return new
    return old


def _dims(shape, data_format):
    """(n, h, w, c) static dims of a rank-4 shape in ``data_format``."""
    raw = shape.with_rank(4).raw
    return raw if data_format == "NHWC" else (raw[0], raw[2], raw[3], raw[1])


def _static_out(size, k, stride, dilation, padding, explicit):
    """Static output size of one dimension (None when unknown)."""
    if padding == "SAME":
        return None if size is None else -(-size // stride)
    if k is None:
        return None
    return window_geometry(size, k, stride, dilation, padding, explicit)[0]


def _shape(n, h, w, c, data_format):
    return TensorShape([n, h, w, c] if data_format == "NHWC" else [n, c, h, w])


# ---------------------------------------------------------------- Conv2D
_CONV_ATTRS = {"strides": (1, 1, 1, 1), "use_cudnn_on_gpu": True, "padding": "VALID",
               "explicit_paddings": (), "data_format": "NHWC", "dilations": (1, 1, 1, 1)}


@register
class Conv2D(OpDef):
    """2-D convolution (cross-correlation) of ``input`` with ``filter [kh, kw, in, out]``."""

    attrs = dict(_CONV_ATTRS)

    def infer(self, x, f, *, strides, padding, explicit_paddings, data_format, dilations,
              use_cudnn_on_gpu):
        dtype = check_same_dtype(x, f, names=("input", "filter"))
        require_dtype(x, FLOATS, "input")
        n, h, w, c = _dims(x.shape, data_format)
        kh, kw, fc, oc = f.shape.with_rank(4).raw
        if c is not None and fc is not None and c != fc:
            raise ValueError(f"Depth of input ({c}) must equal the filter's input depth ({fc})")
        (sh, sw), (dh, dw) = _spatial(strides, data_format), _spatial(dilations, data_format)
        pad_h, pad_w = _explicit_pairs(explicit_paddings, data_format)
        oh = _static_out(h, kh, sh, dh, padding, pad_h)
        ow = _static_out(w, kw, sw, dw, padding, pad_w)
        return Spec(dtype, _shape(n, oh, ow, oc, data_format))

    @staticmethod
    def compute(x, f, *, strides, padding, explicit_paddings, data_format, dilations,
                use_cudnn_on_gpu=True):
        x = _to_nhwc(x, data_format)
        kh, kw, fc, oc = f.shape
        if x.shape[3] != fc:
            raise ValueError(f"input depth {x.shape[3]} does not match the filter's input "
                             f"depth {fc}")
        (sh, sw), (dh, dw) = _spatial(strides, data_format), _spatial(dilations, data_format)
        pad_h, pad_w = _explicit_pairs(explicit_paddings, data_format)
        _, pt, pb = window_geometry(x.shape[1], kh, sh, dh, padding, pad_h)
        _, pl, pr = window_geometry(x.shape[2], kw, sw, dw, padding, pad_w)
        cols, (oh, ow) = im2col(x, (kh, kw), (sh, sw), (dh, dw), ((pt, pb), (pl, pr)))
        out = np.matmul(cols, f.reshape(kh * kw * fc, oc))
        return _from_nhwc(out.reshape(x.shape[0], oh, ow, oc), data_format)


# ---------------------------------------------------------------- Conv2DBackpropInput
@register
class Conv2DBackpropInput(OpDef):
    """Gradient of Conv2D with respect to its input (the transposed convolution).

    Inputs: ``input_sizes`` (int vector of 4, or of 2 spatial sizes), ``filter
    [kh, kw, in, out]`` and ``out_backprop`` (the conv output's shape).
    """

    attrs = dict(_CONV_ATTRS)

    def infer(self, sizes, f, dy, *, strides, padding, explicit_paddings, data_format,
              dilations, use_cudnn_on_gpu):
        require_dtype(sizes, (dtypes.int32, dtypes.int64), "input_sizes")
        if sizes.shape.rank not in (None, 1):
            raise ValueError(f"input_sizes must be 1-dimensional, got shape {sizes.shape}")
        dtype = check_same_dtype(f, dy, names=("filter", "out_backprop"))
        require_dtype(f, FLOATS, "filter")
        n, oh, ow, oc = _dims(dy.shape, data_format)
        kh, kw, fc, foc = f.shape.with_rank(4).raw
        if oc is not None and foc is not None and oc != foc:
            raise ValueError(f"Depth of out_backprop ({oc}) must equal the filter's output "
                             f"depth ({foc})")
        given = constant_value_as_shape(sizes)
        if given.rank == 2:
            h, w = given.raw
            c = fc
        elif given.rank in (None, 4):
            n2, h, w, c = _dims(given.with_rank(4), data_format)
            n = n2 if n is None else n
            if n2 is not None and n2 != n:
                raise ValueError(f"input_sizes batch {n2} does not match out_backprop's {n}")
            if c is not None and fc is not None and c != fc:
                raise ValueError(f"input_sizes depth {c} does not match the filter's input "
                                 f"depth {fc}")
            c = fc if c is None else c
        else:
            raise ValueError(f"input_sizes must have 4 (or 2) elements, got {given.rank}")
        (sh, sw), (dh, dw) = _spatial(strides, data_format), _spatial(dilations, data_format)
        pad_h, pad_w = _explicit_pairs(explicit_paddings, data_format)
        for size, k, s, d, p, got, axis in ((h, kh, sh, dh, pad_h, oh, "height"),
                                            (w, kw, sw, dw, pad_w, ow, "width")):
            if size is not None and k is not None and got is not None:
                want = window_geometry(size, k, s, d, padding, p)[0]
                if want != got:
                    raise ValueError(f"out_backprop {axis} {got} does not match the "
                                     f"convolution output {want} computed from input "
                                     f"{axis} {size}, kernel {k}, stride {s}, padding {padding}")
        return Spec(dtype, _shape(n, h, w, c, data_format))

    @staticmethod
    def compute(sizes, f, dy, *, strides, padding, explicit_paddings, data_format, dilations,
                use_cudnn_on_gpu=True):
        dy = _to_nhwc(dy, data_format)
        kh, kw, fc, oc = f.shape
        sizes = [int(v) for v in np.asarray(sizes).reshape(-1)]
        if len(sizes) == 2:
            n, h, w, c = dy.shape[0], sizes[0], sizes[1], fc
        else:
            n, h, w, c = sizes if data_format == "NHWC" else (sizes[0], *sizes[2:], sizes[1])
        (sh, sw), (dh, dw) = _spatial(strides, data_format), _spatial(dilations, data_format)
        pad_h, pad_w = _explicit_pairs(explicit_paddings, data_format)
        oh, pt, pb = window_geometry(h, kh, sh, dh, padding, pad_h)
        ow, pl, pr = window_geometry(w, kw, sw, dw, padding, pad_w)
        if dy.shape != (n, oh, ow, oc) or c != fc:
            raise ValueError(f"Conv2DBackpropInput: out_backprop shape {dy.shape} (NHWC) does "
                             f"not match the convolution output {(n, oh, ow, oc)} of input "
                             f"{(n, h, w, c)} with filter {f.shape}")
        cols = np.matmul(dy.reshape(n * oh * ow, oc), f.reshape(kh * kw * fc, oc).T)
        out = col2im(cols, (n, h, w, c), (kh, kw), (sh, sw), (dh, dw), ((pt, pb), (pl, pr)))
        return _from_nhwc(out, data_format)


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


@register
class MaxPool(_Pool):
    """Maximum over each ``ksize`` window (SAME padding never wins the maximum)."""

    allowed = NUMERIC

    @staticmethod
    def compute(x, *, ksize, strides, padding, data_format):
        low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        x, k, s, out_hw, pads = _pool_windows(x, ksize, strides, padding, data_format)
        views = _window_slices(pad_spatial(x, pads, low), k, s, out_hw)
        out = np.array(views[0], copy=True) if len(views) == 1 else np.maximum(views[0], views[1])
        for v in views[2:]:
            np.maximum(out, v, out=out)
        return _from_nhwc(out, data_format)


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


def _valid_counts(size, out, k, stride, pad_before):
    """Number of non-padded elements in each of ``out`` windows along one dimension."""
    start = np.arange(out) * stride - pad_before
    return np.minimum(start + k, size) - np.maximum(start, 0)


# ---------------------------------------------------------------- public functions
def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,  # noqa: A002
           data_format="NHWC", dilations=(1, 1, 1, 1), name=None, filters=None):
    """2-D convolution (cross-correlation, as in TF) of a 4-D ``input`` with ``filter``.

    Args:
        input: float tensor ``[batch, height, width, in_channels]`` (NHWC) or NCHW.
        filter: ``[filter_height, filter_width, in_channels, out_channels]``, same dtype
            (``filters`` is an alias).
        strides: an int or 1, 2 or 4 ints (4: in ``data_format`` order, batch and
            channel strides 1).
        padding: ``'SAME'``, ``'VALID'`` or explicit ``[[0, 0], [top, bottom],
            [left, right], [0, 0]]`` (in ``data_format`` order).
        use_cudnn_on_gpu: accepted for TF1 compatibility (no effect).
        data_format: ``'NHWC'`` (default) or ``'NCHW'``.
        dilations: like ``strides``; the spacing between filter taps.
        name: op name (default ``"Conv2D"``).

    Returns:
        A tensor of ``input``'s dtype; ``[batch, out_h, out_w, out_channels]`` in NHWC.

    Raises:
        ValueError: mismatched channels, bad strides/dilations/padding, or a window
            larger than the (padded) input, while declaring.

    Example:
        >>> y = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME")
    """
    f = _lookup("filters", filters, "filter", filter)
    data_format = _check_format(data_format)
    strides = _get_sequence(strides, "strides", data_format)
    dilations = _get_sequence(dilations, "dilations", data_format, allow_none_as=1)
    _check_outer_ones(strides, "strides", data_format)
    _check_outer_ones(dilations, "dilations", data_format, "dilations")
    if padding is None:
        raise ValueError("padding must be given ('SAME', 'VALID' or explicit paddings)")
    padding, explicit = _convert_padding(padding, data_format)
    x = convert_to_tensor(input)
    f = convert_to_tensor(f, dtype=x.dtype) if not hasattr(f, "dtype") else convert_to_tensor(f)
    attrs = {"strides": strides, "use_cudnn_on_gpu": bool(use_cudnn_on_gpu),
             "padding": padding, "explicit_paddings": explicit,
             "data_format": data_format, "dilations": dilations}
    return apply_op("Conv2D", [x, f], attrs, name=name)


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NHWC", name=None, input=None,  # noqa: A002
                     filters=None, dilations=None):
    """Transposed 2-D convolution (the gradient of :func:`conv2d` w.r.t. its input).

    Creates a ``Conv2DBackpropInput`` op with inputs ``(output_shape, filter, value)``.

    Args:
        value: float tensor ``[batch, height, width, in_channels]`` (``input`` alias).
        filter: ``[height, width, output_channels, in_channels]`` (``filters`` alias):
            the same layout as the filter of the convolution this transposes.
        output_shape: 1-D int tensor or list: the output's shape (4 values).
        strides, padding, data_format, dilations: as in :func:`conv2d`.
        name: name scope and op name (default ``"conv2d_transpose"``).

    Returns:
        A tensor of shape ``output_shape`` and ``value``'s dtype.

    Raises:
        ValueError: channels of ``value``/``filter``/``output_shape`` disagree, or
            ``value``'s spatial size is not the convolution output of ``output_shape``.
    """
    value = _lookup("input", input, "value", value)
    f = _lookup("filters", filters, "filter", filter)
    data_format = _check_format(data_format)
    strides = _get_sequence(strides, "strides", data_format)
    dilations = _get_sequence(dilations, "dilations", data_format, allow_none_as=1)
    _check_outer_ones(strides, "strides", data_format)
    _check_outer_ones(dilations, "dilations", data_format, "dilations")
    padding, explicit = _convert_padding(padding, data_format)
    values = [v for v in (value, f, output_shape) if hasattr(v, "graph")]
    with name_scope(name, "conv2d_transpose", values) as scope:
        y = convert_to_tensor(value)
        f = convert_to_tensor(f) if hasattr(f, "dtype") else convert_to_tensor(f, dtype=y.dtype)
        sizes = convert_to_tensor(output_shape, name="output_shape",
                                  preferred_dtype=dtypes.int32)
        attrs = {"strides": strides, "use_cudnn_on_gpu": True, "padding": padding,
                 "explicit_paddings": explicit, "data_format": data_format,
                 "dilations": dilations}
        return apply_op("Conv2DBackpropInput", [sizes, f, y], attrs, name=scope)


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


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
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


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
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
