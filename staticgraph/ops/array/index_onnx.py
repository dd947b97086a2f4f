"""ONNX lowering helpers shared by the indexing ops (:mod:`.slicing`,
:mod:`.gather`, :mod:`.scatter`, :mod:`.select`).

Index vectors known while declaring stay numpy arrays (``int64``) and are folded
in numpy; the others are ONNX value names. ``strided_slice`` lowers TF1's
``StridedSlice`` spec (masks included) to one ONNX ``Slice`` plus
``Squeeze``/``Unsqueeze`` (or one ``Reshape`` when the output shape is static);
``strided_slice_grad`` writes ``dy`` back into zeros with ``Pad`` (unit steps) or
``ScatterElements`` (any spec).
"""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from ...graphlib.dtypes import dtype_name
from .. import onnx_support
from ..math.binary_onnx import where  # noqa: F401 - the family's shared Where
from ..static_value import constant_value

INT64_MAX = int(np.iinfo(np.int64).max)
INT64_MIN = int(np.iinfo(np.int64).min)


def as_name(ctx, v):
    """An ONNX value name for ``v`` (a name, or an int64 array/scalar made a constant)."""
    return v if isinstance(v, str) else ctx.const(np.asarray(v, np.int64))


def int_input(ctx, tensor, name):
    """A 1-D int input as a numpy int64 vector when constant, else its int64 ONNX value."""
    value = constant_value(tensor)
    if value is not None:
        return np.asarray(value, np.int64).reshape(-1)
    return ctx.to_int64(name, tensor.dtype)


def scalar_input(ctx, tensor, name):
    """A scalar int input as a Python int when constant, else its int64 ONNX value."""
    value = constant_value(tensor)
    if value is not None and np.ndim(value) == 0:
        return int(value)
    return ctx.to_int64(name, tensor.dtype)


def choose(ctx, cond, a, b):
    """``where(cond, a, b)`` for a constant bool vector ``cond``; ``a``/``b`` are int64
    arrays (or scalars) or value names. Folded in numpy when everything is constant."""
    cond = np.asarray(cond, bool)
    if not isinstance(a, str):
        a = np.broadcast_to(np.asarray(a, np.int64), cond.shape)
    if not isinstance(b, str):
        b = np.broadcast_to(np.asarray(b, np.int64), cond.shape)
    if not cond.any():
        return b
    if cond.all():
        return a
    if not isinstance(a, str) and not isinstance(b, str):
        return np.where(cond, a, b)
    return ctx.node("Where", [ctx.const(cond), as_name(ctx, a), as_name(ctx, b)])


def zeros(ctx, shape, dtype):
    """Zeros of ``dtype`` with the 1-D int64 ``shape`` (array or value name)."""
    value = numpy_helper.from_array(np.zeros([1], np.dtype(dtype_name(dtype))))
    return ctx.node("ConstantOfShape", [as_name(ctx, shape)], value=value)


def concat(ctx, parts):
    """A 1-D int64 vector joined from int64 arrays and value names (folded when constant)."""
    if all(not isinstance(p, str) for p in parts):
        return np.concatenate([np.asarray(p, np.int64).reshape(-1) for p in parts])
    return ctx.node("Concat", [as_name(ctx, p) for p in parts], axis=0)


def scatter_add(ctx, shape, indices, updates, dtype):
    """ScatterND(reduction='add') of ``updates`` at int64 ``indices`` into zeros of
    ``shape`` (array or value name); float16 accumulates in float32."""
    work = onnx_support.work_dtype("ScatterND", dtype)  # reduction="add" lacks float16
    out = ctx.node("ScatterND", [zeros(ctx, shape, work), indices,
                                 ctx.cast(updates, work, dtype)], reduction="add")
    return ctx.cast(out, dtype, work)


# ------------------------------------------------------------------------ slice
def slice_begin_size(ctx, x, begin, size):
    """TF1's ``Slice``: ONNX Slice with ends ``begin + size`` (size -1: to the end);
    ``begin``/``size`` are int64 arrays or value names. Axes left whole are skipped."""
    if not isinstance(begin, str) and not isinstance(size, str):
        keep = [i for i in range(len(begin)) if not (begin[i] == 0 and size[i] == -1)]
        if not keep:
            return x
        ends = np.where(size == -1, INT64_MAX, begin + size)
        return ctx.node("Slice", [x, as_name(ctx, begin[keep]), as_name(ctx, ends[keep]),
                                  ctx.int64s(keep)])
    if isinstance(size, str):
        ends = ctx.node("Add", [as_name(ctx, begin), size])
        ends = ctx.node("Where", [ctx.node("Equal", [size, ctx.int64s([-1])]),
                                  ctx.int64s([INT64_MAX]), ends])
    else:
        ends = choose(ctx, size == -1, INT64_MAX, ctx.node("Add", [begin, ctx.const(size)]))
    return ctx.node("Slice", [x, as_name(ctx, begin), as_name(ctx, ends)])


