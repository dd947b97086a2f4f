"""Array transform ops: stop_gradient, broadcast_to, tile, pad, reverse, meshgrid.

Each op type (``StopGradient``, ``BroadcastTo``, ``Tile``, ``Pad``, ``PadV2``,
``MirrorPad``, ``ReverseV2``, and ``MirrorPadGrad``, the gradient of ``MirrorPad``)
is defined once here; the public functions keep TF1's
names, keywords and default op names. Shape arguments given as tensors give
static shapes when their value is known while declaring.
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ...graphlib import Tensor, TensorShape, name_scope
from . import combine as _array_combine
from . import fill as _array_fill
from . import shape as _array_shape
from . import shape_onnx as _onnx
from . import slicing as _array_slice
from ..math import broadcast_grad as _broadcast_grad
from ..math import reduction as _reduction
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from .shape_args import INDEX, _ints, _require_rank, _shape_tensor, _tensor_like, fold
from ..shape_rules import require_dtype, same_as
from ..static_value import constant_value, constant_value_as_shape

__all__ = ["stop_gradient", "broadcast_to", "tile", "pad", "reverse", "reverse_v2",
           "meshgrid"]


# ------------------------------------------------------------- misc shape ops
@register
class StopGradient(OpDef):
    """Its input unchanged; gradients do not flow through it."""

    returns_view = (0,)

    def infer(self, x):
        return same_as(x)

    @staticmethod
    def compute(x):
        return x

    def grad(self, op, dy):
        return [None]  # TF1: NotDifferentiable, tf.gradients gives None

    def onnx(self, ctx, op, x):
        return ctx.node("Identity", [x])


def stop_gradient(input, name=None):  # noqa: A002 - TF1's keyword
    """``input`` unchanged, treated as a constant by gradient computation."""
    return apply_op("StopGradient", [convert_to_tensor(input)], name=name)


@register
class BroadcastTo(OpDef):
    """``x`` broadcast (numpy rules) to the 1-D int tensor ``shape``."""

    returns_view = (0,)

    def infer(self, x, shape):
        require_dtype(shape, INDEX, "shape")
        _require_rank(shape, 1, "shape")
        v = constant_value(shape)
        if v is not None and (np.asarray(v) < 0).any():
            raise ValueError(f"broadcast_to shape must be non-negative, got {_ints(v)}")
        target = constant_value_as_shape(shape).raw
        raw = x.shape.raw
        if target is None:
            return Spec(x.dtype, None)
        if raw is None:
            return Spec(x.dtype, target)
        if len(raw) > len(target):
            raise ValueError(f"Rank of input ({len(raw)}) must be no greater than rank of "
                             f"output shape ({len(target)}).")
        out = []
        lead = len(target) - len(raw)
        for i, t in enumerate(target):
            d = raw[i - lead] if i >= lead else 1
            if t is not None:
                if d is not None and d != 1 and d != t:
                    raise ValueError(f"Incompatible shapes: {x.shape.as_proto_string()} vs. "
                                     f"{TensorShape(target).as_proto_string()}")
                out.append(t)
            else:
                out.append(d if d != 1 else None)
        return Spec(x.dtype, out)

    @staticmethod
    def compute(x, shape):
        return np.broadcast_to(x, tuple(_ints(shape)))

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        x = op.inputs[0]
        target = list(x.shape.raw) if x.shape.is_fully_defined() else _array_shape.shape(x)
        return [_broadcast_grad.sum_to_shape(dy, target), None]

    def onnx(self, ctx, op, x, shape):
        return ctx.node("Expand", [x, _shape_arg(ctx, op, shape)])


def broadcast_to(input, shape, name=None):  # noqa: A002 - TF1's keyword
    """``input`` broadcast to ``shape`` with numpy's rules.

    Raises:
        ValueError: when ``input``'s known shape cannot broadcast to ``shape``.
    """
    with name_scope(name, "BroadcastTo", [input, shape]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("BroadcastTo", [x, _shape_tensor(shape, "shape")], name=scope)


@register
class Tile(OpDef):
    """``x`` repeated ``multiples[i]`` times along dimension ``i``."""

    def infer(self, x, multiples):
        require_dtype(multiples, INDEX, "multiples")
        _require_rank(multiples, 1, "multiples")
        v = constant_value(multiples)
        if v is not None:
            for i, m in enumerate(_ints(v)):
                if m < 0:
                    raise ValueError(f"Expected multiples[{i}] >= 0, but got {m}")
        m = constant_value_as_shape(multiples).raw
        raw = x.shape.raw
        if raw is not None and m is not None and len(raw) != len(m):
            raise ValueError(f"Expected multiples argument to be a vector of length "
                             f"{len(raw)} but got length {len(m)}")
        n = len(raw) if raw is not None else (len(m) if m is not None else None)
        if n is None:
            return Spec(x.dtype, None)
        out = []
        for i in builtins.range(n):
            d = raw[i] if raw is not None else None
            k = m[i] if m is not None else None
            out.append(0 if 0 in (d, k) else (None if d is None or k is None else d * k))
        return Spec(x.dtype, out)

    @staticmethod
    def compute(x, multiples):
        reps = _ints(multiples)
        if len(reps) != x.ndim:
            raise ValueError(f"Expected multiples argument to be a vector of length {x.ndim} "
                             f"but got length {len(reps)}")
        if any(r < 0 for r in reps):
            raise ValueError(f"Expected multiples >= 0, but got {reps}")
        return np.tile(x, reps) if reps else x.copy()

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        # dy viewed as [m0, d0, m1, d1, ...] and summed over the multiples' axes.
        x, multiples = op.inputs
        raw, m = x.shape.raw, constant_value(multiples)
        if raw is not None and not raw:
            return [dy, None]
        if x.shape.is_fully_defined() and m is not None:
            split = [v for pair in zip(_ints(m), raw) for v in pair]
            axes = list(builtins.range(0, len(split), 2))
            return [_reduction.reduce_sum(_array_shape.reshape(dy, split), axes), None]
        pairs = _array_combine.stack([multiples, _array_shape.shape(x, out_type=multiples.dtype)])
        split = _array_shape.reshape(_array_shape.transpose(pairs), [-1])
        axes = _array_fill.range(0, _array_shape.size(split), 2)
        dx = _reduction.reduce_sum(_array_shape.reshape(dy, split), axes)
        dx.set_shape(x.shape)
        return [dx, None]

    def onnx(self, ctx, op, x, multiples):
        m = _onnx.static_ints(op.inputs[1])
        if op.inputs[0].shape.rank == 0 or (m is not None and set(m) == {1}):
            return ctx.node("Identity", [x])
        return ctx.node("Tile", [x, _onnx.int64_arg(ctx, multiples, op.inputs[1])])


def _shape_arg(ctx, op, shape):
    """Input 1 of ``op``, a shape, as int64: the static output shape when fully known."""
    out = op.outputs[0].shape.raw
    if out is not None and None not in out:
        return ctx.int64s(out)
    return _onnx.int64_arg(ctx, shape, op.inputs[1])


def tile(input, multiples, name=None):  # noqa: A002 - TF1's keyword
    """``input`` repeated ``multiples[i]`` times along each dimension ``i``.

    Raises:
        ValueError: ``multiples`` of the wrong length, or negative.

    Example:
        >>> tf.tile([[1, 2]], [2, 1])   # [[1, 2], [1, 2]]
    """
    with name_scope(name, "Tile", [input, multiples]) as scope:
        x = convert_to_tensor(input, name="input")
        return apply_op("Tile", [x, _shape_tensor(multiples, "multiples")], name=scope)


# -------------------------------------------------------------------- pad
def _pad_static(x, paddings, mode=None):
    require_dtype(paddings, INDEX, "paddings")
    ps = paddings.shape.raw
    if ps is not None:
        if len(ps) != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {len(ps)} for argument "
                             f"'paddings'")
        if ps[1] not in (None, 2):
            raise ValueError(f"paddings must be a matrix with 2 columns, got shape "
                             f"{paddings.shape}")
    raw = x.shape.raw
    if raw is not None and ps is not None and ps[0] not in (None, len(raw)):
        raise ValueError(f"The first dimension of paddings must be the rank of inputs "
                         f"{len(raw)}, got paddings of shape {paddings.shape}")
    n = len(raw) if raw is not None else (ps[0] if ps is not None else None)
    if n is None:
        return Spec(x.dtype, None)
    pv = constant_value(paddings)
    if pv is None:
        return Spec(x.dtype, [None] * n)
    pv = np.asarray(pv).reshape(n, 2)
    if (pv < 0).any():
        raise ValueError(f"Paddings must be non-negative, got {pv.tolist()}")
    out = []
    for i in builtins.range(n):
        d = raw[i] if raw is not None else None
        before, after = int(pv[i, 0]), int(pv[i, 1])
        if d is not None and mode is not None:
            _check_mirror(d, before, after, mode)
        out.append(None if d is None else d + before + after)
    return Spec(x.dtype, out)


def _check_mirror(d, before, after, mode):
    if mode == "REFLECT" and (before >= d or after >= d):
        raise ValueError(f"paddings must be less than the dimension size: {before}, {after} "
                         f"not less than {d}")
    if mode == "SYMMETRIC" and (before > d or after > d):
        raise ValueError(f"paddings must be no greater than the dimension size: {before}, "
                         f"{after} greater than {d}")


def _pad_grad(op, dy):
    """``dy`` without the padded borders: the slice of ``dy`` where the input sits."""
    x, paddings = op.inputs[:2]
    p = constant_value(paddings)
    if p is not None and x.shape.is_fully_defined():
        dtype = paddings.dtype.np_dtype
        begin = np.reshape(p, (-1, 2))[:, 0].astype(dtype)
        dx = _array_slice.slice(dy, begin, np.array(x.shape.raw, dtype))
    else:
        begin = _array_slice.strided_slice(paddings, [0, 0], [0, 1], [1, 1], begin_mask=1,
                                           end_mask=1, shrink_axis_mask=2)
        dx = _array_slice.slice(dy, begin, _array_shape.shape(x, out_type=paddings.dtype))
        dx.set_shape(x.shape)
    return [dx] + [None] * (len(op.inputs) - 1)


def _pad_onnx(self, ctx, op, x, paddings, constant_values=None):
    if op.inputs[0].shape.rank == 0:
        return ctx.node("Identity", [x])
    pads = _onnx.onnx_pads(ctx, op.inputs[1], paddings)
    return _onnx.pad_node(ctx, x, pads, constant_values, op.inputs[0].dtype)


def _pad_pairs(x, paddings):
    p = np.asarray(paddings).astype(np.int64)
    if p.shape != (x.ndim, 2):
        raise ValueError(f"paddings must be a matrix with 2 columns and {x.ndim} rows, got "
                         f"shape {list(p.shape)}")
    if (p < 0).any():
        raise ValueError(f"Paddings must be non-negative, got {p.tolist()}")
    return p


def _pad_constant(x, paddings, value):
    p = _pad_pairs(x, paddings)
    out = np.full([d + int(b) + int(a) for d, (b, a) in zip(x.shape, p)], value, dtype=x.dtype)
    out[tuple(slice(int(b), int(b) + d) for d, (b, _) in zip(x.shape, p))] = x
    return out


@register
class Pad(OpDef):
    """``x`` padded with zeros: ``paddings[i] = [before_i, after_i]`` (an int matrix)."""

    def infer(self, x, paddings):
        return _pad_static(x, paddings)

    @staticmethod
    def compute(x, paddings):
        return _pad_constant(x, paddings, 0)

    def static_value(self, op):
        return fold(op)

    grad = staticmethod(_pad_grad)
    onnx = _pad_onnx


@register
class PadV2(OpDef):
    """``x`` padded with the scalar ``constant_values``."""

    def infer(self, x, paddings, constant_values):
        if constant_values.dtype is not x.dtype:
            raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type "
                            f"{constant_values.dtype.name} that does not match type "
                            f"{x.dtype.name} of argument 'input'.")
        _require_rank(constant_values, 0, "constant_values")
        return _pad_static(x, paddings)

    @staticmethod
    def compute(x, paddings, constant_values):
        return _pad_constant(x, paddings, constant_values)

    def static_value(self, op):
        return fold(op)

    # TF1: the slice of dy for the input, None for constant_values.
    grad = staticmethod(_pad_grad)
    onnx = _pad_onnx


@register
class MirrorPad(OpDef):
    """``x`` padded by mirroring: ``mode`` REFLECT (edge not repeated) or SYMMETRIC."""

    attrs = {"mode": "REFLECT"}

    def infer(self, x, paddings, *, mode):
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise ValueError(f"MirrorPad mode must be REFLECT or SYMMETRIC, got {mode!r}")
        return _pad_static(x, paddings, mode)

    @staticmethod
    def compute(x, paddings, *, mode):
        p = _pad_pairs(x, paddings)
        for d, (b, a) in zip(x.shape, p):
            _check_mirror(d, int(b), int(a), mode)
        return np.pad(x, p, mode="reflect" if mode == "REFLECT" else "symmetric")

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        return [mirror_pad_grad(dy, op.inputs[1], op.attrs["mode"]), None]

    def onnx(self, ctx, op, x, paddings):
        return _onnx.lower_mirror_pad(ctx, op, x, paddings)


@register
class MirrorPadGrad(OpDef):
    """The gradient of ``MirrorPad``: ``grad``'s mirrored borders added back onto the input."""

    attrs = {"mode": "REFLECT"}

    def infer(self, grad, paddings, *, mode):
        if mode not in ("REFLECT", "SYMMETRIC"):
            raise ValueError(f"MirrorPadGrad mode must be REFLECT or SYMMETRIC, got {mode!r}")
        require_dtype(paddings, INDEX, "paddings")
        _require_rank(paddings, 2, "paddings")
        raw, pv = grad.shape.raw, constant_value(paddings)
        if raw is None:
            n = paddings.shape.raw[0] if paddings.shape.rank == 2 else None
            return Spec(grad.dtype, None if n is None else [None] * n)
        if pv is None:
            return Spec(grad.dtype, [None] * len(raw))
        pv = np.asarray(pv).reshape(-1, 2)
        if len(pv) != len(raw):
            raise ValueError(f"The first dimension of paddings must be the rank of inputs "
                             f"{len(raw)}, got paddings of shape {paddings.shape}")
        out = []
        for d, (b, a) in zip(raw, pv.tolist()):
            if d is None:
                out.append(None)
                continue
            n = d - b - a
            if n < 0:
                raise ValueError(f"paddings {b}, {a} exceed the gradient's dimension {d}")
            _check_mirror(n, b, a, mode)
            out.append(n)
        return Spec(grad.dtype, out)

    @staticmethod
    def compute(grad, paddings, *, mode):
        p = np.asarray(paddings).astype(np.int64).reshape(-1, 2)
        if len(p) != grad.ndim:
            raise ValueError(f"paddings must be a matrix with 2 columns and {grad.ndim} rows, "
                             f"got shape {list(np.shape(paddings))}")
        off = 1 if mode == "REFLECT" else 0
        g = grad
        for axis, (b, a) in enumerate(p.tolist()):
            if not (b or a):
                continue
            moved = np.moveaxis(g, axis, 0)
            n = moved.shape[0] - b - a
            if n < 0:
                raise ValueError(f"paddings {b}, {a} exceed the gradient's dimension "
                                 f"{moved.shape[0]}")
            _check_mirror(n, b, a, mode)
            core = moved[b:b + n].copy()
            if b:  # padded position i < b mirrors input position b - i - 1 + off
                core[off:off + b] += moved[b - 1::-1]
            if a:  # padded position n + t mirrors input position n - 1 - t - off
                core[n - a - off:n - off] += moved[:b + n - 1:-1]
            g = np.moveaxis(core, 0, axis)
        return g if g is not grad else grad.copy()

    def grad(self, op, dy):
        return [apply_op("MirrorPad", [dy, op.inputs[1]], {"mode": op.attrs["mode"]}), None]

    def onnx(self, ctx, op, grad, paddings):
        return _onnx.lower_mirror_pad_grad(ctx, op, grad, paddings)


