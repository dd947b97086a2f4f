"""``Graph``: ops in creation order, unique names, scopes and collections."""

from __future__ import annotations

import contextlib
import gc
import itertools
import re
import threading

from . import default_graph as _default_graph  # a cycle: default_graph builds Graphs
from .graph_def_export import graph_to_graph_def
from .hooks import graph_summary
from .operation import Operation
from .tensor import Tensor, op_of
from .tensor_shape import TensorShape
from .user_frame import capture_user_frame, declaration_message, format_frame

__all__ = ["Graph", "GraphKeys"]

_graph_ids = itertools.count(1)

# TF1's rules for op and scope names.
_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class GraphKeys:
    """Standard collection names (TF1's ``tf.GraphKeys``)."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


class _ThreadState(threading.local):
    """A graph's per-thread declaration state; class attributes are every thread's
    defaults, so reading an unset one costs no AttributeError."""

    name_stack = ""
    frame_override = None
    control_stack = None
    device_stack = None


class Graph:
    """A dataflow graph: operations in creation order plus naming and collection state.

    Use ``with g.as_default():`` to declare ops into ``g``. Op names are unique
    (``add``, ``add_1``) and prefixed by the active :meth:`name_scope`.
    """

    def __init__(self):
        self._id = next(_graph_ids)
        self._created_at = capture_user_frame()
        self._lock = threading.RLock()
        self._ops = []
        self._by_name = {}
        self._names_in_use = {}
        self._thread = _ThreadState()   # name, control and device stacks per thread
        self._collections = {}
        self._finalized = False
        self.seed = None
        # TF1's ``Graph.version``: grows with every op added and every edit.
        self.version = 0
        # Grows only when an existing op's edges change (a control input added after
        # the fact): compiled plans of the graph are stale then, and sessions compare
        # it with the value their plans were compiled at. Adding ops changes no plan.
        self.edit_version = 0

    # Name scopes, control dependencies and device scopes are per thread (TF1's rule):
    # two threads declaring into one graph do not see each other's scopes.
    @property
    def _name_stack(self) -> str:
        return getattr(self._thread, "name_stack", "")

    @_name_stack.setter
    def _name_stack(self, value):
        self._thread.name_stack = value

    @property
    def _control_stack(self) -> list:
        stack = getattr(self._thread, "control_stack", None)
        if stack is None:
            stack = self._thread.control_stack = []
        return stack

    @_control_stack.setter
    def _control_stack(self, value):
        self._thread.control_stack = value

    @property
    def _device_stack(self) -> list:
        stack = getattr(self._thread, "device_stack", None)
        if stack is None:
            stack = self._thread.device_stack = []
        return stack

    def _structure_changed(self):
        """Record that an existing op's edges changed (plans compiled before are stale)."""
        self.version += 1
        self.edit_version += 1

    # ------------------------------------------------------------------ identity
    def __repr__(self):
        where = format_frame(self._created_at)
        return f"<staticgraph.Graph #{self._id} created at {where}>"

    def describe(self) -> str:
        """Short text naming this graph for error messages."""
        return repr(self)

    @property
    def _last_id(self) -> int:
        return len(self._ops)

    # ------------------------------------------------------------- default graph
    def as_default(self):
        """Context manager that makes this graph the default graph."""
        return _default_graph.graph_as_default(self)

    # --------------------------------------------------------------------- names
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` under the current name scope, suffixed ``_1``, ``_2`` … if taken."""
        if self._name_stack:
            name = f"{self._name_stack}/{name}"
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = f"{base}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = f"{name}_{i - 1}"
        return name

    def get_name_scope(self) -> str:
        """The current name scope without a trailing slash."""
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name):
        """Nest op names under ``name``; yields the scope string ending in ``/``.

        ``name`` ending in ``/`` re-enters that exact (absolute) scope; ``None`` or
        ``""`` resets to the top level.
        """
        old = self._name_stack
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name_scope name must be a string, got {name!r}")
        if name and not (_VALID_SCOPE_NAME if old else _VALID_OP_NAME).match(name):
            raise ValueError(f"'{name}' is not a valid scope name. Scope names may contain "
                             "letters, digits, '.', '_', '-', '/' and '>', and a top-level "
                             "scope must not start with '_', '-', '/' or '>'.")
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            with self._lock:
                new = self.unique_name(name)
        self._name_stack = new
        try:
            yield f"{new}/" if new else ""
        finally:
            self._name_stack = old

    # ------------------------------------------------------------------- lookups
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

    # --------------------------------------------------------------- op creation
    def create_op(self, op_def, inputs, attrs, name, output_specs_fn=None) -> Operation:
        """Add an op of type ``op_def.type`` and return it.

        ``output_specs_fn(inputs, attrs)`` returns the outputs' ``(dtype, shape)``
        pairs; a ValueError or TypeError it raises is re-raised with the op's name,
        type, input shapes and the user's file and line.
        """
        # The hot path of declaring: every op of every program comes through here,
        # so per-thread state is read once and the common cases are inlined.
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        if type(name) is not str or not name:
            if not isinstance(name, str) or not name:
                raise TypeError(f"Op names are non-empty strings, got {name!r}.")
        state = self._thread
        frame = getattr(state, "frame_override", None) or capture_user_frame(2)
        with self._lock:
            if name[-1] == "/":
                name = name[:-1]
                if name in self._by_name:
                    name = self.unique_name(name.rsplit("/", 1)[-1])
                else:  # a scope's name (already unique): use it as is, as TF1 does
                    self._names_in_use.setdefault(name.lower(), 1)
                if not _valid_op_name(name):
                    raise ValueError(_invalid_name_message(name, frame))
            else:
                name = self._unique_op_name(name, getattr(state, "name_stack", ""), frame)
            try:
                specs = (output_specs_fn or op_def.output_specs)(inputs, attrs)
            except (ValueError, TypeError) as exc:
                raise type(exc)(declaration_message(exc, name, op_def.type, inputs,
                                                    frame)) from None
            control = (self._current_control_inputs(inputs)
                       if getattr(state, "control_stack", None) else ())
            devices = getattr(state, "device_stack", None)
            device = devices[-1] if devices else ""
            ops = self._ops
            placed_by = device if device and callable(device) else None
            op = Operation(self, name, op_def.type, inputs, attrs, op_def, control,
                           "" if placed_by else device, frame, len(ops))
            if len(specs) == 1:
                dtype, shape = specs[0]
                op.outputs = [Tensor(op, 0, dtype, _shared_shape(shape))]
            else:
                op.outputs = [Tensor(op, i, dtype, _shared_shape(shape))
                              for i, (dtype, shape) in enumerate(specs)]
            if placed_by is not None:  # a device function chooses per op (TF1)
                op.device = placed_by(op) or ""
            ops.append(op)
            self._by_name[name] = op
            self.version += 1
        return op

    def _unique_op_name(self, name, scope, frame):
        """:meth:`unique_name` for a new op (marks it used), checked against TF1's rule."""
        full = f"{scope}/{name}" if scope else name
        key = full.lower()
        names = self._names_in_use
        i = names.get(key, 0)
        names[key] = i + 1
        if i > 0:
            base = key
            key = f"{base}_{i}"
            while key in names:
                i += 1
                key = f"{base}_{i}"
            names[key] = 1
            name = f"{full}_{i}"
        else:
            name = full
        # A suffix ``_<n>`` never changes validity, so the check uses the requested name.
        if not _valid_op_name(full):
            raise ValueError(_invalid_name_message(name, frame))
        return name

    @contextlib.contextmanager
    def attributed_to(self, frame):
        """Ops created inside record ``frame`` as the user line that declared them.

        The gradient engine uses this so that each gradient op remembers the user's
        line of the forward op it differentiates.
        """
        old = getattr(self._thread, "frame_override", None)
        self._thread.frame_override = frame
        try:
            yield
        finally:
            self._thread.frame_override = old

    def declaring_as(self, scope, frame):
        """Context manager: ops created inside go under the absolute name scope ``scope``
        (no trailing slash, already valid) and record ``frame`` as their user line.

        The same as ``with attributed_to(frame), name_scope(scope + "/"):`` at a
        fraction of the cost; the gradient engine enters one per differentiated op.
        """
        return _DeclaringAs(self._thread, scope, frame)

    # -------------------------------------------------------- control and device
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        """Ops created inside run only after ``control_inputs`` (None clears them)."""
        if control_inputs is None:
            saved, self._control_stack = self._control_stack, []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for c in control_inputs:
            c = op_of(c)
            if not isinstance(c, Operation):
                raise TypeError(f"Control input must be an Operation or Tensor: {c!r}")
            if c.graph is not self:
                raise ValueError(f"Control input {c.name!r} belongs to {c.graph.describe()}, "
                                 f"not {self.describe()}.")
            ops.append(c)
        self._control_stack.append(ops)
        try:
            yield
        finally:
            self._control_stack.pop()

    def _current_control_inputs(self, inputs):
        if not self._control_stack:
            return []
        input_ops = {id(t.op) for t in inputs}
        out, seen = [], set()
        for frame in self._control_stack:
            for op in frame:
                if id(op) not in seen and id(op) not in input_ops:
                    seen.add(id(op))
                    out.append(op)
        return out

    @contextlib.contextmanager
    def device(self, device_name):
        """Record ``device_name`` (e.g. ``"/gpu:0"``) on ops created inside."""
        self._device_stack.append(device_name or "")
        try:
            yield
        finally:
            self._device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Accepted for TF1 compatibility; placement follows :meth:`device`."""
        yield

    # -------------------------------------------------------------- collections
    def add_to_collection(self, name, value):
        """Append ``value`` to collection ``name``; RuntimeError once finalized."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        """Append ``value`` to each collection in ``names`` (a string or a list)."""
        for n in ([names] if isinstance(names, str) else set(names)):
            self.add_to_collection(n, value)

    def get_collection_ref(self, name):
        """The mutable list behind collection ``name`` (created if absent)."""
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        """A copy of collection ``name``, filtered to items whose name matches ``scope``."""
        items = list(self._collections.get(name, ()))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [v for v in items if hasattr(v, "name") and pattern.match(v.name)]

    def get_all_collection_keys(self):
        """Names of the non-empty collections."""
        return [k for k, v in self._collections.items() if v]

    def clear_collection(self, name):
        """Remove collection ``name``."""
        self._collections.pop(name, None)

    # ----------------------------------------------------------------- finalize
    def finalize(self):
        """Make the graph read-only: creating an op afterwards raises RuntimeError."""
        self._finalized = True

    @property
    def finalized(self) -> bool:
        """True after :meth:`finalize`."""
        return self._finalized

    def _unsafe_unfinalize(self):
        self._finalized = False

    def as_graph_def(self, from_version=None, add_shapes=False, **kwargs):
        """This graph as a JSON-serialisable ``GraphDef`` (see ``graphlib.graph_def``)."""
        return graph_to_graph_def(self, **kwargs)

    def summary(self):
        """A table of ops by type, variables, parameters and placeholders.

        The table is ``staticgraph.export.summary(self)``: the export layer registers
        it with :func:`.hooks.register_graph_summary` when it is imported (graphlib
        imports nothing above it).
        """
        return graph_summary(self)


class _DeclaringAs:
    """See :meth:`Graph.declaring_as` (a plain class: cheaper than a generator)."""

    __slots__ = ("_state", "_scope", "_frame", "_saved")

    def __init__(self, state, scope, frame):
        self._state, self._scope, self._frame = state, scope, frame

    def __enter__(self):
        state = self._state
        self._saved = (getattr(state, "name_stack", ""), getattr(state, "frame_override", None))
        state.name_stack = self._scope
        state.frame_override = self._frame

    def __exit__(self, *exc):
        self._state.name_stack, self._state.frame_override = self._saved
        return False


class collector_paused:
    """Context manager: Python's cyclic garbage collector pauses inside.

    For operations that build many long-lived objects at once (differentiating,
    optimizing or compiling a large graph): CPython otherwise re-scans every object
    of the graph each time the young objects pass a threshold, which makes such
    operations several times slower and no longer linear. Nesting and concurrent
    use are safe; the collector runs again afterwards if it ran before.
    """

    __slots__ = ("_was_enabled",)

    def __enter__(self):
        self._was_enabled = gc.isenabled()
        if self._was_enabled:
            gc.disable()
        return self

    def __exit__(self, *exc):
        if self._was_enabled:
            gc.enable()
        return False


_SHAPES: dict = {}   # dims tuple -> one shared TensorShape (shapes are immutable)


def _shared_shape(shape) -> TensorShape:
    """``shape`` as a TensorShape, the same object for equal shapes.

    Graphs of many ops have few distinct shapes; sharing them keeps a large graph's
    object count (and the garbage collector's work) down.
    """
    if type(shape) is not TensorShape:
        if not isinstance(shape, TensorShape):
            shape = TensorShape(shape)
        return shape  # a subclass: kept as it is
    dims = shape._dims
    try:
        found = _SHAPES.get(dims)
    except TypeError:  # an unhashable dimension: keep the object as it is
        return shape
    if found is None:
        if len(_SHAPES) >= 4096:
            _SHAPES.clear()
        found = _SHAPES[dims] = shape
    return found


_VALID_NAMES: dict = {}   # requested op name -> valid (bounded memo of the regex)


def _valid_op_name(name) -> bool:
    ok = _VALID_NAMES.get(name)
    if ok is None:
        if len(_VALID_NAMES) >= 1 << 14:
            _VALID_NAMES.clear()
        ok = _VALID_NAMES[name] = _VALID_OP_NAME.match(name) is not None
    return ok


def _invalid_name_message(name, frame) -> str:
    return (f"'{name}' is not a valid node name: op names contain letters, digits, '.', '_', "
            "'-', '/' and '>', and start with a letter, digit or '.'. Declared at "
            f"{format_frame(frame)}.")
