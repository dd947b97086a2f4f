"""Elementwise binary math with numpy broadcasting: add, subtract, multiply, divide, ...

Each op type is defined once here: inference, its numpy ufunc and ONNX operator (the
facts of :class:`~.elementwise.ElementwiseOp`, from which the kernel is derived
unless dtypes need their own), gradient rule. The public functions keep TF1's names
and keywords. Gradient rules return input gradients in the broadcast shape
(``grad_broadcasts``); the engine sums them to each input's shape. As in TF1,
FloorDiv's gradient is None and TruncateMod has none at all.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import Tensor, dtypes, name_scope
from ..array import fill as _array_fill
from ..core import basic_ops as _basic_ops
from . import binary_onnx as _onnx
from . import compare as _math_compare
from . import elementwise as _elementwise
from . import gradient_zeros as _gradient_zeros
from . import misc as _math_misc
from . import unary as _math_unary
from ..convert import convert_same_dtype, convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import (FLOATS, INTS, NUMERIC, SIGNED_NUMERIC, broadcast_spec, check_same_dtype,
                           require_dtype)

__all__ = ["add", "subtract", "multiply", "divide", "truediv", "div", "realdiv", "floordiv",
           "floor_div", "mod", "floormod", "truncatediv", "truncatemod", "pow", "maximum",
           "minimum", "squared_difference", "add_n", "scalar_mul", "div_no_nan", "atan2"]

_QUIET = _elementwise.QUIET


class BinaryOp(_elementwise.ElementwiseOp):
    """Base of elementwise ops of two same-dtype inputs with broadcasting."""

    allowed = NUMERIC
    grad_broadcasts = True

    def infer(self, x, y):
        check_same_dtype(x, y)
        require_dtype(x, self.allowed)
        return broadcast_spec(x, y)


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


def _int_divisor_check(y, op_type):
    """TF1 refuses integer division by zero at run time (InvalidArgumentError)."""
    if not y.all():
        raise ZeroDivisionError(f"Integer division by zero in {op_type}")


def _floor_inplace(q):
    if isinstance(q, np.ndarray):
        return np.floor(q, out=q)
    return np.floor(q)


@register
class RealDiv(BinaryOp):
    """``x / y`` for floats (inf/nan on division by zero)."""

    allowed = FLOATS
    ufunc = np.true_divide
    quiet = True
    onnx_op = "Div"

    def grad(self, op, dy):
        x, y = op.inputs
        return [realdiv(dy, y),
                multiply(dy, realdiv(realdiv(_math_unary.negative(x), y), y))]

    def lower(self, ctx, inputs, dtype):
        """ONNX ``Div`` (floats only: on integers it truncates)."""
        if not dtype.is_floating:
            ctx.unsupported(f"true division of {dtype.name} values")
        return ctx.node("Div", inputs)


@register
class FloorDiv(BinaryOp):
    """``floor(x / y)``: Python's ``//`` for integers, ``floor(x / y)`` for floats."""

    ufunc_steps = ((np.true_divide, (0, 1)), (np.floor, ("prev",)))  # floats
    quiet = True

    @staticmethod
    def compute(x, y):
        if x.dtype.kind == "f":
            with np.errstate(**_QUIET):
                return _floor_inplace(np.true_divide(x, y))
        _int_divisor_check(y, "FloorDiv")
        with np.errstate(**_QUIET):
            return np.floor_divide(x, y)

    def grad(self, op, dy):
        return [None, None]  # TF1: no gradient (tf.gradients gives None)

    def lower(self, ctx, inputs, dtype):
        """``Floor(Div)`` for floats, truncating ``Div`` corrected for signed ints."""
        return _onnx.floor_div(ctx, *inputs, dtype)


@register
class FloorMod(BinaryOp):
    """``x - floor(x / y) * y``: Python's ``%`` (the result has the sign of ``y``)."""

    ufunc = np.remainder  # the kernel for floats; integers also check the divisor
    quiet = True

    @staticmethod
    def compute(x, y):
        if x.dtype.kind != "f":
            _int_divisor_check(y, "FloorMod")
        with np.errstate(**_QUIET):
            return np.remainder(x, y)

    def grad(self, op, dy):
        x, y = op.inputs
        return [dy, multiply(dy, _math_unary.negative(floor_div(x, y)))]

    def lower(self, ctx, inputs, dtype):
        """numpy's ``remainder`` from ONNX ``Mod``."""
        return _onnx.floor_mod(ctx, *inputs, dtype)


