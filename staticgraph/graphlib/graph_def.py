"""GraphDef: a versioned, JSON-serialisable description of a :class:`Graph`, and its import.

``graph.as_graph_def()`` describes every op in creation order (name, type, inputs as
``"op:index"``, control inputs, device, typed attributes, output dtypes and shapes,
the user's declaring line), the graph seed and the collections. Large numpy
attributes are kept aside in ``GraphDef.tensors`` (written to a safetensors sidecar
by :func:`staticgraph.export.save_graph`); small ones are inline (base64).

:func:`import_graph_def` rebuilds the ops through ``Graph.create_op``, so every
imported op runs its shape inference again and works as if declared in Python
(sessions, gradients, optimizers). Nothing is ever evaluated or unpickled: a
malformed or hostile description raises :class:`~staticgraph.errors.DataLossError`
(unparseable bytes) or :class:`InvalidGraphDefError` (an ``InvalidArgumentError``
that is also a ``ValueError``, the type TF1 documents for a malformed GraphDef).

Attribute encoding: each value is a one-key object, the key naming its type::

    {"i": 3}  {"f": 0.5}  {"f": "nan"}  {"b": true}  {"s": "SAME"}  {"none": null}
    {"bytes": "<base64>"}  {"list": [...]}  {"tuple": [...]}  {"dict": {"k": ...}}
    {"dtype": "float32"}  {"shape": [null, 3]}  {"shape": null}
    {"array": {"dtype": "float32", "shape": [2], "b64": "..."}}     # small, inline
    {"array": {"dtype": "string", "shape": [2], "items": [{"s": "a"}, {"bytes": "..."}]}}
    {"array": {"dtype": "float32", "shape": [512, 512], "ref": "t0"}}  # sidecar
    {"scalar": {...array...}}                                       # a numpy scalar
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import heapq
import json
import math
import re

import numpy as np

from ..errors import DataLossError, InvalidArgumentError
from .dtypes import DType, as_dtype
from .operation import Operation
from .tensor import Tensor
from .tensor_shape import TensorShape
from .user_frame import UserFrame

__all__ = ["GraphDef", "InvalidGraphDefError", "graph_to_graph_def", "import_graph_def",
           "parse_graph_def", "variable_from_ops", "FORMAT", "VERSION"]

FORMAT = "staticgraph.GraphDef"
VERSION = 1

# Limits applied while loading (a description beyond them is refused, not allocated).
MAX_JSON_BYTES = 1 << 30        # 1 GiB of JSON text
MAX_OPS = 5_000_000
MAX_DEPTH = 32                  # nesting of attribute values
MAX_LIST = 1 << 22              # items of one attribute list / collection
MAX_RANK = 64
MAX_DIM = 1 << 40
MAX_ARRAY_ELEMENTS = 1 << 31
MAX_OUTPUTS = 1 << 16
INLINE_BYTES = 1024             # arrays larger than this go to the sidecar

# Collections holding Python objects of variable_scope: never written, never read.
_PRIVATE_COLLECTIONS = frozenset({"__variable_store", "__varscope"})

_ARRAY_DTYPES = {name: np.dtype(name) for name in (
    "float16", "float32", "float64", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "bool")}
_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_TENSOR_NAME = re.compile(r"^(.+):(0|[1-9][0-9]{0,5})$")
_GRAPH_KEYS = {"format", "version", "seed", "ops", "collections", "sha256", "tensors_sha256"}
_OP_KEYS = {"name", "type", "inputs", "control_inputs", "device", "attrs", "outputs", "frame"}


class InvalidGraphDefError(InvalidArgumentError, ValueError):
    """A GraphDef that cannot be imported (bad structure, types, names or references).

    It is an :class:`~staticgraph.errors.InvalidArgumentError` and, as TF1 documents
    for ``import_graph_def``, a ``ValueError``.
    """

    def __init__(self, message, *args):
        InvalidArgumentError.__init__(self, None, None, message)


def _bad(message):
    return InvalidGraphDefError(message)


class GraphDef(dict):
    """A graph description: a JSON-serialisable dict plus ``tensors``, its large arrays.

    ``tensors`` maps the ``ref`` keys of sidecar arrays to numpy arrays (empty when
    every array is inline). ``json.dumps(graph_def)`` works; :meth:`to_json` adds a
    checksum that :meth:`from_json` verifies.
    """

    def __init__(self, data=(), tensors=None):
        super().__init__(data)
        self.tensors = dict(tensors or {})

    def to_json(self, indent=None, extra=None) -> str:
        """The description as JSON text, with a ``sha256`` of its canonical content."""
        body = {k: v for k, v in self.items() if k != "sha256"}
        if extra:
            body.update(extra)
        body["sha256"] = content_digest(body)
        return json.dumps(body, indent=indent, allow_nan=False, ensure_ascii=True)

    @classmethod
    def from_json(cls, text, tensors=None, max_bytes=MAX_JSON_BYTES) -> "GraphDef":
        """Parse (and checksum-verify) JSON text; DataLossError when it is not valid."""
        data = parse_json(text, max_bytes)
        return cls(data, tensors)

    @property
    def ops(self) -> list:
        """The op entries in creation order."""
        return self.get("ops", [])


# ------------------------------------------------------------------------ JSON text
def content_digest(body) -> str:
    """sha256 of ``body``'s canonical JSON (sorted keys, no spaces)."""
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False,
                       ensure_ascii=True)
    return hashlib.sha256(canon.encode("ascii")).hexdigest()


