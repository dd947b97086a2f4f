"""math: elementwise (unary, binary, comparison), reduction and linear-algebra ops,
with their gradient ops (``*_grad``) and ONNX lowering helpers (``*_onnx``)."""

from . import (binary, broadcast_grad, compare, linalg, misc, reduction, reduction_grad, special,
               trig, unary, unary_grad)

MODULES = (unary, unary_grad, trig, special, binary, compare, misc, reduction, reduction_grad,
           linalg, broadcast_grad)
