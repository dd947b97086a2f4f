"""Array creation ops: fill, zeros, ones, zeros_like, ones_like, range, linspace.

Each op type (``Fill``, ``ZerosLike``, ``Range``, ``LinSpace``) is defined once here;
the public functions keep TF1's names, keywords and default op names. Small
results with a fully known shape are declared as constants, as TF1 does.
"""

from __future__ import annotations

import builtins

import numpy as np
from onnx import numpy_helper

from ...graphlib import TensorShape, as_dtype, dtypes, name_scope
from . import shape as _array_shape
from . import shape_onnx as _onnx
from ..math import misc as _math_misc
from ..math import reduction as _reduction
from ..convert import (constant, convert_same_dtype, convert_to_tensor, is_tensor_like,
                       to_numpy_constant)
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from .shape_args import fold, int_list, shape_tensor
from ..shape_rules import FLOATS, INDEX, require_dtype, require_index_vector, require_rank, same_as
from ..static_value import constant_value, constant_value_as_shape

__all__ = ["fill", "zeros", "ones", "zeros_like", "ones_like", "range", "linspace",
           "lin_space"]

RANGE_TYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


# ------------------------------------------------------------------- fill
@register
class Fill(OpDef):
    """A tensor of shape ``dims`` (1-D int tensor) filled with the scalar ``value``."""

    def infer(self, dims, value):
        require_index_vector(dims, "dims")
        require_rank(value, 0, "value")
        v = constant_value(dims)
        if v is not None and (np.asarray(v) < 0).any():
            raise ValueError(f"Fill dimensions must be >= 0, got {int_list(v)}")
        return Spec(value.dtype, constant_value_as_shape(dims))

    @staticmethod
    def compute(dims, value):
        return np.full(tuple(int_list(dims)), value, dtype=value.dtype)

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        # Every element is ``value``: its gradient is the sum of dy (TF1's FillGrad).
        return [None, _reduction.reduce_sum(dy)]

    def onnx(self, ctx, op, dims, value):
        out = op.outputs[0].shape.raw
        if out is not None and None not in out:
            dims = ctx.int64s(out)
        else:
            dims = _onnx.int64_arg(ctx, dims, op.inputs[0])
        return ctx.node("Expand", [value, dims])


def _no_gradient(self, op, *dys):
    """TF1 registers these ops NotDifferentiable: ``tf.gradients`` gives None."""
    return [None] * len(op.inputs)


def fill(dims, value, name=None):
    """A tensor of shape ``dims`` whose elements all equal ``value``.

    Args:
        dims: 1-D int32/int64 tensor or list, the output shape.
        value: a scalar; its dtype is the output's.
        name: op name (default ``"Fill"``).
    """
    with name_scope(name, "Fill", [dims, value]) as scope:
        dims = shape_tensor(dims, "dims")
        value = convert_to_tensor(value, name="value")
        return apply_op("Fill", [dims, value], name=scope)


def _filled(shape, dtype, value, name, default):
    dtype = as_dtype(dtype)
    scalar = np.array(value, dtype=dtype.np_dtype)
    with name_scope(name, default, [shape]) as scope:
        if not is_tensor_like(shape):
            try:
                dims = TensorShape(shape.as_list() if isinstance(shape, TensorShape) else shape)
            except (TypeError, ValueError):
                dims = None
            if dims is not None and dims.is_fully_defined():
                if dims.num_elements() < 1000:
                    return constant(np.full(dims.raw, scalar), name=scope)
                shape = dims.as_list()
        shape = shape_tensor(shape, "shape")
        if shape.shape.rank == 0:
            shape = _array_shape.reshape(shape, [-1])
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

    grad = _no_gradient

    def infer(self, x):
        return same_as(x)

    @staticmethod
    def compute(x):
        return np.zeros_like(x)

    def onnx(self, ctx, op, x):
        t = op.inputs[0]
        shape = (ctx.int64s(t.shape.raw) if t.shape.is_fully_defined()
                 else ctx.node("Shape", [x]))
        if t.dtype is dtypes.string:  # ConstantOfShape has no string kernel
            return ctx.node("Expand", [ctx.scalar("", t.dtype), shape])
        zero = numpy_helper.from_array(np.zeros(1, t.dtype.np_dtype), "value")
        return ctx.node("ConstantOfShape", [shape], value=zero)


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
            return zeros(_array_shape.shape(tensor), dtype=dtype, name=scope)
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
        out = ones(_array_shape.shape(tensor), dtype=dtype, name=scope)
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

    grad = _no_gradient

    def infer(self, start, limit, delta):
        for t, arg in ((start, "start"), (limit, "limit"), (delta, "delta")):
            require_dtype(t, RANGE_TYPES, arg)
            if t.dtype is not start.dtype:
                raise TypeError(f"Input '{arg}' of 'Range' Op has type {t.dtype.name} that "
                                f"does not match type {start.dtype.name} of argument 'start'.")
            require_rank(t, 0, arg)
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

    def onnx(self, ctx, op, start, limit, delta):
        value = self.static_value(op)
        if value is not None:
            return ctx.const(value)
        dtype = op.inputs[0].dtype
        if dtype.is_integer:
            return ctx.node("Range", [start, limit, delta])
        # floats as the kernel: n = ceil(|(limit - start) / delta|), start + i * delta
        span = ctx.node("Div", [ctx.node("Sub", [limit, start]), delta])
        n = ctx.cast(ctx.node("Ceil", [ctx.node("Abs", [span])]), np.int64)
        steps = ctx.node("Range", [ctx.scalar(0, np.int64), n, ctx.scalar(1, np.int64)])
        return ctx.node("Add", [start, ctx.node("Mul", [ctx.cast(steps, dtype), delta])])


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
                if is_tensor_like(v):
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
                if is_tensor_like(v):
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

    grad = _no_gradient

    def infer(self, start, stop, num):
        require_dtype(start, FLOATS, "start")
        if stop.dtype is not start.dtype:
            raise TypeError(f"Input 'stop' of 'LinSpace' Op has type {stop.dtype.name} that "
                            f"does not match type {start.dtype.name} of argument 'start'.")
        require_dtype(num, INDEX, "num")
        for t, arg in ((start, "start"), (stop, "stop"), (num, "num")):
            require_rank(t, 0, arg)
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

    def onnx(self, ctx, op, start, stop, num):
        # start + i * step with step = (stop - start) / (n - 1), the last one stop
        # exactly; n == 1 gives [start] (the divisor max(n - 1, 1) keeps it finite)
        value = self.static_value(op)
        if value is not None:
            return ctx.const(value)
        dtype = op.inputs[0].dtype
        n = ctx.to_int64(num, op.inputs[2].dtype)
        one = ctx.scalar(1, np.int64)
        last = ctx.node("Max", [ctx.node("Sub", [n, one]), one])
        steps = ctx.node("Range", [ctx.scalar(0, np.int64), n, one])
        step = ctx.node("Div", [ctx.node("Sub", [stop, start]), ctx.cast(last, dtype)])
        out = ctx.node("Add", [start, ctx.node("Mul", [ctx.cast(steps, dtype), step])])
        return ctx.node("Where", [ctx.node("Equal", [steps, last]), stop, out])


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
        start, stop = convert_same_dtype(start, stop, names=("start", "stop"),
                                         op_type="LinSpace", name=scope)
        num = convert_to_tensor(num, preferred_dtype=dtypes.int32, name="num")
        return apply_op("LinSpace", [start, stop, num], name=scope)


linspace = lin_space
