"""``tf.metrics``: streaming metrics over local variables (TF1's ``metrics_impl``).

Each metric returns ``(value, update_op)``: running ``update_op`` accumulates a batch
into non-trainable variables created in ``LOCAL_VARIABLES`` and
``"metric_variables"`` (``total``/``count`` and friends) and returns the updated
value; ``value`` reads the current state. ``tf.local_variables_initializer()``
resets them.

Example::

    acc, acc_update = tf.metrics.accuracy(labels, predictions)
    sess.run(tf.local_variables_initializer())
    for batch in batches:
        sess.run(acc_update, feed_dict=batch)
    print(sess.run(acc))
"""

from __future__ import annotations

from ..graphlib import GraphKeys, control_dependencies, dtypes, get_default_graph
from ..ops.array import fill as _array_fill
from ..ops.array import expand_squeeze as _expand_squeeze
from ..ops.array import shape as _array_shape
from ..ops import convert as _convert
from ..ops.core import basic_ops as _core_ops
from ..ops.math import binary as _math_binary
from ..ops.math import compare as _math_compare
from ..ops.math import misc as _math_misc
from ..ops.math import unary as _math_unary
from ..ops.math import reduction as _reduction
from . import variable_scope as _vs
from ..ops.state import variables as _variables

__all__ = [
    "mean", "accuracy", "mean_absolute_error", "mean_squared_error",
    "root_mean_squared_error", "true_positives", "false_positives", "true_negatives",
    "false_negatives", "precision", "recall",
]

METRIC_VARIABLES = GraphKeys.METRIC_VARIABLES


def _metric_variable(shape, dtype, name):
    """A zero-initialized, non-trainable local variable in ``metric_variables``."""
    return _variables.Variable(lambda: _array_fill.zeros(shape, dtype), trainable=False,
                               collections=[GraphKeys.LOCAL_VARIABLES, METRIC_VARIABLES],
                               name=name)


def _add_to(collections, value):
    if collections:
        get_default_graph().add_to_collections(collections, value)


def _remove_squeezable_dimensions(predictions, labels, weights):
    """TF1: drop a trailing size-1 dim so predictions, labels and weights line up."""
    predictions = _convert.convert_to_tensor(predictions)
    if labels is not None:
        labels = _convert.convert_to_tensor(labels)
        p_rank, l_rank = predictions.shape.rank, labels.shape.rank
        if p_rank is not None and l_rank is not None:
            if p_rank - l_rank == 1 and predictions.shape.raw[-1] in (None, 1):
                predictions = _expand_squeeze.squeeze(predictions, [-1])
            elif l_rank - p_rank == 1 and labels.shape.raw[-1] in (None, 1):
                labels = _expand_squeeze.squeeze(labels, [-1])
        if not predictions.shape.is_compatible_with(labels.shape):
            raise ValueError(f"Shapes {predictions.shape} and {labels.shape} are incompatible")
    if weights is None:
        return predictions, labels, None
    weights = _convert.convert_to_tensor(weights)
    if weights.shape.rank == 0:
        return predictions, labels, weights
    p_rank, w_rank = predictions.shape.rank, weights.shape.rank
    if p_rank is not None and w_rank is not None:
        if w_rank - p_rank == 1:
            weights = _expand_squeeze.squeeze(weights, [-1])
        elif p_rank - w_rank == 1:
            weights = _expand_squeeze.expand_dims(weights, -1)
    return predictions, labels, weights


