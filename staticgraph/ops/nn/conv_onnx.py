"""ONNX lowerings of convolution and pooling: Conv2D, Conv2DBackpropInput,
Conv2DBackpropFilter, MaxPool, AvgPool, MaxPoolGrad, MaxPoolGradGrad, AvgPoolGrad.

ONNX's Conv/ConvTranspose/MaxPool/AveragePool work in NCHW: NHWC values are
transposed in and out, filters from HWIO to OIHW. TF1's SAME padding (the odd pixel
at the end) becomes explicit ``pads`` when the spatial size is known statically and
``auto_pad="SAME_UPPER"`` (the same rule) otherwise. The input gradient is a
ConvTranspose whose ``pads``/``output_padding`` reproduce the input size exactly
(or, with unknown sizes, a ConvTranspose large enough for any size, then a Slice);
the filter gradient is a Conv of the input with the output gradient as the filter,
batch and channels swapped (strides and dilations trade places). Max-pool
gradients use MaxPool's ``Indices`` (onnxruntime picks the first maximum in
row-major window order, as TF1's CPU kernel does): a ScatterND add into zeros,
or a Gather. onnxruntime has no float64 Conv/ConvTranspose/AveragePool kernels:
those compute in float32.
"""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from ...graphlib import dtypes
from .. import onnx_support
from .conv_windows import explicit_pairs, spatial_hw, window_geometry

__all__ = []

_TO_NCHW = [0, 3, 1, 2]
_TO_NHWC = [0, 2, 3, 1]
HWIO_TO_OIHW = [3, 2, 0, 1]       # a TF filter's permutation into ONNX's weight layout


# ---------------------------------------------------------------- small helpers
def to_nchw(ctx, x, data_format):
    """ONNX value ``x`` in ``data_format`` as NCHW (a Transpose for NHWC)."""
    return x if data_format == "NCHW" else ctx.node("Transpose", [x], perm=_TO_NCHW)


def from_nchw(ctx, y, data_format):
    """NCHW ONNX value ``y`` back in ``data_format`` (a Transpose for NHWC)."""
    return y if data_format == "NCHW" else ctx.node("Transpose", [y], perm=_TO_NHWC)


def static_hw(shape, data_format):
    """Static (height, width) of a rank-4 TensorShape in ``data_format`` (None: unknown)."""
    raw = shape.raw
    if raw is None:
        return None, None
    return (raw[1], raw[2]) if data_format == "NHWC" else (raw[2], raw[3])


def _float_work(dtype):
    """The float dtype name onnxruntime computes Conv, ConvTranspose and AveragePool
    of ``dtype`` in (float64 -> float32)."""
    return onnx_support.work_dtype("Conv", dtype)


def _max_work(dtype):
    """MaxPool's compute dtype: itself when onnxruntime has a kernel, else one holding
    every value (float64: integers up to 2**53 exactly)."""
    return onnx_support.work_dtype("MaxPool", dtype)


def onnx_pads(hw, khw, strides, dilations, padding, explicit):
    """ONNX ``pads`` ``[top, left, bottom, right]``, or None for SAME with an unknown size."""
    before, after = [], []
    for size, k, s, d, pair in zip(hw, khw, strides, dilations, explicit):
        if padding == "SAME":
            if size is None or k is None:
                return None
            _, b, e = window_geometry(size, k, s, d, "SAME")
        else:
            b, e = pair if padding == "EXPLICIT" else (0, 0)
        before.append(b)
        after.append(e)
    return before + after


def pad_attributes(pads):
    """Conv/pooling attributes for ``pads`` from :func:`onnx_pads` (None: SAME_UPPER)."""
    if pads is None:
        return {"auto_pad": "SAME_UPPER"}     # ONNX's SAME_UPPER is TF's SAME
    return {"pads": pads} if any(pads) else {}


def conv_window(op, data_format):
    """(strides, dilations, explicit (before, after) pairs) of a convolution op."""
    a = op.attrs
    return (spatial_hw(a["strides"], data_format), spatial_hw(a["dilations"], data_format),
            explicit_pairs(a["explicit_paddings"], data_format))


