"""Differential tests of the optimizer: every level computes what level 0 computes.

Random programs of registry ops (and their gradient graphs) run at levels 0, 1
and 2 on random float32 feeds must give outputs of the same dtype and shape and
the same values within float32 rounding; the user's graph is never changed; every
op of an optimized copy knows the user line it stems from; variables, assignments
and random streams behave identically at every level.
"""

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings

import staticgraph as tf
from staticgraph.optimizer import optimize_signature

from . import graph_strategies
from .graph_strategies import (assert_same_values, assert_user_lines, build, feed_values,
                               gradient_fetches, programs, snapshot)

LEVELS = (0, 1, 2)
USER_FILES = [__file__, graph_strategies.__file__]
# Deterministic and bounded; no "explain" phase (it writes patch files).
BOUNDED = settings(max_examples=400, deadline=None, derandomize=True, database=None,
                   suppress_health_check=list(HealthCheck), print_blob=False,
                   phases=[Phase.explicit, Phase.generate, Phase.shrink])


def run_at_levels(graph, fetches, feed=None, levels=LEVELS, runs=2, before_each=None):
    """``{level: [values of each run]}``, each level in a fresh session.

    Also checks that the feeds come back unmodified (no kernel writes into them).
    """
    feed = feed or {}
    out = {}
    for level in levels:
        with tf.Session(graph=graph, optimizer_level=level) as sess:
            if before_each is not None:
                sess.run(before_each)
            copies = {k: np.array(v, copy=True) for k, v in feed.items()}
            out[level] = [sess.run(fetches, copies) for _ in range(runs)]
            for k, v in feed.items():
                np.testing.assert_array_equal(copies[k], v, err_msg=f"level {level} wrote "
                                              f"into the feed of {k.name}")
    return out


def check_program(program, gradients=False, feeds_as_constants=False, cut=False):
    """Run ``program`` (or its gradients) at every level; ``cut`` also feeds an
    intermediate value (chosen by the feed seed), which cuts the graph there."""
    graph = tf.Graph()
    with graph.as_default():
        built = build(program, feeds_as_constants=feeds_as_constants)
        fetches = gradient_fetches(program, built) if gradients else built.fetches
        feed = {} if feeds_as_constants else feed_values(program, built)
    if cut:
        k = program.feed_seed % len(program.steps)
        if program.steps[k][0] not in ("placeholder", "const"):
            rng = np.random.default_rng(program.feed_seed + 1)
            feed[built.values[k]] = rng.uniform(-2, 2, program.shapes[k]).astype(np.float32)
    if not fetches:
        return
    before = snapshot(graph)
    results = run_at_levels(graph, fetches, feed)
    reference = results[0][0]
    for level, runs in results.items():
        for i, (first, again) in enumerate(zip(runs[0], runs[1])):
            # A second run of one plan repeats the first exactly (no state corrupted).
            np.testing.assert_array_equal(again, first,
                                          err_msg=f"level {level}, run 2, fetch {i}")
        for i, (value, ref) in enumerate(zip(runs[0], reference)):
            assert_same_values(value, ref, f"level {level} vs 0, fetch {i} "
                                           f"({fetches[i].name})")
    assert snapshot(graph) == before, "running changed the user's graph"
    for level in (1, 2):
        working = optimize_signature(graph, fetches, list(feed), level)
        assert_user_lines(working.ops(), USER_FILES)
        ids = [op._id for op in working.ops()]  # plans name kernels and values by _id
        assert len(set(ids)) == len(ids), f"level {level}: ops share an _id: " + ", ".join(
            f"{op.name}={op._id}" for op in working.ops() if ids.count(op._id) > 1)
        user_ops = {id(op) for op in graph.get_operations()}
        assert all(id(working.origin(op)) in user_ops for op in working.ops())
        for t, value in zip(working.fetches, reference):
            assert t.dtype.np_dtype == np.asarray(value).dtype
            assert t.shape.is_compatible_with(np.shape(value)), \
                f"level {level}: {t.name} claims {t.shape} but computes {np.shape(value)}"
    assert snapshot(graph) == before, "optimizing changed the user's graph"


# ------------------------------------------------------------ random programs
@BOUNDED
@given(programs(max_steps=14))
def test_random_programs_agree_at_every_level(program):
    check_program(program, cut=True)


