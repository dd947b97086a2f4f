"""Validation of untrusted GraphDef descriptions, before anything is built.

:func:`parse_graph_def` checks the header and size limits; ``_validate_ops`` checks
every op entry (names, registered types, attributes against their defaults, outputs,
frames); ``_topological_order`` orders entries inputs-first and refuses cycles;
``_validate_collections`` checks collection entries. Every failure raises
:class:`~.graph_def_format.InvalidGraphDefError`; nothing is evaluated or unpickled.
"""

from __future__ import annotations

import heapq
import re

import numpy as np

from .dtypes import DType
from .graph_def_attrs import _decode_shape, _Decoder
from .graph_def_format import (FORMAT, MAX_ITEMS, MAX_OPS, MAX_OUTPUTS, VERSION,
                               _PRIVATE_COLLECTIONS, GraphDef, _bad, _short, parse_json)
from .tensor_shape import TensorShape
from .user_frame import UserFrame

_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_TENSOR_NAME = re.compile(r"^(.+):(0|[1-9][0-9]{0,5})$")
_GRAPH_KEYS = {"format", "version", "seed", "ops", "collections", "sha256", "tensors_sha256"}
_MAX_NAME = 4096     # characters of an op name, device, frame file or function
# Collections whose entries TF1 code uses as Variables (initializers, optimizers, savers):
# anything else in them is refused at load instead of failing later.
VARIABLE_COLLECTIONS = frozenset({"variables", "local_variables", "trainable_variables",
                                  "model_variables", "metric_variables",
                                  "moving_average_variables"})
_OP_KEYS = {"name", "type", "inputs", "control_inputs", "device", "attrs", "outputs", "frame"}


def parse_graph_def(graph_def):
    """``(data, tensors)`` from a GraphDef, a dict, or JSON text; validates the header."""
    if isinstance(graph_def, GraphDef):
        data, tensors = graph_def, graph_def.tensors
    elif isinstance(graph_def, dict):
        data, tensors = graph_def, getattr(graph_def, "tensors", {})
    elif isinstance(graph_def, (str, bytes, bytearray)):
        data, tensors = parse_json(graph_def), {}
    else:
        raise TypeError(f"graph_def must be a GraphDef (or its dict / JSON text), got "
                        f"{type(graph_def).__name__}.")
    unknown = set(data) - _GRAPH_KEYS
    if unknown:
        raise _bad(f"Unknown GraphDef field(s) {_short(sorted(unknown))}.")
    if data.get("format") != FORMAT:
        raise _bad(f"Not a staticgraph GraphDef: format is {_short(data.get('format'))}, "
                   f"expected {FORMAT!r}.")
    version = data.get("version")
    if type(version) is not int or version < 1:
        raise _bad(f"Invalid GraphDef version {_short(version)}.")
    if version > VERSION:
        raise _bad(f"GraphDef version {version} was written by a newer staticgraph; this "
                   f"one reads versions up to {VERSION}.")
    seed = data.get("seed")
    if seed is not None and (type(seed) is not int or not -(1 << 63) <= seed < (1 << 64)):
        raise _bad(f"Invalid graph seed {_short(seed)}.")
    ops = data.get("ops", [])
    if not isinstance(ops, list):
        raise _bad("GraphDef 'ops' must be a list.")
    if len(ops) > MAX_OPS:
        raise _bad(f"GraphDef has {len(ops)} ops, above the limit of {MAX_OPS}.")
    if not isinstance(data.get("collections", {}), dict):
        raise _bad("GraphDef 'collections' must be an object.")
    return data, tensors


def _str_list(entry, key, where):
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(f"{where}: {key!r} must be a list of strings.")
    if len(value) > MAX_ITEMS:
        raise _bad(f"{where}: {len(value)} {key}, above the limit of {MAX_ITEMS}.")
    return value


def _split_tensor_name(name, where):
    m = _TENSOR_NAME.match(name) if len(name) <= _MAX_NAME + 8 else None
    if not m:
        raise _bad(f"{where}: {_short(name)} is not a tensor name "
                   "\"<op_name>:<output_index>\".")
    return m.group(1), int(m.group(2))


class _OpEntry:
    __slots__ = ("index", "name", "type", "op_def", "inputs", "controls", "device", "attrs",
                 "outputs", "frame")


