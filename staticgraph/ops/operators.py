"""Python operators on tensors and variables (``x + y``, ``x[1:, ::-1]``, ``a @ b``, ...).

As in TF1, the other operand is converted to the tensor's dtype (``x * 2`` with a
float32 ``x`` multiplies by a float32 2); ``/`` is true division (ints become
floats) and ``==`` stays identity so tensors can key dicts.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..graphlib import Tensor
from .convert import convert_to_tensor

__all__ = ["install_operators"]


_VALUE_TYPES = (numbers.Number, list, tuple, np.ndarray, np.generic)


_PLAIN_SCALARS = (float, int, bool)   # never tensors: skip the ``_as_graph_tensor`` probe


def _binary(fn, op_name, reverse=False):
    def operator(self, other):
        x = self if type(self) is Tensor else convert_to_tensor(self)
        kind = type(other)
        if kind is Tensor or (kind not in _PLAIN_SCALARS and (
                isinstance(other, Tensor) or hasattr(other, "_as_graph_tensor"))):
            # Tensors keep their dtype: the op raises TypeError naming both dtypes.
            y = convert_to_tensor(other)
        else:
            try:
                y = convert_to_tensor(other, dtype=x.dtype)
            except (TypeError, ValueError):
                if not isinstance(other, _VALUE_TYPES):
                    return NotImplemented  # let the other operand try
                y = other  # the op's own conversion raises TF1's error naming op and line
        if reverse:
            x, y = y, x
        return fn(x, y, name=op_name)

    operator.__doc__ = f"``{fn.__name__}`` of the operands."
    return operator


def _unary(fn, op_name=None):
    def operator(self):
        return fn(convert_to_tensor(self), name=op_name)

    operator.__doc__ = f"``{fn.__name__}`` of the tensor."
    return operator


def _getitem(slice_helper):
    def operator(self, key):
        return slice_helper(convert_to_tensor(self), key)

    operator.__doc__ = "Slicing with ints, slices, ``...``, ``None`` (strided_slice)."
    return operator


_BINARY = {
    "add": ("add", "add"), "sub": ("subtract", "sub"), "mul": ("multiply", "mul"),
    "truediv": ("truediv", "truediv"), "floordiv": ("floordiv", "floordiv"),
    "mod": ("floormod", "mod"), "pow": ("pow", "pow"), "matmul": ("matmul", "matmul"),
    "and": ("logical_and", "LogicalAnd"), "or": ("logical_or", "LogicalOr"),
    "xor": ("logical_xor", "LogicalXor"),
}
_COMPARE = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}
_UNARY = {"neg": ("negative", "Neg"), "abs": ("abs", "Abs"), "invert": ("logical_not", None)}


def install_operators(cls, functions):
    """Give ``cls`` (Tensor, Variable) TF1's arithmetic, comparison and slicing operators.

    ``functions`` maps public function names (``"add"``, ``"matmul"``, ...,
    ``"slice_helper"``) to the functions that create the ops.
    """
    for dunder, (fn, op_name) in _BINARY.items():
        setattr(cls, f"__{dunder}__", _binary(functions[fn], op_name))
        setattr(cls, f"__r{dunder}__", _binary(functions[fn], op_name, reverse=True))
    for dunder, fn in _COMPARE.items():
        setattr(cls, f"__{dunder}__", _binary(functions[fn], None))
    for dunder, (fn, op_name) in _UNARY.items():
        setattr(cls, f"__{dunder}__", _unary(functions[fn], op_name))
    cls.__getitem__ = _getitem(functions["slice_helper"])
