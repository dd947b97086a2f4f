"""Adding and removing dimensions of size 1: ``ExpandDims`` and ``Squeeze``, with TF1's
``expand_dims`` and ``squeeze``.

Both ops only change the shape: their gradient reshapes ``dy`` back
(:func:`.shape.reshape_back`), and their static values fold while declaring.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graphlib import name_scope
from . import shape as _shape
from . import shape_onnx as _onnx
from ..convert import convert_to_tensor
from ..argument_aliases import deprecated_argument_lookup
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from .shape_args import fold, scalar_int, shape_tensor
from ..shape_rules import INDEX, require_dtype
from ..static_value import constant_value

__all__ = ["expand_dims", "squeeze"]


@register
class ExpandDims(OpDef):
    """Inserts a dimension of size 1 at index ``dim`` (an int scalar tensor)."""

    returns_view = (0,)

    def infer(self, x, dim):
        require_dtype(dim, INDEX, "dim")
        v = constant_value(dim)
        raw = x.shape.raw
        if v is None:
            return Spec(x.dtype, None if raw is None else [None] * (len(raw) + 1))
        d = scalar_int(v, "dim")
        if raw is None:
            return Spec(x.dtype, None)
        r = len(raw)
        if not -r - 1 <= d <= r:
            raise ValueError(f"Tried to expand dim index {d} for tensor with {r} dimensions.")
        dims = list(raw)
        dims.insert(d % (r + 1), 1)
        return Spec(x.dtype, dims)

    @staticmethod
    def compute(x, dim):
        return np.expand_dims(x, scalar_int(dim, "dim"))

    def static_value(self, op):
        return fold(op)

    grad = staticmethod(_shape.reshape_back)

    def onnx(self, ctx, op, x, dim):
        d = _onnx.static_ints(op.inputs[1])  # negative: counted in the output, as in ONNX
        axes = ctx.int64s(d) if d is not None else ctx.node(
            "Reshape", [ctx.to_int64(dim, op.inputs[1].dtype), ctx.int64s([1])])
        return ctx.node("Unsqueeze", [x, axes])


def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002 - TF1's keyword
    """``input`` with a new dimension of size 1 inserted at ``axis``.

    Args:
        input: a Tensor.
        axis: index of the new dimension, in ``[-rank(input) - 1, rank(input)]``.
        name: op name (default ``"ExpandDims"``).
        dim: deprecated alias of ``axis``.

    Raises:
        ValueError: both or neither of ``axis`` and ``dim`` given; ``axis`` out of range.
    """
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    with name_scope(name, "ExpandDims", [input]) as scope:
        x = convert_to_tensor(input)
        axis = shape_tensor(axis, "dim")
        return apply_op("ExpandDims", [x, axis], name=scope)


@register
class Squeeze(OpDef):
    """Removes dimensions of size 1 (those in ``squeeze_dims``, or all when empty)."""

    attrs = {"squeeze_dims": ()}
    returns_view = (0,)

    def infer(self, x, *, squeeze_dims):
        raw = x.shape.raw
        if raw is None:
            return Spec(x.dtype, None)
        r = len(raw)
        if not squeeze_dims:
            if None in raw:
                return Spec(x.dtype, None)
            return Spec(x.dtype, [d for d in raw if d != 1])
        axes = set()
        for a in squeeze_dims:
            if not -r <= a < r:
                raise ValueError(f"Tried to squeeze dim index {a} for tensor with {r} "
                                 f"dimensions.")
            a %= r
            if raw[a] is not None and raw[a] != 1:
                raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, "
                                 f"got {raw[a]}")
            axes.add(a)
        return Spec(x.dtype, [d for i, d in enumerate(raw) if i not in axes])

    @staticmethod
    def compute(x, *, squeeze_dims):
        return np.squeeze(x, axis=squeeze_dims or None)

    def static_value(self, op):
        return fold(op)

    grad = staticmethod(_shape.reshape_back)

    def onnx(self, ctx, op, x):
        axes = op.attrs["squeeze_dims"]
        raw = op.inputs[0].shape.raw
        if not axes and raw is not None and None not in raw:
            axes = [i for i, d in enumerate(raw) if d == 1]
            if not axes:
                return ctx.node("Identity", [x])
        if not axes:  # unknown sizes: ONNX Squeeze without axes drops every 1, as TF
            return ctx.node("Squeeze", [x])
        return ctx.node("Squeeze", [x, ctx.int64s(axes)])


def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002 - TF1's keyword
    """``input`` without its size-1 dimensions (only those in ``axis`` when given).

    Args:
        input: a Tensor.
        axis: int or list of ints; None removes every size-1 dimension.
        name: op name (default ``"Squeeze"``).
        squeeze_dims: deprecated alias of ``axis``.

    Raises:
        ValueError: a listed dimension is known not to be 1, or both aliases given.
    """
    axis = deprecated_argument_lookup("axis", axis, "squeeze_dims", squeeze_dims)
    if axis is None:
        axis = ()
    elif isinstance(axis, (numbers.Integral, np.integer)):
        axis = (int(axis),)
    else:
        axis = tuple(int(a) for a in axis)
    return apply_op("Squeeze", [convert_to_tensor(input)], {"squeeze_dims": axis}, name=name)
