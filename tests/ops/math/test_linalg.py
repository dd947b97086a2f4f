"""TF1 behaviour of matmul and tensordot beyond the per-op cases."""

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run


def test_inner_dimension_mismatch_message():
    a = tf.placeholder(tf.float32, [2, 3])
    b = tf.placeholder(tf.float32, [4, 5])
    with pytest.raises(ValueError) as info:
        tf.matmul(a, b)
    msg = str(info.value)
    assert "Dimensions must be equal, but are 3 and 4" in msg
    assert "'MatMul'" in msg and "[2,3], [4,5]" in msg
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 5"):
        tf.matmul(a, b, transpose_b=True)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.matmul(tf.placeholder(tf.float32, [7, 2, 3]), tf.placeholder(tf.float32, [4, 5]))


def test_rank_checks():
    with pytest.raises(ValueError, match="must be rank 2 but is rank 1"):
        tf.matmul(tf.placeholder(tf.float32, [3]), tf.placeholder(tf.float32, [3, 4]))
    with pytest.raises(ValueError, match="at least rank 2 but is rank 1"):
        tf.matmul(tf.placeholder(tf.float32, [2, 2, 3]), tf.placeholder(tf.float32, [3]))


def test_op_type_choice_and_names():
    a2 = tf.placeholder(tf.float32, [None, 3])
    w = tf.placeholder(tf.float32, [3, 4])
    a3 = tf.placeholder(tf.float32, [5, None, 3])
    au = tf.placeholder(tf.float32)
    assert tf.matmul(a2, w).op.type == "MatMul"
    assert tf.matmul(a3, w).op.type == "BatchMatMulV2"
    assert tf.matmul(au, w).op.type == "BatchMatMulV2"
    names = [tf.matmul(a2, w).op.name for _ in range(2)]
    assert names == ["MatMul_3", "MatMul_4"]  # BatchMatMulV2 is also named MatMul
    assert tf.matmul(a2, w, name="logits").op.name == "logits"
    assert (a2 @ w).op.name.startswith("matmul")


def test_static_shapes():
    x = tf.placeholder(tf.float32, [None, 2, 3])
    y = tf.placeholder(tf.float32, [5, 1, 3, 4])
    assert tf.matmul(x, y).shape.as_list() == [5, None, 2, 4]
    assert tf.matmul(x, x, transpose_b=True).shape.as_list() == [None, 2, 2]
    assert tf.matmul(x, tf.placeholder(tf.float32)).shape.rank is None
    m = tf.placeholder(tf.float64, [None, 7])
    assert tf.matmul(m, m, transpose_a=True).shape.as_list() == [7, 7]


def test_dtypes():
    a = tf.constant([[1.0, 2.0]])
    with pytest.raises(TypeError):
        tf.matmul(a, tf.constant([[1], [2]]))
    with pytest.raises(TypeError):
        tf.matmul(tf.constant([[True]]), tf.constant([[False]]))
    c = tf.matmul(a, [[3], [4]])  # a Python value takes a's dtype
    assert c.dtype == tf.float32
    ints = tf.matmul(tf.constant([[1, 2]]), tf.constant([[3], [4]]))
    assert ints.dtype == tf.int32
    got = run([c, ints])
    np.testing.assert_array_equal(got[0], [[11.0]])
    assert got[1].dtype == np.int32 and got[1][0, 0] == 11


def test_transpose_and_adjoint_together_refused():
    a = tf.constant([[1.0]])
    with pytest.raises(ValueError):
        tf.matmul(a, a, transpose_a=True, adjoint_a=True)
    with pytest.raises(ValueError):
        tf.matmul(a, a, transpose_b=True, adjoint_b=True)


