"""``Operation``: a node of a graph, with its inputs, attributes and outputs."""

from __future__ import annotations

from .default_session import session_for
from .user_frame import format_frame

__all__ = ["Operation"]


class Operation:
    """One node: an op type applied to input tensors, with attributes.

    Attributes:
        graph: the owning :class:`Graph`.
        name: unique name in the graph, including name scopes (``"layer1/MatMul"``).
        type: the registered op type (``"MatMul"``).
        inputs: tuple of input :class:`Tensor`.
        control_inputs: ops that must run before this one.
        attrs: dict of attribute values (ints, floats, strings, lists, dtypes, arrays).
        outputs: list of output :class:`Tensor`.
        device: the requested device string ('' when unplaced).
        traceback: the user's ``(file, line, function)`` that declared the op, or None.
    """

    __slots__ = ("graph", "name", "type", "inputs", "control_inputs", "attrs", "outputs",
                 "device", "traceback", "_id", "op_def", "__weakref__")

    def __init__(self, graph, name, op_type, inputs, attrs, op_def, control_inputs,
                 device, traceback, op_id):
        self.graph = graph
        self.name = name
        self.type = op_type
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.op_def = op_def
        self.control_inputs = list(control_inputs)
        self.device = device
        self.traceback = traceback
        self._id = op_id
        self.outputs = []

    @property
    def node_def(self) -> str:
        """A short description ``name = Type(inputs)`` (TF1 returns a proto here)."""
        ins = ", ".join(t.name for t in self.inputs)
        return f"{self.name} = {self.type}({ins})"

    @property
    def user_location(self) -> str:
        """``file:line`` of the user code that declared this op."""
        return format_frame(self.traceback)

    def get_attr(self, name):
        """The value of attribute ``name``; ValueError when the op has none of that name."""
        try:
            return self.attrs[name]
        except KeyError:
            raise ValueError(f"Operation {self.name!r} (type {self.type}) has no attr named "
                             f"{name!r}; it has {sorted(self.attrs)}") from None

    def values(self):
        """The output tensors as a tuple."""
        return tuple(self.outputs)

    def run(self, feed_dict=None, session=None):
        """Run this op in ``session`` (default: the default session)."""
        session_for(session, self.graph).run(self, feed_dict)

    def _add_control_input(self, op):
        """Make ``op`` run before this one (same graph); compiled plans are dropped."""
        if not isinstance(op, Operation):
            raise TypeError(f"Control input must be an Operation, got {op!r}")
        if op.graph is not self.graph:
            raise ValueError(f"Control input {op.name!r} belongs to {op.graph.describe()}, "
                             f"but {self.name!r} belongs to {self.graph.describe()}.")
        if op not in self.control_inputs:
            self.control_inputs.append(op)
            self.graph._structure_changed()

    def __repr__(self):
        return f"<tf.Operation '{self.name}' type={self.type}>"
