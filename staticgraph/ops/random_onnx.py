"""ONNX lowerings of the random ops (:mod:`.random_ops` calls these).

ONNX's random operators draw from onnxruntime's own generators, so exported
samples follow the same distributions as the numpy kernels, not the same numbers.
Shapes known while declaring become the ``shape`` attribute of
``RandomNormal``/``RandomUniform``; other shapes go through
``ConstantOfShape`` + ``*Like``. The op's TF1 seeds become the ``seed`` attribute
(``ctx.seed()``).

TruncatedNormal has no ONNX operator: it is sampled by inverting the normal CDF,
``sqrt(2) * erfinv(w)`` with ``w`` uniform in ``[-erf(sqrt 2), erf(sqrt 2)]`` (the
image of ``[-2, 2]``), using M. Giles' single-precision rational approximation of
``erfinv`` ("Approximating the erfinv function", GPU Computing Gems, 2010) whose
central branch covers that whole interval.
"""

from __future__ import annotations

import math

import numpy as np

from ..graphlib import dtypes
from .static_value import constant_value

__all__ = ["random_tensor", "standard_normal", "uniform", "truncated_normal", "random_uniform_int",
           "random_shuffle", "multinomial"]

# onnxruntime's random kernels draw float32 and float64 only.
_RANDOM_DTYPES = (dtypes.float32, dtypes.float64)

# Giles' central-branch coefficients of erfinv(x) = x * p(w - 2.5), w = -log(1 - x^2),
# highest degree first, here multiplied by sqrt(2) so that p gives the normal quantile.
_GILES = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
          0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_QUANTILE = tuple(np.float32(c * math.sqrt(2.0)) for c in _GILES)
_ERF_SQRT2 = math.erf(math.sqrt(2.0))  # P(|Z| <= 2) = erf(2 / sqrt(2))


def _static_dims(op):
    """The output's dimensions when all are known while declaring, else None."""
    dims = op.outputs[0].shape.raw
    if dims is None or not dims or any(d is None for d in dims):
        return None
    return [int(d) for d in dims]


def _zeros_of_shape(ctx, op, shape):
    """A float32 zero tensor whose shape is the value of the 1-D int tensor ``shape``."""
    return ctx.node("ConstantOfShape", [ctx.to_int64(shape, op.inputs[0].dtype)])


def random_tensor(ctx, op, shape, kind, dtype, **attrs):
    """``RandomNormal``/``RandomUniform`` (``kind``) of ``dtype`` (float32 or float64)
    shaped as the op's output, whose shape is the value of ``shape`` (a name)."""
    dims = _static_dims(op)
    if dims is not None:
        return ctx.node(kind, [], shape=dims, dtype=ctx.onnx_dtype(dtype), seed=ctx.seed(),
                        **attrs)
    return ctx.node(f"{kind}Like", [_zeros_of_shape(ctx, op, shape)],
                    dtype=ctx.onnx_dtype(dtype), seed=ctx.seed(), **attrs)


def _work(dtype):
    return dtype if dtype in _RANDOM_DTYPES else dtypes.float32


def standard_normal(ctx, op, shape):
    """N(0, 1) samples (float16: drawn in float32 and rounded)."""
    dtype = op.attrs["dtype"]
    out = random_tensor(ctx, op, shape, "RandomNormal", _work(dtype))
    return ctx.cast(out, dtype, _work(dtype))


def uniform(ctx, op, shape):
    """U[0, 1); float16 draws ``k / 2048`` as the kernel does (never rounds up to 1)."""
    dtype = op.attrs["dtype"]
    if dtype is not dtypes.float16:
        return random_tensor(ctx, op, shape, "RandomUniform", dtype)
    k = ctx.node("Floor", [random_tensor(ctx, op, shape, "RandomUniform", dtypes.float32,
                                         high=2048.0)])
    return ctx.node("Mul", [ctx.cast(k, dtype), ctx.scalar(1.0 / 2048, dtype.np_dtype)])


def truncated_normal(ctx, op, shape):
    """N(0, 1) restricted to [-2, 2] by the inverse CDF, computed in float32."""
    dtype = op.attrs["dtype"]
    f32 = np.float32
    x = random_tensor(ctx, op, shape, "RandomUniform", dtypes.float32,
                      low=-_ERF_SQRT2, high=_ERF_SQRT2)
    log = ctx.node("Log", [ctx.node("Sub", [ctx.scalar(1.0, f32),
                                            ctx.node("Mul", [x, x])])])
    w = ctx.node("Sub", [ctx.scalar(-2.5, f32), log])  # -log(1 - x^2) - 2.5
    p = ctx.scalar(_QUANTILE[0], f32)
    for c in _QUANTILE[1:]:
        p = ctx.node("Add", [ctx.node("Mul", [p, w]), ctx.scalar(c, f32)])
    z = ctx.node("Clip", [ctx.node("Mul", [p, x]), ctx.scalar(-2.0, f32),
                          ctx.scalar(2.0, f32)])
    return ctx.cast(z, dtype, dtypes.float32)


