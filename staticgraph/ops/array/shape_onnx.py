"""ONNX lowerings of the array layout ops (array_shape, array_fill, array_combine,
array_transform) that need more than a node or two, kept apart so the op
definitions stay short.

Shapes, axes and sizes known while declaring become int64 constants; the rest is
computed at run time from ``Shape`` nodes. Integer index arithmetic goes through
:func:`calc`, which folds values known now with numpy and emits ONNX nodes for
values known only at run time, so one formula serves static and dynamic shapes.
Where ONNX needs a static attribute that TF gives as a tensor (``Transpose``'s
permutation, ``Concat``/``Split``'s axis), the run-time form gathers or reshapes
instead: a tensor split around a run-time axis is viewed as ``[outer, d, inner]``.
"""

from __future__ import annotations

import numpy as np

from .. import onnx_support
from .shape_args import shape_entries
from ..static_value import constant_value

__all__ = []

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min

_NUMPY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.floor_divide,
    "Max": np.maximum, "Min": np.minimum, "Less": np.less,
    "GreaterOrEqual": np.greater_equal, "And": np.logical_and, "Equal": np.equal,
    "Where": np.where, "Range": np.arange,
}


# --------------------------------------------------------------- index arithmetic
def static_ints(t):
    """The value of index tensor ``t`` as a list of ints if known while declaring."""
    v = constant_value(t)
    return None if v is None else [int(i) for i in np.reshape(v, -1)]


def int64_arg(ctx, name, t):
    """Index tensor ``t`` (value ``name``) as int64: a constant when known now."""
    v = constant_value(t)
    if v is not None:
        return ctx.const(np.asarray(v, np.int64))
    return ctx.to_int64(name, t.dtype)


def _name(ctx, v):
    if isinstance(v, str):
        return v
    a = np.asarray(v)
    return ctx.const(a if a.dtype == bool else a.astype(np.int64))


def calc(ctx, op_type, *args):
    """``op_type`` on int64 (or bool) values: numpy when every argument is known
    now (ints or arrays), else an ONNX node (arguments that are value names stay)."""
    if any(isinstance(a, str) for a in args):
        return ctx.node(op_type, [_name(ctx, a) for a in args])
    return _NUMPY[op_type](*(np.asarray(a) for a in args))


def vector(ctx, v):
    """A 1-D int64 value of one element from an int / int64 scalar name."""
    if isinstance(v, str):
        return ctx.node("Unsqueeze", [v, ctx.int64s([0])])
    return ctx.int64s([int(v)])


class Dims:
    """The dimensions of one tensor: ints where known statically, else int64
    scalars gathered from one ``Shape`` node (made on first use)."""

    def __init__(self, ctx, tensor, name):
        self.ctx, self.raw, self.name = ctx, tensor.shape.raw, name
        self._shape = None

    def shape(self):
        """The int64 1-D shape: a constant when fully known."""
        if self.raw is not None and None not in self.raw:
            return self.ctx.int64s(self.raw)
        if self._shape is None:
            self._shape = self.ctx.shape(self.name)
        return self._shape

    def __getitem__(self, i):
        if self.raw is not None and self.raw[i] is not None:
            return int(self.raw[i])
        return self.ctx.node("Gather", [self.shape(), self.ctx.scalar(i, np.int64)])


def pair_values(ctx, paddings_t, paddings, rank):
    """``[(before, after)]`` per dimension of a ``[rank, 2]`` paddings input: ints
    when known now, int64 scalar names otherwise."""
    p = static_ints(paddings_t)
    if p is not None:
        return [(p[2 * i], p[2 * i + 1]) for i in range(rank)]
    flat = ctx.node("Reshape", [ctx.to_int64(paddings, paddings_t.dtype), ctx.int64s([-1])])
    return [tuple(ctx.node("Gather", [flat, ctx.scalar(2 * i + k, np.int64)])
                  for k in (0, 1)) for i in range(rank)]


