"""The fused softmax cross-entropies of ``tf.nn``: ops ``SoftmaxCrossEntropyWithLogits``
and ``SparseSoftmaxCrossEntropyWithLogits`` and their public functions.

Both are single fused ops (training hot paths) with two outputs like TF1's: the
per-example loss and its gradient with respect to the logits (``softmax - labels``).
Both work along the last axis for inputs of any rank >= 1. Their gradient rules reuse
that second output (``dloss[..., None] * backprop``) instead of recomputing the
softmax; a gradient arriving at the backprop output itself (second derivatives) adds
the softmax Jacobian's product with it.
"""

from __future__ import annotations

import numpy as np

from ... import errors
from ...graphlib import TensorShape, broadcast_static, name_scope
from ..array import fill as _array_fill
from ..array import expand_squeeze as _expand_squeeze
from ..array import shape as _array_shape
from ..array import transform as _array_transform
from ..math import binary as _math_binary
from ..math import misc as _math_misc
from ..math import unary as _math_unary
from . import softmax as _nn_softmax
from ..math import reduction as _reduction
from ..convert import convert_to_tensor, is_tensor_like
from ..argument_aliases import deprecated_argument_lookup
from .softmax import SMALL_CLASSES, work_dtype
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import FLOATS, INDEX, check_same_dtype, require_dtype, require_rank_at_least
from ..static_value import constant_value

__all__ = ["softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
           "sparse_softmax_cross_entropy_with_logits"]



def _drop_last(shape: TensorShape) -> TensorShape:
    return TensorShape(None) if shape.raw is None else TensorShape(shape.raw[:-1])


def _is_zeros(t) -> bool:
    """True when ``t`` is known to be all zeros while declaring (the gradient engine's
    filler for an output that received no gradient)."""
    op = t.op
    if op.type == "ZerosLike":
        return True
    if op.type == "Fill":
        value = constant_value(op.inputs[1])
        return value is not None and not np.any(value)
    if op.type == "Const":
        value = constant_value(t)
        return value is not None and not np.any(value)
    return False


def _broadcast_mul(vec, mat):
    """``vec[..., None] * mat`` (TF1's ``_BroadcastMul``)."""
    return _math_binary.multiply(_expand_squeeze.expand_dims(vec, -1), mat)


def _softmax_jacobian_product(grad, logits):
    """``(grad - sum(grad * s, -1, keepdims)) * s`` for ``s = softmax(logits)``: the
    gradient with respect to ``logits`` of ``sum(grad * softmax(logits))``."""
    s = _nn_softmax.softmax(logits)
    dot = _reduction.reduce_sum(_math_binary.multiply(grad, s), -1, keepdims=True)
    return _math_binary.multiply(_math_binary.subtract(grad, dot), s)


def _xent_logits_grad(op, dloss, dbackprop):
    """Gradient with respect to the logits (``op.inputs[0]``) of a softmax
    cross-entropy op, from the gradients of its two outputs."""
    terms = []
    if not _is_zeros(dloss):
        terms.append(_broadcast_mul(dloss, op.outputs[1]))
    if dbackprop is not None and not _is_zeros(dbackprop):
        terms.append(_softmax_jacobian_product(dbackprop, op.inputs[0]))
    if not terms:
        return _array_fill.zeros_like(op.outputs[1])
    return terms[0] if len(terms) == 1 else _math_binary.add(terms[0], terms[1])