@register
class TruncateDiv(BinaryOp):
    """Integer ``x / y`` rounded toward zero (C semantics)."""

    differentiable = False  # integer outputs only (TF1 registers a None gradient)
    allowed = INTS
    onnx_op = "Div"  # ONNX integer Div truncates toward zero

    @staticmethod
    def compute(x, y):
        _int_divisor_check(y, "TruncateDiv")
        with np.errstate(**_QUIET):
            q, r = np.divmod(x, y)
            if x.dtype.kind == "i":
                # floor and truncation differ when the division is inexact and the signs differ
                q = q + ((r != 0) & ((x ^ y) < 0))
        return q


@register
class TruncateMod(BinaryOp):
    """``x - trunc(x / y) * y`` (C's ``fmod``: the result has the sign of ``x``)."""

    differentiable = False  # TF1 registers no gradient: tf.gradients raises LookupError
    ufunc = np.fmod  # the kernel for floats; integers also check the divisor
    quiet = True

    @staticmethod
    def compute(x, y):
        if x.dtype.kind != "f":
            _int_divisor_check(y, "TruncateMod")
        with np.errstate(**_QUIET):
            return np.fmod(x, y)

    def lower(self, ctx, inputs, dtype):
        """ONNX ``Mod`` with ``fmod=1``."""
        return ctx.node("Mod", inputs, fmod=1)


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
class DivNoNan(BinaryOp):
    """``x / y``, or 0 where ``y`` is 0."""

    allowed = FLOATS
    quiet = True

    @staticmethod
    def compute(x, y):
        with np.errstate(**_QUIET):
            out = np.true_divide(x, y)
        return np.where(y == 0, np.zeros((), out.dtype), out)

    def grad(self, op, dy):
        x, y = op.inputs
        return [div_no_nan(dy, y),
                multiply(dy, div_no_nan(div_no_nan(_math_unary.negative(x), y), y))]

    def lower(self, ctx, inputs, dtype):
        """``Where(y == 0, 0, x / y)``."""
        x, y = inputs
        zero = ctx.scalar(0, dtype)
        return ctx.node("Where", [ctx.node("Equal", [y, zero]), zero, ctx.node("Div", [x, y])])


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


def _binary(op_type, x, y, name):
    x, y = convert_same_dtype(x, y, op_type=op_type, name=name)
    return apply_op(op_type, [x, y], name=name)


def add(x, y, name=None):
    """``x + y`` elementwise, with broadcasting."""
    return _binary("Add", x, y, name)


def subtract(x, y, name=None):
    """``x - y`` elementwise, with broadcasting."""
    return _binary("Sub", x, y, name)


def multiply(x, y, name=None):
    """``x * y`` elementwise, with broadcasting."""
    return _binary("Mul", x, y, name)


def _scoped_binary(op_type, x, y, name, default_name):
    """An op in a name scope, as TF1's Python-level wrappers do (op named like the scope)."""
    with name_scope(name, default_name, [x, y]) as scope:
        x, y = convert_same_dtype(x, y, op_type=op_type, name=scope)
        return apply_op(op_type, [x, y], name=scope)


# TF1's __truediv__ table: None keeps the dtype, missing dtypes are refused.
_TRUEDIV_TABLE = {
    dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32,
    dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64,
    dtypes.float16: None, dtypes.float32: None, dtypes.float64: None,
}


def truediv(x, y, name=None):
    """Python 3 division ``x / y``: integers are cast to floats first (op ``RealDiv``).

    int8, int16 and uint8 become float32; int32 and int64 become float64; floats
    keep their dtype.

    Args:
        x, y: tensors (or values) of one numeric dtype; broadcasting applies.
        name: op name (default ``"truediv"``).

    Raises:
        TypeError: for mismatched or non-numeric dtypes.

    Example:
        >>> tf.truediv(tf.constant([3, 4]), 2)  # float64 [1.5, 2.]
    """
    with name_scope(name, "truediv", [x, y]) as scope:
        x, y = convert_same_dtype(x, y, op_type="RealDiv", name=scope)
        if x.dtype not in _TRUEDIV_TABLE:
            raise TypeError(f"Invalid dtype {x.dtype!r} in __truediv__")
        target = _TRUEDIV_TABLE[x.dtype]
        if target is not None:
            x = _math_misc.cast(x, target)
            y = _math_misc.cast(y, target)
        return apply_op("RealDiv", [x, y], name=scope)


