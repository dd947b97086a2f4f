"""Combining and splitting tensors: concat, stack, unstack, split.

Op types ``ConcatV2`` (axis as the last input, like TF1), ``Pack``, ``Unpack``,
``Split`` and ``SplitV``. ``Pack`` and ``ConcatV2`` have static values when all
their inputs do, so shapes built from them (``tf.stack([n, 3])``) stay known.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graphlib import Dimension, Tensor, TensorShape, dtypes, name_scope
from . import shape as _array_shape
from . import shape_onnx as _onnx
from . import slicing as _array_slice
from ..core import basic_ops as _core_ops
from ..math import binary as _math_binary
from ..math import misc as _math_misc
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import require_dtype
from ..static_value import constant_value
from .shape_args import fold

__all__ = ["concat", "stack", "unstack", "split"]

INDEX = (dtypes.int32, dtypes.int64)
STATIC_LIMIT = 4096


def _tensor_like(v) -> bool:
    return isinstance(v, Tensor) or hasattr(v, "_as_graph_tensor")


def _same_dtype(values, op_type):
    first = values[0].dtype
    if any(v.dtype is not first for v in values[1:]):
        types = ", ".join(v.dtype.name for v in values)
        raise TypeError(f"Tensors in list passed to 'values' of '{op_type}' Op have types "
                        f"[{types}] that don't all match.")
    return first


def _convert_list(values, op_type):
    """Convert a list of values sharing one dtype, as TF1's op wrappers do."""
    anchor = next((convert_to_tensor(v).dtype for v in values if _tensor_like(v)), None)
    out = []
    for v in values:
        if _tensor_like(v):
            out.append(convert_to_tensor(v))
        else:
            out.append(convert_to_tensor(v, dtype=anchor) if anchor is not None
                       else convert_to_tensor(v))
            anchor = anchor or out[-1].dtype
    _same_dtype(out, op_type)
    return out


def _scalar_axis(t):
    require_dtype(t, INDEX, "axis")
    if t.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank} for argument "
                         f"'axis'")
    v = constant_value(t)
    return None if v is None else int(np.reshape(v, -1)[0])


# ------------------------------------------------------------------- concat
@register
class ConcatV2(OpDef):
    """Inputs ``values..., axis``: the values joined along dimension ``axis``."""

    def infer(self, *inputs):
        values, axis_t = inputs[:-1], inputs[-1]
        if not values:
            raise ValueError("ConcatV2 needs at least one value to concatenate")
        dtype = _same_dtype(values, "ConcatV2")
        axis = _scalar_axis(axis_t)
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
    tensors = [v for v in values if _tensor_like(v)]
    if len(values) == 1:
        with name_scope(name, "concat", tensors) as scope:
            axis_t = convert_to_tensor(axis, dtype=dtypes.int32, name="concat_dim") \
                if not _tensor_like(axis) else convert_to_tensor(axis)
            if axis_t.shape.rank not in (None, 0):
                raise ValueError(f"Shape {axis_t.shape} must have rank 0")
            return _core_ops.identity(values[0], name=scope)
    with name_scope(name, "concat", tensors) as scope:
        values = _convert_list(values, "ConcatV2")
        axis_t = convert_to_tensor(axis) if _tensor_like(axis) else \
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
    if axis == 0 and not any(_contains_tensor(v) for v in values):
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass
    with name_scope(name, "stack", [v for v in values if _tensor_like(v)]) as scope:
        tensors = _convert_list(values, "Pack")
        rank = tensors[0].shape.rank
        if rank is not None:
            r = rank + 1
            if not -r <= axis < r:
                raise ValueError(f"axis = {axis} not in [{-r}, {r})")
        return apply_op("Pack", tensors, {"axis": int(axis)}, name=scope)


def _contains_tensor(v):
    if _tensor_like(v):
        return True
    if isinstance(v, (list, tuple)):
        return any(_contains_tensor(x) for x in v)
    return False


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


# ------------------------------------------------------------------ split
def _split_static(value, axis, sizes, num):
    """Output specs of splitting ``value`` along ``axis`` into pieces of ``sizes``."""
    raw = value.shape.raw
    if raw is None:
        return [Spec(value.dtype, None)] * num
    r = len(raw)
    if axis is None:
        return [Spec(value.dtype, [None] * r)] * num
    if not -r <= axis < r:
        raise ValueError(f"split axis {axis} is out of range for a tensor of rank {r} "
                         f"(expected {-r} <= axis < {r})")
    out = []
    for s in sizes if sizes is not None else [None] * num:
        dims = list(raw)
        dims[axis % r] = s
        out.append(Spec(value.dtype, dims))
    return out


@register
class Split(OpDef):
    """Inputs ``(split_dim, value)``: ``value`` cut into ``num_split`` equal pieces."""

    attrs = {"num_split": 1}
    returns_view = (1,)

    def infer(self, split_dim, value, *, num_split):
        if num_split < 1:
            raise ValueError(f"num_split must be at least 1, got {num_split}")
        axis = _scalar_axis(split_dim)
        raw = value.shape.raw
        if raw is None or axis is None:
            return _split_static(value, axis, None, num_split)
        r = len(raw)
        if -r <= axis < r and raw[axis % r] is not None:
            d = raw[axis % r]
            if d % num_split:
                raise ValueError(f"Dimension size must be evenly divisible by {num_split} but "
                                 f"is {d}")
            size = d // num_split
        else:
            size = None
        return _split_static(value, axis, [size] * num_split, num_split)

    @staticmethod
    def compute(split_dim, value, *, num_split):
        axis = int(split_dim)
        d = value.shape[axis]
        if d % num_split:
            raise ValueError(f"Number of ways to split should evenly divide the split "
                             f"dimension, but got split_dim {axis} (size = {d}) and "
                             f"num_split {num_split}")
        parts = np.split(value, num_split, axis=axis)
        return parts[0] if num_split == 1 else tuple(parts)

    def grad(self, op, *dys):
        return [None, concat(list(dys), op.inputs[0])]

    def onnx(self, ctx, op, split_dim, value):
        return _onnx.lower_split(ctx, op, value, split_dim, op.inputs[0])


