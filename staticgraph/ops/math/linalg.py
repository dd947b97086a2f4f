"""Linear algebra: ``matmul`` (ops ``MatMul`` and ``BatchMatMulV2``) and ``tensordot``.

``MatMul`` multiplies two rank-2 tensors; ``BatchMatMulV2`` multiplies the last two
dimensions of tensors of rank >= 2, broadcasting the leading (batch) dimensions, as
TF1's ``tf.matmul`` chooses between them. The kernels call BLAS through numpy on
transposed views, never copying their inputs.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graphlib import TensorShape, broadcast_static, dtypes
from ..array import combine as _array_combine
from ..array import shape as _array_shape
from ..array import slicing as _array_slicing
from . import reduction as _reduction
from ..convert import convert_same_dtype
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import check_same_dtype, require_dtype

__all__ = ["matmul", "tensordot"]

MATMUL_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _check_inner(k1, k2):
    if k1 is not None and k2 is not None and k1 != k2:
        raise ValueError(f"Dimensions must be equal, but are {k1} and {k2}")


def _check_types(a, b):
    check_same_dtype(a, b, names=("a", "b"))
    require_dtype(a, MATMUL_TYPES, "a")


@register
class MatMul(OpDef):
    """``a @ b`` of two matrices, each optionally transposed first."""

    attrs = {"transpose_a": False, "transpose_b": False}

    def infer(self, a, b, *, transpose_a, transpose_b):
        _check_types(a, b)
        for t in (a, b):
            if t.shape.rank is not None and t.shape.rank != 2:
                raise ValueError(f"Shape must be rank 2 but is rank {t.shape.rank}")
        m, ka = a.shape.with_rank(2).raw
        kb, n = b.shape.with_rank(2).raw
        if transpose_a:
            m, ka = ka, m
        if transpose_b:
            kb, n = n, kb
        _check_inner(ka, kb)
        return Spec(a.dtype, (m, n))

    def make_kernel(self, op, runtime):
        """``compute`` with the transposes chosen once (tests/ops/test_kernels.py checks
        they agree): BLAS on transposed views, no per-call branching."""
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
        if ta and tb:
            return lambda a, b: a.T.dot(b.T)
        if ta:
            return lambda a, b: a.T.dot(b)
        if tb:
            return lambda a, b: a.dot(b.T)
        return np.ndarray.dot

    @staticmethod
    def compute(a, b, transpose_a=False, transpose_b=False):
        return (a.T if transpose_a else a).dot(b.T if transpose_b else b)

    def grad(self, op, dy):
        a, b = op.inputs
        da, db = _matmul_grads(op.type, a, b, dy, op.attrs["transpose_a"],
                               op.attrs["transpose_b"])
        return [da, db]

    def onnx(self, ctx, op, a, b):
        return _onnx_matmul(ctx, op, a, b, op.attrs["transpose_a"], op.attrs["transpose_b"])


@register
class BatchMatMulV2(OpDef):
    """Batched ``x @ y`` over the last two dimensions, broadcasting batch dimensions."""

    default_name = "MatMul"
    attrs = {"adj_x": False, "adj_y": False}

    def infer(self, x, y, *, adj_x, adj_y):
        _check_types(x, y)
        for t in (x, y):
            if t.shape.rank is not None and t.shape.rank < 2:
                raise ValueError(f"Shape must be at least rank 2 but is rank {t.shape.rank}")
        if x.shape.rank is None or y.shape.rank is None:
            return Spec(x.dtype, TensorShape(None))
        xd, yd = x.shape.raw, y.shape.raw
        m, kx = xd[-2:] if not adj_x else xd[-1:-3:-1]
        ky, n = yd[-2:] if not adj_y else yd[-1:-3:-1]
        _check_inner(kx, ky)
        batch = broadcast_static(TensorShape(xd[:-2]), TensorShape(yd[:-2]))
        return Spec(x.dtype, batch.concatenate([m, n]))

    def make_kernel(self, op, runtime):
        """``compute`` with the adjoints chosen once (checked against it by
        tests/ops/test_kernels.py)."""
        ax, ay = op.attrs["adj_x"], op.attrs["adj_y"]
        if ax and ay:
            return lambda x, y: np.matmul(x.mT, y.mT)
        if ax:
            return lambda x, y: np.matmul(x.mT, y)
        if ay:
            return lambda x, y: np.matmul(x, y.mT)
        return np.matmul

    @staticmethod
    def compute(x, y, adj_x=False, adj_y=False):
        return np.matmul(x.mT if adj_x else x, y.mT if adj_y else y)

    # Gradients come in the broadcast batch shape; the engine sums them over the
    # broadcast batch dimensions (the matrix dimensions always match).
    grad_broadcasts = True

    def grad(self, op, dy):
        x, y = op.inputs
        dx, dy_ = _matmul_grads(op.type, x, y, dy, op.attrs["adj_x"], op.attrs["adj_y"])
        return [dx, dy_]

    def onnx(self, ctx, op, x, y):
        return _onnx_matmul(ctx, op, x, y, op.attrs["adj_x"], op.attrs["adj_y"])


def _onnx_matmul(ctx, op, a, b, ta, tb):
    """``a @ b`` with the last two dimensions of either transposed first: one MatMul,
    or one Gemm (its transposes fused) for float matrices."""
    if not ta and not tb:
        return ctx.node("MatMul", [a, b])
    ra, rb = op.inputs[0].shape.rank, op.inputs[1].shape.rank
    if ra == 2 and rb == 2 and op.inputs[0].dtype.is_floating:
        return ctx.node("Gemm", [a, b], transA=int(ta), transB=int(tb))
    return ctx.node("MatMul", [_swap_last(ctx, a, ra) if ta else a,
                               _swap_last(ctx, b, rb) if tb else b])


def _swap_last(ctx, x, rank):
    """``x`` with its last two dimensions swapped."""
    if rank is None:
        return ctx.node("Einsum", [x], equation="...ij->...ji")
    perm = list(range(rank))
    perm[-2:] = perm[-1], perm[-2]
    return ctx.node("Transpose", [x], perm=perm)


def _mm(op_type, a, b, ta, tb):
    if op_type == "MatMul":
        return apply_op("MatMul", [a, b], {"transpose_a": ta, "transpose_b": tb})
    return apply_op("BatchMatMulV2", [a, b], {"adj_x": ta, "adj_y": tb})


def _matmul_grads(op_type, a, b, g, ta, tb):
    """TF1's MatMul gradients: products with transpose flags, never transpose ops."""
    if not ta and not tb:
        return _mm(op_type, g, b, False, True), _mm(op_type, a, g, True, False)
    if not ta and tb:
        return _mm(op_type, g, b, False, False), _mm(op_type, g, a, True, False)
    if ta and not tb:
        return _mm(op_type, b, g, False, True), _mm(op_type, a, g, False, False)
    return _mm(op_type, b, g, True, True), _mm(op_type, g, a, True, True)


