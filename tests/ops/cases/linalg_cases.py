"""Cases for linear algebra: MatMul, BatchMatMulV2, Tensordot."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(11)
A = R.standard_normal((2, 3)).astype(np.float32)
B = R.standard_normal((3, 4)).astype(np.float32)
AT = np.ascontiguousarray(A.T)
BT = np.ascontiguousarray(B.T)
D = R.standard_normal((4, 3))
E = R.standard_normal((3, 5))
IA = R.integers(-5, 5, (2, 3)).astype(np.int32)
IB = R.integers(-5, 5, (3, 2)).astype(np.int32)
X3 = R.standard_normal((2, 2, 3)).astype(np.float32)
Y3 = R.standard_normal((2, 3, 4)).astype(np.float32)
Y1 = R.standard_normal((1, 3, 4)).astype(np.float32)
X4 = R.standard_normal((3, 1, 2, 3)).astype(np.float32)
T3 = R.standard_normal((2, 3, 4)).astype(np.float32)
T2 = R.standard_normal((4, 3)).astype(np.float32)
T4 = R.standard_normal((4, 5, 2)).astype(np.float32)
TI = R.integers(-3, 3, (2, 3)).astype(np.int64)


def _mm(a, b):
    """Matrix product by explicit sums (independent of np.matmul)."""
    return (a[..., :, :, None] * b[..., None, :, :]).sum(-2)


CASES = [
    Case("MatMul", lambda a, b: tf.matmul(a, b), [A, B], _mm,
         bad=[[(2, 3), (4, 5)], [(3,), (3, 4)]], bad_dtypes=[[np.float32, np.float64]],
         grad2=True),
    Case("MatMul", lambda a, b: tf.matmul(a, b, transpose_a=True), [AT, B],
         lambda a, b: _mm(a.T, b), id="transpose_a", bad=[[(2, 3), (3, 4)]], grad2=True),
    Case("MatMul", lambda a, b: tf.matmul(a, b, transpose_b=True), [A, BT],
         lambda a, b: _mm(a, b.T), id="transpose_b", bad=[[(2, 3), (3, 4)]], grad2=True),
    Case("MatMul", lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True), [AT, BT],
         lambda a, b: _mm(a.T, b.T), id="adjoint_both", grad2=True),
    Case("MatMul", lambda a, b: a @ b, [D, E], _mm, id="float64_operator"),
    Case("MatMul", lambda a, b: tf.matmul(a, b), [IA, IB], lambda a, b: _mm(a, b), id="int32",
         bad_dtypes=[[np.bool_, np.bool_]]),
    Case("MatMul", lambda a, b: tf.matmul(a, b), [np.zeros((0, 3), np.float32), B],
         lambda a, b: np.zeros((0, 4), np.float32), id="empty"),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b), [X3, Y3], _mm,
         bad=[[(2, 2, 3), (2, 4, 4)], [(2, 2, 3), (3, 3, 4)], [(3,), (2, 3, 4)]],
         bad_dtypes=[[np.float32, np.int32]], grad2=True),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b), [X3, Y1], _mm, id="broadcast_batch"),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b), [X4, Y3], _mm, id="broadcast_rank"),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b), [X3, B], _mm, id="rank3_rank2"),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b, transpose_a=True, adjoint_b=True),
         [np.swapaxes(X3, 1, 2).copy(), np.swapaxes(Y3, 1, 2).copy()],
         lambda a, b: _mm(np.swapaxes(a, 1, 2), np.swapaxes(b, 1, 2)), id="adjoints",
         grad2=True),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b, transpose_a=True), [A, X3],
         lambda a, b: _mm(a.T, b), id="rank2_rank3_transpose_a"),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b, transpose_b=True),
         [X4, np.swapaxes(Y1, 1, 2).copy()],
         lambda a, b: _mm(a, np.swapaxes(b, 1, 2)), id="broadcast_both_transpose_b"),
    Case("BatchMatMulV2", lambda a, b: tf.matmul(a, b),
         [R.integers(-4, 4, (2, 2, 3)).astype(np.int32),
          R.integers(-4, 4, (2, 3, 2)).astype(np.int32)], _mm, id="int32"),
    Case("Tensordot", lambda a, b: tf.tensordot(a, b, 1), [T3, T2],
         lambda a, b: (a[..., :, None] * b).sum(-2), bad=[[(2, 3, 5), (4, 3)]],
         bad_dtypes=[[np.float32, np.float64]]),
    Case("Tensordot", lambda a, b: tf.tensordot(a, b, [[1, 2], [1, 0]]), [T3, T2],
         lambda a, b: np.einsum("ijk,kj->i", a, b), id="pair_lists", grad2=True),
    Case("Tensordot", lambda a, b: tf.tensordot(a, b, [[0, 2], [2, 0]]), [T3, T4],
         lambda a, b: np.einsum("ijk,kli->jl", a, b), id="unordered_axes", grad2=True),
    Case("Tensordot", lambda a, b: tf.tensordot(a, b, (-1, 0)), [T3, T2],
         lambda a, b: np.einsum("ijk,kl->ijl", a, b), id="pair_ints_negative"),
    Case("Tensordot", lambda a, b: tf.tensordot(a, b, 0), [TI, TI[0]],
         lambda a, b: a[:, :, None] * b, id="outer_int64"),
    Case("Tensordot", lambda a, b: tf.tensordot(a, b, 2), [TI, TI],
         lambda a, b: (a * b).sum(), id="full_contraction"),
]