def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _no_duplicate_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def parse_json(text, max_bytes=MAX_JSON_BYTES, what="graph description") -> dict:
    """Strictly parse JSON text (bytes or str) into a dict and verify its ``sha256``.

    Raises:
        DataLossError: text that is not strict UTF-8 JSON, too large, too deeply
            nested, or whose checksum does not match its content.
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        if len(text) > max_bytes:
            raise InvalidGraphDefError(f"The {what} is {len(text)} bytes, above the limit of "
                                       f"{max_bytes} bytes.")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataLossError(None, None, f"The {what} is not UTF-8 text: {exc}") from None
    elif not isinstance(text, str):
        raise TypeError(f"Expected JSON text (str or bytes), got {type(text).__name__}.")
    if len(text) > max_bytes:
        raise InvalidGraphDefError(f"The {what} is {len(text)} characters, above the limit "
                                   f"of {max_bytes}.")
    try:
        data = json.loads(text, parse_constant=_reject_constant,
                          object_pairs_hook=_no_duplicate_keys)
    except RecursionError:
        raise DataLossError(None, None, f"The {what} is nested too deeply.") from None
    except (ValueError, TypeError) as exc:   # JSONDecodeError, huge ints, duplicate keys
        raise DataLossError(None, None, f"The {what} is not valid JSON ({exc}); the "
                                        "file may be truncated or corrupted.") from None
    if not isinstance(data, dict):
        raise DataLossError(None, None, f"The {what} is not a JSON object.")
    digest = data.pop("sha256", None)
    if digest is not None and digest != content_digest(data):
        raise DataLossError(None, None, f"The {what}'s checksum does not match its content: "
                                        "the file is corrupted.")
    return data


# --------------------------------------------------------------------- attr values
def _check_float(value):
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


class _Encoder:
    def __init__(self, max_inline_bytes):
        self.max_inline = max_inline_bytes
        self.tensors = {}

    def attr(self, value, where, depth=0):
        if depth > MAX_DEPTH:
            raise ValueError(f"{where}: attribute nested deeper than {MAX_DEPTH} levels.")
        if value is None:
            return {"none": None}
        if isinstance(value, bool):
            return {"b": value}
        if isinstance(value, int):
            return {"i": int(value)}
        if isinstance(value, float):
            return {"f": _check_float(float(value))}
        if isinstance(value, str):
            return {"s": value}
        if isinstance(value, bytes):
            return {"bytes": base64.b64encode(value).decode("ascii")}
        if isinstance(value, DType):
            return {"dtype": value.name}
        if isinstance(value, TensorShape):
            return {"shape": None if value.raw is None else list(value.raw)}
        if isinstance(value, np.ndarray):
            return {"array": self.array(value, where)}
        if isinstance(value, np.generic):
            return {"scalar": self.array(np.asarray(value), where)}
        if isinstance(value, (tuple, list)):
            key = "tuple" if isinstance(value, tuple) else "list"
            return {key: [self.attr(v, where, depth + 1) for v in value]}
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {"dict": {k: self.attr(v, where, depth + 1) for k, v in value.items()}}
        raise TypeError(f"{where}: attribute value of type {type(value).__name__} "
                        f"({value!r:.60}) cannot be written to a GraphDef.")

    def array(self, arr, where):
        shape = [int(d) for d in arr.shape]
        if arr.dtype.kind in "OSU":
            items = []
            for item in arr.reshape(-1).tolist():
                if isinstance(item, bytes):
                    items.append({"bytes": base64.b64encode(item).decode("ascii")})
                else:
                    items.append({"s": str(item)})
            return {"dtype": "string", "shape": shape, "items": items}
        name = arr.dtype.name
        if name not in _ARRAY_DTYPES:
            raise TypeError(f"{where}: arrays of dtype {arr.dtype} cannot be written.")
        if self.max_inline is not None and arr.nbytes > self.max_inline:
            ref = f"t{len(self.tensors)}"
            self.tensors[ref] = arr
            return {"dtype": name, "shape": shape, "ref": ref}
        raw = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
        return {"dtype": name, "shape": shape, "b64": base64.b64encode(raw).decode("ascii")}


class _Decoder:
    """Strict decoding of attribute values: any unexpected type is refused."""

    def __init__(self, tensors):
        self.tensors = tensors or {}

    def attr(self, enc, where, depth=0):
        if depth > MAX_DEPTH:
            raise _bad(f"{where}: attribute nested deeper than {MAX_DEPTH} levels.")
        if not isinstance(enc, dict) or len(enc) != 1:
            raise _bad(f"{where}: an attribute value must be an object with one type key, "
                       f"got {_short(enc)}.")
        (tag, v), = enc.items()
        if tag == "none" and v is None:
            return None
        if tag == "b" and isinstance(v, bool):
            return v
        if tag == "i" and type(v) is int:
            if not -(1 << 63) <= v < (1 << 64):
                raise _bad(f"{where}: integer {v} out of the 64-bit range.")
            return v
        if tag == "f":
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return float(v)
            if v in ("nan", "inf", "-inf"):
                return float(v)
        if tag == "s" and isinstance(v, str):
            return v
        if tag == "bytes" and isinstance(v, str):
            return _b64(v, where)
        if tag == "dtype" and isinstance(v, str):
            try:
                return as_dtype(v)
            except TypeError:
                raise _bad(f"{where}: unknown dtype {v!r}.") from None
        if tag == "shape":
            return _decode_shape(v, where)
        if tag in ("list", "tuple") and isinstance(v, list):
            if len(v) > MAX_LIST:
                raise _bad(f"{where}: list of {len(v)} items exceeds the limit.")
            items = [self.attr(x, where, depth + 1) for x in v]
            return items if tag == "list" else tuple(items)
        if tag == "dict" and isinstance(v, dict):
            return {k: self.attr(x, where, depth + 1) for k, x in v.items()}
        if tag == "array":
            return self.array(v, where)
        if tag == "scalar":
            arr = self.array(v, where)
            if arr.ndim != 0:
                raise _bad(f"{where}: a scalar attribute must have shape [].")
            return arr[()]
        raise _bad(f"{where}: invalid attribute value {_short(enc)}.")

    def array(self, spec, where):
        if not isinstance(spec, dict):
            raise _bad(f"{where}: an array must be an object, got {_short(spec)}.")
        dtype_name, shape = spec.get("dtype"), spec.get("shape")
        data_keys = set(spec) - {"dtype", "shape"}
        if len(data_keys) != 1 or not data_keys <= {"b64", "items", "ref"}:
            raise _bad(f"{where}: an array needs dtype, shape and one of b64/items/ref.")
        dims = _decode_shape(shape, where)
        if dims.raw is None or any(d is None for d in dims.raw):
            raise _bad(f"{where}: an array's shape must be fully known.")
        count = 1
        for d in dims.raw:
            count *= d
        if count > MAX_ARRAY_ELEMENTS:
            raise _bad(f"{where}: array of {count} elements exceeds the limit of "
                       f"{MAX_ARRAY_ELEMENTS}.")
        shape = dims.raw
        if dtype_name == "string":
            items = spec.get("items")
            if not isinstance(items, list) or len(items) != count:
                raise _bad(f"{where}: a string array of shape {list(shape)} needs {count} items.")
            out = np.empty(count, dtype=object)
            for i, item in enumerate(items):
                value = self.attr(item, where, MAX_DEPTH)
                if not isinstance(value, (str, bytes)):
                    raise _bad(f"{where}: string array items must be strings or bytes.")
                out[i] = value
            out = out.reshape(shape)
            out.flags.writeable = False
            return out
        dtype = _ARRAY_DTYPES.get(dtype_name) if isinstance(dtype_name, str) else None
        if dtype is None:
            raise _bad(f"{where}: unsupported array dtype {_short(dtype_name)}.")
        if "ref" in spec:
            ref = spec["ref"]
            if not isinstance(ref, str) or ref not in self.tensors:
                raise _bad(f"{where}: array reference {_short(ref)} is not in the tensors file "
                           "(save and load graphs with staticgraph.export).")
            arr = np.asarray(self.tensors[ref])
            if arr.dtype != dtype or tuple(arr.shape) != tuple(shape):
                raise _bad(f"{where}: sidecar tensor {ref!r} has dtype {arr.dtype} and shape "
                           f"{list(arr.shape)}, the description says {dtype_name} "
                           f"{list(shape)}.")
            if arr.flags.writeable:
                arr = arr.view()
                arr.flags.writeable = False
            return arr
        text = spec.get("b64")
        if not isinstance(text, str):
            raise _bad(f"{where}: array data must be a base64 string.")
        nbytes = count * dtype.itemsize
        if len(text) != 4 * ((nbytes + 2) // 3):
            raise _bad(f"{where}: array data length does not match shape {list(shape)} and "
                       f"dtype {dtype_name}.")
        raw = _b64(text, where)
        if len(raw) != nbytes:
            raise _bad(f"{where}: array data has {len(raw)} bytes, expected {nbytes}.")
        arr = np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype, copy=False)
        arr = arr.reshape(shape)
        if arr.flags.writeable:
            arr.flags.writeable = False
        return arr


def _b64(text, where):
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise _bad(f"{where}: invalid base64 data.") from None


def _decode_shape(v, where):
    if v is None:
        return TensorShape(None)
    if not isinstance(v, list) or len(v) > MAX_RANK:
        raise _bad(f"{where}: a shape is null or a list of at most {MAX_RANK} dims, got "
                   f"{_short(v)}.")
    for d in v:
        if d is not None and (type(d) is not int or not 0 <= d <= MAX_DIM):
            raise _bad(f"{where}: invalid dimension {_short(d)} (null or 0..{MAX_DIM}).")
    return TensorShape(v)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ---------------------------------------------------------------------- export
def _variable_class():
    from ..ops.variables import Variable
    return Variable


def graph_to_graph_def(graph, max_inline_bytes=INLINE_BYTES, collection_list=None,
                       export_scope=None, clear_devices=False) -> GraphDef:
    """Describe ``graph`` as a :class:`GraphDef` (``Graph.as_graph_def`` delegates here).

    Args:
        graph: the graph.
        max_inline_bytes: arrays larger than this go to ``GraphDef.tensors`` (None:
            everything inline).
        collection_list: names of the collections to write (default: all).
        export_scope: only ops under this name scope, names relative to it.
        clear_devices: write empty device strings.

    Raises:
        TypeError: an attribute value that has no GraphDef encoding.
        ValueError: with ``export_scope``, an op in the scope that depends on one outside.
    """
    enc = _Encoder(max_inline_bytes)
    prefix = (export_scope.rstrip("/") + "/") if export_scope else ""

    def rel(name):
        return name[len(prefix):] if prefix else name

    def inside(name):
        return not prefix or name.startswith(prefix)

    ops = []
    for op in graph.get_operations():
        if not inside(op.name):
            continue
        for t in op.inputs:
            if not inside(t.op.name):
                raise ValueError(f"Op {op.name!r} in export_scope {export_scope!r} takes input "
                                 f"{t.name!r} from outside the scope.")
        for c in op.control_inputs:
            if not inside(c.name):
                raise ValueError(f"Op {op.name!r} in export_scope {export_scope!r} has control "
                                 f"input {c.name!r} from outside the scope.")
        where = f"op {op.name!r} ({op.type})"
        entry = {
            "name": rel(op.name),
            "type": op.type,
            "inputs": [f"{rel(t.op.name)}:{t.value_index}" for t in op.inputs],
            "control_inputs": [rel(c.name) for c in op.control_inputs],
            "device": "" if clear_devices else (op.device or ""),
            "attrs": {k: enc.attr(v, f"{where} attr {k!r}") for k, v in op.attrs.items()},
            "outputs": [{"dtype": t.dtype.name,
                         "shape": None if t.shape.raw is None else list(t.shape.raw)}
                        for t in op.outputs],
            "frame": None if op.traceback is None else
                     [str(op.traceback[0]), int(op.traceback[1]),
                      str(op.traceback[2]) if len(op.traceback) > 2 else ""],
        }
        ops.append(entry)
    collections = {}
    for key in graph.get_all_collection_keys():
        if not isinstance(key, str) or key in _PRIVATE_COLLECTIONS:
            continue
        if collection_list is not None and key not in collection_list:
            continue
        items = []
        for item in graph.get_collection_ref(key):
            encoded = _encode_collection_item(item, graph, rel, inside)
            if encoded is not None:
                items.append(encoded)
        if items:
            collections[key] = items
    data = {"format": FORMAT, "version": VERSION,
            "seed": None if graph.seed is None else int(graph.seed),
            "ops": ops, "collections": collections}
    return GraphDef(data, enc.tensors)


def _encode_collection_item(item, graph, rel, inside):
    """One collection entry as JSON, or None for values that cannot be written."""
    Variable = _variable_class()
    if isinstance(item, Variable):
        parts = [item.op, item.initializer, item.value().op, item.initial_value.op]
        if any(p is None or p.graph is not graph or not inside(p.name) for p in parts):
            return None
        return {"variable": {"name": rel(item.op.name),
                             "initializer": rel(item.initializer.name),
                             "snapshot": f"{rel(item.value().op.name)}:"
                                         f"{item.value().value_index}",
                             "initial_value": f"{rel(item.initial_value.op.name)}:"
                                              f"{item.initial_value.value_index}",
                             "trainable": bool(item.trainable)}}
    if isinstance(item, Tensor):
        if item.graph is not graph or not inside(item.op.name):
            return None
        return {"tensor": f"{rel(item.op.name)}:{item.value_index}"}
    if isinstance(item, Operation):
        if item.graph is not graph or not inside(item.name):
            return None
        return {"operation": rel(item.name)}
    if isinstance(item, str):
        return {"string": item}
    if item is None or isinstance(item, (bool, int, float)):
        return {"value": _Encoder(None).attr(item, "collection")}
    return None   # Python objects (savers, scope stores, queue runners ...) stay behind


# ---------------------------------------------------------------------- import
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
        raise _bad(f"Unknown GraphDef field(s) {sorted(unknown)}.")
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
    if len(value) > MAX_LIST:
        raise _bad(f"{where}: too many {key}.")
    return value


def _split_tensor_name(name, where):
    m = _TENSOR_NAME.match(name)
    if not m:
        raise _bad(f"{where}: {name!r} is not a tensor name \"<op_name>:<output_index>\".")
    return m.group(1), int(m.group(2))


class _OpEntry:
    __slots__ = ("index", "name", "type", "op_def", "inputs", "controls", "device", "attrs",
                 "outputs", "frame")


def _validate_ops(data, decoder):
    """Check every op entry; returns a list of :class:`_OpEntry` in file order."""
    from ..ops.registry import get_op_def
    entries, names = [], {}
    for index, raw in enumerate(data.get("ops", [])):
        if not isinstance(raw, dict):
            raise _bad(f"Op entry #{index} must be an object.")
        name = raw.get("name")
        if not isinstance(name, str) or not _OP_NAME.match(name) or len(name) > 4096:
            raise _bad(f"Op entry #{index}: invalid op name {_short(name)}.")
        where = f"Op {name!r}"
        unknown = set(raw) - _OP_KEYS
        if unknown:
            raise _bad(f"{where}: unknown field(s) {sorted(unknown)}.")
        if name in names:
            raise _bad(f"Duplicate op name {name!r} in the GraphDef.")
        op_type = raw.get("type")
        if not isinstance(op_type, str):
            raise _bad(f"{where}: missing op type.")
        try:
            op_def = get_op_def(op_type)
        except KeyError:
            raise _bad(f"{where} has unknown op type {op_type!r} (not registered in this "
                       "staticgraph).") from None
        e = _OpEntry()
        e.index, e.name, e.type, e.op_def = index, name, op_type, op_def
        e.inputs = [_split_tensor_name(t, where) for t in _str_list(raw, "inputs", where)]
        e.controls = _str_list(raw, "control_inputs", where)
        device = raw.get("device", "")
        if not isinstance(device, str) or len(device) > 4096:
            raise _bad(f"{where}: device must be a string.")
        e.device = device
        attrs_raw = raw.get("attrs", {})
        if not isinstance(attrs_raw, dict):
            raise _bad(f"{where}: attrs must be an object.")
        unknown = set(attrs_raw) - set(op_def.attrs)
        if unknown:
            raise _bad(f"{where} ({op_type}) has unknown attribute(s) {sorted(unknown)}; "
                       f"its attributes are {sorted(op_def.attrs)}.")
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
                    or type(frame[1]) is not int or not isinstance(frame[2], str)):
                raise _bad(f"{where}: frame must be [file, line, function].")
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
                raise _bad(f"Op {e.name!r} has input '{op_name}:{index}' from op {op_name!r}, "
                           "which is not in the GraphDef.")
            deps[e.name].add(op_name)
        for c in e.controls:
            if c in mapped.get("^", ()):
                continue
            if c not in names:
                raise _bad(f"Op {e.name!r} has control input {c!r}, which is not in the "
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


def variable_from_ops(variable, initializer, snapshot, initial_value, trainable=True):
    """A :class:`~staticgraph.ops.variables.Variable` wrapping existing ops (no new ops).

    ``Variable.__init__`` always creates ops, so the object is made with
    ``Variable.__new__`` and given the attributes ``__init__`` would set:
    ``_variable`` (the VariableV2 output), ``_initializer_op`` (its Assign),
    ``_snapshot`` (``w/read``), ``_initial_value``, ``_trainable``, ``constraint``.
    The caller adds it to collections.
    """
    Variable = _variable_class()
    var_tensor = variable.outputs[0] if isinstance(variable, Operation) else variable
    if not isinstance(var_tensor, Tensor) or not getattr(var_tensor.op.op_def, "is_variable",
                                                         False):
        raise _bad(f"{_short(variable)} is not a variable op.")
    if not isinstance(initializer, Operation) or not initializer.inputs or \
            initializer.inputs[0] is not var_tensor:
        raise _bad(f"Initializer {_short(initializer)} does not assign variable "
                   f"{var_tensor.op.name!r}.")
    for t, what in ((snapshot, "snapshot"), (initial_value, "initial value")):
        if not isinstance(t, Tensor):
            raise _bad(f"Variable {var_tensor.op.name!r}: its {what} is not a tensor.")
    var = Variable.__new__(Variable)
    var._variable = var_tensor
    var._initializer_op = initializer
    var._snapshot = snapshot
    var._initial_value = initial_value
    var._trainable = bool(trainable)
    var.constraint = None
    return var


class ImportResult:
    """What :func:`import_graph_def_full` built: ops by original name, Variables, elements."""

    def __init__(self):
        self.ops = {}          # original name -> new Operation
        self.variables = {}    # original variable op name -> Variable
        self.elements = None
        self.prefix = ""


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Import ``graph_def`` into the default graph (TF1's ``tf.import_graph_def``).

    Every op is created again through ``Graph.create_op`` (shape inference runs
    again), under the name scope ``name`` (default ``"import"``; ``""`` means no
    prefix). Collections in the description are restored too, with Variables
    rebuilt as :class:`tf.Variable` objects wrapping the imported ops.

    Args:
        graph_def: a :class:`GraphDef`, its dict, or its JSON text.
        input_map: dict mapping tensor names in ``graph_def`` (``"x:0"``; ``"x"``
            means ``"x:0"``) to Tensors of the default graph that replace them.
        return_elements: names of tensors (``"op:0"``) or ops (``"op"``) in
            ``graph_def`` to return.
        name: the prefix for imported names.
        op_dict, producer_op_list: ignored (deprecated in TF1).

    Returns:
        The list of imported elements for ``return_elements``, else None.

    Raises:
        ValueError: ``input_map`` / ``return_elements`` names not in ``graph_def``, or
            a malformed ``graph_def`` (:class:`InvalidGraphDefError`, also an
            ``InvalidArgumentError``).
        TypeError: arguments of the wrong type.
        DataLossError: JSON text that cannot be parsed.
    """
    result = import_graph_def_full(graph_def, input_map=input_map,
                                   return_elements=return_elements,
                                   name="import" if name is None else name)
    return result.elements


