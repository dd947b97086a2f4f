"""Elementwise unary math: negative, abs, exp, log, sqrt, rounding, tanh, sigmoid, is_nan, ...

Each op type is defined once here (inference, numpy kernel, gradient rule); the
public functions keep TF1's names, keywords and default op names. Kernels that can
legitimately produce inf/nan run under ``np.errstate`` so numpy stays silent, as TF1
does. Gradients follow TF1's rules: exp, sqrt, rsqrt, reciprocal, tanh and sigmoid
differentiate through their output, the last five with TF1's fused kernels
(``SqrtGrad``, ``RsqrtGrad``, ``ReciprocalGrad``, ``TanhGrad``, ``SigmoidGrad``, in
math_unary_grad.py); rounding ops give None, sign gives zeros. ``UnaryOp``, ``_quiet``
and ``_unary`` are shared with math_trig.py (sin, cos, ...) and math_special.py (erf).
"""

from __future__ import annotations

import numpy as np

from ...graphlib import dtypes
from ..array import fill as _array_fill
from ..array import shape as _array_shape
from . import binary as _mb
from . import unary_grad as _math_unary_grad
from . import unary_onnx as _onnx
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, SIGNED_NUMERIC, require_dtype, same_as

__all__ = ["negative", "abs", "sign", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt",
           "square", "reciprocal", "floor", "ceil", "round", "rint", "tanh", "sigmoid",
           "is_nan", "is_inf", "is_finite"]

_QUIET = {"all": "ignore"}
# Every dtype of these ops has an onnxruntime kernel (Abs, Sign).
_ANY = ("float32", "float64", "float16", "int8", "int16", "int32", "int64")


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

    def onnx(self, ctx, op, x):
        dtype = op.inputs[0].dtype
        if dtype.name in ("int8", "int16"):  # no Neg kernel: 0 - x wraps the same way
            return ctx.node("Sub", [ctx.scalar(0, dtype), x])
        return ctx.node("Neg", [x])


@register
class Abs(UnaryOp):
    """``|x|`` (the most negative integer stays as is, like C)."""

    allowed = SIGNED_NUMERIC
    compute = staticmethod(np.absolute)

    def grad(self, op, dy):
        return [_mb.multiply(dy, sign(op.inputs[0]))]

    onnx = _onnx.elementwise("Abs", _ANY)


@register
class Sign(UnaryOp):
    """-1, 0 or 1 with the sign of ``x`` (nan stays nan)."""

    allowed = SIGNED_NUMERIC
    compute = staticmethod(np.sign)

    def grad(self, op, dy):
        return [_zeros_of(op.inputs[0])]  # TF1: zeros, not None

    onnx = _onnx.elementwise("Sign", _ANY)


@register
class Square(UnaryOp):
    """``x * x``."""

    allowed = SIGNED_NUMERIC
    compute = _quiet(np.square)

    def grad(self, op, dy):
        return [_mb.multiply(dy, _mb.multiply(op.inputs[0], 2.0))]

    def onnx(self, ctx, op, x):
        return ctx.node("Mul", [x, x])


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
        return [_math_unary_grad.reciprocal_grad(op.outputs[0], dy)]

    def onnx(self, ctx, op, x):
        dtype = op.inputs[0].dtype
        if dtype.is_floating:
            return ctx.node("Reciprocal", [x])
        # Integers: x where |x| == 1, else 0 (1 / 0 cannot fail in ONNX: it gives 0).
        unit = ctx.node("Equal", [ctx.node("Abs", [x]), ctx.scalar(1, dtype)])
        return ctx.node("Where", [unit, x, ctx.scalar(0, dtype)])


# ---------------------------------------------------------------- exponentials, logs, roots
@register
class Exp(UnaryOp):
    """``e ** x``."""

    compute = _quiet(np.exp)

    def grad(self, op, dy):
        return [_mb.multiply(dy, op.outputs[0])]

    onnx = _onnx.elementwise("Exp")


@register
class Expm1(UnaryOp):
    """``e ** x - 1``, accurate for small ``x``."""

    compute = _quiet(np.expm1)

    def grad(self, op, dy):
        return [_mb.multiply(dy, exp(op.inputs[0]))]

    onnx = _onnx.float_formula(_onnx.expm1)


