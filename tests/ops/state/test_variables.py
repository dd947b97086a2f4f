"""Variables: construction, names, collections, initializers, assignment, eval/load."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph import errors


pytestmark = pytest.mark.usefixtures("g")  # every test on a fresh default graph (conftest)


def test_variable_structure_and_names(g):
    v = tf.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.op.name == "w" and v.op.type == "VariableV2"
    assert v.dtype is tf.float32 and v.shape.as_list() == [2] and v.get_shape() == [2]
    assert v.graph is g and v.trainable
    assert v.initializer.name == "w/Assign" and v.initializer.type == "Assign"
    assert v.initial_value.name == "w/initial_value:0"
    assert v.value().name == "w/read:0"
    assert repr(v) == "<tf.Variable 'w:0' shape=(2,) dtype=float32_ref>"
    u = tf.Variable(0)
    u2 = tf.Variable(0)
    assert (u.op.name, u2.op.name) == ("Variable", "Variable_1")
    with tf.name_scope("layer"):
        s = tf.Variable(0.0, name="b")
    assert s.name == "layer/b:0"
    again = tf.Variable(0.0, name="w")
    assert again.name == "w_1:0" and again.initializer.name == "w_1/Assign"
    tf.constant(0.0, name="taken")
    assert tf.Variable(0.0, name="taken").name == "taken_1:0"
    names = [op.name for op in g.get_operations()]
    assert len(names) == len(set(names))


def test_variable_dtype_and_initial_value_forms(g):
    assert tf.Variable(1).dtype is tf.int32
    assert tf.Variable(1, dtype=tf.float32).dtype is tf.float32
    assert tf.Variable(np.zeros((2, 3), np.float64)).shape.as_list() == [2, 3]
    fn = tf.Variable(lambda: tf.constant([1, 2, 3]), name="from_fn")
    assert fn.shape.as_list() == [3]
    with pytest.raises(ValueError, match="initial_value must be specified"):
        tf.Variable()
    x = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="shape specified"):
        tf.Variable(x)
    free = tf.Variable(x, validate_shape=False)
    assert free.shape.rank is None


def test_collections(g):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(1.0, name="b", trainable=False)
    c = tf.Variable(1.0, name="c", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    assert tf.global_variables() == [a, b] and tf.all_variables() == [a, b]
    assert tf.trainable_variables() == [a, c]        # TF1: trainable adds it regardless
    assert tf.local_variables() == [c]
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == [a, b]
    with tf.name_scope("enc"):
        d = tf.Variable(1.0, name="d")
    assert tf.global_variables(scope="enc") == [d]


def test_initializers(g):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    loc = tf.Variable(3.0, name="loc", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    init = tf.global_variables_initializer()
    assert init.name == "init" and init.type == "NoOp"
    assert set(init.control_inputs) == {a.initializer, b.initializer}
    linit = tf.local_variables_initializer()
    assert set(linit.control_inputs) == {loc.initializer}
    only_a = tf.variables_initializer([a], name="only_a")
    with tf.Session() as sess:
        sess.run(only_a)
        assert sess.run(a) == 1.0
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized value b"):
            sess.run(b)
        assert sess.run(tf.is_variable_initialized(b)) == np.bool_(False)
        assert sess.run(tf.report_uninitialized_variables()).tolist() == ["b", "loc"]
        assert sess.run(tf.report_uninitialized_variables([a, b])).tolist() == ["b"]
        sess.run(init)
        assert sess.run(b) == 2.0 and sess.run(tf.is_variable_initialized(b))
        with pytest.raises(errors.FailedPreconditionError):
            sess.run(loc)
        sess.run(linit)
        assert sess.run(loc) == 3.0
        assert sess.run(tf.report_uninitialized_variables()).tolist() == []
    empty = tf.variables_initializer([])
    assert empty.type == "NoOp"
    assert tf.initialize_all_variables().type == "NoOp"


def test_initialized_value_and_dependent_initial_values(g):
    a = tf.Variable(3.0, name="a")
    b = tf.Variable(tf.multiply(a.initialized_value(), 2.0), name="b")
    with tf.Session() as sess:
        sess.run(b.initializer)            # runs a's initializer first
        assert sess.run(b) == 6.0


def test_assign_family(g):
    v = tf.Variable([1.0, 2.0], name="v")
    set_ = v.assign([5.0, 6.0])
    add = v.assign_add([1.0, 1.0])
    sub = v.assign_sub([0.5, 0.5])
    fn_set = tf.assign(v, [0.0, 0.0], name="zero")
    assert set_.op.type == "Assign" and add.op.type == "AssignAdd" and sub.op.type == "AssignSub"
    assert fn_set.op.name == "zero"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(set_).tolist() == [5.0, 6.0]
        assert sess.run(add).tolist() == [6.0, 7.0]
        assert sess.run(sub).tolist() == [5.5, 6.5]
        assert sess.run(v).tolist() == [5.5, 6.5]
        sess.run(fn_set)
        assert sess.run(v).tolist() == [0.0, 0.0]


def test_assign_checks_while_declaring(g):
    v = tf.Variable([1.0, 2.0], name="v")
    with pytest.raises(ValueError, match=r"\[2\] and \[3\]"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="int32 that does not match type float32"):
        tf.assign(v, tf.constant([1, 2]))
    assert v.assign([1, 2]).dtype is tf.float32      # Python values take the variable's dtype
    with pytest.raises(TypeError, match="Expected a tf.Variable"):
        tf.assign(tf.constant(1.0), 2.0)
    free = tf.Variable([1.0, 2.0], name="free")
    grow = tf.assign(free, [1.0, 2.0, 3.0], validate_shape=False)
    with tf.Session() as sess:
        sess.run(free.initializer)
        assert sess.run(grow).tolist() == [1.0, 2.0, 3.0]


def test_read_value_respects_control_dependencies(g):
    v = tf.Variable(1, name="v")
    bump = v.assign_add(1)
    with tf.control_dependencies([bump]):
        r = v.read_value()
    assert r.op.type == "Identity" and bump.op in r.op.control_inputs
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r) == 2
        assert sess.run(r) == 3


def test_eval_and_load(g):
    v = tf.Variable(np.zeros(2, np.float32), name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert v.eval().tolist() == [0.0, 0.0]
        v.load([3.0, 4.0])
        assert v.eval(sess).tolist() == [3.0, 4.0]
        with pytest.raises(ValueError, match="Cannot feed value of shape"):
            v.load([1.0])
        assert v.eval().tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match="No default session"):
        v.eval()


def test_variable_value_is_not_aliased_by_assign_source(g):
    x = tf.placeholder(tf.float32, [2], name="x")
    v = tf.Variable(np.zeros(2, np.float32), name="v")
    set_ = tf.assign(v, x)
    fed = np.array([1.0, 2.0], np.float32)
    with tf.Session() as sess:
        sess.run(set_, {x: fed})
        fed[:] = 99.0                       # mutating the fed array does not change v
        assert sess.run(v).tolist() == [1.0, 2.0]


def test_variable_in_python_expressions(g):
    v = tf.Variable(2.0, name="v")
    assert (v == v) is True and (v != v) is False and hash(v) == id(v)
    assert {v: 1}[v] == 1
    with pytest.raises(TypeError):
        bool(v)
    with pytest.raises(TypeError):
        np.asarray(v)
    with pytest.raises(TypeError):
        iter(v)


def test_variable_set_shape(g):
    x = tf.placeholder(tf.float32, None)
    v = tf.Variable(x, validate_shape=False, name="v")
    v.set_shape([3])
    assert v.shape.as_list() == [3] and v.value().shape.as_list() == [3]
