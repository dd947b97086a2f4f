"""Meta graphs: a graph, its collections and its Saver's settings in one JSON file.

``tf.train.export_meta_graph("model.ckpt.meta")`` and
``tf.train.import_meta_graph("model.ckpt.meta")`` let a trained model be reloaded
without its Python source: the imported ops work again (sessions, gradients,
training ops) and the returned :class:`~staticgraph.train.Saver` restores the
checkpointed variables. A meta graph file is checksummed JSON plus, when the graph
has large constants, a safetensors sidecar, written and read like a graph file
(:mod:`staticgraph.export.graph_file`: crash-safe, size-checked, regular files only);
:func:`staticgraph.export.graph_file.graph_file_paths` lists both. Files are never
unpickled or evaluated. The :class:`MetaGraphDef` that :func:`export_meta_graph`
returns is self-contained (constants inline).
"""

from __future__ import annotations

import json
import os

from ..export.graph_file import read_description, write_description
from ..graphlib import GraphKeys, get_default_graph
from ..graphlib.graph_def import import_graph_def_full
from ..graphlib.graph_def_export import graph_to_graph_def, split_large_arrays
from ..graphlib.graph_def_format import (MAX_JSON_BYTES, GraphDef, InvalidGraphDefError,
                                         _short)

__all__ = ["MetaGraphDef", "export_meta_graph", "import_meta_graph"]

FORMAT = "staticgraph.MetaGraphDef"
VERSION = 1
_KEYS = {"format", "version", "meta_info_def", "graph_def", "saver_def", "sha256"}


class MetaGraphDef(dict):
    """A meta graph: ``meta_info_def``, ``graph_def`` and ``saver_def`` (JSON values)."""

    @property
    def graph_def(self) -> GraphDef:
        """The graph part as a :class:`GraphDef`."""
        return GraphDef(self["graph_def"])

    @property
    def saver_def(self):
        """The Saver settings (a dict) or None."""
        return self.get("saver_def")

    @property
    def collection_def(self) -> dict:
        """The collections (names and encoded entries)."""
        return self["graph_def"].get("collections", {})

    def to_json(self, indent=None) -> str:
        """JSON text with a checksum of its content."""
        return GraphDef(self).to_json(indent=indent)


def _json_value(value, what):
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} must hold JSON values only: {exc}") from None
    return value


def _saver_def_dict(saver_def):
    if saver_def is None:
        return None
    if hasattr(saver_def, "as_saver_def") and callable(saver_def.as_saver_def):
        saver_def = saver_def.as_saver_def()   # a Saver given as saver_def
    if hasattr(saver_def, "to_dict"):
        saver_def = saver_def.to_dict()
    if not isinstance(saver_def, dict):
        raise TypeError(f"saver_def must be a SaverDef or a dict, got {type(saver_def).__name__}")
    return _json_value(dict(saver_def), "saver_def")


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """Describe a graph, its collections and Saver settings; write it to ``filename``.

    Args:
        filename: the file to write (JSON); None to only return the description.
        meta_info_def: a dict of JSON values kept as is (tags, version notes ...).
        graph_def: a :class:`GraphDef` to use instead of describing ``graph``.
        saver_def: a :class:`~staticgraph.train.SaverDef` (or its dict, or a Saver).
        collection_list: collection names to write (default: all).
        as_text: indent the JSON.
        graph: the graph (default: the default graph).
        export_scope: only ops under this scope, names made relative to it.
        clear_devices: drop device placements.
        clear_extraneous_savers, strip_default_attrs, save_debug_info: accepted for
            TF1 compatibility.

    Returns:
        The :class:`MetaGraphDef`.

    Raises:
        TypeError: non-JSON ``meta_info_def`` / ``saver_def`` values or attributes.
        ValueError: an op in ``export_scope`` depending on one outside it.
    """
    graph = graph or get_default_graph()
    if graph_def is None:
        graph_def = graph_to_graph_def(graph, max_inline_bytes=None,
                                       collection_list=collection_list,
                                       export_scope=export_scope, clear_devices=clear_devices)
    elif getattr(graph_def, "tensors", None):
        raise ValueError("graph_def has sidecar tensors; describe it with "
                         "as_graph_def(max_inline_bytes=None) for a meta graph.")
    info = {"meta_graph_version": "", "tags": []}
    if meta_info_def is not None:
        if not isinstance(meta_info_def, dict):
            raise TypeError("meta_info_def must be a dict of JSON values.")
        info.update(_json_value(dict(meta_info_def), "meta_info_def"))
    from .. import __version__
    info.setdefault("staticgraph_version", __version__)
    meta = MetaGraphDef(format=FORMAT, version=VERSION, meta_info_def=info,
                        graph_def={k: v for k, v in dict(graph_def).items() if k != "sha256"},
                        saver_def=_saver_def_dict(saver_def))
    if filename is not None:
        split = split_large_arrays(meta["graph_def"])
        write_description(os.fspath(filename), {**meta, "graph_def": dict(split)},
                          split.tensors, indent=1 if as_text else None)
    return meta


