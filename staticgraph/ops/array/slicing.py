"""Slicing ops: ``Slice``, ``StridedSlice`` and its adjoint ``StridedSliceGrad``.

``tensor[key]`` builds one ``StridedSlice`` (:mod:`.indexing`). Gradients follow TF1:
a slice's gradient pads ``dy`` back with zeros (``Pad``), a strided slice's writes
``dy`` into zeros of the input's shape (``StridedSliceGrad``).
"""

from __future__ import annotations

import builtins
import functools

import numpy as np

from ...graphlib import TensorShape
from . import combine as _combine
from . import fill as _array_fill
from . import shape as _shape
from . import pad as _pad
from . import index_onnx as _onnx
from ..convert import convert_same_dtype, convert_to_tensor, is_tensor_like
from .index_args import FoldableOpDef
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import (INDEX, check_same_dtype, require_dtype, require_index_vector,
                           require_rank, unknown)
from ..static_value import constant_value, constant_value_as_shape

__all__ = ["slice", "strided_slice"]

_pyslice = builtins.slice   # ``slice`` is TF1's function below


# ----------------------------------------------------------------- helpers
def _vector_length(*tensors):
    """The common static length of 1-D tensors (None when unknown)."""
    n = None
    for t in tensors:
        if t.shape.rank is not None and t.shape.raw[0] is not None:
            if n is not None and n != t.shape.raw[0]:
                shapes = ", ".join(t.shape.as_proto_string() for t in tensors)
                raise ValueError(f"Expected 1-D tensors of equal size, but got shapes {shapes}")
            n = t.shape.raw[0]
    return n


def _partial_values(t, n):
    """Entries of the 1-D int tensor ``t`` known while declaring (None where unknown)."""
    value = constant_value(t)
    if value is not None:
        return tuple(int(v) for v in np.reshape(value, -1))
    op = t.op
    if op.type == "Pack" and len(op.inputs) == n:
        out = []
        for inp in op.inputs:
            v = constant_value(inp)
            out.append(None if v is None or np.ndim(v) != 0 else int(v))
        return tuple(out)
    if op.type == "Cast":
        return _partial_values(op.inputs[0], n)
    return (None,) * n


# ----------------------------------------------------------- strided slice
def _canonical(x, masked, stride, d, is_end):
    lo, hi = (0, d) if stride > 0 else (-1, d - 1)
    if masked:
        if stride > 0:
            return hi if is_end else lo
        return lo if is_end else hi
    x = x + d if x < 0 else x
    return lo if x < lo else hi if x > hi else x


def _resolve(shape, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
             shrink_axis_mask):
    """TF1's StridedSlice spec against ``shape`` (entries int or None).

    Returns ``(index, dims)``: the numpy index (meaningful when everything is known)
    and the output dimensions (None where unknown). Raises ValueError for a bad spec.
    """
    n, rank = len(strides), len(shape)
    ellipses = [i for i in range(n) if ellipsis_mask >> i & 1]
    if len(ellipses) > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    at = ellipses[0] if ellipses else n
    consumed_after = sum(1 for i in range(at + 1, n) if not new_axis_mask >> i & 1)
    index, dims, full = [], [], 0
    for i in range(n + (0 if ellipses else 1)):
        if i == at:
            stop = min(rank - consumed_after, rank)
            while full < stop:
                index.append(_pyslice(None))
                dims.append(shape[full])
                full += 1
            continue
        if new_axis_mask >> i & 1:
            index.append(None)
            dims.append(1)
            continue
        if full >= rank:
            raise ValueError(f"Index out of range using input dim {full}; input has only "
                             f"{rank} dims")
        d, b, e, s = shape[full], begin[i], end[i], strides[i]
        if s == 0:
            raise ValueError(f"strides[{full}] must be non-zero")
        if shrink_axis_mask >> i & 1:
            if s is not None and s < 0:
                raise ValueError("only stride 1 allowed on non-range indexing.")
            if b is not None and d is not None:
                fwd = b + d if b < 0 else b
                if not 0 <= fwd < d:
                    raise ValueError(f"slice index {fwd} of dimension {full} out of bounds.")
                index.append(fwd)
            else:  # only while declaring: the index is not needed
                index.append(0)
        else:
            bm, em = begin_mask >> i & 1, end_mask >> i & 1
            if d is None or s is None or (b is None and not bm) or (e is None and not em):
                index.append(_pyslice(None))  # only while declaring
                dims.append(None)
            else:
                lo = _canonical(b, bm, s, d, False)
                hi = _canonical(e, em, s, d, True)
                length = hi - lo
                if length == 0 or (length < 0) != (s < 0):
                    size = 0
                else:
                    size = (abs(length) + abs(s) - 1) // abs(s)
                dims.append(size)
                if s < 0:
                    index.append(_pyslice(0, 0) if lo == -1
                                 else _pyslice(lo, None if hi == -1 else hi, s))
                else:
                    index.append(_pyslice(lo, hi, s))
        full += 1
    index.append(Ellipsis)  # keeps 0-d results as array views
    return tuple(index), dims


