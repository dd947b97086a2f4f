"""Softmax and log-softmax of ``tf.nn`` (ops ``Softmax`` and ``LogSoftmax``), and the
row-softmax kernel the fused cross-entropy ops of :mod:`.softmax_cross_entropy`
share.

Softmax and log-softmax differentiate through a few elementwise ops and a sum, as
TF1's python rules do.
"""

from __future__ import annotations

import numpy as np

from ... import errors
from ...graphlib import Tensor
from ..math import binary as _math_binary
from ..math import unary as _math_unary
from ..math import reduction as _reduction
from ..convert import convert_to_tensor
from ..argument_aliases import deprecated_argument_lookup
from ...graphlib.op_def import OpDef, register
from ..apply import apply_op
from ..shape_rules import FLOATS, norm_axis, require_dtype, require_rank_at_least, same_as
from ..static_value import constant_value

__all__ = ["softmax", "log_softmax"]


class _SoftmaxBase(OpDef):
    """Softmax-like op along attribute ``axis`` (default the last one)."""

    attrs = {"axis": -1}

    def infer(self, logits, *, axis):
        require_dtype(logits, FLOATS, "logits")
        require_rank_at_least(logits, 1, "logits")
        if logits.shape.rank is not None:
            norm_axis(axis, logits.shape.rank)
        return same_as(logits)

    onnx_type = None

    def onnx(self, ctx, op, logits):
        # In the numpy kernel's work_dtype (float16 in float32), so both backends agree;
        # not a kernel gap: onnxruntime has float16 Softmax and LogSoftmax.
        dtype = op.inputs[0].dtype
        work = np.dtype(work_dtype(dtype.np_dtype))
        x = ctx.cast(logits, work, dtype)
        return ctx.cast(ctx.node(self.onnx_type, [x], axis=op.attrs["axis"]), dtype, work)


# Reductions along a short innermost axis (e.g. 10 classes) are slow in numpy, and
# so is broadcasting (N, 1) against (N, C). Below this many classes the softmax
# kernels work on a transposed (C, N) copy, where both run along contiguous rows.
SMALL_CLASSES = 64


def work_dtype(dtype):
    """The dtype softmax-like kernels compute in (float32 for float16)."""
    return np.float32 if dtype == np.float16 else dtype


def softmax_2d(x2, log=False):
    """Softmax (or log-softmax) of each row of the 2-D array ``x2``, as a new
    C-contiguous array in ``work_dtype``. Callers handle empty arrays and errstate."""
    work = work_dtype(x2.dtype)
    if x2.shape[1] <= SMALL_CLASSES:
        t = np.array(x2.T, dtype=work, order="C")
        t -= t.max(axis=0)
        if log:
            t -= np.log(np.exp(t).sum(axis=0))
        else:
            np.exp(t, out=t)
            t /= t.sum(axis=0)
        return t.T.copy()
    t = np.array(x2, dtype=work)
    t -= t.max(axis=1, keepdims=True)
    if log:
        t -= np.log(np.exp(t).sum(axis=1, keepdims=True))
    else:
        np.exp(t, out=t)
        t /= t.sum(axis=1, keepdims=True)
    return t


def _softmax_nd(x, axis, log):
    if x.size == 0:
        return np.empty(x.shape, x.dtype)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if axis == -1 or axis == x.ndim - 1:
            out = softmax_2d(x.reshape(-1, x.shape[-1]), log).reshape(x.shape)
        else:
            t = np.array(x, dtype=work_dtype(x.dtype))
            t -= t.max(axis=axis, keepdims=True)
            if log:
                t -= np.log(np.exp(t).sum(axis=axis, keepdims=True))
            else:
                np.exp(t, out=t)
                t /= t.sum(axis=axis, keepdims=True)
            out = t
    return out.astype(x.dtype, copy=False)


@register
class Softmax(_SoftmaxBase):
    """``exp(logits) / sum(exp(logits), axis)``, computed stably."""

    onnx_type = "Softmax"

    @staticmethod
    def compute(logits, axis):
        return _softmax_nd(logits, axis, log=False)

    def grad(self, op, dy):
        # TF1: (dy - sum(dy * y, axis, keepdims)) * y, with y the softmax output.
        y = op.outputs[0]
        dot = _reduction.reduce_sum(_math_binary.multiply(dy, y), op.attrs["axis"],
                                    keepdims=True)
        return [_math_binary.multiply(_math_binary.subtract(dy, dot), y)]


@register
class LogSoftmax(_SoftmaxBase):
    """``logits - log(sum(exp(logits), axis))``, computed stably."""

    onnx_type = "LogSoftmax"

    @staticmethod
    def compute(logits, axis):
        return _softmax_nd(logits, axis, log=True)

    def grad(self, op, dy):
        # TF1: dy - sum(dy, axis, keepdims) * exp(y), with y the log-softmax output.
        total = _reduction.reduce_sum(dy, op.attrs["axis"], keepdims=True)
        return [_math_binary.subtract(
            dy, _math_binary.multiply(total, _math_unary.exp(op.outputs[0])))]


def _softmax_axis(logits, axis, dim):
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        return -1
    if isinstance(axis, Tensor):
        value = constant_value(axis)
        if value is None:
            raise TypeError("softmax's axis must be a Python int or a constant tensor")
        axis = value
    axis = int(np.asarray(axis).reshape(()))
    rank = logits.shape.rank
    if rank is not None:
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(
                None, None, f"Dimension ({axis}) must be in the range [{-rank}, {rank}) where "
                            f"{rank} is the number of dimensions in the input.")
        axis %= rank
        if axis == rank - 1:
            axis = -1
    return axis


def softmax(logits, axis=None, name=None, dim=None):
    """Softmax along ``axis``: ``exp(logits) / reduce_sum(exp(logits), axis)``.

    Computed stably (the maximum is subtracted first).

    Args:
        logits: a non-empty-rank float tensor.
        axis: the dimension softmax runs over (default -1, the last).
        name: op name (default ``"Softmax"``).
        dim: deprecated alias of ``axis``.

    Raises:
        InvalidArgumentError: ``axis`` out of range for ``logits``' rank.
        ValueError: both ``axis`` and ``dim`` given.
        TypeError: non-float ``logits``.
    """
    logits = convert_to_tensor(logits)
    axis = _softmax_axis(logits, axis, dim)
    return apply_op("Softmax", [logits], {"axis": axis}, name=name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """Log-softmax along ``axis``: ``logits - log(reduce_sum(exp(logits), axis))``.

    Args:
        logits: a float tensor of rank >= 1.
        axis: the dimension it runs over (default -1, the last).
        name: op name (default ``"LogSoftmax"``).
        dim: deprecated alias of ``axis``.

    Raises:
        InvalidArgumentError: ``axis`` out of range for ``logits``' rank.
        ValueError: both ``axis`` and ``dim`` given.
    """
    logits = convert_to_tensor(logits)
    axis = _softmax_axis(logits, axis, dim)
    return apply_op("LogSoftmax", [logits], {"axis": axis}, name=name)
