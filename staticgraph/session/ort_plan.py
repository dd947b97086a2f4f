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

Plans of one session share what is large: constants of ``SHARED_CONSTANT_BYTES`` or
more leave the model and become graph inputs, bound from one OrtValue per constant
(``VariableStore.constants``), and CPU intermediates come from one arena registered
with onnxruntime's environment. A plan's own memory is then its small model and its
InferenceSession (``memory_estimate``, which the session's plan cache is bounded by).
"""

from __future__ import annotations

import hashlib
import re
import threading

import numpy as np

from .. import errors
from ..graphlib.traversal import needed_ops
from ..ops.random import random_bits
from ..optimizer.pipeline import optimize_signature
from .feeds import inline_feed_check, make_feed_converter
from .fetches import FetchTemplate
from . import ort_device
from .ort_device import device_name, normalize_device
from .plan import (_check_placeholders, _resolve_feeds, closed_during_run,
                   uninitialized_error)

__all__ = ["OrtPlan", "SHARED_CONSTANT_BYTES"]

_NODE_IN_ERROR = re.compile(r"[Nn]ame:\s*'([^']*)'")
_DIVISION_BY_ZERO = re.compile(r"[Ii]nteger (division|modulo) by zero")

# Constants of at least this many bytes are not embedded in a plan's model: they
# become graph inputs, bound from one OrtValue per constant and session, which every
# plan of the session shares (smaller ones stay initializers onnxruntime can fold).
SHARED_CONSTANT_BYTES = 64 * 1024

# What one plan costs beyond its model and buffers: the InferenceSession, its
# kernels and bindings (measured: ~180 KB for a small plan on the CPU).
_SESSION_OVERHEAD_BYTES = 192 * 1024


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
        large = _take_large_constants(self.model.graph)  # [(input name, key, array)]
        if large:
            # a fresh message: the old one's memory (protobuf's arena) still holds the
            # constants' bytes after their removal
            import onnx
            self.model = onnx.ModelProto.FromString(self.model.SerializeToString())
            lowered.model = self.model
        device, explicit = self._placement(session)
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.log_severity_level = 4  # failures are raised (as OpErrors), not logged
        if _shared_cpu_arena():
            # CPU intermediates come from one arena for all plans of the process, not
            # one arena per plan that keeps each plan's peak forever
            options.add_session_config_entry("session.use_env_allocators", "1")
        threads = getattr(session.config, "intra_op_parallelism_threads", 0) or 0
        if threads:
            options.intra_op_num_threads = int(threads)
        if session._log_device_placement:
            options.enable_profiling = True
        self._failure = None  # an error every run raises (the model cannot run)
        self._ort, self.device = None, device
        if self.model.graph.output:
            try:
                self._ort, self.device = ort_device.make_session(
                    self.model.SerializeToString(), device, options, explicit)
            except Exception as exc:  # noqa: BLE001 - mapped to the op that failed
                error = self._session_error(exc)
                if not isinstance(error, errors.InvalidArgumentError):
                    raise error from exc
                # a value the model holds (a constant divisor of zero): like the numpy
                # backend, every run raises it
                self._failure = (type(error), error.op, error.message)
        # else only operations without effects on values (no_op, grouping)
        self._profiling = bool(session._log_device_placement)
        self._setup(lowered)
        constants = session._runtime.variables.constants
        self._constants = [(name, constants.get(self._ort_device, key, array))
                           for name, key, array in large]
        self._random_streams = random_bits.stream_inputs(self.model)

    @property
    def fn(self):
        """``fn(*feed_values)`` -> the fetch structure (like ``Plan.fn``)."""
        return self._run  # a new bound method: the plan holds no reference to itself

    def memory_estimate(self) -> int:
        """Bytes this plan holds: its ONNX model (twice: the proto and onnxruntime's
        graph), its variables' buffer pairs and the InferenceSession itself; not the
        shared constants (the session's, once)."""
        pairs = 0
        for var, _ in self._var_out:
            op = self._var_ops.get(var)
            t = op.outputs[0] if op is not None else None
            if t is not None and t.shape.is_fully_defined() and t.dtype.name != "string":
                size = int(np.prod(t.shape.raw, dtype=np.int64))
                pairs += 2 * size * t.dtype.np_dtype.itemsize
        return _SESSION_OVERHEAD_BYTES + 2 * self.model.ByteSize() + pairs

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
        self._makers = {var: self._device_maker(var) for var in self._required}

    def _device_maker(self, var):
        """``make(host value)`` -> a new OrtValue of variable ``var`` with exactly the
        value's shape (a scalar stays a scalar) in the variable's dtype."""
        op = self._var_ops[var]
        dtype = object if op.outputs[0].dtype.name == "string" else op.outputs[0].dtype.np_dtype
        from_numpy, device = self._ortmod.OrtValue.ortvalue_from_numpy, self._ort_device

        def make(value):
            # np.array copies (the device value never aliases the host's) and keeps
            # 0-d arrays 0-d (np.ascontiguousarray would make them shape (1,))
            return from_numpy(np.array(value, dtype=dtype, order="C", copy=True), device, 0)
        return make

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
        if self._failure is not None:
            cls, op, message = self._failure
            raise cls(None, op, message)
        if self._ort is None:
            return self._rebuild([None] * len(self._fetch_index))
        store = session._runtime.variables
        for var in self._required:
            if var not in store:
                if session._closed:
                    raise closed_during_run()
                raise uninitialized_error([(v, self._var_ops[v]) for v in self._required
                                           if v not in store], self._origin)
        # Session.close() clears the variables under update_lock: a run holding it
        # finishes first; one that starts after finds them gone.
        with self._lock, session._runtime.update_lock:
            try:
                binding = self._bind(store, feeds)
            except KeyError:
                if session._closed:
                    raise closed_during_run() from None
                raise
            try:
                self._ort.run_with_iobinding(binding.binding)
            except Exception as exc:  # noqa: BLE001 - mapped to the op that failed
                raise self._op_error(exc, feeds) from exc
            outs = binding.binding.get_outputs()
            if not session._closed:  # a closed session keeps no new values
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
            for b in self._bindings:  # the shared constants, bound once
                for name, value in self._constants:
                    b.binding.bind_ortvalue_input(name, value)
        makers = self._makers
        current = {var: store.device_value(var, makers[var]) for var in self._required}
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
        self._bind_random_streams(io)
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

    def _bind_random_streams(self, io):
        """Bind each random op's key and next execution counter from the session's
        runtime, which the numpy kernels advance too: both backends continue one stream
        (see ``staticgraph.ops.random_bits``)."""
        values = []
        for name, value in self._session._runtime.random_feeds(self._random_streams):
            value = self._ortmod.OrtValue.ortvalue_from_numpy(value)
            io.bind_ortvalue_input(name, value)
            values.append(value)
        self._random_values = values  # kept alive until the next run binds new ones

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
        message = _plain_message(message, user)
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

    def _session_error(self, exc):
        """onnxruntime's failure to create the session as an OpError naming the user's
        op: an integer division by a constant zero is an InvalidArgumentError, as it is
        when the numpy backend runs it."""
        message = str(exc)
        match = _NODE_IN_ERROR.search(message)
        op = self._node_ops.get(match.group(1)) if match else None
        zero_division = _DIVISION_BY_ZERO.search(message) is not None
        if op is None and zero_division:
            op = self._constant_zero_divisor()
        cls = errors.InvalidArgumentError if zero_division else (
            errors.UnimplementedError if "NOT_IMPLEMENTED" in message else errors.InternalError)
        if op is None:
            return cls(None, None, f"onnxruntime cannot run this plan: {message}")
        user = self._origin(op)
        return cls(None, user, f"{_plain_message(message, user)}\n\t [[node {user.name} "
                               f"(op: {user.type}) defined at {user.user_location} ]]")

    def _constant_zero_divisor(self):
        """The op of the first integer Div/Mod node whose divisor is a constant holding
        a zero (onnxruntime checks those while creating the session), or None."""
        from onnx import numpy_helper
        inits = {i.name: i for i in self.model.graph.initializer}
        for node in self.model.graph.node:
            if node.op_type not in ("Div", "Mod") or len(node.input) < 2:
                continue
            init = inits.get(node.input[1])
            if init is None:
                continue
            value = numpy_helper.to_array(init)
            if value.dtype.kind in "iu" and not value.all():
                return self._node_ops.get(node.name)
        return None

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


_arena_lock = threading.Lock()
_arena = []  # [True] once the shared CPU arena is registered, [False] if it cannot be


def _shared_cpu_arena() -> bool:
    """Register one CPU memory arena with onnxruntime's environment (once per process);
    True when sessions can use it."""
    if _arena:
        return _arena[0]
    import onnxruntime as ort
    with _arena_lock:
        if not _arena:
            try:
                info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0,
                                         ort.OrtMemType.DEFAULT)
                ort.create_and_register_allocator(info, None)
                _arena.append(True)
            except Exception:  # noqa: BLE001 - then each session keeps its own arena
                _arena.append(False)
    return _arena[0]


def _plain_message(message, user):
    """onnxruntime's message, led by the numpy backend's words where they differ."""
    if _DIVISION_BY_ZERO.search(message):
        return f"Integer division by zero in {user.type} (onnxruntime: {message.strip()})"
    return message


def _take_large_constants(graph):
    """Move the initializers of at least ``SHARED_CONSTANT_BYTES`` out of ``graph``:
    each becomes a graph input of the same name. Returns ``[(name, key, array)]``,
    ``key`` naming the content (dtype, shape and SHA-256 of the bytes)."""
    from onnx import TensorProto, helper
    taken, taken_at = [], []
    for i, init in enumerate(graph.initializer):
        if init.data_type == TensorProto.STRING or init.data_location == TensorProto.EXTERNAL \
                or not init.HasField("raw_data"):
            continue
        dtype = np.dtype(helper.tensor_dtype_to_np_dtype(init.data_type))
        dims = tuple(int(d) for d in init.dims)
        if int(np.prod(dims, dtype=np.int64)) * dtype.itemsize < SHARED_CONSTANT_BYTES:
            continue
        raw = init.raw_data
        key = (init.data_type, dims, hashlib.sha256(raw).digest())
        array = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).reshape(dims)
        if not array.dtype.isnative:
            array = array.astype(dtype)
        taken.append((init.name, key, array))
        taken_at.append(i)
    for i in reversed(taken_at):
        init = graph.initializer[i]
        graph.input.append(helper.make_tensor_value_info(init.name, init.data_type,
                                                         list(init.dims)))
        del graph.initializer[i]
    return taken