@register
class Tensordot(OpDef):
    """Sum of products of ``a`` and ``b`` over ``a_axes`` and ``b_axes`` (numpy tensordot).

    The result's dimensions are ``a``'s free dimensions then ``b``'s. With
    ``a_axes=None``, ``b_axes`` is an int ``n``: the last ``n`` axes of ``a`` with the
    first ``n`` of ``b`` (used when ``a``'s rank is unknown while declaring).
    """

    attrs = {"a_axes": None, "b_axes": ()}

    def infer(self, a, b, *, a_axes, b_axes):
        _check_types(a, b)
        ad, bd = a.shape.raw, b.shape.raw
        if a_axes is None:  # int form
            n = b_axes
            if ad is None:
                if bd is not None and n > len(bd):
                    raise ValueError(f"'axes' must not be larger than the number of "
                                     f"dimensions of tensor b (rank {len(bd)}).")
                return Spec(a.dtype, TensorShape(None))
            a_axes, b_axes = tuple(range(len(ad) - n, len(ad))), tuple(range(n))
        a_axes = _norm_axes(a_axes, ad, "a")
        b_axes = _norm_axes(b_axes, bd, "b")
        if ad is None or bd is None:
            return Spec(a.dtype, TensorShape(None))
        for i, j in zip(a_axes, b_axes):
            _check_inner(ad[i], bd[j])
        free_a = [d for i, d in enumerate(ad) if i not in a_axes]
        free_b = [d for j, d in enumerate(bd) if j not in b_axes]
        return Spec(a.dtype, free_a + free_b)

    @staticmethod
    def compute(a, b, a_axes=None, b_axes=()):
        if a_axes is None:
            return np.tensordot(a, b, axes=b_axes)
        return np.tensordot(a, b, axes=(list(a_axes), list(b_axes)))

    def grad(self, op, dy):
        a, b = op.inputs
        a_axes, b_axes = op.attrs["a_axes"], op.attrs["b_axes"]
        if a_axes is None or a.shape.rank is None or b.shape.rank is None:
            return _tensordot_grads_flat(a, b, dy, a_axes, b_axes)
        ra, rb = a.shape.rank, b.shape.rank
        a_axes = [x % ra for x in a_axes]
        b_axes = [x % rb for x in b_axes]
        free_a = [i for i in range(ra) if i not in a_axes]
        free_b = [j for j in range(rb) if j not in b_axes]
        nfa = len(free_a)
        # da: contract dy's b-part with b's free axes; the result holds a's free axes,
        # then a's contracted axes in the order of b's remaining (contracted) axes.
        da = _tensordot(dy, b, list(range(nfa, nfa + len(free_b))), free_b)
        da = _permute_back(da, free_a + [a_axes[b_axes.index(j)] for j in sorted(b_axes)])
        db = _tensordot(a, dy, free_a, list(range(nfa)))
        db = _permute_back(db, [b_axes[a_axes.index(i)] for i in sorted(a_axes)] + free_b)
        return [da, db]

    def onnx(self, ctx, op, a, b):
        # One Einsum (onnxruntime turns it into transposes and a MatMul).
        a_axes, b_axes = op.attrs["a_axes"], op.attrs["b_axes"]
        ra, rb = op.inputs[0].shape.rank, op.inputs[1].shape.rank
        if a_axes is None:  # the last b_axes axes of a (of unknown rank), the first of b
            n = b_axes
            if rb is None:
                return _onnx_tensordot_flat(ctx, a, b, n)
            letters = _LETTERS[:rb]
            equation = f"...{letters[:n]},{letters}->...{letters[n:]}"
            return ctx.node("Einsum", [a, b], equation=equation)
        a_axes = [x % ra for x in a_axes]
        b_axes = [x % rb for x in b_axes]
        la = list(_LETTERS[:ra])
        lb = list(_LETTERS[ra:ra + rb])
        for i, j in zip(a_axes, b_axes):
            lb[j] = la[i]
        out = [la[i] for i in range(ra) if i not in a_axes] + \
              [lb[j] for j in range(rb) if j not in b_axes]
        equation = f"{''.join(la)},{''.join(lb)}->{''.join(out)}"
        return ctx.node("Einsum", [a, b], equation=equation)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _onnx_tensordot_flat(ctx, a, b, n):
    """``tensordot(a, b, n)`` for operands of unknown rank, through one MatMul."""
    inner = ctx.node("ReduceProd", [ctx.node("Shape", [b], end=n)], keepdims=1)
    a2 = ctx.node("Reshape", [a, ctx.node("Concat", [ctx.int64s([-1]), inner], axis=0)])
    b2 = ctx.node("Reshape", [b, ctx.node("Concat", [inner, ctx.int64s([-1])], axis=0)])
    lead = ctx.node("Shape", [a], end=-n) if n else ctx.shape(a)
    shape = ctx.node("Concat", [lead, ctx.node("Shape", [b], start=n)], axis=0)
    return ctx.node("Reshape", [ctx.node("MatMul", [a2, b2]), shape])


