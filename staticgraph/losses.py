"""``tf.losses``: loss functions that add their result to the ``LOSSES`` collection."""

from .ops import losses as _losses

globals().update({_n: getattr(_losses, _n) for _n in _losses.__all__})
