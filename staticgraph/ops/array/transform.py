"""Array transform ops: stop_gradient, broadcast_to, tile, reverse, meshgrid.

Each op type (``StopGradient``, ``BroadcastTo``, ``Tile``, ``ReverseV2``) is defined
once here; the public functions keep TF1's names, keywords and default op names.
Shape arguments given as tensors give static shapes when their value is known
while declaring. Padding is in :mod:`.pad`.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ...graphlib import Tensor, TensorShape, name_scope
from . import combine as _array_combine
from . import fill as _array_fill
from . import shape as _array_shape
from . import shape_onnx as _onnx
from ..math import broadcast_grad as _broadcast_grad
from ..math import reduction as _reduction
from ..convert import convert_to_tensor
from ..core.basic_ops import PassThrough
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from .shape_args import fold, int_list, shape_tensor
from ..shape_rules import require_index_vector, same_as
from ..static_value import constant_value, constant_value_as_shape

__all__ = ["stop_gradient", "broadcast_to", "tile", "reverse", "reverse_v2", "meshgrid"]


# ------------------------------------------------------------- misc shape ops
@register
class StopGradient(PassThrough):
    """Its input unchanged; gradients do not flow through it."""

    def grad(self, op, dy):
        return [None]  # TF1: NotDifferentiable, tf.gradients gives None


def stop_gradient(input, name=None):  # noqa: A002 - TF1's keyword
    """``input`` unchanged, treated as a constant by gradient computation."""
    return apply_op("StopGradient", [convert_to_tensor(input)], name=name)


@register
class BroadcastTo(OpDef):
    """``x`` broadcast (numpy rules) to the 1-D int tensor ``shape``."""

    returns_view = (0,)

    def infer(self, x, shape):
        require_index_vector(shape, "shape")
        v = constant_value(shape)
        if v is not None and (np.asarray(v) < 0).any():
            raise ValueError(f"broadcast_to shape must be non-negative, got {int_list(v)}")
        target = constant_value_as_shape(shape).raw
        raw = x.shape.raw
        if target is None:
            return Spec(x.dtype, None)
        if raw is None:
            return Spec(x.dtype, target)
        if len(raw) > len(target):
            raise ValueError(f"Rank of input ({len(raw)}) must be no greater than rank of "
                             f"output shape ({len(target)}).")
        out = []
        lead = len(target) - len(raw)
        for i, t in enumerate(target):
            d = raw[i - lead] if i >= lead else 1
            if t is not None:
                if d is not None and d != 1 and d != t:
                    raise ValueError(f"Incompatible shapes: {x.shape.as_proto_string()} vs. "
                                     f"{TensorShape(target).as_proto_string()}")
                out.append(t)
            else:
                out.append(d if d != 1 else None)
        return Spec(x.dtype, out)

    @staticmethod
    def compute(x, shape):
        return np.broadcast_to(x, tuple(int_list(shape)))

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        x = op.inputs[0]
        target = list(x.shape.raw) if x.shape.is_fully_defined() else _array_shape.shape(x)
        return [_broadcast_grad.sum_to_shape(dy, target), None]

    def onnx(self, ctx, op, x, shape):
        return ctx.node("Expand", [x, _shape_arg(ctx, op, shape)])


def broadcast_to(input, shape, name=None):  # noqa: A002 - TF1's keyword
    """``input`` broadcast to ``shape`` with numpy's rules.

    Raises:
        ValueError: when ``input``'s known shape cannot broadcast to ``shape``.
    """
    with name_scope(name, "BroadcastTo", [input, shape]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("BroadcastTo", [x, shape_tensor(shape, "shape")], name=scope)


@register
class Tile(OpDef):
    """``x`` repeated ``multiples[i]`` times along dimension ``i``."""

    def infer(self, x, multiples):
        require_index_vector(multiples, "multiples")
        v = constant_value(multiples)
        if v is not None:
            for i, m in enumerate(int_list(v)):
                if m < 0:
                    raise ValueError(f"Expected multiples[{i}] >= 0, but got {m}")
        m = constant_value_as_shape(multiples).raw
        raw = x.shape.raw
        if raw is not None and m is not None and len(raw) != len(m):
            raise ValueError(f"Expected multiples argument to be a vector of length "
                             f"{len(raw)} but got length {len(m)}")
        n = len(raw) if raw is not None else (len(m) if m is not None else None)
        if n is None:
            return Spec(x.dtype, None)
        out = []
        for i in builtins.range(n):
            d = raw[i] if raw is not None else None
            k = m[i] if m is not None else None
            out.append(0 if 0 in (d, k) else (None if d is None or k is None else d * k))
        return Spec(x.dtype, out)

    @staticmethod
    def compute(x, multiples):
        reps = int_list(multiples)
        if len(reps) != x.ndim:
            raise ValueError(f"Expected multiples argument to be a vector of length {x.ndim} "
                             f"but got length {len(reps)}")
        if any(r < 0 for r in reps):
            raise ValueError(f"Expected multiples >= 0, but got {reps}")
        return np.tile(x, reps) if reps else x.copy()

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        # dy viewed as [m0, d0, m1, d1, ...] and summed over the multiples' axes.
        x, multiples = op.inputs
        raw, m = x.shape.raw, constant_value(multiples)
        if raw is not None and not raw:
            return [dy, None]
        if x.shape.is_fully_defined() and m is not None:
            split = [v for pair in zip(int_list(m), raw) for v in pair]
            axes = list(builtins.range(0, len(split), 2))
            return [_reduction.reduce_sum(_array_shape.reshape(dy, split), axes), None]
        pairs = _array_combine.stack([multiples, _array_shape.shape(x, out_type=multiples.dtype)])
        split = _array_shape.reshape(_array_shape.transpose(pairs), [-1])
        axes = _array_fill.range(0, _array_shape.size(split), 2)
        dx = _reduction.reduce_sum(_array_shape.reshape(dy, split), axes)
        dx.set_shape(x.shape)
        return [dx, None]

    def onnx(self, ctx, op, x, multiples):
        m = _onnx.static_ints(op.inputs[1])
        if op.inputs[0].shape.rank == 0 or (m is not None and set(m) == {1}):
            return ctx.node("Identity", [x])
        return ctx.node("Tile", [x, _onnx.int64_arg(ctx, multiples, op.inputs[1])])


def _shape_arg(ctx, op, shape):
    """Input 1 of ``op``, a shape, as int64: the static output shape when fully known."""
    out = op.outputs[0].shape.raw
    if out is not None and None not in out:
        return ctx.int64s(out)
    return _onnx.int64_arg(ctx, shape, op.inputs[1])


def tile(input, multiples, name=None):  # noqa: A002 - TF1's keyword
    """``input`` repeated ``multiples[i]`` times along each dimension ``i``.

    Raises:
        ValueError: ``multiples`` of the wrong length, or negative.

    Example:
        >>> tf.tile([[1, 2]], [2, 1])   # [[1, 2], [1, 2]]
    """
    with name_scope(name, "Tile", [input, multiples]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("Tile", [x, shape_tensor(multiples, "multiples")], name=scope)


# ---------------------------------------------------------------- reverse
@register
class ReverseV2(OpDef):
    """``x`` with the order of elements reversed along the dimensions in ``axis``."""

    returns_view = (0,)

    def infer(self, x, axis):
        require_index_vector(axis, "axis")
        v = constant_value(axis)
        r = x.shape.rank
        if v is not None and r is not None:
            seen = set()
            for i, a in enumerate(int_list(v)):
                if not -r <= a < r:
                    raise ValueError(f"'axis'[{i}] = {a} is out of valid range "
                                     f"[{-r}, {r - 1}]")
                if a % r in seen:
                    raise ValueError(f"axis {a % r} specified more than once.")
                seen.add(a % r)
        return same_as(x)

    @staticmethod
    def compute(x, axis):
        return np.flip(x, axis=tuple(int_list(axis)))

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        return [apply_op("ReverseV2", [dy, op.inputs[1]]), None]

    def onnx(self, ctx, op, x, axis):
        return _onnx.lower_reverse(ctx, op, x, axis)


def reverse_v2(tensor, axis, name=None):
    """``tensor`` with elements reversed along each dimension in ``axis`` (list of ints).

    Example:
        >>> tf.reverse([[1, 2], [3, 4]], [1])   # [[2, 1], [4, 3]]
    """
    with name_scope(name, "ReverseV2", [tensor, axis]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        if isinstance(axis, (numbers.Integral, np.integer)):
            axis = [int(axis)]
        return apply_op("ReverseV2", [x, shape_tensor(axis, "axis")], name=scope)


reverse = reverse_v2


# --------------------------------------------------------------- meshgrid
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D coordinate tensors (numpy's ``meshgrid``).

    Args:
        *args: N tensors (flattened to 1-D) of one dtype.
        indexing: keyword, "xy" (Cartesian, default) or "ij" (matrix).
        name: keyword, name scope (default ``"meshgrid"``).

    Returns:
        A list of N tensors of rank N.

    Raises:
        ValueError: ``indexing`` not "xy" or "ij".
        TypeError: unknown keyword arguments, or inputs of different dtypes.

    Example:
        >>> X, Y = tf.meshgrid([1, 2, 3], [4, 5])   # shapes [2, 3]
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = next(iter(kwargs))
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with name_scope(name, "meshgrid", [a for a in args if isinstance(a, Tensor)]):
        ndim = len(args)
        tensors = [convert_to_tensor(a) for a in args]
        for t in tensors[1:]:
            if t.dtype is not tensors[0].dtype:
                raise TypeError(f"meshgrid inputs must share one dtype, got "
                                f"{tensors[0].dtype.name} and {t.dtype.name}")
        ones_ = (1,) * ndim
        output = [_array_shape.reshape(x, ones_[:i] + (-1,) + ones_[i + 1:])
                  for i, x in enumerate(tensors)]
        sizes = [_array_shape.size(x) for x in tensors]
        if indexing == "xy" and ndim > 1:
            output[0] = _array_shape.reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = _array_shape.reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            sizes[0], sizes[1] = sizes[1], sizes[0]
        if not sizes:
            return []
        target = _array_combine.stack(sizes)
        return [broadcast_to(x, target) for x in output]
