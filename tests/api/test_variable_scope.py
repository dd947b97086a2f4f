"""tf.variable_scope / tf.get_variable: naming, reuse, AUTO_REUSE, errors, defaults."""

import pytest

import staticgraph as tf
from tests.helpers import run

from .test_variable_store import _init_run


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
    assert tf.AUTO_REUSE is tf.api.variable_scope.AUTO_REUSE
    with tf.variable_scope("rv") as scope:
        a = tf.get_variable("a", [1])
        scope.reuse_variables()
        assert tf.get_variable_scope().reuse is True and tf.get_variable("a") is a
    assert len(tf.global_variables()) == 2


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


def test_values_select_graph():
    g2 = tf.Graph()
    with g2.as_default():
        x = tf.constant(1.0)
    with tf.variable_scope("in_g2", values=[x]):
        y = tf.identity(x, name="y")
        v = tf.get_variable("v", [1])
    assert y.graph is g2 and v.graph is g2 and y.name == "in_g2/y:0"
    assert run(tf.constant(2.0)) == 2.0   # the default graph is restored
