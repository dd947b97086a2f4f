"""Python operators on tensors and variables: arithmetic, @, unary minus, comparisons,
slicing; ``==`` stays identity. Checked against numpy."""

import operator

import numpy as np
import pytest

import staticgraph as tf
from ..helpers import run


pytestmark = pytest.mark.usefixtures("g")  # every test on a fresh default graph (conftest)


X = np.array([[1.5, -2.0], [3.0, 4.5]], np.float32)
Y = np.array([[2.0, 0.5], [-1.0, 3.0]], np.float32)


@pytest.mark.parametrize("op,default_name", [
    (operator.add, "add"), (operator.sub, "sub"), (operator.mul, "mul"),
    (operator.truediv, "truediv"), (operator.pow, "pow"), (operator.matmul, "matmul"),
])
def test_float_binary_operators(op, default_name):
    x = tf.constant(X)
    y = tf.constant(Y)
    with np.errstate(all="ignore"):
        want = op(X.astype(np.float64), Y.astype(np.float64))
    z = op(x, y)
    assert z.op.name == default_name
    assert op(x, y).op.name == f"{default_name}_1"      # unique names: add, add_1
    assert z.dtype is tf.float32
    np.testing.assert_allclose(run(z), want, rtol=1e-5)


@pytest.mark.parametrize("op", [operator.floordiv, operator.mod])
def test_python_division_semantics_on_ints(op):
    a = np.array([7, -7, 7, -7], np.int32)
    b = np.array([2, 2, -2, -2], np.int32)
    out = run(op(tf.constant(a), tf.constant(b)))
    np.testing.assert_array_equal(out, op(a, b))        # floor semantics, as Python/TF1


def test_truediv_of_ints_gives_floats():
    out = tf.constant(np.array([1, 3], np.int32)) / tf.constant(np.array([2, 2], np.int32))
    assert out.dtype is tf.float64
    np.testing.assert_allclose(run(out), [0.5, 1.5])


def test_reflected_operators_and_python_scalars():
    x = tf.constant(X)
    cases = [(2.0 - x, 2.0 - X), (3 * x, 3 * X), (1.0 / x, 1.0 / X), (x + 1, X + 1),
             (2 ** x, 2 ** X), (Y @ x, Y @ X), (x @ Y, X @ Y)]
    for t, want in cases:
        assert t.dtype is tf.float32
        np.testing.assert_allclose(run(t), want, rtol=1e-5)
    # numpy arrays on the left defer to the tensor
    t = np.ones((2, 2), np.float32) + x
    assert isinstance(t, tf.Tensor)
    np.testing.assert_allclose(run(t), 1 + X)


def test_unary_operators():
    x = tf.constant(X)
    neg = -x
    assert neg.op.type == "Neg" and neg.op.name == "Neg"
    np.testing.assert_allclose(run(neg), -X)
    np.testing.assert_allclose(run(abs(x)), np.abs(X))
    b = tf.constant(np.array([True, False]))
    np.testing.assert_array_equal(run(~b), [False, True])


@pytest.mark.parametrize("op", [operator.lt, operator.le, operator.gt, operator.ge])
def test_comparisons(op):
    x = tf.constant(X)
    y = tf.constant(Y)
    out = op(x, y)
    assert out.dtype is tf.bool
    np.testing.assert_array_equal(run(out), op(X, Y))
    np.testing.assert_array_equal(run(op(x, 2.0)), op(X, 2.0))


def test_logical_operators():
    a = tf.constant(np.array([True, True, False, False]))
    b = tf.constant(np.array([True, False, True, False]))
    np.testing.assert_array_equal(run(a & b), [True, False, False, False])
    np.testing.assert_array_equal(run(a | b), [True, True, True, False])
    np.testing.assert_array_equal(run(a ^ b), [False, True, True, False])


def test_equality_is_identity():
    x = tf.constant(1.0)
    y = tf.constant(1.0)
    assert (x == y) is False and (x == x) is True and (x != y) is True
    assert {x: "x", y: "y"}[y] == "y"


def test_dtype_rules():
    x = tf.constant(X)
    i = tf.constant(np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match="int32.*float32|float32.*int32"):
        x + i                                         # tensors keep their dtypes
    with pytest.raises(TypeError, match="Expected int32, got 0.5"):
        i * 0.5                                       # Python value must fit the tensor
    assert (i * 2).dtype is tf.int32
    with pytest.raises(TypeError):
        x + "text"
    with pytest.raises(TypeError):
        x + object()


def test_operators_on_variables():
    v = tf.Variable(X, name="v")
    exprs = [v + 1.0, 1.0 - v, v * v, v @ Y, -v, v / 2.0, v > 0.0]
    wants = [X + 1, 1 - X, X * X, X @ Y, -X, X / 2, X > 0]
    with tf.Session() as sess:
        sess.run(v.initializer)
        for got, want in zip(sess.run(exprs), wants):
            np.testing.assert_allclose(got, want, rtol=1e-6)
        t = np.ones((2, 2), np.float32) * v
        assert isinstance(t, tf.Tensor)
        np.testing.assert_allclose(sess.run(t), X)


A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("key", [
    1, -1, (0, 1), slice(1, None), slice(None, None, -1), (slice(None), slice(None, None, -2)),
    (Ellipsis, 1), (Ellipsis, slice(1, 3)), (None, 0), (0, None, slice(None), None),
    (slice(None), -1, slice(3, 0, -1)), (1, Ellipsis, None), (slice(-1, None),),
])
def test_getitem_matches_numpy(key):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    y = x[key]
    want = A[key]
    got = run(y, {x: A})
    np.testing.assert_array_equal(got, want)
    assert y.shape.as_list() == list(want.shape)


def test_getitem_with_unknown_dims():
    x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
    y = x[:, ::-1, 1]
    assert y.shape.as_list()[1:] == [3]
    np.testing.assert_array_equal(run(y, {x: A}), A[:, ::-1, 1])


@pytest.mark.parametrize("expression, op_type", [
    (lambda a: a + 1.5, "Add"), (lambda a: a - 1.5, "Sub"), (lambda a: a < 1.5, "Less"),
    (lambda a: a // 1.5, "FloorDiv"), (lambda a: a ** 0.5, "Pow"),
])
def test_operator_with_a_python_value_of_another_dtype_names_op_and_line(expression, op_type):
    a = tf.placeholder(tf.int32, [2])
    with pytest.raises(TypeError) as info:
        expression(a)
    message = str(info.value)
    assert f"of op '{op_type}'" in message and "Expected int32" in message
    assert f"Declared at {__file__}:" in message
