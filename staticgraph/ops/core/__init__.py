"""core: the ops every graph uses: ``Const``, ``Placeholder``, ``Identity``, ``NoOp``."""

from . import basic_ops

MODULES = (basic_ops,)