def test_kernel_leaves_inputs_untouched_and_larger_values():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((48, 32)).astype(np.float32)
    pa, pb = tf.placeholder(tf.float32, a.shape), tf.placeholder(tf.float32, b.shape)
    a0, b0 = a.copy(), b.copy()
    got = run(tf.matmul(pa, pb, transpose_b=True), {pa: a, pb: b})
    want = np.einsum("ik,jk->ij", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def test_tensordot_axes_forms_and_errors():
    a = tf.placeholder(tf.float32, [2, 3, 4])
    b = tf.placeholder(tf.float32, [4, 3, 5])
    assert tf.tensordot(a, b, 1).shape.as_list() == [2, 3, 3, 5]
    assert tf.tensordot(a, b, [[1, 2], [1, 0]]).shape.as_list() == [2, 5]
    assert tf.tensordot(a, b, [2, 0]).shape.as_list() == [2, 3, 3, 5]
    assert tf.tensordot(a, b, 0).shape.as_list() == [2, 3, 4, 4, 3, 5]
    assert tf.tensordot(a, b, 1).op.name == "Tensordot_4"
    with pytest.raises(ValueError, match="at least 0"):
        tf.tensordot(a, b, -1)
    with pytest.raises(ValueError, match="must not be larger"):
        tf.tensordot(a, b, 4)
    with pytest.raises(ValueError, match="length 2"):
        tf.tensordot(a, b, [[1], [0], [2]])
    with pytest.raises(ValueError, match="Different number of contraction axes"):
        tf.tensordot(a, b, [[1, 2], [0]])
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.tensordot(a, b, [[1], [0]])
    u = tf.placeholder(tf.float32)
    assert tf.tensordot(u, b, 2).shape.rank is None
    va = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    vb = np.arange(60, dtype=np.float32).reshape(4, 3, 5)
    got = run(tf.tensordot(u, b, 2), {u: va.transpose(0, 2, 1), b: vb})
    want = np.einsum("ikj,kjl->il", va.transpose(0, 2, 1), vb)
    np.testing.assert_allclose(got, want)


# ---------------------------------------------------------------------- gradients
_RNG = np.random.default_rng(4)
_A = _RNG.standard_normal((2, 3)).astype(np.float32)
_B = _RNG.standard_normal((3, 4)).astype(np.float32)
_W = _RNG.standard_normal((2, 4)).astype(np.float32)


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_gradients_use_transpose_flags_not_transposes(ta, tb):
    a = tf.constant(_A.T.copy() if ta else _A)
    b = tf.constant(_B.T.copy() if tb else _B)
    y = tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
    da, db = tf.gradients(tf.reduce_sum(y * _W), [a, b])
    types = {op.type for op in tf.get_default_graph().get_operations()
             if op.name.startswith("gradients/MatMul_grad/")}
    assert types == {"MatMul"}
    got_a, got_b = run([da, db])
    want_a, want_b = _W @ _B.T, _A.T @ _W
    np.testing.assert_allclose(got_a, want_a.T if ta else want_a, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_b, want_b.T if tb else want_b, rtol=1e-5, atol=1e-6)


def test_batch_matmul_gradients_sum_over_broadcast_batch_dims():
    x = tf.placeholder(tf.float32, [None, 1, 2, 3])
    y = tf.placeholder(tf.float32, [4, 3, 5])
    xv = _RNG.standard_normal((2, 1, 2, 3)).astype(np.float32)
    yv = _RNG.standard_normal((4, 3, 5)).astype(np.float32)
    dx, dy = tf.gradients(tf.reduce_sum(tf.matmul(x, y)), [x, y])
    got_x, got_y = run([dx, dy], {x: xv, y: yv})
    ones = np.ones((2, 4, 2, 5), np.float32)
    np.testing.assert_allclose(got_x, (ones @ np.swapaxes(yv, -1, -2)).sum(1, keepdims=True),
                               rtol=1e-5)
    np.testing.assert_allclose(got_y, (np.swapaxes(xv, -1, -2) @ ones).sum(0), rtol=1e-5)
    assert dy.shape.as_list() == [4, 3, 5]


def test_tensordot_gradient_with_unknown_rank():
    a = tf.placeholder(tf.float32)
    b = tf.placeholder(tf.float32, [3, 4, 2])
    av = _RNG.standard_normal((2, 5, 3, 4)).astype(np.float32)
    bv = _RNG.standard_normal((3, 4, 2)).astype(np.float32)
    w = _RNG.standard_normal((2, 5, 2)).astype(np.float32)
    out = tf.tensordot(a, b, 2)
    da, db = tf.gradients(tf.reduce_sum(out * w), [a, b])
    got_a, got_b = run([da, db], {a: av, b: bv})
    np.testing.assert_allclose(got_a, np.einsum("ijm,klm->ijkl", w, bv), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_b, np.einsum("ijkl,ijm->klm", av, w), rtol=1e-5, atol=1e-6)