def pad_node(ctx, x, pads, value, dtype, mode=None):
    """``Pad(x, pads, value)``; dtypes without a Pad kernel pad in a wider one
    (:func:`~staticgraph.ops.onnx_support.work_dtype`: int16 in int32)."""
    work = onnx_support.work_dtype("Pad", dtype)
    if work == dtype.name:
        return ctx.node("Pad", [x, pads, value], mode=mode)
    value = ctx.cast(value, work) if value else None
    out = ctx.node("Pad", [ctx.cast(x, work), pads, value], mode=mode)
    return ctx.cast(out, dtype)


def onnx_pads(ctx, paddings_t, paddings):
    """TF paddings ``[[before, after], ...]`` as ONNX pads ``[befores..., afters...]``."""
    p = constant_value(paddings_t)
    if p is not None:
        return ctx.int64s(np.asarray(p, np.int64).reshape(-1, 2).T.reshape(-1))
    p64 = ctx.to_int64(paddings, paddings_t.dtype)
    return ctx.node("Reshape", [ctx.node("Transpose", [p64], perm=[1, 0]), ctx.int64s([-1])])


# ------------------------------------------------------------------ reshape
def lower_reshape(ctx, op, x, shape):
    """TF's reshape: a 0 is an empty dimension (``allowzero=1``); with both a 0 and a
    -1 the -1 takes the product of the input's nonzero dimensions (TF1's rule)."""
    t, shape_t = op.inputs
    out = op.outputs[0].shape.raw
    if out is not None and None not in out:
        return ctx.node("Reshape", [x, ctx.int64s(out)], allowzero=1 if 0 in out else None)
    s = static_ints(shape_t)
    if s is not None:
        if 0 not in s:  # the -1 is inferred from the input's size, as in TF
            return ctx.node("Reshape", [x, ctx.int64s(s)])
        return _reshape_resolved(ctx, x, ctx.int64s(s))
    entries = shape_entries(shape_t, t)
    if entries is not None:
        if len(entries) == 2 and entries == [("dim", 0), -1]:
            return ctx.node("Flatten", [x], axis=1)  # tf.reshape(x, [tf.shape(x)[0], -1])
        maybe_minus = any(e is None or e == -1 for e in entries)
        maybe_zero = any(e is None or e == 0 or isinstance(e, tuple) for e in entries)
        if not (maybe_minus and maybe_zero):
            s64 = ctx.to_int64(shape, shape_t.dtype)
            return ctx.node("Reshape", [x, s64], allowzero=None if maybe_minus else 1)
    return _reshape_resolved(ctx, x, ctx.to_int64(shape, shape_t.dtype))


def _reshape_resolved(ctx, x, s64):
    """Reshape to a run-time shape whose -1 is computed here (ONNX refuses a -1
    next to a 0): size / known sizes, or with a 0 in the shape the product of the
    input's nonzero dimensions / the positive sizes."""
    one = ctx.scalar(1, np.int64)
    nonzero_dims = ctx.node("ReduceProd", [ctx.node("Max", [ctx.shape(x), one])], keepdims=0)
    has_zero = ctx.node("Equal", [ctx.node("ReduceProd", [s64], keepdims=0),
                                  ctx.scalar(0, np.int64)])
    num = ctx.node("Where", [has_zero, nonzero_dims, ctx.node("Size", [x])])
    known = ctx.node("ReduceProd", [ctx.node("Max", [s64, one])], keepdims=0)
    missing = ctx.node("Div", [num, known])
    fixed = ctx.node("Where", [ctx.node("Equal", [s64, ctx.scalar(-1, np.int64)]), missing,
                               s64])
    return ctx.node("Reshape", [x, fixed], allowzero=1)


