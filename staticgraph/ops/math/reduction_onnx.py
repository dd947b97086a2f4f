"""ONNX lowerings of the reductions of reduction.py (Sum, Mean, Max, Min, Prod, Any,
All, ArgMax, ArgMin), kept apart so the op definitions stay short.

In opset 18 the ``Reduce*`` axes are an int64 input. Axes known while declaring
are normalized (non-negative, sorted, without repeats) and a reduction over every
axis drops the input; axes computed at run time pass through with
``noop_with_empty_axes=1`` (TF reduces nothing over an empty axis list).
Integer dtypes onnxruntime lacks (:data:`~staticgraph.ops.onnx_support.LACKS`) are
computed in a wider integer and cast back, which wraps exactly as the numpy
kernels' same-dtype accumulation does; float16 sums, means and products accumulate
in float32 as the kernels do (the op's ``f16_via_f32``).
"""

from __future__ import annotations

import numpy as np

from ...graphlib import dtypes
from .. import onnx_support
from . import reduction_axes as _axes
from ..static_value import constant_value

__all__ = []

_NONE = "none"  # no axis reduced: the op is the identity
_ALL = "all"    # every axis: Reduce* without an axes input


def reduction_axes(ctx, op, x_name, axes):
    """How ``op`` (inputs ``(x, axes)``, ONNX names ``x_name`` and ``axes``) reduces:
    ``_NONE``, ``_ALL`` or an int64 1-D axes value name; and whether that name is
    computed at run time. Axes are made non-negative where the rank is known: with
    negative axes onnxruntime (1.23) returns an empty input unreduced."""
    x, axis = op.inputs
    rank = x.shape.rank
    value = constant_value(axis)
    if value is not None:
        items = np.asarray(value).reshape(-1).astype(np.int64)
        if items.size == 0:
            return _NONE, False
        if rank is None:
            return ctx.int64s(np.unique(items)), False
        norm = sorted({int(a) % rank for a in items})
        if len(norm) == rank:
            return _ALL, False
        return ctx.int64s(norm), False
    if _axes.reduces_all(x, axis):
        return _ALL, False
    name = ctx.to_int64(axes, axis.dtype)
    if axis.shape.rank != 1:
        name = ctx.node("Reshape", [name, ctx.int64s([-1])])
    # non-negative: onnxruntime reduces nothing over negative axes of an empty tensor
    count = ctx.scalar(rank, np.int64) if rank is not None else \
        ctx.node("Size", [ctx.shape(x_name)])
    return ctx.node("Mod", [name, count]), True


def reduce_node(ctx, op_type, x, how, dynamic, keep):
    """One ``Reduce*`` node over ``how`` (from :func:`reduction_axes`, not ``_NONE``)."""
    if how == _ALL:
        return ctx.node(op_type, [x], keepdims=keep)
    return ctx.node(op_type, [x, how], keepdims=keep,
                    noop_with_empty_axes=1 if dynamic else None)


def _work_dtype(op, op_type):
    """The dtype ``op`` computes ``op_type`` in: float32 for float16 when its kernel
    accumulates so, else one onnxruntime has a kernel for."""
    dtype = op.inputs[0].dtype
    if dtype is dtypes.float16 and op.op_def.f16_via_f32:
        return dtypes.float32
    return dtypes.as_dtype(onnx_support.work_dtype(op_type, dtype))


def lower_reduction(ctx, op, x, axes, op_type):
    """``Sum``/``Prod``/``Max``/``Min``: one ``op_type`` node, in a supported dtype.
    Float Max/Min propagate NaN as numpy does (onnxruntime's do not always)."""
    how, dynamic = reduction_axes(ctx, op, x, axes)
    if how == _NONE:
        return ctx.node("Identity", [x])
    dtype = op.inputs[0].dtype
    keep = int(bool(op.attrs["keep_dims"]))
    work = _work_dtype(op, op_type)
    out = reduce_node(ctx, op_type, ctx.cast(x, work, dtype), how, dynamic, keep)
    if dtype.is_floating and op_type in ("ReduceMax", "ReduceMin"):
        # + 0 where a group has no NaN, + NaN where it has one
        nan = ctx.node("Where", [ctx.node("IsNaN", [x]), x, ctx.scalar(0, dtype)])
        out = ctx.node("Add", [out, reduce_node(ctx, "ReduceSum", nan, how, dynamic, keep)])
    return ctx.cast(out, dtype, work)


