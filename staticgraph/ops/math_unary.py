"""Elementwise unary math: negative, abs, exp, log, sqrt, trigonometry, sigmoid, erf, ...

Each op type is defined once here (inference, numpy kernel, gradient rule); the
public functions keep TF1's names, keywords and default op names. Kernels that can
legitimately produce inf/nan run under ``np.errstate`` so numpy stays silent, as TF1
does. Gradients follow TF1's rules: exp, sqrt, rsqrt, reciprocal, tanh and sigmoid
differentiate through their output, the last five with TF1's fused kernels
(``SqrtGrad``, ``RsqrtGrad``, ``ReciprocalGrad``, ``TanhGrad``, ``SigmoidGrad``, each
differentiable again); rounding ops give None, sign gives zeros.
"""

from __future__ import annotations

import math

import numpy as np

from ..graphlib import dtypes
from . import array_fill as _array_fill
from . import array_shape as _array_shape
from . import math_binary as _mb
from .convert import convert_to_tensor
from .registry import OpDef, Spec, apply_op, register
from .shape_rules import FLOATS, SIGNED_NUMERIC, check_same_dtype, require_dtype, same_as

__all__ = ["negative", "abs", "sign", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt",
           "square", "reciprocal", "floor", "ceil", "round", "rint", "sin", "cos", "tan",
           "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "tanh",
           "sigmoid", "erf", "erfc", "is_nan", "is_inf", "is_finite"]

_QUIET = {"all": "ignore"}


class UnaryOp(OpDef):
    """Base of elementwise ops of one input whose output has the input's dtype and shape."""

    allowed = FLOATS

    def infer(self, x):
        require_dtype(x, self.allowed)
        return same_as(x)


def _zeros_of(t):
    """Zeros of ``t``'s shape and dtype that carry no gradient path back to ``t``."""
    if t.shape.is_fully_defined():
        return _array_fill.zeros(t.shape.raw, dtype=t.dtype)
    return _array_fill.zeros(_array_shape.shape(t), dtype=t.dtype)


def _quiet(fn):
    """``fn`` (a numpy ufunc) run with floating-point warnings silenced."""
    def kernel(x):
        with np.errstate(**_QUIET):
            return fn(x)
    kernel.__name__ = getattr(fn, "__name__", "kernel")
    return staticmethod(kernel)


# ---------------------------------------------------------------- sign and magnitude
@register
class Neg(UnaryOp):
    """``-x``."""

    allowed = SIGNED_NUMERIC
    compute = staticmethod(np.negative)

    def grad(self, op, dy):
        return [negative(dy)]


@register
class Abs(UnaryOp):
    """``|x|`` (the most negative integer stays as is, like C)."""

    allowed = SIGNED_NUMERIC
    compute = staticmethod(np.absolute)

    def grad(self, op, dy):
        return [_mb.multiply(dy, sign(op.inputs[0]))]


@register
class Sign(UnaryOp):
    """-1, 0 or 1 with the sign of ``x`` (nan stays nan)."""

    allowed = SIGNED_NUMERIC
    compute = staticmethod(np.sign)

    def grad(self, op, dy):
        return [_zeros_of(op.inputs[0])]  # TF1: zeros, not None


@register
class Square(UnaryOp):
    """``x * x``."""

    allowed = SIGNED_NUMERIC
    compute = _quiet(np.square)

    def grad(self, op, dy):
        return [_mb.multiply(dy, _mb.multiply(op.inputs[0], 2.0))]


@register
class Reciprocal(UnaryOp):
    """``1 / x``; integers use C's truncating division (``1 / 0`` is an error)."""

    allowed = SIGNED_NUMERIC

    @staticmethod
    def compute(x):
        if x.dtype.kind == "f":
            with np.errstate(**_QUIET):
                return np.reciprocal(x)
        if not np.all(x):
            raise ZeroDivisionError("Integer division by zero in Reciprocal")
        # 1 / x truncated toward zero: x for x in {-1, 1}, else 0.
        return np.where(np.absolute(x) == 1, x, np.zeros((), x.dtype))

    def grad(self, op, dy):
        return [reciprocal_grad(op.outputs[0], dy)]


