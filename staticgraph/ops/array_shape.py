"""Array shape ops: reshape, transpose, expand_dims, squeeze, shape, fill, range, pad, ...

Each op type is defined once here (inference, numpy kernel, static value); the
public functions keep TF1's names, keywords and default op names. Ops whose shape
or axis argument is a tensor (``Reshape``, ``Fill``, ``Tile``, ...) infer static
shapes from its value when that is known while declaring.
"""

from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

from ..graphlib import Tensor, TensorShape, as_dtype, dtypes, name_scope
from . import array_combine as _array_combine
from . import math_binary as _math_binary
from . import math_misc as _math_misc
from .convert import constant, convert_same_dtype, convert_to_tensor, to_numpy_constant
from .registry import OpDef, Spec, apply_op, register
from .shape_rules import FLOATS, require_dtype, same_as
from .static_value import constant_value, constant_value_as_shape

__all__ = ["reshape", "transpose", "expand_dims", "squeeze", "shape", "size", "rank", "fill",
           "zeros", "ones", "zeros_like", "ones_like", "range", "linspace", "lin_space",
           "stop_gradient", "broadcast_to", "tile", "pad", "reverse", "reverse_v2", "meshgrid"]

INDEX = (dtypes.int32, dtypes.int64)
RANGE_TYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)
STATIC_LIMIT = 4096  # largest output (elements) computed while declaring


# ----------------------------------------------------------------- helpers
def fold(op):
    """The op's output computed from its inputs' static values, if all are known and small."""
    n = op.outputs[0].shape.num_elements() if op.outputs else None
    if n is None or n > STATIC_LIMIT:
        return None
    values = []
    for t in op.inputs:
        v = constant_value(t)
        if v is None or np.size(v) > STATIC_LIMIT:
            return None
        values.append(np.asarray(v))
    try:
        out = op.op_def.compute(*values, **op.attrs)
    except (ValueError, TypeError, IndexError, ArithmeticError):
        return None  # the error is raised when the graph runs
    return out if isinstance(out, np.ndarray) else None


def _require_rank(t, rank, arg):
    r = t.shape.rank
    if r is not None and r != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {r} for argument '{arg}' "
                         f"(shape {t.shape})")


def _ints(value):
    return [int(v) for v in np.reshape(value, -1)]


def _scalar_int(value, arg):
    flat = np.reshape(value, -1)
    if flat.size != 1:
        raise ValueError(f"'{arg}' must be a tensor with a single value, got {flat.size}")
    return int(flat[0])


def _dim_reference(t, x):
    """For ``t = tf.shape(y)[i]``: y's dim i when known, ``("dim", i)`` when ``y is x``."""
    op = t.op
    if op.type != "StridedSlice" or t.value_index != 0 or op.inputs[0].op.type != "Shape":
        return None
    a = op.attrs
    if (not a.get("shrink_axis_mask", 0) & 1 or a.get("ellipsis_mask", 0)
            or a.get("new_axis_mask", 0) or a.get("begin_mask", 0) & 1):
        return None
    begin = constant_value(op.inputs[1]) if len(op.inputs) > 1 else a.get("begin")
    if begin is None or np.size(begin) < 1:
        return None
    i = int(np.reshape(begin, -1)[0])
    src = op.inputs[0].op.inputs[0]
    raw = src.shape.raw
    if raw is None:
        return ("dim", i) if src is x and i >= 0 else None
    if not -len(raw) <= i < len(raw):
        return None
    i %= len(raw)
    if raw[i] is not None:
        return raw[i]
    return ("dim", i) if src is x else None


def _shape_entries(t, x):
    """A 1-D shape tensor's entries: ints (-1 kept), ``("dim", i)`` of ``x``, or None.

    Returns None when even the number of entries is unknown.
    """
    v = constant_value(t)
    if v is not None:
        return _ints(v)
    op = t.op
    if op.type == "Pack" and t.shape.rank == 1:
        out = []
        for e in op.inputs:
            ev = constant_value(e)
            out.append(int(np.reshape(ev, -1)[0]) if ev is not None and np.size(ev) == 1
                       else _dim_reference(e, x))
        return out
    if op.type == "Shape":
        src = op.inputs[0]
        if src.shape.raw is None:
            return None
        return [("dim", i) if src is x and d is None else d for i, d in enumerate(src.shape.raw)]
    if op.type == "ConcatV2":
        out = []
        for part in op.inputs[:-1]:
            entries = _shape_entries(part, x)
            if entries is None:
                break
            out.extend(entries)
        else:
            return out
    known = constant_value_as_shape(t)
    return None if known.raw is None else list(known.raw)


