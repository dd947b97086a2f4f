"""Shape, axis and size arguments of the array ops, read while declaring.

Shared by :mod:`.shape`, :mod:`.fill`, :mod:`.transform` and the random ops:
converting a shape argument to an int tensor (:func:`shape_tensor`), reading the
statically known entries of a shape tensor, including ``tf.shape(x)[i]``
references (:func:`shape_entries`), and :func:`fold`, which computes a small op's
output while declaring when every input is a known constant.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import TensorShape, dtypes
from ..convert import convert_to_tensor, is_tensor_like
from ..shape_rules import INDEX, require_dtype
from ..static_value import MAX_SHAPE_RANK, constant_value, constant_value_as_shape

__all__ = ["STATIC_LIMIT", "fold", "int_list", "scalar_int", "scalar_axis", "shape_entries",
           "shape_tensor"]

STATIC_LIMIT = 4096  # largest output (elements) computed while declaring


def fold(op):
    """The op's output computed from its inputs' static values, if all are known and small."""
    n = op.outputs[0].shape.num_elements() if op.outputs else None
    if n is None or n > STATIC_LIMIT:
        return None
    values = []
    for t in op.inputs:
        v = constant_value(t)
        if v is None or np.size(v) > STATIC_LIMIT:
            return None
        values.append(np.asarray(v))
    try:
        out = op.op_def.compute(*values, **op.attrs)
    except (ValueError, TypeError, IndexError, ArithmeticError):
        return None  # the error is raised when the graph runs
    return out if isinstance(out, np.ndarray) else None


def int_list(value):
    """The entries of an array-like ``value`` (any shape) as a flat list of ints."""
    return [int(v) for v in np.reshape(value, -1)]


def scalar_int(value, arg):
    """The single entry of ``value`` as an int; ValueError naming ``arg`` otherwise."""
    flat = np.reshape(value, -1)
    if flat.size != 1:
        raise ValueError(f"'{arg}' must be a tensor with a single value, got {flat.size}")
    return int(flat[0])


def scalar_axis(t):
    """The value of the scalar int32/int64 ``axis`` tensor ``t`` if known while declaring,
    else None; TypeError or ValueError for a tensor that cannot be an axis."""
    require_dtype(t, INDEX, "axis")
    if t.shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank} for argument "
                         f"'axis'")
    v = constant_value(t)
    return None if v is None else int(np.reshape(v, -1)[0])


def _dim_reference(t, x):
    """For ``t = tf.shape(y)[i]``: y's dim i when known, ``("dim", i)`` when ``y is x``."""
    op = t.op
    if op.type != "StridedSlice" or t.value_index != 0 or op.inputs[0].op.type != "Shape":
        return None
    a = op.attrs
    if (not a.get("shrink_axis_mask", 0) & 1 or a.get("ellipsis_mask", 0)
            or a.get("new_axis_mask", 0) or a.get("begin_mask", 0) & 1):
        return None
    begin = constant_value(op.inputs[1]) if len(op.inputs) > 1 else a.get("begin")
    if begin is None or np.size(begin) < 1:
        return None
    i = int(np.reshape(begin, -1)[0])
    src = op.inputs[0].op.inputs[0]
    raw = src.shape.raw
    if raw is None:
        return ("dim", i) if src is x and i >= 0 else None
    if not -len(raw) <= i < len(raw):
        return None
    i %= len(raw)
    if raw[i] is not None:
        return raw[i]
    return ("dim", i) if src is x else None


def shape_entries(t, x):
    """A 1-D shape tensor's entries: ints (-1 kept), ``("dim", i)`` of ``x``, or None.

    Returns None when even the number of entries is unknown, or when there are more
    than :data:`MAX_SHAPE_RANK`. Concatenations are walked once per tensor, without
    recursion, so a deep or repeating chain of them stays linear.
    """
    memo = {}
    stack = [(t, False)]
    while stack:
        node, parts_done = stack.pop()
        if id(node) in memo:
            continue
        parts = _concat_parts(node)
        if parts is not None and not parts_done:
            stack.append((node, True))
            stack.extend((p, False) for p in parts if id(p) not in memo)
            continue
        memo[id(node)] = _entries_of(node, x, parts, memo)
    return memo[id(t)]


def _concat_parts(t):
    """The concatenated parts of ``t`` when it is a ConcatV2 of unknown value, else None."""
    if t.op.type != "ConcatV2" or constant_value(t) is not None:
        return None
    return t.op.inputs[:-1]


def _entries_of(t, x, parts, memo):
    """:func:`shape_entries` of ``t`` once the entries of its ``parts`` are in ``memo``."""
    if parts is not None:
        out = []
        for part in parts:
            entries = memo[id(part)]
            if entries is None or len(out) + len(entries) > MAX_SHAPE_RANK:
                break
            out.extend(entries)
        else:
            return out
    else:
        v = constant_value(t)
        if v is not None:
            return int_list(v) if np.size(v) <= MAX_SHAPE_RANK else None
        op = t.op
        if op.type == "Pack" and t.shape.rank == 1:
            out = []
            for e in op.inputs:
                ev = constant_value(e)
                out.append(int(np.reshape(ev, -1)[0]) if ev is not None and np.size(ev) == 1
                           else _dim_reference(e, x))
            return out
        if op.type == "Shape":
            src = op.inputs[0]
            if src.shape.raw is None:
                return None
            return [("dim", i) if src is x and d is None else d
                    for i, d in enumerate(src.shape.raw)]
    known = constant_value_as_shape(t)
    return None if known.raw is None else list(known.raw)


def shape_tensor(value, name="shape"):
    """A shape argument (list, ``TensorShape``, array or tensor) as a 1-D int tensor.

    Tensors are returned as they are; other values become an int32 constant named
    ``name`` (int64 when an entry does not fit), as TF1's op wrappers convert an
    ``int32``/``int64`` argument whose default type is int32.
    """
    if isinstance(value, TensorShape):
        value = value.as_list()
    if is_tensor_like(value):
        return convert_to_tensor(value)
    return convert_to_tensor(value, preferred_dtype=dtypes.int32, name=name)
