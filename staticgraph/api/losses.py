"""``tf.losses``: weighted, reduced losses that add themselves to ``LOSSES`` (TF1).

Every loss computes per-element losses in float32, multiplies them by ``weights``
(a scalar or a tensor broadcastable to the losses: same rank, each dimension 1 or
equal) and reduces them as ``reduction`` says; the default
``SUM_BY_NONZERO_WEIGHTS`` divides the weighted sum by the number of elements with
a nonzero weight. The result is cast back to the input dtype and added to
``loss_collection``.
"""

from __future__ import annotations

from ..graphlib import GraphKeys, dtypes, get_default_graph, name_scope
from ..ops.array import fill as _array_fill
from ..ops.array import expand_squeeze as _expand_squeeze
from ..ops.array import shape as _array_shape
from ..ops.array import transform as _array_transform
from ..ops import convert as _convert
from ..ops.argument_aliases import deprecated_argument_lookup
from ..ops.math import binary as _math_binary
from ..ops.math import compare as _math_compare
from ..ops.math import misc as _math_misc
from ..ops.math import unary as _math_unary
from ..ops.nn import activation as _nn_activation
from ..ops.nn import loss as _nn_loss
from ..ops.nn import softmax_cross_entropy as _nn_softmax_xent
from ..ops.math import reduction as _reduction

__all__ = [
    "Reduction", "compute_weighted_loss", "absolute_difference", "mean_squared_error",
    "huber_loss", "log_loss", "hinge_loss", "cosine_distance", "sigmoid_cross_entropy",
    "softmax_cross_entropy", "sparse_softmax_cross_entropy", "add_loss", "get_losses",
    "get_regularization_losses", "get_regularization_loss", "get_total_loss",
]


class Reduction:
    """How a loss reduces its weighted per-element values (TF1's string keys).

    ``NONE``: no reduction (weighted losses, input shape); ``SUM``: the sum;
    ``MEAN``: sum / sum of the broadcast weights; ``SUM_OVER_BATCH_SIZE``:
    sum / number of elements; ``SUM_BY_NONZERO_WEIGHTS`` (alias
    ``SUM_OVER_NONZERO_WEIGHTS``, the default): sum / number of nonzero weights.
    A zero divisor gives 0.
    """

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        """Every valid key."""
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        """ValueError unless ``key`` is a valid reduction."""
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


# ------------------------------------------------------------------ collections
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Add ``loss`` to ``loss_collection`` (nothing when the collection is None/empty)."""
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in ``loss_collection``, filtered by the name regex ``scope``."""
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The tensors in ``REGULARIZATION_LOSSES`` (filtered by ``scope``)."""
    return get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses, or the constant 0.0 when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return _math_binary.add_n(losses, name=name)
    return _convert.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of ``get_losses()`` (plus the regularization losses by default).

    Raises:
        ValueError: when there is no loss at all.
    """
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return _math_binary.add_n(losses, name=name)


# -------------------------------------------------------------------- weighting
def _check_broadcastable(weights, values):
    """TF1's static part of ``assert_broadcastable``: scalar, or same rank with 1s."""
    w, v = weights.shape, values.shape
    if w.rank == 0 or w.rank is None or v.rank is None:
        return
    if w.rank != v.rank:
        raise ValueError(f"weights can not be broadcast to values. values.rank={v.rank}. "
                         f"weights.rank={w.rank}. values.shape={v}. weights.shape={w}.")
    for i, (wd, vd) in enumerate(zip(w.raw, v.raw)):
        if wd is not None and vd is not None and wd != 1 and wd != vd:
            raise ValueError(f"weights can not be broadcast to values. Mismatch at dim {i}. "
                             f"values.shape={v}. weights.shape={w}.")


def _safe_mean(total, num_present):
    return _math_binary.div_no_nan(total, num_present, name="value")


def _num_elements(losses):
    with name_scope(None, "num_elements", [losses]) as scope:
        return _math_misc.cast(_array_shape.size(losses, name=scope), losses.dtype)


