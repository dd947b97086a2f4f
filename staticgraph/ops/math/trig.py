"""Elementwise trigonometric and hyperbolic math: sin, cos, tan, their inverses, sinh, ...

Each op type is defined once here (inference, its numpy ufunc and ONNX operator,
gradient rule following TF1's); the public functions keep TF1's names and default op
names. onnxruntime lacks float64 kernels of all but sin and cos: float64 lowers to
the accurate formulations of unary_onnx.py. ``tanh`` lives with the other
activation-like functions in unary.py.
"""

from __future__ import annotations

import numpy as np

from . import binary as _mb
from . import unary as _math_unary
from . import unary_onnx as _onnx
from ...graphlib.op_def import register

__all__ = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
           "atanh"]


@register
class Sin(_math_unary.UnaryOp):
    """Sine."""

    ufunc = np.sin
    quiet = True
    onnx_op = "Sin"

    def grad(self, op, dy):
        return [_mb.multiply(dy, cos(op.inputs[0]))]


@register
class Cos(_math_unary.UnaryOp):
    """Cosine."""

    ufunc = np.cos
    quiet = True
    onnx_op = "Cos"

    def grad(self, op, dy):
        return [_mb.multiply(_math_unary.negative(dy), sin(op.inputs[0]))]


@register
class Tan(_math_unary.UnaryOp):
    """Tangent."""

    ufunc = np.tan
    quiet = True
    onnx_op = "Tan"
    lower = _onnx.with_float64(_onnx.tan64)

    def grad(self, op, dy):
        sec2 = _math_unary.square(_math_unary.reciprocal(cos(op.inputs[0])))
        return [_mb.multiply(sec2, dy)]


@register
class Asin(_math_unary.UnaryOp):
    """Inverse sine (nan outside [-1, 1])."""

    ufunc = np.arcsin
    quiet = True
    onnx_op = "Asin"
    lower = _onnx.with_float64(_onnx.asin64)

    def grad(self, op, dy):
        return [_mb.multiply(dy, _inv_sqrt_one_minus_square(op.inputs[0]))]


@register
class Acos(_math_unary.UnaryOp):
    """Inverse cosine (nan outside [-1, 1])."""

    ufunc = np.arccos
    quiet = True
    onnx_op = "Acos"
    lower = _onnx.with_float64(_onnx.acos64)

    def grad(self, op, dy):
        return [_mb.multiply(_math_unary.negative(dy), _inv_sqrt_one_minus_square(op.inputs[0]))]


@register
class Atan(_math_unary.UnaryOp):
    """Inverse tangent."""

    ufunc = np.arctan
    onnx_op = "Atan"
    lower = _onnx.with_float64(_onnx.atan64)

    def grad(self, op, dy):
        x = op.inputs[0]
        return [_mb.multiply(dy, _math_unary.reciprocal(_mb.add(1.0, _math_unary.square(x))))]


@register
class Sinh(_math_unary.UnaryOp):
    """Hyperbolic sine."""

    ufunc = np.sinh
    quiet = True
    onnx_op = "Sinh"
    lower = _onnx.with_float64(_onnx.sinh64)

    def grad(self, op, dy):
        return [_mb.multiply(dy, cosh(op.inputs[0]))]


@register
class Cosh(_math_unary.UnaryOp):
    """Hyperbolic cosine."""

    ufunc = np.cosh
    quiet = True
    onnx_op = "Cosh"
    lower = _onnx.with_float64(_onnx.cosh64)

    def grad(self, op, dy):
        return [_mb.multiply(dy, sinh(op.inputs[0]))]


@register
class Asinh(_math_unary.UnaryOp):
    """Inverse hyperbolic sine."""

    ufunc = np.arcsinh
    onnx_op = "Asinh"
    lower = _onnx.with_float64(_onnx.asinh64)

    def grad(self, op, dy):
        return [_mb.realdiv(dy, cosh(op.outputs[0]))]


@register
class Acosh(_math_unary.UnaryOp):
    """Inverse hyperbolic cosine (nan below 1)."""

    ufunc = np.arccosh
    quiet = True
    onnx_op = "Acosh"
    lower = _onnx.with_float64(_onnx.acosh64)

    def grad(self, op, dy):
        return [_mb.realdiv(dy, sinh(op.outputs[0]))]


@register
class Atanh(_math_unary.UnaryOp):
    """Inverse hyperbolic tangent (±inf at ±1, nan outside)."""

    ufunc = np.arctanh
    quiet = True
    onnx_op = "Atanh"
    lower = _onnx.with_float64(_onnx.atanh64)

    def grad(self, op, dy):
        x = op.inputs[0]
        return [_mb.multiply(dy, _math_unary.reciprocal(_mb.subtract(1.0, _math_unary.square(x))))]


def _inv_sqrt_one_minus_square(x):
    """``1 / _math_unary.sqrt(1 - x**2)`` built as TF1's asin/acos gradients build it."""
    return _math_unary.reciprocal(_math_unary.sqrt(_mb.subtract(1.0, _math_unary.square(x))))


def sin(x, name=None):
    """Sine elementwise; float tensors."""
    return _math_unary.apply_unary("Sin", x, name)


def cos(x, name=None):
    """Cosine elementwise; float tensors."""
    return _math_unary.apply_unary("Cos", x, name)


def tan(x, name=None):
    """Tangent elementwise; float tensors."""
    return _math_unary.apply_unary("Tan", x, name)


def asin(x, name=None):
    """Inverse sine elementwise (nan outside [-1, 1]); float tensors."""
    return _math_unary.apply_unary("Asin", x, name)


def acos(x, name=None):
    """Inverse cosine elementwise (nan outside [-1, 1]); float tensors."""
    return _math_unary.apply_unary("Acos", x, name)


def atan(x, name=None):
    """Inverse tangent elementwise; float tensors."""
    return _math_unary.apply_unary("Atan", x, name)


def sinh(x, name=None):
    """Hyperbolic sine elementwise; float tensors."""
    return _math_unary.apply_unary("Sinh", x, name)


def cosh(x, name=None):
    """Hyperbolic cosine elementwise; float tensors."""
    return _math_unary.apply_unary("Cosh", x, name)


def asinh(x, name=None):
    """Inverse hyperbolic sine elementwise; float tensors."""
    return _math_unary.apply_unary("Asinh", x, name)


def acosh(x, name=None):
    """Inverse hyperbolic cosine elementwise (nan below 1); float tensors."""
    return _math_unary.apply_unary("Acosh", x, name)


def atanh(x, name=None):
    """Inverse hyperbolic tangent elementwise (nan outside [-1, 1]); float tensors."""
    return _math_unary.apply_unary("Atanh", x, name)
