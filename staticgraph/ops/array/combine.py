"""Combining tensors and taking them apart again: concat, stack, unstack.

Op types ``ConcatV2`` (axis as the last input, like TF1), ``Pack`` and ``Unpack``;
``split`` is in :mod:`.split`. ``Pack`` and ``ConcatV2`` have static values when all
their inputs do, so shapes built from them (``tf.stack([n, 3])``) stay known.
Importing this module registers TF1's "autopacking" conversion: a nested list that
holds tensors converts to a tensor through ``stack``.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import Tensor, TensorShape, dtypes, name_scope
from . import shape as _array_shape
from . import shape_onnx as _onnx
from . import slicing as _array_slice
from ..core import basic_ops as _core_ops
from ..math import binary as _math_binary
from ..math import misc as _math_misc
from ..convert import (contains_tensor, convert_to_tensor, is_tensor_like,
                       register_tensor_conversion_function)
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..static_value import constant_value
from .shape_args import fold, scalar_axis

__all__ = ["concat", "stack", "unstack"]

def _same_dtype(values, op_type):
    first = values[0].dtype
    if any(v.dtype is not first for v in values[1:]):
        types = ", ".join(v.dtype.name for v in values)
        raise TypeError(f"Tensors in list passed to 'values' of '{op_type}' Op have types "
                        f"[{types}] that don't all match.")
    return first


def _convert_list(values, op_type):
    """Convert a list of values sharing one dtype, as TF1's op wrappers do."""
    anchor = next((convert_to_tensor(v).dtype for v in values if is_tensor_like(v)), None)
    out = []
    for v in values:
        if is_tensor_like(v):
            out.append(convert_to_tensor(v))
        else:
            out.append(convert_to_tensor(v, dtype=anchor) if anchor is not None
                       else convert_to_tensor(v))
            anchor = anchor or out[-1].dtype
    _same_dtype(out, op_type)
    return out


# ------------------------------------------------------------------- concat
@register
class ConcatV2(OpDef):
    """Inputs ``values..., axis``: the values joined along dimension ``axis``."""

    def infer(self, *inputs):
        values, axis_t = inputs[:-1], inputs[-1]
        if not values:
            raise ValueError("ConcatV2 needs at least one value to concatenate")
        dtype = _same_dtype(values, "ConcatV2")
        axis = scalar_axis(axis_t)
        rank = None
        for v in values:
            r = v.shape.rank
            if r is None:
                continue
            if rank is not None and r != rank:
                raise ValueError(f"Shape must be rank {rank} but is rank {r}: all values to "
                                 f"concatenate need the same rank")
            rank = r
        if rank == 0:
            raise ValueError("Can't concatenate scalars (use tf.stack instead)")
        if rank is None:
            return Spec(dtype, None)
        if axis is None:
            return Spec(dtype, [None] * rank)
        if not -rank <= axis < rank:
            raise ValueError(f"ConcatOp : Expected concatenating dimensions in the range "
                             f"[{-rank}, {rank}), but got {axis}")
        axis %= rank
        out = [None] * rank
        total = 0
        for v in values:
            raw = v.shape.raw
            if raw is None:
                total = None
                continue
            for i, d in enumerate(raw):
                if i == axis:
                    total = None if total is None or d is None else total + d
                elif d is not None:
                    if out[i] is not None and out[i] != d:
                        raise ValueError(
                            f"Dimension {i} in both shapes must be equal, but are {out[i]} "
                            f"and {d}. Shapes are {TensorShape(out).as_proto_string()} and "
                            f"{v.shape.as_proto_string()}.")
                    out[i] = d
        out[axis] = total
        return Spec(dtype, out)

    @staticmethod
    def compute(*inputs):
        return np.concatenate(inputs[:-1], axis=int(inputs[-1]))

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        # dy cut back into the inputs' pieces along the axis: one SplitV.
        values, axis_t = op.inputs[:-1], op.inputs[-1]
        sizes = _concat_sizes(values, axis_t)
        parts = apply_op("SplitV", [dy, sizes, axis_t], {"num_split": len(values)})
        parts = parts if isinstance(parts, list) else [parts]
        for part, v in zip(parts, values):
            part.set_shape(v.shape)
        return parts + [None]

    def onnx(self, ctx, op, *inputs):
        return _onnx.lower_concat(ctx, op, *inputs)


