"""TF1's fused gradient kernels of unary math: TanhGrad, SigmoidGrad, SqrtGrad, RsqrtGrad,
ReciprocalGrad.

Each computes ``f(y, dy)`` from a forward op's output ``y`` and the gradient ``dy``
arriving at it, and is differentiable again. The forward ops (unary.py) use
them in their gradient rules; the helper functions are not exported to ``tf.*``.
"""

from __future__ import annotations

import numpy as np

from . import binary as _mb
from . import elementwise as _elementwise
from . import unary as _math_unary
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, check_same_dtype, require_dtype

__all__ = []


class GradOp(OpDef):
    """Base of TF1's fused gradient kernels ``f(y, dy)``: ``y`` the forward output, ``dy``
    the gradient arriving at it; both of one float dtype and shape."""

    def infer(self, y, dy):
        check_same_dtype(y, dy, names=("y", "dy"))
        require_dtype(y, FLOATS, "y")
        if not y.shape.is_compatible_with(dy.shape):
            raise ValueError(f"{self.type} needs y and dy of one shape, got {y.shape} "
                             f"and {dy.shape}")
        return Spec(y.dtype, y.shape.merge_with(dy.shape))


def _fresh(t):
    """True when ``t`` is an ndarray the kernel may overwrite (its own temporary)."""
    return type(t) is np.ndarray and t.ndim > 0


@register
class TanhGrad(GradOp):
    """``dy * (1 - y * y)``: the gradient of ``y = tanh(x)``."""

    @staticmethod
    def compute(y, dy):
        t = np.multiply(y, y)
        if _fresh(t):
            np.subtract(1, t, out=t)
            return np.multiply(t, dy, out=t)
        return np.asarray((1 - t) * dy, dtype=y.dtype)

    def grad(self, op, g):
        y, dy = op.inputs
        return [_mb.multiply(_mb.multiply(g, -2.0), _mb.multiply(dy, y)), tanh_grad(y, g)]

    def onnx(self, ctx, op, y, dy):
        one = ctx.scalar(1, op.inputs[0].dtype)
        return ctx.node("Mul", [ctx.node("Sub", [one, ctx.node("Mul", [y, y])]), dy])


@register
class SigmoidGrad(GradOp):
    """``dy * y * (1 - y)``: the gradient of ``y = sigmoid(x)``."""

    @staticmethod
    def compute(y, dy):
        t = np.subtract(1, y)
        if _fresh(t):
            np.multiply(t, y, out=t)
            return np.multiply(t, dy, out=t)
        return np.asarray(t * y * dy, dtype=y.dtype)

    def grad(self, op, g):
        y, dy = op.inputs
        gb = _mb.multiply(g, dy)
        return [_mb.subtract(gb, _mb.multiply(_mb.multiply(gb, 2.0), y)), sigmoid_grad(y, g)]

    def onnx(self, ctx, op, y, dy):
        one = ctx.scalar(1, op.inputs[0].dtype)
        return ctx.node("Mul", [ctx.node("Mul", [ctx.node("Sub", [one, y]), y]), dy])


@register
class SqrtGrad(GradOp):
    """``0.5 * dy / y``: the gradient of ``y = sqrt(x)``."""

    @staticmethod
    def compute(y, dy):
        with np.errstate(**_elementwise.QUIET):
            t = np.true_divide(dy, y)
            if _fresh(t):
                return np.multiply(t, 0.5, out=t)
            return np.asarray(t * 0.5, dtype=y.dtype)

    def grad(self, op, g):
        y, _ = op.inputs
        ga = _mb.realdiv(g, y)
        return [_mb.multiply(_math_unary.negative(ga), op.outputs[0]), _mb.multiply(ga, 0.5)]

    def onnx(self, ctx, op, y, dy):
        half = ctx.scalar(0.5, op.inputs[0].dtype)
        return ctx.node("Mul", [ctx.node("Div", [dy, y]), half])


@register
class RsqrtGrad(GradOp):
    """``-0.5 * dy * y ** 3``: the gradient of ``y = rsqrt(x)``."""

    @staticmethod
    def compute(y, dy):
        with np.errstate(**_elementwise.QUIET):
            t = np.multiply(y, y)
            if _fresh(t):
                np.multiply(t, y, out=t)
                np.multiply(t, dy, out=t)
                return np.multiply(t, -0.5, out=t)
            return np.asarray(t * y * dy * -0.5, dtype=y.dtype)

    def grad(self, op, g):
        y, dy = op.inputs
        ga = _mb.multiply(_mb.multiply(_mb.multiply(g, -1.5), dy), _math_unary.square(y))
        return [ga, rsqrt_grad(y, g)]

    def onnx(self, ctx, op, y, dy):
        cube = ctx.node("Mul", [ctx.node("Mul", [y, y]), y])
        minus_half = ctx.scalar(-0.5, op.inputs[0].dtype)
        return ctx.node("Mul", [ctx.node("Mul", [cube, dy]), minus_half])


@register
class ReciprocalGrad(GradOp):
    """``-dy * y * y``: the gradient of ``y = 1 / x``."""

    @staticmethod
    def compute(y, dy):
        with np.errstate(**_elementwise.QUIET):
            t = np.multiply(y, y)
            if _fresh(t):
                np.multiply(t, dy, out=t)
                return np.negative(t, out=t)
            return np.asarray(-(t * dy), dtype=y.dtype)

    def grad(self, op, g):
        y, dy = op.inputs
        return [_mb.multiply(_mb.multiply(g, -2.0), _mb.multiply(dy, y)),
                reciprocal_grad(y, g)]

    def onnx(self, ctx, op, y, dy):
        return ctx.node("Neg", [ctx.node("Mul", [ctx.node("Mul", [y, y]), dy])])


def _grad_op(op_type, y, dy, name):
    y, dy = convert_to_tensor(y), convert_to_tensor(dy)
    return apply_op(op_type, [y, dy], name=name)


def tanh_grad(y, dy, name=None):
    """``dy * (1 - y**2)`` (op ``TanhGrad``): backprop through ``y = tanh(x)``.

    Args:
        y: the output of ``tanh``; a float tensor.
        dy: the gradient arriving at ``y``; same dtype and shape.
        name: op name (default ``"TanhGrad"``).
    """
    return _grad_op("TanhGrad", y, dy, name)


def sigmoid_grad(y, dy, name=None):
    """``dy * y * (1 - y)`` (op ``SigmoidGrad``): backprop through ``y = sigmoid(x)``."""
    return _grad_op("SigmoidGrad", y, dy, name)


def sqrt_grad(y, dy, name=None):
    """``0.5 * dy / y`` (op ``SqrtGrad``): backprop through ``y = sqrt(x)``."""
    return _grad_op("SqrtGrad", y, dy, name)


def rsqrt_grad(y, dy, name=None):
    """``-0.5 * dy * y**3`` (op ``RsqrtGrad``): backprop through ``y = rsqrt(x)``."""
    return _grad_op("RsqrtGrad", y, dy, name)


def reciprocal_grad(y, dy, name=None):
    """``-dy * y**2`` (op ``ReciprocalGrad``): backprop through ``y = 1 / x``."""
    return _grad_op("ReciprocalGrad", y, dy, name)
