"""ONNX export: every op lowers itself (``OpDef.onnx``) to standard ``ai.onnx`` nodes.

``to_onnx(outputs, inputs, session=sess)`` exports inference graphs and (with
``training=True``) whole training steps; ``lower_graph`` is the shared core the
onnxruntime session backend compiles its plans with.
"""

from .context import LoweringContext, OnnxExportError
from .exporter import DEFAULT_OPSET, STATE_METADATA_KEY, LoweredGraph, lower_graph, to_onnx
from .types import from_onnx_dtype, onnx_dtype
from .validate import check_onnx_model, strict_shape_inference

__all__ = ["to_onnx", "lower_graph", "LoweredGraph", "LoweringContext", "OnnxExportError",
           "onnx_dtype", "from_onnx_dtype", "check_onnx_model", "strict_shape_inference",
           "DEFAULT_OPSET", "STATE_METADATA_KEY"]
