"""``tf.nn``: neural-network ops (activations, losses, normalization, convolution)."""

from .ops import math_unary as _math_unary
from .ops import nn_activation as _act
from .ops import nn_conv as _conv
from .ops import nn_loss as _loss
from .ops import nn_norm as _norm

for _module in (_act, _loss, _norm, _conv):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
for _name in ("sigmoid", "tanh"):
    if hasattr(_math_unary, _name):
        globals()[_name] = getattr(_math_unary, _name)
del _module, _name