def _num_present(losses, weights):
    """The number of elements of ``losses`` whose broadcast weight is nonzero."""
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with name_scope(None, "num_present", [losses, weights]) as scope:
        weights = _math_misc.cast(weights, dtypes.float32)
        present = _math_misc.where(_math_compare.equal(weights, 0.0),
                                   _array_fill.zeros_like(weights),
                                   _array_fill.ones_like(weights))
        present = _math_binary.multiply(present, _array_fill.ones_like(losses))
        return _reduction.reduce_sum(present, name=scope)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """``losses * weights`` reduced as ``reduction`` says, added to ``loss_collection``.

    Args:
        losses: tensor of per-element losses.
        weights: scalar or tensor broadcastable to ``losses`` (same rank, dims 1 or equal).
        scope: name scope (default ``"weighted_loss"``).
        loss_collection: collection the result is added to.
        reduction: a :class:`Reduction` key.

    Returns:
        A scalar of ``losses``' dtype, or the weighted losses for ``Reduction.NONE``.

    Raises:
        ValueError: for an invalid ``reduction`` or weights that cannot broadcast.

    Example:
        >>> tf.losses.compute_weighted_loss([1., 2., 3.], weights=[1., 0., 1.])  # 2.0
    """
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", [losses, weights]):
        losses = _convert.convert_to_tensor(losses)
        input_dtype = losses.dtype
        losses = _math_misc.cast(losses, dtypes.float32)
        weights_t = _math_misc.cast(weights, dtypes.float32)
        _check_broadcastable(weights_t, losses)
        weighted = _math_binary.multiply(losses, weights_t)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = _reduction.reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_mean(loss, _reduction.reduce_sum(
                    _array_fill.ones_like(losses) * weights_t))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_mean(loss, _num_present(
                    losses, weights if isinstance(weights, float) else weights_t))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                loss = _safe_mean(loss, _num_elements(losses))
        loss = _math_misc.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        return loss


# ------------------------------------------------------------------------ losses
def _assert_compatible(a, b):
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"Shapes {a.shape} and {b.shape} are incompatible")


def _check_given(**inputs):
    """ValueError naming the first of ``inputs`` (name=value, in order) that is None."""
    for name, value in inputs.items():
        if value is None:
            raise ValueError(f"{name} must not be None.")