# ------------------------------------------------------------------ reshape
def _reshape_static(x, entries):
    """The output shape of reshaping ``x`` to ``entries`` (see :func:`_shape_entries`)."""
    if entries is None:
        return TensorShape(None)
    for i, e in enumerate(entries):
        if isinstance(e, int) and e < -1:
            raise ValueError(f"Size {i} must be non-negative, not {e}")
    minus = [i for i, e in enumerate(entries) if e == -1]
    if len(minus) > 1:
        raise ValueError(f"Only one input size may be -1, not both {minus[0]} and {minus[1]}")
    in_dims = x.shape.raw
    out = [e if isinstance(e, int) and e >= 0 else None for e in entries]
    if in_dims is None:
        return TensorShape(out)
    cancelled = set()
    out_unknown, out_known = [], 1
    for i, e in enumerate(entries):
        if isinstance(e, tuple) and e[1] < len(in_dims) and e[1] not in cancelled:
            cancelled.add(e[1])  # the same unknown size on both sides cancels out
        elif isinstance(e, int) and e >= 0:
            out_known *= e
        else:
            out_unknown.append(i)
    in_unknown = [j for j, d in enumerate(in_dims) if d is None and j not in cancelled]
    in_known = math.prod(d for d in in_dims if d is not None)
    if len(in_unknown) > 1 or len(out_unknown) > 1:
        return TensorShape(out)
    wanted = "[" + ",".join("?" if d is None else str(d) for d in out) + "]"
    if cancelled:
        # A cancelled size may be 0 when the graph runs: only infer, never refuse.
        if not in_unknown and len(out_unknown) == 1 and out_known > 0 \
                and in_known % out_known == 0:
            out[out_unknown[0]] = in_known // out_known
    elif not in_unknown and not out_unknown:
        if in_known != out_known:
            raise ValueError(f"Cannot reshape a tensor with {in_known} elements to shape "
                             f"{wanted} ({out_known} elements)")
    elif not in_unknown:
        if out_known > 0:
            if in_known % out_known:
                raise ValueError(f"Cannot reshape a tensor with {in_known} elements to shape "
                                 f"{wanted}: {in_known} is not divisible by {out_known}")
            out[out_unknown[0]] = in_known // out_known
    elif not out_unknown:
        if in_known > 0 and out_known % in_known:
            raise ValueError(f"Cannot reshape a tensor of shape {x.shape} to shape {wanted}: "
                             f"{out_known} elements are not a multiple of {in_known}")
    return TensorShape(out)


def _reshape_kernel(x, shape):
    try:
        return np.reshape(x, shape)
    except ValueError:
        pass
    sizes = _ints(shape)
    if sizes.count(-1) == 1 and 0 in sizes and all(s >= -1 for s in sizes):
        # TF1: a zero-size target leaves the -1 dimension to the input's non-zero sizes
        known = math.prod(s for s in sizes if s > 0)
        missing = math.prod(d for d in x.shape if d > 0) // max(known, 1)
        return np.reshape(x, [missing if s == -1 else s for s in sizes])
    raise ValueError(f"Input to reshape is a tensor with {x.size} values, but the requested "
                     f"shape {sizes} cannot hold them")


@register
class Reshape(OpDef):
    """``tensor`` with the dimensions given by the 1-D int tensor ``shape`` (one may be -1)."""

    returns_view = True

    def infer(self, tensor, shape):
        require_dtype(shape, INDEX, "shape")
        _require_rank(shape, 1, "shape")
        return Spec(tensor.dtype, _reshape_static(tensor, _shape_entries(shape, tensor)))

    compute = staticmethod(_reshape_kernel)

    def static_value(self, op):
        return fold(op)


def reshape(tensor, shape, name=None):
    """``tensor``'s elements in a new ``shape`` (one entry may be -1, inferred).

    Args:
        tensor: a Tensor.
        shape: list/tuple of ints or tensors, or a 1-D int32/int64 tensor.
        name: op name (default ``"Reshape"``).

    Raises:
        ValueError: when the element counts are known to differ, or several -1.

    Example:
        >>> tf.reshape(x, [tf.shape(x)[0], -1])
    """
    with name_scope(name, "Reshape", [tensor, shape]) as scope:
        tensor = convert_to_tensor(tensor)
        shape = _shape_tensor(shape, "shape")
        return apply_op("Reshape", [tensor, shape], name=scope)


