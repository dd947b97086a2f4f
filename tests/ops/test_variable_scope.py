"""tf.variable_scope / tf.get_variable: naming, reuse, AUTO_REUSE, errors, defaults."""

import inspect
import math

import numpy as np
import pytest

import staticgraph as tf
from tests.helpers import run


def _init_run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


def test_names_and_reentered_name_scopes():
    assert tf.get_variable_scope().name == ""
    with tf.variable_scope("layer") as scope:
        w = tf.get_variable("w", [3, 4])
        c = tf.constant(1.0, name="c")
        with tf.name_scope("ns"):   # name scopes do not affect variable names
            v = tf.get_variable("v", [2])
            d = tf.constant(1.0, name="d")
        with tf.variable_scope("inner") as inner:
            u = tf.get_variable("u", [])
    assert (scope.name, scope.original_name_scope, inner.name) == ("layer", "layer/", "layer/inner")
    assert (w.name, v.name, u.name) == ("layer/w:0", "layer/v:0", "layer/inner/u:0")
    assert (c.name, d.name) == ("layer/c:0", "layer/ns/d:0")
    assert w.initial_value.op.name.startswith("layer/w/Initializer/")
    with tf.variable_scope("layer") as again:
        e = tf.constant(1.0, name="c")
        x = tf.get_variable("x", [1])
    assert e.name == "layer_1/c:0" and x.name == "layer/x:0"
    assert again.name == "layer" and again.original_name_scope == "layer_1/"
    assert tf.get_variable_scope().name == ""


def test_reuse_true_and_inheritance():
    with tf.variable_scope("s"):
        w = tf.get_variable("w", [2])
        with tf.variable_scope("in"):
            iw = tf.get_variable("w", [2])
    with tf.variable_scope("s", reuse=True) as scope:
        assert scope.reuse is True
        assert tf.get_variable("w", [2]) is w and tf.get_variable("w") is w
        with tf.variable_scope("in", reuse=False) as child:   # reuse cannot be turned off
            assert child.reuse is True and tf.get_variable("w") is iw
    assert len(tf.global_variables()) == 2 and len(tf.trainable_variables()) == 2


def test_auto_reuse_and_reuse_variables():
    def layer():
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            return tf.get_variable("w", [2])
    assert layer() is layer()
    assert tf.AUTO_REUSE is tf.ops.variable_scope.AUTO_REUSE
    with tf.variable_scope("rv") as scope:
        a = tf.get_variable("a", [1])
        scope.reuse_variables()
        assert tf.get_variable_scope().reuse is True and tf.get_variable("a") is a
    assert len(tf.global_variables()) == 2


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


def test_scope_objects_default_names_and_counts():
    with tf.variable_scope("shared") as shared:
        w = tf.get_variable("w", [1])
    with tf.variable_scope("other"):
        with tf.variable_scope(shared, reuse=True) as jumped:
            assert jumped.name == "shared" and tf.get_variable("w") is w
            assert jumped.original_name_scope == "shared/"
            assert tf.constant(0, name="c").name == "other/shared/c:0"
    with tf.variable_scope(None, default_name="dense") as d0:
        pass
    with tf.variable_scope(None, default_name="dense") as d1:
        assert tf.constant(0, name="c").name == "dense_1/c:0"
    assert (d0.name, d1.name) == ("dense", "dense_1")
    # Sub-scope counts restart when the parent is re-entered, so default names repeat.
    names = []
    for reuse in (None, True):
        with tf.variable_scope("net", reuse=reuse):
            with tf.variable_scope(None, default_name="fc"):
                names.append(tf.get_variable("k", [1]))
    assert names[0] is names[1] and names[0].name == "net/fc/k:0"
    with pytest.raises(ValueError, match="reuse=True cannot be used without a name_or_scope"):
        with tf.variable_scope(None, default_name="x", reuse=True):
            pass
    with pytest.raises(TypeError, match="name_or_scope must be a string or VariableScope"):
        tf.variable_scope(3)
    with pytest.raises(TypeError, match="If default_name is None then name_or_scope is "
                                        "required"):
        tf.variable_scope(None)


def test_auxiliary_name_scope_false_and_scope_dtype():
    with tf.name_scope("outer"):
        with tf.variable_scope("vs", auxiliary_name_scope=False, dtype=tf.float64) as vs:
            c = tf.constant(0, name="c")
            v = tf.get_variable("v", [1])
    assert c.name == "outer/c:0" and v.name == "vs/v:0" and v.dtype is tf.float64
    assert vs.original_name_scope == "outer/"


def test_regularizers_and_collections():
    def l2(var):
        return tf.reduce_sum(var * var)
    with tf.variable_scope("r", regularizer=l2):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
        tf.get_variable("free", [2], regularizer=tf.no_regularizer)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 1 and losses[0].name.startswith("r/w/Regularizer/")
    assert _init_run(losses[0]) == 2.0
    frozen = tf.get_variable("frozen", [1], trainable=False)
    local = tf.get_variable("loc", [1], collections=[tf.GraphKeys.LOCAL_VARIABLES])
    gl = tf.get_local_variable("gl", [1])
    assert frozen not in tf.trainable_variables() and frozen in tf.global_variables()
    assert local in tf.local_variables() and local not in tf.global_variables()
    assert gl in tf.local_variables() and not gl.trainable
    assert w in tf.trainable_variables()
    with tf.variable_scope("r", reuse=True) as scope:
        assert scope.global_variables() == [w, tf.get_variable("free")]


def test_custom_getters_compose():
    seen = []

    def outer(getter, name, *args, **kwargs):
        seen.append(("outer", name))
        return getter(name, *args, **kwargs)

    def inner(getter, name, *args, **kwargs):
        seen.append(("inner", name))
        kwargs["trainable"] = False
        return getter(name, *args, **kwargs)

    with tf.variable_scope("a", custom_getter=outer):
        with tf.variable_scope("b", custom_getter=inner):
            v = tf.get_variable("v", [1])
    assert seen == [("inner", "a/b/v"), ("outer", "a/b/v")] and not v.trainable
    with pytest.raises(ValueError, match="must be callable"):
        tf.variable_scope("c", custom_getter=3)


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


def test_values_select_graph():
    g2 = tf.Graph()
    with g2.as_default():
        x = tf.constant(1.0)
    with tf.variable_scope("in_g2", values=[x]):
        y = tf.identity(x, name="y")
        v = tf.get_variable("v", [1])
    assert y.graph is g2 and v.graph is g2 and y.name == "in_g2/y:0"
    assert run(tf.constant(2.0)) == 2.0   # the default graph is restored
