"""Activations of ``tf.nn``: relu, relu6, elu, selu, softplus, softsign, leaky_relu,
softmax, log_softmax, bias_add (and the composites crelu, xw_plus_b).

Each op type is defined once here (inference, numpy kernel, gradient rule); the
public functions keep TF1's names, keywords and default op names. As in TF1, the
activations differentiate through fused gradient ops (``ReluGrad``, ``Relu6Grad``,
``EluGrad``, ``SeluGrad``, ``SoftplusGrad``, ``SoftsignGrad``, ``LeakyReluGrad``,
``BiasAddGrad``), each with its own gradient so second derivatives work; softmax
and log-softmax differentiate through a few elementwise ops and a sum, as TF1's
python rules do.
"""

from __future__ import annotations

import numpy as np

from .. import errors
from ..graphlib import Tensor, TensorShape, dtypes, name_scope
from . import array_combine as _array_combine
from . import array_fill as _array_fill
from . import linalg as _linalg
from . import math_binary as _math_binary
from . import math_compare as _math_compare
from . import math_misc as _math_misc
from . import math_unary as _math_unary
from . import reduction as _reduction
from .convert import constant, convert_same_dtype, convert_to_tensor
from .registry import OpDef, Spec, apply_op, register
from .shape_rules import FLOATS, NUMERIC, check_same_dtype, norm_axis, require_dtype, same_as
from .static_value import constant_value

__all__ = ["relu", "relu6", "elu", "selu", "softplus", "softsign", "leaky_relu", "softmax",
           "log_softmax", "bias_add", "crelu", "xw_plus_b"]

# TF1's SELU constants (Klambauer et al., 2017).
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class _Elementwise(OpDef):
    """An elementwise activation of one tensor; ``allowed`` lists its dtypes."""

    allowed = FLOATS

    def infer(self, features, **_):
        require_dtype(features, self.allowed, "features")
        return same_as(features)


@register
class Relu(_Elementwise):
    """``max(features, 0)``."""

    allowed = NUMERIC

    @staticmethod
    def compute(x):
        return np.maximum(x, x.dtype.type(0))

    def grad(self, op, dy):
        return [relu_grad(dy, op.outputs[0])]


@register
class Relu6(_Elementwise):
    """``min(max(features, 0), 6)``."""

    allowed = NUMERIC

    @staticmethod
    def compute(x):
        return np.minimum(np.maximum(x, x.dtype.type(0)), x.dtype.type(6))

    def grad(self, op, dy):
        return [relu6_grad(dy, op.outputs[0])]


@register
class Elu(_Elementwise):
    """``features`` where positive, ``exp(features) - 1`` elsewhere."""

    @staticmethod
    def compute(x):
        neg = np.expm1(np.minimum(x, x.dtype.type(0)))
        return np.where(x > 0, x, neg)

    def grad(self, op, dy):
        return [elu_grad(dy, op.outputs[0])]


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
        return [selu_grad(dy, op.outputs[0])]


@register
class Softplus(_Elementwise):
    """``log(exp(features) + 1)``, computed without overflow for large ``|features|``."""

    @staticmethod
    def compute(x):
        return np.logaddexp(x.dtype.type(0), x)

    def grad(self, op, dy):
        return [softplus_grad(dy, op.inputs[0])]


@register
class Softsign(_Elementwise):
    """``features / (abs(features) + 1)``."""

    @staticmethod
    def compute(x):
        return x / (np.abs(x) + x.dtype.type(1))

    def grad(self, op, dy):
        return [softsign_grad(dy, op.inputs[0])]


@register
class LeakyRelu(_Elementwise):
    """``features`` where positive, ``alpha * features`` elsewhere (attribute ``alpha``)."""

    attrs = {"alpha": 0.2}

    @staticmethod
    def compute(x, alpha):
        return np.where(x > 0, x, x * x.dtype.type(alpha))

    def grad(self, op, dy):
        return [leaky_relu_grad(dy, op.inputs[0], op.attrs["alpha"])]


