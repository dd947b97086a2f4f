"""What onnxruntime plans share: the process's CPU arena, large constants taken out of
models, onnxruntime's failures as OpErrors, and the device placement log."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import threading

import numpy as np

from ... import errors
from ..ort_device import device_name
from ..run_errors import node_context

__all__ = ["SHARED_CONSTANT_BYTES", "shared_cpu_arena", "take_large_constants", "run_error",
           "session_error", "log_placement"]

# Constants of at least this many bytes are not embedded in a plan's model: they
# become graph inputs, bound from one OrtValue per constant and session, which every
# plan of the session shares (smaller ones stay initializers onnxruntime can fold).
SHARED_CONSTANT_BYTES = 64 * 1024

_NODE_IN_ERROR = re.compile(r"[Nn]ame:\s*'([^']*)'")
_DIVISION_BY_ZERO = re.compile(r"[Ii]nteger (division|modulo) by zero")

_arena_lock = threading.Lock()
_arena = []  # [True] once the shared CPU arena is registered, [False] if it cannot be


def shared_cpu_arena() -> bool:
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


def take_large_constants(graph):
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


def run_error(exc, plan, feeds):
    """onnxruntime's failure in a run of ``plan`` as an InvalidArgumentError naming the
    user's op, its input shapes (as fed, stored or declared) and the line that declared it."""
    message = str(exc)
    match = _NODE_IN_ERROR.search(message)
    node = match.group(1) if match else None
    op = plan.node_ops.get(node) if node else None
    if op is None:
        return errors.InvalidArgumentError(None, None, f"onnxruntime failed: {message}")
    schedule = plan.schedule
    user = schedule.origin(op)
    message = _plain_message(message, user)
    fed = {id(t): v for t, v in zip(schedule.run_feeds, feeds)}
    store = plan.store
    shapes = []
    for t in op.inputs:
        if id(t) in fed:
            shapes.append(str(list(np.shape(fed[id(t)]))))
        elif t.op.op_def.is_variable and t.op.name in store:
            shapes.append(str(list(np.shape(store[t.op.name]))))
        else:
            shapes.append(t.shape.as_proto_string() if t.shape.rank is not None else "?")
    updating = [var for var, name in plan.state_outputs if name == node]
    if updating:
        message = f"Cannot update variable '{updating[0]}': {message}"
    return errors.InvalidArgumentError(None, user, f"{message}{node_context(user, shapes)}")


def session_error(exc, model, node_ops, origin):
    """onnxruntime's failure to create the session of ``model`` as an OpError naming the
    user's op: an integer division by a constant zero is an InvalidArgumentError, as it
    is when the numpy backend runs it."""
    message = str(exc)
    match = _NODE_IN_ERROR.search(message)
    op = node_ops.get(match.group(1)) if match else None
    zero_division = _DIVISION_BY_ZERO.search(message) is not None
    if op is None and zero_division:
        op = _constant_zero_divisor(model, node_ops)
    cls = errors.InvalidArgumentError if zero_division else (
        errors.UnimplementedError if "NOT_IMPLEMENTED" in message else errors.InternalError)
    if op is None:
        return cls(None, None, f"onnxruntime cannot run this plan: {message}")
    user = origin(op)
    return cls(None, user, f"{_plain_message(message, user)}{node_context(user)}")


def _constant_zero_divisor(model, node_ops):
    """The op of the first integer Div/Mod node whose divisor is a constant holding
    a zero (onnxruntime checks those while creating the session), or None."""
    from onnx import numpy_helper
    inits = {i.name: i for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type not in ("Div", "Mod") or len(node.input) < 2:
            continue
        init = inits.get(node.input[1])
        if init is None:
            continue
        value = numpy_helper.to_array(init)
        if value.dtype.kind in "iu" and not value.all():
            return node_ops.get(node.name)
    return None


def _plain_message(message, user):
    """onnxruntime's message, led by the numpy backend's words where they differ."""
    if _DIVISION_BY_ZERO.search(message):
        return f"Integer division by zero in {user.type} (onnxruntime: {message.strip()})"
    return message


def log_placement(ort_session, node_ops, origin):
    """Print where each op ran (TF1's ``log_device_placement``), from onnxruntime's
    profile of the first run."""
    path = ort_session.end_profiling()
    try:
        with open(path, encoding="utf-8") as f:
            events = json.load(f)
    finally:
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
    for node, op in node_ops.items():
        user = origin(op)
        provider = providers.get(node)
        if provider is None:
            continue
        device = "cuda" if provider.startswith("CUDA") else "cpu"
        if placed.get(user.name, ("cpu",))[0] != "cuda":
            placed[user.name] = (device, user.type)
    for name, (device, op_type) in placed.items():
        print(f"{name}: ({op_type}): {device_name(device)}", file=sys.stderr)
