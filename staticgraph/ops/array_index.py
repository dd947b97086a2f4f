"""Indexing ops: slicing (``tensor[...]``), gathers, one-hot, masks, top-k and unique.

Op types: ``Slice``, ``StridedSlice``, ``GatherV2``, ``GatherNd``, ``OneHot``,
``BooleanMask``, ``TopKV2``, ``SequenceMask``, ``Unique``. ``slice_helper``
implements ``tensor[key]`` with TF1's rules (one ``StridedSlice`` op named
``strided_slice``); the Python operator is installed by :mod:`.operators`.
"""

from __future__ import annotations

import builtins
import collections
import functools
import numbers

import numpy as np

from ..graphlib import Dimension, Tensor, TensorShape, as_dtype, dtypes, name_scope
from .convert import constant, convert_same_dtype, convert_to_tensor
from .registry import OpDef, Spec, apply_op, register
from .shape_rules import ALL, INTS, NUMERIC, check_same_dtype, require_dtype, unknown
from .static_value import constant_value

from . import array_combine as _combine
from . import math_misc as _math_misc

__all__ = ["slice", "strided_slice", "gather", "gather_nd", "one_hot", "boolean_mask",
           "top_k", "sequence_mask", "unique"]

_pyslice = builtins.slice
INDEX = (dtypes.int32, dtypes.int64)
_FOLD_LIMIT = 1 << 16  # largest constant input folded while declaring

_TopKOutput = collections.namedtuple("TopKV2", ["values", "indices"])
_UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])


# ----------------------------------------------------------------- helpers
def _require_rank(t, rank, arg):
    r = t.shape.rank
    if r is not None and r != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {r} for '{arg}' "
                         f"(shape {t.shape.as_proto_string()})")


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


def _scalar_value(t):
    v = constant_value(t)
    return None if v is None or np.ndim(v) != 0 else int(v)


def _position(index):
    return ",".join(str(int(i)) for i in index)


class _Foldable(OpDef):
    """Ops whose value is computed while declaring when all inputs are small constants."""

    def static_value(self, op):
        values = [constant_value(t) for t in op.inputs]
        if any(v is None or np.size(v) > _FOLD_LIMIT for v in values):
            return None
        try:
            return np.asarray(self.compute(*values, **op.attrs))
        except (ValueError, IndexError, TypeError):
            return None


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
class StridedSlice(_Foldable):
    """``input[begin:end:strides]`` per dimension with TF1's mask semantics."""

    attrs = {m: 0 for m in _MASKS}
    returns_view = True

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
            _require_rank(t, 1, arg)
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
        if isinstance(begin, Tensor) or hasattr(begin, "_as_graph_tensor"):
            b = convert_to_tensor(begin)
            n = _vector_length(b)
            if n is None:
                from . import array_shape as _array_shape
                strides = _array_shape.ones_like(b)
            else:
                strides = np.ones([n], b.dtype.np_dtype)
        else:
            strides = [1] * len(np.reshape(np.asarray(begin), -1))
    begin, end, strides = convert_same_dtype(begin, end, strides,
                                             names=("begin", "end", "strides"))
    attrs = {"begin_mask": int(begin_mask), "end_mask": int(end_mask),
             "ellipsis_mask": int(ellipsis_mask), "new_axis_mask": int(new_axis_mask),
             "shrink_axis_mask": int(shrink_axis_mask)}
    return apply_op("StridedSlice", [x, begin, end, strides], attrs, name=name)


_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")