class _SoftmaxBase(OpDef):
    """Softmax-like op along attribute ``axis`` (default the last one)."""

    attrs = {"axis": -1}

    def infer(self, logits, *, axis):
        require_dtype(logits, FLOATS, "logits")
        rank = logits.shape.rank
        if rank is not None:
            if rank < 1:
                raise ValueError(f"Shape must be at least rank 1 but is rank {rank}")
            norm_axis(axis, rank)
        return same_as(logits)


# Reductions along a short innermost axis (e.g. 10 classes) are slow in numpy, and
# so is broadcasting (N, 1) against (N, C). Below this many classes the softmax
# kernels work on a transposed (C, N) copy, where both run along contiguous rows.
SMALL_CLASSES = 64


def work_dtype(dtype):
    """The dtype softmax-like kernels compute in (float32 for float16)."""
    return np.float32 if dtype == np.float16 else dtype


def softmax_2d(x2, log=False):
    """Softmax (or log-softmax) of each row of the 2-D array ``x2``, as a new
    C-contiguous array in ``work_dtype``. Callers handle empty arrays and errstate."""
    work = work_dtype(x2.dtype)
    if x2.shape[1] <= SMALL_CLASSES:
        t = np.array(x2.T, dtype=work, order="C")
        t -= t.max(axis=0)
        if log:
            t -= np.log(np.exp(t).sum(axis=0))
        else:
            np.exp(t, out=t)
            t /= t.sum(axis=0)
        return t.T.copy()
    t = np.array(x2, dtype=work)
    t -= t.max(axis=1, keepdims=True)
    if log:
        t -= np.log(np.exp(t).sum(axis=1, keepdims=True))
    else:
        np.exp(t, out=t)
        t /= t.sum(axis=1, keepdims=True)
    return t


def _softmax_nd(x, axis, log):
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if axis == -1 or axis == x.ndim - 1:
            out = softmax_2d(x.reshape(-1, x.shape[-1]), log).reshape(x.shape)
        else:
            t = np.array(x, dtype=work_dtype(x.dtype))
            t -= t.max(axis=axis, keepdims=True)
            if log:
                t -= np.log(np.exp(t).sum(axis=axis, keepdims=True))
            else:
                np.exp(t, out=t)
                t /= t.sum(axis=axis, keepdims=True)
            out = t
    return out.astype(x.dtype, copy=False)


@register
class Softmax(_SoftmaxBase):
    """``exp(logits) / sum(exp(logits), axis)``, computed stably."""

    @staticmethod
    def compute(logits, axis):
        return _softmax_nd(logits, axis, log=False)

    def grad(self, op, dy):
        # TF1: (dy - sum(dy * y, axis, keepdims)) * y, with y the softmax output.
        y = op.outputs[0]
        dot = _reduction.reduce_sum(_math_binary.multiply(dy, y), op.attrs["axis"],
                                    keepdims=True)
        return [_math_binary.multiply(_math_binary.subtract(dy, dot), y)]


@register
class LogSoftmax(_SoftmaxBase):
    """``logits - log(sum(exp(logits), axis))``, computed stably."""

    @staticmethod
    def compute(logits, axis):
        return _softmax_nd(logits, axis, log=True)

    def grad(self, op, dy):
        # TF1: dy - sum(dy, axis, keepdims) * exp(y), with y the log-softmax output.
        total = _reduction.reduce_sum(dy, op.attrs["axis"], keepdims=True)
        return [_math_binary.subtract(
            dy, _math_binary.multiply(total, _math_unary.exp(op.outputs[0])))]


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
        return [dy, bias_add_grad(dy, data_format=op.attrs["data_format"])]


