"""Prune, constant folding, CSE and the report: what the copy looks like, what it computes."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph import errors
from staticgraph.optimizer import Report, constant_folding, optimize_signature

from ..helpers import caller_line
from .graph_strategies import assert_user_lines, snapshot


def _types(working):
    return [op.type for op in working.ops()]


def _run(graph, fetches, feed=None, level=2, init=None):
    with tf.Session(graph=graph, optimizer_level=level) as sess:
        if init is not None:
            sess.run(init)
        return sess.run(fetches, feed)


# ---------------------------------------------------------------------- prune
def test_prune_keeps_only_what_the_fetches_need():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        other = tf.placeholder(tf.float32, [3], name="other")
        y = tf.sigmoid(x, name="y")
        tf.tanh(other, name="unused_branch")
        tf.exp(y, name="after_fetch")
    for level in (0, 1, 2):
        working = optimize_signature(g, [y], [x], level)
        names = {working.origin(op).name for op in working.ops()}
        assert names == {"x", "y"}, f"level {level}: {names}"
        assert working.report.ops_before == 5
        # the unfed, unneeded placeholder does not have to be fed
    value = _run(g, y, {x: np.zeros(3, np.float32)})
    np.testing.assert_array_equal(value, np.full(3, 0.5, np.float32))


def test_prune_cuts_at_fed_tensors():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        h = tf.square(x, name="h")
        y = h + 1.0
    for level in (0, 1, 2):
        working = optimize_signature(g, [y], [h], level)
        assert "Square" not in _types(working)
        assert not any(working.origin(op).name == "x" for op in working.ops())
        assert _run(g, y, {h: np.float32([1, 2])}, level=level).tolist() == [2.0, 3.0]


def test_prune_keeps_control_dependencies():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0.0, name="v")
        bump = tf.assign_add(v, 1.0, name="bump")
        x = tf.placeholder(tf.float32, [], name="x")
        with tf.control_dependencies([bump]):
            y = tf.identity(x * 1.0, name="y")
        init = tf.global_variables_initializer()
    for level in (0, 1, 2):
        working = optimize_signature(g, [y], [x], level)
        copies = {working.origin(op).name: op for op in working.ops()}
        assert "bump" in copies, f"level {level}"
        fetched = working.fetches[0].op
        reach, stack = set(), [fetched]
        while stack:
            op = stack.pop()
            if id(op) not in reach:
                reach.add(id(op))
                stack += [t.op for t in op.inputs] + list(op.control_inputs)
        assert id(copies["bump"]) in reach, f"level {level}: the control dependency was lost"
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            assert sess.run(y, {x: 3.0}) == 3.0
            assert sess.run(y, {x: 3.0}) == 3.0
            assert sess.run(v) == 2.0, f"level {level}"


def test_prune_does_not_run_unfetched_stateful_ops():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
        tf.assign_add(v, 100.0, name="not_fetched")
        tf.assign(v, -1.0, name="not_fetched_either")
        r = tf.random_normal([2], seed=1, name="unused_random")
        y = v * 2.0
        init = tf.global_variables_initializer()
    for level in (0, 1, 2):
        working = optimize_signature(g, [y], [], level)
        assert not {"AssignAdd", "Assign", "RandomStandardNormal"} & set(_types(working))
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            assert sess.run(y) == 2.0
            assert sess.run(v) == 1.0, f"level {level}: an unfetched assignment ran"
            first = sess.run(r)
        with tf.Session(graph=g, optimizer_level=level) as sess:
            np.testing.assert_array_equal(sess.run(r), first)


def test_prune_after_rewrites_is_reported():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2])
        y = x * (tf.constant(2.0) * tf.constant(3.0))
    working = optimize_signature(g, [y], [x], 1)
    assert any(c.action == "removed" for c in working.report.changes)
    assert working.report.ops_after == len(working.ops()) == 3  # x, folded 6, Mul


# ------------------------------------------------------------ constant folding
def test_constant_chains_fold_to_one_constant():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        b = tf.transpose(tf.tanh(a * 0.5 + 1.0))
        c = tf.reduce_sum(tf.reshape(b, [3, 2]), axis=1) - tf.constant([1.0, 2.0, 3.0])
    expected = (np.tanh(np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5 + 1.0).T
                .reshape(3, 2).sum(axis=1) - [1, 2, 3]).astype(np.float32)
    for level in (1, 2):
        working = optimize_signature(g, [c], [], level)
        assert _types(working) == ["Const"], f"level {level}: {_types(working)}"
        value = working.ops()[0].attrs["value"]
        np.testing.assert_allclose(value, expected, rtol=1e-6)
        assert value.dtype == np.float32
        assert working.report.count("fold") >= 6
        np.testing.assert_allclose(_run(g, c, level=level), expected, rtol=1e-6)
    assert len(optimize_signature(g, [c], [], 0).ops()) > 1


def test_folding_stops_at_placeholders_and_keeps_the_rest():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        w = tf.constant([[1.0, 2.0], [3.0, 4.0]]) * 2.0
        y = tf.matmul(x, w) + tf.reduce_sum(w)
    working = optimize_signature(g, [y], [x], 1)
    types = _types(working)
    assert types.count("MatMul") == 1 and "Sum" not in types
    assert types.count("Const") == 2
    out = _run(g, y, {x: np.float32([[1, 0], [0, 1]])}, level=1)
    np.testing.assert_array_equal(out, np.float32([[22, 24], [26, 28]]))


def test_folding_respects_the_size_cap(monkeypatch):
    g = tf.Graph()
    with g.as_default():
        small = tf.tile(tf.constant([1.0, 2.0]), [4])        # 32 bytes
        large = tf.tile(tf.constant([1.0, 2.0]), [40])       # 320 bytes
    monkeypatch.setattr(constant_folding, "MAX_FOLDED_BYTES", 100)
    working = optimize_signature(g, [small, large], [], 1)
    assert _types(working).count("Tile") == 1
    assert working.fetches[0].op.type == "Const"
    assert working.fetches[1].op.type == "Tile"
    a, b = _run(g, [small, large], level=1)
    np.testing.assert_array_equal(b, np.tile(np.float32([1, 2]), 40))


def test_folding_default_size_cap_leaves_large_results():
    g = tf.Graph()
    with g.as_default():
        base = tf.constant(np.ones((512, 1024), np.float32))      # 2 MiB
        big = tf.tile(base, [6, 1])                               # 12 MiB > 10 MiB cap
        ok = base * 2.0                                           # 2 MiB: folds
    working = optimize_signature(g, [big, ok], [], 1)
    assert working.fetches[0].op.type == "Tile"
    assert working.fetches[1].op.type == "Const"


def test_random_ops_are_never_folded():
    g = tf.Graph()
    with g.as_default():
        r = tf.random_uniform(tf.constant([3]), seed=4) * tf.constant(2.0)
        s = tf.random_shuffle(tf.constant([1, 2, 3, 4, 5]), seed=2)
    for level in (1, 2):
        working = optimize_signature(g, [r, s], [], level)
        assert "RandomUniform" in _types(working) and "RandomShuffle" in _types(working)
        assert working.fetches[0].op.type != "Const"
        with tf.Session(graph=g, optimizer_level=level) as sess:
            runs = [sess.run(r) for _ in range(3)]
        assert not np.array_equal(runs[0], runs[1])


@pytest.mark.parametrize("make", ["floordiv", "truncatediv", "mod", "gather"])
def test_failing_constant_ops_fail_at_run_time_naming_the_user_op(make):
    g = tf.Graph()
    with g.as_default():
        a, z = tf.constant([1, 2]), tf.constant([0, 1])
        declare = {"floordiv": lambda: tf.floordiv(a, z, name="bad"),
                   "truncatediv": lambda: tf.truncatediv(a, z, name="bad"),
                   "mod": lambda: tf.mod(a, z, name="bad"),
                   "gather": lambda: tf.gather(a, tf.constant(5), name="bad")}[make]
        line = declare.__code__.co_firstlineno
        bad = declare()
        y = bad * 2 + tf.constant(1)
    for level in (1, 2):
        working = optimize_signature(g, [y], [], level)
        assert any(working.origin(op).name == "bad" for op in working.ops())
        with tf.Session(graph=g, optimizer_level=level) as sess:
            with pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(y)
        message = str(info.value)
        assert "bad" in message and f"{__file__}:{line}" in message, message
        assert info.value.op.name == "bad"


def test_run_time_error_after_rewrites_names_the_user_op():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None])
        line = caller_line() + 1
        y = tf.reshape(tf.identity(x) * 1.0, [4], name="to_four")
    for level in (0, 1, 2):
        with tf.Session(graph=g, optimizer_level=level) as sess:
            with pytest.raises(errors.InvalidArgumentError) as info:
                sess.run(y, {x: np.zeros(3, np.float32)})
        assert f"{__file__}:{line}" in str(info.value)
        assert "to_four" in str(info.value)


def test_folded_constants_keep_side_effects_as_control_inputs():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.float32([1, 2]), name="v")
        shape = tf.shape(tf.assign_add(v, [1.0, 1.0]))
        doubled = shape * 2
        init = tf.global_variables_initializer()
    for level in (1, 2):
        working = optimize_signature(g, [doubled], [], level)
        assert working.fetches[0].op.type == "Const"
        assert "AssignAdd" in _types(working)
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            assert sess.run(doubled).tolist() == [4]
            np.testing.assert_array_equal(sess.run(v), np.float32([2, 3]))


def test_folding_keeps_dtypes():
    g = tf.Graph()
    with g.as_default():
        i = tf.constant([3, 4]) * 2                           # int32
        h = tf.cast(tf.constant([1.5, 2.5]), tf.float16) * tf.constant(2.0, tf.float16)
        d = tf.constant(2.0, tf.float64) / tf.constant(3.0, tf.float64)
        b = tf.logical_not(tf.constant([True, False]))
        s = tf.reduce_sum(tf.constant([1.0, 2.0]))           # a scalar
    for level in (1, 2):
        working = optimize_signature(g, [i, h, d, b, s], [], level)
        assert _types(working) == ["Const"] * 5
        vi, vh, vd, vb, vs = _run(g, [i, h, d, b, s], level=level)
        assert vi.dtype == np.int32 and vi.tolist() == [6, 8]
        assert vh.dtype == np.float16 and vh.tolist() == [3.0, 5.0]
        assert vd.dtype == np.float64 and vd == 2.0 / 3.0
        assert vb.dtype == np.bool_ and vb.tolist() == [False, True]
        assert np.shape(vs) == () and vs == 3.0


# ------------------------------------------------------------------------ CSE
def test_cse_merges_duplicates():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 2])
        y = tf.placeholder(tf.float32, [2, 2])
        s1 = tf.sigmoid(tf.matmul(x, y))
        s2 = tf.sigmoid(tf.matmul(x, y))
        out = s1 * s2 + tf.matmul(x, y)
    working = optimize_signature(g, [out], [x, y], 1)
    types = _types(working)
    assert types.count("MatMul") == 1 and types.count("Sigmoid") == 1
    assert working.report.count("cse") >= 3
    feed = {x: np.float32([[1, 2], [3, 4]]), y: np.float32([[0, 1], [1, 0]])}
    m = feed[x] @ feed[y]
    sig = 1 / (1 + np.exp(-m))
    for level in (0, 1, 2):
        np.testing.assert_allclose(_run(g, out, feed, level), sig * sig + m, rtol=1e-6)


def test_cse_merges_equal_constants_only():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3])
        a = x + tf.constant([1.0, 2.0, 3.0])
        b = x + tf.constant([1.0, 2.0, 3.0])
        c = x + tf.constant([1.0, 2.0, 4.0])
        d = x + tf.constant([1.0, 2.0, 3.0], tf.float32, shape=[3])
        out = tf.stack([a, b, c, d])
    working = optimize_signature(g, [out], [x], 1)
    assert _types(working).count("Add") == 2
    feed = {x: np.float32([0, 0, 0])}
    np.testing.assert_array_equal(_run(g, out, feed, 1),
                                  np.float32([[1, 2, 3], [1, 2, 3], [1, 2, 4], [1, 2, 3]]))


@pytest.mark.parametrize("pair", ["sum_axes", "keepdims", "transpose", "matmul", "cast",
                                  "concat_axis", "softmax_vs_log", "slice"])
def test_cse_does_not_merge_different_attributes(pair):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 2])
        a, b = {
            "sum_axes": lambda: (tf.reduce_sum(x, 0), tf.reduce_sum(x, 1)),
            "keepdims": lambda: (tf.reduce_sum(x, 0), tf.reduce_sum(x, 0, keepdims=True)),
            "transpose": lambda: (tf.transpose(x, [1, 0]), tf.transpose(x, [0, 1])),
            "matmul": lambda: (tf.matmul(x, x), tf.matmul(x, x, transpose_a=True)),
            "cast": lambda: (tf.cast(tf.cast(x, tf.int32), tf.float32),
                             tf.cast(tf.cast(x, tf.float16), tf.float32)),
            "concat_axis": lambda: (tf.concat([x, x], 0), tf.concat([x, x], 1)),
            "softmax_vs_log": lambda: (tf.nn.softmax(x), tf.nn.log_softmax(x)),
            "slice": lambda: (x[0], x[1]),
        }[pair]()
        out = [a, b]
    x_val = np.float32([[1.25, -2.5], [3.75, 4.5]])
    expected = _run(g, out, {x: x_val}, level=0)
    assert not np.array_equal(expected[0], expected[1])  # values or shapes differ
    for level in (1, 2):
        got = _run(g, out, {x: x_val}, level=level)
        for u, v in zip(got, expected):
            assert u.shape == v.shape
            np.testing.assert_allclose(u, v, rtol=1e-6)
        working = optimize_signature(g, out, [x], level)
        assert working.fetches[0] is not working.fetches[1]


def test_cse_never_merges_stateful_ops():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        n = tf.constant([2])
        r1 = tf.random_normal(n, seed=1)
        r2 = tf.random_normal(n, seed=1)                 # identical type, attrs and inputs
        p1 = tf.placeholder(tf.float32, [2])
        p2 = tf.placeholder(tf.float32, [2])             # identical placeholders
        v = tf.Variable(0.0)
        i1 = tf.assign_add(v, 1.0)
        i2 = tf.assign_add(v, 1.0)
        out = [r1, r2, p1 + 0.5, p2 + 0.5, i1, i2]
        init = tf.global_variables_initializer()
    working = optimize_signature(g, out, [p1, p2], 2)
    types = _types(working)
    assert types.count("RandomStandardNormal") == 2
    assert types.count("Placeholder") == 2
    assert types.count("AssignAdd") == 2
    with tf.Session(graph=g) as sess:
        sess.run(init)
        got = sess.run(out, {p1: np.float32([1, 1]), p2: np.float32([2, 2])})
        assert got[2].tolist() == [1.5, 1.5] and got[3].tolist() == [2.5, 2.5]
        assert sorted([float(got[4]), float(got[5])]) == [1.0, 2.0]
        np.testing.assert_array_equal(got[0], got[1])  # same seeds, separate streams
        again = sess.run([r1, r2])
        np.testing.assert_array_equal(again[0], again[1])
        assert not np.array_equal(again[0], got[0])


def test_cse_does_not_merge_across_different_control_inputs():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0.0)
        x = tf.placeholder(tf.float32, [])
        plain = tf.identity(x)
        with tf.control_dependencies([tf.assign_add(v, 1.0)]):
            ordered = tf.identity(x)
        init = tf.global_variables_initializer()
    for level in (1, 2):
        with tf.Session(graph=g, optimizer_level=level) as sess:
            sess.run(init)
            assert sess.run([plain, ordered], {x: 1.0}) == [1.0, 1.0]
            sess.run(ordered, {x: 2.0})
            assert sess.run(v) == 2.0, f"level {level}"


def test_cse_in_gradient_graphs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3])
        y = tf.reduce_sum(tf.sigmoid(x) * tf.sigmoid(x))
        gx, = tf.gradients(y, [x])
    working = optimize_signature(g, [y, gx], [x], 1)
    assert _types(working).count("Sigmoid") == 1
    assert_user_lines(working.ops(), [__file__])
    xv = np.float32([-1, 0, 2])
    s = 1 / (1 + np.exp(-xv))
    for level in (0, 1, 2):
        yv, gv = _run(g, [y, gx], {x: xv}, level)
        np.testing.assert_allclose(gv, 2 * s * s * (1 - s), rtol=1e-5)


# ------------------------------------------------------------- report/explain
def _report_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        fold_line = caller_line() + 1
        c = tf.constant(2.0) * tf.constant(3.0)
        cse_line = caller_line() + 1
        y = tf.tanh(x * c) + tf.tanh(x * c)
        tf.exp(x, name="unused")
    return g, x, y, fold_line, cse_line


def test_explain_lists_changes_with_user_lines():
    g, x, y, fold_line, cse_line = _report_graph()
    with tf.Session(graph=g) as sess:
        report = sess.explain(y, {x: None})
        value = sess.run(y, {x: np.float32([0.0, 1.0])})
    with tf.Session(graph=g, optimizer_level=1) as sess:
        report1 = sess.explain(y, {x: None})
    assert report1.ops_by_type_after.get("Tanh") == 1
    assert isinstance(report, Report) and report.level == 2
    np.testing.assert_allclose(value, 2 * np.tanh(np.float32([0, 6])), rtol=1e-6)
    folds = [c for c in report.changes if c.pass_name == "fold" and c.action == "replaced"]
    merges = [c for c in report.changes if c.pass_name == "cse" and c.action == "replaced"]
    assert folds and merges
    assert any(f.lineno == fold_line for c in folds for f in c.user_lines if f)
    assert all(f.filename == __file__ for c in folds + merges for f in c.user_lines if f)
    assert any(f.lineno == cse_line for c in merges for f in c.user_lines if f)
    text = str(report)
    assert text.startswith("optimizer level 2:")
    assert f"{__file__}:{fold_line}" in text and f"{__file__}:{cse_line}" in text
    assert report.ops_before == len(g.get_operations())
    assert report.ops_after < report.ops_before
    assert sum(report.ops_by_type_after.values()) == report.ops_after
    assert report.ops_by_type_after.get("Tanh", 0) <= 1   # or fused into a chain


def test_report_counts_per_pass():
    g, x, y, _, _ = _report_graph()
    report = optimize_signature(g, [y], [x], 1).report
    by_pass = report.by_pass()
    assert by_pass["fold"] == report.count("fold") >= 2      # Mul of constants + prune
    assert by_pass["cse"] == report.count("cse") >= 2        # Mul, Tanh (+ prune)
    assert report.count() == sum(by_pass.values())
    assert "simplify" not in by_pass and "fuse" not in by_pass
    assert "kept" not in {c.action for c in report.changes if c.pass_name != "prune"}
    summary = str(report).splitlines()[0]
    assert f"fold {by_pass['fold']}" in summary and f"cse {by_pass['cse']}" in summary
    assert repr(report).startswith("<Report level=1 ")


def test_level_0_reports_nothing_changed():
    g, x, y, _, _ = _report_graph()
    before = snapshot(g)
    with tf.Session(graph=g, optimizer_level=0) as sess:
        report = sess.explain(y, {x: None})
        assert sess.run(y, {x: np.float32([0, 0])}).tolist() == [0.0, 0.0]
    assert report.level == 0
    assert report.count() == 0 and report.by_pass() == {}
    assert not [c for c in report.changes if c.action != "kept"]
    assert report.ops_before == len(g.get_operations())
    assert str(report).startswith("optimizer level 0:")
    working = optimize_signature(g, [y], [x], 0)
    assert working.report.count() == 0
    assert snapshot(g) == before


# ------------------------------------------------------------ the edit path
def _assert_distinct_ids(working):
    ids = [op._id for op in working.ops()]
    assert len(set(ids)) == len(ids), [(op.name, op._id) for op in working.ops()]


def test_ops_added_after_a_prune_get_distinct_ids():
    # Plans name kernels and values after op._id: two ops sharing one would swap
    # values. Here folding prunes the constants, then simplify adds two ops.
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        y = tf.transpose(tf.transpose(x, [0, 1]), [1, 0])   # simplify: one new Transpose
        c = tf.constant([1.0, 2.0]) - tf.constant(3.0)       # folded; its prune frees ids
        d = x / -1.0
    for level in (1, 2):
        _assert_distinct_ids(optimize_signature(g, [d, c, y], [x], level))
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    got_d, got_c, got_y = _run(g, [d, c, y], {x: xv}, level=2)
    np.testing.assert_array_equal(got_d, -xv)
    np.testing.assert_array_equal(got_c, np.float32([-2, -1]))
    np.testing.assert_array_equal(got_y, xv.T)


def test_ops_added_by_fusion_after_a_prune_get_distinct_ids():
    # Simplify prunes the Identity, then fusion adds an op.
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 1, 4])
        a = tf.sin(-1.0 - x)
        part = tf.split(x, 2, axis=0)[1]
        b = tf.nn.bias_add(tf.identity(part), tf.constant([1.0, 2.0, 3.0, 4.0]))
    for level in (1, 2):
        _assert_distinct_ids(optimize_signature(g, [b, a], [x], level))
    xv = np.ones((2, 1, 4), np.float32)
    got_b, got_a = _run(g, [b, a], {x: xv}, level=2)
    np.testing.assert_array_equal(got_b, np.float32([[[2, 3, 4, 5]]]))
    np.testing.assert_allclose(got_a, np.sin(np.full((2, 1, 4), -2, np.float32)), rtol=1e-6)
