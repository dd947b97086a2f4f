"""Graph files: JSON description plus a safetensors sidecar for large constants.

``save_graph(graph, "model.json")`` writes ``model.json`` (the :class:`GraphDef` as
JSON, with a sha256 of its content and of the sidecar) and, when the graph has
constants above the inline limit, ``model.json.safetensors``. ``load_graph`` checks
sizes and checksums before building anything and returns a new :class:`Graph`.
Nothing is unpickled or evaluated.
"""

from __future__ import annotations

import hashlib
import os

from ..errors import DataLossError, NotFoundError
from ..graphlib.graph_def import import_graph_def_full
from ..graphlib.graph_def_format import (MAX_JSON_BYTES, GraphDef, InvalidGraphDefError,
                                         parse_json)

__all__ = ["save_graph", "load_graph", "load_graph_from_bytes", "write_description",
           "read_description", "decode_description",
           "MAX_SIDECAR_BYTES"]

MAX_SIDECAR_BYTES = 1 << 34     # 16 GiB of tensors
SIDECAR_SUFFIX = ".safetensors"


def _sidecar_path(path) -> str:
    return os.fspath(path) + SIDECAR_SUFFIX


def write_description(path, description, tensors) -> str:
    """Write ``description`` (a JSON-safe dict) to ``path`` and ``tensors`` to the sidecar.

    The JSON gets ``sha256`` (its canonical content) and, with a sidecar,
    ``tensors_sha256`` (the sidecar's bytes). A stale sidecar is removed.
    Returns ``path``.
    """
    path = os.fspath(path)
    extra = {}
    sidecar = _sidecar_path(path)
    if tensors:
        from safetensors.numpy import save
        import numpy as np
        blob = save({k: np.ascontiguousarray(v) for k, v in tensors.items()},
                    metadata={"format": "staticgraph.tensors"})
        extra["tensors_sha256"] = hashlib.sha256(blob).hexdigest()
        _atomic_write(sidecar, blob)
    elif os.path.exists(sidecar):
        os.remove(sidecar)
    text = GraphDef(description).to_json(extra=extra)
    _atomic_write(path, (text + "\n").encode("ascii"))
    return path


def _atomic_write(path, blob):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, path)


def _read_bounded(path, limit, what):
    try:
        with open(path, "rb") as f:
            blob = f.read(limit + 1)
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{what} {path!r} not found.") from None
    except IsADirectoryError:
        raise NotFoundError(None, None, f"{what} {path!r} is a directory.") from None
    if len(blob) > limit:
        raise InvalidGraphDefError(f"{what} {path!r} is larger than the limit of {limit} "
                                   "bytes.")
    return blob


def read_description(path, max_bytes=MAX_JSON_BYTES, max_sidecar_bytes=MAX_SIDECAR_BYTES,
                     what="graph file"):
    """``(data, tensors)`` read from ``path`` and its sidecar, checksums verified.

    Raises:
        NotFoundError: a missing file (or a sidecar the description needs).
        DataLossError: unparseable, truncated or corrupted files.
        InvalidGraphDefError: files above the size limits.
    """
    path = os.fspath(path)
    sidecar = _sidecar_path(path)
    return decode_description(_read_bounded(path, max_bytes, what),
                              lambda: _read_bounded(sidecar, max_sidecar_bytes, "tensors file"),
                              max_bytes, f"{what} {path!r}")


def decode_description(text, read_sidecar, max_bytes=MAX_JSON_BYTES, what="graph file"):
    """``(data, tensors)`` from JSON bytes; ``read_sidecar()`` gives the sidecar bytes.

    The sidecar is read only when the description names one; its sha256 must match.
    """
    data = parse_json(text, max_bytes, what)
    expected = data.pop("tensors_sha256", None)
    tensors = {}
    if expected is not None:
        if not isinstance(expected, str):
            raise DataLossError(None, None, f"{what}: invalid tensors_sha256.")
        blob = read_sidecar()
        if blob is None:
            raise NotFoundError(None, None, f"{what} needs its tensors file.")
        if hashlib.sha256(blob).hexdigest() != expected:
            raise DataLossError(None, None, f"The tensors file does not match {what}: it is "
                                            "corrupted or stale.")
        tensors = _load_safetensors(blob, what)
    return data, tensors


def _load_safetensors(blob, where):
    try:
        from safetensors.numpy import load
        tensors = load(bytes(blob))
    except Exception as exc:  # SafetensorError and friends: the bytes are not valid
        raise DataLossError(None, None, f"Tensors file {where!r} is not valid safetensors: "
                                        f"{exc}") from None
    for arr in tensors.values():
        arr.flags.writeable = False
    return tensors


def save_graph(graph, path, max_inline_bytes=None, clear_devices=False) -> str:
    """Write ``graph`` to ``path`` (JSON) and ``path + ".safetensors"`` (large constants).

    Args:
        graph: the :class:`~staticgraph.Graph` to save.
        path: the JSON file to write.
        max_inline_bytes: arrays above this many bytes go to the sidecar (default
            ``graph_def_format.INLINE_BYTES``).
        clear_devices: drop device placements.

    Returns:
        ``path``.

    Example:
        >>> tf.export.save_graph(tf.get_default_graph(), "model.json")
    """
    from ..graphlib.graph_def_export import graph_to_graph_def
    from ..graphlib.graph_def_format import INLINE_BYTES
    graph_def = graph_to_graph_def(graph, INLINE_BYTES if max_inline_bytes is None
                                   else max_inline_bytes, clear_devices=clear_devices)
    return write_description(path, graph_def, graph_def.tensors)


def load_graph_from_bytes(text, tensors_bytes=None, max_bytes=MAX_JSON_BYTES):
    """:func:`load_graph` for in-memory contents: the JSON and the sidecar's bytes."""
    from ..graphlib.graph import Graph
    data, tensors = decode_description(text, lambda: tensors_bytes, max_bytes)
    graph = Graph()
    import_graph_def_full(GraphDef(data, tensors), name="", graph=graph, restore_seed=True)
    return graph


def load_graph(path, max_bytes=MAX_JSON_BYTES):
    """A new :class:`~staticgraph.Graph` built from the file ``path`` (see :func:`save_graph`).

    Ops keep their names, devices, control inputs and declaring lines; collections
    (Variables included) and the graph seed are restored.

    Raises:
        NotFoundError: ``path`` (or its needed sidecar) does not exist.
        DataLossError: a truncated or corrupted file.
        InvalidGraphDefError: a well-formed file describing an invalid graph (an
            ``InvalidArgumentError`` and a ``ValueError``).
    """
    from ..graphlib.graph import Graph
    data, tensors = read_description(path, max_bytes)
    graph = Graph()
    import_graph_def_full(GraphDef(data, tensors), name="", graph=graph, restore_seed=True)
    return graph