# ------------------------------------------------------------ fused gradient ops
class _ActivationGrad(OpDef):
    """``(gradients, x)`` -> the backpropagated gradient, ``x``'s shape and dtype.

    ``x`` is the forward op's input or output, as TF1's kernel of the same name
    takes it; ``allowed`` lists the dtypes.
    """

    allowed = FLOATS
    second = "x"

    def infer(self, gradients, x, **_):
        check_same_dtype(gradients, x, names=("gradients", self.second))
        require_dtype(gradients, self.allowed, "gradients")
        if not gradients.shape.is_compatible_with(x.shape):
            raise ValueError(f"Inputs to {self.type} must have the same shape: gradients "
                             f"{gradients.shape} vs {self.second} {x.shape}")
        return Spec(gradients.dtype, gradients.shape.merge_with(x.shape))


@register
class ReluGrad(_ActivationGrad):
    """``gradients * (features > 0)``: Relu's gradient (``features`` may be its output)."""

    allowed = NUMERIC
    second = "features"

    @staticmethod
    def compute(gradients, features):
        # A 0/1 mask in the gradients' dtype, multiplied in place: faster than a
        # multiply by a bool array (a casting loop) or np.where.
        mask = (features > 0).astype(gradients.dtype)
        mask *= gradients
        return mask

    def grad(self, op, ddx):
        features = op.inputs[1]
        return [relu_grad(ddx, features), _array_fill.zeros_like(features)]


@register
class Relu6Grad(_ActivationGrad):
    """``gradients * (0 < features < 6)``: Relu6's gradient (``features`` may be its output)."""

    allowed = NUMERIC
    second = "features"

    @staticmethod
    def compute(gradients, features):
        t = features.dtype.type
        mask = features > t(0)
        mask &= features < t(6)
        mask = mask.astype(gradients.dtype)
        mask *= gradients
        return mask

    def grad(self, op, ddx):
        features = op.inputs[1]
        return [relu6_grad(ddx, features), _array_fill.zeros_like(features)]


@register
class EluGrad(_ActivationGrad):
    """Elu's gradient from its output: ``gradients * (outputs + 1)`` where
    ``outputs < 0``, ``gradients`` elsewhere."""

    second = "outputs"

    @staticmethod
    def compute(gradients, outputs):
        t = outputs.dtype.type
        return np.multiply(gradients, np.minimum(outputs, t(0)) + t(1), dtype=gradients.dtype)

    def grad(self, op, ddx):
        dy, y = op.inputs
        negative = _math_compare.less(y, _zero(y))
        return [elu_grad(ddx, y),
                _math_misc.where(negative, _math_binary.multiply(ddx, dy),
                                 _array_fill.zeros_like(y))]


@register
class SeluGrad(_ActivationGrad):
    """Selu's gradient from its output: ``gradients * (outputs + scale * alpha)`` where
    ``outputs < 0``, ``gradients * scale`` elsewhere."""

    second = "outputs"

    @staticmethod
    def compute(gradients, outputs):
        t = outputs.dtype.type
        factor = np.where(outputs < t(0), outputs + t(SELU_SCALE * SELU_ALPHA), t(SELU_SCALE))
        return np.multiply(gradients, factor, dtype=gradients.dtype)

    def grad(self, op, ddx):
        dy, y = op.inputs
        negative = _math_compare.less(y, _zero(y))
        return [selu_grad(ddx, y),
                _math_misc.where(negative, _math_binary.multiply(ddx, dy),
                                 _array_fill.zeros_like(y))]


@register
class SoftplusGrad(_ActivationGrad):
    """Softplus's gradient: ``gradients * sigmoid(features)``."""

    second = "features"

    @staticmethod
    def compute(gradients, features):
        with np.errstate(over="ignore"):
            denom = np.exp(-features) + features.dtype.type(1)
        return np.divide(gradients, denom, dtype=gradients.dtype)

    def grad(self, op, ddx):
        # d/dx [dy * sigmoid(x)] = dy * sigmoid(x) * (1 - sigmoid(x))
        dy, x = op.inputs
        s = _math_unary.sigmoid(x)
        slope = _math_binary.multiply(s, _math_binary.subtract(_one(x), s))
        return [softplus_grad(ddx, x),
                _math_binary.multiply(_math_binary.multiply(ddx, dy), slope)]