# ---------------------------------------------------------------- strided slice
def sliced_rank(n, masks, out_rank):
    """The input rank of a StridedSlice of ``n`` entries whose output has ``out_rank``."""
    _, _, ellipsis, new, shrink = masks
    for i in range(n):
        if ellipsis >> i & 1:
            continue
        if new >> i & 1:
            out_rank -= 1
        elif shrink >> i & 1:
            out_rank += 1
    return out_rank


def _plan(n, masks):
    """The entries of a StridedSlice spec, independent of the input's dimensions.

    Returns ``(entries, new_positions)``: ``entries`` lists ``(i, axis)`` for every
    entry ``i`` that consumes an input axis (axes after an ellipsis are negative,
    counted from the end), ``new_positions`` the output positions of new axes
    (negative after an ellipsis).
    """
    _, _, ellipsis, new, shrink = masks
    ellipses = [i for i in range(n) if ellipsis >> i & 1]
    at = ellipses[0] if ellipses else n
    entries, new_positions = [], []
    axis = out = 0
    for i in range(at):
        if new >> i & 1:
            new_positions.append(out)
            out += 1
            continue
        entries.append((i, axis))
        axis += 1
        out += 0 if shrink >> i & 1 else 1
    axis = out = 0
    for i in range(n - 1, at, -1):
        if new >> i & 1:
            out -= 1
            new_positions.append(out)
            continue
        axis -= 1
        out -= 0 if shrink >> i & 1 else 1
        entries.append((i, axis))
    return entries, new_positions


def _take(ctx, v, sel, n):
    """Entries ``sel`` of the length-``n`` int64 vector ``v`` (array or value name)."""
    if not isinstance(v, str):
        return v[sel]
    if list(sel) == list(range(n)):
        return v
    return ctx.node("Gather", [v, ctx.int64s(sel)], axis=0)


def _by_sign(ctx, negative, if_negative, if_positive):
    if not isinstance(negative, str):
        return np.where(negative, if_negative, if_positive).astype(np.int64)
    return ctx.node("Where", [negative, ctx.int64s([if_negative]),
                              ctx.int64s([if_positive])])


