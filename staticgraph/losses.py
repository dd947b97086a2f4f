"""``tf.losses``: loss functions that add their result to the ``LOSSES`` collection."""

from .not_provided import missing_attribute as _missing_attribute
from .ops import losses as _losses

globals().update({_n: getattr(_losses, _n) for _n in _losses.__all__})


def __getattr__(name):
    raise _missing_attribute("tf.losses", name)
