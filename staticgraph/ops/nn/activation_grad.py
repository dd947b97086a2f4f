"""The fused gradient ops of the activations in :mod:`.activation`: ``ReluGrad``,
``Relu6Grad``, ``EluGrad``, ``SeluGrad``, ``SoftplusGrad``, ``SoftsignGrad``,
``LeakyReluGrad`` and ``BiasAddGrad``, with their functions (TF1's ``gen_nn_ops``
names; not in ``tf.nn``).

As in TF1, each activation differentiates through one of these ops; each has its
own gradient so second derivatives work.
"""

from __future__ import annotations

import numpy as np

from ..array import fill as _array_fill
from ..math import binary as _math_binary
from ..math import compare as _math_compare
from ..math import misc as _math_misc
from ..math import unary as _math_unary
from . import activation as _act
from .. import onnx_support
from ..convert import constant
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, NUMERIC, check_same_dtype, require_dtype

__all__ = []


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

    def onnx(self, ctx, op, gradients, features):
        # A 0/1 mask times the gradients, like the kernel (NaN/inf gradients stay NaN).
        dtype = op.inputs[0].dtype
        mask = ctx.node("Greater", [features, ctx.scalar(0, dtype)])
        return ctx.node("Mul", [gradients, ctx.cast(mask, dtype)])


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

    def onnx(self, ctx, op, gradients, features):
        dtype = op.inputs[0].dtype
        mask = ctx.node("And", [ctx.node("Greater", [features, ctx.scalar(0, dtype)]),
                                ctx.node("Less", [features, ctx.scalar(6, dtype)])])
        return ctx.node("Mul", [gradients, ctx.cast(mask, dtype)])


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

    def onnx(self, ctx, op, gradients, outputs):
        dtype = op.inputs[0].dtype
        factor = ctx.node("Add", [ctx.node("Min", [outputs, ctx.scalar(0, dtype)]),
                                  ctx.scalar(1, dtype)])
        return ctx.node("Mul", [gradients, factor])


@register
class SeluGrad(_ActivationGrad):
    """Selu's gradient from its output: ``gradients * (outputs + scale * alpha)`` where
    ``outputs < 0``, ``gradients * scale`` elsewhere."""

    second = "outputs"

    @staticmethod
    def compute(gradients, outputs):
        t = outputs.dtype.type
        scale, alpha = _act.SELU_SCALE, _act.SELU_ALPHA
        factor = np.where(outputs < t(0), outputs + t(scale * alpha), t(scale))
        return np.multiply(gradients, factor, dtype=gradients.dtype)

    def grad(self, op, ddx):
        dy, y = op.inputs
        negative = _math_compare.less(y, _zero(y))
        return [selu_grad(ddx, y),
                _math_misc.where(negative, _math_binary.multiply(ddx, dy),
                                 _array_fill.zeros_like(y))]

    def onnx(self, ctx, op, gradients, outputs):
        dtype = op.inputs[0].dtype
        scale, alpha = _act.SELU_SCALE, _act.SELU_ALPHA
        factor = ctx.node("Where", [ctx.node("Less", [outputs, ctx.scalar(0, dtype)]),
                                    ctx.node("Add", [outputs, ctx.scalar(scale * alpha, dtype)]),
                                    ctx.scalar(scale, dtype)])
        return ctx.node("Mul", [gradients, factor])


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

    def onnx(self, ctx, op, gradients, features):
        return ctx.node("Mul", [gradients, ctx.node("Sigmoid", [features])])


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

    def onnx(self, ctx, op, gradients, features):
        denom = ctx.node("Add", [ctx.node("Abs", [features]),
                                 ctx.scalar(1, op.inputs[0].dtype)])
        return ctx.node("Div", [gradients, ctx.node("Mul", [denom, denom])])


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

    def onnx(self, ctx, op, gradients, features):
        dtype = op.inputs[0].dtype
        positive = ctx.node("Greater", [features, ctx.scalar(0, dtype)])
        scaled = ctx.node("Mul", [gradients, ctx.scalar(op.attrs["alpha"], dtype)])
        return ctx.node("Where", [positive, gradients, scaled])


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
        return [_act.bias_add(_array_fill.zeros_like(dy), ddb,
                              data_format=op.attrs["data_format"])]

    def onnx(self, ctx, op, out_backprop):
        dtype = op.inputs[0].dtype
        work = onnx_support.work_dtype("ReduceSum", dtype)
        g = ctx.cast(out_backprop, work, dtype)
        rank = op.inputs[0].shape.rank
        nchw = op.attrs["data_format"] == "NCHW"
        if rank is not None:
            axes = [0] + list(range(2, rank)) if nchw else list(range(rank - 1))
        elif nchw:   # (N, C, ...) -> (N, C, -1)
            g = ctx.node("Reshape", [g, ctx.int64s([0, 0, -1])])
            axes = [0, 2]
        else:        # (..., C) -> (-1, C)
            last = ctx.node("Slice", [ctx.shape(g), ctx.int64s([-1]),
                                      ctx.int64s([np.iinfo(np.int64).max])])
            g = ctx.node("Reshape", [g, ctx.node("Concat", [ctx.int64s([-1]), last], axis=0)])
            axes = [0]
        out = ctx.node("ReduceSum", [g, ctx.int64s(axes)], keepdims=0)
        return ctx.cast(out, dtype, work)


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