def random_uniform_int(ctx, op, shape, minval, maxval):
    """``floor(u * (maxval - minval)) + minval`` in float64 (exact for int32)."""
    f64 = np.float64
    lo_v, hi_v = constant_value(op.inputs[1]), constant_value(op.inputs[2])
    if lo_v is not None and hi_v is not None:
        lo = ctx.scalar(float(lo_v), f64)
        span = ctx.scalar(float(hi_v) - float(lo_v), f64)
    else:
        dtype = op.inputs[1].dtype
        lo = ctx.cast(minval, f64, dtype)
        span = ctx.node("Sub", [ctx.cast(maxval, f64, dtype), lo])
    u = random_tensor(ctx, op, shape, "RandomUniform", dtypes.float64)
    k = ctx.node("Floor", [ctx.node("Mul", [u, span])])
    return ctx.cast(ctx.node("Add", [k, lo]), op.outputs[0].dtype)


def random_shuffle(ctx, op, value):
    """``value`` gathered along axis 0 by the order of random keys (TopK of all)."""
    dims = op.inputs[0].shape.raw
    if dims is None:
        ctx.unsupported("the rank of 'value' must be known (a scalar is returned as is, "
                        "other ranks are shuffled along axis 0)")
    if not dims or dims[0] in (0, 1):
        return ctx.node("Identity", [value])
    if dims[0] is not None:
        n = ctx.int64s([dims[0]])
        keys = ctx.node("RandomUniform", [], shape=[dims[0]], dtype=ctx.onnx_dtype(np.float32),
                        seed=ctx.seed())
    else:
        n = ctx.node("Slice", [ctx.shape(value), ctx.int64s([0]), ctx.int64s([1])])
        keys = ctx.node("RandomUniformLike", [ctx.node("ConstantOfShape", [n])],
                        dtype=ctx.onnx_dtype(np.float32), seed=ctx.seed())
    _, order = ctx.node("TopK", [keys, n], outputs=2)
    return ctx.node("Gather", [value, order], axis=0)


def multinomial(ctx, op, logits, num_samples):
    """ONNX ``Multinomial`` (float32) when ``num_samples`` is known while declaring,
    else inverse-CDF sampling with standard ops. Non-finite logits weigh zero."""
    dtype = op.inputs[0].dtype
    out_dtype = op.attrs["output_dtype"]
    x = ctx.cast(logits, np.float32, dtype)
    if dtype.is_floating:
        finite = ctx.node("Equal", [ctx.node("Sub", [x, x]), ctx.scalar(0.0, np.float32)])
        x = ctx.node("Where", [finite, x, ctx.scalar(-np.inf, np.float32)])
    n = constant_value(op.inputs[1])
    if n is not None:
        return ctx.node("Multinomial", [x], sample_size=int(n),
                        dtype=ctx.onnx_dtype(out_dtype), seed=ctx.seed())
    return _inverse_cdf_samples(ctx, op, x, num_samples, out_dtype)


def _inverse_cdf_samples(ctx, op, x, num_samples, out_dtype):
    """Per row: the number of CDF entries <= u, for ``num_samples`` uniforms u,
    clamped to the last class of positive probability (``classes`` for rows
    without any, as the kernel and onnxruntime's Multinomial give)."""
    f32 = np.float32
    probs = ctx.node("Softmax", [x], axis=-1)  # rows without mass: NaN
    cdf = ctx.node("CumSum", [probs, ctx.scalar(1, np.int64)])
    classes = ctx.node("Slice", [ctx.shape(x), ctx.int64s([1]), ctx.int64s([2])])
    batch = ctx.node("Slice", [ctx.shape(x), ctx.int64s([0]), ctx.int64s([1])])
    count = ctx.node("Reshape", [ctx.to_int64(num_samples, op.inputs[1].dtype),
                                 ctx.int64s([1])])
    zeros = ctx.node("ConstantOfShape", [ctx.node("Concat", [batch, count], axis=0)])
    u = ctx.node("RandomUniformLike", [zeros], dtype=ctx.onnx_dtype(f32), seed=ctx.seed())
    total = ctx.node("Slice", [cdf, ctx.int64s([-1]), ctx.int64s([np.iinfo(np.int64).max]),
                               ctx.int64s([1])])
    u = ctx.node("Mul", [u, total])  # the CDF's own rounding of 1
    below = ctx.node("LessOrEqual", [ctx.node("Unsqueeze", [cdf, ctx.int64s([1])]),
                                     ctx.node("Unsqueeze", [u, ctx.int64s([2])])])
    idx = ctx.node("ReduceSum", [ctx.cast(below, np.int64), ctx.int64s([2])], keepdims=0)
    positive = ctx.cast(ctx.node("Greater", [probs, ctx.scalar(0.0, f32)]), np.int32)
    last = ctx.node("ArgMax", [positive], axis=1, keepdims=1, select_last_index=1)
    has_mass = ctx.node("ReduceMax", [positive, ctx.int64s([1])], keepdims=1)
    idx = ctx.node("Where", [ctx.cast(has_mass, np.bool_), ctx.node("Min", [idx, last]),
                             ctx.node("Reshape", [classes, ctx.int64s([1, 1])])])
    return ctx.cast(idx, out_dtype, np.int64)
