"""``tf.math``: the math functions under TF1's ``tf.math`` path."""

from .ops import (linalg, math_binary, math_compare, math_misc, math_unary, nn_activation,
                  reduction)

for _module in (math_unary, math_binary, math_compare, math_misc, reduction, linalg):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
for _name in ("softplus", "softsign", "log_softmax", "softmax"):
    if _name in nn_activation.__all__:
        globals()[_name] = getattr(nn_activation, _name)
del _module, _name
