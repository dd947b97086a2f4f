"""Per-thread declaration state of a graph: name scopes, control dependencies,
device scopes and the user frame ops are attributed to.

:class:`ScopesMixin` gives :class:`~staticgraph.graphlib.graph.Graph` its
``name_scope``, ``control_dependencies``, ``device``, ``attributed_to`` and
``declaring_as`` context managers. Their stacks live in the graph's
``_thread`` (a :class:`ThreadState`), so two threads declaring into one graph do
not see each other's scopes (TF1's rule); ``Graph.create_op`` reads that state
directly on its hot path.
"""

from __future__ import annotations

import contextlib
import threading

from .op_names import VALID_OP_NAME, VALID_SCOPE_NAME
from .operation import Operation
from .tensor import op_of

__all__ = ["ScopesMixin", "ThreadState"]


class ThreadState(threading.local):
    """A graph's per-thread declaration state; class attributes are every thread's
    defaults, so reading an unset one costs no AttributeError."""

    name_stack = ""
    frame_override = None
    control_stack = None
    device_stack = None


class ScopesMixin:
    """``Graph``'s scope context managers; needs ``self._thread`` (a :class:`ThreadState`),
    ``self._lock`` and ``unique_name`` (:class:`~.op_names.OpNamingMixin`)."""

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

    # --------------------------------------------------------------- name scopes
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
        if name and not (VALID_SCOPE_NAME if old else VALID_OP_NAME).match(name):
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

    # ----------------------------------------------------------- user attribution
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


class _DeclaringAs:
    """See :meth:`ScopesMixin.declaring_as` (a plain class: cheaper than a generator)."""

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
