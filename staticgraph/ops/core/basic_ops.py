"""Graph inputs and plumbing: Const, Placeholder, PlaceholderWithDefault, Identity, NoOp.

Public functions: ``placeholder``, ``placeholder_with_default``, ``identity``,
``no_op``, ``group``, ``tuple`` (``constant`` lives in :mod:`.convert`).
"""

from __future__ import annotations


from ...errors import InvalidArgumentError
from ...graphlib import (Operation, Tensor, TensorShape, as_dtype, as_shape, control_dependencies,
                         get_default_graph, name_scope)
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op, graph_of
from ..shape_rules import same_as

__all__ = ["placeholder", "placeholder_with_default", "identity", "no_op", "group", "tuple"]


@register
class Const(OpDef):
    """A constant value (attribute ``value``, a read-only numpy array)."""

    attrs = {"value": None, "dtype": None}
    differentiable = False

    def infer(self, *, value, dtype):
        return Spec(dtype, value.shape)

    def make_kernel(self, op, runtime):
        value = op.attrs["value"]
        return lambda: value

    def static_value(self, op):
        return op.attrs["value"]

    def onnx(self, ctx, op):
        return ctx.const(op.attrs["value"], op.attrs["dtype"])


@register
class Placeholder(OpDef):
    """A value that must be fed at run time (attributes ``dtype`` and ``shape``)."""

    attrs = {"dtype": None, "shape": TensorShape(None)}
    differentiable = False
    must_feed = True

    def infer(self, *, dtype, shape):
        return Spec(dtype, shape)

    def make_kernel(self, op, runtime):
        def missing():
            raise InvalidArgumentError(None, op, f"You must feed a value for placeholder "
                                                 f"tensor '{op.name}'")
        return missing

    def onnx(self, ctx, op):
        ctx.unsupported(f"placeholder '{op.name}' is needed by the outputs but is not one "
                        f"of the model's inputs; add it to inputs=")


class PassThrough(OpDef):
    """Base of the ops whose value is their input unchanged (``Identity``,
    ``StopGradient``, ``PlaceholderWithDefault``): a view of input 0, its gradient
    passed back, lowered to ONNX ``Identity``."""

    returns_view = (0,)

    def infer(self, x):
        return same_as(x)

    @staticmethod
    def compute(x):
        return x

    def grad(self, op, dy):
        return [dy]

    def onnx(self, ctx, op, x):
        return ctx.node("Identity", [x])


@register
class PlaceholderWithDefault(PassThrough):
    """Its input unless fed; the static ``shape`` may be less specific than the input's."""

    attrs = {"shape": TensorShape(None)}

    def infer(self, x, *, shape):
        if not x.shape.is_compatible_with(shape):
            raise ValueError(f"The default value's shape {x.shape} is not compatible with "
                             f"the placeholder's shape {shape}")
        return Spec(x.dtype, shape)

    @staticmethod
    def compute(x, **_):
        return x


@register
class Identity(PassThrough):
    """Returns its input unchanged."""


@register
class NoOp(OpDef):
    """Does nothing; used to group control dependencies."""

    differentiable = False
    is_noop = True

    def infer(self):
        return []

    @staticmethod
    def compute():
        return ()

    def onnx(self, ctx, op):
        return None  # ordering only: the exporter walks ops in execution order


def placeholder(dtype, shape=None, name=None):
    """A tensor that must be fed through ``feed_dict`` when the graph runs.

    Args:
        dtype: element type, e.g. ``tf.float32`` (or TF1's string ``"float"``).
        shape: static shape; None for any shape, ``None`` entries for any size.
        name: op name (default ``"Placeholder"``).

    Example:
        >>> x = tf.placeholder(tf.float32, [None, 784], name="x")
    """
    return apply_op("Placeholder", [], {"dtype": as_dtype(dtype), "shape": as_shape(shape)},
                    name=name)


def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF1's keyword
    """``input`` unless a value is fed; ``shape`` is the static shape (may be looser)."""
    x = convert_to_tensor(input)
    return apply_op("PlaceholderWithDefault", [x], {"shape": as_shape(shape)}, name=name)


def identity(input, name=None):  # noqa: A002 - TF1's keyword
    """A tensor with the same value as ``input``."""
    return apply_op("Identity", [convert_to_tensor(input)], name=name)


def no_op(name=None):
    """An op that does nothing; run it to trigger its control dependencies."""
    return apply_op("NoOp", [], name=name)


def _as_op(x):
    if hasattr(x, "_as_graph_element"):
        x = x._as_graph_element()
    if hasattr(x, "initializer") and not isinstance(x, (Tensor, Operation)):
        x = x._as_graph_tensor()
    if isinstance(x, Tensor):
        return x.op
    if isinstance(x, Operation):
        return x
    raise TypeError(f"Expected a Tensor or Operation, got {x!r}")


def group(*inputs, name=None):
    """An op that runs all of ``inputs`` (tensors or ops); returns that NoOp."""
    ops = [_as_op(x) for x in inputs if x is not None]
    graph = graph_of([o for o in ops]) if ops else get_default_graph()
    with graph.as_default(), control_dependencies(ops):
        return no_op(name=name or "group_deps")


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF1's name
    """Tensors with the same values as ``tensors``, each available only after all ran."""
    tensors = list(tensors)
    deps = [t for t in tensors if t is not None] + list(control_inputs or [])
    with name_scope(name, "tuple", [t for t in tensors if isinstance(t, Tensor)]):
        gate = group(*deps)
        with control_dependencies([gate]):
            return [None if t is None else
                    (identity(t, name="control_dependency") if isinstance(t, Tensor) else gate)
                    for t in tensors]