def _broadcast_weights(weights, values):
    """``weights * ones_like(values)`` unless the shapes already agree."""
    if weights.shape.is_fully_defined() and values.shape.is_fully_defined() \
            and weights.shape.raw == values.shape.raw:
        return weights
    return _math_binary.multiply(weights, _array_fill.ones_like(values))


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The streaming (weighted) mean of ``values``.

    Variables ``total`` (sum of ``values * weights``) and ``count`` (sum of weights,
    or number of values) live under the variable scope ``name`` (default ``"mean"``).

    Args:
        values: tensor of any shape.
        weights: None, or a tensor broadcastable to ``values`` (a trailing size-1
            dimension difference is squeezed/expanded as in TF1).
        metrics_collections: collections the value tensor is added to.
        updates_collections: collections the update op is added to.
        name: variable scope name.

    Returns:
        ``(mean, update_op)``: ``total / count`` (0 when ``count`` is 0) and the op that
        accumulates a batch and returns the updated mean.
    """
    with _vs.variable_scope(name, "mean", [values, weights]):
        values = _math_misc.cast(values, dtypes.float32)
        total = _metric_variable([], dtypes.float32, name="total")
        count = _metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = _math_misc.cast(_array_shape.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(values, None, weights)
            weights = _broadcast_weights(_math_misc.cast(weights, dtypes.float32), values)
            values = _math_binary.multiply(values, weights)
            num_values = _reduction.reduce_sum(weights)
        update_total = _variables.assign_add(total, _reduction.reduce_sum(values))
        with control_dependencies([values]):
            update_count = _variables.assign_add(count, num_values)
        value = _math_binary.div_no_nan(total, _math_binary.maximum(count, 0.0), name="value")
        _add_to(metrics_collections, value)
        update_op = _math_binary.div_no_nan(update_total,
                                            _math_binary.maximum(update_count, 0.0),
                                            name="update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The streaming fraction of ``predictions`` equal to ``labels`` (weighted).

    Args:
        labels: ground-truth tensor; ``predictions`` is cast to its dtype when they differ.
        predictions: tensor of the same shape (a trailing size-1 dimension is squeezed).
        weights, metrics_collections, updates_collections: as in :func:`mean`.
        name: variable scope name (default ``"accuracy"``).

    Returns:
        ``(accuracy, update_op)``.

    Example:
        >>> acc, update = tf.metrics.accuracy(labels=y, predictions=tf.argmax(logits, 1))
    """
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    if labels.dtype is not predictions.dtype:
        predictions = _math_misc.cast(predictions, labels.dtype)
    is_correct = _math_misc.cast(_math_compare.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The streaming mean of ``|predictions - labels|``; returns ``(value, update_op)``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    errors = _math_unary.abs(predictions - labels)
    return mean(errors, weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The streaming mean of ``(labels - predictions) ** 2``; returns ``(value, update_op)``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    errors = _math_binary.squared_difference(labels, predictions)
    return mean(errors, weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The square root of the streaming mean squared error; ``(value, update_op)``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse = mean_squared_error(labels, predictions, weights, None, None,
                                         name or "root_mean_squared_error")
    value = _math_unary.sqrt(mse)
    _add_to(metrics_collections, value)
    update_op = _math_unary.sqrt(update_mse)
    _add_to(updates_collections, update_op)
    return value, update_op


def _count_condition(values, weights, metrics_collections, updates_collections):
    count = _metric_variable([], dtypes.float32, name="count")
    values = _math_misc.cast(values, dtypes.float32)
    if weights is not None:
        weights = _math_misc.cast(weights, dtypes.float32)
        values = _math_binary.multiply(values, weights)
    value = _core_ops.identity(count)
    _add_to(metrics_collections, value)
    update_op = _variables.assign_add(count, _reduction.reduce_sum(values))
    _add_to(updates_collections, update_op)
    return value, update_op


def _confusion_count(default_name, label_value, prediction_value, labels, predictions,
                     weights, metrics_collections, updates_collections, name):
    with _vs.variable_scope(name, default_name, [predictions, labels, weights]):
        predictions, labels, weights = _remove_squeezable_dimensions(
            _math_misc.cast(predictions, dtypes.bool), _math_misc.cast(labels, dtypes.bool),
            weights)
        hit = _math_compare.logical_and(_math_compare.equal(labels, label_value),
                                        _math_compare.equal(predictions, prediction_value))
        return _count_condition(hit, weights, metrics_collections, updates_collections)


def true_positives(labels, predictions, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """The streaming (weighted) count of ``labels`` and ``predictions`` both true."""
    return _confusion_count("true_positives", True, True, labels, predictions, weights,
                            metrics_collections, updates_collections, name)


def false_positives(labels, predictions, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """The streaming (weighted) count of false ``labels`` with true ``predictions``."""
    return _confusion_count("false_positives", False, True, labels, predictions, weights,
                            metrics_collections, updates_collections, name)


def true_negatives(labels, predictions, weights=None, metrics_collections=None,
                   updates_collections=None, name=None):
    """The streaming (weighted) count of ``labels`` and ``predictions`` both false."""
    return _confusion_count("true_negatives", False, False, labels, predictions, weights,
                            metrics_collections, updates_collections, name)


def false_negatives(labels, predictions, weights=None, metrics_collections=None,
                    updates_collections=None, name=None):
    """The streaming (weighted) count of true ``labels`` with false ``predictions``."""
    return _confusion_count("false_negatives", True, False, labels, predictions, weights,
                            metrics_collections, updates_collections, name)


def _ratio(numerator, other, name):
    """``n / (n + o)`` where ``n + o > 0``, else 0 (TF1's precision/recall formula)."""
    denominator = numerator + other
    return _math_misc.where(_math_compare.greater(denominator, 0.0),
                            _math_binary.div_no_nan(numerator, denominator),
                            _array_fill.zeros_like(denominator), name=name)


def _ratio_metric(default_name, other_fn, labels, predictions, weights, metrics_collections,
                  updates_collections, name):
    with _vs.variable_scope(name, default_name, [predictions, labels, weights]):
        predictions, labels, weights = _remove_squeezable_dimensions(
            _math_misc.cast(predictions, dtypes.bool), _math_misc.cast(labels, dtypes.bool),
            weights)
        tp, tp_update = true_positives(labels, predictions, weights)
        other, other_update = other_fn(labels, predictions, weights)
        value = _ratio(tp, other, "value")
        _add_to(metrics_collections, value)
        update_op = _ratio(tp_update, other_update, "update_op")
        _add_to(updates_collections, update_op)
        return value, update_op


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """Streaming precision ``tp / (tp + fp)`` of boolean predictions (0 when undefined).

    Returns:
        ``(precision, update_op)``.
    """
    return _ratio_metric("precision", false_positives, labels, predictions, weights,
                         metrics_collections, updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """Streaming recall ``tp / (tp + fn)`` of boolean predictions (0 when undefined).

    Returns:
        ``(recall, update_op)``.
    """
    return _ratio_metric("recall", false_negatives, labels, predictions, weights,
                         metrics_collections, updates_collections, name)
