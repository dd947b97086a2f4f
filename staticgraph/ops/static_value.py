"""Values and shapes known while declaring (TF1's ``tensor_util.constant_value``).

Ops that take shapes or axes as tensors (``reshape``, ``fill``, ``tile``, random
ops) use these to infer static output shapes when the argument is a constant or
derived from static shapes.
"""

from __future__ import annotations

import numpy as np

from ..graphlib import Tensor, TensorShape

__all__ = ["constant_value", "constant_value_as_shape"]


def constant_value(tensor):
    """The numpy value of ``tensor`` if it is known while declaring, else None."""
    if not isinstance(tensor, Tensor):
        return None if tensor is None else np.asarray(tensor)
    if tensor.value_index != 0:
        return None
    return tensor.op.op_def.static_value(tensor.op)


def constant_value_as_shape(tensor) -> TensorShape:
    """A 1-D int tensor describing a shape, as a :class:`TensorShape`.

    Known entries become known dimensions, -1 or unknown entries unknown ones;
    handles constants, ``tf.shape(x)``, ``tf.stack`` of scalars and concatenations.
    """
    value = constant_value(tensor)
    if value is not None:
        value = np.asarray(value)
        if value.ndim == 0:
            return TensorShape([None if value < 0 else int(value)])
        return TensorShape([None if d < 0 else int(d) for d in value.reshape(-1)])
    if isinstance(tensor, Tensor):
        op = tensor.op
        if op.type == "Shape":
            return op.inputs[0].shape
        if op.type == "Pack":
            dims = []
            for t in op.inputs:
                v = constant_value(t)
                dims.append(None if v is None or int(v) < 0 else int(v))
            return TensorShape(dims)
        if op.type == "ConcatV2":
            out = TensorShape([])
            for t in op.inputs[:-1]:
                out = out.concatenate(constant_value_as_shape(t))
            return out
        rank = tensor.shape.rank and tensor.shape.raw[0]
        if tensor.shape.rank == 1 and rank is not None:
            return TensorShape([None] * rank)
    return TensorShape(None)
