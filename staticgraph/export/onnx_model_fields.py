"""Reading an ``onnx.ModelProto`` for drawings and tables: is it one, its strings, its
element types' names.

Models opened for a drawing or a summary may be damaged or hostile, so strings are
decoded leniently and unknown element types get a placeholder name. Nothing here
imports ``onnx``: a model is recognised by its fields.
"""

from __future__ import annotations

__all__ = ["ONNX_DTYPE_NAMES", "ONNX_FLOAT_TYPES", "is_onnx_model", "onnx_text"]

# TensorProto.DataType -> staticgraph's dtype name.
ONNX_DTYPE_NAMES = {1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32",
                    7: "int64", 8: "string", 9: "bool", 10: "float16", 11: "float64",
                    12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128",
                    16: "bfloat16"}

# TensorProto element types holding real floating-point numbers (weights).
ONNX_FLOAT_TYPES = frozenset((1, 10, 11, 16, 17, 18, 19, 20))


def is_onnx_model(obj) -> bool:
    """True for an ``onnx.ModelProto`` (anything with ``graph.node`` and ``opset_import``)."""
    return hasattr(obj, "graph") and hasattr(obj.graph, "node") and hasattr(obj, "opset_import")


def onnx_text(value) -> str:
    """An ONNX string field as ``str``: protobuf hands out ``bytes`` for a string that
    is not valid UTF-8 (a damaged or hostile file); those are decoded with
    replacement characters."""
    if isinstance(value, str):
        return value
    return bytes(value).decode("utf-8", "replace")
