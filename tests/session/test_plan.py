"""Compiled plans: one per (fetches, feed keys) signature, flat, freeing intermediates,
ordered by dependencies, invalidated when the graph's edges change."""

import re
import time

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.session import session as session_module


@pytest.fixture
def compile_count(monkeypatch):
    calls = []
    real = session_module.Session._new_plan

    def counting_plan(*args, **kwargs):
        calls.append(args[1:])
        return real(*args, **kwargs)

    monkeypatch.setattr(session_module.Session, "_new_plan", counting_plan)
    return calls


def test_same_signature_compiles_once(g, compile_count):
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.placeholder(tf.float32, [None], name="y")
    s = tf.add(x, y)
    with tf.Session() as sess:
        for i in range(5):
            out = sess.run([s, {"x": x}], {x: [float(i)], y: [1.0]})   # a new list each time
            assert out[0].tolist() == [i + 1.0]
        assert len(compile_count) == 1
        sess.run([s, {"x": x}], {y: [1.0], x: [2.0]})     # other feed order: new signature
        sess.run(s, {x: [1.0], y: [1.0]})                 # other fetch structure
        sess.run((s, {"x": x}), {x: [1.0], y: [1.0]})     # tuple, not list
        assert len(compile_count) == 4
        sess.run(s, {x: [1.0], y: [1.0]})
        assert len(compile_count) == 4


def test_failed_compile_is_not_cached(g, compile_count):
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.Session() as sess:
        for _ in range(2):
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(x)
        assert len(compile_count) == 2
        assert sess.run(x, {x: 1.0}) == 1.0


def test_plan_frees_intermediates_after_last_use(g):
    x = tf.placeholder(tf.float32, [None], name="x")
    a = tf.add(x, 1.0, name="a")
    b = tf.multiply(a, 2.0, name="b")
    c = tf.subtract(b, a, name="c")          # a's last use
    d = tf.multiply(c, c, name="d")          # c's last use
    with tf.Session(optimizer_level=0) as sess:  # the plan compiler alone
        src = sess.plan_source([d, b], [x])
        lines = src.splitlines()
        a_var = f"t{a.op._id}_0"
        c_var = f"t{c.op._id}_0"
        b_var = f"t{b.op._id}_0"
        c_line = next(i for i, ln in enumerate(lines) if ln.strip().startswith(f"{c_var} ="))
        assert re.search(rf"del .*\b{a_var}\b", lines[c_line + 1])      # freed right after c
        d_line = next(i for i, ln in enumerate(lines) if f"{c_var}, {c_var}" in ln)
        assert re.search(rf"del .*\b{c_var}\b", lines[d_line + 1])
        assert not any(ln.strip().startswith("del") and b_var in ln for ln in lines)  # fetched
        np.testing.assert_allclose(sess.run([d, b], {x: [1.0]})[0], [4.0])   # ((1+1)*2-2)**2


def test_plan_is_flat_and_prunes(g):
    x = tf.placeholder(tf.float32, [2], name="x")
    used = tf.add(x, 1.0)
    unused = tf.multiply(x, 3.0, name="unused")
    with tf.Session(optimizer_level=0) as sess:  # the plan compiler alone
        src = sess.plan_source(used, [x])
    assert "for " not in src and "while " not in src
    assert f"k{unused.op._id}" not in src
    assert f"k{used.op._id}(" in src
    # constants are bound once, not computed per run
    assert not re.search(r"k\d+\(\)", src)


def test_unused_outputs_are_discarded(g):
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    with tf.Session(optimizer_level=0) as sess:  # the plan compiler alone
        sess.run(v.initializer)
        src = sess.plan_source(inc.op)
        assert f"_ = k{inc.op._id}(" in src
        assert sess.run(inc.op) is None and sess.run(v) == 1


def test_feeding_a_constant_is_not_folded_away(g):
    c = tf.constant([1.0, 2.0, 3.0, 4.0], name="c")
    r = tf.reshape(c, [2, 2])              # foldable while declaring
    out = tf.multiply(r, 1.0)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [[1, 2], [3, 4]])
        np.testing.assert_array_equal(sess.run(out, {c: [5.0, 6.0, 7.0, 8.0]}),
                                      [[5, 6], [7, 8]])


def test_late_control_input_orders_execution_and_drops_plans(g):
    v = tf.Variable(0, name="v")
    read = v.read_value()                                  # created before the increment
    inc = tf.assign_add(v, 5, name="inc")
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(read) == 0
        read.op._add_control_input(inc.op)                  # now read must follow inc
        assert sess.run(read) == 5
        assert sess.run(v) == 5