@register
class SoftmaxCrossEntropyWithLogits(OpDef):
    """Softmax cross-entropy along the last axis.

    Inputs ``features`` (logits) and ``labels`` (a probability distribution) of one
    float dtype and broadcast-compatible shapes. Outputs ``loss`` (the shape without
    its last dimension) and ``backprop`` (``softmax(features) - labels``).
    """

    grad_broadcasts = True

    def infer(self, features, labels):
        require_dtype(features, FLOATS, "features")
        check_same_dtype(features, labels, names=("features", "labels"))
        require_rank_at_least(features, 1, "features")
        require_rank_at_least(labels, 1, "labels")
        shape = broadcast_static(features.shape, labels.shape)
        return [Spec(features.dtype, _drop_last(shape)), Spec(features.dtype, shape)]

    @staticmethod
    def compute(features, labels):
        dtype = features.dtype
        if features.shape != labels.shape:
            features, labels = np.broadcast_arrays(features, labels)
        shape = features.shape
        if features.size == 0:
            return (np.zeros(shape[:-1], dtype), np.empty(shape, dtype))
        n = shape[-1]
        work = work_dtype(dtype)
        f2, l2 = features.reshape(-1, n), labels.reshape(-1, n)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if n <= SMALL_CLASSES:      # classes along contiguous rows: see nn_softmax
                t = np.array(f2.T, dtype=work, order="C")
                lt = np.array(l2.T, dtype=work, order="C")
                t -= t.max(axis=0)
                e = np.exp(t)
                sum_e = e.sum(axis=0)
                t -= np.log(sum_e)                      # log_softmax
                loss = np.multiply(lt, t, out=t).sum(axis=0)
                e /= sum_e                              # softmax
                e -= lt
                backprop = e.T
            else:
                t = np.array(f2, dtype=work)
                t -= t.max(axis=1, keepdims=True)
                e = np.exp(t)
                sum_e = e.sum(axis=1, keepdims=True)
                t -= np.log(sum_e)
                loss = np.multiply(l2, t, out=t).sum(axis=1)
                e /= sum_e
                e -= l2
                backprop = e
            np.negative(loss, out=loss)
        return (loss.astype(dtype, copy=False).reshape(shape[:-1]),
                backprop.astype(dtype, copy=False).reshape(shape))

    def grad(self, op, dloss, dbackprop):
        # TF1: d logits = dloss[..., None] * backprop (+ the softmax Jacobian times a
        # gradient of backprop); d labels = -dloss[..., None] * log_softmax(logits)
        # (- the gradient of backprop, since backprop = softmax - labels).
        logits = op.inputs[0]
        dlogits = _xent_logits_grad(op, dloss, dbackprop)
        dlabels = _broadcast_mul(dloss, _math_unary.negative(_nn_softmax.log_softmax(logits)))
        if not _is_zeros(dbackprop):
            dlabels = _math_binary.subtract(dlabels, dbackprop)
        return [dlogits, dlabels]

    def onnx(self, ctx, op, features, labels):
        f, lab = op.inputs
        dtype = f.dtype
        work = work_dtype(dtype.np_dtype)
        features, labels = ctx.cast(features, work, dtype), ctx.cast(labels, work, dtype)
        f_last = None if f.shape.rank is None else f.shape.raw[-1]
        l_last = None if lab.shape.rank is None else lab.shape.raw[-1]
        if not ((f_last is not None and f_last != 1) or f_last == l_last == 1):
            # features whose class dimension may be 1 broadcast against the labels
            # before the softmax, not after
            features = ctx.node("Expand", [features, ctx.shape(labels)])
        return _onnx_xent(ctx, op, work, features, labels)


def _label_error(labels, n):
    flat = labels.reshape(-1)
    bad = flat[np.flatnonzero((flat < 0) | (flat >= n))[0]]
    shown = " ".join(str(v) for v in flat[:100]) + (" ..." if flat.size > 100 else "")
    return errors.InvalidArgumentError(
        None, None, f"Received a label value of {bad} which is outside the valid range of "
                    f"[0, {n}).  Label values: {shown}")


