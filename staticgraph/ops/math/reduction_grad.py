"""The gradient machinery of reductions: the ReducedShape and ReductionPermutation ops
and the helpers the ``Sum``/``Mean``/``Max``/``Min``/``Prod`` gradient rules build on.

``ReducedShape`` and ``ReductionPermutation`` are small int ops for input shapes or
axes only known when the graph runs (TF1's ``math_ops.reduced_shape``); the helpers
reshape a reduction's output gradient to the keep_dims shape, broadcast it back to the
input (one ``BroadcastTo`` when shapes are static) and form ``Prod``'s products of the
other elements from exclusive cumulative products. The rules themselves stay on the
op types in reduction.py.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import dtypes
from ..array import combine as _array_combine
from ..array import fill as _array_fill
from ..array import shape as _array_shape
from ..array import transform as _array_transform
from . import binary as _math_binary
from . import misc as _math_misc
from . import reduction_axes as _axes
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import require_dtype
from ..static_value import constant_value

__all__ = []


def _check_shape_and_axes(input_shape, axes):
    """Check the int inputs ``input_shape`` (a vector) and ``axes``; the length of
    ``input_shape`` when known, else None."""
    require_dtype(input_shape, _axes.INDEX_TYPES, "input_shape")
    require_dtype(axes, _axes.INDEX_TYPES, "axes")
    if input_shape.shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {input_shape.shape.rank}")
    return input_shape.shape.raw[0] if input_shape.shape.rank == 1 else None


def _flat_axes(ctx, op, axes):
    """The ONNX value of input 1 (``axes``) as a 1-D int64 vector."""
    idx = ctx.to_int64(axes, op.inputs[1].dtype)
    if op.inputs[1].shape.rank != 1:
        idx = ctx.node("Reshape", [idx, ctx.int64s([-1])])
    return idx


@register
class ReducedShape(OpDef):
    """``input_shape`` with the entries at ``axes`` set to 1 (the keep_dims shape).

    Used by the gradients of reductions whose input shape or axes are only known
    when the graph runs (TF1's ``math_ops.reduced_shape``).
    """

    differentiable = False

    def infer(self, input_shape, axes):
        n = _check_shape_and_axes(input_shape, axes)
        if axes.shape.rank is not None and axes.shape.rank > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {axes.shape.rank}")
        return Spec(input_shape.dtype, [n])

    @staticmethod
    def compute(input_shape, axes):
        out = np.array(input_shape, copy=True).reshape(-1)
        axes = np.asarray(axes).reshape(-1)
        if axes.size:
            out[[_axes.check_axis(int(a), out.size) for a in axes]] = 1
        return out

    def static_value(self, op):
        shape, axes = constant_value(op.inputs[0]), constant_value(op.inputs[1])
        if shape is None or axes is None:
            return None
        try:
            return self.compute(shape, axes)
        except ValueError:
            return None

    def onnx(self, ctx, op, input_shape, axes):
        # input_shape with ones scattered at the axes (negative ones count from the end)
        idx = _flat_axes(ctx, op, axes)
        dtype = op.inputs[0].dtype
        n = op.inputs[1].shape.num_elements() if op.inputs[1].shape.is_fully_defined() \
            else None
        if n is not None:
            ones = ctx.const(np.ones(n, dtype.np_dtype))
        else:
            ones = ctx.node("Expand", [ctx.scalar(1, dtype), ctx.shape(idx)])
        return ctx.node("ScatterElements", [input_shape, idx, ones], axis=0)


@register
class ReductionPermutation(OpDef):
    """``[perm, inverse]``: the reduced axes first (ascending), then the others.

    ``perm`` moves the reduced dimensions of a tensor with shape ``input_shape`` to
    the front; ``inverse`` moves them back. Used by the gradient of ``Prod`` when
    the input's rank or the axes are only known when the graph runs.
    """

    differentiable = False

    def infer(self, input_shape, axes):
        n = _check_shape_and_axes(input_shape, axes)
        return [Spec(dtypes.int32, [n]), Spec(dtypes.int32, [n])]

    @staticmethod
    def compute(input_shape, axes):
        rank = np.size(input_shape)
        reduced = sorted({_axes.check_axis(int(a), rank) for a in np.asarray(axes).reshape(-1)})
        perm = np.array(reduced + [i for i in range(rank) if i not in reduced], np.int32)
        return [perm, np.argsort(perm).astype(np.int32)]

    def onnx(self, ctx, op, input_shape, axes):
        # Sort the positions by key i + rank * (i not reduced): reduced ones first.
        rank = ctx.node("Size", [input_shape])
        pos = ctx.node("Range", [ctx.scalar(0, np.int64), rank, ctx.scalar(1, np.int64)])
        idx = _flat_axes(ctx, op, axes)
        idx = ctx.node("Mod", [idx, rank])  # Python-style: non-negative
        hit = ctx.node("Equal", [ctx.node("Unsqueeze", [pos, ctx.int64s([1])]),
                                 ctx.node("Unsqueeze", [idx, ctx.int64s([0])])])
        hits = ctx.node("ReduceMax", [ctx.cast(hit, np.uint8), ctx.int64s([1])], keepdims=0)
        others = ctx.cast(ctx.node("Not", [ctx.cast(hits, np.bool_)]), np.int64)
        key = ctx.node("Add", [pos, ctx.node("Mul", [others, rank])])
        k = ctx.node("Reshape", [rank, ctx.int64s([1])])
        _, perm = ctx.node("TopK", [key, k], outputs=2, largest=0, sorted=1)
        _, inverse = ctx.node("TopK", [perm, k], outputs=2, largest=0, sorted=1)
        return [ctx.cast(perm, np.int32), ctx.cast(inverse, np.int32)]


def static_axes(op):
    """``(dims, axes)``: the input's dims (a tuple, entries may be None) and the set of
    reduced axes, when the rank and the axes are known while declaring; else None."""
    x, axis = op.inputs[0], op.inputs[1]
    dims = x.shape.raw
    if dims is None:
        return None
    value = constant_value(axis)
    if value is None:
        return None
    return dims, {int(a) % len(dims) for a in np.asarray(value).reshape(-1)} if dims else set()


def with_kept_dims(op, t, static=None):
    """``t`` (shaped like ``op``'s output) reshaped to the keep_dims output shape."""
    if op.attrs["keep_dims"]:
        return t
    static = static or static_axes(op)
    if static is not None:
        dims, axes = static
        kept = [1 if i in axes else d for i, d in enumerate(dims)]
        if t.shape.raw is not None and list(t.shape.raw) == kept and None not in kept:
            return t
        if kept.count(None) <= 1:
            return _array_shape.reshape(t, [-1 if d is None else d for d in kept])
    x, axis = op.inputs[0], op.inputs[1]
    return _array_shape.reshape(t, reduced_shape(_array_shape.shape(x), axis))


def reduced_shape(input_shape, axes):
    """The 1-D shape ``input_shape`` with the dimensions in ``axes`` set to 1."""
    return apply_op("ReducedShape", [convert_to_tensor(input_shape), convert_to_tensor(axes)])


def _input_shape(x):
    """``x``'s shape as a list of ints when fully known, else a ``Shape`` tensor."""
    return list(x.shape.raw) if x.shape.is_fully_defined() else _array_shape.shape(x)


def broadcast_back(op, dy, static=None):
    """``dy`` (the gradient of a reduction's output) broadcast to the input's shape."""
    x = op.inputs[0]
    static = static or static_axes(op)
    if static is not None:
        dims, axes = static
        if not axes:
            return dy
        if not op.attrs["keep_dims"] and axes != set(range(len(axes))):
            dy = with_kept_dims(op, dy, static)
        # kept or leading axes: dy broadcasts against the input as it is (one op)
        return _array_transform.broadcast_to(dy, _input_shape(x))
    if _axes.reduces_all(x, op.inputs[1]):
        return _array_transform.broadcast_to(dy, _array_shape.shape(x))
    return _array_transform.broadcast_to(with_kept_dims(op, dy), _array_shape.shape(x))


def _exclusive_product(t, axis):
    """Product of the other elements along ``axis`` (an int) of ``t``."""
    left = _math_misc.cumprod(t, axis, exclusive=True)
    right = _math_misc.cumprod(t, axis, exclusive=True, reverse=True)
    return _math_binary.multiply(left, right)


def others_product(op):
    """For ``Prod`` op ``op``: each input element's product of the others in its group."""
    x, axis = op.inputs
    static_rank = x.shape.rank
    value = constant_value(axis)
    if static_rank is not None and value is not None:
        axes = sorted({int(a) % static_rank for a in np.asarray(value).reshape(-1)}) \
            if static_rank else []
        if not axes:
            return _array_fill.ones_like(x)
        if len(axes) == 1:  # the common case: no reshape, no transpose
            return _exclusive_product(x, axes[0])
        others = [i for i in range(static_rank) if i not in axes]
        perm = axes + others
        if perm == list(range(static_rank)):
            perm = None
        dims = x.shape.raw
        if None not in dims:
            inner = int(np.prod([dims[i] for i in others], dtype=np.int64))
            xt = x if perm is None else _array_shape.transpose(x, perm)
            flat = _array_shape.reshape(xt, [-1, inner])
            back_shape = list(xt.shape.raw)
        else:
            xt = x if perm is None else _array_shape.transpose(x, perm)
            inner = _array_shape.size(op.outputs[0])
            flat = _array_shape.reshape(xt, _array_combine.stack([-1, inner]))
            back_shape = _array_shape.shape(xt)
        out = _array_shape.reshape(_exclusive_product(flat, 0), back_shape)
        if perm is not None:
            out = _array_shape.transpose(out, list(np.argsort(perm)))
        return out
    # rank or axes known only when running
    perm, inverse = apply_op("ReductionPermutation", [_array_shape.shape(x), axis])
    xt = _array_shape.transpose(x, perm)
    inner = _array_shape.size(op.outputs[0])
    flat = _array_shape.reshape(xt, _array_combine.stack([-1, inner]))
    out = _array_shape.reshape(_exclusive_product(flat, 0), _array_shape.shape(xt))
    return _array_shape.transpose(out, inverse)
