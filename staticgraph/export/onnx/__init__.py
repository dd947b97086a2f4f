"""ONNX export: every op lowers itself (``OpDef.onnx``) to standard ``ai.onnx`` nodes.

``to_onnx(outputs, inputs, session=sess)`` exports inference graphs and (with
``training=True``) whole training steps. The lowering itself lives in the session
layer (:mod:`staticgraph.session.onnx_lowering`), which the onnxruntime backend
compiles its plans with; its names are re-exported here.
"""

from ...session.onnx_lowering import (DEFAULT_OPSET, STATE_METADATA_KEY, LoweredGraph,
                                      LoweringContext, OnnxExportError, check_onnx_model,
                                      from_onnx_dtype, lower_graph, lower_schedule, onnx_dtype,
                                      strict_shape_inference)
from .exporter import to_onnx

__all__ = ["to_onnx", "lower_graph", "lower_schedule", "LoweredGraph", "LoweringContext",
           "OnnxExportError", "onnx_dtype", "from_onnx_dtype", "check_onnx_model",
           "strict_shape_inference", "DEFAULT_OPSET", "STATE_METADATA_KEY"]