def _tensor_like(value):
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_tensor")


def _shape_tensor(value, name):
    if isinstance(value, TensorShape):
        value = value.as_list()
    if isinstance(value, Tensor) or hasattr(value, "_as_graph_tensor"):
        return convert_to_tensor(value)
    return convert_to_tensor(value, preferred_dtype=dtypes.int32, name=name)


# ---------------------------------------------------------------- transpose
@register
class Transpose(OpDef):
    """Permutes the dimensions of ``x``: output dim ``i`` is input dim ``perm[i]``."""

    returns_view = True

    def infer(self, x, perm):
        require_dtype(perm, INDEX, "perm")
        _require_rank(perm, 1, "perm")
        rank = x.shape.rank
        p = constant_value(perm)
        if p is None:
            n = rank if rank is not None else (perm.shape.raw[0] if perm.shape.raw else None)
            if rank is not None and perm.shape.raw and perm.shape.raw[0] not in (None, rank):
                raise ValueError(f"transpose expects a vector of size {rank}. But input(1) is "
                                 f"a vector of size {perm.shape.raw[0]}")
            return Spec(x.dtype, None if n is None else [None] * n)
        p = _ints(p)
        n = len(p)
        if rank is not None and n != rank:
            raise ValueError(f"transpose expects a vector of size {rank}. But input(1) is a "
                             f"vector of size {n}")
        for v in p:
            if not 0 <= v < n:
                raise ValueError(f"perm dim {v} is out of range of input rank {n}")
        if len(set(p)) != n:
            raise ValueError(f"perm {p} is not a permutation: a dimension appears twice")
        if rank is None:
            return Spec(x.dtype, [None] * n)
        return Spec(x.dtype, [x.shape.raw[i] for i in p])

    @staticmethod
    def compute(x, perm):
        return np.transpose(x, perm)

    def static_value(self, op):
        return fold(op)


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of ``a`` according to ``perm`` (default: reversed).

    Args:
        a: a Tensor.
        perm: permutation of the dimensions (list or 1-D int tensor); None reverses them.
        name: op name.
        conjugate: complex conjugate too (no complex dtypes exist here: no effect).

    Raises:
        ValueError: a ``perm`` that is not a permutation of ``a``'s dimensions.

    Example:
        >>> tf.transpose(x, [1, 0])
    """
    del conjugate  # real dtypes only
    with name_scope(name, "transpose", [a]) as scope:
        a = convert_to_tensor(a, name="a")
        if perm is None:
            r = a.shape.rank
            if r is not None:
                perm = constant(np.arange(r - 1, -1, -1, dtype=np.int32), name="perm")
            else:
                rk = rank(a)
                perm = _math_binary.subtract(
                    _math_binary.subtract(rk, 1), range(0, rk, 1))
        else:
            perm = _shape_tensor(perm, "perm")
        return apply_op("Transpose", [a, perm], name=scope)


# ---------------------------------------------------------- expand / squeeze
@register
class ExpandDims(OpDef):
    """Inserts a dimension of size 1 at index ``dim`` (an int scalar tensor)."""

    returns_view = True

    def infer(self, x, dim):
        require_dtype(dim, INDEX, "dim")
        v = constant_value(dim)
        raw = x.shape.raw
        if v is None:
            return Spec(x.dtype, None if raw is None else [None] * (len(raw) + 1))
        d = _scalar_int(v, "dim")
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
        return np.expand_dims(x, _scalar_int(dim, "dim"))

    def static_value(self, op):
        return fold(op)


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
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    with name_scope(name, "ExpandDims", [input]) as scope:
        x = convert_to_tensor(input)
        axis = _shape_tensor(axis, "dim")
        return apply_op("ExpandDims", [x, axis], name=scope)


@register
class Squeeze(OpDef):
    """Removes dimensions of size 1 (those in ``squeeze_dims``, or all when empty)."""

    attrs = {"squeeze_dims": ()}
    returns_view = True

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
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'squeeze_dims'")
        axis = squeeze_dims
    if axis is None:
        axis = ()
    elif isinstance(axis, (numbers.Integral, np.integer)):
        axis = (int(axis),)
    else:
        axis = tuple(int(a) for a in axis)
    return apply_op("Squeeze", [convert_to_tensor(input)], {"squeeze_dims": axis}, name=name)


# ------------------------------------------------------------ shape / size / rank
class _ShapeInfo(OpDef):
    differentiable = False

    @staticmethod
    def _out_type(out_type):
        out_type = as_dtype(out_type)
        if out_type not in INDEX:
            raise TypeError(f"Value for attr 'out_type' of {out_type.name} is not in the list "
                            f"of allowed values: int32, int64")
        return out_type


@register
class Shape(_ShapeInfo):
    """The shape of ``x`` as a 1-D ``out_type`` tensor."""

    attrs = {"out_type": dtypes.int32}

    def infer(self, x, *, out_type):
        return Spec(self._out_type(out_type), [x.shape.rank])

    @staticmethod
    def compute(x, *, out_type):
        return np.array(x.shape, dtype=out_type.np_dtype)

    def static_value(self, op):
        s = op.inputs[0].shape
        if not s.is_fully_defined():
            return None
        return np.array(s.raw, dtype=op.attrs["out_type"].np_dtype).reshape(-1)


@register
class Size(_ShapeInfo):
    """The number of elements of ``x`` as an ``out_type`` scalar."""

    attrs = {"out_type": dtypes.int32}

    def infer(self, x, *, out_type):
        return Spec(self._out_type(out_type), [])

    @staticmethod
    def compute(x, *, out_type):
        return np.array(x.size, dtype=out_type.np_dtype)

    def static_value(self, op):
        n = op.inputs[0].shape.num_elements()
        return None if n is None else np.array(n, dtype=op.attrs["out_type"].np_dtype)


@register
class Rank(_ShapeInfo):
    """The number of dimensions of ``x`` as an int32 scalar."""

    def infer(self, x):
        return Spec(dtypes.int32, [])

    @staticmethod
    def compute(x):
        return np.array(x.ndim, dtype=np.int32)

    def static_value(self, op):
        r = op.inputs[0].shape.rank
        return None if r is None else np.array(r, dtype=np.int32)


def shape(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF1's keyword
    """The shape of ``input`` as a 1-D tensor (a constant when the shape is fully known).

    Args:
        input: a Tensor (or value convertible to one).
        name: op name (default ``"Shape"``).
        out_type: int32 (default) or int64.
    """
    return apply_op("Shape", [convert_to_tensor(input)], {"out_type": as_dtype(out_type)},
                    name=name)


def size(input, name=None, out_type=dtypes.int32):  # noqa: A002 - TF1's keyword
    """The number of elements of ``input`` as a scalar of ``out_type``."""
    return apply_op("Size", [convert_to_tensor(input)], {"out_type": as_dtype(out_type)},
                    name=name)


def rank(input, name=None):  # noqa: A002 - TF1's keyword
    """The number of dimensions of ``input`` as an int32 scalar."""
    return apply_op("Rank", [convert_to_tensor(input)], name=name)


# ------------------------------------------------------------------- fill
@register
class Fill(OpDef):
    """A tensor of shape ``dims`` (1-D int tensor) filled with the scalar ``value``."""

    def infer(self, dims, value):
        require_dtype(dims, INDEX, "dims")
        _require_rank(dims, 1, "dims")
        _require_rank(value, 0, "value")
        v = constant_value(dims)
        if v is not None and (np.asarray(v) < 0).any():
            raise ValueError(f"Fill dimensions must be >= 0, got {_ints(v)}")
        return Spec(value.dtype, constant_value_as_shape(dims))

    @staticmethod
    def compute(dims, value):
        return np.full(tuple(_ints(dims)), value, dtype=value.dtype)

    def static_value(self, op):
        return fold(op)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` whose elements all equal ``value``.

    Args:
        dims: 1-D int32/int64 tensor or list, the output shape.
        value: a scalar; its dtype is the output's.
        name: op name (default ``"Fill"``).
    """
    with name_scope(name, "Fill", [dims, value]) as scope:
        dims = _shape_tensor(dims, "dims")
        value = convert_to_tensor(value, name="value")
        return apply_op("Fill", [dims, value], name=scope)