def _tensordot(a, b, a_axes, b_axes):
    return apply_op("Tensordot", [a, b], {"a_axes": tuple(a_axes), "b_axes": tuple(b_axes)})


def _permute_back(t, current):
    """``t``, whose dimension ``k`` is the operand's dimension ``current[k]``, in order."""
    if current == sorted(current):
        return t
    return _array_shape.transpose(t, [int(i) for i in np.argsort(current)])


def _tensordot_grads_flat(a, b, dy, a_axes, b_axes):
    """Gradients of ``tensordot(a, b, n)`` (last ``n`` axes of ``a`` with the first ``n``
    of ``b``) through matrices, for operands of unknown rank."""
    n = b_axes if a_axes is None else len(b_axes)
    if a_axes is not None:  # the explicit form reaches here only with an unknown rank
        ra, rb = a.shape.rank, b.shape.rank
        if ra is None or rb is None or list(a_axes) != list(range(ra - n, ra)) \
                or list(b_axes) != list(range(n)):
            raise ValueError("tensordot gradients need known ranks for explicit axes")
    reshape, stack = _array_shape.reshape, _array_combine.stack
    b_shape = _array_shape.shape(b)
    inner = _reduction.reduce_prod(_array_slicing.slice(b_shape, [0], [n]))
    outer = _reduction.reduce_prod(_array_slicing.slice(b_shape, [n], [-1]))
    a2 = reshape(a, stack([-1, inner]))
    b2 = reshape(b, stack([inner, outer]))
    g2 = reshape(dy, stack([-1, outer]))
    da = reshape(_mm("MatMul", g2, b2, False, True), _array_shape.shape(a))
    db = reshape(_mm("MatMul", a2, g2, True, False), b_shape)
    return [da, db]


