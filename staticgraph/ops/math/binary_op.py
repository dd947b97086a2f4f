"""What the binary elementwise ops share: their base class and the wrappers that build
one from two values.

:mod:`.binary` and :mod:`.division` define the op types; both build on this module,
which imports neither (so neither family imports the other's names while loading).
"""

from __future__ import annotations

from ...graphlib import name_scope
from . import elementwise as _elementwise
from ..apply import apply_op
from ..convert import convert_same_dtype
from ..shape_rules import NUMERIC, broadcast_spec, check_same_dtype, require_dtype

__all__ = ["BinaryOp", "apply_binary", "apply_binary_in_scope"]


class BinaryOp(_elementwise.ElementwiseOp):
    """Base of elementwise ops of two same-dtype inputs with broadcasting."""

    allowed = NUMERIC
    grad_broadcasts = True

    def infer(self, x, y):
        check_same_dtype(x, y)
        require_dtype(x, self.allowed)
        return broadcast_spec(x, y)


def apply_binary(op_type, x, y, name=None):
    """An ``op_type`` op of ``x`` and ``y`` converted to one dtype."""
    x, y = convert_same_dtype(x, y, op_type=op_type, name=name)
    return apply_op(op_type, [x, y], name=name)


def apply_binary_in_scope(op_type, x, y, name, default_name):
    """An op in a name scope, as TF1's Python-level wrappers do (op named like the scope)."""
    with name_scope(name, default_name, [x, y]) as scope:
        x, y = convert_same_dtype(x, y, op_type=op_type, name=scope)
        return apply_op(op_type, [x, y], name=scope)
