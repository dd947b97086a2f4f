"""Convolution: Conv2D and Conv2DBackpropInput (``conv2d``, ``conv2d_transpose``).

Convolution is im2col followed by one matrix product; the transposed convolution
is one matrix product followed by col2im (see :mod:`.conv_windows` for the window
geometry and TF1's padding rules).
"""

from __future__ import annotations

import numpy as np

from ..graphlib import dtypes, name_scope
from .conv_windows import (_check_format, _check_outer_ones, _convert_padding, _dims,
                           _explicit_pairs, _from_nhwc, _get_sequence, _lookup, _shape,
                           _spatial, _static_out, _to_nhwc, col2im, im2col, window_geometry)
from .convert import convert_same_dtype, convert_to_tensor
from .registry import OpDef, Spec, apply_op, register
from .shape_rules import FLOATS, check_same_dtype, require_dtype
from .static_value import constant_value_as_shape

__all__ = ["conv2d", "conv2d_transpose"]


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
    x, f = convert_same_dtype(input, f, names=("input", "filter"))
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
        f, y = convert_same_dtype(f, value, names=("filter", "out_backprop"))
        sizes = convert_to_tensor(output_shape, name="output_shape",
                                  preferred_dtype=dtypes.int32)
        attrs = {"strides": strides, "use_cudnn_on_gpu": True, "padding": padding,
                 "explicit_paddings": explicit, "data_format": data_format,
                 "dilations": dilations}
        return apply_op("Conv2DBackpropInput", [sizes, f, y], attrs, name=scope)
