"""ONNX lowerings of the random ops (:mod:`.random_ops` calls these).

Each lowering computes the same counter-based stream as the op's numpy kernel
(:mod:`.random_bits`), from two int64 scalars that ``ctx.random_stream(op)`` provides:
the op's key and its execution counter. The onnxruntime backend feeds both per run
from the session (so the backends continue one stream); exported models hold them as
constants or inputs with defaults (see ``to_onnx``). ONNX's own random operators
are not used: their numbers differ from the kernels'.
"""

from __future__ import annotations

import numpy as np

from . import random_bits
from ..static_value import constant_value

__all__ = ["standard_normal", "uniform", "truncated_normal", "random_uniform_int",
           "random_shuffle", "shuffle_is_identity", "multinomial"]


def _count_and_shape(ctx, op, shape):
    """``(count, shape)``: the number of output elements (an int when known while
    declaring, else an int64 scalar name) and the output shape as an int64 1-D name."""
    dims = op.outputs[0].shape.raw
    if dims is not None and all(d is not None for d in dims):
        return int(np.prod(dims, dtype=np.int64)), ctx.int64s(dims)
    shape = ctx.to_int64(shape, op.inputs[0].dtype)
    return ctx.node("ReduceProd", [shape], keepdims=0), shape


def _sampled(ctx, op, shape, sample):
    """``sample(key, counter, count)`` (1-D) reshaped to the op's output shape."""
    key, counter = ctx.random_stream(op)
    count, out_shape = _count_and_shape(ctx, op, shape)
    return ctx.node("Reshape", [sample(key, counter, count), out_shape])


def standard_normal(ctx, op, shape):
    """N(0, 1) samples: :func:`.random_bits.onnx_normal`."""
    dtype = op.attrs["dtype"].np_dtype
    return _sampled(ctx, op, shape, lambda key, counter, count:
                    random_bits.onnx_normal(ctx, key, counter, count, dtype))


def uniform(ctx, op, shape):
    """U[0, 1): :func:`.random_bits.onnx_uniform` of the op's words."""
    dtype = op.attrs["dtype"].np_dtype
    return _sampled(ctx, op, shape, lambda key, counter, count: random_bits.onnx_uniform(
        ctx, random_bits.onnx_words(ctx, key, counter, count), dtype))


def truncated_normal(ctx, op, shape):
    """N(0, 1) restricted to [-2, 2]: :func:`.random_bits.onnx_truncated_normal`."""
    dtype = op.attrs["dtype"].np_dtype
    return _sampled(ctx, op, shape, lambda key, counter, count:
                    random_bits.onnx_truncated_normal(ctx, key, counter, count, dtype))


def random_uniform_int(ctx, op, shape, minval, maxval):
    """Integers in ``[minval, maxval)``: :func:`.random_bits.onnx_uniform_int` (an
    empty range gives ``minval`` where the kernel raises: ONNX cannot raise)."""
    dtype = op.inputs[1].dtype.np_dtype
    lo_v, hi_v = constant_value(op.inputs[1]), constant_value(op.inputs[2])
    if lo_v is not None and hi_v is not None:
        minval, maxval = int(lo_v), int(hi_v)
    return _sampled(ctx, op, shape, lambda key, counter, count: random_bits.onnx_uniform_int(
        ctx, key, counter, count, minval, maxval, dtype))


def shuffle_is_identity(op) -> bool:
    """Whether a RandomShuffle's input is known while declaring to have at most one row
    (or no dimension): it is then returned as is, drawing nothing."""
    dims = op.inputs[0].shape.raw
    return dims is not None and (not dims or dims[0] in (0, 1))


def random_shuffle(ctx, op, value):
    """``value`` gathered along axis 0 by :func:`.random_bits.onnx_permutation`."""
    dims = op.inputs[0].shape.raw
    if dims is None:
        ctx.unsupported("the rank of 'value' must be known (a scalar is returned as is, "
                        "other ranks are shuffled along axis 0)")
    if shuffle_is_identity(op):
        return ctx.node("Identity", [value])
    key, counter = ctx.random_stream(op)
    n = dims[0] if dims[0] is not None else \
        ctx.node("Gather", [ctx.shape(value), ctx.scalar(0, np.int64)], axis=0)
    order = random_bits.onnx_permutation(ctx, key, counter, n)
    return ctx.node("Gather", [value, order], axis=0)


def multinomial(ctx, op, logits, num_samples):
    """Inverse-CDF sampling as the kernel does: per row, the number of normalised float64
    CDF entries <= each uniform (:func:`.random_bits.onnx_uniform`), clamped to the
    last class of positive probability (``classes`` for rows without any).
    Non-finite logits weigh zero."""
    f64 = np.float64
    dtype = op.inputs[0].dtype
    x = ctx.cast(logits, f64, dtype)
    axis1 = ctx.int64s([1])
    zero = ctx.scalar(0.0, f64)
    if dtype.is_floating:
        finite = ctx.node("Equal", [ctx.node("Sub", [x, x]), zero])
        top = ctx.node("ReduceMax", [ctx.node("Where", [finite, x, ctx.scalar(-np.inf, f64)]),
                                     axis1], keepdims=1)
        top = ctx.node("Where", [ctx.node("Equal", [ctx.node("Sub", [top, top]), zero]),
                                 top, zero])
        weights = ctx.node("Where", [finite, ctx.node("Exp", [ctx.node("Sub", [x, top])]),
                                     zero])
    else:
        top = ctx.node("ReduceMax", [x, axis1], keepdims=1)
        weights = ctx.node("Exp", [ctx.node("Sub", [x, top])])
    cdf = ctx.node("CumSum", [weights, ctx.scalar(1, np.int64)])
    total = ctx.node("Slice", [cdf, ctx.int64s([-1]), ctx.int64s([np.iinfo(np.int64).max]),
                               axis1])
    has_mass = ctx.node("Greater", [total, zero])
    cdf = ctx.node("Div", [cdf, ctx.node("Where", [has_mass, total, ctx.scalar(1.0, f64)])])
    batch = ctx.node("Slice", [ctx.shape(x), ctx.int64s([0]), ctx.int64s([1])])
    classes = ctx.node("Slice", [ctx.shape(x), ctx.int64s([1]), ctx.int64s([2])])
    count = ctx.node("Reshape", [ctx.to_int64(num_samples, op.inputs[1].dtype),
                                 ctx.int64s([1])])
    key, counter = ctx.random_stream(op)
    size = ctx.node("Reshape", [ctx.node("Mul", [batch, count]), ctx.int64s([])])
    u = random_bits.onnx_uniform(ctx, random_bits.onnx_words(ctx, key, counter, size), f64)
    u = ctx.node("Reshape", [u, ctx.node("Concat", [batch, count], axis=0)])
    below = ctx.node("LessOrEqual", [ctx.node("Unsqueeze", [cdf, axis1]),
                                     ctx.node("Unsqueeze", [u, ctx.int64s([2])])])
    idx = ctx.node("ReduceSum", [ctx.cast(below, np.int64), ctx.int64s([2])], keepdims=0)
    positive = ctx.cast(ctx.node("Greater", [weights, zero]), np.int32)
    last = ctx.node("ArgMax", [positive], axis=1, keepdims=1, select_last_index=1)
    idx = ctx.node("Where", [has_mass, ctx.node("Min", [idx, last]),
                             ctx.node("Reshape", [classes, ctx.int64s([1, 1])])])
    return ctx.cast(idx, op.attrs["output_dtype"], np.int64)