def _norm_axes(axes, dims, arg):
    if dims is None:
        return axes
    rank = len(dims)
    out = []
    for x in axes:
        if not -rank <= x < rank:
            raise ValueError(f"Axis {x} of tensor {arg} is out of range for rank {rank}")
        out.append(x % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"Repeated axis in tensordot axes of tensor {arg}: {list(axes)}")
    return tuple(out)


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix product ``a @ b`` (op ``MatMul``, or ``BatchMatMulV2`` for rank > 2).

    Args:
        a: tensor of rank >= 2 (float16/32/64, int32, int64).
        b: tensor of ``a``'s dtype and rank >= 2; batch dimensions broadcast.
        transpose_a, transpose_b: transpose the last two dimensions first.
        adjoint_a, adjoint_b: conjugate-transpose (the same as transposing for real types).
        a_is_sparse, b_is_sparse: hints; accepted and ignored.
        name: op name (default ``"MatMul"``).

    Raises:
        ValueError: inner dimensions differ ("Dimensions must be equal, but are 3 and 4"),
            rank below 2, or both transpose and adjoint given for one operand.
        TypeError: different or unsupported dtypes.

    Example:
        >>> tf.matmul(x, w)  # [batch, 784] @ [784, 10] -> [batch, 10]
    """
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    a, b = convert_same_dtype(a, b, names=("a", "b"), op_type="MatMul", name=name)
    ra, rb = a.shape.rank, b.shape.rank
    if ra is None or rb is None or ra > 2 or rb > 2:
        return apply_op("BatchMatMulV2", [a, b],
                        {"adj_x": bool(transpose_a or adjoint_a),
                         "adj_y": bool(transpose_b or adjoint_b)}, name=name)
    return apply_op("MatMul", [a, b],
                    {"transpose_a": bool(transpose_a or adjoint_a),
                     "transpose_b": bool(transpose_b or adjoint_b)}, name=name)


def _axes_list(x):
    if isinstance(x, numbers.Integral):
        return [int(x)]
    return [int(v) for v in np.asarray(x).reshape(-1)]


def tensordot(a, b, axes, name=None):
    """Tensor contraction of ``a`` and ``b`` over the given axes (op ``Tensordot``).

    Args:
        a: tensor (float or int32/int64).
        b: tensor of ``a``'s dtype.
        axes: an int ``N`` (the last N axes of ``a`` with the first N of ``b``), or a
            pair ``[a_axes, b_axes]`` of ints or equal-length lists of ints.
        name: op name (default ``"Tensordot"``).

    Raises:
        ValueError: ``axes`` malformed or out of range, or contracted dimensions differ.

    Example:
        >>> tf.tensordot(a, b, [[1], [0]])  # matmul for matrices
    """
    a, b = convert_same_dtype(a, b, names=("a", "b"))
    if isinstance(axes, numbers.Integral) or (isinstance(axes, np.ndarray) and axes.ndim == 0):
        n = int(axes)
        if n < 0:
            raise ValueError("'axes' must be at least 0.")
        ra = a.shape.rank
        if ra is not None:
            if n > ra:
                raise ValueError(f"'axes' must not be larger than the number of dimensions "
                                 f"of tensor {a!r}.")
            attrs = {"a_axes": tuple(range(ra - n, ra)), "b_axes": tuple(range(n))}
        else:
            attrs = {"a_axes": None, "b_axes": n}
    elif isinstance(axes, (list, tuple, np.ndarray)):
        if len(axes) != 2:
            raise ValueError("'axes' must be an integer or have length 2.")
        a_axes, b_axes = _axes_list(axes[0]), _axes_list(axes[1])
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes 'a' and 'b', "
                             f"{len(a_axes)} != {len(b_axes)}.")
        attrs = {"a_axes": tuple(a_axes), "b_axes": tuple(b_axes)}
    else:
        raise TypeError(f"'axes' must be an int or a pair of lists of ints, got {axes!r}")
    return apply_op("Tensordot", [a, b], attrs, name=name)
