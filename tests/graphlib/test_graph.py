"""Graph: creation order, unique names, name scopes, lookups, collections, control
dependencies, devices, finalize, the default-graph stack and mixing graphs."""

import contextvars
import threading

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib import Graph, GraphKeys, Operation, Tensor

from ..helpers import caller_line


def test_ops_in_creation_order_and_unique_names(g):
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    c = tf.add(a, b)
    d = tf.add(a, b)
    e = tf.add(a, b, name="add_1")   # "add_1" is taken (case-insensitively) by "Add_1"
    f = tf.add(a, b, name="add")
    h = tf.add(a, b, name="add")
    assert [op.name for op in g.get_operations()] == [
        "Const", "Const_1", "Add", "Add_1", "add_1_1", "add_2", "add_3"]
    assert (c.name, d.name, e.name, f.name, h.name) == (
        "Add:0", "Add_1:0", "add_1_1:0", "add_2:0", "add_3:0")
    assert g.get_operations()[0] is a.op and g.get_operations()[2] is c.op
    assert g.get_operations() is not g.get_operations()   # a copy each time


def test_unique_name_follows_tf1():
    g = tf.Graph()
    assert g.unique_name("foo") == "foo"
    assert g.unique_name("foo") == "foo_1"
    assert g.unique_name("foo_1") == "foo_1_1"
    assert g.unique_name("foo") == "foo_2"
    assert g.unique_name("Foo") == "Foo_3"          # case-insensitive, as TF1
    assert g.unique_name("bar", mark_as_used=False) == "bar"
    assert g.unique_name("bar") == "bar"


def test_name_scopes(g):
    with tf.name_scope("layer") as scope:
        assert scope == "layer/"
        a = tf.constant(1.0, name="a")
        with tf.name_scope("inner") as inner:
            assert inner == "layer/inner/"
            b = tf.constant(1.0, name="b")
            assert tf.get_name_scope() == "layer/inner"
    with tf.name_scope("layer") as scope2:
        assert scope2 == "layer_1/"
    with tf.name_scope("layer/"):            # absolute form re-enters the first scope
        c = tf.constant(1.0, name="c")
    with tf.name_scope("layer"):
        with tf.name_scope(None):            # None resets to the top level
            d = tf.constant(1.0, name="d")
    with tf.name_scope(None, "default_scope") as ds:
        assert ds == "default_scope/"
    assert (a.op.name, b.op.name, c.op.name, d.op.name) == (
        "layer/a", "layer/inner/b", "layer/c", "d")
    assert tf.get_name_scope() == ""


def test_name_scope_uses_values_graph():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        x = tf.constant(1.0)
    with g2.as_default():
        with tf.name_scope("s", values=[x]):
            assert tf.get_default_graph() is g1
            y = tf.identity(x)
    assert y.graph is g1 and y.op.name == "s/Identity"


def test_invalid_names_raise(g):
    with pytest.raises(ValueError, match="not a valid"):
        tf.constant(1.0, name="bad name")
    with pytest.raises(ValueError, match="not a valid"):
        tf.constant(1.0, name="x:0")
    with pytest.raises(ValueError, match="not a valid scope name"):
        with tf.name_scope("has space"):
            pass


def test_lookups(g):
    x = tf.placeholder(tf.float32, name="x")
    y = tf.identity(x, name="y")
    assert g.get_operation_by_name("y") is y.op
    assert g.get_tensor_by_name("y:0") is y
    assert g.as_graph_element("x:0") is x and g.as_graph_element("x") is x.op
    with pytest.raises(KeyError, match="'nope'"):
        g.get_operation_by_name("nope")
    with pytest.raises(KeyError, match="does not exist"):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(KeyError, match="only has 1 outputs"):
        g.get_tensor_by_name("y:1")
    with pytest.raises(ValueError, match="Tensor names must be of the form"):
        g.get_tensor_by_name("y")
    with pytest.raises(ValueError, match="refer to a Tensor"):
        g.get_operation_by_name("y:0")
    with pytest.raises(ValueError, match="not a valid one"):
        g.get_tensor_by_name("y:zero")
    with pytest.raises(TypeError):
        g.as_graph_element(3)


