"""Elementwise binary math with numpy broadcasting: add, subtract, multiply, pow, ...

Each op type is defined once here: inference, its numpy ufunc and ONNX operator (the
facts of :class:`~.elementwise.ElementwiseOp`, from which the kernel is derived
unless dtypes need their own), gradient rule. The public functions keep TF1's names
and keywords. Gradient rules return input gradients in the broadcast shape
(``grad_broadcasts``); the engine sums them to each input's shape. Division and
remainder ops live in :mod:`.division` (this module re-exports their functions), the
base class in :mod:`.binary_op`.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import Tensor
from ..array import fill as _array_fill
from ..core import basic_ops as _basic_ops
from . import binary_onnx as _onnx
from . import compare as _math_compare
from . import elementwise as _elementwise
from . import gradient_zeros as _gradient_zeros
from . import misc as _math_misc
from . import unary as _math_unary
from .binary_op import BinaryOp, apply_binary, apply_binary_in_scope
from .division import (div, div_no_nan, divide, floor_div, floordiv, floormod, mod, realdiv,
                       truediv, truncatediv, truncatemod)
from ..convert import convert_same_dtype, convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, NUMERIC, SIGNED_NUMERIC, require_dtype

__all__ = ["add", "subtract", "multiply", "divide", "truediv", "div", "realdiv", "floordiv",
           "floor_div", "mod", "floormod", "truncatediv", "truncatemod", "pow", "maximum",
           "minimum", "squared_difference", "add_n", "scalar_mul", "div_no_nan", "atan2"]

_QUIET = _elementwise.QUIET


@register
class Add(BinaryOp):
    """``x + y``."""

    ufunc = np.add
    ufunc_for_ints = True
    onnx_op = "Add"

    def grad(self, op, dy):
        return [dy, dy]


@register
class Sub(BinaryOp):
    """``x - y``."""

    ufunc = np.subtract
    ufunc_for_ints = True
    onnx_op = "Sub"

    def grad(self, op, dy):
        return [dy, _math_unary.negative(dy)]


@register
class Mul(BinaryOp):
    """``x * y``."""

    ufunc = np.multiply
    ufunc_for_ints = True
    onnx_op = "Mul"

    def grad(self, op, dy):
        x, y = op.inputs
        return [multiply(dy, y), multiply(x, dy)]


def _select_grad(dy, xmask):
    """TF1's Maximum/Minimum gradient: ``dy`` to x where ``xmask``, to y elsewhere
    (both in the broadcast shape; the engine sums them to the inputs' shapes)."""
    zeros = _gradient_zeros.zeros_of(dy)
    return [_math_misc.where(xmask, dy, zeros), _math_misc.where(xmask, zeros, dy)]


@register
class Pow(BinaryOp):
    """``x ** y``; integers to negative integer powers are an error."""

    ufunc = np.power
    quiet = True

    def grad(self, op, dy):
        x, y = op.inputs
        z = op.outputs[0]
        gx = multiply(multiply(dy, y), pow(x, subtract(y, 1)))
        # TF1 avoids the false singularity of log at x <= 0: the log term is 0 there.
        mask = _math_compare.greater(x, 0)
        safe_x = _math_misc.where(mask, x, _array_fill.ones_like(x))
        log_x = _math_misc.where(mask, _math_unary.log(safe_x), _gradient_zeros.zeros_of(x))
        gy = multiply(multiply(dy, z), log_x)
        return [gx, gy]

    def lower(self, ctx, inputs, dtype):
        """ONNX ``Pow`` for floats; integers exactly in int64."""
        if dtype.is_floating:
            return ctx.node("Pow", inputs)
        return _onnx.int_pow(ctx, *inputs, dtype)


@register
class Maximum(BinaryOp):
    """Elementwise ``max(x, y)`` (nan propagates)."""

    ufunc = np.maximum
    ufunc_for_ints = True
    onnx_op = "Max"

    def grad(self, op, dy):
        return _select_grad(dy, _math_compare.greater_equal(*op.inputs))  # ties go to x


@register
class Minimum(BinaryOp):
    """Elementwise ``min(x, y)`` (nan propagates)."""

    ufunc = np.minimum
    ufunc_for_ints = True
    onnx_op = "Min"

    def grad(self, op, dy):
        return _select_grad(dy, _math_compare.less_equal(*op.inputs))  # ties go to x


@register
class SquaredDifference(BinaryOp):
    """``(x - y) ** 2``."""

    allowed = SIGNED_NUMERIC
    ufunc_steps = ((np.subtract, (0, 1)), (np.multiply, ("prev", "prev")))
    ufunc_for_ints = True
    quiet = True

    @staticmethod
    def compute(x, y):
        with np.errstate(**_QUIET):
            d = np.subtract(x, y)
            return np.multiply(d, d, out=d) if isinstance(d, np.ndarray) else d * d

    def grad(self, op, dy):
        x, y = op.inputs
        gx = multiply(scalar_mul(2.0, dy), subtract(x, y))
        return [gx, _math_unary.negative(gx)]

    def lower(self, ctx, inputs, dtype):
        """``d * d`` with ``d = x - y``."""
        d = ctx.node("Sub", inputs)
        return ctx.node("Mul", [d, d])


@register
class Atan2(BinaryOp):
    """``atan(y / x)`` with the quadrant of ``(x, y)``; inputs are ``(y, x)``."""

    allowed = FLOATS
    ufunc = np.arctan2

    def grad(self, op, dy):
        y, x = op.inputs
        grad_inv = realdiv(dy, add(_math_unary.square(x), _math_unary.square(y)))
        return [multiply(x, grad_inv), multiply(_math_unary.negative(y), grad_inv)]

    def lower(self, ctx, inputs, dtype):
        """numpy's ``arctan2`` (quadrants, signed zeros) from Atan and Where."""
        return _onnx.atan2(ctx, *inputs, dtype)


@register
class AddN(OpDef):
    """The sum of any number of tensors of one dtype and shape (no broadcasting)."""

    def infer(self, *inputs):
        if not inputs:
            raise ValueError("AddN needs at least one input")
        dtype = inputs[0].dtype
        for i, t in enumerate(inputs[1:], 1):
            if t.dtype is not dtype:
                raise TypeError(f"All inputs of AddN must have one dtype: inputs[{i}] has "
                                f"{t.dtype.name}, inputs[0] has {dtype.name}")
        require_dtype(inputs[0], NUMERIC, "inputs")
        shape = inputs[0].shape
        for i, t in enumerate(inputs[1:], 1):
            if not shape.is_compatible_with(t.shape):
                raise ValueError(f"Inputs to AddN must have the same shape: inputs[{i}] has "
                                 f"shape {t.shape}, the others {shape}")
            shape = shape.merge_with(t.shape)
        return Spec(dtype, shape)

    @staticmethod
    def compute(*xs):
        first = xs[0]
        shape = np.shape(first)
        for x in xs[1:]:
            if np.shape(x) != shape:
                raise ValueError(f"Inputs to AddN must have the same shape, got "
                                 f"{list(shape)} and {list(np.shape(x))}")
        if len(xs) == 1:
            return np.array(first, copy=True)
        out = np.add(first, xs[1])
        if not isinstance(out, np.ndarray):
            out = np.asarray(out)
        for x in xs[2:]:
            np.add(out, x, out=out)
        return out

    def grad(self, op, dy):
        return [dy] * len(op.inputs)

    def onnx(self, ctx, op, *xs):
        return _onnx.add_n(ctx, xs, op.inputs[0].dtype)


def add(x, y, name=None):
    """``x + y`` elementwise, with broadcasting."""
    return apply_binary("Add", x, y, name)


def subtract(x, y, name=None):
    """``x - y`` elementwise, with broadcasting."""
    return apply_binary("Sub", x, y, name)


def multiply(x, y, name=None):
    """``x * y`` elementwise, with broadcasting."""
    return apply_binary("Mul", x, y, name)


def pow(x, y, name=None):  # noqa: A001 - TF1's name
    """``x ** y`` elementwise.

    Args:
        x, y: tensors of one numeric dtype; broadcasting applies.
        name: op name (default ``"Pow"``).

    Raises:
        errors.InvalidArgumentError: at run time, for integers to negative integer powers.
    """
    return apply_binary_in_scope("Pow", x, y, name, "Pow")


def maximum(x, y, name=None):
    """Elementwise ``max(x, y)``, with broadcasting."""
    return apply_binary("Maximum", x, y, name)


def minimum(x, y, name=None):
    """Elementwise ``min(x, y)``, with broadcasting."""
    return apply_binary("Minimum", x, y, name)


def squared_difference(x, y, name=None):
    """``(x - y) ** 2`` elementwise, with broadcasting."""
    return apply_binary("SquaredDifference", x, y, name)


def atan2(y, x, name=None):
    """``atan(y / x)`` elementwise, in the quadrant of ``(x, y)``; float tensors."""
    y, x = convert_same_dtype(y, x, names=("y", "x"), op_type="Atan2", name=name)
    return apply_op("Atan2", [y, x], name=name)


def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one dtype and shape (op ``AddN``).

    As in TF1, a list of one tensor returns that tensor (or its ``identity`` when
    ``name`` is given).

    Args:
        inputs: a non-empty list of tensors of the same dtype and shape.
        name: op name (default ``"AddN"``).

    Raises:
        ValueError: ``inputs`` is not a non-empty list, or shapes differ.
        TypeError: dtypes differ.

    Example:
        >>> tf.add_n([a, b, c])  # a + b + c
    """
    if isinstance(inputs, Tensor) or not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("inputs must be a list of at least one Tensor with the same dtype "
                         "and shape")
    tensors = convert_same_dtype(*inputs, names=tuple(f"inputs[{i}]" for i in range(len(inputs))),
                                 op_type="AddN", name=name)
    if len(tensors) == 1:
        if name:
            return _basic_ops.identity(tensors[0], name=name)
        return tensors[0]
    return apply_op("AddN", tensors, name=name)


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` where ``scalar`` is a 0-D value (op ``Mul``).

    Args:
        scalar: a 0-D tensor or Python number, converted to ``x``'s dtype.
        x: a tensor.
        name: op name (default ``"Mul"``).

    Raises:
        ValueError: ``scalar`` is not 0-D.
    """
    x = convert_to_tensor(x)
    scalar = convert_to_tensor(scalar, dtype=x.dtype)
    if scalar.shape.rank != 0:
        raise ValueError(f"Only scalar multiply works, got shape {scalar.shape}")
    return apply_op("Mul", [scalar, x], name=name)
