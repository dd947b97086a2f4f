"""constant / convert_to_tensor: TF1's dtype rules, shapes and errors."""

import numpy as np
import pytest

import staticgraph as tf


pytestmark = pytest.mark.usefixtures("g")  # every test on a fresh default graph (conftest)


def value_of(t):
    with tf.Session() as sess:
        return sess.run(t)


@pytest.mark.parametrize("value,dtype", [
    (1.0, tf.float32), (1, tf.int32), (True, tf.bool), ([1, 2.5], tf.float32),
    ([[1, 2], [3, 4]], tf.int32), ([], tf.float32), (2**40, tf.int64),
    (np.float64(1.0), tf.float64), (np.array([1, 2], np.int64), tf.int64),
    (np.array([1, 2], np.uint8), tf.uint8), (np.float16(1), tf.float16),
    ([True, False], tf.bool), ("text", tf.string),
])
def test_python_and_numpy_values_take_tf1_dtypes(value, dtype):
    t = tf.constant(value)
    assert t.dtype is dtype
    got = value_of(t)
    if dtype is tf.string:
        assert got == value
    else:
        assert got.dtype == dtype.np_dtype
        if np.ndim(value) == 0:
            assert isinstance(got, np.generic)    # scalars come back as numpy scalars
    assert tf.convert_to_tensor(value).dtype is dtype


def test_constant_shape_and_names():
    assert tf.constant(1.0).op.name == "Const" and tf.constant(1.0).op.name == "Const_1"
    assert tf.constant(1.0, name="c").op.name == "c"
    assert tf.convert_to_tensor(1.0).op.name == "Const_2"
    t = tf.constant(7, shape=[2, 3])
    assert t.shape.as_list() == [2, 3]
    assert value_of(t).tolist() == [[7] * 3] * 2
    t = tf.constant([1, 2, 3, 4], shape=[2, 2])
    assert value_of(t).tolist() == [[1, 2], [3, 4]]
    t = tf.constant([1, 2], shape=[2, 2])          # TF1: the last element fills the rest
    assert value_of(t).tolist() == [[1, 2], [2, 2]]
    with pytest.raises(ValueError, match="Too many elements"):
        tf.constant([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        tf.constant([1, 2, 3], shape=[3, 1], verify_shape=True)
    assert tf.constant(1.0, shape=[]).shape.as_list() == []


def test_constant_dtype_argument():
    assert tf.constant(1, dtype=tf.float32).dtype is tf.float32
    assert value_of(tf.constant([1, 2], dtype="float")).tolist() == [1.0, 2.0]
    assert tf.constant(np.array([1.5]), dtype=tf.float32).dtype is tf.float32
    assert tf.constant(True, dtype=tf.int32).dtype is tf.int32
    with pytest.raises(TypeError, match="Expected int32, got 2.5"):
        tf.constant(2.5, dtype=tf.int32)
    with pytest.raises(TypeError, match="out of range"):
        tf.constant(300, dtype=tf.uint8)
    with pytest.raises(TypeError):
        tf.constant("a", dtype=tf.float32)
    with pytest.raises(TypeError, match="Failed to convert object"):
        tf.constant(object())


def test_constant_is_an_independent_copy():
    arr = np.array([1.0, 2.0], np.float32)
    t = tf.constant(arr)
    arr[0] = 100.0
    assert value_of(t).tolist() == [1.0, 2.0]


def test_convert_to_tensor_rules():
    x = tf.placeholder(tf.float32, name="x")
    assert tf.convert_to_tensor(x) is x
    assert tf.convert_to_tensor(x, dtype=tf.float32) is x
    with pytest.raises(ValueError, match="requested dtype int32 for Tensor with dtype float32"):
        tf.convert_to_tensor(x, dtype=tf.int32)
    v = tf.Variable(1.0, name="v")
    assert tf.convert_to_tensor(v) is v.value()
    assert tf.convert_to_tensor(3, preferred_dtype=tf.float32).dtype is tf.float32
    assert tf.convert_to_tensor(3.5, preferred_dtype=tf.int32).dtype is tf.float32
    assert tf.convert_to_tensor(3, dtype_hint=tf.int64).dtype is tf.int64
    assert tf.convert_to_tensor([1], name="named").op.name == "named"
    out = tf.convert_n_to_tensor([1, 2.0])
    assert [t.dtype for t in out] == [tf.int32, tf.float32]


def test_convert_same_dtype():
    from staticgraph.ops.convert import convert_same_dtype
    x = tf.placeholder(tf.float32, name="x")
    a, b = convert_same_dtype(2, x)
    assert a.dtype is tf.float32 and b is x
    with pytest.raises(TypeError, match="Expected int32, got 2.5"):   # as TF1's tf.add(1, 2.5)
        convert_same_dtype(1, 2.5)
    a, b = convert_same_dtype(2.5, 1)
    assert a.dtype is b.dtype is tf.float32
    i = tf.placeholder(tf.int32, name="i")
    with pytest.raises(TypeError, match="Input 'y' has type int32 that does not match "
                                        "type float32"):
        convert_same_dtype(x, i)


def test_convert_list_of_tensors_packs():
    a = tf.constant(1.0)
    t = tf.convert_to_tensor([a, 2.0, 3])
    assert t.dtype is tf.float32 and t.shape.as_list() == [3]
    assert value_of(t).tolist() == [1.0, 2.0, 3.0]


def test_register_tensor_conversion_function():
    class Celsius:
        def __init__(self, degrees):
            self.degrees = degrees

    tf.register_tensor_conversion_function(
        Celsius, lambda value, dtype=None, name=None: tf.constant(value.degrees, dtype=dtype))
    t = tf.convert_to_tensor(Celsius(21.5))
    assert t.dtype is tf.float32 and value_of(t) == 21.5


def test_a_conversion_function_may_decline_with_not_implemented():
    """TF1's protocol: NotImplemented passes the value on to the next rule (the
    autopacking of nested lists that ops.array.combine registers works this way)."""
    class Reading(list):
        pass

    declined = []

    def only_long(value, dtype=None, name=None):
        if len(value) < 3:
            declined.append(value)
            return NotImplemented
        return tf.constant(sum(value), dtype=dtype)

    tf.register_tensor_conversion_function(Reading, only_long)
    assert value_of(tf.convert_to_tensor(Reading([1, 2, 3]))) == 6
    short = tf.convert_to_tensor(Reading([1, 2]))          # a plain list constant
    assert value_of(short).tolist() == [1, 2] and len(declined) == 1
    packed = tf.convert_to_tensor(Reading([tf.constant(1.0), 2.0]))   # autopacking
    assert packed.op.type == "Pack" and value_of(packed).tolist() == [1.0, 2.0]
