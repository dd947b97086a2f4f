"""Shared helpers for op definitions' ``infer``: dtype and rank checks, broadcasting, axes."""

from __future__ import annotations

from ..graphlib import TensorShape, broadcast_static, dtypes
from ..graphlib.op_def import Spec

__all__ = ["same_as", "check_same_dtype", "require_dtype", "require_rank",
           "require_rank_at_least", "broadcast_spec", "norm_axis", "unknown", "INDEX", "FLOATS",
           "INTS", "NUMERIC", "SIGNED_NUMERIC", "ALL"]

INDEX = (dtypes.int32, dtypes.int64)   # shapes, axes, indices, sizes
FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
INTS = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8)
NUMERIC = FLOATS + INTS
SIGNED_NUMERIC = FLOATS + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
ALL = NUMERIC + (dtypes.bool,)


def same_as(x) -> Spec:
    """An output with the dtype and shape of tensor ``x``."""
    return Spec(x.dtype, x.shape)


def check_same_dtype(*tensors, names=("x", "y", "z")):
    """TypeError unless all tensors share one dtype; returns that dtype."""
    first = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not first.dtype:
            arg = names[i] if i < len(names) else f"input {i}"
            raise TypeError(f"Input '{arg}' has type {t.dtype.name} that does not match type "
                            f"{first.dtype.name} of argument '{names[0]}'")
    return first.dtype


def require_dtype(t, allowed, arg="x"):
    """TypeError unless ``t.dtype`` is one of ``allowed``."""
    if t.dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"Value for argument '{arg}' has dtype {t.dtype.name}, which is not in "
                        f"the list of allowed values: {names}")
    return t.dtype


def require_rank(t, rank, arg="x"):
    """ValueError when the rank of tensor ``t`` is known and is not ``rank``."""
    r = t.shape.rank
    if r is not None and r != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {r} for '{arg}' "
                         f"(shape {t.shape.as_proto_string()})")


def require_index_vector(t, arg="x"):
    """TypeError unless ``t`` is int32/int64; ValueError when its rank is known and not 1
    (shapes, axes and sizes given as tensors)."""
    require_dtype(t, INDEX, arg)
    require_rank(t, 1, arg)


def require_rank_at_least(t, rank, arg="x"):
    """ValueError when the rank of tensor ``t`` is known and below ``rank``."""
    r = t.shape.rank
    if r is not None and r < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {r} for '{arg}' "
                         f"(shape {t.shape.as_proto_string()})")


def broadcast_spec(x, y, dtype=None) -> Spec:
    """An output of the broadcast shape of ``x`` and ``y`` (dtype: ``x``'s or given)."""
    return Spec(dtype or x.dtype, broadcast_static(x.shape, y.shape))


def norm_axis(axis: int, rank, arg="axis") -> int:
    """``axis`` made non-negative for a tensor of ``rank``; ValueError when out of range."""
    if rank is None:
        if axis < 0:
            raise ValueError(f"Negative {arg} {axis} needs a known rank")
        return axis
    if not -rank <= axis < max(rank, 1) and not (rank == 0 and axis in (0, -1)):
        raise ValueError(f"{arg} {axis} is out of range for a tensor of rank {rank} "
                         f"(expected {-rank} <= {arg} < {rank})")
    return axis % rank if rank else 0


def unknown(dtype) -> Spec:
    """An output of ``dtype`` with unknown shape."""
    return Spec(dtype, TensorShape(None))
