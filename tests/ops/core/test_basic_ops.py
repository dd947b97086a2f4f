"""Core ops: placeholder, placeholder_with_default, identity, no_op, group, tuple."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph import errors


pytestmark = pytest.mark.usefixtures("g")  # every test on a fresh default graph (conftest)


def test_placeholder_signature_and_names(g):
    a = tf.placeholder(tf.float32)
    b = tf.placeholder("float", [None, 3])
    c = tf.placeholder(dtype=tf.int64, shape=(2,), name="c")
    d = tf.placeholder(np.int32, name="d")
    assert a.op.name == "Placeholder" and b.op.name == "Placeholder_1"
    assert a.shape.rank is None and a.dtype is tf.float32
    assert b.dtype is tf.float32 and b.shape.as_list() == [None, 3]
    assert c.name == "c:0" and c.dtype is tf.int64 and c.shape.as_list() == [2]
    assert d.dtype is tf.int32
    assert a.op.type == "Placeholder" and a.op.inputs == ()
    with pytest.raises(TypeError):
        tf.placeholder("no such dtype")


def test_placeholder_must_be_fed(g):
    x = tf.placeholder(tf.float32, [2], name="x")
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match="must feed a value for "
                                                             "placeholder tensor 'x'"):
            sess.run(x)
        np.testing.assert_array_equal(sess.run(x, {x: [1, 2]}), [1.0, 2.0])


def test_placeholder_with_default_shapes(g):
    d = tf.placeholder_with_default([[1, 2]], shape=[None, 2])
    assert d.dtype is tf.int32 and d.shape.as_list() == [None, 2]
    assert d.op.type == "PlaceholderWithDefault"
    with pytest.raises(ValueError, match="not compatible"):
        tf.placeholder_with_default([1, 2, 3], shape=[2])
    loose = tf.placeholder_with_default(3.0, shape=None)
    assert loose.shape.rank is None
    with tf.Session() as sess:
        assert sess.run(d).tolist() == [[1, 2]]
        assert sess.run(d, {d: [[3, 4], [5, 6]]}).tolist() == [[3, 4], [5, 6]]
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            sess.run(d, {d: [1, 2, 3]})
        assert sess.run(loose) == 3.0


def test_identity(g):
    x = tf.constant([1.0, 2.0])
    y = tf.identity(x)
    z = tf.identity(x, name="same")
    assert y.op.type == "Identity" and y.op.name == "Identity" and z.op.name == "same"
    assert y.shape == x.shape and y.dtype is x.dtype
    assert tf.identity([1, 2]).dtype is tf.int32
    with tf.Session() as sess:
        assert sess.run(y).tolist() == [1.0, 2.0]


def test_no_op_and_group(g):
    v = tf.Variable(0, name="v")
    a = tf.assign_add(v, 1)
    b = tf.assign_add(v, 10)
    n = tf.no_op()
    assert n.type == "NoOp" and n.name == "NoOp" and n.outputs == []
    grp = tf.group(a, b.op)
    assert grp.type == "NoOp" and grp.name == "group_deps"
    assert set(grp.control_inputs) == {a.op, b.op}
    named = tf.group(a, name="step")
    assert named.name == "step"
    empty = tf.group()
    assert empty.type == "NoOp" and empty.control_inputs == []
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(n) is None
        assert sess.run(grp) is None
        assert sess.run(v) == 11
        sess.run(named)
        assert sess.run(v) == 12
    with pytest.raises(TypeError):
        tf.group(3)


def test_group_accepts_variables(g):
    v = tf.Variable(1, name="v")
    grp = tf.group(v.initializer, v)
    assert v.initializer in grp.control_inputs


def test_tuple_gates_every_output(g):
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    c = tf.constant(7)
    out_c, out_none = tf.tuple([c, None], control_inputs=[inc])
    assert out_none is None
    assert out_c.op.type == "Identity" and out_c.op.name == "tuple/control_dependency"
    assert [t.op.name for t in tf.tuple([c, c])] == ["tuple_1/control_dependency",
                                                     "tuple_1/control_dependency_1"]
    gate = out_c.op.control_inputs[0]
    assert gate.name == "tuple/group_deps" and inc.op in gate.control_inputs
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(out_c) == 7
        assert sess.run(v) == 1        # fetching the gated tensor ran the control input


def test_const_op(g):
    c = tf.constant([[1, 2], [3, 4]], name="k")
    assert c.op.type == "Const" and c.op.name == "k"
    value = c.op.get_attr("value")
    assert value.dtype == np.int32 and not value.flags.writeable
    assert c.op.get_attr("dtype") is tf.int32
