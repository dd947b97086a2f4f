"""ONNX lowering helpers shared by the elementwise math ops (unary.py, trig.py).

onnxruntime has no float64 kernels of the inverse and hyperbolic trigonometric
functions (:data:`~staticgraph.ops.onnx_support.LACKS`), and ONNX has no expm1 or
log1p. The helpers here build accurate formulations from operators that do have
float64 kernels, so an exported float64 model keeps float64 accuracy (about 1e-14
relative rather than float32's 1e-7):

* ``log1p``: ``log(u) - ((u - 1) - x) / u`` with ``u = 1 + x`` corrects the rounding
  of ``u`` (exact cases, including ``x = -1`` and ``inf``, take ``log(u)``).
* ``expm1``: ``(u - 1) + u * (x - log(u))`` with ``u = exp(x)`` corrects the rounding
  of ``u`` for ``|x| < 1``; beyond, ``u - 1`` itself is accurate.
* ``atan`` in float64: float32 Atan after reducing to ``|z| <= 1``, then one Newton
  step in float64 (squares the 1e-7 error); ``asin``/``acos`` go through it.
* ``sinh``/``cosh``/``asinh``/``acosh``/``atanh`` from exp/expm1/log1p/sqrt.

Float16 inputs are computed in float32 and rounded, as the numpy kernels do.
"""

from __future__ import annotations

import math

from .. import onnx_support

__all__ = []


def float_formula(build):
    """A ``lower`` method (see :class:`.elementwise.ElementwiseOp`) for a float op
    computed by ``build(ctx, x, dtype_name)``; float16 runs the float32 formula and is
    cast back."""
    def lower(self, ctx, inputs, dtype):
        x = inputs[0]
        if dtype.name == "float16":
            y = build(ctx, ctx.cast(x, "float32"), "float32")
            return ctx.cast(y, dtype, "float32")
        return build(ctx, x, dtype.name)
    lower.__doc__ = f"Lowered as {build.__doc__}"
    return lower


def with_float64(float64):
    """A ``lower`` method emitting the op's ``onnx_op``, or the formulation
    ``float64(ctx, x)`` where onnxruntime lacks the operator's float64 kernel."""
    def lower(self, ctx, inputs, dtype):
        if onnx_support.lacks(self.onnx_op, dtype):
            return float64(ctx, inputs[0])
        return ctx.node(self.onnx_op, list(inputs))
    lower.__doc__ = f"Lowered to the ONNX operator (where float64 lacks it: {float64.__doc__})"
    return lower


def const(ctx, value, dt):
    """A shared rank-0 constant of dtype name ``dt``."""
    return ctx.scalar(value, dt)


# ---------------------------------------------------------------- logs and exponentials
def log1p(ctx, x, dt):
    """``log(1 + x)`` accurate near 0 (float32/float64 ``x``; 8 nodes)."""
    one = const(ctx, 1, dt)
    u = ctx.node("Add", [x, one])
    d = ctx.node("Sub", [u, one])
    log_u = ctx.node("Log", [u])
    # u = 1 + x + e with e = d - x (exact): log(1 + x) = log(u) - e / u + O(e^2).
    y = ctx.node("Sub", [log_u, ctx.node("Div", [ctx.node("Sub", [d, x]), u])])
    # 1 + x exact (x <= -0.5, large x, x = -1, inf): log(u) as is (the correction is nan
    # for u = 0 and u = inf).
    return ctx.node("Where", [ctx.node("Equal", [d, x]), log_u, y])


def expm1(ctx, x, dt):
    """``exp(x) - 1`` accurate near 0 (float32/float64 ``x``; 9 nodes)."""
    one = const(ctx, 1, dt)
    u = ctx.node("Exp", [x])
    d = ctx.node("Sub", [u, one])
    # u = exp(x - r) with r = x - log(u): exp(x) - 1 = d + u * r + O(r^2).
    r = ctx.node("Sub", [x, ctx.node("Log", [u])])
    near = ctx.node("Add", [d, ctx.node("Mul", [u, r])])
    # Beyond |x| < 1 the subtraction loses nothing (and u may be 0 or inf).
    small = ctx.node("Less", [ctx.node("Abs", [x]), one])
    return ctx.node("Where", [small, near, d])