@settings(BOUNDED, max_examples=300)
@given(programs(max_steps=10))
def test_random_gradient_graphs_agree_at_every_level(program):
    check_program(program, gradients=True)


@settings(BOUNDED, max_examples=150)
@given(programs(max_steps=10, allow_unknown_dims=False))
def test_fully_constant_programs_agree_at_every_level(program):
    # Every leaf is a constant: level 1 folds the whole program at compile time.
    check_program(program, feeds_as_constants=True)


@settings(BOUNDED, max_examples=100)
@given(programs(max_steps=8, allow_unknown_dims=False))
def test_fully_constant_gradient_graphs_agree_at_every_level(program):
    check_program(program, gradients=True, feeds_as_constants=True)


# ------------------------------------------------------------- user lines
def _mark(lines):
    """Returns ``mark(t)``: records the caller's line (the line declaring ``t``)."""
    def mark(t):
        lines.add(sys._getframe(1).f_lineno)
        return t
    return mark


def test_every_optimized_op_knows_its_user_line():
    lines = set()
    mark = _mark(lines)
    g = tf.Graph()
    with g.as_default():
        x = mark(tf.placeholder(tf.float32, [None, 3], name="x"))  # fed: 4 rows
        w = mark(tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10))
        b = mark(tf.constant(np.ones(4, np.float32)) * tf.constant(0.5))     # folds
        h = mark(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b)))               # fuses
        h2 = mark(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b)))              # duplicate
        y = mark(tf.reshape(tf.reshape(h * 1.0 + 0.0, [-1]), [-1, 4]))         # simplifies
        z = mark(tf.transpose(tf.transpose(y, [1, 0]), [1, 0]) - h2)
        e = mark(tf.sigmoid(tf.tanh(z) * 2.0 + 1.0) * tf.cast(z, tf.float32))  # a chain
        img = mark(tf.reshape(e, [-1, 2, 2, 1]))
        k = mark(tf.constant(np.full((2, 2, 1, 2), 0.25, np.float32)))
        conv = mark(tf.nn.relu6(tf.nn.conv2d(img, k, [1, 1, 1, 1], "SAME") + [0.5, -0.5]))
        part = mark(tf.reduce_mean(tf.square(e)) + tf.reduce_sum(tf.constant([1.0, 2.0])))
        loss = mark(part + tf.reduce_sum(conv))
        grads = mark(tf.gradients(loss, [x, w, k]))
    fetches = [loss] + grads
    for level in (1, 2):
        working = optimize_signature(g, fetches, [x], level)
        assert_user_lines(working.ops(), [__file__])
        for op in working.ops():
            assert op.traceback.lineno in lines, \
                f"level {level}: {op.name} ({op.type}) points to line {op.traceback.lineno}"
        assert working.report.count() > 0
        types = {op.type for op in working.ops()}
        if level == 2:  # the copy has folded, merged and fused ops, all with user lines
            assert {"FusedMatMul", "FusedConv2D", "FusedElementwise"} <= types, types
    # Errors raised at run time in an optimized copy name the user's op and line.
    with tf.Session(graph=g) as sess:
        feed = {x: np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)}
        values = sess.run(fetches, feed)
    with tf.Session(graph=g, optimizer_level=0) as sess:
        for got, ref in zip(values, sess.run(fetches, feed)):
            assert_same_values(got, ref)


def test_user_lines_in_report_point_to_user_code():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        c = tf.constant(3.0) * tf.constant(4.0)
        line = sys._getframe().f_lineno - 1
        y = x * c + x * c
    with tf.Session(graph=g) as sess:
        report = sess.explain(y, {x: None})
    folds = [ch for ch in report.changes if ch.pass_name == "fold" and ch.action == "replaced"]
    assert folds
    assert any(f is not None and f.filename == __file__ and f.lineno == line
               for ch in folds for f in ch.user_lines)
    assert f"{__file__}:{line}" in str(report)


