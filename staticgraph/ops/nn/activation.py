"""Activations of ``tf.nn``: relu, relu6, elu, selu, softplus, softsign, leaky_relu,
bias_add (and the composites crelu, xw_plus_b).

Each op type is defined once here (inference, numpy kernel, gradient rule, ONNX
lowering); the activations are elementwise ops
(:class:`~staticgraph.ops.math.elementwise.ElementwiseOp`), so the fusion pass, the
fused ops' kernels and their ONNX lowering read the same facts. The public
functions keep TF1's names, keywords and default op names. As in TF1, the
activations differentiate through fused gradient ops (``ReluGrad``, ``Relu6Grad``,
``EluGrad``, ``SeluGrad``, ``SoftplusGrad``, ``SoftsignGrad``, ``LeakyReluGrad``,
``BiasAddGrad``), defined in :mod:`.activation_grad`. Softmax and log-softmax
live in :mod:`.softmax`.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import TensorShape, dtypes, name_scope
from ..array import combine as _array_combine
from ..math import elementwise as _elementwise
from ..math import linalg as _linalg
from ..math import misc as _math_misc
from . import activation_grad as _grad
from .. import onnx_support
from ..convert import convert_same_dtype, convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, NUMERIC, check_same_dtype, require_dtype, same_as

__all__ = ["relu", "relu6", "elu", "selu", "softplus", "softsign", "leaky_relu", "bias_add",
           "crelu", "xw_plus_b"]

# TF1's SELU constants (Klambauer et al., 2017).
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class _Elementwise(_elementwise.ElementwiseOp):
    """An elementwise activation of one tensor; ``allowed`` lists its dtypes."""

    allowed = FLOATS

    def infer(self, features, **_):
        require_dtype(features, self.allowed, "features")
        return same_as(features)


@register
class Relu(_Elementwise):
    """``max(features, 0)``."""

    allowed = NUMERIC
    ufunc_steps = ((np.maximum, (0, ("const", 0))),)
    ufunc_for_ints = True
    onnx_op = "Relu"

    @staticmethod
    def compute(x):
        return np.maximum(x, x.dtype.type(0))

    def grad(self, op, dy):
        return [_grad.relu_grad(dy, op.outputs[0])]


@register
class Relu6(_Elementwise):
    """``min(max(features, 0), 6)``."""

    allowed = NUMERIC
    ufunc_steps = ((np.maximum, (0, ("const", 0))), (np.minimum, ("prev", ("const", 6))))
    ufunc_for_ints = True
    onnx_op = "Clip"

    @staticmethod
    def compute(x):
        return np.minimum(np.maximum(x, x.dtype.type(0)), x.dtype.type(6))

    def grad(self, op, dy):
        return [_grad.relu6_grad(dy, op.outputs[0])]

    def lower(self, ctx, inputs, dtype):
        """``Clip`` to [0, 6], in a dtype onnxruntime has a kernel for."""
        work = onnx_support.work_dtype(self.onnx_op, dtype)
        x = ctx.cast(inputs[0], work, dtype)
        out = ctx.node(self.onnx_op, [x, ctx.scalar(0, work), ctx.scalar(6, work)])
        return ctx.cast(out, dtype, work)


@register
class Elu(_Elementwise):
    """``features`` where positive, ``exp(features) - 1`` elsewhere."""

    @staticmethod
    def compute(x):
        neg = np.expm1(np.minimum(x, x.dtype.type(0)))
        return np.where(x > 0, x, neg)

    def grad(self, op, dy):
        return [_grad.elu_grad(dy, op.outputs[0])]

    def lower(self, ctx, inputs, dtype):
        """``Elu`` with TF1's slope 1."""
        return ctx.node("Elu", inputs, alpha=1.0)


@register
class Selu(_Elementwise):
    """``scale * features`` where positive, ``scale * alpha * (exp(features) - 1)`` elsewhere."""

    @staticmethod
    def compute(x):
        t = x.dtype.type
        neg = np.expm1(np.minimum(x, t(0)))
        neg *= t(SELU_ALPHA)
        out = np.where(x > 0, x, neg)
        out *= t(SELU_SCALE)
        return out

    def grad(self, op, dy):
        return [_grad.selu_grad(dy, op.outputs[0])]

    def lower(self, ctx, inputs, dtype):
        """``Selu``; in float64 an ``Elu`` scaled by float64 constants."""
        x, = inputs
        if dtype != dtypes.float64:
            return ctx.node("Selu", [x], alpha=SELU_ALPHA, gamma=SELU_SCALE)
        # ONNX's float attributes are float32: scale an exact Elu by float64 constants.
        neg = ctx.node("PRelu", [ctx.node("Elu", [x], alpha=1.0), ctx.scalar(SELU_ALPHA, dtype)])
        return ctx.node("Mul", [neg, ctx.scalar(SELU_SCALE, dtype)])