def _float_pair(labels, predictions, label_name="labels", pred_name="predictions"):
    _check_given(**{label_name: labels, pred_name: predictions})
    predictions = _math_misc.cast(predictions, dtypes.float32)
    labels = _math_misc.cast(labels, dtypes.float32)
    _assert_compatible(predictions, labels)
    return labels, predictions


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``|predictions - labels|`` (see :func:`compute_weighted_loss`).

    Raises:
        ValueError: for None inputs or incompatible shapes.
    """
    with name_scope(scope, "absolute_difference", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = _math_unary.abs(_math_binary.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted ``(predictions - labels) ** 2``, by default averaged over nonzero weights.

    Example:
        >>> loss = tf.losses.mean_squared_error(labels=y, predictions=y_hat)
    """
    with name_scope(scope, "mean_squared_error", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = _math_binary.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Huber loss of ``e = predictions - labels``.

    ``0.5 * e**2`` where ``|e| <= delta``, else ``0.5 * delta**2 + delta * (|e| - delta)``.
    """
    with name_scope(scope, "huber_loss", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        abs_error = _math_unary.abs(_math_binary.subtract(predictions, labels))
        quadratic = _math_binary.minimum(abs_error, delta)
        linear = _math_binary.subtract(abs_error, quadratic)
        losses = _math_binary.add(
            _math_binary.multiply(_convert.convert_to_tensor(0.5, dtype=quadratic.dtype),
                                  _math_binary.multiply(quadratic, quadratic)),
            _math_binary.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Binary log loss ``-y log(p + eps) - (1 - y) log(1 - p + eps)`` on probabilities."""
    with name_scope(scope, "log_loss", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        losses = (-_math_binary.multiply(labels, _math_unary.log(predictions + epsilon))
                  - _math_binary.multiply(1 - labels, _math_unary.log(1 - predictions + epsilon)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Hinge loss ``max(0, 1 - (2y - 1) * logits)`` for labels in {0, 1}."""
    with name_scope(scope, "hinge_loss", [logits, labels, weights]) as scope:
        labels, logits = _float_pair(labels, logits, pred_name="logits")
        all_ones = _array_fill.ones_like(labels)
        labels = _math_binary.subtract(2 * labels, all_ones)
        losses = _nn_activation.relu(
            _math_binary.subtract(all_ones, _math_binary.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """``1 - sum(labels * predictions, axis)`` for unit-normalized inputs.

    Raises:
        ValueError: when neither ``axis`` nor its old name ``dim`` is given.
    """
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    with name_scope(scope, "cosine_distance_loss", [predictions, labels, weights]) as scope:
        labels, predictions = _float_pair(labels, predictions)
        products = _math_binary.multiply(predictions, labels)
        losses = 1 - _reduction.reduce_sum(products, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def _logits_and_labels(logits, labels):
    """``logits`` as a tensor and ``labels`` cast to its dtype, of compatible shapes."""
    logits = _convert.convert_to_tensor(logits)
    labels = _math_misc.cast(labels, logits.dtype)
    _assert_compatible(logits, labels)
    return logits, labels


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted sigmoid cross-entropy of ``logits`` against 0/1 labels.

    With ``label_smoothing`` > 0 the labels become ``y * (1 - s) + 0.5 * s``.
    """
    _check_given(multi_class_labels=multi_class_labels, logits=logits)
    with name_scope(scope, "sigmoid_cross_entropy_loss",
                    [logits, multi_class_labels, weights]) as scope:
        logits, labels = _logits_and_labels(logits, multi_class_labels)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = _nn_loss.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                            name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross-entropy of ``logits`` ``[batch, classes]`` against one-hot labels.

    With ``label_smoothing`` > 0 the labels become ``y * (1 - s) + s / num_classes``.
    ``weights`` is a scalar or a ``[batch]`` tensor.

    Example:
        >>> loss = tf.losses.softmax_cross_entropy(tf.one_hot(y, 10), logits)
    """
    _check_given(onehot_labels=onehot_labels, logits=logits)
    with name_scope(scope, "softmax_cross_entropy_loss",
                    [logits, onehot_labels, weights]) as scope:
        logits, labels = _logits_and_labels(logits, onehot_labels)
        if label_smoothing > 0:
            num_classes = _math_misc.cast(_array_shape.shape(labels)[-1], logits.dtype)
            labels = labels * (1.0 - label_smoothing) + label_smoothing / num_classes
        labels = _array_transform.stop_gradient(labels, name="labels_stop_gradient")
        losses = _nn_softmax_xent.softmax_cross_entropy_with_logits_v2(
            labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def _squeeze_last_if(t, other, rank_diff_to_squeeze):
    """Squeeze ``t``'s last dimension when rank(t) - rank(other) equals the given diff."""
    if t.shape.rank is None or other.shape.rank is None:
        return t
    if (t.shape.rank - other.shape.rank == rank_diff_to_squeeze
            and t.shape.raw[-1] in (None, 1)):
        return _expand_squeeze.squeeze(t, [-1])
    return t


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted sparse softmax cross-entropy: ``labels`` are class ids ``[batch]``.

    As in TF1, ``labels`` (and ``weights``) of shape ``[batch, 1]`` are squeezed.
    """
    _check_given(labels=labels, logits=logits)
    with name_scope(scope, "sparse_softmax_cross_entropy_loss",
                    [logits, labels, weights]) as scope:
        labels = _convert.convert_to_tensor(labels)
        logits = _convert.convert_to_tensor(logits)
        labels = _squeeze_last_if(labels, logits, 0)      # [N, 1] labels with [N, C] logits
        logits = _squeeze_last_if(logits, labels, 2)
        if not isinstance(weights, float):
            weights = _convert.convert_to_tensor(weights)
            weights = _squeeze_last_if(weights, labels, 1)
        losses = _nn_softmax_xent.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)