# ------------------------------------------------------- state at every level
def test_assign_order_same_at_every_level():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(tf.zeros([2]), name="v")
        a1 = tf.assign(v, tf.constant([1.0, 2.0]) * 1.0)
        with tf.control_dependencies([a1]):
            a2 = tf.assign_add(v, tf.constant([10.0, 10.0]) + 0.0)
        with tf.control_dependencies([a2]):
            a3 = tf.assign(v, v.read_value() * 2.0)
        with tf.control_dependencies([a3]):
            a4 = tf.assign_sub(v, tf.constant([2.0, 4.0]) * tf.constant(0.5))
        with tf.control_dependencies([a4]):
            r = v.read_value() * 1.0
        init = tf.global_variables_initializer()
    results = run_at_levels(g, [a1, a2, a3, a4, r], before_each=init)
    expected = [[1, 2], [11, 12], [22, 24], [21, 22], [21, 22]]
    for level, runs in results.items():
        for run in runs:  # the second run starts again from assign(v, [1, 2])
            for got, want in zip(run, expected):
                np.testing.assert_array_equal(got, np.float32(want), err_msg=f"level {level}")


def test_identical_assignments_both_happen_at_every_level():
    g = tf.Graph()
    with g.as_default():
        counter = tf.Variable(0.0, name="counter")
        one = tf.constant(1.0)
        inc1 = tf.assign_add(counter, one)
        inc2 = tf.assign_add(counter, one)          # same type, attrs, inputs: not a duplicate
        with tf.control_dependencies([inc1, inc2]):
            after = counter.read_value()
        init = tf.global_variables_initializer()
    for level in LEVELS:
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            assert sess.run(after) == 2.0
            sess.run([inc1, inc2])
            assert sess.run(counter) == 4.0, f"level {level}"
        working = optimize_signature(g, [after], [], level)
        assert sum(op.type == "AssignAdd" for op in working.ops()) == 2


def test_variable_reads_are_never_folded():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.float32([1.0, 2.0]), name="v")
        y = v * 1.0 + tf.constant(2.0) * tf.constant(3.0)
        set_v = tf.assign(v, [5.0, 7.0])
        init = tf.global_variables_initializer()
    for level in LEVELS:
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            np.testing.assert_array_equal(sess.run(y), np.float32([7, 8]))
            sess.run(set_v)
            np.testing.assert_array_equal(sess.run(y), np.float32([11, 13]))


def _random_graph():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1234)
        shape = tf.constant([3]) * 1                 # a foldable shape
        r1 = tf.random_normal(shape, seed=5)
        r1_again = tf.random_normal([3], seed=5)     # same seeds: same stream as r1 (TF1)
        r2 = tf.random_normal([3])                   # op seeds from the graph's counter
        r3 = tf.random_normal([3])                   # differs from r2: never merged
        u = tf.random_uniform([2, 2], minval=-1.0, maxval=1.0) * 1.0 + 0.0
        t = tf.truncated_normal([4], seed=9)
        s = tf.random_shuffle(tf.range(6), seed=3)
        both = r2 + r3                               # two streams, order must not matter
    return g, [r1, r1_again, r2, r3, u, t, s, both]


def test_random_streams_same_at_every_level():
    g, fetches = _random_graph()
    before = snapshot(g)
    results = run_at_levels(g, fetches, runs=3)
    for level, runs in results.items():
        for run, ref in zip(runs, results[0]):
            for i, (got, want) in enumerate(zip(run, ref)):
                np.testing.assert_array_equal(got, want, err_msg=f"level {level}, fetch {i}")
    r0 = results[0]
    np.testing.assert_array_equal(r0[0][0], r0[0][1])       # same (graph, op) seeds
    assert not np.array_equal(r0[0][2], r0[0][3])           # different op seeds
    assert not np.array_equal(r0[0][0], r0[1][0])           # the stream advances per run
    np.testing.assert_allclose(r0[1][7], r0[1][2] + r0[1][3])
    for level in LEVELS:   # nothing random was folded or merged
        working = optimize_signature(g, fetches, [], level)
        types = [op.type for op in working.ops()]
        assert types.count("RandomStandardNormal") == 4
        assert types.count("RandomUniform") == 1
        assert types.count("TruncatedNormal") == 1
        assert types.count("RandomShuffle") == 1
    assert snapshot(g) == before


def test_random_streams_independent_of_what_else_is_fetched():
    # Per-op streams: fetching r2 alone, then both, gives the same sequence for r2.
    g, fetches = _random_graph()
    r2, r3 = fetches[2], fetches[3]
    seqs = {}
    for level in LEVELS:
        with tf.Session(graph=g, optimizer_level=level) as sess:
            seqs[level] = [sess.run(r2), sess.run([r2, r3])[0], sess.run(r2 + r3)]
    for level in (1, 2):
        for got, want in zip(seqs[level], seqs[0]):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("hide", ["shape", "size", "rank", "zeros_like", "identity_mul",
                                  "stop_gradient"])
