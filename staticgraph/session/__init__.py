"""session: running graphs. ``Session``, feeds and fetches, variable state; one
:class:`~.schedule.Schedule` per (fetches, feeds) signature, run by a backend
(:mod:`.backends`: numpy or onnxruntime); the ONNX lowering of a schedule
(:mod:`.onnx_lowering`)."""

from .config import (ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata,
                     RunOptions)
from ..graphlib.default_session import get_default_session
from .session import InteractiveSession, Session

__all__ = ["Session", "InteractiveSession", "get_default_session", "ConfigProto",
           "GPUOptions", "GraphOptions", "OptimizerOptions", "RunOptions", "RunMetadata"]
