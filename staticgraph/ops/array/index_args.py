"""Constant folding, the scatter-add kernel and the shape arithmetic of gradient rules
shared by the indexing ops.

Used by :mod:`.slicing`, :mod:`.gather`, :mod:`.scatter` and :mod:`.select`.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import Tensor
from . import combine as _combine
from . import shape as _shape
from ..math import binary as _mb
from ..math import misc as _misc
from ..math import reduction as _reduction
from ..convert import constant
from ...graphlib.op_def import OpDef
from ..static_value import constant_value

__all__ = ["FoldableOpDef", "known_int", "format_index", "scatter_add_rows", "dims_of",
           "as_index", "dims_product", "pack_dims"]

_FOLD_LIMIT = 1 << 16  # largest constant input folded while declaring


def known_int(t):
    """The value of scalar tensor ``t`` as an int when known while declaring, else None."""
    v = constant_value(t)
    return None if v is None or np.ndim(v) != 0 else int(v)


def format_index(index):
    """A multi-dimensional index as TF1's messages write it: ``1,0,2``."""
    return ",".join(str(int(i)) for i in index)


class FoldableOpDef(OpDef):
    """Ops whose value is computed while declaring when all inputs are small constants."""

    def static_value(self, op):
        values = [constant_value(t) for t in op.inputs]
        if any(v is None or np.size(v) > _FOLD_LIMIT for v in values):
            return None
        try:
            return np.asarray(self.compute(*values, **op.attrs))
        except (ValueError, IndexError, TypeError):
            return None


# ------------------------------------------------------ scatter-add (kernels)
def scatter_add_rows(data, ids, n):
    """``out[i] = sum(data[j] for j where ids[j] == i)`` for 2-D ``data`` ``[len(ids), inner]``.

    Negative ids are dropped; ids must be below ``n`` (checked by the callers). Floats
    accumulate in float64 through one ``np.bincount`` over (id, column) pairs, the
    fastest numpy scatter-add for embedding-sized gradients; integers go through a
    sort and ``np.add.reduceat`` (exact).
    """
    inner = data.shape[1]
    if ids.size and ids.min() < 0:
        keep = ids >= 0
        ids, data = ids[keep], data[keep]
    if ids.size == 0 or inner == 0 or n == 0:
        return np.zeros((n, inner), data.dtype)
    if data.dtype.kind == "f":
        if inner == 1:
            flat = ids
        else:
            flat = (ids.astype(np.intp)[:, None] * inner + np.arange(inner)).reshape(-1)
        out = np.bincount(flat, data.reshape(-1), minlength=n * inner)
        return out.reshape(n, inner).astype(data.dtype, copy=False)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    starts = np.flatnonzero(np.r_[True, sorted_ids[1:] != sorted_ids[:-1]])
    out = np.zeros((n, inner), data.dtype)
    out[sorted_ids[starts]] = np.add.reduceat(data[order], starts, axis=0, dtype=data.dtype)
    return out


# ----------------------------------------- shape arithmetic for gradient rules
def dims_of(t, start, stop, dtype):
    """Dimensions ``start:stop`` of ``t``: a list of ints / scalar tensors, or a 1-D tensor
    (when the rank of ``t`` is unknown)."""
    raw = t.shape.raw
    if raw is None:
        return _shape.shape(t, out_type=dtype)[start:stop]
    picked = range(len(raw))[start:stop]
    if all(raw[i] is not None for i in picked):
        return [raw[i] for i in picked]
    full = _shape.shape(t, out_type=dtype)
    return [raw[i] if raw[i] is not None else full[i] for i in picked]


def as_index(v, dtype):
    """``v`` (an int, array or tensor) as a tensor of index dtype ``dtype``."""
    if isinstance(v, Tensor):
        return v if v.dtype is dtype else _misc.cast(v, dtype)
    return constant(np.asarray(v, dtype.np_dtype))


def dims_product(dims, dtype):
    """The product of dimensions (an int when all are known, else a scalar tensor)."""
    if isinstance(dims, Tensor):
        return _reduction.reduce_prod(as_index(dims, dtype))
    out = 1
    for d in dims:
        if isinstance(d, Tensor) or isinstance(out, Tensor):
            out = _mb.multiply(as_index(out, dtype), as_index(d, dtype))
        else:
            out *= d
    return out


def pack_dims(parts, dtype):
    """A 1-D shape vector from ints, scalar tensors and lists/1-D tensors of dimensions."""
    flat = []
    for p in parts:
        flat.extend(p if isinstance(p, list) else [p])
    if not any(isinstance(v, Tensor) for v in flat):
        return np.asarray(flat, dtype.np_dtype)
    pieces, run = [], []
    for v in flat:
        if isinstance(v, Tensor) and v.shape.rank == 1:
            if run:
                pieces.append(_combine.stack(run))
                run = []
            pieces.append(as_index(v, dtype))
        else:
            run.append(as_index(v, dtype))
    if run:
        pieces.append(_combine.stack(run))
    return pieces[0] if len(pieces) == 1 else _combine.concat(pieces, 0)
