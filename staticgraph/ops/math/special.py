"""The error functions erf and erfc: a float64 numpy implementation and their op types.

``_erf_parts`` evaluates a power series below a split point and Laplace's continued
fraction above it, keeping about 1e-15 relative accuracy in float64; ``Erfc`` stays
accurate in the tail where ``1 - erf(x)`` would cancel.
"""

from __future__ import annotations

import math

import numpy as np

from . import binary as _mb
from . import elementwise as _elementwise
from . import unary as _math_unary
from ...graphlib.op_def import register

__all__ = ["erf", "erfc"]

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
    with np.errstate(**_elementwise.QUIET):
        a = np.absolute(x64)
        small, big = _erf_parts(a, *_ERF_PLAN)
        out = np.where(a < _ERF_PLAN[0], small, 1.0 - big)
        out = np.copysign(out, x64)
    return out.astype(x.dtype, copy=False)


def _erfc(x):
    x64 = np.asarray(x, np.float64)
    with np.errstate(**_elementwise.QUIET):
        a = np.absolute(x64)
        small, big = _erf_parts(a, *_ERFC_PLAN)
        upper = np.where(a < _ERFC_PLAN[0], 1.0 - small, big)     # erfc(|x|)
        out = np.where(x64 < 0, 2.0 - upper, upper)                # erfc(-a) = 2 - erfc(a)
    return out.astype(x.dtype, copy=False)


@register
class Erf(_math_unary.UnaryOp):
    """The Gauss error function (float64 accuracy about 1e-15)."""

    compute = staticmethod(_erf)

    def grad(self, op, dy):
        return [_mb.multiply(_mb.multiply(dy, _TWO_OVER_SQRT_PI),
                             _math_unary.exp(_math_unary.negative(_math_unary.square(op.inputs[0]))))]

    # onnxruntime has no float64 Erf kernel: float64 is computed in float32 (about
    # 1e-7 absolute accuracy instead of 1e-15).
    onnx_op = "Erf"


@register
class Erfc(_math_unary.UnaryOp):
    """The complementary error function ``1 - erf(x)``, accurate in the tail."""

    compute = staticmethod(_erfc)

    def grad(self, op, dy):
        return [_mb.multiply(_mb.multiply(dy, -_TWO_OVER_SQRT_PI),
                             _math_unary.exp(_math_unary.negative(_math_unary.square(op.inputs[0]))))]

    def lower(self, ctx, inputs, dtype):
        """``1 - Erf(x)`` (ONNX has no Erfc), in float32 for float16 and float64 (no
        float64 Erf kernel), so the tail below about 1e-7 is lost (it flushes to 0)."""
        x32 = ctx.cast(inputs[0], "float32", dtype)
        y = ctx.node("Sub", [ctx.scalar(1, "float32"), ctx.node("Erf", [x32])])
        return ctx.cast(y, dtype, "float32")


def erf(x, name=None):
    """Gauss error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``; float tensors."""
    return _math_unary.apply_unary("Erf", x, name)


def erfc(x, name=None):
    """Complementary error function ``1 - erf(x)``, accurate for large ``x``; float tensors."""
    return _math_unary.apply_unary("Erfc", x, name)
