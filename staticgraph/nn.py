"""``tf.nn``: neural-network ops (activations, losses, normalization, convolution, pooling)."""

from .not_provided import missing_attribute as _missing_attribute
from .ops.array.select import top_k
from .ops.math.unary import sigmoid, tanh
from .ops.nn.activation import (bias_add, crelu, elu, leaky_relu, relu, relu6, selu, softplus,
                                softsign, xw_plus_b)
from .ops.nn.conv import conv2d, conv2d_backprop_filter, conv2d_backprop_input, conv2d_transpose
from .ops.nn.loss import (in_top_k, l2_loss, sigmoid_cross_entropy_with_logits,
                          weighted_cross_entropy_with_logits)
from .ops.nn.norm import batch_normalization, dropout, embedding_lookup, l2_normalize, moments
from .ops.nn.pool import avg_pool, avg_pool2d, max_pool, max_pool2d
from .ops.nn.softmax import log_softmax, softmax
from .ops.nn.softmax_cross_entropy import (softmax_cross_entropy_with_logits,
                                           softmax_cross_entropy_with_logits_v2,
                                           sparse_softmax_cross_entropy_with_logits)


__all__ = [
    "avg_pool", "avg_pool2d", "batch_normalization", "bias_add", "conv2d",
    "conv2d_backprop_filter", "conv2d_backprop_input", "conv2d_transpose", "crelu", "dropout",
    "elu", "embedding_lookup", "in_top_k", "l2_loss", "l2_normalize", "leaky_relu",
    "log_softmax", "max_pool", "max_pool2d", "moments", "relu", "relu6", "selu", "sigmoid",
    "sigmoid_cross_entropy_with_logits", "softmax", "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2", "softplus", "softsign",
    "sparse_softmax_cross_entropy_with_logits", "tanh", "top_k",
    "weighted_cross_entropy_with_logits", "xw_plus_b",
]


def __getattr__(name):
    raise _missing_attribute("tf.nn", name)