def _check_index(idx):
    """The index as an int or an int32/int64 scalar tensor; TypeError otherwise."""
    if isinstance(idx, Dimension):
        return int(idx)
    if isinstance(idx, numbers.Integral) and not isinstance(idx, np.generic):
        return int(idx)
    if hasattr(idx, "_as_graph_tensor"):
        idx = convert_to_tensor(idx)
    if isinstance(idx, Tensor):
        if idx.dtype not in INDEX or (idx.shape.rank not in (None, 0)):
            raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")
        return idx
    if isinstance(idx, np.generic) and np.dtype(idx.dtype).kind in "iu":
        return int(idx)
    if isinstance(idx, np.ndarray) and idx.ndim == 0 and idx.dtype.kind in "iu":
        return int(idx)
    raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _pack(values, dtype, name):
    """A 1-D index vector of ``dtype`` from ints and scalar tensors (one Const when possible)."""
    if not any(isinstance(v, Tensor) for v in values):
        return constant(np.asarray(values, dtype=dtype.np_dtype), name=name)
    items = []
    for v in values:
        if isinstance(v, Tensor):
            items.append(v if v.dtype is dtype else _math_misc.cast(v, dtype))
        else:
            items.append(constant(np.asarray(v, dtype=dtype.np_dtype)))
    return _combine.stack(items, name=name)


