"""tf.get_variable's store: already-exists / does-not-exist / mismatch errors, initializers,
one store per graph."""

import inspect
import math

import numpy as np
import pytest

import staticgraph as tf


def _init_run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def test_already_exists_error_names_declaring_line():
    with tf.variable_scope("layer"):
        line = inspect.currentframe().f_lineno + 1
        tf.get_variable("w", [2])
    with tf.variable_scope("layer"):
        with pytest.raises(ValueError) as info:
            tf.get_variable("w", [2])
    msg = str(info.value)
    assert msg.startswith("Variable layer/w already exists, disallowed. Did you mean to set "
                          "reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
    assert f'"{__file__}", line {line}' in msg and 'tf.get_variable("w", [2])' in msg


def test_does_not_exist_and_mismatch_errors():
    with tf.variable_scope("layer", reuse=True):
        with pytest.raises(ValueError, match=r"^Variable layer/w does not exist, or was not "
                           r"created with tf.get_variable\(\). Did you mean to set "
                           r"reuse=tf.AUTO_REUSE in VarScope\?$"):
            tf.get_variable("w", [2])
    tf.Variable(0.0, name="plain")   # tf.Variable is not in the store
    with tf.variable_scope("", reuse=True), pytest.raises(ValueError, match="does not exist"):
        tf.get_variable("plain")
    with tf.variable_scope("m"):
        tf.get_variable("w", [2, 3])
    with tf.variable_scope("m", reuse=True):
        with pytest.raises(ValueError, match=r"Trying to share variable m/w, but specified "
                           r"shape \(3, 2\) and found shape \(2, 3\)\."):
            tf.get_variable("w", [3, 2])
        with pytest.raises(ValueError, match="specified dtype float64 and found dtype float32"):
            tf.get_variable("w", dtype=tf.float64)


def test_default_initializers_by_dtype():
    f = tf.get_variable("f", [30, 70])
    i = tf.get_variable("i", [3], dtype=tf.int32)
    b = tf.get_variable("b", [2], dtype=tf.bool)
    fv, iv, bv = _init_run([f, i, b])
    limit = math.sqrt(6.0 / 100)   # Glorot uniform
    assert np.abs(fv).max() <= limit and np.abs(fv).max() > 0.98 * limit
    np.testing.assert_array_equal(iv, [0, 0, 0])
    np.testing.assert_array_equal(bv, [False, False])
    assert iv.dtype == np.int32 and bv.dtype == np.bool_


def test_initializer_forms():
    with tf.variable_scope("s", initializer=tf.constant_initializer(3.0)):
        inherited = tf.get_variable("inherited", [2])
        own = tf.get_variable("own", [2], initializer=tf.ones_initializer())
        with tf.variable_scope("deep"):
            deep = tf.get_variable("deep", [1])
        cls = tf.get_variable("cls", [2], initializer=tf.zeros_initializer)
        from_tensor = tf.get_variable("t", initializer=tf.constant([1, 2]))
        from_fn = tf.get_variable("fn", initializer=lambda: tf.constant([7.0, 8.0]),
                                  dtype=tf.float32)
        ints = tf.get_variable("ints", [2], dtype=tf.int32,
                               initializer=tf.constant_initializer(4))
    assert from_tensor.dtype is tf.int32 and from_tensor.shape.as_list() == [2]
    assert ints.dtype is tf.int32 and own.initial_value.op.name.startswith("s/own/Initializer/")
    vals = _init_run([inherited, own, deep, cls, from_tensor, from_fn, ints])
    for got, want in zip(vals, [[3, 3], [1, 1], [3], [0, 0], [1, 2], [7, 8], [4, 4]]):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape."):
        tf.get_variable("bad", [2], initializer=tf.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="The initializer passed is not valid"):
        tf.get_variable("noshape")
    with pytest.raises(ValueError, match="Initializer type 'int32' and explicit dtype "
                                         "'float32' don't match."):
        tf.get_variable("mix", initializer=tf.constant([1, 2]), dtype=tf.float32)


def test_store_is_per_graph_and_ignores_control_dependencies():
    first = tf.get_variable("w", [1])
    with tf.Graph().as_default() as g2:
        second = tf.get_variable("w", [1])
        assert tf.get_variable_scope().name == ""
    assert first.graph is not second.graph is g2
    trigger = tf.no_op(name="trigger")
    with tf.control_dependencies([trigger]):
        v = tf.get_variable("v", [1], initializer=tf.zeros_initializer())
    assert all(trigger not in op.control_inputs for op in
               tf.get_default_graph().get_operations() if op.name.startswith("v"))
    np.testing.assert_array_equal(_init_run(v), [0.0])