@functools.lru_cache(maxsize=4096)
def _resolve_cached(*args):
    return _resolve(*args)


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


@register
class StridedSlice(FoldableOpDef):
    """``input[begin:end:strides]`` per dimension with TF1's mask semantics."""

    attrs = {m: 0 for m in _MASKS}
    returns_view = (0,)

    def static_value(self, op):
        source = op.inputs[0]
        if source.op.type == "Shape" and source.value_index == 0 and source.shape.rank == 1:
            # tf.shape(x)[i]: known when the picked dimensions of x are known
            dims = source.op.inputs[0].shape.raw
            spec = [constant_value(t) for t in op.inputs[1:]]
            if dims is None or any(v is None for v in spec):
                return None
            known = np.array([-1 if d is None else d for d in dims], source.dtype.np_dtype)
            try:
                value = np.asarray(self.compute(known, *spec, **op.attrs))
            except (ValueError, IndexError):
                return None
            return None if (value < 0).any() else value
        return super().static_value(op)

    def infer(self, x, begin, end, strides, **masks):
        check_same_dtype(begin, end, strides, names=("begin", "end", "strides"))
        require_dtype(begin, INDEX, "begin")
        for t, arg in ((begin, "begin"), (end, "end"), (strides, "strides")):
            require_rank(t, 1, arg)
        n = _vector_length(begin, end, strides)
        if n is not None and n >= 32:
            raise ValueError(f"StridedSlice supports at most 31 slice entries, got {n}")
        if n is None or x.shape.rank is None:
            return unknown(x.dtype)
        spec = [_partial_values(t, n) for t in (begin, end, strides)]
        _, dims = _resolve(x.shape.raw, *spec, *(masks[m] for m in _MASKS))
        return Spec(x.dtype, dims)

    @staticmethod
    def compute(x, begin, end, strides, **masks):
        if not (begin.ndim == end.ndim == strides.ndim == 1
                and begin.size == end.size == strides.size):
            raise ValueError(f"Expected begin, end, and strides to be 1D equal size tensors, "
                             f"but got shapes {list(begin.shape)}, {list(end.shape)}, and "
                             f"{list(strides.shape)} instead.")
        index, _ = _resolve_cached(x.shape, tuple(begin.tolist()), tuple(end.tolist()),
                                   tuple(strides.tolist()), *(masks[m] for m in _MASKS))
        return x[index]

    def grad(self, op, dy):
        x, begin, end, strides = op.inputs
        shape = _shape.shape_vector(x, begin.dtype)
        return [strided_slice_grad(shape, begin, end, strides, dy, op.attrs), None, None, None]

    def onnx(self, ctx, op, x, begin, end, strides):
        values = [_onnx.int_input(ctx, t, name) for t, name in zip(op.inputs[1:],
                                                                     (begin, end, strides))]
        n = _vector_length(*op.inputs[1:])
        if n is None:
            if any(op.attrs[m] for m in _MASKS[2:]):
                ctx.unsupported("with an ellipsis, new axis or shrink mask the length of "
                                "begin/end/strides must be known while declaring (the masks "
                                "refer to their entries)")
            return _onnx.plain_strided_slice(ctx, x, *values, op.attrs["begin_mask"],
                                             op.attrs["end_mask"])
        return _onnx.strided_slice(ctx, x, op.inputs[0].shape.raw, n, *values,
                                   [op.attrs[m] for m in _MASKS], op.outputs[0].shape.raw)