# ---------------------------------------------------------------- transpose
def lower_transpose(ctx, op, x, perm):
    """``Transpose`` with a constant permutation; a run-time one gathers every
    output element from the flattened input: ``out[i] = x.flat[sum_k i_k * s[p[k]]]``
    with ``s`` the input's row-major strides."""
    x_t, perm_t = op.inputs
    p = static_ints(perm_t)
    if p is not None:
        if p == sorted(p):
            return ctx.node("Identity", [x])
        return ctx.node("Transpose", [x], perm=p)
    n = op.outputs[0].shape.rank
    if n is None:
        ctx.unsupported("the permutation is computed at run time and the input's rank is "
                        "unknown (ONNX Transpose needs a fixed permutation)")
    if n < 2:
        return ctx.node("Identity", [x])
    dims = Dims(ctx, x_t, x)
    p64 = int64_arg(ctx, perm, perm_t)
    raw = x_t.shape.raw
    if raw is not None and None not in raw:
        strides = ctx.int64s([int(np.prod(raw[j + 1:])) for j in range(n)])
    else:  # strides[j] = prod(shape[j + 1:]): a masked [n, n] product
        mask = ctx.const(np.arange(n)[None, :] > np.arange(n)[:, None])
        rows = ctx.node("Where", [mask, dims.shape(), ctx.scalar(1, np.int64)])
        strides = ctx.node("ReduceProd", [rows, ctx.int64s([1])], keepdims=0)
    out_shape = ctx.node("Gather", [dims.shape(), p64])
    out_strides = ctx.node("Gather", [strides, p64])
    index = None
    for k in range(n):
        k_ = ctx.scalar(k, np.int64)
        steps = ctx.node("Range", [ctx.scalar(0, np.int64),
                                   ctx.node("Gather", [out_shape, k_]), ctx.scalar(1, np.int64)])
        term = ctx.node("Mul", [steps, ctx.node("Gather", [out_strides, k_])])
        term = ctx.node("Unsqueeze", [term, ctx.int64s([a for a in range(n) if a != k])])
        index = term if index is None else ctx.node("Add", [index, term])
    flat = ctx.node("Reshape", [x, ctx.int64s([-1])])
    return ctx.node("Gather", [flat, index])


def lower_reverse(ctx, op, x, axis):
    """ReverseV2: one Slice with step -1 from the last element to before the first."""
    axis_t = op.inputs[1]
    axes = static_ints(axis_t)
    if axes is not None:
        if not axes:
            return ctx.node("Identity", [x])
        n, axes = len(axes), ctx.int64s(axes)
    else:
        n = axis_t.shape.raw[0] if axis_t.shape.rank == 1 else None
        axes = int64_arg(ctx, axis, axis_t)
    if n is not None:
        minus_one, first = ctx.int64s([-1] * n), ctx.int64s([INT64_MIN] * n)
    else:
        count = ctx.node("Shape", [axes])
        minus_one = ctx.node("Expand", [ctx.int64s([-1]), count])
        first = ctx.node("Expand", [ctx.int64s([INT64_MIN]), count])
    return ctx.node("Slice", [x, minus_one, first, axes, minus_one])


# ----------------------------------------------------------- run-time axis
class AxisFrame:
    """A tensor's shape cut around an axis known only at run time: ``before``,
    ``after`` (1-D), ``outer``/``inner`` (their products, 1-D of one element) and
    ``a``/``a1`` (the axis and axis + 1 as 1-D int64)."""

    def __init__(self, ctx, x, rank, axis, axis_t):
        a = ctx.node("Reshape", [ctx.to_int64(axis, axis_t.dtype), ctx.int64s([1])])
        shape = ctx.shape(x)
        r = ctx.int64s([rank]) if rank is not None else ctx.shape(shape)
        self.ctx = ctx
        self.a = ctx.node("Mod", [a, r])
        self.a1 = ctx.node("Add", [self.a, ctx.int64s([1])])
        self.before = ctx.node("Slice", [shape, ctx.int64s([0]), self.a])
        self.after = ctx.node("Slice", [shape, self.a1, ctx.int64s([INT64_MAX])])
        self.outer = ctx.node("ReduceProd", [self.before], keepdims=1)
        self.inner = ctx.node("ReduceProd", [self.after], keepdims=1)
        self.d = ctx.node("Slice", [shape, self.a, self.a1])

    def size_of(self, x):
        """The axis' size in another tensor ``x`` of the same rank (1-D)."""
        return self.ctx.node("Slice", [self.ctx.shape(x), self.a, self.a1])

    def to_3d(self, x, d):
        """``x`` viewed as ``[outer, d, inner]``."""
        shape = self.ctx.node("Concat", [self.outer, d, self.inner], axis=0)
        return self.ctx.node("Reshape", [x, shape], allowzero=1)

    def from_3d(self, x3, d):
        """A ``[outer, d, inner]`` piece back in the frame's rank, axis size ``d``."""
        shape = self.ctx.node("Concat", [self.before, d, self.after], axis=0)
        return self.ctx.node("Reshape", [x3, shape], allowzero=1)


