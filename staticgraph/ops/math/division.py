"""Elementwise division and remainder ops: true, floor and truncating division, their
remainders, and ``div_no_nan``.

Each op type is defined once here, as in :mod:`.binary` (whose module re-exports
these functions). Integer division by zero fails at run time, as in TF1. As in TF1,
FloorDiv's gradient is None and TruncateMod has none at all.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import dtypes, name_scope
from . import binary_onnx as _onnx
from . import elementwise as _elementwise
from . import misc as _math_misc
from . import unary as _math_unary
from .binary_op import BinaryOp, apply_binary, apply_binary_in_scope
from ..convert import convert_same_dtype
from ...graphlib.op_def import register
from ..apply import apply_op
from ..shape_rules import FLOATS, INTS

__all__ = ["divide", "truediv", "div", "realdiv", "floordiv", "floor_div", "mod", "floormod",
           "truncatediv", "truncatemod", "div_no_nan"]

_QUIET = _elementwise.QUIET


def _multiply(x, y):
    """``x * y`` for the gradients (:func:`.binary.multiply`; that module imports this one)."""
    return apply_binary("Mul", x, y)


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
                _multiply(dy, realdiv(realdiv(_math_unary.negative(x), y), y))]

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
        return [dy, _multiply(dy, _math_unary.negative(floor_div(x, y)))]

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
                _multiply(dy, div_no_nan(div_no_nan(_math_unary.negative(x), y), y))]

    def lower(self, ctx, inputs, dtype):
        """``Where(y == 0, 0, x / y)``."""
        x, y = inputs
        zero = ctx.scalar(0, dtype)
        return ctx.node("Where", [ctx.node("Equal", [y, zero]), zero, ctx.node("Div", [x, y])])


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
    return apply_binary("RealDiv", x, y, name)


def floordiv(x, y, name=None):
    """``floor(x / y)`` elementwise: Python's ``//`` (``floordiv(-7, 2) = -4``).

    For floats the result is ``floor(x / y)`` as a float. Integer division by zero
    fails at run time with InvalidArgumentError.

    Args:
        x, y: tensors of one numeric dtype; broadcasting applies.
        name: op name (default ``"floordiv"``).
    """
    return apply_binary_in_scope("FloorDiv", x, y, name, "floordiv")


def floor_div(x, y, name=None):
    """``floor(x / y)`` elementwise (the raw ``FloorDiv`` op; see :func:`floordiv`)."""
    return apply_binary("FloorDiv", x, y, name)


def floormod(x, y, name=None):
    """Python's ``x % y`` elementwise: the result has the sign of ``y`` (``-7 % 3 = 2``).

    Args:
        x, y: tensors of one numeric dtype; broadcasting applies.
        name: op name (default ``"FloorMod"``).

    Raises:
        errors.InvalidArgumentError: at run time, for integer division by zero.
    """
    return apply_binary("FloorMod", x, y, name)


mod = floormod


def truncatediv(x, y, name=None):
    """Integer division rounding toward zero, as in C (``truncatediv(-7, 2) = -3``).

    Args:
        x, y: integer tensors of one dtype; broadcasting applies.
        name: op name (default ``"TruncateDiv"``).

    Raises:
        TypeError: for float tensors.
    """
    return apply_binary("TruncateDiv", x, y, name)


def truncatemod(x, y, name=None):
    """Remainder of truncating division, as C's ``fmod`` (``truncatemod(-7, 3) = -1``)."""
    return apply_binary("TruncateMod", x, y, name)


def div_no_nan(x, y, name=None):
    """``x / y``, or 0 where ``y`` is 0 (float tensors).

    Args:
        x, y: float tensors of one dtype; broadcasting applies.
        name: op name (default ``"div_no_nan"``).
    """
    return apply_binary_in_scope("DivNoNan", x, y, name, "div_no_nan")
