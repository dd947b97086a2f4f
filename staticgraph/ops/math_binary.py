"""Elementwise binary math with numpy broadcasting: add, subtract, multiply, divide, ...

Each op type is defined once here (inference, kernel); the public functions keep
TF1's names and keywords.
"""

from __future__ import annotations

import numpy as np

from .convert import convert_same_dtype
from .registry import OpDef, apply_op, register
from .shape_rules import NUMERIC, broadcast_spec, check_same_dtype, require_dtype

__all__ = ["add", "subtract", "multiply"]


class BinaryOp(OpDef):
    """Base of elementwise ops of two same-dtype inputs with broadcasting."""

    allowed = NUMERIC

    def infer(self, x, y):
        check_same_dtype(x, y)
        require_dtype(x, self.allowed)
        return broadcast_spec(x, y)


@register
class Add(BinaryOp):
    """``x + y``."""

    compute = staticmethod(np.add)


@register
class Sub(BinaryOp):
    """``x - y``."""

    compute = staticmethod(np.subtract)


@register
class Mul(BinaryOp):
    """``x * y``."""

    compute = staticmethod(np.multiply)


def _binary(op_type, x, y, name):
    x, y = convert_same_dtype(x, y)
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
