"""The global step helpers (TF1's training_util)."""

import numpy as np
import pytest

import staticgraph as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_create_and_get_global_step(_fresh_graph):
    assert tf.train.get_global_step() is None
    step = tf.train.create_global_step()
    assert step.op.name == "global_step" and step.name == "global_step:0"
    assert step.dtype == tf.int64 and step.shape.rank == 0
    assert not step.trainable
    assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [step]
    assert step in tf.global_variables() and step not in tf.trainable_variables()
    assert tf.train.get_global_step() is step
    assert tf.train.get_or_create_global_step() is step
    assert tf.train.get_global_step(_fresh_graph) is step
    with pytest.raises(ValueError, match='"global_step" already exists'):
        tf.train.create_global_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        value = tf.train.global_step(sess, step)
        assert value == 0 and type(value) is int


def test_created_at_top_level_outside_control_dependencies():
    c = tf.constant(1.0)
    with tf.name_scope("scope"), tf.control_dependencies([c]):
        step = tf.train.get_or_create_global_step()
    assert step.op.name == "global_step"
    assert step.initializer.control_inputs == []


def test_other_graph():
    g = tf.Graph()
    step = tf.train.get_or_create_global_step(g)
    assert step.graph is g
    assert tf.train.get_global_step() is None
    assert tf.train.get_global_step(g) is step


def test_found_by_name_when_not_in_collection():
    v = tf.Variable(np.int64(3), name="global_step", trainable=False)
    assert tf.train.get_global_step().op is v.op


def test_non_integer_global_step_is_refused():
    tf.Variable(0.0, name="global_step")
    with pytest.raises(TypeError, match="does not have integer type"):
        tf.train.get_global_step()


def test_assert_global_step():
    tf.train.assert_global_step(tf.constant(1, tf.int64))
    with pytest.raises(TypeError, match="must be a Variable or Tensor"):
        tf.train.assert_global_step(3)
    with pytest.raises(TypeError, match="is not scalar"):
        tf.train.assert_global_step(tf.constant([1, 2]))


def test_global_step_increments_with_optimizer():
    w = tf.Variable([1.0], name="w")
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * w),
                                                             global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        assert tf.train.global_step(sess, step) == 3
