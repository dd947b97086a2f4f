"""ops: every op type, defined once, and the public functions that create them.

Each module holds one family of op definitions (inference, numpy kernel, and
later gradient and ONNX lowering) together with TF1-named public functions.
Importing this package registers every op type and installs Python operators on
``Tensor`` and ``Variable``.
"""

from . import (array_combine, array_fill, array_gather, array_select, array_shape, array_slice,
               array_transform, core_ops, linalg, math_binary, math_compare, math_misc,
               math_unary, nn_activation, nn_conv, nn_loss, nn_norm, nn_pool, random_ops,
               reduction, variables)
from .convert import constant, convert_n_to_tensor, convert_to_tensor
from .operators import install_operators
from .registry import OpDef, apply_op, get_op_def, register, registered_types
from .static_value import constant_value, constant_value_as_shape

FAMILIES = (core_ops, variables, math_unary, math_binary, math_compare, math_misc, reduction,
            linalg, array_shape, array_fill, array_transform, array_combine, array_slice,
            array_gather, array_select, nn_activation, nn_loss, nn_norm, nn_conv, nn_pool,
            random_ops)


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
    functions["slice_helper"] = getattr(array_slice, "slice_helper", None)
    missing = [k for k in ("add", "subtract", "multiply", "truediv", "floordiv", "floormod",
                           "pow", "matmul", "logical_and", "logical_or", "logical_xor",
                           "less", "less_equal", "greater", "greater_equal", "negative", "abs",
                           "logical_not", "slice_helper") if functions.get(k) is None]
    available = {k: v for k, v in functions.items() if v is not None}
    if missing:  # families still being written: install what exists
        for k in missing:
            available[k] = _unavailable(k)
    install_operators(Tensor, available)
    install_operators(variables.Variable, available)


def _unavailable(name):
    def fn(*args, **kwargs):
        raise NotImplementedError(f"{name} is not available yet")
    fn.__name__ = name
    return fn


_install()

__all__ = ["OpDef", "apply_op", "get_op_def", "register", "registered_types", "constant",
           "convert_to_tensor", "convert_n_to_tensor", "constant_value",
           "constant_value_as_shape", "public_functions", "FAMILIES"]
