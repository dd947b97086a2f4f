"""``tf.math``: the math functions under TF1's ``tf.math`` path."""

from .not_provided import missing_attribute as _missing_attribute
from . import ops as _ops

for _module in (_ops.math_unary, _ops.math_trig, _ops.math_special, _ops.math_binary,
                _ops.math_compare, _ops.math_misc, _ops.reduction, _ops.linalg):
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
for _module, _name in ((_ops.nn_activation, "softplus"), (_ops.nn_activation, "softsign"),
                       (_ops.nn_softmax, "log_softmax"), (_ops.nn_softmax, "softmax")):
    globals()[_name] = getattr(_module, _name)
del _module, _name


def __getattr__(name):
    raise _missing_attribute("tf.math", name)