def slice_helper(tensor, slice_spec, var=None):
    """``tensor[slice_spec]`` as TF1 does it: one ``StridedSlice`` op named ``strided_slice``.

    Accepts ints (negative count from the end), slices (with tensor bounds and negative
    steps), ``...``, ``None`` (``tf.newaxis``) and scalar int32/int64 tensors. A bool
    tensor or array as the whole key is a ``boolean_mask``.

    Raises:
        TypeError: for other kinds of index (floats, lists of lists, ...).
        ValueError: a constant index out of range on a known dimension.

    Example:
        >>> x[1:, ::-1, tf.newaxis, -1]
    """
    tensor = convert_to_tensor(tensor)
    if (isinstance(slice_spec, bool)
            or (isinstance(slice_spec, Tensor) and slice_spec.dtype is dtypes.bool)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == np.bool_)):
        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, _pyslice):
            if s.start is not None:
                begin.append(_check_index(s.start))
            else:
                begin.append(0)
                begin_mask |= bit
            if s.stop is not None:
                end.append(_check_index(s.stop))
            else:
                end.append(0)
                end_mask |= bit
            strides.append(1 if s.step is None else _check_index(s.step))
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        else:
            s = _check_index(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            shrink_axis_mask |= bit
    values = [tensor] + [v for v in begin + end + strides if isinstance(v, Tensor)]
    with name_scope(None, "strided_slice", values) as name:
        if begin:
            flat = begin + end + strides
            wide = any(isinstance(v, Tensor) and v.dtype is dtypes.int64 for v in flat) or any(
                not isinstance(v, Tensor) and not -2**31 <= v < 2**31 for v in flat)
            dtype = dtypes.int64 if wide else dtypes.int32
            packed = [_pack(v, dtype, "stack") for v in (begin, end, strides)]
        else:
            empty = constant(np.zeros([0], np.int32))
            packed = [empty, empty, empty]
        return strided_slice(tensor, *packed, begin_mask=begin_mask, end_mask=end_mask,
                             ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                             shrink_axis_mask=shrink_axis_mask, var=var, name=name)


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
class Slice(_Foldable):
    """``input[begin[i]:begin[i] + size[i]]`` per dimension (size -1: to the end)."""

    returns_view = True

    def infer(self, x, begin, size):
        check_same_dtype(begin, size, names=("begin", "size"))
        require_dtype(begin, INDEX, "begin")
        _require_rank(begin, 1, "begin")
        _require_rank(size, 1, "size")
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
    begin, size = convert_same_dtype(begin, size, names=("begin", "size"))
    return apply_op("Slice", [x, begin, size], name=name)


# ------------------------------------------------------------------- gather
def _check_range(indices, limit):
    """IndexError naming the first index outside ``[0, limit)``."""
    if indices.size and (indices.min() < 0 or indices.max() >= limit):
        pos = np.argwhere((indices < 0) | (indices >= limit))[0]
        raise IndexError(f"indices[{_position(pos)}] = {indices[tuple(pos)]} is not in "
                         f"[0, {limit})")


def _merge_batch(params, indices, b):
    """The leading ``b`` dims of params and indices, merged (ValueError when they differ)."""
    try:
        return TensorShape(params.shape.raw[:b]).merge_with(TensorShape(indices.shape.raw[:b]))
    except ValueError:
        raise ValueError(f"params.shape[:{b}] should match indices.shape[:{b}], but got "
                         f"{params.shape.as_proto_string()} and "
                         f"{indices.shape.as_proto_string()}") from None


@register
class GatherV2(_Foldable):
    """Slices of ``params`` along ``axis`` at ``indices`` (with ``batch_dims`` leading batches)."""

    attrs = {"batch_dims": 0}

    def static_value(self, op):
        if constant_value(op.inputs[0]) is None:
            return None
        return super().static_value(op)

    def infer(self, params, indices, axis, *, batch_dims):
        require_dtype(indices, INDEX, "indices")
        require_dtype(axis, INDEX, "axis")
        _require_rank(axis, 0, "axis")
        pr, ir = params.shape.rank, indices.shape.rank
        if pr == 0:
            raise ValueError("params must be at least 1 dimensional")
        b = batch_dims
        if b < 0:
            if ir is None:
                return unknown(params.dtype)
            b += ir
        if ir is not None and not 0 <= b <= ir:
            raise ValueError(f"Expected batch_dims in the range [{-ir}, {ir}], but got "
                             f"{batch_dims}")
        a = _scalar_value(axis)
        if pr is None or ir is None or a is None:
            if pr is not None and ir is not None:
                return Spec(params.dtype, [None] * (pr - 1 + ir - b))
            return unknown(params.dtype)
        if not -pr <= a < pr:
            raise ValueError(f"Expected axis in the range [{-pr}, {pr}), but got {a}")
        a %= pr
        if b > a:
            raise ValueError(f"batch_dims ({b}) must be less than or equal to axis ({a}).")
        batch = _merge_batch(params, indices, b)
        dims = (batch.raw + params.shape.raw[b:a] + indices.shape.raw[b:]
                + params.shape.raw[a + 1:])
        return Spec(params.dtype, dims)

    @staticmethod
    def compute(params, indices, axis, *, batch_dims):
        axis = int(axis)
        if not -params.ndim <= axis < params.ndim:
            raise ValueError(f"Expected axis in the range [{-params.ndim}, {params.ndim}), "
                             f"but got {axis}")
        axis %= params.ndim
        b = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
        _check_range(indices, params.shape[axis])
        if b == 0:
            return np.asarray(np.take(params, indices, axis=axis))
        if params.shape[:b] != indices.shape[:b]:
            raise ValueError(f"params.shape[:{b}] should match indices.shape[:{b}], but got "
                             f"{list(params.shape)} and {list(indices.shape)}")
        batch, mid = params.shape[:b], params.shape[b:axis]
        bt, m = int(np.prod(batch)), int(np.prod(mid))
        p = params.reshape((bt, m, params.shape[axis]) + params.shape[axis + 1:])
        idx = indices.reshape(bt, -1)
        out = p[np.arange(bt)[:, None, None], np.arange(m)[None, :, None], idx[:, None, :]]
        return out.reshape(batch + mid + indices.shape[b:] + params.shape[axis + 1:])


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Gathers slices of ``params`` along ``axis`` at ``indices`` (TF1's ``tf.gather``).

    The output shape is ``params.shape[:axis] + indices.shape[batch_dims:] +
    params.shape[axis + 1:]``.

    Args:
        params: the tensor to gather from (rank >= 1).
        indices: int32/int64 tensor of indices in ``[0, params.shape[axis])``.
        validate_indices: deprecated, ignored (indices are always validated).
        name: op name (default ``"GatherV2"``).
        axis: the dimension of ``params`` to gather from (default ``batch_dims``).
        batch_dims: number of leading batch dimensions shared by params and indices.

    Raises:
        ValueError: bad axis/batch_dims while declaring; at run time an index out of
            range fails with ``indices[i] = v is not in [0, n)``.
    """
    del validate_indices
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    if axis is None:
        axis = batch_dims
    return apply_op("GatherV2", [params, indices, axis], {"batch_dims": int(batch_dims)},
                    name=name)


@register
class GatherNd(OpDef):
    """Slices of ``params`` at the index tuples along the last axis of ``indices``."""

    attrs = {"batch_dims": 0}

    def infer(self, params, indices, *, batch_dims):
        require_dtype(indices, INDEX, "indices")
        pr, ir = params.shape.rank, indices.shape.rank
        if ir == 0:
            raise ValueError("indices must be at least 1 dimensional")
        b = batch_dims
        if ir is None or pr is None or indices.shape.raw[-1] is None:
            return unknown(params.dtype)
        q = indices.shape.raw[-1]
        if b < 0 or b >= ir:
            raise ValueError(f"batch_dims ({b}) must be in [0, {ir})")
        if b + q > pr:
            raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
                             f"{indices.shape.as_proto_string()} and params shape: "
                             f"{params.shape.as_proto_string()}")
        batch = _merge_batch(params, indices, b)
        return Spec(params.dtype, batch.raw + indices.shape.raw[b:-1] + params.shape.raw[b + q:])

    @staticmethod
    def compute(params, indices, *, batch_dims):
        b, q = batch_dims, indices.shape[-1]
        if b + q > params.ndim:
            raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices "
                             f"shape: {list(indices.shape)} and params shape: "
                             f"{list(params.shape)}")
        if params.shape[:b] != indices.shape[:b]:
            raise ValueError(f"params.shape[:{b}] should match indices.shape[:{b}], but got "
                             f"{list(params.shape)} and {list(indices.shape)}")
        limits = np.asarray(params.shape[b:b + q])
        if indices.size and q:
            bad = ((indices < 0) | (indices >= limits)).any(axis=-1)
            if bad.any():
                pos = np.argwhere(bad)[0]
                row = ", ".join(str(v) for v in indices[tuple(pos)].tolist())
                raise IndexError(f"indices[{_position(pos)}] = [{row}] does not index into "
                                 f"param shape [{','.join(map(str, params.shape))}]")
        batch = params.shape[:b]
        bt = int(np.prod(batch))
        p = params.reshape((bt,) + params.shape[b:])
        idx = indices.reshape((bt,) + indices.shape[b:])
        mid = idx.shape[1:-1]
        if q == 0:
            out = np.broadcast_to(p[(_pyslice(None),) + (None,) * len(mid)],
                                  (bt,) + mid + p.shape[1:]).copy()
        else:
            rows = np.arange(bt).reshape((bt,) + (1,) * len(mid))
            out = p[(rows,) + tuple(idx[..., j] for j in range(q))]
        return out.reshape(batch + mid + params.shape[b + q:])


def gather_nd(params, indices, name=None, batch_dims=0):
    """Gathers slices of ``params`` at the index tuples in the last axis of ``indices``.

    The output shape is ``indices.shape[:-1] + params.shape[indices.shape[-1]:]``
    (after ``batch_dims`` shared leading dimensions).

    Args:
        params: the tensor to gather from.
        indices: int32/int64 tensor, last dimension at most ``rank(params)``.
        name: op name (default ``"GatherNd"``).
        batch_dims: number of leading batch dimensions.

    Raises:
        ValueError: indices.shape[-1] larger than the rank of params; at run time an
            index out of range fails naming it.
    """
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    return apply_op("GatherNd", [params, indices], {"batch_dims": int(batch_dims)}, name=name)


# ------------------------------------------------------------------ one_hot
@register
class OneHot(OpDef):
    """``on_value`` where ``indices == j`` along a new ``depth`` axis, ``off_value`` elsewhere."""

    attrs = {"axis": -1}
    differentiable = False

    def infer(self, indices, depth, on_value, off_value, *, axis):
        require_dtype(indices, (dtypes.uint8, dtypes.int32, dtypes.int64), "indices")
        require_dtype(depth, (dtypes.int32,), "depth")
        check_same_dtype(on_value, off_value, names=("on_value", "off_value"))
        for t, arg in ((depth, "depth"), (on_value, "on_value"), (off_value, "off_value")):
            _require_rank(t, 0, arg)
        d = _scalar_value(depth)
        if d is not None and d < 0:
            raise ValueError(f"depth must be non-negative, got: {d}")
        rank = indices.shape.rank
        if rank is None:
            return unknown(on_value.dtype)
        if not -1 <= axis <= rank:
            raise ValueError(f"Expected axis to be -1 or between [0, {rank}].  But received: "
                             f"{axis}")
        dims = list(indices.shape.raw)
        dims.insert(rank if axis == -1 else axis, d)
        return Spec(on_value.dtype, dims)

    @staticmethod
    def compute(indices, depth, on_value, off_value, *, axis):
        depth = int(depth)
        if depth < 0:
            raise ValueError(f"depth must be non-negative, got: {depth}")
        hit = indices[..., None] == np.arange(depth)
        out = np.where(hit, on_value, off_value)
        if axis != -1 and axis != indices.ndim:
            out = np.ascontiguousarray(np.moveaxis(out, -1, axis))
        return out


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A one-hot tensor: ``on_value`` at ``indices`` along a new axis of size ``depth``.

    Indices that are negative or >= ``depth`` give rows of ``off_value`` only.

    Args:
        indices: uint8/int32/int64 tensor.
        depth: scalar int, the size of the new axis.
        on_value, off_value: scalars (default 1 and 0), of one dtype.
        axis: where the new axis goes (default -1: last).
        dtype: output dtype; inferred from on/off values when given, else float32.
        name: op name (default ``"one_hot"``).

    Raises:
        TypeError: on_value/off_value dtypes that differ from each other or ``dtype``.

    Example:
        >>> tf.one_hot([0, 2, -1], 3)  # [[1,0,0],[0,0,1],[0,0,0]]
    """
    dtype = None if dtype is None else as_dtype(dtype)
    axis = -1 if axis is None else int(axis)
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value]) as scope:
        on = None if on_value is None else convert_to_tensor(on_value, preferred_dtype=dtype,
                                                              name="on_value")
        off = None if off_value is None else convert_to_tensor(off_value, preferred_dtype=dtype,
                                                                name="off_value")
        if dtype is not None:
            for t, arg in ((on, "on_value"), (off, "off_value")):
                if t is not None and t.dtype is not dtype:
                    raise TypeError(f"dtype {t.dtype.name} of {arg} does not match dtype "
                                    f"parameter {dtype.name}")
        elif on is not None or off is not None:
            dtype = on.dtype if on is not None else off.dtype
        else:
            dtype = dtypes.float32
        if on is not None and off is not None and on.dtype is not off.dtype:
            raise TypeError(f"dtype {on.dtype.name} of on_value does not match dtype "
                            f"{off.dtype.name} of off_value")
        if on is None:
            on = constant(np.asarray(1, dtype.np_dtype), name="on_value")
        if off is None:
            off = constant(np.asarray(0, dtype.np_dtype), name="off_value")
        indices = convert_to_tensor(indices)
        depth = convert_to_tensor(depth, dtype=dtypes.int32
                                  if not isinstance(depth, Tensor) else None, name="depth")
        return apply_op("OneHot", [indices, depth, on, off], {"axis": axis}, name=scope)


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
        return tensor[(_pyslice(None),) * ax + (mask,)]


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
        _require_rank(k, 0, "k")
        kv = _scalar_value(k)
        if kv is not None and kv < 0:
            raise ValueError(f"Need k >= 0, got {kv}")
        rank = x.shape.rank
        if rank is None:
            return [unknown(x.dtype), unknown(dtypes.int32)]
        if rank < 1:
            raise ValueError("Shape must be at least rank 1 but is rank 0 for 'input'")
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
            m = _scalar_value(maxlen)
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
