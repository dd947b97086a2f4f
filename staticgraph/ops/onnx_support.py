"""Which dtypes onnxruntime's CPU kernels lack, per ONNX operator, and the dtype to compute in.

ONNX lowerings may only emit standard operators, and onnxruntime registers CPU
kernels for some (operator, dtype) pairs only. :data:`LACKS` is the one table of the
gaps the lowerings work around; a lowering either computes in :func:`work_dtype`
(a dtype the operator has, wider when one holds every value, see :data:`WIDER`) or,
where :func:`lacks` says so, emits a formulation of its own (e.g. float64 ``Atan``).

The entries hold for onnxruntime 1.16 and later (newer releases fill some gaps, such
as int8/int16 ``Neg``; the table stays conservative so exported models run on all).
Only staticgraph's dtypes are listed (no uint16/32/64). Choices that are not kernel
gaps, such as accumulating float16 sums in float32 as the numpy kernels do, are
made by the lowerings themselves.

Example::

    work = work_dtype("CumSum", dtypes.int8)        # "int32"
    out = via(ctx, "Max", [x, y], dtypes.int16)     # Max computed in int32, cast back
"""

from __future__ import annotations

from ..graphlib.dtypes import dtype_name

__all__ = ["LACKS", "WIDER", "lacks", "work_dtype", "via"]

_NO_SMALL_INTS = ("int8", "int16", "uint8", "bool")
_NO_FLOAT64 = ("float64",)

LACKS: dict[str, tuple[str, ...]] = {
    # elementwise math (ops/math)
    "Neg": ("int8", "int16", "uint8", "bool"),
    "IsInf": ("float16",),
    "Erf": _NO_FLOAT64,
    "Tan": _NO_FLOAT64, "Asin": _NO_FLOAT64, "Acos": _NO_FLOAT64, "Atan": _NO_FLOAT64,
    "Sinh": _NO_FLOAT64, "Cosh": _NO_FLOAT64, "Asinh": _NO_FLOAT64, "Acosh": _NO_FLOAT64,
    "Atanh": _NO_FLOAT64,
    "Max": ("int16", "bool"), "Min": ("int16", "bool"),
    "Where": ("int16", "bool"),
    "Sum": ("int8", "int16", "int32", "int64", "uint8", "bool"),
    "CumSum": _NO_SMALL_INTS,
    "NonZero": ("int8", "int16", "float64"),
    # reductions
    "ReduceSum": _NO_SMALL_INTS, "ReduceMean": _NO_SMALL_INTS, "ReduceProd": _NO_SMALL_INTS,
    "ReduceMax": ("int16", "bool"), "ReduceMin": ("int16", "bool"),
    "ArgMax": ("int16", "bool"), "ArgMin": ("int16", "bool"),
    # linear algebra, activations, convolution and pooling
    "MatMul": _NO_SMALL_INTS,
    "Relu": ("int16", "uint8", "bool"),
    "Clip": ("int16", "bool"),
    "Conv": _NO_FLOAT64, "ConvTranspose": _NO_FLOAT64, "AveragePool": _NO_FLOAT64,
    "MaxPool": ("int16", "int32", "int64", "bool"),
    # data movement ("ScatterND" with reduction="add", the only form lowerings use)
    "Pad": ("int16",),
    "ScatterND": ("float16",),
}
"""ONNX operator -> the dtype names onnxruntime's CPU kernels lack (operators not
listed have kernels for every dtype the lowerings hand them)."""

_SMALL_INTS = ("int32", "int64", "float32", "float64")
WIDER: dict[str, tuple[str, ...]] = {
    "float16": ("float32", "float64"), "float32": ("float64",),
    "bool": ("uint8",) + _SMALL_INTS, "int8": _SMALL_INTS, "uint8": _SMALL_INTS,
    "int16": _SMALL_INTS, "int32": ("int64", "float64"), "int64": ("float64",),
}
"""dtype -> wider dtypes that hold its values, narrowest first (int64 -> float64 is
exact up to 2**53 only)."""

# Last resorts that lose precision: float64 computed in float32 (Erf, Conv: about 1e-7
# relative accuracy instead of 1e-16).
_NARROWER = {"float64": ("float32",)}


def lacks(onnx_op: str, dtype) -> bool:
    """True when onnxruntime has no CPU kernel of ``onnx_op`` for ``dtype``.

    Args:
        onnx_op: an ONNX operator name such as ``"Atan"``.
        dtype: a DType, numpy dtype or dtype name.
    """
    return dtype_name(dtype) in LACKS.get(onnx_op, ())


def work_dtype(onnx_ops, dtype) -> str:
    """The dtype name to compute ``onnx_ops`` in for values of ``dtype``.

    ``dtype`` itself when every operator has a kernel for it, else the narrowest
    dtype of :data:`WIDER` they all have, else float32 for float64 (lossy), else
    ``dtype`` (onnxruntime then names the missing kernel).

    Args:
        onnx_ops: one ONNX operator name, or a tuple of them (a chain computed in one
            dtype, such as a fused op's ``MatMul``, ``Add`` and ``Relu``).
        dtype: a DType, numpy dtype or dtype name.

    Example:
        >>> work_dtype("Where", "bool")
        'uint8'
    """
    ops = (onnx_ops,) if isinstance(onnx_ops, str) else tuple(onnx_ops)
    name = dtype_name(dtype)
    for candidate in (name,) + WIDER.get(name, ()) + _NARROWER.get(name, ()):
        if not any(candidate in LACKS.get(op, ()) for op in ops):
            return candidate
    return name


def via(ctx, onnx_op: str, inputs, dtype, cast_back=True, **attrs) -> str:
    """One ``onnx_op`` node on ``inputs`` of ``dtype``, computed in :func:`work_dtype`.

    Inputs (value names; empty optional inputs stay empty) are cast to the work dtype
    and, with ``cast_back``, the single output back to ``dtype``; without a gap no
    cast is emitted.

    Args:
        ctx: the lowering context.
        onnx_op: the ONNX operator.
        inputs: ONNX value names, all of ``dtype``.
        dtype: the inputs' dtype.
        cast_back: False for operators whose output dtype is not their inputs'
            (comparisons, ``IsInf``: bool).
        **attrs: the node's attributes.
    """
    work = work_dtype(onnx_op, dtype)
    if work == dtype_name(dtype):
        return ctx.node(onnx_op, list(inputs), **attrs)
    out = ctx.node(onnx_op, [ctx.cast(x, work) if x else x for x in inputs], **attrs)
    return ctx.cast(out, dtype) if cast_back else out
