"""Argument checks and constant folding shared by the indexing ops.

Used by :mod:`.array_slice`, :mod:`.array_gather` and :mod:`.array_select`.
"""

from __future__ import annotations

import builtins

import numpy as np

from ..graphlib import dtypes
from .registry import OpDef
from .static_value import constant_value

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