def test_assign_behind_foldable_op_still_happens(hide):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.float32([1.0, 2.0, 3.0]), name="v")
        inc = tf.assign_add(v, tf.constant([1.0, 1.0, 1.0]) * 2.0)
        hidden = {"shape": lambda: tf.shape(inc),
                  "size": lambda: tf.size(inc),
                  "rank": lambda: tf.rank(inc),
                  "zeros_like": lambda: tf.zeros_like(inc, optimize=False),
                  "identity_mul": lambda: tf.identity(inc) * 1.0 + 0.0,
                  "stop_gradient": lambda: tf.stop_gradient(inc) * 0.0}[hide]()
        init = tf.global_variables_initializer()
    values, after = {}, {}
    for level in LEVELS:
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            values[level] = [sess.run(hidden), sess.run(hidden)]
            after[level] = sess.run(v)
    np.testing.assert_array_equal(after[0], np.float32([5, 6, 7]))
    for level in (1, 2):
        np.testing.assert_array_equal(after[level], after[0],
                                      err_msg=f"level {level}: the assignments differ")
        for got, want in zip(values[level], values[0]):
            assert_same_values(got, want, f"level {level}")


def test_dropout_with_seed_same_at_every_level():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(42)
        x = tf.placeholder(tf.float32, [4, 25])
        d = tf.nn.dropout(x * 1.0, keep_prob=0.5, seed=7)
        w_np = np.linspace(0.5, 1.5, 100, dtype=np.float32).reshape(4, 25)
        loss = tf.reduce_sum(d * tf.constant(w_np))
        gx, = tf.gradients(loss, [x])
    feed = {x: np.random.default_rng(0).uniform(1, 2, size=(4, 25)).astype(np.float32)}
    results = run_at_levels(g, [d, gx], feed, runs=3)
    for level, runs in results.items():
        for run, ref in zip(runs, results[0]):
            for got, want in zip(run, ref):
                np.testing.assert_array_equal(got, want, err_msg=f"level {level}")
        for dv, gv in runs:  # forward and gradient used one mask
            kept = dv != 0
            assert 0 < kept.sum() < kept.size
            np.testing.assert_allclose(gv, np.where(kept, 2.0 * w_np, 0.0), rtol=1e-6)
    assert not np.array_equal(results[0][0][0], results[0][1][0])


def test_training_steps_same_at_every_level():
    # Gradients + variable updates: a few SGD steps give the same weights at every level.
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 2])
        w = tf.Variable(tf.random_normal([3, 2], seed=1), name="w")
        b = tf.Variable(tf.zeros([2]), name="b")
        pred = tf.nn.relu(tf.matmul(x, w) + b) * 1.0
        loss = tf.reduce_mean(tf.square(pred - y)) + 0.0
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
    rng = np.random.default_rng(1)
    feed = {x: rng.normal(size=(8, 3)).astype(np.float32),
            y: rng.normal(size=(8, 2)).astype(np.float32)}
    finals = {}
    for level in LEVELS:
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            losses = [sess.run([step, loss], feed)[1] for _ in range(5)]
            finals[level] = [losses] + sess.run([w, b])
    for level in (1, 2):
        for got, want in zip(finals[level], finals[0]):
            assert_same_values(np.asarray(got, np.float32), np.asarray(want, np.float32))


# ------------------------------------------------- the check itself can fail
def test_differential_check_catches_a_wrong_rewrite(monkeypatch):
    from staticgraph.optimizer import fusion

    def wrong(working, pass_name="fuse"):  # "tanh(x) == x": not an exact rewrite
        for op in list(working.ops()):
            if op.type == "Tanh":
                working.replace(op.outputs[0], op.inputs[0], "wrong on purpose", pass_name)
        return 0

    program = graph_strategies.Program(
        steps=[("placeholder", (2, 3), False), ("unary", "tanh", 0)],
        shapes=[(2, 3), (2, 3)], fetch=[1], feed_seed=0)
    check_program(program)
    monkeypatch.setattr(fusion, "fuse", wrong)
    with pytest.raises(AssertionError, match="level 2 vs 0"):
        check_program(program)