def _validate_ops(data, decoder):
    """Check every op entry; returns a list of :class:`_OpEntry` in file order."""
    from .op_def import get_op_def
    entries, names = [], {}
    for index, raw in enumerate(data.get("ops", [])):
        if not isinstance(raw, dict):
            raise _bad(f"Op entry #{index} must be an object.")
        name = raw.get("name")
        if not isinstance(name, str) or len(name) > _MAX_NAME or not _OP_NAME.match(name):
            raise _bad(f"Op entry #{index}: invalid op name {_short(name)}.")
        where = f"Op {name!r}"
        unknown = set(raw) - _OP_KEYS
        if unknown:
            raise _bad(f"{where}: unknown field(s) {_short(sorted(unknown))}.")
        if name in names:
            raise _bad(f"Duplicate op name {name!r} in the GraphDef.")
        op_type = raw.get("type")
        if not isinstance(op_type, str):
            raise _bad(f"{where}: missing op type.")
        try:
            op_def = get_op_def(op_type)
        except KeyError:
            raise _bad(f"{where} has unknown op type {_short(op_type)} (not registered in this "
                       "staticgraph).") from None
        e = _OpEntry()
        e.index, e.name, e.type, e.op_def = index, name, op_type, op_def
        e.inputs = [_split_tensor_name(t, where) for t in _str_list(raw, "inputs", where)]
        e.controls = _str_list(raw, "control_inputs", where)
        device = raw.get("device", "")
        if not isinstance(device, str) or len(device) > _MAX_NAME:
            raise _bad(f"{where}: device must be a string.")
        e.device = device
        attrs_raw = raw.get("attrs", {})
        if not isinstance(attrs_raw, dict):
            raise _bad(f"{where}: attrs must be an object.")
        unknown = set(attrs_raw) - set(op_def.attrs)
        if unknown:
            raise _bad(f"{where} ({op_type}) has unknown attribute(s) "
                       f"{_short(sorted(unknown))}; its attributes are {sorted(op_def.attrs)}.")
        attrs = dict(op_def.attrs)
        for k, v in attrs_raw.items():
            value = decoder.attr(v, f"{where} attr {k!r}")
            _check_attr_type(value, op_def.attrs[k], f"{where} attr {k!r}")
            attrs[k] = value
        e.attrs = attrs
        outputs = raw.get("outputs")
        if outputs is not None:
            if not isinstance(outputs, list) or len(outputs) > MAX_OUTPUTS:
                raise _bad(f"{where}: outputs must be a list.")
            parsed = []
            for out in outputs:
                if not isinstance(out, dict) or set(out) - {"dtype", "shape"}:
                    raise _bad(f"{where}: each output is {{dtype, shape}}.")
                dtype = decoder.attr({"dtype": out.get("dtype")}, where)
                parsed.append((dtype, _decode_shape(out.get("shape"), where)))
            outputs = parsed
        e.outputs = outputs
        frame = raw.get("frame")
        if frame is not None:
            if (not isinstance(frame, list) or len(frame) != 3 or not isinstance(frame[0], str)
                    or type(frame[1]) is not int or not isinstance(frame[2], str)
                    or not 0 <= frame[1] < (1 << 31) or len(frame[0]) > _MAX_NAME
                    or len(frame[2]) > _MAX_NAME):
                raise _bad(f"{where}: frame must be [file, line, function] (a line in "
                           f"0..2**31-1, names of at most {_MAX_NAME} characters).")
            frame = UserFrame(frame)
        e.frame = frame
        names[name] = e
        entries.append(e)
    return entries, names


def _check_attr_type(value, default, where):
    """Refuse a value whose kind differs from the attribute's default's kind."""
    if value is None or default is None:
        return
    kinds = ((bool, (bool,)), (DType, (DType,)), (TensorShape, (TensorShape,)),
             (tuple, (tuple, list)), (list, (tuple, list)), (str, (str,)),
             (float, (float, int, np.floating, np.integer)), (int, (int, np.integer)),
             (np.ndarray, (np.ndarray,)))
    for kind, accepted in kinds:
        if isinstance(default, kind):
            if isinstance(value, accepted) and not (kind is not bool and isinstance(value, bool)):
                return
            raise _bad(f"{where}: expected a {kind.__name__} like the default "
                       f"{_short(default)}, got {type(value).__name__} {_short(value)}.")


