"""Validation of exported models: the full ONNX checker and strict shape inference."""

from __future__ import annotations

import re

import onnx

from .context import OnnxExportError

__all__ = ["check_onnx_model", "strict_shape_inference"]

_NODE_NAME = re.compile(r"node name: ([^)]*)\)")


def strict_shape_inference(model, node_ops=None, origin=None) -> onnx.ModelProto:
    """``onnx.shape_inference.infer_shapes`` with type checks, strict mode and data
    propagation; returns the inferred model.

    Raises:
        OnnxExportError: inference failed; names the staticgraph op whose node failed
            when ``node_ops`` (node name -> op) knows it.
    """
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True,
                                                 data_prop=True)
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as exc:
        raise _export_error("ONNX shape inference rejected the exported model", exc,
                            node_ops, origin) from exc


def check_onnx_model(model, node_ops=None, origin=None) -> None:
    """``onnx.checker.check_model(model, full_check=True)``, failures as OnnxExportError."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        raise _export_error("the ONNX checker rejected the exported model", exc,
                            node_ops, origin) from exc


def _export_error(what, exc, node_ops, origin):
    op = None
    match = _NODE_NAME.search(str(exc))
    if match and node_ops:
        op = node_ops.get(match.group(1).strip())
    if op is not None:
        op = origin(op) if origin else op
        where = f" at the node lowered from op '{op.name}' ({op.type}) declared at " \
                f"{op.user_location}"
    else:
        where = ""
    return OnnxExportError(f"{what}{where}: {exc}", op)