def _filled(shape, dtype, value, name, default):
    dtype = as_dtype(dtype)
    scalar = np.array(value, dtype=dtype.np_dtype)
    with name_scope(name, default, [shape]) as scope:
        if not (isinstance(shape, Tensor) or hasattr(shape, "_as_graph_tensor")):
            try:
                dims = TensorShape(shape.as_list() if isinstance(shape, TensorShape) else shape)
            except (TypeError, ValueError):
                dims = None
            if dims is not None and dims.is_fully_defined():
                if dims.num_elements() < 1000:
                    return constant(np.full(dims.raw, scalar), name=scope)
                shape = dims.as_list()
        shape = _shape_tensor(shape, "shape")
        if shape.shape.rank == 0:
            shape = reshape(shape, [-1])
        return apply_op("Fill", [shape, constant(scalar, name="Const")], name=scope)


def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of ``shape`` with all elements 0 (a constant when small and known).

    Args:
        shape: list/tuple of ints, TensorShape, or 1-D int tensor.
        dtype: element type (default float32).
        name: op name (default ``"zeros"``).
    """
    return _filled(shape, dtype, 0, name, "zeros")


def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ``shape`` with all elements 1 (a constant when small and known)."""
    return _filled(shape, dtype, 1, name, "ones")


@register
class ZerosLike(OpDef):
    """Zeros of the shape and dtype of ``x``."""

    differentiable = False

    def infer(self, x):
        return same_as(x)

    @staticmethod
    def compute(x):
        return np.zeros_like(x)