@register
class StridedSliceGrad(OpDef):
    """Zeros of ``shape`` with ``dy`` written at ``[begin:end:strides]`` (the masks of the
    ``StridedSlice`` it differentiates)."""

    attrs = {m: 0 for m in _MASKS}

    def infer(self, shape, begin, end, strides, dy, **masks):
        check_same_dtype(shape, begin, end, strides, names=("shape", "begin", "end", "strides"))
        require_dtype(shape, INDEX, "shape")
        for t, arg in ((shape, "shape"), (begin, "begin"), (end, "end"), (strides, "strides")):
            require_rank(t, 1, arg)
        target = constant_value_as_shape(shape)
        if target.rank is None and shape.shape.raw is not None and shape.shape.raw[0] is not None:
            target = TensorShape([None] * shape.shape.raw[0])
        n = _vector_length(begin, end, strides)
        if target.rank is not None and n is not None and dy.shape.rank is not None:
            spec = [_partial_values(t, n) for t in (begin, end, strides)]
            _, dims = _resolve(target.raw, *spec, *(masks[m] for m in _MASKS))
            if not dy.shape.is_compatible_with(TensorShape(dims)):
                raise ValueError(f"dy of shape {dy.shape} does not match the slice of shape "
                                 f"{TensorShape(dims)} of {target}")
        return Spec(dy.dtype, target)

    @staticmethod
    def compute(shape, begin, end, strides, dy, **masks):
        shape = tuple(int(d) for d in shape)
        index, dims = _resolve_cached(shape, tuple(begin.tolist()), tuple(end.tolist()),
                                      tuple(strides.tolist()), *(masks[m] for m in _MASKS))
        if tuple(dims) != dy.shape:
            raise ValueError(f"dy of shape {list(dy.shape)} does not match the slice of shape "
                             f"{list(dims)} of {list(shape)}")
        out = np.zeros(shape, dy.dtype)
        out[index] = dy
        return out

    def grad(self, op, ddx):
        # TF1: the adjoint of writing dy into a slice is reading that slice.
        _, begin, end, strides, _ = op.inputs
        return [None, None, None, None, strided_slice(ddx, begin, end, strides, **op.attrs)]

    def onnx(self, ctx, op, shape, begin, end, strides, dy):
        n = _vector_length(*op.inputs[1:4])
        masks = [op.attrs[m] for m in _MASKS]
        if n is None and any(masks[2:]):
            ctx.unsupported("with an ellipsis, new axis or shrink mask the length of "
                            "begin/end/strides must be known while declaring (the masks "
                            "refer to their entries)")
        shape_value = _onnx.int_input(ctx, op.inputs[0], shape)
        dy_rank = op.inputs[4].shape.rank
        if isinstance(shape_value, str) and op.outputs[0].shape.rank is None \
                and dy_rank is not None and n is not None:
            # the output's rank follows from dy's: tell ONNX by fixing the shape's length
            rank = _onnx.sliced_rank(n, masks, dy_rank)
            shape_value = ctx.node("Reshape", [shape_value, ctx.int64s([rank])])
        values = [_onnx.int_input(ctx, t, name) for t, name in zip(op.inputs[1:4],
                                                                     (begin, end, strides))]
        return _onnx.strided_slice_grad(ctx, shape_value, op.outputs[0].shape.raw, dy,
                                        op.outputs[0].dtype, n, *values, masks,
                                        _resolve_cached)


def strided_slice_grad(shape, begin, end, strides, dy, masks, name=None):
    """``StridedSliceGrad``: ``dy`` written into zeros of ``shape`` at the slice.

    ``masks`` maps the mask attribute names of the ``StridedSlice`` differentiated
    (``begin_mask``, ...) to their values.
    """
    return apply_op("StridedSliceGrad", [shape, begin, end, strides, dy], dict(masks),
                    name=name)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """Extracts a strided slice of ``input_`` (TF1's ``tf.strided_slice``).

    Each bit ``i`` of a mask refers to entry ``i`` of ``begin``/``end``/``strides``:
    ``begin_mask``/``end_mask`` ignore that begin/end (full range), ``ellipsis_mask``
    marks ``...``, ``new_axis_mask`` inserts a size-1 dimension and
    ``shrink_axis_mask`` takes the single element ``begin[i]`` and drops the dimension.
    Negative indices count from the end; negative strides walk backwards.

    Args:
        input_: the tensor to slice.
        begin, end, strides: 1-D int32/int64 tensors of equal length (``strides``
            defaults to ones).
        begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask: int bitmasks.
        var: accepted for TF1 compatibility (slice assignment is not supported).
        name: op name (default ``"StridedSlice"``).

    Raises:
        ValueError: a constant index out of range on a known dimension, a zero stride,
            more than one ellipsis, or more entries than dimensions.

    Example:
        >>> tf.strided_slice(x, [0, 2], [0, -1], [1, -1], begin_mask=1, end_mask=1)  # x[:, 2::-1]
    """
    del var
    x = convert_to_tensor(input_)
    if strides is None:
        if is_tensor_like(begin):
            b = convert_to_tensor(begin)
            n = _vector_length(b)
            if n is None:
                strides = _array_fill.ones_like(b)
            else:
                strides = np.ones([n], b.dtype.np_dtype)
        else:
            strides = [1] * len(np.reshape(np.asarray(begin), -1))
    begin, end, strides = convert_same_dtype(begin, end, strides,
                                             names=("begin", "end", "strides"),
                                             op_type="StridedSlice", name=name)
    attrs = {"begin_mask": int(begin_mask), "end_mask": int(end_mask),
             "ellipsis_mask": int(ellipsis_mask), "new_axis_mask": int(new_axis_mask),
             "shrink_axis_mask": int(shrink_axis_mask)}
    return apply_op("StridedSlice", [x, begin, end, strides], attrs, name=name)


