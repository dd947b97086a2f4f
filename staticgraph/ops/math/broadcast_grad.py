"""SumToShape: the gradient engine's reduction of a broadcast gradient to an input's shape.

``sum_to_shape(g, shape)`` sums ``g`` over the leading axes it has beyond ``shape``
and over the axes where ``shape`` is 1, then gives it ``shape``: the adjoint of
broadcasting a tensor of ``shape`` to ``g``'s shape.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import TensorShape, dtypes
from ..array import shape as _array_shape
from ..array import transform as _array_transform
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, require_dtype
from ..static_value import constant_value, constant_value_as_shape

__all__ = []


@register
class SumToShape(OpDef):
    """``grad`` summed down to ``shape`` (the inverse of numpy broadcasting)."""

    def infer(self, grad, shape):
        require_dtype(grad, FLOATS, "grad")
        target = constant_value_as_shape(shape)
        if target.rank is None and shape.shape.rank == 1 and shape.shape.raw[0] is not None:
            target = TensorShape([None] * shape.shape.raw[0])
        if grad.shape.rank is not None and target.rank is not None \
                and target.rank > grad.shape.rank:
            raise ValueError(f"Cannot sum a gradient of shape {grad.shape} to the larger "
                             f"rank shape {target}")
        return Spec(grad.dtype, target)

    @staticmethod
    def compute(grad, shape):
        shape = tuple(int(d) for d in shape)
        if grad.shape == shape:
            return grad
        lead = grad.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, d in enumerate(shape) if d == 1 and grad.shape[lead + i] != 1)
        return np.sum(grad, axis=axes, dtype=grad.dtype).reshape(shape)

    def grad(self, op, dy):
        return [_array_transform.broadcast_to(dy, _array_shape.shape(op.inputs[0])), None]

    def onnx(self, ctx, op, grad, shape):
        g = op.inputs[0].shape.raw
        target = constant_value(op.inputs[1])
        if g is not None and target is not None:  # the axes are known: one ReduceSum
            target = [int(d) for d in np.asarray(target).reshape(-1)]
            lead = len(g) - len(target)
            ones = [lead + i for i, d in enumerate(target) if d == 1 and g[lead + i] != 1]
            if not ones:
                if not lead:
                    return ctx.node("Identity", [grad])
                return ctx.node("ReduceSum", [grad, ctx.int64s(range(lead))], keepdims=0)
            out = ctx.node("ReduceSum", [grad, ctx.int64s(list(range(lead)) + ones)],
                           keepdims=1)
            return out if not lead else ctx.node("Reshape", [out, ctx.int64s(target)])
        # Sum (keeping dims) wherever grad's dims differ from the target's padded
        # with leading ones, then reshape to the target.
        target = ctx.to_int64(shape, op.inputs[1].dtype)
        have = ctx.shape(grad)
        lead = ctx.node("Sub", [ctx.node("Size", [have]), ctx.node("Size", [target])])
        pad = ctx.node("Expand", [ctx.int64s([1]), ctx.node("Reshape", [lead, ctx.int64s([1])])])
        padded = ctx.node("Concat", [pad, target], axis=0)
        differ = ctx.node("Not", [ctx.node("Equal", [have, padded])])
        axes = ctx.node("Reshape", [ctx.node("NonZero", [differ]), ctx.int64s([-1])])
        out = ctx.node("ReduceSum", [grad, axes], keepdims=1, noop_with_empty_axes=1)
        return ctx.node("Reshape", [out, target])


def sum_to_shape(grad, shape, name=None):
    """``grad`` reduced by summation to ``shape`` (a list of ints or a 1-D int32 tensor)."""
    return apply_op("SumToShape", [convert_to_tensor(grad),
                                   convert_to_tensor(shape, dtype=dtypes.int32)], name=name)
