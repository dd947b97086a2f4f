"""``tf.metrics``: streaming metrics returning ``(value, update_op)`` over local variables."""

from .ops import metrics as _metrics

for _name in _metrics.__all__:
    globals()[_name] = getattr(_metrics, _name)
del _name