def lower_mean(ctx, op, x, axes):
    """``Mean``: ReduceMean when the group size is known and non-zero, else a sum
    divided by the size (NaN for empty float groups, truncating for ints as TF)."""
    how, dynamic = reduction_axes(ctx, op, x, axes)
    if how == _NONE:
        return ctx.node("Identity", [x])
    xt = op.inputs[0]
    dtype = xt.dtype
    keep = int(bool(op.attrs["keep_dims"]))
    work = _work_dtype(op, "ReduceSum")  # ReduceMean's gaps are ReduceSum's
    xw = ctx.cast(x, work, dtype)
    count = _static_count(op, how, dynamic)
    if dtype.is_floating and count:
        return ctx.cast(reduce_node(ctx, "ReduceMean", xw, how, dynamic, keep), dtype, work)
    total = reduce_node(ctx, "ReduceSum", xw, how, dynamic, keep)
    if not dtype.is_floating:
        total = ctx.cast(ctx.cast(total, dtype, work), dtypes.int64, dtype)  # wrap as numpy
        work = dtypes.int64
    if count is not None:
        n = ctx.scalar(max(count, 0 if dtype.is_floating else 1), work)
    else:
        n = ctx.node("Size", [x])
        if how != _ALL:  # x.size // max(result.size, 1)
            groups = ctx.node("Max", [ctx.node("Size", [total]), ctx.scalar(1, np.int64)])
            n = ctx.node("Div", [n, groups])
        if not dtype.is_floating:
            n = ctx.node("Max", [n, ctx.scalar(1, np.int64)])
        n = ctx.cast(n, work, dtypes.int64)
    return ctx.cast(ctx.node("Div", [total, n]), dtype, work)


def _static_count(op, how, dynamic):
    """Elements per group when known while declaring, else None."""
    dims = op.inputs[0].shape.raw
    if dynamic or dims is None:
        return None
    if how == _ALL:
        picked = dims
    else:
        value = constant_value(op.inputs[1])
        picked = [dims[i] for i in {int(a) % len(dims) for a in np.asarray(value).reshape(-1)}]
    if None in picked:
        return None
    return int(np.prod(picked, dtype=np.int64))


def lower_bool_reduction(ctx, op, x, axes, op_type):
    """``Any``/``All``: bools (which ReduceMax/ReduceMin lack) as uint8 (an empty group
    gives 0 for Max and 255 for Min: False for Any, True for All)."""
    how, dynamic = reduction_axes(ctx, op, x, axes)
    if how == _NONE:
        return ctx.node("Identity", [x])
    keep = int(bool(op.attrs["keep_dims"]))
    work = onnx_support.work_dtype(op_type, dtypes.bool)
    out = reduce_node(ctx, op_type, ctx.cast(x, work), how, dynamic, keep)
    return ctx.cast(out, np.bool_)


def lower_arg(ctx, op, x, dimension, op_type):
    """``ArgMax``/``ArgMin``: the first extremum (``select_last_index=0``), or, as
    numpy, the first NaN of a group holding one."""
    value = constant_value(op.inputs[1])
    if value is None:
        ctx.unsupported("the axis of ArgMax/ArgMin must be known while declaring "
                        "(ONNX takes it as an attribute)")
    axis = int(value)
    rank = op.inputs[0].shape.rank
    if rank:  # non-negative: see reduction_axes
        axis %= rank
    dtype = op.inputs[0].dtype
    work = onnx_support.work_dtype(op_type, dtype)
    out = ctx.node(op_type, [ctx.cast(x, work, dtype)], axis=axis, keepdims=0)
    if dtype.is_floating:
        nan = ctx.cast(ctx.node("IsNaN", [x]), np.uint8)
        first_nan = ctx.node("ArgMax", [nan], axis=axis, keepdims=0)
        has_nan = ctx.node("ReduceMax", [nan, ctx.int64s([axis])], keepdims=0)
        out = ctx.node("Where", [ctx.cast(has_nan, np.bool_), first_nan, out])
    return ctx.cast(out, op.attrs["output_type"], dtypes.int64)
