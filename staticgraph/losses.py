"""``tf.losses``: loss functions that add their result to the ``LOSSES`` collection."""

from .ops import losses as _losses

for _name in _losses.__all__:
    globals()[_name] = getattr(_losses, _name)
del _name