def _resolve_sizes(sizes, d):
    """``sizes`` with its -1 entry replaced, checked against dimension size ``d``."""
    known = sum(s for s in sizes if s != -1)
    if -1 in sizes:
        if d is None:
            return [None if s == -1 else s for s in sizes]
        if known > d:
            raise ValueError(f"Determined shape must either match input shape along split_dim "
                             f"exactly if fully specified, or be less than the size of the "
                             f"input along split_dim if not fully specified.  Got: {known}")
        return [d - known if s == -1 else s for s in sizes]
    if d is not None and known != d:
        raise ValueError(f"Determined shape must either match input shape along split_dim "
                         f"exactly if fully specified, or be less than the size of the input "
                         f"along split_dim if not fully specified.  Got: {known}")
    return list(sizes)


def _check_sizes(sizes, num_split):
    if len(sizes) != num_split:
        raise ValueError(f"size_splits has {len(sizes)} entries but num_split is {num_split}")
    minus = [i for i, s in enumerate(sizes) if s == -1]
    if len(minus) > 1:
        raise ValueError(f"Only one dimensions can have a value of -1. Second one found at "
                         f"dimension {minus[1]}")
    for s in sizes:
        if s < -1:
            raise ValueError(f"size_splits entries must be >= 0 (or -1), got {s}")


@register
class SplitV(OpDef):
    """Inputs ``(value, size_splits, split_dim)``: pieces of the given sizes (one may be -1)."""

    attrs = {"num_split": 1}
    returns_view = (0,)

    def infer(self, value, size_splits, split_dim, *, num_split):
        require_dtype(size_splits, INDEX, "size_splits")
        if size_splits.shape.rank not in (None, 1):
            raise ValueError(f"Shape must be rank 1 but is rank {size_splits.shape.rank} for "
                             f"argument 'size_splits'")
        n = size_splits.shape.raw[0] if size_splits.shape.rank == 1 else None
        if n is not None and n != num_split:
            raise ValueError(f"size_splits has {n} entries but num_split is {num_split}")
        axis = _scalar_axis(split_dim)
        sv = constant_value(size_splits)
        sizes = None
        if sv is not None:
            sizes = [int(s) for s in np.reshape(sv, -1)]
            _check_sizes(sizes, num_split)
        raw = value.shape.raw
        if raw is None or axis is None:
            return _split_static(value, axis, None, num_split)
        r = len(raw)
        d = raw[axis % r] if -r <= axis < r else None
        if sizes is None:
            sizes = [None] * num_split
        else:
            sizes = _resolve_sizes(sizes, d)
        return _split_static(value, axis, sizes, num_split)

    @staticmethod
    def compute(value, size_splits, split_dim, *, num_split):
        axis = int(split_dim)
        sizes = [int(s) for s in np.reshape(size_splits, -1)]
        _check_sizes(sizes, num_split)
        sizes = _resolve_sizes(sizes, value.shape[axis])
        parts = np.split(value, np.cumsum(sizes[:-1]), axis=axis)
        return parts[0] if num_split == 1 else tuple(parts)

    def grad(self, op, *dys):
        return [concat(list(dys), op.inputs[2]), None, None]

    def onnx(self, ctx, op, value, size_splits, split_dim):
        return _onnx.lower_split(ctx, op, value, split_dim, op.inputs[2], size_splits,
                                 op.inputs[1])


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits ``value`` along ``axis`` into pieces.

    Args:
        value: the tensor to split.
        num_or_size_splits: an int (that many equal pieces; op ``Split``) or a 1-D list or
            tensor of sizes, one of which may be -1 (op ``SplitV``).
        axis: int or int scalar tensor, the dimension to split.
        num: the number of pieces when it cannot be inferred from ``num_or_size_splits``.
        name: op name.

    Returns:
        A list of tensors.

    Raises:
        ValueError: sizes that do not add up, uneven splits, or ``num`` unknown.

    Example:
        >>> a, b, c = tf.split(x, [4, 15, 11], 1)
    """
    with name_scope(name, "split", [value]) as scope:
        value = convert_to_tensor(value)
        axis_t = convert_to_tensor(axis) if _tensor_like(axis) else \
            convert_to_tensor(axis, dtype=dtypes.int32, name="split_dim")
        if isinstance(num_or_size_splits, Dimension):
            num_or_size_splits = num_or_size_splits.value
        if isinstance(num_or_size_splits, (numbers.Integral, np.integer)):
            out = apply_op("Split", [axis_t, value], {"num_split": int(num_or_size_splits)},
                           name=scope)
        else:
            sizes = convert_to_tensor(num_or_size_splits, preferred_dtype=dtypes.int32,
                                      name="size_splits")
            if sizes.shape.rank == 0:
                raise ValueError(f"Rank-0 tensors are not supported as the "
                                 f"num_or_size_splits argument to split. Argument provided: "
                                 f"{num_or_size_splits}")
            if num is None:
                if sizes.shape.rank == 1:
                    num = sizes.shape.raw[0]
                if num is None:
                    raise ValueError(f"Cannot infer num from shape {num_or_size_splits}")
            out = apply_op("SplitV", [value, sizes, axis_t], {"num_split": int(num)},
                           name=scope)
    if isinstance(out, Tensor):
        return [out]
    return out if isinstance(out, list) else []