def mirror_pad_grad(grad, paddings, mode, name=None):
    """The gradient of ``pad(x, paddings, mode)`` (REFLECT/SYMMETRIC) given ``grad``."""
    return apply_op("MirrorPadGrad", [convert_to_tensor(grad), _shape_tensor(paddings, "paddings")],
                    {"mode": str(mode).upper()}, name=name)


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """``tensor`` padded by ``paddings[i] = [before_i, after_i]`` along each dimension.

    Args:
        tensor: a Tensor.
        paddings: int matrix of shape ``[rank(tensor), 2]``.
        mode: "CONSTANT" (default), "REFLECT" or "SYMMETRIC" (any case).
        name: op name (default ``"Pad"``, ``"PadV2"`` or ``"MirrorPad"``).
        constant_values: the value padded in CONSTANT mode.

    Raises:
        ValueError: unknown ``mode``, or paddings that do not fit ``tensor``.

    Example:
        >>> tf.pad(t, [[1, 1], [2, 2]])
    """
    mode = str(mode).upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"Unknown padding mode: {mode}")
    plain = (mode == "CONSTANT" and not isinstance(constant_values, Tensor)
             and not hasattr(constant_values, "_as_graph_tensor")
             and np.all(np.asarray(constant_values) == 0))
    default = "Pad" if plain else ("PadV2" if mode == "CONSTANT" else "MirrorPad")
    with name_scope(name, default, [tensor, paddings]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        p = _shape_tensor(paddings, "paddings")
        if plain:
            return apply_op("Pad", [x, p], name=scope)
        if mode == "CONSTANT":
            c = (convert_to_tensor(constant_values) if _tensor_like(constant_values) else
                 convert_to_tensor(constant_values, dtype=x.dtype, name="constant_values"))
            return apply_op("PadV2", [x, p, c], name=scope)
        return apply_op("MirrorPad", [x, p], {"mode": mode}, name=scope)


# ---------------------------------------------------------------- reverse
@register
class ReverseV2(OpDef):
    """``x`` with the order of elements reversed along the dimensions in ``axis``."""

    returns_view = (0,)

    def infer(self, x, axis):
        require_dtype(axis, INDEX, "axis")
        _require_rank(axis, 1, "axis")
        v = constant_value(axis)
        r = x.shape.rank
        if v is not None and r is not None:
            seen = set()
            for i, a in enumerate(_ints(v)):
                if not -r <= a < r:
                    raise ValueError(f"'axis'[{i}] = {a} is out of valid range "
                                     f"[{-r}, {r - 1}]")
                if a % r in seen:
                    raise ValueError(f"axis {a % r} specified more than once.")
                seen.add(a % r)
        return same_as(x)

    @staticmethod
    def compute(x, axis):
        return np.flip(x, axis=tuple(_ints(axis)))

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        return [apply_op("ReverseV2", [dy, op.inputs[1]]), None]

    def onnx(self, ctx, op, x, axis):
        return _onnx.lower_reverse(ctx, op, x, axis)


def reverse_v2(tensor, axis, name=None):
    """``tensor`` with elements reversed along each dimension in ``axis`` (list of ints).

    Example:
        >>> tf.reverse([[1, 2], [3, 4]], [1])   # [[2, 1], [4, 3]]
    """
    with name_scope(name, "ReverseV2", [tensor, axis]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        if isinstance(axis, (numbers.Integral, np.integer)):
            axis = [int(axis)]
        return apply_op("ReverseV2", [x, _shape_tensor(axis, "axis")], name=scope)


reverse = reverse_v2


# --------------------------------------------------------------- meshgrid
def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D coordinate tensors (numpy's ``meshgrid``).

    Args:
        *args: N tensors (flattened to 1-D) of one dtype.
        indexing: keyword, "xy" (Cartesian, default) or "ij" (matrix).
        name: keyword, name scope (default ``"meshgrid"``).

    Returns:
        A list of N tensors of rank N.

    Raises:
        ValueError: ``indexing`` not "xy" or "ij".
        TypeError: unknown keyword arguments, or inputs of different dtypes.

    Example:
        >>> X, Y = tf.meshgrid([1, 2, 3], [4, 5])   # shapes [2, 3]
    """
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        key = next(iter(kwargs))
        raise TypeError(f"'{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError("indexing parameter must be either 'xy' or 'ij'")
    with name_scope(name, "meshgrid", [a for a in args if isinstance(a, Tensor)]):
        ndim = len(args)
        tensors = [convert_to_tensor(a) for a in args]
        for t in tensors[1:]:
            if t.dtype is not tensors[0].dtype:
                raise TypeError(f"meshgrid inputs must share one dtype, got "
                                f"{tensors[0].dtype.name} and {t.dtype.name}")
        ones_ = (1,) * ndim
        output = [_array_shape.reshape(x, ones_[:i] + (-1,) + ones_[i + 1:])
                  for i, x in enumerate(tensors)]
        sizes = [_array_shape.size(x) for x in tensors]
        if indexing == "xy" and ndim > 1:
            output[0] = _array_shape.reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = _array_shape.reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            sizes[0], sizes[1] = sizes[1], sizes[0]
        if not sizes:
            return []
        target = _array_combine.stack(sizes)
        return [broadcast_to(x, target) for x in output]