# ---------------------------------------------------------------- exponentials, logs, roots
@register
class Exp(UnaryOp):
    """``e ** x``."""

    compute = _quiet(np.exp)

    def grad(self, op, dy):
        return [_mb.multiply(dy, op.outputs[0])]


@register
class Expm1(UnaryOp):
    """``e ** x - 1``, accurate for small ``x``."""

    compute = _quiet(np.expm1)

    def grad(self, op, dy):
        return [_mb.multiply(dy, exp(op.inputs[0]))]


@register
class Log(UnaryOp):
    """Natural logarithm (``-inf`` at 0, nan below)."""

    compute = _quiet(np.log)

    def grad(self, op, dy):
        return [_mb.multiply(dy, reciprocal(op.inputs[0]))]


@register
class Log1p(UnaryOp):
    """``log(1 + x)``, accurate for small ``x``."""

    compute = _quiet(np.log1p)

    def grad(self, op, dy):
        return [_mb.multiply(dy, reciprocal(_mb.add(1.0, op.inputs[0])))]


@register
class Sqrt(UnaryOp):
    """Square root (nan for negative inputs)."""

    compute = _quiet(np.sqrt)

    def grad(self, op, dy):
        return [sqrt_grad(op.outputs[0], dy)]


@register
class Rsqrt(UnaryOp):
    """``1 / sqrt(x)``."""

    @staticmethod
    def compute(x):
        with np.errstate(**_QUIET):
            return np.reciprocal(np.sqrt(x))

    def grad(self, op, dy):
        return [rsqrt_grad(op.outputs[0], dy)]


# ---------------------------------------------------------------- rounding
@register
class Floor(UnaryOp):
    """Largest integer not greater than ``x``."""

    compute = staticmethod(np.floor)

    def grad(self, op, dy):
        return [None]  # TF1: no gradient (tf.gradients gives None)


@register
class Ceil(UnaryOp):
    """Smallest integer not less than ``x``."""

    compute = staticmethod(np.ceil)

    def grad(self, op, dy):
        return [None]  # TF1: no gradient (tf.gradients gives None)


@register
class Rint(UnaryOp):
    """Nearest integer, halves to even."""

    compute = staticmethod(np.rint)

    def grad(self, op, dy):
        return [None]  # TF1: no gradient (tf.gradients gives None)


@register
class Round(UnaryOp):
    """Nearest integer, halves to even (banker's rounding); integers unchanged."""

    allowed = SIGNED_NUMERIC

    @staticmethod
    def compute(x):
        if x.dtype.kind == "f":
            return np.rint(x)
        return np.array(x, copy=True)

    def grad(self, op, dy):
        return [None]  # TF1: no gradient (tf.gradients gives None)


# ---------------------------------------------------------------- trigonometric and hyperbolic
@register
class Sin(UnaryOp):
    """Sine."""

    compute = _quiet(np.sin)

    def grad(self, op, dy):
        return [_mb.multiply(dy, cos(op.inputs[0]))]


@register
class Cos(UnaryOp):
    """Cosine."""

    compute = _quiet(np.cos)

    def grad(self, op, dy):
        return [_mb.multiply(negative(dy), sin(op.inputs[0]))]


@register
class Tan(UnaryOp):
    """Tangent."""

    compute = _quiet(np.tan)

    def grad(self, op, dy):
        sec2 = square(reciprocal(cos(op.inputs[0])))
        return [_mb.multiply(sec2, dy)]


@register
class Asin(UnaryOp):
    """Inverse sine (nan outside [-1, 1])."""

    compute = _quiet(np.arcsin)

    def grad(self, op, dy):
        return [_mb.multiply(dy, _inv_sqrt_one_minus_square(op.inputs[0]))]


@register
class Acos(UnaryOp):
    """Inverse cosine (nan outside [-1, 1])."""

    compute = _quiet(np.arccos)

    def grad(self, op, dy):
        return [_mb.multiply(negative(dy), _inv_sqrt_one_minus_square(op.inputs[0]))]


@register
class Atan(UnaryOp):
    """Inverse tangent."""

    compute = staticmethod(np.arctan)

    def grad(self, op, dy):
        return [_mb.multiply(dy, reciprocal(_mb.add(1.0, square(op.inputs[0]))))]