def _vector(ctx, values, dynamic):
    """An int64 vector: a constant when every entry of ``values`` is known, else
    ``dynamic()`` (a value name)."""
    if all(v is not None for v in values):
        return ctx.int64s(values)
    return dynamic()


def _sizes_hw(ctx, op, sizes, data_format):
    """The spatial entries of a sizes input (4 values in ``data_format``, or 2) as int64."""
    t = op.inputs[0]
    n = t.shape.raw[0] if t.shape.rank == 1 else None
    idx = [0, 1] if n == 2 else ([1, 2] if data_format == "NHWC" else [2, 3])
    return ctx.node("Gather", [ctx.to_int64(sizes, t.dtype), ctx.int64s(idx)], axis=0)


def _same_pads(ctx, hw, eff, strides):
    """Dynamic TF SAME padding: (before, after) int64 vectors for sizes ``hw`` and
    effective window sizes ``eff`` (value names), ``strides`` static."""
    s = ctx.int64s(strides)
    out = ctx.node("Div", [ctx.node("Add", [hw, ctx.int64s([v - 1 for v in strides])]), s])
    need = ctx.node("Sub", [ctx.node("Add", [ctx.node("Mul", [ctx.node("Sub", [
        out, ctx.int64s([1, 1])]), s]), eff]), hw])
    total = ctx.node("Max", [need, ctx.int64s([0, 0])])
    before = ctx.node("Div", [total, ctx.int64s([2, 2])])
    return before, ctx.node("Sub", [total, before])


def _effective(ctx, khw, dilations, kernel_dims):
    """Effective window sizes ``(k - 1) * d + 1`` as an int64 vector; ``kernel_dims()``
    gives the (dynamic) kernel sizes when ``khw`` is not fully known."""
    if all(k is not None for k in khw):
        return ctx.int64s([(k - 1) * d + 1 for k, d in zip(khw, dilations)])
    d = ctx.int64s(dilations)
    return ctx.node("Add", [ctx.node("Mul", [ctx.node("Sub", [kernel_dims(), ctx.int64s([1, 1])]),
                                             d]), ctx.int64s([1, 1])])


# ---------------------------------------------------------------- the transposed convolution
def _transposed(ctx, y, w, hw, khw, strides, dilations, padding, explicit, sizes_hw,
                kernel_dims, **attrs):
    """ConvTranspose of NCHW ``y`` with OIHW-transposed ``w`` giving the spatial size of
    the forward convolution's input (static ``hw`` or the value ``sizes_hw()``).

    Static sizes: ``pads`` and ``output_padding`` reproduce the size exactly. Otherwise
    a ConvTranspose with ``output_padding = stride - 1`` (large enough for every input
    size whose convolution output is ``y``'s size) is sliced at TF's padding.
    """
    pads = onnx_pads(hw, khw, strides, dilations, padding, explicit)
    if pads is not None and None not in hw and None not in khw:
        rest = []
        for size, k, s, d, b, e in zip(hw, khw, strides, dilations, pads[:2], pads[2:]):
            rest.append((size + b + e - (k - 1) * d - 1) % s)
        return ctx.node("ConvTranspose", [y, w], strides=list(strides),
                        dilations=list(dilations), pads=pads if any(pads) else None,
                        output_padding=rest if any(rest) else None, **attrs)
    full = ctx.node("ConvTranspose", [y, w], strides=list(strides), dilations=list(dilations),
                    output_padding=[s - 1 for s in strides] if max(strides) > 1 else None,
                    **attrs)
    size = _vector(ctx, hw, sizes_hw)
    if padding == "SAME":
        start, _ = _same_pads(ctx, size, _effective(ctx, khw, dilations, kernel_dims), strides)
    else:
        start = ctx.int64s([p[0] for p in explicit] if padding == "EXPLICIT" else [0, 0])
    return ctx.node("Slice", [full, start, ctx.node("Add", [start, size]), ctx.int64s([2, 3])])