def test_collections(g):
    g.add_to_collection("things", 1)
    g.add_to_collections(["a", "b", "a"], 2)      # duplicates ignored, as TF1
    tf.add_to_collection("things", 3)
    assert tf.get_collection("things") == [1, 3]
    assert g.get_collection("a") == [2] and g.get_collection("b") == [2]
    copy = g.get_collection("things")
    copy.append(99)
    assert g.get_collection("things") == [1, 3]       # get_collection returns a copy
    ref = tf.get_collection_ref("things")
    ref.append(4)
    assert g.get_collection("things") == [1, 3, 4]    # the ref is the live list
    assert g.get_collection("missing") == []
    assert set(g.get_all_collection_keys()) >= {"things", "a", "b"}
    g.clear_collection("things")
    assert g.get_collection("things") == []
    assert GraphKeys.GLOBAL_VARIABLES == "variables" and GraphKeys.VARIABLES == "variables"
    assert GraphKeys.TRAINABLE_VARIABLES == "trainable_variables"
    assert GraphKeys.UPDATE_OPS == "update_ops" and GraphKeys.LOSSES == "losses"


def test_collection_scope_filter(g):
    with tf.name_scope("enc"):
        a = tf.constant(1.0, name="w")
    b = tf.constant(1.0, name="w")
    g.add_to_collection("ws", a)
    g.add_to_collection("ws", b)
    g.add_to_collection("ws", "no name attribute")
    assert g.get_collection("ws", scope="enc") == [a]
    assert g.get_collection("ws", scope="w") == [b]


def test_control_dependencies(g):
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    with tf.control_dependencies([a, b.op]):
        c = tf.constant(3.0, name="c")
        d = tf.identity(a, name="d")      # a is already an input: not repeated
        with tf.control_dependencies(None):
            e = tf.constant(4.0, name="e")
        with tf.control_dependencies([c]):
            f = tf.constant(5.0, name="f")
    h = tf.constant(6.0, name="h")
    assert c.op.control_inputs == [a.op, b.op]
    assert d.op.control_inputs == [b.op]
    assert e.op.control_inputs == []
    assert f.op.control_inputs == [a.op, b.op, c.op]
    assert h.op.control_inputs == []
    with pytest.raises(TypeError):
        with tf.control_dependencies([3]):
            pass


def test_device_scopes_recorded(g):
    with tf.device("/cpu:0"):
        a = tf.constant(1.0)
        with tf.device("/gpu:0"):
            b = tf.constant(1.0)
        with tf.device(None):
            c = tf.constant(1.0)
    with g.device(lambda op: "/gpu:1" if op.type == "Identity" else "/cpu:1"):
        d = tf.constant(1.0)
        e = tf.identity(d)
    f = tf.constant(1.0)
    assert (a.op.device, b.op.device, c.op.device, f.op.device) == ("/cpu:0", "/gpu:0", "", "")
    assert (d.device, e.device) == ("/cpu:1", "/gpu:1")


def test_finalize(g):
    tf.constant(1.0)
    g.finalize()
    assert g.finalized
    with pytest.raises(RuntimeError, match="finalized"):
        tf.constant(2.0)
    with pytest.raises(RuntimeError, match="finalized"):
        g.add_to_collection("x", 1)
    with tf.Session() as sess:                      # running adds nothing to the graph
        assert sess.run("Const:0") == 1.0
    g._unsafe_unfinalize()
    tf.constant(2.0)


def test_default_graph_stack():
    outer = tf.get_default_graph()
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default() as entered:
        assert entered is g1 and tf.get_default_graph() is g1
        with g2.as_default():
            assert tf.get_default_graph() is g2
            assert tf.constant(1.0).graph is g2
        assert tf.get_default_graph() is g1
        with pytest.raises(AssertionError, match="nested graphs"):
            tf.reset_default_graph()
    assert tf.get_default_graph() is outer


def test_reset_default_graph():
    before = tf.get_default_graph()
    tf.constant(1.0)
    tf.reset_default_graph()
    after = tf.get_default_graph()
    assert after is not before and after.get_operations() == []


def test_default_graph_is_a_context_variable():
    g1 = tf.Graph()
    seen = {}

    def other_thread():
        seen["thread"] = tf.get_default_graph()

    with g1.as_default():
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        ctx = contextvars.copy_context()
    assert seen["thread"] is not g1            # a new thread starts at the global default
    assert ctx.run(tf.get_default_graph) is g1  # a copied context keeps the stack


