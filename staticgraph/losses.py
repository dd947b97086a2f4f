"""``tf.losses``: loss functions that add their result to the ``LOSSES`` collection."""

from .not_provided import missing_attribute as _missing_attribute
from .api.losses import (Reduction, absolute_difference, add_loss, compute_weighted_loss,
                         cosine_distance, get_losses, get_regularization_loss,
                         get_regularization_losses, get_total_loss, hinge_loss, huber_loss,
                         log_loss, mean_squared_error, sigmoid_cross_entropy,
                         softmax_cross_entropy, sparse_softmax_cross_entropy)


__all__ = [
    "Reduction", "absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
    "get_losses", "get_regularization_loss", "get_regularization_losses", "get_total_loss",
    "hinge_loss", "huber_loss", "log_loss", "mean_squared_error", "sigmoid_cross_entropy",
    "softmax_cross_entropy", "sparse_softmax_cross_entropy",
]


def __getattr__(name):
    raise _missing_attribute("tf.losses", name)
