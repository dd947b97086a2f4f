"""graphlib.hooks: what higher layers register with graphlib (graphlib imports none of them)."""

import pytest

import staticgraph as tf
from staticgraph.export import graph_table
from staticgraph.graphlib import hooks
from staticgraph.graphlib.graph_def import variable_from_ops


@pytest.fixture
def unregistered(monkeypatch):
    monkeypatch.setattr(hooks._Registered, "variable_class", None)
    monkeypatch.setattr(hooks._Registered, "variable_from_ops", None)
    monkeypatch.setattr(hooks._Registered, "summary", None)


def test_importing_staticgraph_registers_the_variable_type_and_the_summary():
    cls, from_ops = hooks.variable_type()
    assert cls is tf.Variable
    assert from_ops == tf.Variable._from_ops
    assert hooks._Registered.summary is graph_table.summary


def test_graph_summary_goes_through_the_hook():
    with tf.Graph().as_default() as g:
        tf.Variable(tf.zeros([2, 3]), name="w")
        assert g.summary() == tf.export.summary(g)
        assert g.summary().trainable_parameters == 6


def test_variables_round_trip_through_graph_files_by_the_registered_type():
    with tf.Graph().as_default() as g:
        w = tf.Variable(tf.ones([2]), name="w")
        text = g.as_graph_def().to_json()
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(text, name="")
        (restored,) = g2.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)
        assert isinstance(restored, tf.Variable) and restored.op.name == w.op.name


def test_without_registrations_the_hooks_say_what_to_import(unregistered):
    with tf.Graph().as_default() as g:
        w = tf.Variable(tf.ones([2]), name="w")
        with pytest.raises(LookupError, match="import staticgraph"):
            g.summary()
        with pytest.raises(LookupError, match="registers Variable"):
            variable_from_ops(w.op, w.initializer, w.value(), w.initial_value)
        # Writing a graph skips collection entries of an unknown type (as it skips
        # other Python objects) instead of failing.
        assert "variables" not in g.as_graph_def()["collections"]
    assert not hooks.is_variable_object(w)