@register
class Softplus(_Elementwise):
    """``log(exp(features) + 1)``, computed without overflow for large ``|features|``."""

    onnx_op = "Softplus"   # onnxruntime's is stable for large |x|

    @staticmethod
    def compute(x):
        return np.logaddexp(x.dtype.type(0), x)

    def grad(self, op, dy):
        return [_grad.softplus_grad(dy, op.inputs[0])]


@register
class Softsign(_Elementwise):
    """``features / (abs(features) + 1)``."""

    onnx_op = "Softsign"

    @staticmethod
    def compute(x):
        return x / (np.abs(x) + x.dtype.type(1))

    def grad(self, op, dy):
        return [_grad.softsign_grad(dy, op.inputs[0])]


@register
class LeakyRelu(_Elementwise):
    """``features`` where positive, ``alpha * features`` elsewhere (attribute ``alpha``)."""

    attrs = {"alpha": 0.2}

    @staticmethod
    def compute(x, alpha):
        return np.where(x > 0, x, x * x.dtype.type(alpha))

    def grad(self, op, dy):
        return [_grad.leaky_relu_grad(dy, op.inputs[0], op.attrs["alpha"])]

    def lower(self, ctx, inputs, dtype, alpha):
        """``LeakyRelu``; in float64 a ``PRelu`` (the attribute would round ``alpha``
        to float32)."""
        x, = inputs
        if dtype != dtypes.float64:
            return ctx.node("LeakyRelu", [x], alpha=float(alpha))
        return ctx.node("PRelu", [x, ctx.scalar(alpha, dtype)])


@register
class BiasAdd(OpDef):
    """``value + bias`` with a 1-D ``bias`` along the channel dimension.

    ``data_format`` "NHWC": channels last (rank >= 2); "NCHW": channels are
    dimension 1 (rank >= 3).
    """

    attrs = {"data_format": "NHWC"}

    def infer(self, value, bias, *, data_format):
        check_same_dtype(value, bias, names=("value", "bias"))
        require_dtype(value, NUMERIC, "value")
        min_rank = 3 if data_format == "NCHW" else 2
        vdims, bdims = value.shape.raw, bias.shape.raw
        if vdims is not None and len(vdims) < min_rank:
            raise ValueError(f"Shape must be at least rank {min_rank} but is rank {len(vdims)} "
                             f"for value of BiasAdd with data_format {data_format}")
        if bdims is not None and len(bdims) != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {len(bdims)} for bias of "
                             f"BiasAdd (bias must be 1-D)")
        if vdims is None:
            return Spec(value.dtype, TensorShape(None))
        channel = 1 if data_format == "NCHW" else len(vdims) - 1
        c, b = vdims[channel], None if bdims is None else bdims[0]
        if c is not None and b is not None and c != b:
            raise ValueError(f"Dimensions must be equal, but are {c} and {b}: the bias must "
                             f"match the channel dimension {channel} of value "
                             f"{value.shape} ({data_format})")
        dims = list(vdims)
        dims[channel] = c if c is not None else b
        return Spec(value.dtype, dims)

    @staticmethod
    def compute(value, bias, data_format):
        if data_format == "NCHW":
            bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
        return np.add(value, bias)

    def grad(self, op, dy):
        return [dy, _grad.bias_add_grad(dy, data_format=op.attrs["data_format"])]

    def onnx(self, ctx, op, value, bias):
        if op.attrs["data_format"] == "NHWC":
            return ctx.node("Add", [value, bias])
        rank = op.inputs[0].shape.rank
        if rank is not None:
            shape = ctx.int64s([-1] + [1] * (rank - 2))
        else:   # [-1, 1, ..., 1] with one 1 per dimension after the channels
            tail = ctx.node("Slice", [ctx.shape(value), ctx.int64s([2]),
                                      ctx.int64s([np.iinfo(np.int64).max])])
            ones = ctx.node("Add", [ctx.node("Mul", [tail, ctx.scalar(0, np.int64)]),
                                    ctx.scalar(1, np.int64)])
            shape = ctx.node("Concat", [ctx.int64s([-1]), ones], axis=0)
        return ctx.node("Add", [value, ctx.node("Reshape", [bias, shape])])