def lower_concat(ctx, op, *inputs):
    values, axis = inputs[:-1], inputs[-1]
    axis_t = op.inputs[-1]
    a = static_ints(axis_t)
    if a is not None:
        return ctx.node("Concat", list(values), axis=a[0])
    frame = AxisFrame(ctx, values[0], op.outputs[0].shape.rank, axis, axis_t)
    sizes = [frame.size_of(v) for v in values]
    parts = [frame.to_3d(v, d) for v, d in zip(values, sizes)]
    total = sizes[0]
    for d in sizes[1:]:
        total = ctx.node("Add", [total, d])
    return frame.from_3d(ctx.node("Concat", parts, axis=1), total)


def lower_split(ctx, op, value, axis, axis_t, sizes=None, sizes_t=None):
    """``Split`` (equal pieces, ``sizes`` None) or ``SplitV`` (``sizes``, one may be -1)."""
    num = op.attrs["num_split"]
    if num == 1:
        return ctx.node("Identity", [value])
    value_t = op.inputs[1] if sizes is None else op.inputs[0]
    a = static_ints(axis_t)
    rank = value_t.shape.rank
    frame = None
    if a is not None:
        onnx_axis = a[0]
        d = Dims(ctx, value_t, value)[a[0]]
    else:
        frame = AxisFrame(ctx, value, rank, axis, axis_t)
        onnx_axis = 1
        d = ctx.node("Squeeze", [frame.d, ctx.int64s([0])])
        value = frame.to_3d(value, frame.d)
    if sizes is None:  # explicit sizes: num_outputs refuses a dimension of size 0
        size = calc(ctx, "Div", d, num)
        split = (ctx.node("Expand", [vector(ctx, size), ctx.int64s([num])])
                 if isinstance(size, str) else ctx.int64s([int(size)] * num))
    else:
        split = _split_sizes(ctx, sizes, sizes_t, d)
    parts = ctx.node("Split", [value, split], outputs=num, axis=onnx_axis)
    if frame is None:
        return parts
    two = ctx.int64s([2])
    return [frame.from_3d(p, ctx.node("Slice", [ctx.shape(p), ctx.int64s([1]), two]))
            for p in parts]


def _split_sizes(ctx, sizes, sizes_t, d):
    """SplitV's sizes as int64 with the -1 entry resolved against dimension ``d``."""
    s = static_ints(sizes_t)
    if s is not None and -1 not in s:
        return ctx.int64s(s)
    if s is not None:
        rest = calc(ctx, "Sub", d, sum(v for v in s if v != -1))
        if not isinstance(rest, str):
            return ctx.int64s([int(rest) if v == -1 else v for v in s])
        return ctx.node("Concat", [ctx.int64s(s[:s.index(-1)]), vector(ctx, rest),
                                   ctx.int64s(s[s.index(-1) + 1:])], axis=0)
    s64 = ctx.to_int64(sizes, sizes_t.dtype)
    # sum(s) counts the -1: the missing piece is d - (sum + 1) (unused without a -1)
    total = ctx.node("ReduceSum", [s64], keepdims=0)
    rest = calc(ctx, "Sub", d, calc(ctx, "Add", total, 1))
    return ctx.node("Where", [ctx.node("Equal", [s64, ctx.scalar(-1, np.int64)]),
                              _name(ctx, rest), s64])