def _concat_sizes(values, axis_t):
    """The sizes of ``values`` along ``axis_t``: a constant when known, else computed."""
    axis = constant_value(axis_t)
    rank = next((v.shape.rank for v in values if v.shape.rank is not None), None)
    if axis is not None and rank is not None:
        a = int(np.reshape(axis, -1)[0]) % rank
        sizes = [v.shape.raw[a] for v in values]
        if None not in sizes:
            return convert_to_tensor(np.array(sizes, np.int32), name="sizes")
    ax = axis_t if axis_t.dtype is dtypes.int32 else _math_misc.cast(axis_t, dtypes.int32)
    ax = _math_binary.floormod(ax, _array_shape.rank(values[0]))
    begin = _array_shape.reshape(ax, [1])
    one = convert_to_tensor(np.array([1], np.int32), name="one")
    return concat([_array_slice.slice(_array_shape.shape(v), begin, one) for v in values], 0,
                  name="sizes")


def concat(values, axis, name="concat"):
    """``values`` joined along dimension ``axis`` (all other dimensions must match).

    Args:
        values: a list of tensors (or convertible values) of one dtype and rank.
        axis: int or int32/int64 scalar tensor; negative counts from the end.
        name: op name.

    Raises:
        ValueError: ranks or non-``axis`` dimensions differ, or ``axis`` out of range.
        TypeError: values of different dtypes.

    Example:
        >>> tf.concat([t1, t2], 0)
    """
    if not isinstance(values, (list, tuple)):
        values = [values]
    values = list(values)
    if not values:
        raise ValueError("concat needs at least one value")
    tensors = [v for v in values if is_tensor_like(v)]
    if len(values) == 1:
        with name_scope(name, "concat", tensors) as scope:
            axis_t = convert_to_tensor(axis, dtype=dtypes.int32, name="concat_dim") \
                if not is_tensor_like(axis) else convert_to_tensor(axis)
            if axis_t.shape.rank not in (None, 0):
                raise ValueError(f"Shape {axis_t.shape} must have rank 0")
            return _core_ops.identity(values[0], name=scope)
    with name_scope(name, "concat", tensors) as scope:
        values = _convert_list(values, "ConcatV2")
        axis_t = convert_to_tensor(axis) if is_tensor_like(axis) else \
            convert_to_tensor(axis, dtype=dtypes.int32, name="axis")
        return apply_op("ConcatV2", values + [axis_t], name=scope)


# -------------------------------------------------------------- stack/unstack
@register
class Pack(OpDef):
    """``N`` tensors of one shape stacked along a new dimension ``axis``."""

    attrs = {"axis": 0}

    def infer(self, *values, axis):
        if not values:
            raise ValueError("Pack needs at least one value")
        dtype = _same_dtype(values, "Pack")
        shape = TensorShape(None)
        for v in values:
            if shape.rank is not None and v.shape.rank is not None \
                    and shape.rank != v.shape.rank:
                raise ValueError(f"Shapes must be equal rank, but are {shape.rank} and "
                                 f"{v.shape.rank}")
            try:
                shape = shape.merge_with(v.shape)
            except ValueError:
                raise ValueError(f"Shapes of all inputs must match: {shape} vs. "
                                 f"{v.shape}") from None
        if shape.rank is None:
            return Spec(dtype, None)
        r = shape.rank + 1
        if not -r <= axis < r:
            raise ValueError(f"axis = {axis} not in [{-r}, {r})")
        dims = list(shape.raw)
        dims.insert(axis % r, len(values))
        return Spec(dtype, dims)

    @staticmethod
    def compute(*values, axis):
        return np.stack(values, axis=axis)

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        return unstack(dy, num=len(op.inputs), axis=op.attrs["axis"])

    def onnx(self, ctx, op, *values):
        axes = ctx.int64s([op.attrs["axis"]])  # negative: counted in the output, as in TF
        parts = [ctx.node("Unsqueeze", [v, axes]) for v in values]
        return parts[0] if len(parts) == 1 else ctx.node("Concat", parts,
                                                          axis=op.attrs["axis"])