# ---------------------------------------------------------------- public functions
def _unary(op_type, features, name):
    return apply_op(op_type, [convert_to_tensor(features)], name=name)


def relu(features, name=None):
    """Rectified linear: ``max(features, 0)``.

    Args:
        features: a numeric tensor.
        name: op name (default ``"Relu"``).

    Example:
        >>> tf.nn.relu([-1.0, 2.0])  # [0., 2.]
    """
    return _unary("Relu", features, name)


def relu6(features, name=None):
    """Rectified linear 6: ``min(max(features, 0), 6)``.

    Args:
        features: a numeric tensor.
        name: op name (default ``"Relu6"``).
    """
    return _unary("Relu6", features, name)


def elu(features, name=None):
    """Exponential linear: ``features`` if > 0 else ``exp(features) - 1``.

    Args:
        features: a float tensor.
        name: op name (default ``"Elu"``).

    Raises:
        TypeError: for a non-float tensor.
    """
    return _unary("Elu", features, name)


def selu(features, name=None):
    """Scaled exponential linear: ``scale * elu`` with TF1's ``alpha`` ≈ 1.6733 and
    ``scale`` ≈ 1.0507 (``scale * alpha * (exp(x) - 1)`` for ``x <= 0``).

    Args:
        features: a float tensor.
        name: op name (default ``"Selu"``).
    """
    return _unary("Selu", features, name)


def softplus(features, name=None):
    """``log(exp(features) + 1)``, stable for large ``|features|``.

    Args:
        features: a float tensor.
        name: op name (default ``"Softplus"``).
    """
    return _unary("Softplus", features, name)


def softsign(features, name=None):
    """``features / (abs(features) + 1)``.

    Args:
        features: a float tensor.
        name: op name (default ``"Softsign"``).
    """
    return _unary("Softsign", features, name)


def leaky_relu(features, alpha=0.2, name=None):
    """Leaky rectified linear: ``features`` if > 0 else ``alpha * features``.

    Integer inputs are converted to float32 first, as in TF1.

    Args:
        features: a numeric tensor.
        alpha: slope for negative inputs (a Python number).
        name: op name (default ``"LeakyRelu"``).
    """
    with name_scope(name, "LeakyRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = _math_misc.cast(features, dtypes.float32)
        return apply_op("LeakyRelu", [features], {"alpha": float(alpha)}, name=scope)


_DATA_FORMATS = {None: "NHWC", "NHWC": "NHWC", "N...C": "NHWC", "NWC": "NHWC", "NDHWC": "NHWC",
                 "NCHW": "NCHW", "NC...": "NCHW", "NCW": "NCHW", "NCDHW": "NCHW"}


def bias_add(value, bias, data_format=None, name=None):
    """Adds a 1-D ``bias`` to ``value`` along its channel dimension.

    Args:
        value: a tensor of rank >= 2 (rank >= 3 for "NCHW").
        bias: a 1-D tensor whose size is the channel dimension; same dtype as ``value``.
        data_format: "NHWC" (default, channels last) or "NCHW" (channels in dimension 1).
        name: op name (default ``"BiasAdd"``).

    Raises:
        ValueError: ``bias`` is not 1-D or does not match the channel dimension, or an
            unknown ``data_format``.
        TypeError: ``value`` and ``bias`` dtypes differ.
    """
    if data_format not in _DATA_FORMATS:
        raise ValueError(f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}")
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        value, bias = convert_same_dtype(value, bias, names=("value", "bias"),
                                         op_type="BiasAdd", name=scope)
        return apply_op("BiasAdd", [value, bias], {"data_format": _DATA_FORMATS[data_format]},
                        name=scope)


def crelu(features, name=None, axis=-1):
    """Concatenated ReLU: ``concat([relu(features), relu(-features)], axis)``.

    The output's ``axis`` dimension is twice the input's.

    Args:
        features: a numeric tensor.
        name: name scope (default ``"CRelu"``).
        axis: the dimension the two halves are concatenated along.
    """
    with name_scope(name, "CRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        c = _array_combine.concat([features, -features], axis, name=scope)
        return relu(c)


def xw_plus_b(x, weights, biases, name=None):
    """``matmul(x, weights) + biases`` (a :func:`bias_add` of a matmul).

    Args:
        x: a 2-D tensor ``[batch, in]``.
        weights: a 2-D tensor ``[in, out]``.
        biases: a 1-D tensor ``[out]``.
        name: name scope (default ``"xw_plus_b"``).
    """
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        mm = _linalg.matmul(x, weights)
        return bias_add(mm, biases, name=scope)