# ---------------------------------------------------------------- convolutions
def conv2d(ctx, op, x, f):
    fmt, dtype = op.attrs["data_format"], op.inputs[0].dtype
    work = _float_work(dtype)
    khw = tuple(op.inputs[1].shape.raw[:2]) if op.inputs[1].shape.rank else (None, None)
    strides, dilations, explicit = conv_window(op, fmt)
    pads = onnx_pads(static_hw(op.inputs[0].shape, fmt), khw, strides, dilations,
                     op.attrs["padding"], explicit)
    x = to_nchw(ctx, ctx.cast(x, work, dtype), fmt)
    y = conv_nchw(ctx, x, ctx.cast(f, work, dtype), khw, strides, dilations, pads)
    return ctx.cast(from_nchw(ctx, y, fmt), dtype, work)


def conv_nchw(ctx, x, f, khw, strides, dilations, pads, bias=None):
    """ONNX ``Conv`` of NCHW ``x`` with the HWIO filter ``f`` (value names, one dtype),
    ``pads`` from :func:`onnx_pads` and an optional per-channel ``bias`` (``Conv``'s
    ``B``). Conv2D's lowering and the fused convolution's share it."""
    w = ctx.node("Transpose", [f], perm=HWIO_TO_OIHW)
    if pads is None and max(dilations) > 1:
        # onnxruntime refuses auto_pad with dilations: pad by TF's SAME rule explicitly.
        x = _pad_same(ctx, x, khw, strides, dilations,
                      lambda: ctx.node("Slice", [ctx.shape(f), ctx.int64s([0]), ctx.int64s([2])]))
        pads = [0, 0, 0, 0]
    return ctx.node("Conv", [x, w, bias], strides=list(strides), dilations=list(dilations),
                    **pad_attributes(pads))


def conv2d_backprop_input(ctx, op, sizes, f, dy):
    fmt, dtype = op.attrs["data_format"], op.outputs[0].dtype
    work = _float_work(dtype)
    fshape = op.inputs[1].shape
    khw = tuple(fshape.raw[:2]) if fshape.rank else (None, None)
    strides, dilations, explicit = conv_window(op, fmt)
    f = ctx.cast(f, work, dtype)
    w = ctx.node("Transpose", [f], perm=HWIO_TO_OIHW)   # (out, in, kh, kw): ConvTranspose's
    y = to_nchw(ctx, ctx.cast(dy, work, dtype), fmt)
    out = _transposed(
        ctx, y, w, static_hw(op.outputs[0].shape, fmt), khw, strides, dilations,
        op.attrs["padding"], explicit, lambda: _sizes_hw(ctx, op, sizes, fmt),
        lambda: ctx.node("Slice", [ctx.shape(f), ctx.int64s([0]), ctx.int64s([2])]))
    return ctx.cast(from_nchw(ctx, out, fmt), dtype, work)


def conv2d_backprop_filter(ctx, op, x, sizes, dy):
    """The filter gradient as a Conv of ``x`` (C, N, H, W) with ``dy`` (OC, N, OH, OW) as
    the filter: strides become dilations and dilations strides; the result
    (C, OC, KH, KW) is cut to the filter size and transposed to HWIO."""
    fmt, dtype = op.attrs["data_format"], op.inputs[0].dtype
    work = _float_work(dtype)
    oshape = op.outputs[0].shape
    khw = tuple(oshape.raw[:2]) if oshape.rank else (None, None)
    hw = static_hw(op.inputs[0].shape, fmt)
    strides, dilations, explicit = conv_window(op, fmt)
    padding = op.attrs["padding"]
    swap = [3, 0, 1, 2] if fmt == "NHWC" else [1, 0, 2, 3]
    xs = ctx.node("Transpose", [ctx.cast(x, work, dtype)], perm=swap)
    ws = ctx.node("Transpose", [ctx.cast(dy, work, dtype)], perm=swap)
    pads = onnx_pads(hw, khw, strides, dilations, padding, explicit)
    cut = True
    if pads is not None and None not in hw and None not in khw:
        # Leftover rows/columns the forward windows never reach: drop them by
        # padding less at the end (or cutting when the end padding is too small).
        cut = False
        for i, (size, k, s, d) in enumerate(zip(hw, khw, strides, dilations)):
            rest = (size + pads[i] + pads[i + 2] - (k - 1) * d - 1) % s
            pads[i + 2] -= rest
            if pads[i + 2] < 0:
                cut = cut or -pads[i + 2] >= d
                pads[i + 2] = 0
    if pads is None:         # SAME with unknown sizes: pad explicitly, cut afterwards
        xs = _pad_same(ctx, xs, khw, strides, dilations, lambda: _filter_hw(ctx, op, sizes))
        pads = [0, 0, 0, 0]
    elif any(pads) and not (op.inputs[0].shape.rank and op.inputs[0].shape.raw[0]):
        # onnxruntime's Conv never returns for zero input channels (here: an empty
        # batch) with pads; a Pad node instead is safe.
        xs = ctx.node("Pad", [xs, ctx.int64s(pads), None, ctx.int64s([2, 3])])
        pads = [0, 0, 0, 0]
    g = ctx.node("Conv", [xs, ws], strides=list(dilations), dilations=list(strides),
                 pads=pads if any(pads) else None)
    if cut:
        ends = _vector(ctx, khw, lambda: _filter_hw(ctx, op, sizes))
        g = ctx.node("Slice", [g, ctx.int64s([0, 0]), ends, ctx.int64s([2, 3])])
    return ctx.cast(ctx.node("Transpose", [g], perm=[2, 3, 0, 1]), dtype, work)


