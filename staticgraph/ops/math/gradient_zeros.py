"""Zeros for gradient rules: values that carry no gradient path back to the tensor
they are shaped like (TF1's rules for Sign, Maximum/Minimum, Pow, Select, clipping)."""

from __future__ import annotations

import numpy as np

from ..array import fill as _array_fill
from ..array import shape as _array_shape
from ..convert import constant

__all__ = []


def zeros_of(t):
    """Zeros of ``t``'s shape and dtype (a constant when the shape is known, else a
    ``Fill`` of ``tf.shape(t)``)."""
    if t.shape.is_fully_defined():
        return _array_fill.zeros(t.shape.raw, dtype=t.dtype)
    return _array_fill.zeros(_array_shape.shape(t), dtype=t.dtype)


def zero_scalar(like):
    """A rank-0 zero constant of ``like``'s dtype (broadcasts in ``where_v2``)."""
    return constant(np.zeros((), like.dtype.np_dtype))
