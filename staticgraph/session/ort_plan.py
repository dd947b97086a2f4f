"""Plans on the onnxruntime backend: one ``InferenceSession`` per (fetches, feeds) signature.

The signature's (optimized) graph is lowered with ``export.onnx.lower_graph`` into
a model whose inputs are the feeds and the variables it reads, and whose outputs
are the fetched values and the new values of the variables it writes. Variables
stay in onnxruntime as ``OrtValue``\\ s between runs (``VariableStore.device``).

Each written variable with a static shape gets a pair of device buffers, and the
plan keeps two ``IOBinding``\\ s over them: one reads buffer A and writes B, the
other reads B and writes A. A run picks the binding whose input is the
variable's current buffer, so steady training rebinds nothing and never binds one
buffer as both input and output (onnxruntime would compute with a buffer it is
overwriting). Fetched values are copied to numpy; nothing else leaves the device.
"""

from __future__ import annotations

import re
import threading

import numpy as np

from .. import errors
from ..graphlib.toposort import needed_ops
from ..optimizer.pipeline import optimize_signature
from .feeds import inline_feed_check, make_feed_converter
from .fetches import FetchTemplate
from . import ort_device
from .ort_device import device_name, normalize_device
from .plan import _check_placeholders, _resolve_feeds, uninitialized_error

__all__ = ["OrtPlan"]

_NODE_IN_ERROR = re.compile(r"[Nn]ame:\s*'([^']*)'")


class _Binding:
    """One IOBinding with what is bound to each variable input and output."""

    def __init__(self, session):
        self.binding = session.io_binding()
        self.inputs = {}
        self.outputs = {}


