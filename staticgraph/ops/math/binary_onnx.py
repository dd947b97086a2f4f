"""ONNX lowering helpers of the elementwise math ops (binary.py, compare.py, misc.py).

The ``lower``/``onnx`` methods stay on the op classes; the helpers that need more
than a node or two live here, working around the dtypes onnxruntime's CPU kernels
lack (:data:`~staticgraph.ops.onnx_support.LACKS`: e.g. no int16 ``Where``, no
integer ``Sum``). Every helper takes the ONNX value names of its inputs and the
staticgraph DType they share, and returns the name of its result.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper as onnx_helper

from ...graphlib.dtypes import dtype_name
from .. import onnx_support

__all__ = ["where", "floor_div", "floor_mod", "int_pow", "atan2", "add_n", "cumsum",
           "cumprod", "nonzero_coordinates", "select"]

# Above this static axis length Cumprod scans in log2(n) steps instead of a
# triangular [n, n] mask (which needs n times the input's memory).
_CUMPROD_MASK_MAX = 64


def where(ctx, cond, x, y, dtype):
    """``Where(cond, x, y)`` for values of any dtype (with numpy broadcasting)."""
    work = onnx_support.work_dtype("Where", dtype)
    if work == dtype_name(dtype):
        return ctx.node("Where", [cond, x, y])
    out = ctx.node("Where", [cond, ctx.cast(x, work), ctx.cast(y, work)])
    return ctx.cast(out, dtype)


def _signs_differ(ctx, r, y, dtype):
    """bool: ``r`` is nonzero and its sign differs from ``y``'s (exact, no overflow)."""
    product = ctx.node("Mul", [ctx.node("Sign", [r]), ctx.node("Sign", [y])])
    return ctx.node("Less", [product, ctx.scalar(0, dtype)])


def floor_div(ctx, x, y, dtype):
    """``floor(x / y)``: ``Floor(Div)`` for floats, truncating ``Div`` fixed for ints.

    For signed integers the truncated quotient is one too large where the remainder
    is nonzero and its sign differs from the divisor's (Python's ``//``).
    """
    if dtype.is_floating:
        return ctx.node("Floor", [ctx.node("Div", [x, y])])
    q = ctx.node("Div", [x, y])
    if dtype.is_unsigned:
        return q
    r = ctx.node("Mod", [x, y], fmod=1)
    return ctx.node("Sub", [q, ctx.cast(_signs_differ(ctx, r, y, dtype), dtype)])


def floor_mod(ctx, x, y, dtype):
    """Python's ``x % y`` (the sign of ``y``) as numpy's ``remainder``.

    Integers: ``Mod(fmod=0)``. Floats (where onnxruntime only has ``fmod=1``): the C
    remainder plus ``y`` where it is nonzero and its sign differs from ``y``'s, as
    numpy's ``divmod`` computes it.
    """
    if not dtype.is_floating:
        return ctx.node("Mod", [x, y], fmod=0)
    r = ctx.node("Mod", [x, y], fmod=1)
    return ctx.node("Where", [_signs_differ(ctx, r, y, dtype), ctx.node("Add", [r, y]), r])


def int_pow(ctx, x, y, dtype):
    """Integer ``x ** y`` computed in int64 (onnxruntime's integer Pow goes through
    double: exact while ``|result| < 2**53``; narrower types then wrap as numpy's)."""
    if dtype_name(dtype) == "int64":
        return ctx.node("Pow", [x, y])
    out = ctx.node("Pow", [ctx.cast(x, np.int64), ctx.cast(y, np.int64)])
    return ctx.cast(out, dtype)


def _sign_bit(ctx, v, np_dtype):
    """bool: ``v`` is negative or ``-0.0`` (false for NaN)."""
    zero = ctx.scalar(0, np_dtype)
    negative = ctx.node("Less", [v, zero])
    neg_zero = ctx.node("Less", [ctx.node("Reciprocal", [v]), zero])  # 1 / -0. = -inf
    return ctx.node("Or", [negative, neg_zero])