def strided_slice(ctx, x, x_dims, n, begin, end, strides, masks, out_dims=None):
    """TF1's ``StridedSlice`` of value ``x``.

    Args:
        x_dims: the static dims of ``x`` (tuple with None entries, or None for an
            unknown rank).
        n: the number of spec entries.
        begin, end, strides: int64 vectors of length ``n`` (numpy arrays when
            constant, else value names).
        masks: ``(begin, end, ellipsis, new_axis, shrink_axis)`` bitmasks.
        out_dims: the static output dims, when known (a single Reshape then replaces
            Squeeze/Unsqueeze).
    """
    begin_mask, end_mask, _, _, shrink_mask = masks
    entries, new_positions = _plan(n, masks)
    rank = None if x_dims is None else len(x_dims)
    if rank is not None:
        out_rank = rank - sum(1 for i, _ in entries if shrink_mask >> i & 1) + len(new_positions)
        entries = [(i, a + rank if a < 0 else a) for i, a in entries]
        new_positions = sorted(p + out_rank if p < 0 else p for p in new_positions)
    static_steps = None if isinstance(strides, str) else strides
    keep = [(i, a) for i, a in entries
            if shrink_mask >> i & 1 or not (begin_mask >> i & 1 and end_mask >> i & 1
                                             and static_steps is not None
                                             and static_steps[i] == 1)]
    shrink_axes = [a for i, a in keep if shrink_mask >> i & 1]
    y = x
    if keep:
        sel = [i for i, _ in keep]
        axes = [a for _, a in keep]
        shrink = np.array([shrink_mask >> i & 1 for i in sel], bool)
        bmask = np.array([begin_mask >> i & 1 for i in sel], bool) & ~shrink
        emask = np.array([end_mask >> i & 1 for i in sel], bool) & ~shrink
        steps = choose(ctx, shrink, 1, _take(ctx, strides, sel, n))
        negative = None
        if bmask.any() or emask.any():
            negative = (steps < 0 if not isinstance(steps, str)
                        else ctx.node("Less", [steps, ctx.int64s([0])]))
        b = _take(ctx, begin, sel, n)
        starts = b
        if bmask.any():
            starts = choose(ctx, bmask, _by_sign(ctx, negative, INT64_MAX, 0), b)
        ends = _take(ctx, end, sel, n)
        if shrink.any():
            if isinstance(b, str):
                after = ctx.node("Add", [b, ctx.int64s([1])])
                after = ctx.node("Where", [ctx.node("Equal", [after, ctx.int64s([0])]),
                                           ctx.int64s([INT64_MAX]), after])
            else:
                after = np.where(b == -1, INT64_MAX, b + 1)
            ends = choose(ctx, shrink, after, ends)
        if emask.any():
            ends = choose(ctx, emask, _by_sign(ctx, negative, INT64_MIN, INT64_MAX), ends)
        starts, ends = _below_range_fix(ctx, x, x_dims, axes, starts, ends, steps,
                                        shrink | bmask)
        inputs = [x, as_name(ctx, starts), as_name(ctx, ends), ctx.int64s(axes)]
        if isinstance(steps, str) or (steps != 1).any():
            inputs.append(as_name(ctx, steps))
        y = ctx.node("Slice", inputs)
    if not shrink_axes and not new_positions:
        return y
    if out_dims is not None and all(d is not None for d in out_dims):
        return ctx.node("Reshape", [y, ctx.int64s(out_dims)])
    if shrink_axes:
        y = ctx.node("Squeeze", [y, ctx.int64s(shrink_axes)])
    if new_positions:
        y = ctx.node("Unsqueeze", [y, ctx.int64s(new_positions)])
    return y


def plain_strided_slice(ctx, x, begin, end, strides, begin_mask, end_mask):
    """StridedSlice without ellipsis/new/shrink masks, begin/end/strides of a length
    known only at run time (int64 value names)."""
    begin, end, strides = (as_name(ctx, v) for v in (begin, end, strides))
    length = ctx.shape(strides)
    negative = ctx.node("Less", [strides, ctx.int64s([0])])

    def masked(mask, value, if_negative, if_positive):
        if not mask:
            return value
        bits = np.array([mask >> i & 1 for i in range(32)], bool)
        bits = ctx.node("Slice", [ctx.const(bits), ctx.int64s([0]), length])
        default = ctx.node("Where", [negative, ctx.int64s([if_negative]),
                                     ctx.int64s([if_positive])])
        return ctx.node("Where", [bits, default, value])

    starts = masked(begin_mask, begin, INT64_MAX, 0)
    ends = masked(end_mask, end, INT64_MIN, INT64_MAX)
    dims = ctx.node("Slice", [ctx.shape(x), ctx.int64s([0]), length])
    below = ctx.node("And", [ctx.node("Less", [starts, ctx.node("Neg", [dims])]), negative])
    ends = ctx.node("Where", [below, ctx.int64s([0]), ends])
    return ctx.node("Slice", [x, starts, ends, None, strides])


def _below_range_fix(ctx, x, x_dims, axes, starts, ends, steps, fixed):
    """Empty the slices TF1 leaves empty and ONNX does not: a negative step whose
    begin lies below ``-dim`` (TF clamps it to -1, ONNX's Slice to 0)."""
    static_steps = None if isinstance(steps, str) else steps
    static_starts = None if isinstance(starts, str) else starts
    empty = np.zeros(len(axes), bool)
    dynamic = False
    for k, axis in enumerate(axes):
        if fixed[k] or (static_steps is not None and static_steps[k] > 0):
            continue
        if static_starts is not None and static_starts[k] >= 0:
            continue
        d = x_dims[axis] if x_dims is not None else None
        if static_steps is not None and static_starts is not None and d is not None:
            empty[k] = static_starts[k] + d < 0
        else:
            dynamic = True
    starts = choose(ctx, empty, 0, starts)
    ends = choose(ctx, empty, 0, ends)
    if dynamic:
        dims = ctx.node("Gather", [ctx.shape(x), ctx.int64s(axes)], axis=0)
        below = ctx.node("Less", [as_name(ctx, starts), ctx.node("Neg", [dims])])
        backwards = (ctx.const(static_steps < 0) if static_steps is not None
                     else ctx.node("Less", [steps, ctx.int64s([0])]))
        cond = ctx.node("And", [below, backwards])
        ends = ctx.node("Where", [cond, ctx.int64s([0]), as_name(ctx, ends)])
    return starts, ends


