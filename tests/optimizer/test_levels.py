"""Optimizer levels and switches: Session(optimizer_level=...), ConfigProto, optimize()."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.optimizer import DEFAULT_LEVEL, LEVELS, Report, optimize, optimize_signature

from .graph_strategies import snapshot


def _graph():
    """Work for every pass: constants to fold, duplicates, x*1, reshape of reshape."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        scale = tf.constant(2.0) * tf.constant(1.5)                        # folds
        a = tf.tanh(x * scale)
        b = tf.tanh(x * scale)                                             # CSE
        y = tf.reshape(tf.reshape((a + b) * 1.0, [6]), [3, 2], name="y")   # simplifies
        tf.exp(x, name="unused")
    return g, x, y


X = np.arange(6, dtype=np.float32).reshape(2, 3) / 6


def _expected():
    return (2 * np.tanh(X * 3.0)).reshape(3, 2)


def _session_report(**kwargs):
    g, x, y = _graph()
    with tf.Session(graph=g, **kwargs) as sess:
        np.testing.assert_allclose(sess.run(y, {x: X}), _expected(), rtol=1e-6)
        return sess, sess.explain(y, {x: None})


def test_levels_and_default():
    assert LEVELS == (0, 1, 2) and DEFAULT_LEVEL == 2
    g, _, _ = _graph()
    assert tf.Session(graph=g).optimizer_level == 2


@pytest.mark.parametrize("level", [0, 1, 2])
def test_session_optimizer_level(level):
    sess, report = _session_report(optimizer_level=level)
    assert sess.optimizer_level == level and report.level == level
    passes = set(report.by_pass())
    if level == 0:
        assert passes == set() and report.count() == 0
    elif level == 1:
        assert {"fold", "cse"} <= passes and not {"simplify", "fuse"} & passes
        assert report.ops_by_type_after.get("Reshape") == 2   # not simplified at level 1
    else:
        assert {"fold", "cse", "simplify"} <= passes
        assert report.ops_by_type_after.get("Reshape", 0) <= 1
    if level == 1:
        assert report.ops_by_type_after.get("Tanh") == 1
    if level:  # at level 2 fusion may have taken the Tanh into a fused op
        assert "Exp" not in report.ops_by_type_after
        assert report.ops_after < report.ops_before


def _config(**options):
    return tf.ConfigProto(graph_options=tf.GraphOptions(
        optimizer_options=tf.OptimizerOptions(**options)))


def test_config_l0_turns_the_optimizer_off():
    sess, report = _session_report(config=_config(opt_level=tf.OptimizerOptions.L0))
    assert sess.optimizer_level == 0
    assert report.count() == 0 and report.by_pass() == {}


def test_config_l1_is_the_default_full_optimization():
    sess, report = _session_report(config=_config(opt_level=tf.OptimizerOptions.L1))
    assert sess.optimizer_level == DEFAULT_LEVEL
    assert {"fold", "cse"} <= set(report.by_pass())
    sess, report = _session_report(config=tf.ConfigProto())
    assert sess.optimizer_level == DEFAULT_LEVEL


def test_explicit_level_wins_over_config():
    sess, report = _session_report(config=_config(opt_level=tf.OptimizerOptions.L0),
                                   optimizer_level=1)
    assert sess.optimizer_level == 1 and report.count("fold") > 0


def test_do_constant_folding_false():
    sess, report = _session_report(config=_config(do_constant_folding=False))
    assert "fold" not in report.by_pass()
    sess, report = _session_report(config=_config(do_constant_folding=False),
                                   optimizer_level=1)
    passes = report.by_pass()
    assert "fold" not in passes and "cse" in passes
    # the two constant operands and their product are still in the copy
    assert report.ops_by_type_after.get("Mul", 0) >= 2


def test_do_common_subexpression_elimination_false():
    sess, report = _session_report(
        config=_config(do_common_subexpression_elimination=False), optimizer_level=1)
    passes = report.by_pass()
    assert "cse" not in passes and "fold" in passes
    assert report.ops_by_type_after.get("Tanh") == 2


def test_both_switches_off_leave_only_pruning():
    sess, report = _session_report(config=_config(
        do_constant_folding=False, do_common_subexpression_elimination=False),
        optimizer_level=1)
    assert report.count() == 0
    g, x, y = _graph()
    working = optimize_signature(g, [y], [x], 1, constant_folding=False, cse=False)
    assert working.report.count() == 0


@pytest.mark.parametrize("bad", [3, -1, 10, "2", 1.5, None])
def test_invalid_levels_raise(bad):
    g, x, y = _graph()
    if bad is not None:
        with pytest.raises(ValueError, match="level"):
            tf.Session(graph=g, optimizer_level=bad)
        with pytest.raises(ValueError, match="level"):
            optimize_signature(g, [y], [x], bad)
        with pytest.raises(ValueError, match="level"):
            optimize(g, y, bad)
    with pytest.raises(ValueError):
        tf.Session(graph=g, config=_config(opt_level=7))


def test_optimize_returns_a_copy_and_a_report():
    g, x, y = _graph()
    ops_before = list(g.get_operations())
    inputs_before = [tuple(op.inputs) for op in ops_before]
    before = snapshot(g)
    for level in LEVELS:
        g2, report = optimize(g, [y], level, feeds=[x])
        assert g2 is not g and isinstance(report, Report) and report.level == level
        assert report.ops_before == len(ops_before)
        assert report.ops_after == len(g2.get_operations()) < len(ops_before)
        assert not set(map(id, g2.get_operations())) & set(map(id, ops_before))
        # ops that survive keep their names; new ones are named after the user's op
        names = {op.name for op in g2.get_operations()}
        assert ("y" in names) if level < 2 else any(n.startswith("y") for n in names)
        assert all(n.split("/")[0] in {op.name for op in ops_before} for n in names)
    assert list(g.get_operations()) == ops_before
    assert all(tuple(op.inputs) == ins and all(a is b for a, b in zip(op.inputs, ins))
               for op, ins in zip(g.get_operations(), inputs_before))
    assert snapshot(g) == before
    with tf.Session(graph=g, optimizer_level=0) as sess:   # the user's graph still runs
        np.testing.assert_allclose(sess.run(y, {x: X}), _expected(), rtol=1e-6)


def test_optimize_accepts_names_and_single_fetches():
    g, x, y = _graph()
    g2, report = optimize(g, "y:0", 1, feeds=["x:0"])
    assert report.count("fold") > 0
    g3, report3 = optimize(g, y)          # default level, nothing fed: x is kept
    assert report3.level == DEFAULT_LEVEL
    assert "Placeholder" in {op.type for op in g3.get_operations()}
    assert optimize(g, y.op, 0)[1].count() == 0
    assert tf.optimizer.optimize is optimize


def test_levels_agree_numerically():
    outs = {}
    for level in LEVELS:
        g, x, y = _graph()
        with tf.Session(graph=g, optimizer_level=level) as sess:
            outs[level] = sess.run(y, {x: X})
    for level in (1, 2):
        assert outs[level].dtype == outs[0].dtype and outs[level].shape == outs[0].shape
        np.testing.assert_allclose(outs[level], outs[0], rtol=1e-6)