def atan2(ctx, y, x, dtype):
    """``atan2(y, x)`` as numpy: quadrants, signed zeros, infinities and NaN.

    The angle of ``(|x|, |y|)`` is ``atan(min / max)`` (in ``[0, pi/4]``), reflected
    to ``pi/2 - a`` when ``|y| > |x|``, to ``pi - a`` when ``x`` has its sign bit set,
    and negated when ``y`` has. Both zero gives ``min / max = 0``, both infinite 1.
    onnxruntime has no float64 ``Atan``: float64 takes the float32 angle ``a0`` and
    one exact correction ``a0 + (u cos a0 - sin a0) / (cos a0 + u sin a0)``.
    float16 computes in float32, as numpy does.
    """
    out_dtype = dtype
    if dtype_name(dtype) == "float16":
        y, x, dtype = ctx.cast(y, np.float32), ctx.cast(x, np.float32), np.dtype(np.float32)
    np_dtype = np.dtype(getattr(dtype, "np_dtype", dtype))
    const = lambda v: ctx.scalar(v, np_dtype)  # noqa: E731
    ax, ay = ctx.node("Abs", [x]), ctx.node("Abs", [y])
    lo, hi = ctx.node("Min", [ax, ay]), ctx.node("Max", [ax, ay])
    u = ctx.node("Div", [lo, hi])  # NaN for 0/0, inf/inf and NaN inputs
    u = ctx.node("Where", [ctx.node("Equal", [hi, const(0)]), const(0), u])
    u = ctx.node("Where", [ctx.node("Equal", [lo, const(np.inf)]), const(1), u])
    if np_dtype == np.float32:
        a = ctx.node("Atan", [u])
    else:
        a0 = ctx.cast(ctx.node("Atan", [ctx.cast(u, np.float32)]), np_dtype)
        s, c = ctx.node("Sin", [a0]), ctx.node("Cos", [a0])
        num = ctx.node("Sub", [ctx.node("Mul", [u, c]), s])
        den = ctx.node("Add", [c, ctx.node("Mul", [u, s])])
        a = ctx.node("Add", [a0, ctx.node("Div", [num, den])])
    a = ctx.node("Where", [ctx.node("Greater", [ay, ax]),
                           ctx.node("Sub", [const(np.pi / 2), a]), a])
    a = ctx.node("Where", [_sign_bit(ctx, x, np_dtype), ctx.node("Sub", [const(np.pi), a]), a])
    a = ctx.node("Where", [_sign_bit(ctx, y, np_dtype), ctx.node("Neg", [a]), a])
    return ctx.cast(a, out_dtype, np_dtype)


def add_n(ctx, inputs, dtype):
    """Elementwise sum of same-shape values: one ``Sum`` for floats, ``Add``\\ s for ints
    (onnxruntime has no integer ``Sum``)."""
    if len(inputs) == 1:
        return ctx.node("Identity", [inputs[0]])
    if not onnx_support.lacks("Sum", dtype):
        return ctx.node("Sum", list(inputs))
    out = inputs[0]
    for v in inputs[1:]:
        out = ctx.node("Add", [out, v])
    return out


def cumsum(ctx, x, axis, dtype, exclusive, reverse):
    """ONNX ``CumSum`` (TF's exclusive/reverse attributes); 8/16-bit ints in int32."""
    work = onnx_support.work_dtype("CumSum", dtype)
    out = ctx.node("CumSum", [ctx.cast(x, work, dtype), axis], exclusive=int(exclusive),
                   reverse=int(reverse))
    return ctx.cast(out, dtype, work)


