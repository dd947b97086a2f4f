"""Elementwise comparisons and logical ops with broadcasting; all outputs are bool.

Each op type is defined once here: inference, its numpy ufunc (the kernel) and ONNX
operator. The public functions keep TF1's names, keywords and default op names.
None of these ops carries a gradient, and none is fused (the output is bool).
"""

from __future__ import annotations

import numpy as np

from ...graphlib import dtypes
from . import elementwise as _elementwise
from .. import onnx_support
from ..convert import convert_same_dtype, convert_to_tensor
from ...graphlib.op_def import register
from ..apply import apply_op
from ..shape_rules import ALL, NUMERIC, broadcast_spec, check_same_dtype, require_dtype, same_as

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_not", "logical_xor"]

_BOOL = (dtypes.bool,)


class CompareOp(_elementwise.ElementwiseOp):
    """Base of elementwise comparisons of two same-dtype inputs, giving bool."""

    allowed = NUMERIC
    differentiable = False
    ufunc_steps = ()  # bool results: never fused

    def infer(self, x, y):
        check_same_dtype(x, y)
        require_dtype(x, self.allowed)
        return broadcast_spec(x, y, dtypes.bool)

    def lower(self, ctx, inputs, dtype):
        """``onnx_op`` (a bool result), comparing in a dtype onnxruntime has (exact)."""
        return onnx_support.via(ctx, self.onnx_op, inputs, dtype, cast_back=False)


def _onnx_equal(ctx, inputs, dtype):
    if dtype is dtypes.string and ctx.opset < 19:
        ctx.unsupported(f"ONNX compares strings from opset 19 on (exporting opset {ctx.opset})")
    return ctx.node("Equal", inputs)


@register
class Equal(CompareOp):
    """``x == y`` elementwise."""

    allowed = ALL + (dtypes.string,)
    ufunc = np.equal
    onnx_op = "Equal"

    def lower(self, ctx, inputs, dtype):
        """ONNX ``Equal`` (strings from opset 19 on)."""
        return _onnx_equal(ctx, inputs, dtype)


@register
class NotEqual(CompareOp):
    """``x != y`` elementwise."""

    allowed = ALL + (dtypes.string,)
    ufunc = np.not_equal

    def lower(self, ctx, inputs, dtype):
        """``Not(Equal)`` (ONNX has no NotEqual)."""
        return ctx.node("Not", [_onnx_equal(ctx, inputs, dtype)])


@register
class Less(CompareOp):
    """``x < y`` elementwise."""

    ufunc = np.less
    onnx_op = "Less"


@register
class LessEqual(CompareOp):
    """``x <= y`` elementwise."""

    ufunc = np.less_equal
    onnx_op = "LessOrEqual"


@register
class Greater(CompareOp):
    """``x > y`` elementwise."""

    ufunc = np.greater
    onnx_op = "Greater"


@register
class GreaterEqual(CompareOp):
    """``x >= y`` elementwise."""

    ufunc = np.greater_equal
    onnx_op = "GreaterOrEqual"


@register
class LogicalAnd(CompareOp):
    """``x and y`` elementwise on bool tensors."""

    allowed = _BOOL
    ufunc = np.logical_and
    onnx_op = "And"


@register
class LogicalOr(CompareOp):
    """``x or y`` elementwise on bool tensors."""

    allowed = _BOOL
    ufunc = np.logical_or
    onnx_op = "Or"


@register
class LogicalNot(_elementwise.ElementwiseOp):
    """``not x`` elementwise on a bool tensor."""

    differentiable = False
    ufunc = np.logical_not
    ufunc_steps = ()  # bool: never fused
    onnx_op = "Not"

    def infer(self, x):
        require_dtype(x, _BOOL)
        return same_as(x)


def _compare(op_type, x, y, name):
    x, y = convert_same_dtype(x, y, op_type=op_type, name=name)
    return apply_op(op_type, [x, y], name=name)


def equal(x, y, name=None):
    """Bool tensor of ``x == y`` elementwise, with broadcasting.

    Args:
        x, y: tensors (or values) of one dtype, numeric, bool or string.
        name: op name (default ``"Equal"``).

    Raises:
        TypeError: the dtypes differ.
        ValueError: the shapes do not broadcast.

    Example:
        >>> tf.equal(tf.constant([1, 2]), 2)  # [False, True]
    """
    return _compare("Equal", x, y, name)


def not_equal(x, y, name=None):
    """Bool tensor of ``x != y`` elementwise, with broadcasting (op ``NotEqual``)."""
    return _compare("NotEqual", x, y, name)


def less(x, y, name=None):
    """Bool tensor of ``x < y`` elementwise, with broadcasting; numeric dtypes (op ``Less``)."""
    return _compare("Less", x, y, name)


def less_equal(x, y, name=None):
    """Bool tensor of ``x <= y`` elementwise, with broadcasting (op ``LessEqual``)."""
    return _compare("LessEqual", x, y, name)


def greater(x, y, name=None):
    """Bool tensor of ``x > y`` elementwise, with broadcasting (op ``Greater``)."""
    return _compare("Greater", x, y, name)


def greater_equal(x, y, name=None):
    """Bool tensor of ``x >= y`` elementwise, with broadcasting (op ``GreaterEqual``)."""
    return _compare("GreaterEqual", x, y, name)


def logical_and(x, y, name=None):
    """``x AND y`` elementwise on bool tensors, with broadcasting (op ``LogicalAnd``).

    Raises:
        TypeError: for non-bool tensors.
    """
    return _compare("LogicalAnd", x, y, name)


def logical_or(x, y, name=None):
    """``x OR y`` elementwise on bool tensors, with broadcasting (op ``LogicalOr``)."""
    return _compare("LogicalOr", x, y, name)


def logical_not(x, name=None):
    """``NOT x`` elementwise on a bool tensor (op ``LogicalNot``)."""
    return apply_op("LogicalNot", [convert_to_tensor(x)], name=name)


def logical_xor(x, y, name="LogicalXor"):
    """``x XOR y`` elementwise on bool tensors, with broadcasting.

    Built as TF1 builds it: ``logical_and(logical_or(x, y), logical_not(logical_and(x, y)))``,
    the outer op named ``name``.
    """
    x, y = convert_same_dtype(x, y)
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)