def _normalise_input_map(input_map, graph):
    if input_map is None:
        return {}
    if not isinstance(input_map, dict):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    mapped = {}
    controls = {}
    for key, value in input_map.items():
        if not isinstance(key, str):
            raise TypeError(f"input_map keys must be strings, got {key!r}.")
        if key.startswith("^"):
            if hasattr(value, "_as_graph_element"):
                value = value._as_graph_element()
            if isinstance(value, Tensor):
                value = value.op
            if not isinstance(value, Operation):
                raise TypeError(f"input_map[{key!r}] must be an Operation.")
            controls[key[1:]] = value
            continue
        if hasattr(value, "_as_graph_tensor"):
            value = value._as_graph_tensor()
        if not isinstance(value, Tensor):
            raise TypeError(f"input_map[{key!r}] must be a Tensor, got {type(value).__name__}.")
        if value.graph is not graph:
            raise ValueError(f"input_map[{key!r}] belongs to {value.graph.describe()}, not to "
                             f"the graph being imported into ({graph.describe()}).")
        op_name, index = key.rsplit(":", 1) if ":" in key else (key, "0")
        try:
            index = int(index)
        except ValueError:
            raise ValueError(f"input_map key {key!r} is not a tensor name.") from None
        mapped[(op_name, index)] = value
    if controls:
        mapped["^"] = controls
    return mapped