def strided_slice_grad(ctx, shape, shape_dims, dy, dtype, n, begin, end, strides,
                       masks, resolve):
    """Zeros of ``shape`` with ``dy`` written at the StridedSlice spec.

    Args:
        shape: the output shape as an int64 array (constant) or value name.
        shape_dims: its static entries (tuple with None entries, or None).
        n: the number of spec entries (None when unknown: no ellipsis/new/shrink masks).
        dy, dtype: the value name of ``dy`` and its dtype.
        resolve: the kernel's ``_resolve`` (numpy index of a fully known spec).
    """
    static = not any(isinstance(v, str) for v in (shape, begin, end, strides))
    if static:
        padded = _grad_by_pad(ctx, tuple(int(d) for d in shape), dy, dtype,
                              resolve(tuple(int(d) for d in shape), tuple(begin.tolist()),
                                      tuple(end.tolist()), tuple(strides.tolist()), *masks)[0])
        if padded is not None:
            return padded
    # any spec: slice an iota of the output's flat positions the same way, then scatter
    if static:
        total = np.int64(np.prod(shape))
        total_1d = ctx.int64s([total])
        total = ctx.scalar(total, np.int64)
    else:
        shape = as_name(ctx, shape)
        total = ctx.node("ReduceProd", [shape], keepdims=0)
        total_1d = ctx.node("Reshape", [total, ctx.int64s([1])])
    iota = ctx.node("Range", [ctx.scalar(0, np.int64), total, ctx.scalar(1, np.int64)])
    iota = ctx.node("Reshape", [iota, as_name(ctx, shape)])
    if n is None:
        picked = plain_strided_slice(ctx, iota, begin, end, strides, masks[0], masks[1])
    else:
        picked = strided_slice(ctx, iota, shape_dims, n, begin, end, strides, masks)
    flat = ctx.int64s([-1])
    out = ctx.node("ScatterElements", [zeros(ctx, total_1d, dtype),
                                       ctx.node("Reshape", [picked, flat]),
                                       ctx.node("Reshape", [dy, flat])], axis=0)
    return ctx.node("Reshape", [out, as_name(ctx, shape)])


def _grad_by_pad(ctx, shape, dy, dtype, index):
    """``dy`` padded into zeros of ``shape`` when every step of the resolved ``index`` is
    +-1 (a reversed axis is flipped first); None when some step is larger."""
    sliced, before, after, reverse = [], [], [], []
    reshape = False
    axis = 0
    for entry in index[:-1]:  # the last entry is the kernel's trailing Ellipsis
        if entry is None:
            reshape = True
            continue
        d = shape[axis]
        positions = np.arange(d)[entry]
        if isinstance(entry, (int, np.integer)):
            reshape = True
            positions = np.reshape(positions, [1])
        size = len(positions)
        if size == 0:
            return zeros(ctx, np.asarray(shape, np.int64), dtype)
        step = int(positions[1] - positions[0]) if size > 1 else 1
        if step not in (1, -1):
            return None
        if step == -1:
            reverse.append(axis)
        sliced.append(size)
        before.append(int(positions.min()))
        after.append(d - 1 - int(positions.max()))
        axis += 1
    y = dy
    if reshape:  # new axes dropped, shrunk axes back as size 1
        y = ctx.node("Reshape", [y, ctx.int64s(sliced)])
    if reverse:
        k = len(reverse)
        y = ctx.node("Slice", [y, ctx.int64s([-1] * k), ctx.int64s([INT64_MIN] * k),
                               ctx.int64s(reverse), ctx.int64s([-1] * k)])
    if not any(before) and not any(after):
        return y if y != dy else ctx.node("Identity", [dy])
    work = onnx_support.work_dtype("Pad", dtype)  # a wider type where Pad lacks one
    out = ctx.node("Pad", [ctx.cast(y, work, dtype), ctx.int64s(before + after)])
    return ctx.cast(out, dtype, work)