@register
class Log(UnaryOp):
    """Natural logarithm (``-inf`` at 0, nan below)."""

    compute = _quiet(np.log)

    def grad(self, op, dy):
        return [_mb.multiply(dy, reciprocal(op.inputs[0]))]

    onnx = _onnx.elementwise("Log")


@register
class Log1p(UnaryOp):
    """``log(1 + x)``, accurate for small ``x``."""

    compute = _quiet(np.log1p)

    def grad(self, op, dy):
        return [_mb.multiply(dy, reciprocal(_mb.add(1.0, op.inputs[0])))]

    onnx = _onnx.float_formula(_onnx.log1p)


@register
class Sqrt(UnaryOp):
    """Square root (nan for negative inputs)."""

    compute = _quiet(np.sqrt)

    def grad(self, op, dy):
        return [_math_unary_grad.sqrt_grad(op.outputs[0], dy)]

    onnx = _onnx.elementwise("Sqrt")


@register
class Rsqrt(UnaryOp):
    """``1 / sqrt(x)``."""

    @staticmethod
    def compute(x):
        with np.errstate(**_QUIET):
            return np.reciprocal(np.sqrt(x))

    def grad(self, op, dy):
        return [_math_unary_grad.rsqrt_grad(op.outputs[0], dy)]

    def onnx(self, ctx, op, x):
        return ctx.node("Reciprocal", [ctx.node("Sqrt", [x])])


# ---------------------------------------------------------------- rounding
@register
class Floor(UnaryOp):
    """Largest integer not greater than ``x``."""

    compute = staticmethod(np.floor)

    def grad(self, op, dy):
        return [None]  # TF1: no gradient (tf.gradients gives None)

    onnx = _onnx.elementwise("Floor")


@register
class Ceil(UnaryOp):
    """Smallest integer not less than ``x``."""

    compute = staticmethod(np.ceil)

    def grad(self, op, dy):
        return [None]  # TF1: no gradient (tf.gradients gives None)

    onnx = _onnx.elementwise("Ceil")


@register
class Rint(UnaryOp):
    """Nearest integer, halves to even."""

    compute = staticmethod(np.rint)

    def grad(self, op, dy):
        return [None]  # TF1: no gradient (tf.gradients gives None)

    onnx = _onnx.elementwise("Round")  # ONNX Round: halves to even


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

    def onnx(self, ctx, op, x):
        if op.inputs[0].dtype.is_floating:
            return ctx.node("Round", [x])  # halves to even, as TF
        return ctx.node("Identity", [x])


# ---------------------------------------------------------------- tanh and logistic
@register
class Tanh(UnaryOp):
    """Hyperbolic tangent."""

    compute = staticmethod(np.tanh)

    def grad(self, op, dy):
        return [_math_unary_grad.tanh_grad(op.outputs[0], dy)]

    onnx = _onnx.elementwise("Tanh")


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
        return [_math_unary_grad.sigmoid_grad(op.outputs[0], dy)]

    onnx = _onnx.elementwise("Sigmoid")


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

    onnx = _onnx.elementwise("IsNaN")


@register
class IsInf(FloatPredicate):
    """True where ``x`` is +inf or -inf."""

    compute = staticmethod(np.isinf)

    def onnx(self, ctx, op, x):
        if op.inputs[0].dtype.name == "float16":  # no float16 kernel; the cast is exact
            x = ctx.cast(x, "float32")
        return ctx.node("IsInf", [x])


@register
class IsFinite(FloatPredicate):
    """True where ``x`` is neither inf nor nan."""

    compute = staticmethod(np.isfinite)

    def onnx(self, ctx, op, x):
        # |x| < inf: False for +-inf and nan (no IsFinite in ONNX).
        inf = ctx.scalar(np.inf, op.inputs[0].dtype)
        return ctx.node("Less", [ctx.node("Abs", [x]), inf])


# ---------------------------------------------------------------- public functions
def _unary(op_type, x, name):
    return apply_op(op_type, [convert_to_tensor(x)], name=name)


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


def is_nan(x, name=None):
    """Bool tensor, True where ``x`` is nan; float tensors."""
    return _unary("IsNan", x, name)


def is_inf(x, name=None):
    """Bool tensor, True where ``x`` is +inf or -inf; float tensors."""
    return _unary("IsInf", x, name)


def is_finite(x, name=None):
    """Bool tensor, True where ``x`` is neither inf nor nan; float tensors."""
    return _unary("IsFinite", x, name)

