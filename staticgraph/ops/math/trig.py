"""Elementwise trigonometric and hyperbolic math: sin, cos, tan, their inverses, sinh, ...

Each op type is defined once here (inference, numpy kernel, gradient rule, following
TF1's rules); the public functions keep TF1's names and default op names. ``tanh``
lives with the other activation-like functions in math_unary.py.
"""

from __future__ import annotations

import numpy as np

from . import binary as _mb
from . import unary as _math_unary
from . import unary_onnx as _onnx
from .unary import UnaryOp, _quiet, _unary
from ...graphlib.op_def import register

__all__ = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
           "atanh"]


@register
class Sin(UnaryOp):
    """Sine."""

    compute = _quiet(np.sin)

    def grad(self, op, dy):
        return [_mb.multiply(dy, cos(op.inputs[0]))]

    onnx = _onnx.elementwise("Sin")


@register
class Cos(UnaryOp):
    """Cosine."""

    compute = _quiet(np.cos)

    def grad(self, op, dy):
        return [_mb.multiply(_math_unary.negative(dy), sin(op.inputs[0]))]

    onnx = _onnx.elementwise("Cos")


@register
class Tan(UnaryOp):
    """Tangent."""

    compute = _quiet(np.tan)

    def grad(self, op, dy):
        sec2 = _math_unary.square(_math_unary.reciprocal(cos(op.inputs[0])))
        return [_mb.multiply(sec2, dy)]

    onnx = _onnx.with_float64("Tan", _onnx.tan64)


@register
class Asin(UnaryOp):
    """Inverse sine (nan outside [-1, 1])."""

    compute = _quiet(np.arcsin)

    def grad(self, op, dy):
        return [_mb.multiply(dy, _inv_sqrt_one_minus_square(op.inputs[0]))]

    onnx = _onnx.with_float64("Asin", _onnx.asin64)


@register
class Acos(UnaryOp):
    """Inverse cosine (nan outside [-1, 1])."""

    compute = _quiet(np.arccos)

    def grad(self, op, dy):
        return [_mb.multiply(_math_unary.negative(dy), _inv_sqrt_one_minus_square(op.inputs[0]))]

    onnx = _onnx.with_float64("Acos", _onnx.acos64)


@register
class Atan(UnaryOp):
    """Inverse tangent."""

    compute = staticmethod(np.arctan)

    def grad(self, op, dy):
        return [_mb.multiply(dy, _math_unary.reciprocal(_mb.add(1.0, _math_unary.square(op.inputs[0]))))]

    onnx = _onnx.with_float64("Atan", _onnx.atan64)


@register
class Sinh(UnaryOp):
    """Hyperbolic sine."""

    compute = _quiet(np.sinh)

    def grad(self, op, dy):
        return [_mb.multiply(dy, cosh(op.inputs[0]))]

    onnx = _onnx.with_float64("Sinh", _onnx.sinh64)


@register
class Cosh(UnaryOp):
    """Hyperbolic cosine."""

    compute = _quiet(np.cosh)

    def grad(self, op, dy):
        return [_mb.multiply(dy, sinh(op.inputs[0]))]

    onnx = _onnx.with_float64("Cosh", _onnx.cosh64)


@register
class Asinh(UnaryOp):
    """Inverse hyperbolic sine."""

    compute = staticmethod(np.arcsinh)

    def grad(self, op, dy):
        return [_mb.realdiv(dy, cosh(op.outputs[0]))]

    onnx = _onnx.with_float64("Asinh", _onnx.asinh64)


@register
class Acosh(UnaryOp):
    """Inverse hyperbolic cosine (nan below 1)."""

    compute = _quiet(np.arccosh)

    def grad(self, op, dy):
        return [_mb.realdiv(dy, sinh(op.outputs[0]))]

    onnx = _onnx.with_float64("Acosh", _onnx.acosh64)


@register
class Atanh(UnaryOp):
    """Inverse hyperbolic tangent (±inf at ±1, nan outside)."""

    compute = _quiet(np.arctanh)

    def grad(self, op, dy):
        return [_mb.multiply(dy, _math_unary.reciprocal(_mb.subtract(1.0, _math_unary.square(op.inputs[0]))))]

    onnx = _onnx.with_float64("Atanh", _onnx.atanh64)




def _inv_sqrt_one_minus_square(x):
    """``1 / _math_unary.sqrt(1 - x**2)`` built as TF1's asin/acos gradients build it."""
    return _math_unary.reciprocal(_math_unary.sqrt(_mb.subtract(1.0, _math_unary.square(x))))



def sin(x, name=None):
    """Sine elementwise; float tensors."""
    return _unary("Sin", x, name)


def cos(x, name=None):
    """Cosine elementwise; float tensors."""
    return _unary("Cos", x, name)


def tan(x, name=None):
    """Tangent elementwise; float tensors."""
    return _unary("Tan", x, name)


def asin(x, name=None):
    """Inverse sine elementwise (nan outside [-1, 1]); float tensors."""
    return _unary("Asin", x, name)


def acos(x, name=None):
    """Inverse cosine elementwise (nan outside [-1, 1]); float tensors."""
    return _unary("Acos", x, name)


def atan(x, name=None):
    """Inverse tangent elementwise; float tensors."""
    return _unary("Atan", x, name)


def sinh(x, name=None):
    """Hyperbolic sine elementwise; float tensors."""
    return _unary("Sinh", x, name)


def cosh(x, name=None):
    """Hyperbolic cosine elementwise; float tensors."""
    return _unary("Cosh", x, name)


def asinh(x, name=None):
    """Inverse hyperbolic sine elementwise; float tensors."""
    return _unary("Asinh", x, name)


def acosh(x, name=None):
    """Inverse hyperbolic cosine elementwise (nan below 1); float tensors."""
    return _unary("Acosh", x, name)


def atanh(x, name=None):
    """Inverse hyperbolic tangent elementwise (nan outside [-1, 1]); float tensors."""
    return _unary("Atanh", x, name)
