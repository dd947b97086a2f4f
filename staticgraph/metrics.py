"""``tf.metrics``: streaming metrics returning ``(value, update_op)`` over local variables."""

from .ops import metrics as _metrics

globals().update({_n: getattr(_metrics, _n) for _n in _metrics.__all__})
