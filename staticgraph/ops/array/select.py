"""Selection ops: ``BooleanMask``, ``TopKV2``, ``SequenceMask`` and ``Unique``.

Each op type is defined once here; the public functions keep TF1's names,
keywords and default op names (``top_k`` and ``unique`` return TF1's named tuples).
"""

from __future__ import annotations

import collections

import numpy as np

from ...graphlib import Tensor, TensorShape, as_dtype, dtypes
from . import scatter as _scatter
from . import shape as _shape
from . import index_onnx as _onnx
from ..math import misc as _misc
from ..convert import convert_to_tensor
from .index_args import as_index, dims_of, dims_product, known_int
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import (ALL, INDEX, INTS, NUMERIC, require_dtype, require_rank,
                           require_rank_at_least, unknown)
from ..static_value import constant_value

__all__ = ["boolean_mask", "top_k", "sequence_mask", "unique"]

_TopKOutput = collections.namedtuple("TopKV2", ["values", "indices"])
_UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])


# ------------------------------------------------------------- boolean_mask
@register
class BooleanMask(OpDef):
    """The slices of ``tensor`` where the k-D bool ``mask`` is true, at ``axis``."""

    attrs = {"axis": 0}
    default_name = "boolean_mask"

    def infer(self, tensor, mask, *, axis):
        require_dtype(mask, (dtypes.bool,), "mask")
        mr, tr = mask.shape.rank, tensor.shape.rank
        if mr == 0:
            raise ValueError("mask cannot be scalar.")
        if mr is None or tr is None:
            return unknown(tensor.dtype)
        ax = axis + tr if axis < 0 else axis
        if ax < 0 or ax + mr > tr:
            raise ValueError(f"mask of rank {mr} at axis {axis} does not fit a tensor of shape "
                             f"{tensor.shape.as_proto_string()}")
        part = TensorShape(tensor.shape.raw[ax:ax + mr])
        if not part.is_compatible_with(mask.shape):
            raise ValueError(f"Shapes {part} and {mask.shape} are incompatible")
        value = constant_value(mask)
        count = None if value is None else int(np.count_nonzero(value))
        return Spec(tensor.dtype, tensor.shape.raw[:ax] + (count,) + tensor.shape.raw[ax + mr:])

    @staticmethod
    def compute(tensor, mask, *, axis):
        ax = axis + tensor.ndim if axis < 0 else axis
        if mask.ndim == 0:
            raise ValueError("mask cannot be scalar.")
        if tensor.shape[ax:ax + mask.ndim] != mask.shape:
            raise ValueError(f"Shapes {list(tensor.shape[ax:ax + mask.ndim])} and "
                             f"{list(mask.shape)} are incompatible")
        return tensor[(slice(None),) * ax + (mask,)]

    def grad(self, op, dy):
        # TF1 gathers the flattened mask's true positions; the gradient adds dy back
        # there (zeros elsewhere): the adjoint of that gather.
        tensor, mask = op.inputs
        ax, mr, rank = op.attrs["axis"], mask.shape.rank, tensor.shape.rank
        itype = dtypes.int64
        kept = _shape.reshape(_misc.where(_shape.reshape(mask, [-1])), [-1])
        if ax < 0 and rank is not None:
            ax += rank
        full = None
        if ax >= 0:
            pre = dims_of(tensor, 0, ax, itype)
            at = ax
        else:
            full = _shape.shape(tensor, out_type=itype)
            at = _shape.size(full, out_type=itype) + ax
            pre = full[:at]
        if mr is not None:
            depth = dims_product(dims_of(mask, 0, None, itype), itype)
        else:
            depth = _shape.size(mask, out_type=itype)
        if isinstance(at, int) and mr is not None:
            inner = dims_of(tensor, at + mr, None, itype)
        else:
            full = _shape.shape(tensor, out_type=itype) if full is None else full
            inner = full[as_index(at, itype) + as_index(
                _shape.rank(mask) if mr is None else mr, itype):]
        count = dy.shape.raw[at] if dy.shape.rank is not None and isinstance(at, int) else None
        return [_scatter.scatter_gathered(dy, kept, 1, dims_product(pre, itype), depth, inner,
                                          count, tensor), None]

    def onnx(self, ctx, op, tensor, mask):
        # Compress along the axis; a k-D mask first merges the k masked axes into one.
        ax, mr, rank = op.attrs["axis"], op.inputs[1].shape.rank, op.inputs[0].shape.rank
        if mr is None:
            ctx.unsupported("the mask's rank must be known while declaring")
        if mr == 1:
            return ctx.node("Compress", [tensor, mask], axis=ax)
        if ax < 0:
            if rank is None:
                ctx.unsupported("a negative axis with a mask of rank > 1 needs a tensor of "
                                "known rank")
            ax += rank
        dims = op.inputs[0].shape.raw
        if dims is not None and all(d is not None for d in dims[ax + mr:]):
            inner = np.asarray(dims[ax + mr:], np.int64)
        else:
            inner = ctx.node("Shape", [tensor], start=ax + mr)
        merged = ctx.node("Reshape", [tensor, _onnx.as_name(ctx, _onnx.concat(
            ctx, [np.array([0] * ax + [-1], np.int64), inner]))])
        flat = ctx.node("Reshape", [mask, ctx.int64s([-1])])
        return ctx.node("Compress", [merged, flat], axis=ax)


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (slices) of ``tensor`` where ``mask`` is true.

    With a k-D ``mask`` at ``axis``, dimensions ``axis .. axis+k-1`` of ``tensor`` are
    replaced by one dimension holding the selected slices (size known at run time).

    Args:
        tensor: N-D tensor.
        mask: K-D bool tensor, K <= N, shape matching ``tensor.shape[axis:axis+K]``.
        name: op name.
        axis: first dimension of ``tensor`` the mask applies to (default 0).

    Raises:
        ValueError: a scalar mask or a mask shape that does not match.

    Example:
        >>> tf.boolean_mask([[1, 2], [3, 4]], [True, False])  # [[1, 2]]
    """
    tensor = convert_to_tensor(tensor)
    mask = convert_to_tensor(mask)
    axis = 0 if axis is None else int(axis)
    return apply_op("BooleanMask", [tensor, mask], {"axis": axis}, name=name)


# -------------------------------------------------------------------- top_k
def _descending(values):
    """Stable descending argsort along the last axis (ties: lower index first)."""
    k = values.shape[-1]
    order = np.argsort(values[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return k - 1 - order


def _top_k(x, k):
    n = x.shape[-1]
    rows = int(np.prod(x.shape[:-1]))
    flat = x.reshape(rows, n)
    if k == 0 or rows == 0:
        return (np.zeros((rows, k), x.dtype), np.zeros((rows, k), np.int64))
    cols = None
    if k < n:
        t = np.partition(flat, n - k, axis=1)[:, n - k:n - k + 1]
        gt = flat > t
        eq = flat == t
        need = k - np.count_nonzero(gt, axis=1, keepdims=True)
        selected = gt | (eq & (np.cumsum(eq, axis=1) <= need))
        chosen = np.nonzero(selected)[1]
        if chosen.size == rows * k:  # NaNs break the threshold; sort fully below
            cols = chosen.reshape(rows, k)
    if cols is None:
        cols = _descending(flat)[:, :k]
    vals = np.take_along_axis(flat, cols, axis=1)
    order = _descending(vals)
    return np.take_along_axis(vals, order, axis=1), np.take_along_axis(cols, order, axis=1)


@register
class TopKV2(OpDef):
    """The ``k`` largest entries of the last axis and their int32 indices."""

    attrs = {"sorted": True}

    def infer(self, x, k, *, sorted):  # noqa: A002 - TF1's attribute
        require_dtype(x, NUMERIC, "input")
        require_dtype(k, (dtypes.int32,), "k")
        require_rank(k, 0, "k")
        kv = known_int(k)
        if kv is not None and kv < 0:
            raise ValueError(f"Need k >= 0, got {kv}")
        require_rank_at_least(x, 1, "input")
        if x.shape.rank is None:
            return [unknown(x.dtype), unknown(dtypes.int32)]
        last = x.shape.raw[-1]
        if kv is not None and last is not None and last < kv:
            raise ValueError(f"input must have last dimension >= k = {kv} but is {last}")
        dims = x.shape.raw[:-1] + (kv,)
        return [Spec(x.dtype, dims), Spec(dtypes.int32, dims)]

    @staticmethod
    def compute(x, k, *, sorted):  # noqa: A002 - TF1's attribute
        k = int(k)
        if k < 0:
            raise ValueError(f"Need k >= 0, got {k}")
        if x.ndim < 1:
            raise ValueError("input must be at least 1-D")
        if x.shape[-1] < k:
            raise ValueError(f"input must have at least k columns. Had {x.shape[-1]}, "
                             f"needed {k}")
        values, indices = _top_k(x, k)
        shape = x.shape[:-1] + (k,)
        return values.reshape(shape), indices.astype(np.int32).reshape(shape)

    def grad(self, op, dvalues, dindices):
        # TF1: dvalues scattered (added) back to the positions the values came from.
        x, k = op.inputs
        indices = op.outputs[1]
        itype = dtypes.int32
        rows = dims_product(dims_of(x, 0, -1, itype), itype)
        depth = dims_of(x, -1, None, itype)[0]
        count = known_int(k)
        return [_scatter.scatter_gathered(dvalues, indices, rows, 1, depth, [], count, x), None]

    def onnx(self, ctx, op, x, k):
        # ONNX TopK (largest, sorted): onnxruntime puts the lower index first among
        # ties, as TF does; indices int64 -> int32.
        kv = known_int(op.inputs[1])
        kk = ctx.int64s([kv]) if kv is not None else \
            ctx.node("Reshape", [ctx.to_int64(k, op.inputs[1].dtype), ctx.int64s([1])])
        values, indices = ctx.node("TopK", [x, kk], outputs=2, axis=-1, largest=1, sorted=1)
        return [values, ctx.cast(indices, dtypes.int32, dtypes.int64)]


def top_k(input, k=1, sorted=True, name=None):  # noqa: A002 - TF1's keywords
    """The ``k`` largest entries along the last dimension, and their indices.

    Ties are broken by index: the lower index comes first.

    Args:
        input: numeric tensor of rank >= 1.
        k: scalar int32, number of entries (<= the last dimension).
        sorted: if True, values come in descending order.
        name: op name (default ``"TopKV2"``).

    Returns:
        A namedtuple ``(values, indices)``; indices are int32.

    Raises:
        ValueError: k negative or larger than the last dimension.

    Example:
        >>> values, indices = tf.nn.top_k([1., 3., 2.], k=2)  # [3., 2.], [1, 2]
    """
    x = convert_to_tensor(input)
    k = convert_to_tensor(k, dtype=None if isinstance(k, Tensor) else dtypes.int32)
    values, indices = apply_op("TopKV2", [x, k], {"sorted": bool(sorted)}, name=name)
    return _TopKOutput(values, indices)


# ------------------------------------------------------------ sequence_mask
@register
class SequenceMask(OpDef):
    """``range(maxlen) < lengths[..., None]`` cast to ``dtype`` (maxlen: max of lengths)."""

    attrs = {"dtype": dtypes.bool}
    differentiable = False

    def infer(self, lengths, maxlen=None, *, dtype):
        require_dtype(lengths, INTS, "lengths")
        if maxlen is not None:
            require_dtype(maxlen, INTS, "maxlen")
            if maxlen.shape.rank not in (None, 0):
                raise ValueError("maxlen must be scalar for sequence_mask")
            m = known_int(maxlen)
        else:
            value = constant_value(lengths)
            m = None if value is None else int(np.max(value, initial=0))
        if m is not None and m < 0:
            raise ValueError(f"maxlen must be non-negative, got {m}")
        if lengths.shape.rank is None:
            return unknown(dtype)
        return Spec(dtype, lengths.shape.raw + (m,))

    @staticmethod
    def compute(lengths, maxlen=None, *, dtype):
        m = int(maxlen) if maxlen is not None else int(np.max(lengths, initial=0))
        if m < 0:
            raise ValueError(f"maxlen must be non-negative, got {m}")
        out = np.arange(m) < lengths[..., None]
        return out if dtype is dtypes.bool else out.astype(dtype.np_dtype)

    def onnx(self, ctx, op, lengths, maxlen=None):
        # Range(maxlen) < lengths[..., None]; maxlen defaults to max(lengths, 0).
        ltype = op.inputs[0].dtype
        mtype = op.inputs[1].dtype if maxlen is not None else ltype
        work = np.int32 if ltype is mtype is dtypes.int32 else np.int64
        if maxlen is not None:
            m = known_int(op.inputs[1])
        else:
            value = constant_value(op.inputs[0])
            m = None if value is None else int(np.max(value, initial=0))
        lengths = ctx.cast(lengths, work, ltype)
        if m is not None:
            positions = ctx.const(np.arange(m, dtype=work))
        else:
            if maxlen is not None:
                limit = ctx.cast(maxlen, work, mtype)
            else:
                limit = ctx.node("Max", [ctx.node("ReduceMax", [lengths], keepdims=0),
                                         ctx.scalar(0, work)])
            positions = ctx.node("Range", [ctx.scalar(0, work), limit,
                                           ctx.scalar(1, work)])
        out = ctx.node("Less", [positions, ctx.node("Unsqueeze", [lengths, ctx.int64s([-1])])])
        return ctx.cast(out, op.attrs["dtype"], dtypes.bool)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """A mask of the first ``lengths[i]`` positions of each row.

    ``mask[i..., j] = j < lengths[i...]``, with shape ``lengths.shape + [maxlen]``.

    Args:
        lengths: integer tensor of lengths.
        maxlen: scalar integer, the mask length (default ``max(lengths)``).
        dtype: output dtype (default bool).
        name: op name (default ``"SequenceMask"``).

    Raises:
        ValueError: maxlen that is not a scalar.

    Example:
        >>> tf.sequence_mask([1, 3], 4)  # [[T, F, F, F], [T, T, T, F]]
    """
    lengths = convert_to_tensor(lengths)
    inputs = [lengths]
    if maxlen is not None:
        inputs.append(convert_to_tensor(maxlen, preferred_dtype=lengths.dtype))
    return apply_op("SequenceMask", inputs, {"dtype": as_dtype(dtype)}, name=name)


# ------------------------------------------------------------------- unique
@register
class Unique(OpDef):
    """Distinct values of a 1-D tensor in order of first occurrence, and each one's slot."""

    attrs = {"out_idx": dtypes.int32}
    differentiable = False

    def infer(self, x, *, out_idx):
        require_dtype(x, ALL + (dtypes.string,), "x")
        if out_idx not in INDEX:
            raise TypeError(f"out_idx must be int32 or int64, got {out_idx.name}")
        rank = x.shape.rank
        if rank is not None and rank != 1:
            raise ValueError("unique expects a 1D vector.")
        n = None if rank is None else x.shape.raw[0]
        return [Spec(x.dtype, [n if n in (0, 1) else None]), Spec(out_idx, [n])]

    @staticmethod
    def compute(x, *, out_idx):
        if x.ndim != 1:
            raise ValueError("unique expects a 1D vector.")
        _, first, inverse = np.unique(x, return_index=True, return_inverse=True,
                                      equal_nan=False)
        order = np.argsort(first, kind="stable")
        slot = np.empty_like(order)
        slot[order] = np.arange(order.size)
        return x[first[order]], slot[inverse.reshape(-1)].astype(out_idx.np_dtype)

    def onnx(self, ctx, op, x):
        # ONNX Unique, unsorted: first-occurrence order, inverse indices int64.
        dtype = op.inputs[0].dtype
        work = dtype if dtype.name in _UNIQUE_DTYPES else dtypes.int64
        y, _, idx = ctx.node("Unique", [ctx.cast(x, work, dtype)], outputs=3, sorted=0)
        return [ctx.cast(y, dtype, work), ctx.cast(idx, op.attrs["out_idx"], dtypes.int64)]


# onnxruntime's Unique kernels; other dtypes go through int64 (exact both ways)
_UNIQUE_DTYPES = ("float16", "float32", "float64", "int8", "int64", "string")


def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of 1-D ``x`` in order of first occurrence, and their slots.

    Returns a namedtuple ``(y, idx)`` with ``x == gather(y, idx)``; ``y`` is *not*
    sorted (TF1's semantics).

    Args:
        x: 1-D tensor.
        out_idx: dtype of ``idx`` (int32 or int64).
        name: op name (default ``"Unique"``).

    Raises:
        ValueError: ``x`` not 1-D.

    Example:
        >>> y, idx = tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])  # y=[1,2,4,7,8]
    """
    y, idx = apply_op("Unique", [convert_to_tensor(x)], {"out_idx": as_dtype(out_idx)},
                      name=name)
    return _UniqueOutput(y, idx)
