"""Reduction axes: checking them, their static output shape, their run-time form.

Shared by the reduction ops (reduction.py), their gradients (reduction_grad.py) and
their ONNX lowerings (reduction_onnx.py). As in TF1 the axes are an int32/int64
tensor input, usually constant.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import TensorShape, dtypes
from ..shape_rules import require_dtype
from ..static_value import constant_value

__all__ = []

INDEX_TYPES = (dtypes.int32, dtypes.int64)
"""The dtypes of axis and index inputs."""


def check_axis(a: int, rank: int) -> int:
    """Axis ``a`` made non-negative; ValueError when out of range for ``rank``."""
    if not -rank <= a < rank:
        raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions")
    return a % rank


def reduces_all(x, axis) -> bool:
    """True when ``axis`` is ``range(0, rank(x))`` (TF1's axis=None on unknown rank)."""
    op = axis.op
    if op.type != "Range" or len(op.inputs) < 2:
        return False
    rank_op = op.inputs[1].op
    if rank_op.type != "Rank" or rank_op.inputs[0] is not x:
        return False
    start = constant_value(op.inputs[0])
    delta = constant_value(op.inputs[2]) if len(op.inputs) > 2 else 1
    return start is not None and int(start) == 0 and delta is not None and int(delta) == 1


def reduced_static_shape(x, axis, keep_dims) -> TensorShape:
    """Static output shape of reducing ``x`` over the axis tensor ``axis``."""
    require_dtype(axis, INDEX_TYPES, "reduction_indices")
    if axis.shape.rank is not None and axis.shape.rank > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {axis.shape.rank}")
    dims = x.shape.raw
    value = constant_value(axis)
    if value is None:
        if reduces_all(x, axis):
            return TensorShape(None if dims is None else [1] * len(dims)) if keep_dims \
                else TensorShape([])
        if dims is None:
            return TensorShape(None)
        if keep_dims:
            return TensorShape([None] * len(dims))
        if axis.shape.rank == 0:  # a single axis removes exactly one dimension
            return TensorShape([None] * max(len(dims) - 1, 0))
        return TensorShape(None)
    if dims is None:
        if value.size == 0:
            return x.shape
        return TensorShape(None)
    axes = {check_axis(int(a), len(dims)) for a in np.asarray(value).reshape(-1)}
    if keep_dims:
        return TensorShape([1 if i in axes else d for i, d in enumerate(dims)])
    return TensorShape([d for i, d in enumerate(dims) if i not in axes])


def runtime_axes(axis, ndim):
    """The axis value as numpy wants it: an int, or a sorted tuple without repeats."""
    if axis.ndim == 0:
        return check_axis(int(axis), ndim)
    items = axis.tolist()
    if len(items) == 1:
        return check_axis(items[0], ndim)
    return tuple(sorted({check_axis(a, ndim) for a in items}))