def test_name_scopes_are_per_thread(g):
    errors = []
    barrier = threading.Barrier(2)

    def worker(scope):
        try:
            with g.as_default(), tf.name_scope(scope):
                barrier.wait()
                t = tf.constant(1.0, name="c")
                barrier.wait()
                assert t.op.name == f"{scope}/c", t.op.name
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in ("left", "right")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_mixing_graphs_names_both():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        a = tf.constant(1.0, name="a")
    with g2.as_default():
        b = tf.constant(1.0, name="b")
    with pytest.raises(ValueError) as info:
        tf.add(a, b)
    msg = str(info.value)
    assert "'a:0'" in msg and "'b:0'" in msg
    assert f"#{g1._id}" in msg and f"#{g2._id}" in msg
    assert "test_graph.py" in msg        # graphs are described by where they were created
    with pytest.raises(ValueError, match=f"#{g1._id}.*#{g2._id}|#{g2._id}.*#{g1._id}"):
        with g2.as_default(), tf.control_dependencies([a]):
            pass
    with pytest.raises(ValueError, match="not an element of this graph"):
        g2.as_graph_element(a)


def test_op_records_user_frame(g):
    x = tf.placeholder(tf.float32, name="x"); line = caller_line()  # noqa: E702
    assert x.op.traceback.filename == __file__
    assert x.op.traceback.lineno == line
    assert x.op.user_location == f"{__file__}:{line}"


def test_composite_functions_record_the_user_frame(g):
    c = tf.constant(1.0)
    line = caller_line() + 1
    out = tf.tuple([c])[0]
    assert out.op.type == "Identity" and out.op.traceback.lineno == line
    assert all(op.traceback.filename == __file__ for op in g.get_operations())


def test_declaration_errors_name_the_user_line(g):
    a = tf.placeholder(tf.float32, [2, 3])
    b = tf.placeholder(tf.float32, [4])
    line = caller_line() + 2
    with pytest.raises(ValueError) as info:
        tf.add(a, b, name="bad_add")
    msg = str(info.value)
    assert "'bad_add'" in msg and "'Add'" in msg and "[2,3], [4]" in msg
    assert f"{__file__}:{line}" in msg
    c = tf.placeholder(tf.int32, [2, 3])
    with pytest.raises(TypeError) as info:
        tf.add(a, c)
    assert "int32" in str(info.value) and "float32" in str(info.value)


def test_operation_attributes(g):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.add(x, 1.0, name="y")
    op = y.op
    assert isinstance(op, Operation) and op.type == "Add" and op.name == "y"
    assert op.inputs[0] is x and op.inputs[1].op.type == "Const"
    assert op.outputs == [y] and op.values() == (y,) and op.graph is g
    assert x.op.get_attr("dtype") is tf.float32
    assert x.op.get_attr("shape") == tf.TensorShape([None, 3])
    with pytest.raises(ValueError, match="no attr named 'nope'"):
        op.get_attr("nope")
    assert "y = Add(x:0" in op.node_def
    assert repr(op) == "<tf.Operation 'y' type=Add>"


def test_tensor_attributes(g):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.identity(x)
    assert isinstance(x, Tensor) and x.op.type == "Placeholder" and x.value_index == 0
    assert x.name == "x:0" and x.dtype is tf.float32 and x.graph is g
    assert x.shape == tf.TensorShape([None, 3]) and x.get_shape() is x.shape
    assert repr(x) == "<tf.Tensor 'x:0' shape=(?, 3) dtype=float32>"
    assert x.consumers() == [y.op]
    x.set_shape([5, None])
    assert x.shape.raw == (5, 3)
    with pytest.raises(ValueError, match="not compatible"):
        x.set_shape([5, 4])
    # == is identity, so tensors key dicts
    d = {x: 1, y: 2}
    assert d[x] == 1 and d[y] == 2 and (x == x) is True and (x == y) is False
    assert (x != y) is True
    with pytest.raises(TypeError, match="bool"):
        bool(x)
    with pytest.raises(TypeError):
        iter(x)
    with pytest.raises(TypeError):
        len(x)
    with pytest.raises(TypeError, match="numpy"):
        np.asarray(x)


def test_graph_repr_and_seed():
    g = tf.Graph()  # created here: its repr names this file
    assert f"#{g._id}" in repr(g) and f"{__file__}:" in repr(g)
    with g.as_default():
        tf.set_random_seed(5)
        assert g.seed == 5
        assert tf.get_seed(None)[0] == 5 and tf.get_seed(7) == (5, 7)
        tf.set_random_seed(None)
        assert tf.get_seed(None) == (None, None)
        assert tf.get_seed(3) == (tf.graphlib.DEFAULT_GRAPH_SEED, 3)


def test_graph_is_not_shadowed_by_stdlib():
    assert isinstance(tf.Graph(), Graph)
