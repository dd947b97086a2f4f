"""backends: how a session runs a schedule, behind one protocol (:class:`Backend`).

``numpy`` (generated Python over numpy kernels, or an interpreted program for huge
schedules) and ``onnxruntime`` (the schedule lowered to one ONNX model, run on the
CPU or with CUDA). ``BACKENDS`` maps each name to its class.
"""

from .base import BACKENDS, Backend, CompiledPlan, backend_class, register_backend
from .numpy_plan import NumpyBackend, NumpyPlan
from .onnxruntime_backend import OnnxruntimeBackend
from .onnxruntime_plan import OrtPlan
from .onnxruntime_support import SHARED_CONSTANT_BYTES

__all__ = ["Backend", "CompiledPlan", "BACKENDS", "backend_class", "register_backend",
           "NumpyBackend", "NumpyPlan", "OnnxruntimeBackend", "OrtPlan",
           "SHARED_CONSTANT_BYTES"]