@register
class Sinh(UnaryOp):
    """Hyperbolic sine."""

    compute = _quiet(np.sinh)

    def grad(self, op, dy):
        return [_mb.multiply(dy, cosh(op.inputs[0]))]


@register
class Cosh(UnaryOp):
    """Hyperbolic cosine."""

    compute = _quiet(np.cosh)

    def grad(self, op, dy):
        return [_mb.multiply(dy, sinh(op.inputs[0]))]


@register
class Asinh(UnaryOp):
    """Inverse hyperbolic sine."""

    compute = staticmethod(np.arcsinh)

    def grad(self, op, dy):
        return [_mb.realdiv(dy, cosh(op.outputs[0]))]


@register
class Acosh(UnaryOp):
    """Inverse hyperbolic cosine (nan below 1)."""

    compute = _quiet(np.arccosh)

    def grad(self, op, dy):
        return [_mb.realdiv(dy, sinh(op.outputs[0]))]


@register
class Atanh(UnaryOp):
    """Inverse hyperbolic tangent (±inf at ±1, nan outside)."""

    compute = _quiet(np.arctanh)

    def grad(self, op, dy):
        return [_mb.multiply(dy, reciprocal(_mb.subtract(1.0, square(op.inputs[0]))))]


@register
class Tanh(UnaryOp):
    """Hyperbolic tangent."""

    compute = staticmethod(np.tanh)

    def grad(self, op, dy):
        return [tanh_grad(op.outputs[0], dy)]


@register
class Sigmoid(UnaryOp):
    """``1 / (1 + exp(-x))``, stable for large ``|x|`` (no overflow, tiny tails kept)."""

    @staticmethod
    def compute(x):
        with np.errstate(**_QUIET):
            e = np.exp(-np.absolute(x))       # in (0, 1]: never overflows
            r = np.reciprocal(1 + e)          # sigmoid(|x|)
            return np.where(x >= 0, r, e * r)  # sigmoid(-|x|) = e / (1 + e)

    def grad(self, op, dy):
        return [sigmoid_grad(op.outputs[0], dy)]


# ---------------------------------------------------------------- error function
_SQRT_PI = math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2.0 / _SQRT_PI
# (split, series terms, continued-fraction terms): erf keeps ~1e-15 relative accuracy;
# erfc switches to the continued fraction earlier so 1 - erf never cancels badly.
_ERF_PLAN = (2.5, 42, 34)
_ERFC_PLAN = (1.5, 32, 80)


def _erf_parts(a, split, series_terms, cf_terms):
    """For ``a >= 0`` (float64): erf(min(a, split)) and erfc(max(a, split)).

    erf uses the everywhere-positive series
    ``erf(s) = 2/sqrt(pi) * exp(-s^2) * sum_n 2^n s^(2n+1) / (2n+1)!!``;
    erfc uses Laplace's continued fraction
    ``erfc(b) = exp(-b^2)/sqrt(pi) / (b + 1/2 / (b + 1 / (b + 3/2 / (b + ...))))``.
    """
    s = np.minimum(a, split)
    s2 = s * s
    term = s.copy()
    total = s.copy()
    for n in range(series_terms):
        term *= s2 * (2.0 / (2 * n + 3))
        total += term
    erf_small = (2.0 / _SQRT_PI) * np.exp(-s2) * total
    b = np.maximum(a, split)
    k = np.zeros_like(b)
    for n in range(cf_terms, 0, -1):
        k = (0.5 * n) / (b + k)
    erfc_big = np.exp(-b * b) / (_SQRT_PI * (b + k))
    return erf_small, erfc_big


def _erf(x):
    x64 = np.asarray(x, np.float64)
    with np.errstate(**_QUIET):
        a = np.absolute(x64)
        small, big = _erf_parts(a, *_ERF_PLAN)
        out = np.where(a < _ERF_PLAN[0], small, 1.0 - big)
        out = np.copysign(out, x64)
    return out.astype(x.dtype, copy=False)