@register
class SparseSoftmaxCrossEntropyWithLogits(OpDef):
    """Softmax cross-entropy with integer class labels along the last axis.

    Inputs ``features`` (logits, rank r >= 1) and ``labels`` (int32/int64, rank r-1,
    values in ``[0, classes)``; others raise InvalidArgumentError at run time).
    Outputs ``loss`` (the labels' shape) and ``backprop`` (``softmax - one_hot``).
    """

    def infer(self, features, labels):
        require_dtype(features, FLOATS, "features")
        require_dtype(labels, INDEX, "labels")
        if features.shape.rank == 0:
            raise ValueError(f"Logits cannot be scalars - received shape {features.shape}.")
        fshape, lshape = features.shape, labels.shape
        if fshape.rank is not None and lshape.rank is not None:
            if lshape.rank != fshape.rank - 1:
                raise ValueError(f"Rank mismatch: Rank of labels (received {lshape.rank}) "
                                 f"should equal rank of logits minus 1 (received "
                                 f"{fshape.rank}).")
        batch = _drop_last(fshape)
        if not batch.is_compatible_with(lshape):
            raise ValueError(f"Shape mismatch: The shape of labels (received {lshape}) should "
                             f"equal the shape of logits except for the last dimension "
                             f"(received {fshape}).")
        batch = batch.merge_with(lshape)
        if fshape.raw is None:
            full = TensorShape(None) if batch.raw is None else batch.concatenate([None])
        else:
            full = batch.concatenate([fshape.raw[-1]])
        return [Spec(features.dtype, batch), Spec(features.dtype, full)]

    @staticmethod
    def compute(features, labels):
        dtype = features.dtype
        n = features.shape[-1]
        if labels.size and (labels.min() < 0 or labels.max() >= n):
            raise _label_error(labels, n)
        if features.size == 0:
            return (np.zeros(labels.shape, dtype), np.empty(features.shape, dtype))
        f2 = features.reshape(-1, n)
        idx = labels.reshape(-1)
        other = np.arange(f2.shape[0])
        work = work_dtype(dtype)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if n <= SMALL_CLASSES:      # classes along contiguous rows: see nn_softmax
                t = np.array(f2.T, dtype=work, order="C")
                at = (idx, other)
                t -= t.max(axis=0)
                sum_axis = 0
            else:
                t = np.array(f2, dtype=work)
                at = (other, idx)
                t -= t.max(axis=1, keepdims=True)
                sum_axis = 1
            picked = t[at]                              # shifted logit of each label
            np.exp(t, out=t)
            sum_e = t.sum(axis=sum_axis, keepdims=True)
            loss = np.log(sum_e).reshape(-1)
            loss -= picked
            t /= sum_e                                  # softmax
            t[at] -= 1
        backprop = t.T if sum_axis == 0 else t
        return (loss.astype(dtype, copy=False).reshape(labels.shape),
                backprop.astype(dtype, copy=False).reshape(features.shape))

    def grad(self, op, dloss, dbackprop):
        # d logits = dloss[..., None] * backprop, reusing the forward's backprop output;
        # integer labels get none. (TF1 forbids differentiating backprop; we add the
        # softmax Jacobian's product so second derivatives work.)
        return [_xent_logits_grad(op, dloss, dbackprop), None]

    def onnx(self, ctx, op, features, labels):
        f = op.inputs[0]
        dtype = f.dtype
        work = work_dtype(dtype.np_dtype)
        features = ctx.cast(features, work, dtype)
        n = None if f.shape.rank is None else f.shape.raw[-1]
        if n is not None:
            classes = ctx.const(np.arange(n, dtype=np.int64))
        else:
            count = ctx.node("Gather", [ctx.shape(features), ctx.scalar(-1, np.int64)])
            classes = ctx.node("Range", [ctx.scalar(0, np.int64), count,
                                         ctx.scalar(1, np.int64)])
        index = ctx.node("Unsqueeze", [ctx.to_int64(labels, op.inputs[1].dtype),
                                       ctx.int64s([-1])])
        one_hot = ctx.cast(ctx.node("Equal", [index, classes]), work)
        # The kernel raises for a label outside [0, classes); a model cannot, so the
        # row's one-hot becomes 0 / 0 = NaN, and so do its loss and backprop (TF1 on GPU).
        hits = ctx.node("ReduceSum", [one_hot, _last_axis(ctx, op)], keepdims=1)
        one_hot = ctx.node("Div", [one_hot, hits])
        return _onnx_xent(ctx, op, work, features, one_hot)


def _last_axis(ctx, op):
    """The class axis of ``op``'s backprop output as an ONNX axes input: non-negative
    where the rank is known (onnxruntime returns an empty tensor unreduced over a
    negative axis)."""
    rank = op.outputs[1].shape.rank
    return ctx.int64s([-1 if rank is None else rank - 1])


def _onnx_xent(ctx, op, work, features, labels):
    """``[loss, backprop]`` of logits ``features`` and distributions ``labels`` (ONNX
    names in ``work``, cast back to ``op``'s dtype): one LogSoftmax along the last axis."""
    dtype = op.inputs[0].dtype
    log_probs = ctx.node("LogSoftmax", [features], axis=-1)
    total = ctx.node("ReduceSum", [ctx.node("Mul", [labels, log_probs]), _last_axis(ctx, op)],
                     keepdims=0)
    loss = ctx.node("Neg", [total])
    backprop = ctx.node("Sub", [ctx.node("Exp", [log_probs]), labels])
    return [ctx.cast(loss, dtype, work), ctx.cast(backprop, dtype, work)]