def _pad_same(ctx, x, khw, strides, dilations, kernel_dims):
    """NCHW ``x`` padded by TF's SAME rule computed from its dynamic spatial size."""
    hw = ctx.node("Gather", [ctx.shape(x), ctx.int64s([2, 3])], axis=0)
    before, after = _same_pads(ctx, hw, _effective(ctx, khw, dilations, kernel_dims), strides)
    return ctx.node("Pad", [x, ctx.node("Concat", [before, after], axis=0), None,
                            ctx.int64s([2, 3])])


def _filter_hw(ctx, op, sizes):
    t = op.inputs[1]
    return ctx.node("Slice", [ctx.to_int64(sizes, t.dtype), ctx.int64s([0]), ctx.int64s([2])])


# ---------------------------------------------------------------- pooling
def _pool_window(op):
    fmt = op.attrs["data_format"]
    ksize = spatial_hw(op.attrs["ksize"], fmt)
    strides = spatial_hw(op.attrs["strides"], fmt)
    return fmt, ksize, strides


def _pool_attrs(op, hw):
    fmt, ksize, strides = _pool_window(op)
    pads = onnx_pads(hw, ksize, strides, (1, 1), op.attrs["padding"], ((0, 0), (0, 0)))
    return {"kernel_shape": list(ksize), "strides": list(strides), **pad_attributes(pads)}


def max_pool(ctx, op, x):
    fmt, dtype = op.attrs["data_format"], op.inputs[0].dtype
    work = _max_work(dtype)
    x = to_nchw(ctx, ctx.cast(x, work, dtype), fmt)
    y = ctx.node("MaxPool", [x], **_pool_attrs(op, static_hw(op.inputs[0].shape, fmt)))
    return ctx.cast(from_nchw(ctx, y, fmt), dtype, work)


def avg_pool(ctx, op, x):
    fmt, dtype = op.attrs["data_format"], op.inputs[0].dtype
    work = _float_work(dtype)
    x = to_nchw(ctx, ctx.cast(x, work, dtype), fmt)
    y = ctx.node("AveragePool", [x], count_include_pad=0,
                 **_pool_attrs(op, static_hw(op.inputs[0].shape, fmt)))
    return ctx.cast(from_nchw(ctx, y, fmt), dtype, work)


def _argmax_indices(ctx, op, x_nchw):
    """Flat NCHW indices of each window's first maximum: MaxPool's ``Indices``."""
    fmt = op.attrs["data_format"]
    _, idx = ctx.node("MaxPool", [x_nchw], outputs=2,
                      **_pool_attrs(op, static_hw(op.inputs[0].shape, fmt)))
    return idx