def _erfc(x):
    x64 = np.asarray(x, np.float64)
    with np.errstate(**_QUIET):
        a = np.absolute(x64)
        small, big = _erf_parts(a, *_ERFC_PLAN)
        upper = np.where(a < _ERFC_PLAN[0], 1.0 - small, big)     # erfc(|x|)
        out = np.where(x64 < 0, 2.0 - upper, upper)                # erfc(-a) = 2 - erfc(a)
    return out.astype(x.dtype, copy=False)


@register
class Erf(UnaryOp):
    """The Gauss error function (float64 accuracy about 1e-15)."""

    compute = staticmethod(_erf)

    def grad(self, op, dy):
        return [_mb.multiply(_mb.multiply(dy, _TWO_OVER_SQRT_PI),
                             exp(negative(square(op.inputs[0]))))]


@register
class Erfc(UnaryOp):
    """The complementary error function ``1 - erf(x)``, accurate in the tail."""

    compute = staticmethod(_erfc)

    def grad(self, op, dy):
        return [_mb.multiply(_mb.multiply(dy, -_TWO_OVER_SQRT_PI),
                             exp(negative(square(op.inputs[0]))))]


# ---------------------------------------------------------------- fused gradient kernels
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


@register
class SqrtGrad(GradOp):
    """``0.5 * dy / y``: the gradient of ``y = sqrt(x)``."""

    @staticmethod
    def compute(y, dy):
        with np.errstate(**_QUIET):
            t = np.true_divide(dy, y)
            if _fresh(t):
                return np.multiply(t, 0.5, out=t)
            return np.asarray(t * 0.5, dtype=y.dtype)

    def grad(self, op, g):
        y, _ = op.inputs
        ga = _mb.realdiv(g, y)
        return [_mb.multiply(negative(ga), op.outputs[0]), _mb.multiply(ga, 0.5)]


@register
class RsqrtGrad(GradOp):
    """``-0.5 * dy * y ** 3``: the gradient of ``y = rsqrt(x)``."""

    @staticmethod
    def compute(y, dy):
        with np.errstate(**_QUIET):
            t = np.multiply(y, y)
            if _fresh(t):
                np.multiply(t, y, out=t)
                np.multiply(t, dy, out=t)
                return np.multiply(t, -0.5, out=t)
            return np.asarray(t * y * dy * -0.5, dtype=y.dtype)

    def grad(self, op, g):
        y, dy = op.inputs
        ga = _mb.multiply(_mb.multiply(_mb.multiply(g, -1.5), dy), square(y))
        return [ga, rsqrt_grad(y, g)]


@register
class ReciprocalGrad(GradOp):
    """``-dy * y * y``: the gradient of ``y = 1 / x``."""

    @staticmethod
    def compute(y, dy):
        with np.errstate(**_QUIET):
            t = np.multiply(y, y)
            if _fresh(t):
                np.multiply(t, dy, out=t)
                return np.negative(t, out=t)
            return np.asarray(-(t * dy), dtype=y.dtype)

    def grad(self, op, g):
        y, dy = op.inputs
        return [_mb.multiply(_mb.multiply(g, -2.0), _mb.multiply(dy, y)),
                reciprocal_grad(y, g)]


# ---------------------------------------------------------------- classification
class FloatPredicate(OpDef):
    """Base of bool-valued tests of float elements."""

    differentiable = False

    def infer(self, x):
        require_dtype(x, FLOATS)
        return Spec(dtypes.bool, x.shape)


@register
class IsNan(FloatPredicate):
    """True where ``x`` is nan."""

    compute = staticmethod(np.isnan)


@register
class IsInf(FloatPredicate):
    """True where ``x`` is +inf or -inf."""

    compute = staticmethod(np.isinf)


@register
class IsFinite(FloatPredicate):
    """True where ``x`` is neither inf nor nan."""

    compute = staticmethod(np.isfinite)


# ---------------------------------------------------------------- public functions
def _unary(op_type, x, name):
    return apply_op(op_type, [convert_to_tensor(x)], name=name)


def _inv_sqrt_one_minus_square(x):
    """``1 / sqrt(1 - x**2)`` built as TF1's asin/acos gradients build it."""
    return reciprocal(sqrt(_mb.subtract(1.0, square(x))))


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


