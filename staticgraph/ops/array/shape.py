"""Array shape ops: reshape, transpose, invert_permutation, shape, size, rank.

Each op type is defined once here (inference, numpy kernel, static value); the
public functions keep TF1's names, keywords and default op names. Ops whose shape
or axis argument is a tensor (``Reshape``, ``Transpose``, ``ExpandDims``) infer
static shapes from its value when that is known while declaring.
"""

from __future__ import annotations

import math

import numpy as np

from ...graphlib import TensorShape, as_dtype, dtypes, name_scope
from . import fill as _array_fill
from . import shape_onnx as _onnx
from ..math import binary as _math_binary
from ..convert import constant, convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from .shape_args import fold, int_list, shape_entries, shape_tensor
from ..shape_rules import INDEX, require_index_vector
from ..static_value import constant_value

__all__ = ["reshape", "transpose", "shape", "size", "rank", "invert_permutation"]


def shape_for_grad(x):
    """A shape argument that gives a tensor ``x``'s shape back, as cheaply as possible.

    Gradient rules reshape ``dy`` to their input's shape with it: a constant list when
    the static shape is fully known, or when a single dimension is unknown (then -1)
    and no known dimension is 0; otherwise the dynamic ``shape(x)``.
    """
    raw = x.shape.raw
    if raw is not None:
        unknown = [i for i, d in enumerate(raw) if d is None]
        if not unknown:
            return list(raw)
        if len(unknown) == 1 and all(d for d in raw if d is not None):
            return [-1 if d is None else d for d in raw]
    return shape(x)


def shape_vector(x, out_type=dtypes.int32):
    """The shape of tensor ``x`` as a 1-D tensor: a constant when fully known, else
    ``shape(x)`` (TF1's ``shape_internal(optimize=True)``)."""
    raw = x.shape.raw
    if raw is not None and None not in raw:
        return constant(np.asarray(raw, as_dtype(out_type).np_dtype))
    return shape(x, out_type=out_type)


def reshape_back(op, dy):
    """Gradient of ops that only change the shape of input 0: ``dy`` reshaped back."""
    return [reshape(dy, shape_for_grad(op.inputs[0]))] + [None] * (len(op.inputs) - 1)


# ------------------------------------------------------------------ reshape
def _reshape_static(x, entries):
    """The output shape of reshaping ``x`` to ``entries`` (see :func:`shape_entries`)."""
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
    sizes = int_list(shape)
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

    returns_view = (0,)

    def infer(self, tensor, shape):
        require_index_vector(shape, "shape")
        return Spec(tensor.dtype, _reshape_static(tensor, shape_entries(shape, tensor)))

    compute = staticmethod(_reshape_kernel)

    def static_value(self, op):
        return fold(op)

    grad = staticmethod(reshape_back)

    def onnx(self, ctx, op, tensor, shape):
        return _onnx.lower_reshape(ctx, op, tensor, shape)


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
        shape = shape_tensor(shape, "shape")
        return apply_op("Reshape", [tensor, shape], name=scope)


# ---------------------------------------------------------------- transpose
@register
class Transpose(OpDef):
    """Permutes the dimensions of ``x``: output dim ``i`` is input dim ``perm[i]``."""

    returns_view = (0,)

    def infer(self, x, perm):
        require_index_vector(perm, "perm")
        rank = x.shape.rank
        p = constant_value(perm)
        if p is None:
            n = rank if rank is not None else (perm.shape.raw[0] if perm.shape.raw else None)
            if rank is not None and perm.shape.raw and perm.shape.raw[0] not in (None, rank):
                raise ValueError(f"transpose expects a vector of size {rank}. But input(1) is "
                                 f"a vector of size {perm.shape.raw[0]}")
            return Spec(x.dtype, None if n is None else [None] * n)
        p = int_list(p)
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

    def grad(self, op, dy):
        perm = op.inputs[1]
        p = constant_value(perm)
        if p is not None:  # the usual case: one Transpose by the inverse permutation
            inverse = np.argsort(np.reshape(p, -1)).astype(perm.dtype.np_dtype)
            return [transpose(dy, constant(inverse, name="perm")), None]
        return [transpose(dy, invert_permutation(perm)), None]

    def onnx(self, ctx, op, x, perm):
        return _onnx.lower_transpose(ctx, op, x, perm)


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
                    _math_binary.subtract(rk, 1), _array_fill.range(0, rk, 1))
        else:
            perm = shape_tensor(perm, "perm")
        return apply_op("Transpose", [a, perm], name=scope)


@register
class InvertPermutation(OpDef):
    """The inverse of the permutation ``x`` (1-D int): ``y[x[i]] = i``."""

    differentiable = False

    def infer(self, x):
        require_index_vector(x, "x")
        v = constant_value(x)
        if v is not None:
            _check_permutation(int_list(v))
        return Spec(x.dtype, x.shape)

    @staticmethod
    def compute(x):
        _check_permutation(x.tolist())
        out = np.empty_like(x)
        out[x] = np.arange(x.size, dtype=x.dtype)
        return out

    def static_value(self, op):
        return fold(op)

    def onnx(self, ctx, op, x):
        # y[x[i]] = i: every position is written, so x itself serves as the data
        t = op.inputs[0]
        n = t.shape.raw[0] if t.shape.rank == 1 else None
        if n is not None:
            steps = ctx.const(np.arange(n, dtype=t.dtype.np_dtype))
        else:
            size = ctx.cast(ctx.node("Size", [x]), t.dtype, np.int64)
            steps = ctx.node("Range", [ctx.scalar(0, t.dtype), size, ctx.scalar(1, t.dtype)])
        return ctx.node("ScatterElements", [x, x, steps], axis=0)


def _check_permutation(p):
    n = len(p)
    if sorted(p) != list(range(n)):
        raise ValueError(f"{p} is not a permutation of 0, ..., {n - 1}")


def invert_permutation(x, name=None):
    """The inverse permutation of the 1-D int32/int64 tensor ``x``: ``y[x[i]] = i``.

    Raises:
        ValueError: ``x`` is known not to be a permutation of ``0 .. n-1``.

    Example:
        >>> tf.invert_permutation([3, 4, 0, 2, 1])   # [2, 4, 3, 0, 1]
    """
    x = convert_to_tensor(x, preferred_dtype=dtypes.int32, name="x")
    return apply_op("InvertPermutation", [x], name=name)


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

    def onnx(self, ctx, op, x):
        value = self.static_value(op)
        if value is not None:
            return ctx.const(value)
        return ctx.cast(ctx.node("Shape", [x]), op.attrs["out_type"], np.int64)


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

    def onnx(self, ctx, op, x):
        value = self.static_value(op)
        if value is not None:
            return ctx.const(value)
        return ctx.cast(ctx.node("Size", [x]), op.attrs["out_type"], np.int64)


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

    def onnx(self, ctx, op, x):
        value = self.static_value(op)
        if value is not None:
            return ctx.const(value)
        return ctx.cast(ctx.node("Size", [ctx.node("Shape", [x])]), np.int32, np.int64)


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