def max_pool_grad(ctx, op, x, y, g):
    fmt, dtype = op.attrs["data_format"], op.inputs[0].dtype
    work = onnx_support.work_dtype("ScatterND", dtype)   # ScatterND add: no float16
    xn = to_nchw(ctx, x, fmt)
    idx = _argmax_indices(ctx, op, xn)
    gn = to_nchw(ctx, ctx.cast(g, work, dtype), fmt)
    raw = op.inputs[0].shape.raw
    if raw is not None and None not in raw:
        nchw = list(raw) if fmt == "NCHW" else [raw[0], raw[3], raw[1], raw[2]]
        count, shape = ctx.int64s([int(np.prod(nchw))]), ctx.int64s(nchw)
    else:
        shape = ctx.shape(xn)
        count = ctx.node("Reshape", [ctx.node("Size", [xn]), ctx.int64s([1])])
    zeros = ctx.node("ConstantOfShape", [count],
                     value=_fill(0, work))
    flat = ctx.node("ScatterND", [zeros, ctx.node("Unsqueeze", [idx, ctx.int64s([-1])]), gn],
                    reduction="add")
    out = from_nchw(ctx, ctx.node("Reshape", [flat, shape]), fmt)
    return ctx.cast(out, dtype, work)


def max_pool_grad_grad(ctx, op, x, y, g):
    fmt = op.attrs["data_format"]
    idx = _argmax_indices(ctx, op, to_nchw(ctx, x, fmt))
    flat = ctx.node("Reshape", [to_nchw(ctx, g, fmt), ctx.int64s([-1])])
    return from_nchw(ctx, ctx.node("Gather", [flat, idx], axis=0), fmt)


def _fill(value, dtype):
    """ConstantOfShape's ``value`` attribute."""
    return numpy_helper.from_array(np.full(1, value, np.dtype(dtype)))


def avg_pool_grad(ctx, op, sizes, g):
    """Each gradient divided by its window's count of real elements, then spread over
    the window by a ConvTranspose with a filter of ones (one group per channel)."""
    fmt, dtype = op.attrs["data_format"], op.inputs[1].dtype
    work = "float32" if dtype == dtypes.float16 else _float_work(dtype)
    _, ksize, strides = _pool_window(op)
    padding = op.attrs["padding"]
    hw = static_hw(op.outputs[0].shape, fmt)
    gn = to_nchw(ctx, ctx.cast(g, work, dtype), fmt)
    if None not in hw:
        counts = []
        for size, k, s in zip(hw, ksize, strides):
            out, before, _ = window_geometry(size, k, s, 1, padding)
            start = np.arange(out) * s - before
            counts.append(np.minimum(start + k, size) - np.maximum(start, 0))
        counts = ctx.const(counts[0][:, None] * counts[1][None, :], work)
    else:   # AveragePool counting the padding, of ones: count / window size
        size = _sizes_hw(ctx, op, sizes, fmt)
        ones = ctx.node("ConstantOfShape", [ctx.node("Concat", [ctx.int64s([1, 1]), size],
                                                     axis=0)],
                        value=_fill(1, work))
        pads = onnx_pads(hw, ksize, strides, (1, 1), padding, ((0, 0), (0, 0)))
        mean = ctx.node("AveragePool", [ones], kernel_shape=list(ksize), strides=list(strides),
                        count_include_pad=1, **pad_attributes(pads))
        counts = ctx.node("Round", [ctx.node("Mul", [mean, ctx.scalar(ksize[0] * ksize[1],
                                                                      work)])])
    gn = ctx.node("Div", [gn, counts])
    oshape = op.outputs[0].shape.raw
    c = None if oshape is None else (oshape[3] if fmt == "NHWC" else oshape[1])
    if c is not None:
        w = ctx.const(np.ones((c, 1) + tuple(ksize)), work)
        group = {"group": c}
    else:   # unknown channels: one image per (batch, channel) pair
        gn = ctx.node("Reshape", [gn, ctx.int64s([-1, 1, 0, 0])])
        w = ctx.const(np.ones((1, 1) + tuple(ksize)), work)
        group = {}
    sizes_hw = lambda: _sizes_hw(ctx, op, sizes, fmt)  # noqa: E731
    out = _transposed(ctx, gn, w, hw, ksize, strides, (1, 1), padding, ((0, 0), (0, 0)),
                      sizes_hw, None, **group)
    if c is None:
        t = op.inputs[0]
        full = ctx.to_int64(sizes, t.dtype)
        if fmt == "NHWC":
            full = ctx.node("Gather", [full, ctx.int64s([0, 3, 1, 2])], axis=0)
        out = ctx.node("Reshape", [out, full])
    return ctx.cast(from_nchw(ctx, out, fmt), dtype, work)

