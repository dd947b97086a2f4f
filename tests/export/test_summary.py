"""summary / print_summary / Graph.summary: ops by type, variables, parameters, placeholders."""

from __future__ import annotations

import io

import staticgraph as tf
from staticgraph.export import print_summary, summary


def _model():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        tf.placeholder(tf.int64, [], name="step")
        with tf.name_scope("layer1"):
            w = tf.Variable(tf.zeros([784, 10]), name="w")
            b = tf.Variable(tf.zeros([10]), name="b")
            h = tf.nn.relu(tf.matmul(x, w) + b)
        tf.Variable(0, trainable=False, name="counter")
    return g, h


def test_summary_table_and_numbers():
    g, h = _model()
    s = summary(g)
    assert isinstance(s, str)
    assert s.num_ops == len(g.get_operations())
    assert s.ops_by_type["VariableV2"] == 3
    assert s.ops_by_type["MatMul"] == 1 and s.ops_by_type["Placeholder"] == 2
    assert list(s.ops_by_type.values()) == sorted(s.ops_by_type.values(), reverse=True)
    assert s.total_parameters == 784 * 10 + 10 + 1
    assert s.trainable_parameters == 7850
    names = {v[0]: v for v in s.variables}
    assert names["layer1/w"][1:4] == ("float32", (784, 10), 7840)
    assert names["counter"][4] is False and names["layer1/w"][4] is True
    assert s.placeholders == [("x", "float32", (None, 784)), ("step", "int64", ())]
    text = str(s)
    assert "Total parameters: 7,851" in text
    assert "Trainable parameters: 7,850" in text
    assert any(line.split()[:1] == ["layer1/w"] and "(784, 10)" in line and "7,840" in line
               for line in text.splitlines())
    assert any(line.split()[:3] == ["x", "float32", "(?,"] for line in text.splitlines())
    assert any(line.split() == ["MatMul", "1"] for line in text.splitlines())


def test_graph_method_and_print_summary():
    g, h = _model()
    assert str(g.summary()) == str(summary(g))
    buf = io.StringIO()
    returned = print_summary(g, file=buf)
    assert buf.getvalue() == str(returned) + "\n"


def test_summary_of_fetches_counts_what_they_need():
    g, h = _model()
    s = summary(h)
    assert "counter" not in {v[0] for v in s.variables}
    assert [p[0] for p in s.placeholders] == ["x"]
    assert s.total_parameters == 7850


def test_summary_of_unknown_shapes_and_empty_graph():
    g = tf.Graph()
    s = summary(g)
    assert s.num_ops == 0 and s.total_parameters == 0 and "(none)" in s
    with g.as_default():
        tf.placeholder(tf.float32, None, name="anything")
    s = summary(g)
    assert s.placeholders == [("anything", "float32", None)]
    assert "<unknown>" in s
