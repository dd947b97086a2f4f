"""ONNX lowerings of the fused ops (:mod:`.fused_ops` calls these).

A fused op lowers to the standard operators of the ops it replaced: ``Gemm`` (or
``MatMul`` + ``Add``) and ``Conv`` with the bias, then the activation (its op
definition's ``lower``); a ``FusedElementwise`` program becomes, step by step in
order, the ONNX lowering of the elementwise op whose ufunc the step applies (its
definition's ``lower``).
float16 runs in float32 with one cast back at the end (numpy rounds each step to
float16; the difference is within float16's tolerance).
"""

from __future__ import annotations

import numpy as np

from ...graphlib import dtypes
from ...graphlib.op_def import get_op_def
from .. import onnx_support
from ..math import elementwise as _elementwise
from ..nn import conv_onnx as _conv

__all__ = ["fused_matmul", "fused_conv2d", "fused_elementwise", "add_bias", "activate"]

# The operators a fused op computes in one dtype (its product, bias and activation).
_CHAIN = ("MatMul", "Add", "Relu", "Clip")


def _work_dtype(dtype):
    """The dtype a fused op computes in: float16 -> float32 (one rounding at the end),
    integers onnxruntime's kernels lack -> a wider integer (int32)."""
    if dtype is dtypes.float16:
        return dtypes.float32
    return dtypes.as_dtype(onnx_support.work_dtype(_CHAIN, dtype))


def activate(ctx, x, op, dtype):
    """The activation of the fused op ``op`` on ``x`` (a value of ``dtype``): the
    activation op definition's own lowering (its ``lower``), with the fused op's
    attributes of the same names (``alpha``)."""
    activation = op.attrs["activation"]
    if not activation:
        return x
    op_def = get_op_def(activation)
    return op_def.lower(ctx, [x], dtype, **{name: op.attrs[name] for name in op_def.attrs})


def add_bias(ctx, x, bias, bias_format, rank):
    """``x + bias`` with the bias along the last dimension, or dimension 1 of a
    rank-``rank`` value for ``bias_format="NCHW"``."""
    if bias_format == "NCHW":
        if rank is None:
            ctx.unsupported("a bias along dimension 1 needs the value's rank")
        bias = ctx.node("Reshape", [bias, ctx.int64s([-1] + [1] * (rank - 2))])
    return ctx.node("Add", [x, bias])


def fused_matmul(ctx, op, a, b, bias):
    """``Gemm`` when the bias fits its ``C`` input (floats, a bias of the product's
    last dimension), else ``MatMul`` + ``Add``; then the activation."""
    dtype = op.outputs[0].dtype
    work = _work_dtype(dtype)
    a, b, bias = (ctx.cast(v, work, dtype) for v in (a, b, bias))
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    n = op.inputs[1].shape.raw[0 if tb else 1] if op.inputs[1].shape.rank == 2 else None
    c = op.inputs[2].shape.raw[0] if op.inputs[2].shape.rank == 1 else None
    if work.is_floating and (op.attrs["bias_op"] == "BiasAdd" or (n is not None and c == n)):
        out = ctx.node("Gemm", [a, b, bias], transA=int(ta), transB=int(tb))
    else:
        a = ctx.node("Transpose", [a], perm=[1, 0]) if ta else a
        b = ctx.node("Transpose", [b], perm=[1, 0]) if tb else b
        out = ctx.node("Add", [ctx.node("MatMul", [a, b]), bias])
    out = activate(ctx, out, op, work)
    return ctx.cast(out, dtype, work)


def fused_conv2d(ctx, op, x, f, bias):
    """Conv2D's lowering (:mod:`staticgraph.ops.nn.conv_onnx`: NCHW ``Conv``) with a channel bias as
    ``Conv``'s ``B`` input and the activation before the transpose back to NHWC;
    another bias (an ``Add`` along a non-channel dimension) is added after."""
    fmt, dtype = op.attrs["data_format"], op.outputs[0].dtype
    work = dtypes.as_dtype(onnx_support.work_dtype("Conv", dtype))
    fshape = op.inputs[1].shape
    khw = tuple(fshape.raw[:2]) if fshape.rank else (None, None)
    strides, dilations, explicit = _conv.conv_window(op, fmt)
    pads = _conv.onnx_pads(_conv.static_hw(op.inputs[0].shape, fmt), khw, strides, dilations,
                           op.attrs["padding"], explicit)
    out_rank = op.outputs[0].shape.rank
    bias_axis = 1 if op.attrs["bias_format"] == "NCHW" else (out_rank or 4) - 1
    channels = fshape.raw[3] if fshape.rank else None
    length = op.inputs[2].shape.raw[0] if op.inputs[2].shape.rank == 1 else None
    channel_bias = bias_axis == (1 if fmt == "NCHW" else 3) and out_rank == 4 and (
        op.attrs["bias_op"] == "BiasAdd" or (channels is not None and length == channels))
    xn = _conv.to_nchw(ctx, ctx.cast(x, work, dtype), fmt)
    bias = ctx.cast(bias, work, dtype)
    y = _conv.conv_nchw(ctx, xn, ctx.cast(f, work, dtype), khw, strides, dilations, pads,
                        bias if channel_bias else None)
    if channel_bias:
        y = activate(ctx, y, op, work)
        return ctx.cast(_conv.from_nchw(ctx, y, fmt), dtype, work)
    y = add_bias(ctx, _conv.from_nchw(ctx, y, fmt), bias, op.attrs["bias_format"], 4)
    y = activate(ctx, y, op, work)
    return ctx.cast(y, dtype, work)


# ------------------------------------------------------------------ FusedElementwise
def _step(ctx, name, args, work):
    """One ufunc step on value names ``args`` in dtype ``work``: the lowering of the
    elementwise op whose ufunc it is."""
    op_def = _elementwise.op_def_of_ufunc(getattr(np, name, None))
    if op_def is None:
        ctx.unsupported(f"FusedElementwise step {name!r} has no ONNX lowering")
    return op_def.lower(ctx, args, work)


def fused_elementwise(ctx, op, inputs):
    """The program's steps in order; constants are rank-0 values of the inputs' dtype."""
    dtype = op.outputs[0].dtype
    work = _work_dtype(dtype)
    inputs = [ctx.cast(x, work, dtype) for x in inputs]
    steps = []
    for name, refs in op.attrs["program"]:
        args = [inputs[v] if kind == "input" else steps[v] if kind == "step"
                else ctx.scalar(np.asarray(v, dtype.np_dtype), work.np_dtype)
                for kind, v in refs]
        steps.append(_step(ctx, name, args, work))
    return ctx.cast(steps[-1], dtype, work)
