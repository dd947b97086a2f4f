"""Function graphs: bodies of control-flow ops, capturing the tensors of the graphs around them."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib import FunctionGraph
from staticgraph.graphlib.traversal import needed_ops


def placeholder_for(graph, outer):
    """The builder's input for a captured tensor (the control-flow ops pass theirs)."""
    return tf.placeholder(outer.dtype, outer.shape, name=outer.op.name.replace("/", "_"))


def body(name, outer):
    return FunctionGraph(name, outer, placeholder_for)


def test_ops_declared_in_a_body_go_there_and_capture_outer_tensors(g):
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.constant(np.ones(3, np.float32), name="w")
    before = len(g.get_operations())
    f = body("f", g)
    with f.as_default():
        y = x * 2.0 + w
        z = tf.reduce_sum(y * x)
    assert len(g.get_operations()) == before          # the outer graph is untouched
    assert y.graph is f and z.graph is f
    assert f.captured_tensors == [x, w]                # each captured once, in order
    inner_x, inner_w = (inner for _, inner in f.captures)
    assert inner_x.op.type == "Placeholder" and inner_x.graph is f
    assert inner_x.dtype == tf.float32 and inner_x.shape.as_list() == [3]
    assert f.inputs == [inner_x, inner_w]
    multiply = y.op.inputs[0].op
    assert multiply.inputs[0] is inner_x               # the body reads its own input
    assert {t.op.name for t in z.op.inputs[0].op.inputs} >= {inner_x.op.name}


def test_python_values_and_body_tensors_mix_with_outer_ones(g):
    x = tf.placeholder(tf.float32, [], name="x")
    f = body("f", g)
    with f.as_default():
        a = tf.placeholder(tf.float32, [], name="a")   # an argument the builder made
        f.arguments.append(a)
        s = tf.add(a, x) * 3.0
        c = tf.constant(1.5)
    assert c.graph is f and s.graph is f
    assert f.inputs == [a, f.captures[0][1]]
    # the ops the body's output needs stay inside the body
    ops = needed_ops([s], {})
    assert all(op.graph is f for op in ops)
    assert {op.type for op in ops} == {"Placeholder", "Add", "Const", "Mul"}


def test_nested_bodies_capture_through_the_graph_in_between(g):
    x = tf.placeholder(tf.float32, [2], name="x")
    outer_body = body("outer", g)
    with outer_body.as_default():
        u = tf.constant(1.0) + 0.0
        inner_body = body("inner", outer_body)
        with inner_body.as_default():
            y = x * u
    assert outer_body.encloses(g) and inner_body.encloses(g) and inner_body.encloses(outer_body)
    assert not g.encloses(outer_body)
    # the inner body's inputs come from the body around it, which captured x itself
    (x_outer, x_middle), = outer_body.captures
    assert x_outer is x and x_middle.graph is outer_body
    assert [outer for outer, _ in inner_body.captures] == [x_middle, u]
    assert y.graph is inner_body


def test_variables_read_in_a_body_are_captured_values(g):
    v = tf.Variable([1.0, 2.0], name="v")
    f = body("f", g)
    with f.as_default():
        y = v * 2.0
    (outer, inner), = f.captures
    assert outer.graph is g and outer.op.name.startswith("v")
    assert y.op.inputs[0] is inner


def test_capturing_from_a_graph_that_does_not_enclose_the_body_is_refused(g):
    other = tf.Graph()
    with other.as_default():
        stranger = tf.constant(1.0, name="stranger")
    f = body("f", g)
    with pytest.raises(ValueError, match="stranger.*does not enclose the function graph 'f'"):
        f.capture(stranger)
    assert "FunctionGraph 'f'" in f.describe() and g.describe() in f.describe()


def test_bodies_have_their_own_names_and_the_outer_seed(g):
    g.seed = 7
    f = body("cond/true", g)
    with f.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="a")
    assert (a.op.name, b.op.name) == ("a", "a_1")
    assert f.seed == 7 and f.name == "cond/true"
