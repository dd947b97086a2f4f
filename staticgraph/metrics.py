"""``tf.metrics``: streaming metrics returning ``(value, update_op)`` over local variables."""

from .not_provided import missing_attribute as _missing_attribute
from .ops import metrics as _metrics

globals().update({_n: getattr(_metrics, _n) for _n in _metrics.__all__})


def __getattr__(name):
    raise _missing_attribute("tf.metrics", name)