# -------------------------------------------------------------- mirror pads
def mirror_indices(ctx, d, before, after, symmetric):
    """Source index in ``[0, d)`` of each position of a dimension of size ``d``
    mirror-padded by ``before``/``after`` (SYMMETRIC repeats the edge, REFLECT not)."""
    j = calc(ctx, "Range", calc(ctx, "Sub", 0, before), calc(ctx, "Add", d, after), 1)
    u = calc(ctx, "Max", j, calc(ctx, "Sub", -1 if symmetric else 0, j))
    edge = calc(ctx, "Sub", calc(ctx, "Mul", d, 2), 1 if symmetric else 2)
    return calc(ctx, "Min", u, calc(ctx, "Sub", edge, u))


def lower_mirror_pad(ctx, op, x, paddings):
    x_t, paddings_t = op.inputs
    rank = _pad_rank(ctx, op)
    if rank == 0:
        return ctx.node("Identity", [x])
    if op.attrs["mode"] == "REFLECT":
        return pad_node(ctx, x, onnx_pads(ctx, paddings_t, paddings), None, x_t.dtype,
                        mode="reflect")
    dims = Dims(ctx, x_t, x)
    out = x
    for i, (b, a) in enumerate(pair_values(ctx, paddings_t, paddings, rank)):
        if not isinstance(b, str) and not isinstance(a, str) and b == a == 0:
            continue
        index = _name(ctx, mirror_indices(ctx, dims[i], b, a, symmetric=True))
        out = ctx.node("Gather", [out, index], axis=i)
    return out if out is not x else ctx.node("Identity", [x])


def lower_mirror_pad_grad(ctx, op, grad, paddings):
    """Each axis in turn: the core of ``grad`` plus its two padded borders, gathered
    reversed onto the positions they mirror (zeros elsewhere: index ``D`` of ``grad``
    padded with one zero), added in the numpy kernel's order."""
    g_t, paddings_t = op.inputs
    rank = _pad_rank(ctx, op)
    off = 1 if op.attrs["mode"] == "REFLECT" else 0
    dims = Dims(ctx, g_t, grad)
    out = grad
    for i, (b, a) in enumerate(pair_values(ctx, paddings_t, paddings, rank)):
        b_zero = not isinstance(b, str) and b == 0
        a_zero = not isinstance(a, str) and a == 0
        if b_zero and a_zero:
            continue
        big = dims[i]
        n = calc(ctx, "Sub", calc(ctx, "Sub", big, b), a)
        start = vector(ctx, b) if isinstance(b, str) else ctx.int64s([b])
        end = calc(ctx, "Add", b, n)
        end = vector(ctx, end) if isinstance(end, str) else ctx.int64s([int(end)])
        core = ctx.node("Slice", [out, start, end, ctx.int64s([i])])
        pads = np.zeros(2 * rank, np.int64)
        pads[rank + i] = 1
        padded = pad_node(ctx, out, ctx.int64s(pads), None, g_t.dtype)
        k = calc(ctx, "Range", 0, n, 1)
        sides = []
        if not b_zero:  # position k mirrors border element b - 1 + off - k
            src = calc(ctx, "Sub", calc(ctx, "Add", b, off - 1), k)
            sides.append((src, 0, b))
        if not a_zero:  # position k mirrors border element b + 2n - 1 - off - k
            src = calc(ctx, "Sub", calc(ctx, "Add", calc(ctx, "Add", b, calc(ctx, "Mul", n, 2)),
                                         -1 - off), k)
            sides.append((src, calc(ctx, "Add", b, n), big))
        for src, lo, hi in sides:
            valid = calc(ctx, "And", calc(ctx, "GreaterOrEqual", src, lo),
                         calc(ctx, "Less", src, hi))
            index = _name(ctx, calc(ctx, "Where", valid, src, big))
            core = ctx.node("Add", [core, ctx.node("Gather", [padded, index], axis=i)])
        out = core
    return out if out is not grad else ctx.node("Identity", [grad])


def _pad_rank(ctx, op):
    x_t, paddings_t = op.inputs[:2]
    rank = x_t.shape.rank
    if rank is None and paddings_t.shape.rank == 2:
        rank = paddings_t.shape.raw[0]
    if rank is None:
        ctx.unsupported("the input's rank is unknown (the number of padded dimensions must "
                        "be known to export)")
    return rank