def import_graph_def_full(graph_def, input_map=None, return_elements=None, name="import",
                          graph=None, clear_devices=False, import_collections=True,
                          restore_seed=False) -> ImportResult:
    """:func:`import_graph_def` returning an :class:`ImportResult` (used by loaders)."""
    from .default_graph import get_default_graph
    graph = graph or get_default_graph()
    data, tensors = parse_graph_def(graph_def)
    if return_elements is not None and (isinstance(return_elements, str) or not all(
            isinstance(r, str) for r in return_elements)):
        raise TypeError("return_elements must be a list of strings.")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string, got {name!r}.")
    mapped = _normalise_input_map(input_map, graph)
    entries, names = _validate_ops(data, _Decoder(tensors))
    unused = [f"{k[0]}:{k[1]}" for k in mapped if k != "^" and k[0] not in names]
    unused += [f"^{k}" for k in mapped.get("^", {}) if k not in names]
    if unused:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: "
                         f"[{', '.join(unused)}]")
    order = _topological_order(entries, names, mapped)
    collections = _validate_collections(data.get("collections", {}), names)
    result = ImportResult()
    with contextlib.ExitStack() as stack:
        stack.enter_context(graph.as_default())
        outer_controls = graph._current_control_inputs([])
        prefix = stack.enter_context(graph.name_scope(name)) if name else ""
        stack.enter_context(graph.name_scope(None))
        stack.enter_context(graph.control_dependencies(None))
        result.prefix = prefix
        for e in order:
            result.ops[e.name] = _create(graph, e, result.ops, mapped, prefix, clear_devices,
                                         outer_controls)
        if import_collections:
            _restore_collections(graph, collections, result)
    if restore_seed:
        graph.seed = data.get("seed")
    if return_elements is not None:
        result.elements = [_return_element(r, result.ops) for r in return_elements]
    return result


