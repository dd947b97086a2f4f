"""``tf.nn``: neural-network ops (activations, losses, normalization, convolution, pooling)."""

from .not_provided import missing_attribute as _missing_attribute
from .ops import array_select as _array_select
from .ops import math_unary as _math_unary
from .ops import nn_activation as _act
from .ops import nn_conv as _conv
from .ops import nn_loss as _loss
from .ops import nn_norm as _norm
from .ops import nn_pool as _pool
from .ops import nn_softmax as _softmax
from .ops import nn_softmax_cross_entropy as _softmax_xent

for _module in (_act, _softmax, _loss, _softmax_xent, _norm, _conv, _pool):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
# TF1 also exposes these math and array functions under tf.nn.
for _module, _name in ((_math_unary, "sigmoid"), (_math_unary, "tanh"),
                       (_array_select, "top_k")):
    if hasattr(_module, _name):
        globals()[_name] = getattr(_module, _name)
del _module, _name, _softmax, _softmax_xent


def __getattr__(name):
    raise _missing_attribute("tf.nn", name)