@register
class SoftsignGrad(_ActivationGrad):
    """Softsign's gradient: ``gradients / (1 + abs(features)) ** 2``."""

    second = "features"

    @staticmethod
    def compute(gradients, features):
        denom = np.abs(features) + features.dtype.type(1)
        return np.divide(gradients, np.multiply(denom, denom), dtype=gradients.dtype)

    def grad(self, op, ddx):
        # d/dx [dy / (1 + |x|)^2] = -2 * sign(x) * dy / (1 + |x|)^3
        dy, x = op.inputs
        grad_x = softsign_grad(_math_binary.multiply(ddx, dy), x)
        factor = _math_binary.divide(_math_binary.multiply(_math_unary.sign(x), _const(-2, x)),
                                     _math_binary.add(_math_unary.abs(x), _one(x)))
        return [softsign_grad(ddx, x), _math_binary.multiply(grad_x, factor)]


@register
class LeakyReluGrad(_ActivationGrad):
    """LeakyRelu's gradient: ``gradients`` where ``features > 0``, ``alpha * gradients``
    elsewhere."""

    attrs = {"alpha": 0.2}
    second = "features"

    @staticmethod
    def compute(gradients, features, alpha):
        return np.where(features > 0, gradients, gradients * gradients.dtype.type(alpha))

    def grad(self, op, ddx):
        features = op.inputs[1]
        return [leaky_relu_grad(ddx, features, op.attrs["alpha"]),
                _array_fill.zeros_like(features)]


@register
class BiasAddGrad(OpDef):
    """BiasAdd's gradient with respect to the bias: ``out_backprop`` summed over every
    dimension but the channel one (the last for "NHWC", dimension 1 for "NCHW")."""

    attrs = {"data_format": "NHWC"}

    def infer(self, out_backprop, *, data_format):
        require_dtype(out_backprop, NUMERIC, "out_backprop")
        dims = out_backprop.shape.raw
        min_rank = 3 if data_format == "NCHW" else 2
        if dims is None:
            return Spec(out_backprop.dtype, [None])
        if len(dims) < min_rank:
            raise ValueError(f"Shape must be at least rank {min_rank} but is rank {len(dims)} "
                             f"for out_backprop of BiasAddGrad with data_format {data_format}")
        return Spec(out_backprop.dtype, [dims[1] if data_format == "NCHW" else dims[-1]])

    @staticmethod
    def compute(out_backprop, data_format):
        g = out_backprop
        if data_format == "NCHW":
            g = g.reshape(g.shape[0], g.shape[1], -1)
            if g.dtype.kind == "f" and g.dtype != np.float16:
                # Sums by BLAS: over the spatial positions, then over the batch.
                return np.ones(g.shape[0], g.dtype) @ (g @ np.ones(g.shape[2], g.dtype))
            return np.sum(g, axis=(0, 2), dtype=g.dtype)
        g = g.reshape(-1, g.shape[-1])
        if g.dtype.kind == "f" and g.dtype != np.float16:
            return np.ones(g.shape[0], g.dtype) @ g     # BLAS: several times np.sum's speed
        return np.sum(g, axis=0, dtype=g.dtype)

    def grad(self, op, ddb):
        # Broadcast the bias gradient back over out_backprop's shape.
        dy = op.inputs[0]
        return [bias_add(_array_fill.zeros_like(dy), ddb, data_format=op.attrs["data_format"])]


def _const(value, like):
    return constant(np.asarray(value, like.dtype.np_dtype))


def _zero(like):
    return _const(0, like)


def _one(like):
    return _const(1, like)