def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros with the shape of ``tensor`` (dtype: ``tensor``'s unless given).

    With ``optimize`` and a fully known shape the result is a constant (TF1).
    """
    with name_scope(name, "zeros_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        dtype = as_dtype(dtype) if dtype is not None else None
        if optimize and tensor.shape.is_fully_defined():
            return zeros(tensor.shape, dtype=dtype or tensor.dtype, name=scope)
        if dtype is not None and dtype is not tensor.dtype:
            return zeros(shape(tensor), dtype=dtype, name=scope)
        return apply_op("ZerosLike", [tensor], name=scope)


def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones with the shape of ``tensor`` (dtype: ``tensor``'s unless given).

    As in TF1 this is ``tf.ones(tf.shape(tensor))`` (a constant when the shape is
    known and ``optimize``), with ``tensor``'s static shape.
    """
    with name_scope(name, "ones_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        dtype = as_dtype(dtype) if dtype is not None else tensor.dtype
        if optimize and tensor.shape.is_fully_defined():
            return ones(tensor.shape, dtype=dtype, name=scope)
        out = ones(shape(tensor), dtype=dtype, name=scope)
        out.set_shape(tensor.shape)
        return out


# ------------------------------------------------------------------ range
def _range_count(start, limit, delta, dtype):
    if delta == 0:
        raise ValueError(f"Requires delta != 0: {delta}")
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    if dtype.kind in "iu":
        start, limit, delta = int(start), int(limit), int(delta)
        return (abs(limit - start) + abs(delta) - 1) // abs(delta)
    t = dtype.type
    return int(np.ceil(np.abs((t(limit) - t(start)) / t(delta))))


@register
class Range(OpDef):
    """``[start, start + delta, ...]`` up to but excluding ``limit`` (scalars of one dtype)."""

    differentiable = False

    def infer(self, start, limit, delta):
        for t, arg in ((start, "start"), (limit, "limit"), (delta, "delta")):
            require_dtype(t, RANGE_TYPES, arg)
            if t.dtype is not start.dtype:
                raise TypeError(f"Input '{arg}' of 'Range' Op has type {t.dtype.name} that "
                                f"does not match type {start.dtype.name} of argument 'start'.")
            _require_rank(t, 0, arg)
        values = [constant_value(t) for t in (start, limit, delta)]
        if any(v is None for v in values):
            return Spec(start.dtype, [None])
        return Spec(start.dtype, [_range_count(*values, start.dtype.np_dtype)])

    @staticmethod
    def compute(start, limit, delta):
        dtype = start.dtype
        n = _range_count(start, limit, delta, dtype)
        if dtype.kind in "iu":
            return np.arange(int(start), int(start) + n * int(delta), int(delta), dtype=dtype)
        return start + np.arange(n, dtype=dtype) * delta

    def static_value(self, op):
        return fold(op)


_RANGE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TF1's name
    """A 1-D tensor ``[start, start + delta, ...]`` stopping before ``limit``.

    ``range(n)`` counts from 0. Without ``dtype`` the result is int32 for Python ints
    and float32 when any argument is a float (TF1's rule: the widest of
    int32 < int64 < float32 < float64 among the arguments).

    Raises:
        ValueError: ``delta`` is 0 or points away from ``limit`` (when known).

    Example:
        >>> tf.range(3, 18, 3)   # [3, 6, 9, 12, 15]
    """
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        args = [start, limit, delta]
        if dtype is not None:
            dtype = as_dtype(dtype)
            tensors = [convert_to_tensor(v, dtype=dtype, name=n)
                       for v, n in zip(args, ("start", "limit", "delta"))]
        else:
            kinds = []
            for v in args:
                if isinstance(v, Tensor) or hasattr(v, "_as_graph_tensor"):
                    kinds.append(convert_to_tensor(v).dtype)
                else:
                    kinds.append(as_dtype(to_numpy_constant(v).dtype))
            for k in kinds:
                if k not in _RANGE_ORDER:
                    raise TypeError(f"tf.range arguments must be int32, int64, float32 or "
                                    f"float64, got {k.name}")
            inferred = builtins.max(kinds, key=_RANGE_ORDER.index)
            tensors = []
            for v, n in zip(args, ("start", "limit", "delta")):
                if isinstance(v, Tensor) or hasattr(v, "_as_graph_tensor"):
                    t = convert_to_tensor(v)
                    if t.dtype is not inferred:
                        t = _math_misc.cast(t, inferred)
                else:
                    t = convert_to_tensor(v, dtype=inferred, name=n)
                tensors.append(t)
        return apply_op("Range", tensors, name=scope)


@register
class LinSpace(OpDef):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""

    differentiable = False

    def infer(self, start, stop, num):
        require_dtype(start, FLOATS, "start")
        if stop.dtype is not start.dtype:
            raise TypeError(f"Input 'stop' of 'LinSpace' Op has type {stop.dtype.name} that "
                            f"does not match type {start.dtype.name} of argument 'start'.")
        require_dtype(num, INDEX, "num")
        for t, arg in ((start, "start"), (stop, "stop"), (num, "num")):
            _require_rank(t, 0, arg)
        n = constant_value(num)
        if n is None:
            return Spec(start.dtype, [None])
        if int(n) <= 0:
            raise ValueError(f"Requires num > 0: {int(n)}")
        return Spec(start.dtype, [int(n)])

    @staticmethod
    def compute(start, stop, num):
        n = int(num)
        if n <= 0:
            raise ValueError(f"Requires num > 0: {n}")
        dtype = start.dtype
        if n == 1:
            return np.array([start], dtype=dtype)
        step = (stop - start) / dtype.type(n - 1)
        out = start + np.arange(n, dtype=dtype) * step
        out[-1] = stop
        return out

    def static_value(self, op):
        return fold(op)


def lin_space(start, stop, num, name=None):
    """``num`` evenly spaced values from ``start`` to ``stop``, both included.

    Args:
        start, stop: float32/float64 scalars.
        num: int32/int64 scalar > 0.
        name: op name (default ``"LinSpace"``).

    Example:
        >>> tf.lin_space(10.0, 12.0, 3)   # [10., 11., 12.]
    """
    with name_scope(name, "LinSpace", [start, stop, num]) as scope:
        start, stop = convert_same_dtype(start, stop, names=("start", "stop"))
        num = convert_to_tensor(num, preferred_dtype=dtypes.int32, name="num")
        return apply_op("LinSpace", [start, stop, num], name=scope)


linspace = lin_space


# ------------------------------------------------------------- misc shape ops
@register
class StopGradient(OpDef):
    """Its input unchanged; gradients do not flow through it."""

    differentiable = False
    returns_view = True

    def infer(self, x):
        return same_as(x)

    @staticmethod
    def compute(x):
        return x


def stop_gradient(input, name=None):  # noqa: A002 - TF1's keyword
    """``input`` unchanged, treated as a constant by gradient computation."""
    return apply_op("StopGradient", [convert_to_tensor(input)], name=name)


@register
class BroadcastTo(OpDef):
    """``x`` broadcast (numpy rules) to the 1-D int tensor ``shape``."""

    returns_view = True

    def infer(self, x, shape):
        require_dtype(shape, INDEX, "shape")
        _require_rank(shape, 1, "shape")
        v = constant_value(shape)
        if v is not None and (np.asarray(v) < 0).any():
            raise ValueError(f"broadcast_to shape must be non-negative, got {_ints(v)}")
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
        return np.broadcast_to(x, tuple(_ints(shape)))

    def static_value(self, op):
        return fold(op)


def broadcast_to(input, shape, name=None):  # noqa: A002 - TF1's keyword
    """``input`` broadcast to ``shape`` with numpy's rules.

    Raises:
        ValueError: when ``input``'s known shape cannot broadcast to ``shape``.
    """
    with name_scope(name, "BroadcastTo", [input, shape]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("BroadcastTo", [x, _shape_tensor(shape, "shape")], name=scope)


@register
class Tile(OpDef):
    """``x`` repeated ``multiples[i]`` times along dimension ``i``."""

    def infer(self, x, multiples):
        require_dtype(multiples, INDEX, "multiples")
        _require_rank(multiples, 1, "multiples")
        v = constant_value(multiples)
        if v is not None:
            for i, m in enumerate(_ints(v)):
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
        reps = _ints(multiples)
        if len(reps) != x.ndim:
            raise ValueError(f"Expected multiples argument to be a vector of length {x.ndim} "
                             f"but got length {len(reps)}")
        if any(r < 0 for r in reps):
            raise ValueError(f"Expected multiples >= 0, but got {reps}")
        return np.tile(x, reps) if reps else x.copy()

    def static_value(self, op):
        return fold(op)


def tile(input, multiples, name=None):  # noqa: A002 - TF1's keyword
    """``input`` repeated ``multiples[i]`` times along each dimension ``i``.

    Raises:
        ValueError: ``multiples`` of the wrong length, or negative.

    Example:
        >>> tf.tile([[1, 2]], [2, 1])   # [[1, 2], [1, 2]]
    """
    with name_scope(name, "Tile", [input, multiples]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("Tile", [x, _shape_tensor(multiples, "multiples")], name=scope)


# -------------------------------------------------------------------- pad
def _pad_static(x, paddings, mode=None):
    require_dtype(paddings, INDEX, "paddings")
    ps = paddings.shape.raw
    if ps is not None:
        if len(ps) != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {len(ps)} for argument "
                             f"'paddings'")
        if ps[1] not in (None, 2):
            raise ValueError(f"paddings must be a matrix with 2 columns, got shape "
                             f"{paddings.shape}")
    raw = x.shape.raw
    if raw is not None and ps is not None and ps[0] not in (None, len(raw)):
        raise ValueError(f"The first dimension of paddings must be the rank of inputs "
                         f"{len(raw)}, got paddings of shape {paddings.shape}")
    n = len(raw) if raw is not None else (ps[0] if ps is not None else None)
    if n is None:
        return Spec(x.dtype, None)
    pv = constant_value(paddings)
    if pv is None:
        return Spec(x.dtype, [None] * n)
    pv = np.asarray(pv).reshape(n, 2)
    if (pv < 0).any():
        raise ValueError(f"Paddings must be non-negative, got {pv.tolist()}")
    out = []
    for i in builtins.range(n):
        d = raw[i] if raw is not None else None
        before, after = int(pv[i, 0]), int(pv[i, 1])
        if d is not None and mode is not None:
            _check_mirror(d, before, after, mode)
        out.append(None if d is None else d + before + after)
    return Spec(x.dtype, out)


def _check_mirror(d, before, after, mode):
    if mode == "REFLECT" and (before >= d or after >= d):
        raise ValueError(f"paddings must be less than the dimension size: {before}, {after} "
                         f"not less than {d}")
    if mode == "SYMMETRIC" and (before > d or after > d):
        raise ValueError(f"paddings must be no greater than the dimension size: {before}, "
                         f"{after} greater than {d}")


def _pad_pairs(x, paddings):
    p = np.asarray(paddings).astype(np.int64)
    if p.shape != (x.ndim, 2):
        raise ValueError(f"paddings must be a matrix with 2 columns and {x.ndim} rows, got "
                         f"shape {list(p.shape)}")
    if (p < 0).any():
        raise ValueError(f"Paddings must be non-negative, got {p.tolist()}")
    return p


def _pad_constant(x, paddings, value):
    p = _pad_pairs(x, paddings)
    out = np.full([d + int(b) + int(a) for d, (b, a) in zip(x.shape, p)], value, dtype=x.dtype)
    out[tuple(slice(int(b), int(b) + d) for d, (b, _) in zip(x.shape, p))] = x
    return out


@register
class Pad(OpDef):
    """``x`` padded with zeros: ``paddings[i] = [before_i, after_i]`` (an int matrix)."""

    def infer(self, x, paddings):
        return _pad_static(x, paddings)

    @staticmethod
    def compute(x, paddings):
        return _pad_constant(x, paddings, 0)

    def static_value(self, op):
        return fold(op)


@register
class PadV2(OpDef):
    """``x`` padded with the scalar ``constant_values``."""

    def infer(self, x, paddings, constant_values):
        if constant_values.dtype is not x.dtype:
            raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type "
                            f"{constant_values.dtype.name} that does not match type "
                            f"{x.dtype.name} of argument 'input'.")
        _require_rank(constant_values, 0, "constant_values")
        return _pad_static(x, paddings)

    @staticmethod
    def compute(x, paddings, constant_values):
        return _pad_constant(x, paddings, constant_values)

    def static_value(self, op):
        return fold(op)


@register
class MirrorPad(OpDef):
    """``x`` padded by mirroring: ``mode`` REFLECT (edge not repeated) or SYMMETRIC."""

    attrs = {"mode": "REFLECT"}

    def infer(self, x, paddings, *, mode):
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise ValueError(f"MirrorPad mode must be REFLECT or SYMMETRIC, got {mode!r}")
        return _pad_static(x, paddings, mode)

    @staticmethod
    def compute(x, paddings, *, mode):
        p = _pad_pairs(x, paddings)
        for d, (b, a) in zip(x.shape, p):
            _check_mirror(d, int(b), int(a), mode)
        return np.pad(x, p, mode="reflect" if mode == "REFLECT" else "symmetric")

    def static_value(self, op):
        return fold(op)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """``tensor`` padded by ``paddings[i] = [before_i, after_i]`` along each dimension.

    Args:
        tensor: a Tensor.
        paddings: int matrix of shape ``[rank(tensor), 2]``.
        mode: "CONSTANT" (default), "REFLECT" or "SYMMETRIC" (any case).
        name: op name (default ``"Pad"``, ``"PadV2"`` or ``"MirrorPad"``).
        constant_values: the value padded in CONSTANT mode.

    Raises:
        ValueError: unknown ``mode``, or paddings that do not fit ``tensor``.

    Example:
        >>> tf.pad(t, [[1, 1], [2, 2]])
    """
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"Unknown padding mode: {mode}")
    plain = (mode == "CONSTANT" and not isinstance(constant_values, Tensor)
             and not hasattr(constant_values, "_as_graph_tensor")
             and np.all(np.asarray(constant_values) == 0))
    default = "Pad" if plain else ("PadV2" if mode == "CONSTANT" else "MirrorPad")
    with name_scope(name, default, [tensor, paddings]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        p = _shape_tensor(paddings, "paddings")
        if plain:
            return apply_op("Pad", [x, p], name=scope)
        if mode == "CONSTANT":
            c = (convert_to_tensor(constant_values) if _tensor_like(constant_values) else
                 convert_to_tensor(constant_values, dtype=x.dtype, name="constant_values"))
            return apply_op("PadV2", [x, p, c], name=scope)
        return apply_op("MirrorPad", [x, p], {"mode": mode}, name=scope)


# ---------------------------------------------------------------- reverse
@register
class ReverseV2(OpDef):
    """``x`` with the order of elements reversed along the dimensions in ``axis``."""

    returns_view = True

    def infer(self, x, axis):
        require_dtype(axis, INDEX, "axis")
        _require_rank(axis, 1, "axis")
        v = constant_value(axis)
        r = x.shape.rank
        if v is not None and r is not None:
            seen = set()
            for i, a in enumerate(_ints(v)):
                if not -r <= a < r:
                    raise ValueError(f"'axis'[{i}] = {a} is out of valid range "
                                     f"[{-r}, {r - 1}]")
                if a % r in seen:
                    raise ValueError(f"axis {a % r} specified more than once.")
                seen.add(a % r)
        return same_as(x)

    @staticmethod
    def compute(x, axis):
        return np.flip(x, axis=tuple(_ints(axis)))

    def static_value(self, op):
        return fold(op)


def reverse_v2(tensor, axis, name=None):
    """``tensor`` with elements reversed along each dimension in ``axis`` (list of ints).

    Example:
        >>> tf.reverse([[1, 2], [3, 4]], [1])   # [[2, 1], [4, 3]]
    """
    with name_scope(name, "ReverseV2", [tensor, axis]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        if isinstance(axis, (numbers.Integral, np.integer)):
            axis = [int(axis)]
        return apply_op("ReverseV2", [x, _shape_tensor(axis, "axis")], name=scope)


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
        output = [reshape(x, ones_[:i] + (-1,) + ones_[i + 1:]) for i, x in enumerate(tensors)]
        sizes = [size(x) for x in tensors]
        if indexing == "xy" and ndim > 1:
            output[0] = reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            sizes[0], sizes[1] = sizes[1], sizes[0]
        if not sizes:
            return []
        target = _array_combine.stack(sizes)
        return [broadcast_to(x, target) for x in output]
