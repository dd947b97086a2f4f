"""Padding ops: ``Pad``, ``PadV2``, ``MirrorPad`` and ``MirrorPadGrad`` (the gradient of
``MirrorPad``), with TF1's ``pad``.

Each op type is defined once here; ``pad`` keeps TF1's keywords and picks TF1's op
(``Pad`` for zeros, ``PadV2`` for another constant, ``MirrorPad`` for REFLECT and
SYMMETRIC). A pad's gradient is the slice of ``dy`` where the input sits.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import name_scope
from . import shape as _array_shape
from . import shape_onnx as _onnx
from . import slicing as _array_slice
from ..convert import convert_to_tensor, is_tensor_like
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from .shape_args import fold, shape_tensor
from ..shape_rules import INDEX, require_dtype, require_rank
from ..static_value import constant_value

__all__ = ["pad"]   # the TF1 namespace's functions; mirror_pad_grad is a gradient op's


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
    for i in range(n):
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


class _ConstantPad(OpDef):
    """Base of Pad and PadV2: the gradient (the slice of ``dy`` where the input sits)
    and the ONNX lowering they share."""

    def static_value(self, op):
        return fold(op)

    def grad(self, op, dy):
        # TF1: the slice of dy for the input, None for paddings (and constant_values).
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

    def onnx(self, ctx, op, x, paddings, constant_values=None):
        if op.inputs[0].shape.rank == 0:
            return ctx.node("Identity", [x])
        pads = _onnx.onnx_pads(ctx, op.inputs[1], paddings)
        return _onnx.pad_node(ctx, x, pads, constant_values, op.inputs[0].dtype)


@register
class Pad(_ConstantPad):
    """``x`` padded with zeros: ``paddings[i] = [before_i, after_i]`` (an int matrix)."""

    def infer(self, x, paddings):
        return _pad_static(x, paddings)

    @staticmethod
    def compute(x, paddings):
        return _pad_constant(x, paddings, 0)


@register
class PadV2(_ConstantPad):
    """``x`` padded with the scalar ``constant_values``."""

    def infer(self, x, paddings, constant_values):
        if constant_values.dtype is not x.dtype:
            raise TypeError(f"Input 'constant_values' of 'PadV2' Op has type "
                            f"{constant_values.dtype.name} that does not match type "
                            f"{x.dtype.name} of argument 'input'.")
        require_rank(constant_values, 0, "constant_values")
        return _pad_static(x, paddings)

    @staticmethod
    def compute(x, paddings, constant_values):
        return _pad_constant(x, paddings, constant_values)


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
        require_rank(paddings, 2, "paddings")
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
    return apply_op("MirrorPadGrad", [convert_to_tensor(grad), shape_tensor(paddings, "paddings")],
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
    plain = (mode == "CONSTANT" and not is_tensor_like(constant_values)
             and np.all(np.asarray(constant_values) == 0))
    default = "Pad" if plain else ("PadV2" if mode == "CONSTANT" else "MirrorPad")
    with name_scope(name, default, [tensor, paddings]) as scope:
        x = convert_to_tensor(tensor, name="tensor")
        p = shape_tensor(paddings, "paddings")
        if plain:
            return apply_op("Pad", [x, p], name=scope)
        if mode == "CONSTANT":
            c = (convert_to_tensor(constant_values) if is_tensor_like(constant_values) else
                 convert_to_tensor(constant_values, dtype=x.dtype, name="constant_values"))
            return apply_op("PadV2", [x, p, c], name=scope)
        return apply_op("MirrorPad", [x, p], {"mode": mode}, name=scope)