def divide(x, y, name=None):
    """``x / y`` with Python 3 semantics (same as :func:`truediv`; op named ``truediv``)."""
    return truediv(x, y, name=name)


def div(x, y, name=None):
    """Legacy TF1 division with Python 2 semantics: float division for floats, floor
    division for integers (``div(-7, 2) = -4``).

    Args:
        x, y: tensors of one numeric dtype; broadcasting applies.
        name: op name (default ``"div"``).
    """
    with name_scope(name, "div", [x, y]) as scope:
        floats = getattr(getattr(x, "dtype", None), "is_floating", True)
        x, y = convert_same_dtype(x, y, op_type="RealDiv" if floats else "FloorDiv",
                                  name=scope)
        op_type = "RealDiv" if x.dtype.is_floating else "FloorDiv"
        return apply_op(op_type, [x, y], name=scope)


def realdiv(x, y, name=None):
    """``x / y`` for float tensors (op ``RealDiv``); division by zero gives inf/nan."""
    return _binary("RealDiv", x, y, name)


def floordiv(x, y, name=None):
    """``floor(x / y)`` elementwise: Python's ``//`` (``floordiv(-7, 2) = -4``).

    For floats the result is ``floor(x / y)`` as a float. Integer division by zero
    fails at run time with InvalidArgumentError.

    Args:
        x, y: tensors of one numeric dtype; broadcasting applies.
        name: op name (default ``"floordiv"``).
    """
    return _scoped_binary("FloorDiv", x, y, name, "floordiv")


def floor_div(x, y, name=None):
    """``floor(x / y)`` elementwise (the raw ``FloorDiv`` op; see :func:`floordiv`)."""
    return _binary("FloorDiv", x, y, name)


def floormod(x, y, name=None):
    """Python's ``x % y`` elementwise: the result has the sign of ``y`` (``-7 % 3 = 2``).

    Args:
        x, y: tensors of one numeric dtype; broadcasting applies.
        name: op name (default ``"FloorMod"``).

    Raises:
        errors.InvalidArgumentError: at run time, for integer division by zero.
    """
    return _binary("FloorMod", x, y, name)


mod = floormod


def truncatediv(x, y, name=None):
    """Integer division rounding toward zero, as in C (``truncatediv(-7, 2) = -3``).

    Args:
        x, y: integer tensors of one dtype; broadcasting applies.
        name: op name (default ``"TruncateDiv"``).

    Raises:
        TypeError: for float tensors.
    """
    return _binary("TruncateDiv", x, y, name)


def truncatemod(x, y, name=None):
    """Remainder of truncating division, as C's ``fmod`` (``truncatemod(-7, 3) = -1``)."""
    return _binary("TruncateMod", x, y, name)


def pow(x, y, name=None):  # noqa: A001 - TF1's name
    """``x ** y`` elementwise.

    Args:
        x, y: tensors of one numeric dtype; broadcasting applies.
        name: op name (default ``"Pow"``).

    Raises:
        errors.InvalidArgumentError: at run time, for integers to negative integer powers.
    """
    return _scoped_binary("Pow", x, y, name, "Pow")


def maximum(x, y, name=None):
    """Elementwise ``max(x, y)``, with broadcasting."""
    return _binary("Maximum", x, y, name)


def minimum(x, y, name=None):
    """Elementwise ``min(x, y)``, with broadcasting."""
    return _binary("Minimum", x, y, name)


def squared_difference(x, y, name=None):
    """``(x - y) ** 2`` elementwise, with broadcasting."""
    return _binary("SquaredDifference", x, y, name)


def atan2(y, x, name=None):
    """``atan(y / x)`` elementwise, in the quadrant of ``(x, y)``; float tensors."""
    y, x = convert_same_dtype(y, x, names=("y", "x"), op_type="Atan2", name=name)
    return apply_op("Atan2", [y, x], name=name)


def div_no_nan(x, y, name=None):
    """``x / y``, or 0 where ``y`` is 0 (float tensors).

    Args:
        x, y: float tensors of one dtype; broadcasting applies.
        name: op name (default ``"div_no_nan"``).
    """
    return _scoped_binary("DivNoNan", x, y, name, "div_no_nan")


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
