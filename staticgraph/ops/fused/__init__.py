"""fused: ops the optimizer's fusion pass creates (elementwise chains, matmul with bias
and activation), with their ONNX lowering."""

from . import fused_ops

MODULES = (fused_ops,)