def _topological_order(entries, names, mapped):
    """Entries ordered so inputs and control inputs come first; cycles are refused."""
    deps = {e.name: set() for e in entries}
    users = {e.name: [] for e in entries}
    for e in entries:
        for op_name, index in e.inputs:
            if (op_name, index) in mapped:
                continue
            if op_name not in names:
                raise _bad(f"Op {e.name!r} has input {_short(f'{op_name}:{index}')} from op "
                           f"{_short(op_name)}, which is not in the GraphDef.")
            deps[e.name].add(op_name)
        for c in e.controls:
            if c in mapped.get("^", ()):
                continue
            if c not in names:
                raise _bad(f"Op {e.name!r} has control input {_short(c)}, which is not in the "
                           "GraphDef.")
            deps[e.name].add(c)
        for d in deps[e.name]:
            users[d].append(e.name)
    count = {n: len(d) for n, d in deps.items()}
    ready = [(e.index, e.name) for e in entries if not count[e.name]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, name = heapq.heappop(ready)
        order.append(names[name])
        for u in users[name]:
            count[u] -= 1
            if not count[u]:
                heapq.heappush(ready, (names[u].index, u))
    if len(order) != len(entries):
        stuck = sorted((e for e in entries if count[e.name]), key=lambda e: e.index)
        listed = ", ".join(repr(e.name) for e in stuck[:5])
        raise _bad(f"The GraphDef has a cycle among ops {listed}"
                   f"{' ...' if len(stuck) > 5 else ''}.")
    return order


def _validate_collections(raw, names):
    """``{key: [(kind, payload)]}`` after checking every referenced name exists."""
    out = {}
    if len(raw) > MAX_ITEMS:
        raise _bad(f"GraphDef has {len(raw)} collections, above the limit of {MAX_ITEMS}.")
    for key, items in raw.items():
        if key in _PRIVATE_COLLECTIONS:
            continue
        where = f"Collection {_short(key)}"
        if not isinstance(items, list):
            raise _bad(f"{where} must be a list.")
        if len(items) > MAX_ITEMS:
            raise _bad(f"{where} has {len(items)} entries, above the limit of {MAX_ITEMS}.")
        parsed = []
        for position, item in enumerate(items):
            if not isinstance(item, dict) or len(item) != 1:
                raise _bad(f"{where}: invalid entry #{position} {_short(item)}.")
            (kind, payload), = item.items()
            if kind != "variable" and key in VARIABLE_COLLECTIONS:
                raise _bad(f"{where} holds Variables only, but entry #{position} is "
                           f"{_short(item)}.")
            if kind == "variable":
                payload = _validate_variable_entry(payload, names, where)
            elif kind == "tensor":
                if not isinstance(payload, str):
                    raise _bad(f"{where}: invalid tensor entry.")
                op_name, index = _split_tensor_name(payload, where)
                if op_name not in names:
                    raise _bad(f"{where}: tensor {_short(payload)} is not in the GraphDef.")
                payload = (op_name, index)
            elif kind == "operation":
                if not isinstance(payload, str) or payload not in names:
                    raise _bad(f"{where}: operation {_short(payload)} is not in the GraphDef.")
            elif kind == "string":
                if not isinstance(payload, str):
                    raise _bad(f"{where}: invalid string entry.")
            elif kind == "value":
                payload = _Decoder({}).attr(payload, where)
                if not (payload is None or isinstance(payload, (bool, int, float))):
                    raise _bad(f"{where}: invalid value entry.")
            else:
                raise _bad(f"{where}: unknown entry kind {_short(kind)}.")
            parsed.append((kind, payload))
        out[key] = parsed
    return out


def _validate_variable_entry(payload, names, where):
    keys = {"name", "initializer", "snapshot", "initial_value", "trainable"}
    if not isinstance(payload, dict) or set(payload) != keys:
        raise _bad(f"{where}: a variable entry needs {sorted(keys)}.")
    if not isinstance(payload["trainable"], bool):
        raise _bad(f"{where}: 'trainable' must be true or false.")
    for k in ("name", "initializer"):
        if not isinstance(payload[k], str) or payload[k] not in names:
            raise _bad(f"{where}: variable {k} {_short(payload[k])} is not in the GraphDef.")
    out = dict(payload)
    for k in ("snapshot", "initial_value"):
        if not isinstance(payload[k], str):
            raise _bad(f"{where}: variable {k} must be a tensor name.")
        op_name, index = _split_tensor_name(payload[k], where)
        if op_name not in names:
            raise _bad(f"{where}: variable {k} {_short(payload[k])} is not in the GraphDef.")
        out[k] = (op_name, index)
    return out