def cumprod(ctx, x, axis, n, rank, dtype, exclusive, reverse):
    """Cumulative product along the non-negative ``axis`` of a rank-``rank`` value.

    ONNX has no CumProd. With a static axis length ``n`` above ``_CUMPROD_MASK_MAX``:
    a Hillis-Steele scan (``log2(n)`` steps of Pad/Slice/Mul). Otherwise (also when
    ``n`` is None, unknown): ``ReduceProd`` of ``x`` expanded to ``[.., n_out, n_in, ..]``
    with 1 where the triangular mask leaves an input out.
    """
    work = np.dtype(onnx_support.work_dtype(("ReduceProd", "Where", "Mul"), dtype))
    wx = ctx.cast(x, work, dtype)
    np_work = work
    one = ctx.scalar(1, np_work)
    if n is not None and n > _CUMPROD_MASK_MAX:
        out = _scan_product(ctx, wx, axis, n, one, exclusive, reverse)
        return ctx.cast(out, dtype, work)
    trailing = rank - axis - 1
    if n is not None:
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        keep = {(False, False): j <= i, (True, False): j < i,
                (False, True): j >= i, (True, True): j > i}[(exclusive, reverse)]
        mask = ctx.const(keep.reshape(keep.shape + (1,) * trailing), np.bool_)
    else:
        length = ctx.node("Squeeze", [ctx.node("Shape", [x], start=axis, end=axis + 1)])
        r = ctx.node("Range", [ctx.scalar(0, np.int64), length, ctx.scalar(1, np.int64)])
        i = ctx.node("Unsqueeze", [r, ctx.int64s([1])])
        j = ctx.node("Unsqueeze", [r, ctx.int64s([0])])
        compare = {(False, False): "GreaterOrEqual", (True, False): "Greater",
                   (False, True): "LessOrEqual", (True, True): "Less"}[(exclusive, reverse)]
        mask = ctx.node(compare, [i, j])
        if trailing:
            mask = ctx.node("Unsqueeze", [mask, ctx.int64s(range(2, 2 + trailing))])
    expanded = ctx.node("Unsqueeze", [wx, ctx.int64s([axis])])
    masked = ctx.node("Where", [mask, expanded, one])
    out = ctx.node("ReduceProd", [masked, ctx.int64s([axis + 1])], keepdims=0)
    return ctx.cast(out, dtype, work)


def _shifted(ctx, x, axis, n, shift, one, reverse):
    """``x`` moved ``shift`` places along ``axis`` (toward the end unless ``reverse``),
    filled with ones."""
    axes = ctx.int64s([axis])
    pads = ctx.int64s([0, shift] if reverse else [shift, 0])
    padded = ctx.node("Pad", [x, pads, one, axes])
    start = shift if reverse else 0
    return ctx.node("Slice", [padded, ctx.int64s([start]), ctx.int64s([start + n]), axes])


def _scan_product(ctx, x, axis, n, one, exclusive, reverse):
    out = _shifted(ctx, x, axis, n, 1, one, reverse) if exclusive else x
    shift = 1
    while shift < n:
        out = ctx.node("Mul", [out, _shifted(ctx, out, axis, n, shift, one, reverse)])
        shift *= 2
    return out


def nonzero_coordinates(ctx, cond, dtype, rank):
    """int64 ``[num_true, rank]`` coordinates of the nonzero elements (``np.argwhere``)."""
    if onnx_support.lacks("NonZero", dtype):
        cond = ctx.cast(cond, np.bool_)  # nonzero (NaN included) is True
    out = ctx.node("Transpose", [ctx.node("NonZero", [cond])])
    if rank == 0:  # NonZero treats a scalar as one element: keep no coordinate column
        out = ctx.node("Slice", [out, ctx.int64s([0]), ctx.int64s([0]), ctx.int64s([1])])
    return out


def select(ctx, cond, x, y, cond_rank, data_rank, dtype):
    """TF1's ``Select``: a rank-1 ``cond`` picks whole rows of higher-rank ``x``/``y``;
    a scalar or same-shape ``cond`` selects elementwise."""
    if cond_rank == 1 and data_rank is not None and data_rank > 1:
        cond = ctx.node("Unsqueeze", [cond, ctx.int64s(range(1, data_rank))])
    elif cond_rank is None or (data_rank is None and cond_rank == 1):
        # A rank unknown: give cond x's rank with trailing ones, [n] -> [n, 1, .., 1]
        # (a scalar or same-rank cond keeps its shape or broadcasts the same way).
        cond_shape = ctx.node("Shape", [cond])
        data_rank_1d = ctx.node("Shape", [ctx.node("Shape", [x])])
        ones = ctx.node("ConstantOfShape", [data_rank_1d],
                        value=onnx_helper.make_tensor("one", onnx.TensorProto.INT64, [1], [1]))
        tail = ctx.node("Slice", [ones, ctx.node("Shape", [cond_shape]),
                                  ctx.int64s([np.iinfo(np.int64).max])])
        cond = ctx.node("Reshape", [cond, ctx.node("Concat", [cond_shape, tail], axis=0)])
    return where(ctx, cond, x, y, dtype)
