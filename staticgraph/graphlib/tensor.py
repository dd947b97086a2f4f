"""``Tensor``: a symbolic handle to one output of an :class:`Operation`."""

from __future__ import annotations

from .default_session import session_for
from .tensor_shape import TensorShape, as_shape

__all__ = ["Tensor", "IdentityEquality", "op_of"]


class IdentityEquality:
    """Mixin of graph handles (``Tensor``, ``Variable``): hashable by identity and ``==``
    is identity, as in TF1 graph mode, so they can key feed dicts and sets."""

    __slots__ = ()

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other


class Tensor(IdentityEquality):
    """One output of an op: its dtype and static shape, known while declaring.

    Tensors are hashable by identity and ``==`` is identity (as in TF1 graph mode),
    so they can key feed dicts. Arithmetic operators, comparisons and slicing
    create ops (installed by :mod:`staticgraph.ops.operators`).
    """

    __slots__ = ("op", "value_index", "dtype", "_shape", "__weakref__")

    # Tensors win over numpy arrays in mixed arithmetic (``ndarray + tensor``).
    __array_priority__ = 100
    __array_ufunc__ = None

    def __init__(self, op, value_index, dtype, shape):
        self.op = op
        self.value_index = value_index
        self.dtype = dtype
        self._shape = shape

    @property
    def name(self) -> str:
        """``"<op name>:<output index>"``."""
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self):
        """The :class:`Graph` this tensor belongs to."""
        return self.op.graph

    @property
    def device(self) -> str:
        """The device requested for the producing op."""
        return self.op.device

    @property
    def shape(self) -> TensorShape:
        """The static shape (may be partly unknown)."""
        return self._shape

    def get_shape(self) -> TensorShape:
        """The static shape (TF1's spelling)."""
        return self._shape

    def set_shape(self, shape):
        """Refine the static shape; ValueError when incompatible with what is known."""
        try:
            self._shape = self._shape.merge_with(as_shape(shape))
        except ValueError:
            raise ValueError(
                f"Tensor {self.name!r} has shape {self._shape}, which is not compatible "
                f"with the requested shape {as_shape(shape)}") from None

    def consumers(self):
        """The ops that take this tensor as an input, in creation order."""
        return [op for op in self.op.graph.get_operations() if any(t is self for t in op.inputs)]

    def eval(self, feed_dict=None, session=None):
        """Run this tensor in ``session`` (default: the default session)."""
        return session_for(session, self.graph).run(self, feed_dict)

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is "
                        "not None:` instead of `if t:` to test if a tensor is defined, and use "
                        "TensorFlow ops such as tf.cond to execute subgraphs conditioned on "
                        "the value of a tensor.")

    def __iter__(self):
        raise TypeError("Tensor objects are only iterable when eager execution is enabled. "
                        "To iterate over this tensor use tf.unstack or index it.")

    def __len__(self):
        raise TypeError(f"len is not well defined for symbolic Tensors ({self.name}). "
                        "Use tf.shape(t)[0] for the dynamic size.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array; "
                        "run it in a Session to get its value.")

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self.dtype.name}>"


def op_of(x):
    """The op ``x`` stands for: a Tensor's producer, a Variable's ``VariableV2`` op (any
    object with ``_as_graph_element``), anything else unchanged (callers check it is an
    Operation)."""
    if hasattr(x, "_as_graph_element"):
        x = x._as_graph_element()
    return x.op if isinstance(x, Tensor) else x
