"""Losses and metrics of ``tf.nn``: sigmoid and weighted cross-entropy (composites),
l2_loss and in_top_k.

The fused softmax cross-entropies are in :mod:`.softmax_cross_entropy`.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import dtypes, name_scope
from ..math import binary as _math_binary
from ..math import unary as _math_unary
from ..convert import convert_same_dtype, convert_to_tensor
from .activation import relu
from .softmax_cross_entropy import check_xent_arguments
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, INDEX, check_same_dtype, require_dtype

__all__ = ["sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits", "l2_loss",
           "in_top_k"]


@register
class L2Loss(OpDef):
    """``sum(t ** 2) / 2`` as a scalar of ``t``'s float dtype."""

    def infer(self, t):
        require_dtype(t, FLOATS, "t")
        return Spec(t.dtype, [])

    @staticmethod
    def compute(t):
        flat = t.reshape(-1)
        if t.dtype == np.float16:
            flat = flat.astype(np.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(np.dot(flat, flat) * 0.5, dtype=t.dtype)

    def grad(self, op, dy):
        return [_math_binary.multiply(op.inputs[0], dy)]

    def onnx(self, ctx, op, t):
        dtype = op.inputs[0].dtype
        work = dtypes.float32 if dtype is dtypes.float16 else dtype  # as the kernel
        total = ctx.node("ReduceSumSquare", [ctx.cast(t, work, dtype)], keepdims=0)
        return ctx.cast(ctx.node("Mul", [total, ctx.scalar(0.5, work)]), dtype, work)


@register
class InTopKV2(OpDef):
    """Whether each target's prediction is among the ``k`` largest of its row.

    Inputs ``predictions`` (float32 ``[batch, classes]``), ``targets`` (int32/int64
    ``[batch]``) and scalar ``k`` (the targets' dtype). Ties count in: a target is
    in the top k when fewer than ``k`` classes have strictly larger predictions.
    Rows with a non-finite prediction and out-of-range targets give False.
    """

    differentiable = False

    def infer(self, predictions, targets, k):
        require_dtype(predictions, (dtypes.float32,), "predictions")
        require_dtype(targets, INDEX, "targets")
        check_same_dtype(targets, k, names=("targets", "k"))
        p = predictions.shape.with_rank(2)
        t = targets.shape.with_rank(1)
        k.shape.with_rank(0)
        if not p[:1].is_compatible_with(t):
            raise ValueError(f"First dimension of predictions {p[0]} must match length of "
                             f"targets {t[0]}")
        return Spec(dtypes.bool, p[:1].merge_with(t))

    @staticmethod
    def compute(predictions, targets, k):
        batch, n = predictions.shape
        if n == 0 or batch == 0:
            return np.zeros(batch, np.bool_)
        valid = (targets >= 0) & (targets < n)
        rows = np.arange(batch)
        target_pred = predictions[rows, np.where(valid, targets, 0)]
        more = np.count_nonzero(predictions > target_pred[:, None], axis=1)
        ok = np.isfinite(predictions).all(axis=1)
        return valid & ok & (more < k)

    def onnx(self, ctx, op, predictions, targets, k):
        # The target's prediction picked by a one-hot mask (no out-of-range gather):
        # -inf, and no mask hit, for targets outside [0, classes).
        n = op.inputs[0].shape.raw[1]
        if n is not None:
            classes = ctx.const(np.arange(n, dtype=np.int64))
        else:
            count = ctx.node("Gather", [ctx.shape(predictions), ctx.scalar(1, np.int64)])
            classes = ctx.node("Range", [ctx.scalar(0, np.int64), count,
                                         ctx.scalar(1, np.int64)])
        t = ctx.to_int64(targets, op.inputs[1].dtype)
        rows = ctx.int64s([1])
        mask = ctx.node("Equal", [ctx.node("Unsqueeze", [t, rows]), classes])
        picked = ctx.node("Where", [mask, predictions, ctx.scalar(-np.inf, np.float32)])
        target = ctx.node("ReduceMax", [picked, rows], keepdims=1)
        larger = ctx.cast(ctx.node("Greater", [predictions, target]), np.int64)
        more = ctx.node("ReduceSum", [larger, rows], keepdims=0)
        in_k = ctx.node("Less", [more, ctx.to_int64(k, op.inputs[2].dtype)])
        valid = ctx.node("ReduceMax", [ctx.cast(mask, np.uint8), rows], keepdims=0)
        # x - x is NaN exactly for NaN and infinite x: a row's sum of it is not NaN
        # when the row is finite
        nonfinite = ctx.node("ReduceSum", [ctx.node("Sub", [predictions, predictions]), rows],
                             keepdims=0)
        finite = ctx.node("Equal", [nonfinite, nonfinite])
        ok = ctx.node("And", [ctx.cast(valid, np.bool_), finite])
        return ctx.node("And", [ok, in_k])


# ---------------------------------------------------------------- public functions
def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """Sigmoid cross-entropy of independent binary labels:
    ``max(x, 0) - x * z + log(1 + exp(-abs(x)))`` for logits ``x`` and labels ``z``.

    Args:
        _sentinel: guards against positional use; must not be passed.
        labels: a tensor of ``logits``' dtype and shape, values in [0, 1].
        logits: a float tensor.
        name: op name (inside the scope ``"logistic_loss"``).

    Raises:
        ValueError: positional arguments or mismatched shapes.
    """
    check_xent_arguments("sigmoid_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits, labels = convert_same_dtype(logits, labels, names=("logits", "labels"))
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError(f"logits and labels must have the same shape ({logits.shape} vs "
                             f"{labels.shape})")
        soft = _math_unary.log1p(_math_unary.exp(_math_unary.negative(_math_unary.abs(logits))))
        linear = _math_binary.subtract(relu(logits), _math_binary.multiply(logits, labels))
        return _math_binary.add(linear, soft, name=scope)


def weighted_cross_entropy_with_logits(targets, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with positive examples weighted by ``pos_weight``:
    ``(1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-abs(x))) + max(-x, 0))``.

    Args:
        targets: a tensor of ``logits``' dtype and shape.
        logits: a float tensor.
        pos_weight: the coefficient of positive examples.
        name: op name (inside the scope ``"logistic_loss"``).

    Raises:
        ValueError: mismatched shapes.
    """
    with name_scope(name, "logistic_loss", [logits, targets]) as scope:
        logits, targets = convert_same_dtype(logits, targets, names=("logits", "targets"))
        if not logits.shape.is_compatible_with(targets.shape):
            raise ValueError(f"logits and targets must have the same shape ({logits.shape} vs "
                             f"{targets.shape})")
        pos_weight = convert_to_tensor(pos_weight, dtype=logits.dtype)
        one = convert_to_tensor(1, dtype=logits.dtype)
        log_weight = _math_binary.add(
            one, _math_binary.multiply(_math_binary.subtract(pos_weight, one), targets))
        soft = _math_binary.add(
            _math_unary.log1p(_math_unary.exp(_math_unary.negative(_math_unary.abs(logits)))),
            relu(_math_unary.negative(logits)))
        return _math_binary.add(
            _math_binary.multiply(_math_binary.subtract(one, targets), logits),
            _math_binary.multiply(log_weight, soft), name=scope)


def l2_loss(t, name=None):
    """Half the squared L2 norm: ``sum(t ** 2) / 2``, a scalar.

    Args:
        t: a float tensor.
        name: op name (default ``"L2Loss"``).

    Example:
        >>> tf.nn.l2_loss([3.0, 4.0])  # 12.5
    """
    return apply_op("L2Loss", [convert_to_tensor(t)], name=name)


def in_top_k(predictions, targets, k, name=None):
    """Whether ``targets[i]`` is among the top ``k`` of ``predictions[i]``.

    Ties straddling the boundary all count as in the top k (fewer than ``k`` classes
    strictly larger suffices). A row with a non-finite prediction, or an
    out-of-range target, gives False.

    Args:
        predictions: float32 ``[batch, classes]``.
        targets: int32/int64 ``[batch]`` class ids.
        k: number of top elements to consider (int or scalar tensor).
        name: op name (default: ``"InTopKV2"`` inside the scope ``"in_top_k"``).

    Returns:
        A bool tensor ``[batch]``.
    """
    with name_scope(name, "in_top_k"):
        predictions = convert_to_tensor(predictions, name="predictions")
        targets = convert_to_tensor(targets, name="targets")
        k = convert_to_tensor(k, dtype=targets.dtype, name="k")
        return apply_op("InTopKV2", [predictions, targets, k], name=name)