# ----------------------------------------------- gradient functions (not in tf.nn)
def relu_grad(gradients, features, name=None):
    """Relu's gradient ``gradients * (features > 0)`` (TF1's ``gen_nn_ops.relu_grad``)."""
    return apply_op("ReluGrad", [gradients, features], name=name)


def relu6_grad(gradients, features, name=None):
    """Relu6's gradient ``gradients * (0 < features < 6)``."""
    return apply_op("Relu6Grad", [gradients, features], name=name)


def elu_grad(gradients, outputs, name=None):
    """Elu's gradient from its ``outputs``."""
    return apply_op("EluGrad", [gradients, outputs], name=name)


def selu_grad(gradients, outputs, name=None):
    """Selu's gradient from its ``outputs``."""
    return apply_op("SeluGrad", [gradients, outputs], name=name)


def softplus_grad(gradients, features, name=None):
    """Softplus's gradient ``gradients * sigmoid(features)``."""
    return apply_op("SoftplusGrad", [gradients, features], name=name)


def softsign_grad(gradients, features, name=None):
    """Softsign's gradient ``gradients / (1 + abs(features)) ** 2``."""
    return apply_op("SoftsignGrad", [gradients, features], name=name)


def leaky_relu_grad(gradients, features, alpha=0.2, name=None):
    """LeakyRelu's gradient: ``gradients`` where ``features > 0``, else ``alpha * gradients``."""
    return apply_op("LeakyReluGrad", [gradients, features], {"alpha": float(alpha)}, name=name)


def bias_add_grad(out_backprop, data_format="NHWC", name=None):
    """BiasAdd's bias gradient: ``out_backprop`` summed over all but the channel dimension."""
    return apply_op("BiasAddGrad", [out_backprop], {"data_format": data_format}, name=name)


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


def _softmax_axis(logits, axis, dim):
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'dim' and 'axis'")
    axis = dim if axis is None else axis
    if axis is None:
        return -1
    if isinstance(axis, Tensor):
        value = constant_value(axis)
        if value is None:
            raise TypeError("softmax's axis must be a Python int or a constant tensor")
        axis = value
    axis = int(np.asarray(axis).reshape(()))
    rank = logits.shape.rank
    if rank is not None:
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(
                None, None, f"Dimension ({axis}) must be in the range [{-rank}, {rank}) where "
                            f"{rank} is the number of dimensions in the input.")
        axis %= rank
        if axis == rank - 1:
            axis = -1
    return axis


def softmax(logits, axis=None, name=None, dim=None):
    """Softmax along ``axis``: ``exp(logits) / reduce_sum(exp(logits), axis)``.

    Computed stably (the maximum is subtracted first).

    Args:
        logits: a non-empty-rank float tensor.
        axis: the dimension softmax runs over (default -1, the last).
        name: op name (default ``"Softmax"``).
        dim: deprecated alias of ``axis``.

    Raises:
        InvalidArgumentError: ``axis`` out of range for ``logits``' rank.
        ValueError: both ``axis`` and ``dim`` given.
        TypeError: non-float ``logits``.
    """
    logits = convert_to_tensor(logits)
    axis = _softmax_axis(logits, axis, dim)
    return apply_op("Softmax", [logits], {"axis": axis}, name=name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """Log-softmax along ``axis``: ``logits - log(reduce_sum(exp(logits), axis))``.

    Args:
        logits: a float tensor of rank >= 1.
        axis: the dimension it runs over (default -1, the last).
        name: op name (default ``"LogSoftmax"``).
        dim: deprecated alias of ``axis``.

    Raises:
        InvalidArgumentError: ``axis`` out of range for ``logits``' rank.
        ValueError: both ``axis`` and ``dim`` given.
    """
    logits = convert_to_tensor(logits)
    axis = _softmax_axis(logits, axis, dim)
    return apply_op("LogSoftmax", [logits], {"axis": axis}, name=name)


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
        value, bias = convert_same_dtype(value, bias, names=("value", "bias"))
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
