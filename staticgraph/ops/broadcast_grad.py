"""SumToShape: the gradient engine's reduction of a broadcast gradient to an input's shape.

``sum_to_shape(g, shape)`` sums ``g`` over the leading axes it has beyond ``shape``
and over the axes where ``shape`` is 1, then gives it ``shape``: the adjoint of
broadcasting a tensor of ``shape`` to ``g``'s shape.
"""

from __future__ import annotations

import numpy as np

from ..graphlib import TensorShape
from .convert import convert_to_tensor
from .registry import OpDef, Spec, apply_op, register
from .shape_rules import FLOATS, require_dtype
from .static_value import constant_value_as_shape

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
        from .array_shape import shape as shape_of
        from .array_transform import broadcast_to
        return [broadcast_to(dy, shape_of(op.inputs[0])), None]


def sum_to_shape(grad, shape, name=None):
    """``grad`` reduced by summation to ``shape`` (a list of ints or a 1-D int32 tensor)."""
    from ..graphlib import dtypes
    return apply_op("SumToShape", [convert_to_tensor(grad),
                                   convert_to_tensor(shape, dtype=dtypes.int32)], name=name)