# ---------------------------------------------------------------- public functions
def check_xent_arguments(name, sentinel, labels, logits):
    """TF1's check of a cross-entropy's keywords: ValueError for a positional argument
    (``sentinel`` given) or a missing ``labels``/``logits``."""
    if sentinel is not None:
        raise ValueError(f"Only call `{name}` with named arguments (labels=..., logits=..., "
                         f"...)")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")


def _xent_inputs(labels, logits):
    """Logits as a float tensor and labels converted/cast to its dtype (TF1's rule)."""
    logits = convert_to_tensor(logits, name="logits")
    if is_tensor_like(labels):
        labels = convert_to_tensor(labels, name="labels")
        if labels.dtype is not logits.dtype:
            labels = _math_misc.cast(labels, logits.dtype)
    else:
        labels = convert_to_tensor(labels, dtype=logits.dtype, name="labels")
    return labels, logits


def _softmax_xent(labels, logits, axis, name, default_name):
    with name_scope(name, default_name, [logits, labels]) as scope:
        labels, logits = _xent_inputs(labels, logits)
        rank = logits.shape.rank
        if axis is None:
            axis = -1
        axis = int(axis)
        last = axis == -1 or (rank is not None and axis == rank - 1)
        if not last:
            if rank is None:
                raise ValueError("softmax_cross_entropy_with_logits with axis != -1 needs "
                                 "logits of known rank")
            if not -rank <= axis < rank:
                raise errors.InvalidArgumentError(
                    None, None, f"Dimension ({axis}) must be in the range [{-rank}, {rank}) "
                                f"where {rank} is the number of dimensions in the input.")
            axis %= rank
            perm = [i for i in range(rank) if i != axis] + [axis]
            logits = _array_shape.transpose(logits, perm)
            labels = _array_shape.transpose(labels, perm)
        loss, _ = apply_op("SoftmaxCrossEntropyWithLogits", [logits, labels], name=scope)
        return loss


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """Softmax cross-entropy between ``logits`` and ``labels`` along ``axis``.

    ``-sum(labels * log_softmax(logits), axis)``, computed stably by one fused op
    (gradients flow into both ``labels`` and ``logits``).

    Args:
        labels: a probability distribution per example, the shape of ``logits``.
        logits: unscaled log-probabilities, a float tensor of rank >= 1.
        axis: the class dimension (default -1, the last).
        name: op name (default ``"softmax_cross_entropy_with_logits"``).
        dim: deprecated alias of ``axis``.

    Returns:
        The loss, of ``logits``' shape without the class dimension.

    Raises:
        ValueError: incompatible shapes, or both ``axis`` and ``dim``.
    """
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    return _softmax_xent(labels, logits, axis, name, "softmax_cross_entropy_with_logits")


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None):
    """Softmax cross-entropy (TF1's v1 form: no gradient flows into ``labels``).

    Only keyword use is accepted, as in TF1:
    ``tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=z)``.

    Args:
        _sentinel: guards against positional use; must not be passed.
        labels: a probability distribution per example, the shape of ``logits``.
        logits: unscaled log-probabilities, a float tensor of rank >= 1.
        dim: the class dimension (default -1, the last).
        name: op name (default ``"softmax_cross_entropy_with_logits_sg"``).

    Returns:
        The loss, of ``logits``' shape without the class dimension.

    Raises:
        ValueError: positional arguments, a missing ``labels``/``logits``, or
            incompatible shapes.
    """
    check_xent_arguments("softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = _array_transform.stop_gradient(labels, name="labels_stop_gradient")
        return _softmax_xent(labels, logits, dim, scope, "softmax_cross_entropy_with_logits")


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """Softmax cross-entropy with integer class ids as labels.

    Example:
        >>> loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z)

    Args:
        _sentinel: guards against positional use; must not be passed.
        labels: int32/int64 class ids of shape ``logits.shape[:-1]``, each in
            ``[0, num_classes)``.
        logits: float logits of shape ``[d_0, ..., d_{r-1}, num_classes]``.
        name: op name (inside the scope ``"SparseSoftmaxCrossEntropyWithLogits"``).

    Returns:
        The loss, a tensor of ``labels``' shape and ``logits``' dtype.

    Raises:
        ValueError: positional arguments, scalar logits, or a labels rank/shape that
            is not ``logits``' without its last dimension.
        InvalidArgumentError: (at run time) a label outside ``[0, num_classes)``.
    """
    check_xent_arguments("sparse_softmax_cross_entropy_with_logits", _sentinel, labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        loss, _ = apply_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], name=name)
        return loss
