"""session: running graphs. ``Session``, feeds and fetches, compiled plans, variable state."""

from .config import (ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RunMetadata,
                     RunOptions)
from ..graphlib.default_session import get_default_session
from .session import InteractiveSession, Session

__all__ = ["Session", "InteractiveSession", "get_default_session", "ConfigProto",
           "GPUOptions", "GraphOptions", "OptimizerOptions", "RunOptions", "RunMetadata"]
