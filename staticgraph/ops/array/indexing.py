"""``tensor[key]``: TF1's Python indexing rules, as one ``StridedSlice`` op.

:func:`slice_helper` is what ``Tensor.__getitem__`` calls (the operator is installed
by :mod:`..operators`): ints, slices, ``...``, ``tf.newaxis`` and scalar int tensors
become the begin/end/strides vectors and masks of one ``strided_slice`` named
``strided_slice``; a bool key is a ``boolean_mask``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graphlib import Dimension, Tensor, dtypes, name_scope
from . import combine as _combine
from . import select as _select
from . import slicing as _slicing
from ..math import misc as _math_misc
from ..convert import constant, convert_to_tensor
from ..shape_rules import INDEX

__all__ = ["slice_helper"]

_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")


def _check_index(idx):
    """The index as an int or an int32/int64 scalar tensor; TypeError otherwise."""
    if isinstance(idx, Dimension):
        return int(idx)
    if isinstance(idx, numbers.Integral) and not isinstance(idx, np.generic):
        return int(idx)
    if hasattr(idx, "_as_graph_tensor"):
        idx = convert_to_tensor(idx)
    if isinstance(idx, Tensor):
        if idx.dtype not in INDEX or (idx.shape.rank not in (None, 0)):
            raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")
        return idx
    if isinstance(idx, np.generic) and np.dtype(idx.dtype).kind in "iu":
        return int(idx)
    if isinstance(idx, np.ndarray) and idx.ndim == 0 and idx.dtype.kind in "iu":
        return int(idx)
    raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _pack(values, dtype, name):
    """A 1-D index vector of ``dtype`` from ints and scalar tensors (one Const when possible)."""
    if not any(isinstance(v, Tensor) for v in values):
        return constant(np.asarray(values, dtype=dtype.np_dtype), name=name)
    items = []
    for v in values:
        if isinstance(v, Tensor):
            items.append(v if v.dtype is dtype else _math_misc.cast(v, dtype))
        else:
            items.append(constant(np.asarray(v, dtype=dtype.np_dtype)))
    return _combine.stack(items, name=name)


def slice_helper(tensor, slice_spec, var=None):
    """``tensor[slice_spec]`` as TF1 does it: one ``StridedSlice`` op named ``strided_slice``.

    Accepts ints (negative count from the end), slices (with tensor bounds and negative
    steps), ``...``, ``None`` (``tf.newaxis``) and scalar int32/int64 tensors. A bool
    tensor or array as the whole key is a ``boolean_mask``.

    Raises:
        TypeError: for other kinds of index (floats, lists of lists, ...).
        ValueError: a constant index out of range on a known dimension.

    Example:
        >>> x[1:, ::-1, tf.newaxis, -1]
    """
    tensor = convert_to_tensor(tensor)
    if (isinstance(slice_spec, bool)
            or (isinstance(slice_spec, Tensor) and slice_spec.dtype is dtypes.bool)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == np.bool_)):
        return _select.boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, slice):
            if s.start is not None:
                begin.append(_check_index(s.start))
            else:
                begin.append(0)
                begin_mask |= bit
            if s.stop is not None:
                end.append(_check_index(s.stop))
            else:
                end.append(0)
                end_mask |= bit
            strides.append(1 if s.step is None else _check_index(s.step))
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        else:
            s = _check_index(s)
            begin.append(s)
            end.append(s + 1)
            strides.append(1)
            shrink_axis_mask |= bit
    values = [tensor] + [v for v in begin + end + strides if isinstance(v, Tensor)]
    with name_scope(None, "strided_slice", values) as name:
        if begin:
            flat = begin + end + strides
            wide = any(isinstance(v, Tensor) and v.dtype is dtypes.int64 for v in flat) or any(
                not isinstance(v, Tensor) and not -2**31 <= v < 2**31 for v in flat)
            dtype = dtypes.int64 if wide else dtypes.int32
            packed = [_pack(v, dtype, "stack") for v in (begin, end, strides)]
        else:
            empty = constant(np.zeros([0], np.int32))
            packed = [empty, empty, empty]
        return _slicing.strided_slice(tensor, *packed, begin_mask=begin_mask,
                                      end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                                      new_axis_mask=new_axis_mask,
                                      shrink_axis_mask=shrink_axis_mask, var=var, name=name)
