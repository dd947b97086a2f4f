"""ops: every op type, defined once, and the public functions that create them.

Each module holds one family of op definitions (inference, numpy kernel, and
later gradient and ONNX lowering) together with TF1-named public functions.
Importing this package registers every op type and installs Python operators on
``Tensor`` and ``Variable``.
"""

from . import (array_combine, array_fill, array_gather, array_scatter, array_select, array_shape,
               array_slice, array_transform, broadcast_grad, clip_ops, core_ops, fused_ops,
               initializers, linalg, losses, math_binary, math_compare, math_misc, math_special,
               math_trig, math_unary, math_unary_grad, metrics, nn_activation,
               nn_activation_grad, nn_conv, nn_loss, nn_norm, nn_pool, nn_pool_grad, nn_softmax,
               nn_softmax_cross_entropy, random_ops, reduction, reduction_grad, summary_ops,
               training_ops, variable_scope, variables)
from .convert import constant, convert_n_to_tensor, convert_to_tensor
from .operators import install_operators
from .registry import OpDef, apply_op, get_op_def, register, registered_types
from .static_value import constant_value, constant_value_as_shape

FAMILIES = (core_ops, variables, math_unary, math_unary_grad, math_trig, math_special,
            math_binary, math_compare, math_misc, reduction, reduction_grad, linalg, array_shape,
            array_fill, array_transform, array_combine, array_slice, array_gather, array_scatter,
            array_select, nn_activation, nn_softmax, nn_activation_grad, nn_loss,
            nn_softmax_cross_entropy, nn_norm, nn_conv, nn_pool, nn_pool_grad, random_ops,
            broadcast_grad, clip_ops, initializers, variable_scope, losses, metrics,
            training_ops, fused_ops, summary_ops)


def public_functions() -> dict:
    """Name -> function for every public function of every op family."""
    out = {}
    for module in FAMILIES:
        for name in module.__all__:
            out[name] = getattr(module, name)
    return out


def _install():
    from ..graphlib import Tensor
    functions = public_functions()
    functions["slice_helper"] = array_slice.slice_helper
    install_operators(Tensor, functions)
    install_operators(variables.Variable, functions)


_install()

__all__ = ["OpDef", "apply_op", "get_op_def", "register", "registered_types", "constant",
           "convert_to_tensor", "convert_n_to_tensor", "constant_value",
           "constant_value_as_shape", "public_functions", "FAMILIES"]