class OrtPlan:
    """The compiled form of one ``Session.run`` signature on onnxruntime.

    Attributes:
        fn: ``fn(*feed_values)`` -> the fetch structure (like ``Plan.fn``).
        model: the ONNX model the plan runs.
        device: ``"cpu"`` or ``"cuda"``: where onnxruntime runs it.
        ops: the ops of the (optimized) graph the plan computes, in order.
    """

    def __init__(self, session, fetches, feed_keys):
        graph = session.graph
        self._session = session
        self.template = FetchTemplate(graph, fetches)
        self.feed_tensors = _resolve_feeds(graph, feed_keys)
        elements, run_feeds = self.template.elements, self.feed_tensors
        self._origin = origin = (lambda op: op)
        self.report = None
        if session.optimizer_level:
            working = optimize_signature(graph, elements, run_feeds, session.optimizer_level,
                                         **session._optimizer_flags)
            elements, run_feeds = working.fetches, working.feeds
            self._origin = origin = working.origin
            self.report = working.report
        self._run_feeds = run_feeds
        fed = {id(t): i for i, t in enumerate(run_feeds)}
        self.ops = needed_ops(elements, fed)
        _check_placeholders(self.ops, fed, origin)
        from ..export.onnx import lower_graph
        lowered = lower_graph(elements, run_feeds, state_inputs=True, state_outputs=True,
                              origin=origin, ops=self.ops, check=False,
                              feed_names=[t.name for t in self.feed_tensors])
        self.model = lowered.model
        self._node_ops = lowered.node_ops
        device, explicit = self._placement(session)
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.log_severity_level = 3
        threads = getattr(session.config, "intra_op_parallelism_threads", 0) or 0
        if threads:
            options.intra_op_num_threads = int(threads)
        if session._log_device_placement:
            options.enable_profiling = True
        if self.model.graph.output:
            self._ort, self.device = ort_device.make_session(
                self.model.SerializeToString(), device, options, explicit)
        else:  # only operations without effects on values (no_op, grouping)
            self._ort, self.device = None, device
        self._profiling = bool(session._log_device_placement)
        self._setup(lowered)
        self.fn = self._run

    # ---------------------------------------------------------------- placement
    def _placement(self, session):
        """``(device, explicit)``: ops pinned to a GPU, else the session's device, else
        CUDA when it works (TF1 prefers the GPU)."""
        pinned = {normalize_device(op.device) for op in self.ops if op.device}
        if "cuda" in pinned:
            return "cuda", True
        if session.device is not None:
            return session.device, True
        if pinned == {"cpu"}:
            return "cpu", True
        return ("cuda" if ort_device.cuda_status()[0] else "cpu"), False

    # -------------------------------------------------------------------- setup
    def _setup(self, lowered):
        import onnxruntime as ort
        self._ortmod = ort
        self._feed_names = lowered.input_names
        self._var_in = lowered.state_inputs            # [(variable, input name)]
        self._var_out = lowered.state_outputs          # [(variable, output name)]
        fetch_names = []
        self._fetch_index = []
        for name in lowered.output_names:
            if name is None:
                self._fetch_index.append(None)
                continue
            if name not in fetch_names:
                fetch_names.append(name)
            self._fetch_index.append(fetch_names.index(name))
        self._fetch_names = fetch_names
        out_order = [o.name for o in self.model.graph.output]
        self._fetch_pos = [out_order.index(n) for n in fetch_names]
        self._var_pos = [out_order.index(n) for _, n in self._var_out]
        self._scalar = [e is not None and getattr(e, "shape", None) is not None
                        and e.shape.rank == 0 for e in self.template.elements]
        self._pairs = {}
        self._ort_device = "cuda" if self.device == "cuda" else "cpu"
        self._bindings = None
        self._last = None
        self._lock = threading.Lock()
        env = {"ndarray": np.ndarray}
        checks = []
        for i, t in enumerate(self.feed_tensors):
            env[f"D{i}"] = t.dtype.np_dtype
            env[f"F{i}"] = make_feed_converter(t)
            checks.append(f"    if {inline_feed_check(f'f{i}', t, f'D{i}')}: f{i} = F{i}(f{i})")
        params = ", ".join(f"f{i}" for i in range(len(self.feed_tensors)))
        source = [f"def convert({params}):"] + checks + [f"    return ({params}{',' if params else ''})"]
        exec("\n".join(source), env)  # noqa: S102 - generated from the graph, no user strings
        self._convert = env["convert"]
        rebuild = self.template.expression(lambda i: f"v[{i}]")
        env = dict(self.template.constants)
        exec(f"def rebuild(v):\n    return {rebuild}\n", env)  # noqa: S102 - as above
        self._rebuild = env["rebuild"]
        self._required = [v for v, _ in self._var_in]
        self._var_ops = {op.name: op for op in self.ops if op.op_def.is_variable}

    def _to_device(self, array):
        array = np.ascontiguousarray(array)
        return self._ortmod.OrtValue.ortvalue_from_numpy(array.copy(), self._ort_device, 0)

    def _pair(self, var):
        pair = self._pairs.get(var)
        if pair is None:
            t = self._var_ops[var].outputs[0] if var in self._var_ops else None
            if t is not None and t.shape.is_fully_defined() and t.dtype.name != "string":
                make = self._ortmod.OrtValue.ortvalue_from_shape_and_type
                pair = (make(list(t.shape.raw), t.dtype.np_dtype, self._ort_device, 0),
                        make(list(t.shape.raw), t.dtype.np_dtype, self._ort_device, 0))
            else:
                pair = ()
            self._pairs[var] = pair
        return pair

    # ---------------------------------------------------------------------- run
    def _run(self, *feeds):
        session = self._session
        if session._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feeds = self._convert(*feeds)
        if self._ort is None:
            return self._rebuild([None] * len(self._fetch_index))
        store = session._runtime.variables
        for var in self._required:
            if var not in store:
                raise uninitialized_error([(v, self._var_ops[v]) for v in self._required
                                           if v not in store], self._origin)
        with self._lock, session._runtime.update_lock:
            binding = self._bind(store, feeds)
            try:
                self._ort.run_with_iobinding(binding.binding)
            except Exception as exc:  # noqa: BLE001 - mapped to the op that failed
                raise self._op_error(exc, feeds) from exc
            outs = binding.binding.get_outputs()
            for var, value in self._new_values(binding, outs):
                store.set_device(var, value)
            values = [outs[p].numpy() for p in self._fetch_pos]
        if self._profiling:
            self._log_placement()
        result = []
        for k, idx in enumerate(self._fetch_index):
            if idx is None:
                result.append(None)
            else:
                v = values[idx]
                result.append(v[()] if self._scalar[k] else v)
        return self._rebuild(result)

    def _bind(self, store, feeds):
        if self._bindings is None:
            self._bindings = [_Binding(self._ort) for _ in range(2)]
        current = {var: store.device_value(var, self._to_device) for var in self._required}
        # The binding already set up for the current buffers; else the one not used
        # last, so that steady runs alternate between the two without rebinding.
        chosen = None
        for b in self._bindings:
            if all(b.inputs.get(name) is current[var] for var, name in self._var_in):
                chosen = b
                break
        if chosen is None:
            chosen = self._bindings[1] if self._last is self._bindings[0] else self._bindings[0]
        self._last = chosen
        io = chosen.binding
        for name, value in zip(self._feed_names, feeds):
            io.bind_cpu_input(name, value)
        for name in self._fetch_names:  # fresh buffers: values returned earlier stay intact
            io.bind_output(name, "cpu")
        for var, name in self._var_in:
            value = current[var]
            if chosen.inputs.get(name) is not value:
                io.bind_ortvalue_input(name, value)
                chosen.inputs[name] = value
        for var, name in self._var_out:
            pair = self._pair(var)
            if not pair:
                io.bind_output(name, self._ort_device)
                continue
            now = store.device.get(var)
            buf = pair[1] if now is pair[0] else pair[0]
            if chosen.outputs.get(name) is not buf:
                io.bind_ortvalue_output(name, buf)
                chosen.outputs[name] = buf
        return chosen

    def _new_values(self, binding, outs):
        """``[(variable, its new OrtValue)]`` after a run: the pair buffer written (the
        same object, so the next run can tell which buffer is current), or the value
        onnxruntime allocated."""
        return [(var, binding.outputs.get(name) or outs[pos])
                for (var, name), pos in zip(self._var_out, self._var_pos)]

    # ------------------------------------------------------------------- errors
    def _op_error(self, exc, feeds):
        """onnxruntime's failure as an InvalidArgumentError naming the user's op, its
        input shapes (as fed, stored or declared) and the line that declared it."""
        message = str(exc)
        match = _NODE_IN_ERROR.search(message)
        node = match.group(1) if match else None
        op = self._node_ops.get(node) if node else None
        if op is None:
            return errors.InvalidArgumentError(None, None, f"onnxruntime failed: {message}")
        user = self._origin(op)
        fed = {id(t): v for t, v in zip(self._run_feeds, feeds)}
        store = self._session._runtime.variables
        shapes = []
        for t in op.inputs:
            if id(t) in fed:
                shapes.append(str(list(np.shape(fed[id(t)]))))
            elif t.op.op_def.is_variable and t.op.name in store:
                shapes.append(str(list(np.shape(store[t.op.name]))))
            else:
                shapes.append(t.shape.as_proto_string() if t.shape.rank is not None else "?")
        updating = [var for var, name in self._var_out if name == node]
        if updating:
            message = f"Cannot update variable '{updating[0]}': {message}"
        return errors.InvalidArgumentError(
            None, user, f"{message}\n\t [[node {user.name} (op: {user.type}, input shapes: "
                        f"{', '.join(shapes)}) defined at {user.user_location} ]]")

    # ---------------------------------------------------------------- placement log
    def _log_placement(self):
        """Print where each op ran (TF1's ``log_device_placement``), from onnxruntime's
        profile of the first run."""
        import json
        import sys
        self._profiling = False
        path = self._ort.end_profiling()
        try:
            with open(path, encoding="utf-8") as f:
                events = json.load(f)
        finally:
            import os
            try:
                os.remove(path)
            except OSError:
                pass
        providers = {}
        for event in events:
            args = event.get("args") or {}
            provider = args.get("provider")
            name = event.get("name", "")
            if provider and name.endswith("_kernel_time"):
                providers[name[:-len("_kernel_time")]] = provider
        placed = {}
        for node, op in self._node_ops.items():
            user = self._origin(op)
            provider = providers.get(node)
            if provider is None:
                continue
            device = "cuda" if provider.startswith("CUDA") else "cpu"
            if placed.get(user.name, ("cpu",))[0] != "cuda":
                placed[user.name] = (device, user.type)
        for name, (device, op_type) in placed.items():
            print(f"{name}: ({op_type}): {device_name(device)}", file=sys.stderr)