def _create(graph, e, created, mapped, prefix, clear_devices, outer_controls):
    inputs = []
    for op_name, index in e.inputs:
        if (op_name, index) in mapped:
            inputs.append(mapped[(op_name, index)])
            continue
        src = created[op_name]
        if index >= len(src.outputs):
            raise _bad(f"Op {e.name!r} has input '{op_name}:{index}', but op {op_name!r} has "
                       f"only {len(src.outputs)} output(s).")
        inputs.append(src.outputs[index])
    full = prefix + e.name
    try:
        graph.get_operation_by_name(full)
        full = graph.unique_name(full)     # TF1 uniquifies names taken in the target graph
    except KeyError:
        pass
    frame_ctx = graph.attributed_to(e.frame) if e.frame is not None else contextlib.nullcontext()
    try:
        with frame_ctx:
            op = graph.create_op(e.op_def, inputs, dict(e.attrs), full + "/")
    except Exception as exc:  # inference refused the op: the description is inconsistent
        raise _bad(f"Op {e.name!r} ({e.type}) cannot be imported: {exc}") from exc
    if not all(isinstance(t.dtype, DType) for t in op.outputs):
        raise _bad(f"Op {e.name!r} ({e.type}) cannot be imported: its attributes give no "
                   "valid output dtype.")
    if e.outputs is not None:
        if len(e.outputs) != len(op.outputs):
            raise _bad(f"Op {e.name!r} ({e.type}) is described with {len(e.outputs)} outputs "
                       f"but has {len(op.outputs)}.")
        for t, (dtype, shape) in zip(op.outputs, e.outputs):
            if t.dtype is not dtype:
                raise _bad(f"Op {e.name!r} ({e.type}): output {t.value_index} is described as "
                           f"{dtype.name} but infers {t.dtype.name}.")
            try:
                t.set_shape(shape)
            except ValueError as exc:
                raise _bad(f"Op {e.name!r} ({e.type}): {exc}") from None
    if e.type == "Const":
        value = op.attrs.get("value")
        if not isinstance(value, np.ndarray) or as_dtype(value.dtype) is not op.attrs["dtype"]:
            raise _bad(f"Op {e.name!r} (Const): its value does not match its dtype.")
    controls = []
    for c in e.controls:
        ctl = mapped.get("^", {}).get(c) or created[c]
        if ctl not in controls:
            controls.append(ctl)
    if not e.inputs and not e.controls:
        controls.extend(c for c in outer_controls if c not in controls)
    op.control_inputs.extend(c for c in controls if c not in op.control_inputs)
    if e.device and not clear_devices:
        op.device = e.device
    elif clear_devices:
        op.device = ""
    return op