def negative(x, name=None):
    """``-x`` elementwise (op ``Neg``).

    Args:
        x: a float or signed integer tensor.
        name: op name (default ``"Neg"``).

    Raises:
        TypeError: for unsigned or bool tensors.
    """
    return _unary("Neg", x, name)


def abs(x, name=None):  # noqa: A001 - TF1's name
    """Absolute value ``|x|`` elementwise.

    Args:
        x: a float or signed integer tensor.
        name: op name (default ``"Abs"``).
    """
    return _unary("Abs", x, name)


def sign(x, name=None):
    """-1, 0 or 1 with the sign of each element (same dtype as ``x``)."""
    return _unary("Sign", x, name)


def square(x, name=None):
    """``x * x`` elementwise; float or signed integer tensors."""
    return _unary("Square", x, name)


def reciprocal(x, name=None):
    """``1 / x`` elementwise; integers truncate toward zero (``1 / 0`` fails at run time)."""
    return _unary("Reciprocal", x, name)


def exp(x, name=None):
    """``e ** x`` elementwise; float tensors (TypeError otherwise)."""
    return _unary("Exp", x, name)


def expm1(x, name=None):
    """``exp(x) - 1`` elementwise, accurate near 0; float tensors."""
    return _unary("Expm1", x, name)


def log(x, name=None):
    """Natural logarithm elementwise; ``log(0) = -inf``, negative inputs give nan.

    Example:
        >>> tf.log(tf.constant([1.0, 0.0]))  # [0., -inf]
    """
    return _unary("Log", x, name)


def log1p(x, name=None):
    """``log(1 + x)`` elementwise, accurate near 0; float tensors."""
    return _unary("Log1p", x, name)


def sqrt(x, name=None):
    """Square root elementwise; negative inputs give nan; float tensors."""
    return _unary("Sqrt", x, name)


def rsqrt(x, name=None):
    """``1 / sqrt(x)`` elementwise; float tensors."""
    return _unary("Rsqrt", x, name)


def floor(x, name=None):
    """Largest integer not greater than ``x``, elementwise; float tensors."""
    return _unary("Floor", x, name)


def ceil(x, name=None):
    """Smallest integer not less than ``x``, elementwise; float tensors."""
    return _unary("Ceil", x, name)


def rint(x, name=None):
    """Nearest integer elementwise, halves to even (``rint(2.5) = 2``); float tensors."""
    return _unary("Rint", x, name)


def round(x, name=None):  # noqa: A001 - TF1's name
    """Rounds to the nearest integer, halves to even (``round(2.5) = 2``, ``round(-1.5) = -2``).

    As in TF1, an integer tensor is returned unchanged (no op is created).

    Args:
        x: a float or integer tensor.
        name: op name (default ``"Round"``).
    """
    x = convert_to_tensor(x)
    if x.dtype.is_integer:
        return x
    return apply_op("Round", [x], name=name)


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


def tanh(x, name=None):
    """Hyperbolic tangent elementwise; float tensors (also ``tf.nn.tanh``)."""
    return _unary("Tanh", x, name)


def sigmoid(x, name=None):
    """Logistic function ``1 / (1 + exp(-x))`` elementwise (also ``tf.nn.sigmoid``).

    Stable for large ``|x|``: no overflow, and ``sigmoid(-50)`` keeps its tiny value.

    Args:
        x: a float tensor.
        name: op name (default ``"Sigmoid"``).
    """
    return _unary("Sigmoid", x, name)


def erf(x, name=None):
    """Gauss error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``; float tensors."""
    return _unary("Erf", x, name)


def erfc(x, name=None):
    """Complementary error function ``1 - erf(x)``, accurate for large ``x``; float tensors."""
    return _unary("Erfc", x, name)


def is_nan(x, name=None):
    """Bool tensor, True where ``x`` is nan; float tensors."""
    return _unary("IsNan", x, name)


def is_inf(x, name=None):
    """Bool tensor, True where ``x`` is +inf or -inf; float tensors."""
    return _unary("IsInf", x, name)


def is_finite(x, name=None):
    """Bool tensor, True where ``x`` is neither inf nor nan; float tensors."""
    return _unary("IsFinite", x, name)

