"""Argument checks, constant folding, the scatter-add kernel and the shape arithmetic
of gradient rules shared by the indexing ops.

Used by :mod:`.array_slice`, :mod:`.array_gather`, :mod:`.array_scatter` and
:mod:`.array_select`.
"""

from __future__ import annotations

import builtins

import numpy as np

from ...graphlib import Tensor, dtypes
from . import combine as _combine
from . import shape as _shape
from ..math import binary as _mb
from ..math import misc as _misc
from ..math import reduction as _reduction
from ..convert import constant
from ...graphlib.op_def import OpDef
from ..static_value import constant_value

_pyslice = builtins.slice
INDEX = (dtypes.int32, dtypes.int64)
_FOLD_LIMIT = 1 << 16  # largest constant input folded while declaring


def _require_rank(t, rank, arg):
    r = t.shape.rank
    if r is not None and r != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {r} for '{arg}' "
                         f"(shape {t.shape.as_proto_string()})")


def _scalar_value(t):
    v = constant_value(t)
    return None if v is None or np.ndim(v) != 0 else int(v)


def _position(index):
    return ",".join(str(int(i)) for i in index)


class _Foldable(OpDef):
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
def _segment_sum(data, ids, n):
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
def _dims(t, start, stop, dtype):
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


def _as_index(v, dtype):
    if isinstance(v, Tensor):
        return v if v.dtype is dtype else _misc.cast(v, dtype)
    return constant(np.asarray(v, dtype.np_dtype))


def _prod(dims, dtype):
    """The product of dimensions (an int when all are known, else a scalar tensor)."""
    if isinstance(dims, Tensor):
        return _reduction.reduce_prod(_as_index(dims, dtype))
    out = 1
    for d in dims:
        if isinstance(d, Tensor) or isinstance(out, Tensor):
            out = _mb.multiply(_as_index(out, dtype), _as_index(d, dtype))
        else:
            out *= d
    return out


def _vector(parts, dtype):
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
            pieces.append(_as_index(v, dtype))
        else:
            run.append(_as_index(v, dtype))
    if run:
        pieces.append(_combine.stack(run))
    return pieces[0] if len(pieces) == 1 else _combine.concat(pieces, 0)


def _full_shape(t, dtype):
    """The shape of ``t`` with no -1 (a constant when static)."""
    if t.shape.is_fully_defined():
        return np.asarray(t.shape.raw, dtype.np_dtype)
    return _shape.shape(t, out_type=dtype)
