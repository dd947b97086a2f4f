"""Finding a graph's elements: operations by name, tensors by ``"op:index"``, and
``as_graph_element``, which resolves a Tensor, Operation or name string.

:class:`ElementLookupMixin` gives :class:`~staticgraph.graphlib.graph.Graph`
these methods over its ``_ops`` list and ``_by_name`` dict, with TF1's errors
(KeyError for a missing element, ValueError for the wrong kind of name or an
element of another graph).
"""

from __future__ import annotations

from .operation import Operation
from .tensor import Tensor

__all__ = ["ElementLookupMixin"]


class ElementLookupMixin:
    """``Graph``'s lookups; needs ``self._ops``, ``self._by_name`` and ``describe()``."""

    def get_operations(self):
        """All operations, in creation order."""
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        """The op called ``name``; KeyError when absent, ValueError for a tensor name."""
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        if ":" in name:
            raise ValueError(f"Name {name!r} appears to refer to a Tensor, not an Operation.")
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.") from None

    def get_tensor_by_name(self, name: str) -> Tensor:
        """The tensor ``"op:index"``; KeyError when absent, ValueError for an op name."""
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolve a Tensor, Operation or name string to an element of this graph."""
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation)
        if hasattr(obj, "_as_graph_element"):
            obj = obj._as_graph_element()
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj.name!r} is not an element of this graph: it "
                                 f"belongs to {obj.graph.describe()}, not {self.describe()}.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj.name!r} is not an element of this graph: "
                                 f"it belongs to {obj.graph.describe()}, not {self.describe()}.")
            return obj
        kinds = " or ".join(k for k, ok in (("Tensor", allow_tensor),
                                              ("Operation", allow_operation)) if ok)
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {kinds}.")

    def _element_by_name(self, name, allow_tensor, allow_operation):
        if ":" in name:
            if not allow_tensor:
                raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a Operation.")
            op_name, _, index = name.rpartition(":")
            try:
                index = int(index)
            except ValueError:
                raise ValueError(f"The name {name!r} looks like a Tensor name, but is not a "
                                 "valid one. Tensor names must be of the form "
                                 "\"<op_name>:<output_index>\".") from None
            op = self._by_name.get(op_name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                               f"The operation, {op_name!r}, does not exist in the graph.")
            if not 0 <= index < len(op.outputs):
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                               f"The operation, {op_name!r}, exists but only has "
                               f"{len(op.outputs)} outputs.")
            return op.outputs[index]
        op = self._by_name.get(name)
        if op is None:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
        if not allow_operation:
            raise ValueError(f"The name {name!r} refers to an Operation, not a Tensor. Tensor "
                             "names must be of the form \"<op_name>:<output_index>\".")
        return op