def _read_meta(meta_graph_or_file, max_bytes):
    """``(data, tensors)`` of a MetaGraphDef or a meta graph file, header checked."""
    tensors = {}
    if isinstance(meta_graph_or_file, (dict,)):
        data = dict(meta_graph_or_file)
        data.pop("sha256", None)
    elif isinstance(meta_graph_or_file, (str, os.PathLike)):
        data, tensors = read_description(meta_graph_or_file, max_bytes,
                                         what="meta graph file")
    else:
        raise TypeError("meta_graph_or_file must be a MetaGraphDef or a file name, got "
                        f"{type(meta_graph_or_file).__name__}.")
    unknown = set(data) - _KEYS
    if unknown:
        raise InvalidGraphDefError(f"Unknown meta graph field(s) {_short(sorted(unknown))}.")
    if data.get("format") != FORMAT:
        raise InvalidGraphDefError(f"Not a staticgraph meta graph: format is "
                                   f"{_short(data.get('format'))}.")
    version = data.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        raise InvalidGraphDefError(f"Unsupported meta graph version {_short(version)} (this "
                                   f"staticgraph reads up to {VERSION}).")
    if not isinstance(data.get("graph_def"), dict):
        raise InvalidGraphDefError("The meta graph has no graph_def object.")
    if not isinstance(data.get("meta_info_def", {}), dict):
        raise InvalidGraphDefError("meta_info_def must be an object.")
    saver_def = data.get("saver_def")
    if saver_def is not None and not isinstance(saver_def, dict):
        raise InvalidGraphDefError("saver_def must be an object or null.")
    return data, tensors


_SAVER_SETTINGS = {"max_to_keep": (int,), "keep_checkpoint_every_n_hours": (int, float),
                   "sharded": (bool,), "version": (int,)}


def _mapped_saver_def(saver_def, result):
    """The saver_def with variable op names moved under the import prefix, checked."""
    out = {}
    for key, value in saver_def.items():
        kinds = _SAVER_SETTINGS.get(key)
        if kinds is not None:
            if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
                raise InvalidGraphDefError(f"saver_def {_short(key)} has an invalid value "
                                           f"{_short(value)}.")
            out[key] = value
        elif key == "variables":
            if not isinstance(value, dict):
                raise InvalidGraphDefError("saver_def 'variables' must be an object.")
            variables = {}
            for ckpt, op_name in value.items():
                op = result.ops.get(op_name) if isinstance(op_name, str) else None
                if op is None or not getattr(op.op_def, "is_variable", False):
                    raise InvalidGraphDefError(f"saver_def variable {_short(ckpt)} names "
                                               f"{_short(op_name)}, not a variable of the "
                                               "graph.")
                variables[ckpt] = op.name
            out[key] = variables
        elif isinstance(value, (str, type(None))):
            out[key] = value   # tensor/op names of TF1's saver graph: informational
        else:
            raise InvalidGraphDefError(f"saver_def {_short(key)} has an invalid value.")
    return out


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Recreate a saved meta graph in the default graph; returns a Saver for its variables.

    Args:
        meta_graph_or_file: a :class:`MetaGraphDef` or the path of a meta graph file.
        clear_devices: drop device placements.
        import_scope: name scope to import under (None: the original names).
        **kwargs: ``input_map`` (tensor names to replacement tensors) is honoured;
            TF1's other options are accepted and ignored.

    Returns:
        A :class:`~staticgraph.train.Saver` built from the saved settings over the
        imported variables, or None when the meta graph has no variables.

    Raises:
        NotFoundError: a missing file. DataLossError: a truncated or corrupted file.
        InvalidGraphDefError: an invalid description (also a ValueError).

    Example:
        >>> saver = tf.train.import_meta_graph("model.ckpt.meta")
        >>> saver.restore(sess, "model.ckpt")
    """
    max_bytes = kwargs.pop("max_bytes", MAX_JSON_BYTES)
    data, tensors = _read_meta(meta_graph_or_file, max_bytes)
    result = import_graph_def_full(GraphDef(data["graph_def"], tensors),
                                   input_map=kwargs.get("input_map"),
                                   name=import_scope or "", clear_devices=clear_devices)
    graph = get_default_graph()
    imported = set(id(v) for v in result.variables.values())
    variables = [v for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
                 if id(v) in imported]
    saver_def = data.get("saver_def")
    from .saver import Saver
    if saver_def is not None:
        mapped = _mapped_saver_def(saver_def, result)
        if mapped.get("variables"):
            try:
                return Saver(saver_def=mapped)
            except (ValueError, TypeError) as exc:
                raise InvalidGraphDefError(f"The meta graph's saver_def is invalid: "
                                           f"{exc}") from exc
    if not variables:
        return None
    if import_scope:  # checkpoints name variables by their original names
        return Saver(var_list={name: var for name, var in result.variables.items()
                               if var in variables})
    return Saver(var_list=variables)
