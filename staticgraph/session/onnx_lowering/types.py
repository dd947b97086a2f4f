"""staticgraph dtypes <-> ONNX ``TensorProto`` element types."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto

from ...graphlib import dtypes
from ...graphlib.dtypes import dtype_name

__all__ = ["onnx_dtype", "from_onnx_dtype", "dtype_name"]

_TO_ONNX = {
    "float16": TensorProto.FLOAT16, "float32": TensorProto.FLOAT,
    "float64": TensorProto.DOUBLE, "int8": TensorProto.INT8, "int16": TensorProto.INT16,
    "int32": TensorProto.INT32, "int64": TensorProto.INT64, "uint8": TensorProto.UINT8,
    "uint16": TensorProto.UINT16, "uint32": TensorProto.UINT32,
    "uint64": TensorProto.UINT64, "bool": TensorProto.BOOL, "string": TensorProto.STRING,
}
_FROM_ONNX = {v: k for k, v in _TO_ONNX.items()}


def onnx_dtype(dtype) -> int:
    """The ``TensorProto`` element type of a staticgraph DType, numpy dtype or name.

    Raises:
        TypeError: the dtype has no ONNX element type.
    """
    if isinstance(dtype, int) and not isinstance(dtype, bool) and dtype in _FROM_ONNX:
        return dtype
    if isinstance(dtype, dtypes.DType):
        name = dtype.name
    elif isinstance(dtype, str) and dtype in _TO_ONNX:
        name = dtype
    else:
        np_dtype = np.dtype(dtype)
        name = "string" if np_dtype.kind in "OUS" else np_dtype.name
    try:
        return _TO_ONNX[name]
    except KeyError:
        raise TypeError(f"dtype {name} has no ONNX element type") from None


def from_onnx_dtype(elem_type: int):
    """The staticgraph DType of an ONNX element type."""
    try:
        return dtypes.as_dtype(_FROM_ONNX[elem_type])
    except KeyError:
        raise TypeError(f"ONNX element type {elem_type} has no staticgraph dtype") from None