def _validate_collections(raw, names):
    """``{key: [(kind, payload)]}`` after checking every referenced name exists."""
    out = {}
    for key, items in raw.items():
        if key in _PRIVATE_COLLECTIONS:
            continue
        if not isinstance(items, list) or len(items) > MAX_LIST:
            raise _bad(f"Collection {key!r} must be a list.")
        parsed = []
        for item in items:
            where = f"Collection {key!r}"
            if not isinstance(item, dict) or len(item) != 1:
                raise _bad(f"{where}: invalid entry {_short(item)}.")
            (kind, payload), = item.items()
            if kind == "variable":
                payload = _validate_variable_entry(payload, names, where)
            elif kind == "tensor":
                if not isinstance(payload, str):
                    raise _bad(f"{where}: invalid tensor entry.")
                op_name, index = _split_tensor_name(payload, where)
                if op_name not in names:
                    raise _bad(f"{where}: tensor {payload!r} is not in the GraphDef.")
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
                raise _bad(f"{where}: unknown entry kind {kind!r}.")
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
            raise _bad(f"{where}: variable {k} {payload[k]!r} is not in the GraphDef.")
        out[k] = (op_name, index)
    return out


def _tensor(ops, ref, where):
    op_name, index = ref
    op = ops[op_name]
    if index >= len(op.outputs):
        raise _bad(f"{where}: tensor '{op_name}:{index}' does not exist.")
    return op.outputs[index]


def _restore_collections(graph, collections, result):
    ops = result.ops
    for key, items in collections.items():
        where = f"Collection {key!r}"
        for kind, payload in items:
            if kind == "variable":
                value = result.variables.get(payload["name"])
                if value is None:
                    value = variable_from_ops(ops[payload["name"]], ops[payload["initializer"]],
                                              _tensor(ops, payload["snapshot"], where),
                                              _tensor(ops, payload["initial_value"], where),
                                              payload["trainable"])
                    result.variables[payload["name"]] = value
            elif kind == "tensor":
                value = _tensor(ops, payload, where)
            elif kind == "operation":
                value = ops[payload]
            else:
                value = payload
            graph.add_to_collection(key, value)


def _return_element(name, ops):
    if ":" in name:
        op_name, _, index = name.rpartition(":")
        op = ops.get(op_name)
        if op is not None and index.isdigit() and int(index) < len(op.outputs):
            return op.outputs[int(index)]
    elif name in ops:
        return ops[name]
    raise ValueError(f"Requested return_element {name!r} not found in graph_def.")
