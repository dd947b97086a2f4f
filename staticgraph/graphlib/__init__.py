"""graphlib: the data model of staticgraph.

``Graph``, ``Operation``, ``Tensor``, ``DType``, ``TensorShape``, name scopes,
collections, control dependencies and the default-graph stack. graphlib runs no
kernels and knows nothing of ONNX: op semantics live in :mod:`staticgraph.ops`.
"""

from . import dtypes
from .default_graph import (
    DEFAULT_GRAPH_SEED, add_to_collection, add_to_collections, control_dependencies,
    device, get_collection, get_collection_ref, get_default_graph, get_name_scope, get_seed,
    graph_as_default, name_scope, reset_default_graph, set_random_seed,
)
from .dtypes import DType, as_dtype
from .graph import Graph, GraphKeys
from .operation import Operation
from .tensor import Tensor
from .tensor_shape import Dimension, TensorShape, as_shape, broadcast_static, unknown_shape
from .user_frame import UserFrame, capture_user_frame, format_frame

__all__ = [
    "dtypes", "DType", "as_dtype", "Graph", "GraphKeys", "Operation", "Tensor", "Dimension",
    "TensorShape", "as_shape", "broadcast_static", "unknown_shape", "UserFrame",
    "capture_user_frame", "format_frame", "DEFAULT_GRAPH_SEED", "add_to_collection",
    "add_to_collections", "control_dependencies", "device", "get_collection",
    "get_collection_ref", "get_default_graph", "get_name_scope", "get_seed",
    "graph_as_default", "name_scope", "reset_default_graph", "set_random_seed",
]