# ---------------------------------------------------------------- float64 trigonometry
def atan64(ctx, x, dt="float64"):
    """``atan(x)`` for float64 ``x``: float32 Atan refined by one float64 Newton step."""
    one = const(ctx, 1, dt)
    big = ctx.node("Greater", [ctx.node("Abs", [x]), one])
    z = ctx.node("Where", [big, ctx.node("Reciprocal", [x]), x])    # |z| <= 1
    y0 = ctx.cast(ctx.node("Atan", [ctx.cast(z, "float32")]), dt)
    # Newton on g(y) = sin(y) - z cos(y), g'(y) = 1 / cos(y) at the root.
    cos = ctx.node("Cos", [y0])
    g = ctx.node("Sub", [ctx.node("Sin", [y0]), ctx.node("Mul", [z, cos])])
    y = ctx.node("Sub", [y0, ctx.node("Mul", [g, cos])])
    # atan(x) = sign(x) * pi / 2 - atan(1 / x) for |x| > 1.
    half_pi = ctx.node("Mul", [ctx.node("Sign", [x]), const(ctx, math.pi / 2, dt)])
    return ctx.node("Where", [big, ctx.node("Sub", [half_pi, y]), y])


def asin64(ctx, x, dt="float64"):
    """``asin(x) = atan(x / sqrt((1 - x)(1 + x)))`` (nan outside [-1, 1])."""
    one = const(ctx, 1, dt)
    c2 = ctx.node("Mul", [ctx.node("Sub", [one, x]), ctx.node("Add", [one, x])])
    return atan64(ctx, ctx.node("Div", [x, ctx.node("Sqrt", [c2])]), dt)


def acos64(ctx, x, dt="float64"):
    """``acos(x) = 2 atan(sqrt((1 - x) / (1 + x)))`` (nan outside [-1, 1])."""
    one = const(ctx, 1, dt)
    t = ctx.node("Sqrt", [ctx.node("Div", [ctx.node("Sub", [one, x]),
                                           ctx.node("Add", [one, x])])])
    return ctx.node("Mul", [atan64(ctx, t, dt), const(ctx, 2, dt)])


def tan64(ctx, x, dt="float64"):
    """``sin(x) / cos(x)``."""
    return ctx.node("Div", [ctx.node("Sin", [x]), ctx.node("Cos", [x])])


def cosh64(ctx, x, dt="float64"):
    """``h + 1 / (4 h)`` with ``h = exp(|x| - log 2)`` (finite up to cosh's own overflow)."""
    h = ctx.node("Exp", [ctx.node("Sub", [ctx.node("Abs", [x]), const(ctx, math.log(2), dt)])])
    return ctx.node("Add", [h, ctx.node("Div", [const(ctx, 0.25, dt), h])])


def sinh64(ctx, x, dt="float64"):
    """``sign(x) (E + E / (E + 1)) / 2`` with ``E = expm1(|x|)``: no cancellation near 0."""
    one = const(ctx, 1, dt)
    e = expm1(ctx, ctx.node("Abs", [x]), dt)
    # E / (E + 1) written as 1 / (1 + 1 / E): 0 at E = 0, 1 at E = inf.
    q = ctx.node("Reciprocal", [ctx.node("Add", [one, ctx.node("Reciprocal", [e])])])
    s = ctx.node("Mul", [ctx.node("Add", [e, q]), const(ctx, 0.5, dt)])
    return ctx.node("Mul", [ctx.node("Sign", [x]), s])


def asinh64(ctx, x, dt="float64"):
    """``sign(x) log1p(a + a / (1/a + sqrt(1 + 1/a^2)))`` with ``a = |x|``."""
    one = const(ctx, 1, dt)
    a = ctx.node("Abs", [x])
    r = ctx.node("Reciprocal", [a])
    root = ctx.node("Sqrt", [ctx.node("Add", [one, ctx.node("Mul", [r, r])])])
    t = ctx.node("Add", [a, ctx.node("Div", [a, ctx.node("Add", [r, root])])])
    return ctx.node("Mul", [ctx.node("Sign", [x]), log1p(ctx, t, dt)])


def acosh64(ctx, x, dt="float64"):
    """``log1p(t + sqrt(t) sqrt(t + 2))`` with ``t = x - 1`` (nan below 1)."""
    t = ctx.node("Sub", [x, const(ctx, 1, dt)])
    root = ctx.node("Mul", [ctx.node("Sqrt", [t]),
                            ctx.node("Sqrt", [ctx.node("Add", [t, const(ctx, 2, dt)])])])
    return log1p(ctx, ctx.node("Add", [t, root]), dt)


def atanh64(ctx, x, dt="float64"):
    """``log1p(2x / (1 - x)) / 2`` (inf at 1, -inf at -1, nan outside)."""
    ratio = ctx.node("Div", [ctx.node("Add", [x, x]),
                             ctx.node("Sub", [const(ctx, 1, dt), x])])
    return ctx.node("Mul", [log1p(ctx, ratio, dt), const(ctx, 0.5, dt)])