def stack(values, axis=0, name="stack"):
    """Stacks a list of rank-R tensors into one rank-(R+1) tensor along ``axis``.

    Args:
        values: a list of tensors (or convertible values) of one shape and dtype.
        axis: the new dimension's index, in ``[-(R+1), R+1)``.
        name: op name.

    Raises:
        ValueError: shapes differ, or ``axis`` out of range.

    Example:
        >>> tf.stack([x, y, z], axis=1)   # x, y, z of shape [2]: result [2, 3]
    """
    values = list(values)
    if not values:
        raise ValueError("stack needs at least one value")
    if axis == 0 and not any(contains_tensor(v) for v in values):
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    with name_scope(name, "stack", [v for v in values if is_tensor_like(v)]) as scope:
        tensors = _convert_list(values, "Pack")
        rank = tensors[0].shape.rank
        if rank is not None:
            r = rank + 1
            if not -r <= axis < r:
                raise ValueError(f"axis = {axis} not in [{-r}, {r})")
        return apply_op("Pack", tensors, {"axis": int(axis)}, name=scope)


def _element_dtype(values):
    """The dtype of the first tensor-like entry of a nested list, or None."""
    for v in values:
        if isinstance(v, Tensor):
            return v.dtype
        t = getattr(v, "_as_graph_tensor", None)
        if t is not None:
            return t().dtype
        if isinstance(v, (list, tuple)):
            d = _element_dtype(v)
            if d is not None:
                return d
    return None


def _autopacking_conversion(value, dtype=None, name=None):
    """A list or tuple holding tensors as one tensor (``stack``, recursively); other
    lists are left to ``convert_to_tensor``'s constants (``NotImplemented``)."""
    if not contains_tensor(value):
        return NotImplemented
    return stack([convert_to_tensor(v, dtype=dtype) if contains_tensor(v)
                  else convert_to_tensor(v, dtype=dtype or _element_dtype(value))
                  for v in value], name=name or "packed")


# Priority 99, as TF1's: before the default rules, after more specific conversions.
register_tensor_conversion_function((list, tuple), _autopacking_conversion, 99)


@register
class Unpack(OpDef):
    """``value`` split into ``num`` tensors along ``axis``, that dimension removed."""

    attrs = {"num": None, "axis": 0}
    returns_view = (0,)

    def infer(self, value, *, num, axis):
        raw = value.shape.raw
        if raw is None:
            return [Spec(value.dtype, None)] * num
        r = len(raw)
        if not -r <= axis < r:
            raise ValueError(f"axis = {axis} not in [{-r}, {r})")
        axis %= r
        if raw[axis] is not None and raw[axis] != num:
            raise ValueError(f"Dimension {axis} must be {num} to unstack into {num} tensors, "
                             f"but is {raw[axis]}")
        return [Spec(value.dtype, raw[:axis] + raw[axis + 1:])] * num

    @staticmethod
    def compute(value, *, num, axis):
        if value.shape[axis] != num:
            raise ValueError(f"Input shape axis {axis} must equal {num}, got shape "
                             f"{list(value.shape)}")
        parts = np.moveaxis(value, axis, 0)
        return parts[0] if num == 1 else tuple(parts)

    def grad(self, op, *dys):
        return [stack(list(dys), axis=op.attrs["axis"])]

    def onnx(self, ctx, op, value):
        axis = op.attrs["axis"]
        return [ctx.node("Gather", [value, ctx.scalar(i, np.int64)], axis=axis)
                for i in range(op.attrs["num"])]


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits ``value`` along ``axis`` into a list of ``num`` tensors of rank R-1.

    Args:
        value: a tensor of rank R > 0.
        num: the length of dimension ``axis``; inferred from the static shape if None.
        axis: the dimension to unstack along.
        name: op name.

    Raises:
        ValueError: ``num`` is None and cannot be inferred, or ``axis`` out of range.
    """
    value = convert_to_tensor(value)
    shape = value.shape
    if num is None:
        if shape.rank is not None:
            if not -shape.rank <= axis < shape.rank:
                raise ValueError(f"axis = {axis} not in [{-shape.rank}, {shape.rank})")
            num = shape.raw[axis]
        if num is None:
            raise ValueError(f"Cannot infer num from shape {shape}")
    out = apply_op("Unpack", [value], {"num": int(num), "axis": int(axis)}, name=name)
    if isinstance(out, Tensor):
        return [out]
    return [] if not isinstance(out, list) else out