# -------------------------------------------------------------------- slice
def _slice_dims(shape, begin, size):
    """Output dims of Slice; ValueError for known out-of-range begin/size."""
    dims = []
    for i, (d, b, s) in enumerate(zip(shape, begin, size)):
        if b is not None and (b < 0 or (d is not None and b > d)):
            raise ValueError(f"Expected begin[{i}] in [0, {'?' if d is None else d}], "
                             f"but got {b}")
        if s is None:
            dims.append(None)
        elif s == -1:
            dims.append(d - b if d is not None and b is not None else None)
        elif s < -1 or (d is not None and b is not None and b + s > d):
            limit = "?" if d is None or b is None else d - b
            raise ValueError(f"Expected size[{i}] in [0, {limit}], but got {s}")
        else:
            dims.append(s)
    return dims


@register
class Slice(FoldableOpDef):
    """``input[begin[i]:begin[i] + size[i]]`` per dimension (size -1: to the end)."""

    returns_view = (0,)

    def infer(self, x, begin, size):
        check_same_dtype(begin, size, names=("begin", "size"))
        require_index_vector(begin, "begin")
        require_rank(size, 1, "size")
        n = _vector_length(begin, size)
        rank = x.shape.rank
        if rank is not None and n is not None and n != rank:
            raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size "
                             f"{rank}, but got shapes {begin.shape.as_proto_string()} and "
                             f"{size.shape.as_proto_string()} instead.")
        n = rank if n is None else n
        if n is None:
            return unknown(x.dtype)
        shape = x.shape.raw if rank is not None else (None,) * n
        return Spec(x.dtype, _slice_dims(shape, _partial_values(begin, n),
                                         _partial_values(size, n)))

    @staticmethod
    def compute(x, begin, size):
        if begin.shape != (x.ndim,) or size.shape != (x.ndim,):
            raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size "
                             f"{x.ndim}, but got shapes {list(begin.shape)} and "
                             f"{list(size.shape)} instead.")
        begin, size = begin.tolist(), size.tolist()
        dims = _slice_dims(x.shape, begin, size)
        return x[tuple(_pyslice(b, b + d) for b, d in zip(begin, dims)) + (Ellipsis,)]

    def grad(self, op, dy):
        # TF1: dy padded with begin zeros before and shape - size - begin after.
        x, begin, _ = op.inputs
        y = op.outputs[0]
        b = constant_value(begin)
        if b is not None and x.shape.is_fully_defined() and y.shape.is_fully_defined():
            before = np.asarray(b).reshape(-1)
            after = np.asarray(x.shape.raw) - np.asarray(y.shape.raw) - before
            paddings = np.stack([before, after], axis=1).astype(begin.dtype.np_dtype)
        else:
            itype = begin.dtype
            after = _shape.shape(x, out_type=itype) - _shape.shape(y, out_type=itype) - begin
            paddings = _combine.stack([begin, after], axis=1)
        return [_pad.pad(dy, paddings), None, None]

    def onnx(self, ctx, op, x, begin, size):
        return _onnx.slice_begin_size(ctx, x, _onnx.int_input(ctx, op.inputs[1], begin),
                                      _onnx.int_input(ctx, op.inputs[2], size))


def slice(input_, begin, size, name=None):  # noqa: A001 - TF1's name
    """Extracts ``input_[begin[i] : begin[i] + size[i]]`` along every dimension.

    Args:
        input_: the tensor to slice.
        begin: 1-D int32/int64, the start of each dimension (0 <= begin[i] <= dim).
        size: 1-D, same dtype, the number of elements per dimension; -1 takes the rest.
        name: op name (default ``"Slice"``).

    Raises:
        ValueError: known begin/size out of range or of the wrong length.

    Example:
        >>> tf.slice(x, [1, 0], [1, -1])  # the second row, as a [1, n] tensor
    """
    x = convert_to_tensor(input_)
    begin, size = convert_same_dtype(begin, size, names=("begin", "size"), op_type="Slice",
                                     name=name)
    return apply_op("Slice", [x, begin, size], name=name)