def test_adding_ops_keeps_compiled_plans_and_editing_edges_drops_them(g, compile_count):
    """Plans depend on the edges of the ops they run: new ops leave them valid
    (TF1 programs create savers and summaries after running), a late control input
    does not (Graph.edit_version moves; Graph.version counts both, as TF1's does)."""
    x = tf.placeholder(tf.float32, [], name="x")
    y = x * 2.0
    with tf.Session() as sess:
        assert sess.run(y, {x: 1.0}) == 2.0
        version, edits = g.version, g.edit_version
        tf.add(x, 1.0, name="later")                       # a new op: plans stay
        assert g.version > version and g.edit_version == edits
        assert sess.run(y, {x: 2.0}) == 4.0
        assert len(compile_count) == 1
        y.op._add_control_input(g.get_operation_by_name("later"))
        assert g.edit_version == edits + 1
        assert sess.run(y, {x: 3.0}) == 6.0
        assert len(compile_count) == 2


def test_control_dependency_cycle_is_reported(g):
    a = tf.no_op(name="a")
    b = tf.no_op(name="b")
    a._add_control_input(b)
    b._add_control_input(a)
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="cycle"):
            sess.run(a)


def test_add_control_input_checks_graph(g):
    other = tf.Graph()
    with other.as_default():
        alien = tf.no_op(name="alien")
    a = tf.no_op(name="a")
    with pytest.raises(ValueError, match="belongs to"):
        a._add_control_input(alien)


def test_fetched_placeholder_op_when_fed(g):
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.Session() as sess:
        assert sess.run([x, x.op], {x: 2.0}) == [2.0, None]
        with tf.control_dependencies([x.op]):
            y = tf.constant(1.0)
        assert sess.run(y, {x: 2.0}) == 1.0


def test_run_is_fast(g):
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.add(x, 1.0)
    value = np.ones(2, np.float32)
    with tf.Session() as sess:
        sess.run(y, {x: value})
        n = 2000
        start = time.perf_counter()
        for _ in range(n):
            sess.run(y, {x: value})
        per_run = (time.perf_counter() - start) / n
    assert per_run < 50e-6, f"{per_run * 1e6:.1f} us per run"


def test_ops_only_feeding_folded_constants_are_pruned(g):
    c = tf.constant(np.ones((2, 3), np.float32))
    hidden = tf.identity(c, name="hidden")
    s = tf.shape(hidden)                       # known while declaring: folded
    with tf.Session(optimizer_level=1) as sess:  # the optimizer folds, then prunes
        src = sess.plan_source(s)
        assert f"k{hidden.op._id}" not in src and f"k{s.op._id}" not in src
        assert sess.run(s).tolist() == [2, 3]


def test_level_0_runs_the_graph_as_declared(g):
    c = tf.constant(np.ones((2, 3), np.float32), name="c")
    hidden = tf.identity(c, name="hidden")
    s = tf.shape(hidden)                       # foldable, but level 0 rewrites nothing
    with tf.Session(optimizer_level=0) as sess:
        src = sess.plan_source(s)
        assert f"k{hidden.op._id}(c{c.op._id})" in src and f"k{s.op._id}(" in src
        assert sess.run(s).tolist() == [2, 3]
        assert sess.explain(s).count() == 0


def test_stateful_ops_behind_folded_constants_still_run(g):
    v = tf.Variable(np.zeros(2, np.float32), name="v")
    s = tf.shape(tf.assign_add(v, [1.0, 1.0]))
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(s).tolist() == [2]
        assert sess.run(v).tolist() == [1.0, 1.0]


def test_plan_cache_is_bounded_by_bytes_least_recently_used_first(g, backend):
    x = tf.placeholder(tf.float32, [], name="x")
    ys = [x * float(i) for i in range(2, 6)]  # four plans of one size
    sess = tf.Session()
    for i in range(3):
        assert sess.run(ys[i], {x: 1.0}) == 2.0 + i
    keys = [(y, (x,)) for y in ys]
    sizes = [sess._plans[k][2] for k in keys[:3]]
    assert min(sizes) > 0.99 * max(sizes) and sess._plan_bytes == sum(sizes)  # ~one size
    sess._plan_cache_bytes = 3 * max(sizes) + min(sizes) // 2  # room for three plans
    assert sess.run(ys[0], {x: 2.0}) == 4.0      # ys[0] used: ys[1] is now the oldest
    assert sess.run(ys[3], {x: 1.0}) == 5.0      # a fourth plan: the oldest goes
    assert set(sess._plans) == {keys[0], keys[2], keys[3]}
    assert sess._plan_bytes == sum(e[2] for e in sess._plans.values()) <= sess._plan_cache_bytes
    assert sess.run(ys[1], {x: 1.0}) == 3.0      # compiled again; ys[2] was the oldest
    assert set(sess._plans) == {keys[0], keys[1], keys[3]}
    sess.close()
