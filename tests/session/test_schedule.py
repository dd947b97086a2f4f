"""The schedule every backend runs: typed steps over value slots, built once per
signature; backends chosen through one registry."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.export import to_onnx
from staticgraph.graphlib import FunctionGraph
from staticgraph.session import session as session_module
from staticgraph.session.backends import BACKENDS, NumpyBackend, numpy_plan
from staticgraph.session.schedule import Schedule, Step


def _schedule(graph, fetches, feeds=(), level=0):
    return Schedule.for_signature(graph, fetches, feeds, level)


def test_steps_name_slots_and_free_values_after_their_last_use(g):
    x = tf.placeholder(tf.float32, [None], name="x")
    a = tf.add(x, 1.0, name="a")
    b = tf.multiply(a, 2.0, name="b")
    c = tf.subtract(b, a, name="c")          # a's last use
    d = tf.multiply(c, c, name="d")          # c's last use, read twice
    s = _schedule(g, [d, b], [x])
    by_name = {step.op.name: step for step in s.steps}
    assert all(isinstance(step, Step) for step in s.steps)
    assert [st.op.name for st in s.steps if st.op.type != "Const"] == ["a", "b", "c", "d"]
    a_slot, b_slot = by_name["a"].outputs[0], by_name["b"].outputs[0]
    c_slot = by_name["c"].outputs[0]
    assert by_name["a"].inputs[0] == s.feed_slots[0]
    assert by_name["c"].inputs == (b_slot, a_slot)
    assert a_slot in by_name["c"].frees and b_slot not in by_name["c"].frees  # b is fetched
    assert by_name["d"].inputs == (c_slot, c_slot) and by_name["d"].frees == (c_slot,)
    assert s.fetch_slots == (by_name["d"].outputs[0], b_slot)
    assert s.feed_slots[0] not in {f for st in s.steps for f in st.frees}
    # a freed slot is taken again: fewer slots than values
    values = len(s.feed_slots) + sum(1 for st in s.steps for o in st.outputs if o is not None)
    assert s.num_slots < values


def test_unused_outputs_have_no_slot(g):
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    s = _schedule(g, inc.op)
    (step,) = [st for st in s.steps if st.op is inc.op]
    assert step.outputs == (None,) and step.inputs[0] is None  # the ref input
    assert step.reads == ("v",) and step.writes == ("v",)
    assert s.fetch_slots == (None,)


def test_variables_are_read_where_used_and_required_before_written(g):
    w = tf.Variable(1.0, name="w")
    u = tf.Variable(2.0, name="u")
    y = w * u
    set_w = tf.assign(w, 5.0)
    with tf.control_dependencies([set_w]):
        after = w.read_value()
    s = _schedule(g, [y, after, u])
    loading = {name: st for st in _schedule(g, y).steps for _, name in st.loads}
    assert sorted(loading) == ["u", "w"]
    for name, step in loading.items():   # the variables' read ops take their values
        assert step.op.name == f"{name}/read" and step.reads == (name,)
        assert step.args == tuple(slot for slot, _ in step.loads) == step.frees
    assert [name for name, _ in s.required] == ["u", "w"]   # read before the assign
    assert s.written == ["w"]
    assert [name for _, name in s.fetch_loads] == ["u"]     # fetched: read after the steps
    only_after = _schedule(g, after)
    assert only_after.required == [] and only_after.written == ["w"]


def test_level_0_schedules_the_graph_as_declared_and_levels_1_2_fold(g):
    c = tf.constant(np.ones((2, 3), np.float32))
    s = tf.shape(tf.identity(c, name="hidden"))
    declared = _schedule(g, s)
    assert [st.op.type for st in declared.steps] == ["Const", "Identity", "Shape"]
    assert declared.report is None
    for level in (1, 2):
        folded = _schedule(g, s, level=level)
        assert [st.op.type for st in folded.steps] == ["Const"]
        assert folded.steps[0].origin is s.op   # errors name the user's op
        assert folded.report.count("fold") >= 1


def test_fed_tensors_cut_the_schedule(g):
    x = tf.placeholder(tf.float32, [], name="x")
    hidden = tf.exp(x, name="hidden")
    y = hidden * 2.0
    s = _schedule(g, y, [hidden])
    assert "hidden" not in {st.op.name for st in s.steps} and "x" not in {
        op.name for op in s.ops}
    with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value"):
        _schedule(g, y)


def test_interpreter_and_generated_code_agree_with_reused_slots_and_constants(g, monkeypatch):
    x = tf.placeholder(tf.float64, [None], name="x")
    w = tf.Variable(np.array([1.0, 2.0, 3.0]), name="w")
    h = x
    for i in range(6):  # constants declared late take slots that earlier values freed
        h = tf.tanh(h * tf.constant(0.5 + i, tf.float64) + w)
    top, index = tf.nn.top_k(h, k=2)                 # two outputs
    bump = tf.assign_add(w, tf.ones([3], tf.float64))
    fetches = {"h": h, "top": top, "index": index, "w": w.value()}
    xv = np.array([0.1, -0.2, 0.3])
    results = []
    for limit in (10**9, -1):
        monkeypatch.setattr(numpy_plan, "MAX_GENERATED_CALLS", limit)
        with tf.Session(optimizer_level=0) as sess:
            sess.run(w.initializer)
            out = [sess.run(fetches, {x: xv}) for _ in range(2)]
            sess.run(bump)
            out.append(sess.run(fetches, {x: xv}))
            source = sess.plan_source(fetches, [x])
        assert ("interpreted steps" in source) == (limit < 0)
        results.append(out)
    for generated, interpreted in zip(*results):
        for key in fetches:
            np.testing.assert_array_equal(generated[key], interpreted[key])
    assert results[0][2]["w"].tolist() == [2.0, 3.0, 4.0]


def test_to_onnx_walks_the_schedule_order(g):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    h = tf.nn.relu(tf.matmul(x, tf.ones((2, 3))), name="h")
    y = tf.reduce_sum(tf.sigmoid(h), axis=1, name="y")
    model = to_onnx(y, [x])
    lowered = [n.doc_string.split("'")[1] for n in model.graph.node]
    scheduled = [st.op.name for st in _schedule(g, y, [x]).steps]
    assert list(dict.fromkeys(lowered)) == [n for n in scheduled if n in lowered]


# ---------------------------------------------------------------- backends
def test_backends_are_registered_by_name(g):
    assert list(BACKENDS) == ["numpy", "onnxruntime"]
    assert BACKENDS["numpy"] is NumpyBackend and BACKENDS["numpy"].devices == ("cpu",)
    assert "cuda" in BACKENDS["onnxruntime"].devices
    with pytest.raises(ValueError, match=r"backend must be one of \('numpy', 'onnxruntime'\)"):
        tf.Session(backend="tensorrt")


def test_a_registered_backend_runs_sessions_schedules(g, monkeypatch):
    seen = []

    class CountingBackend(NumpyBackend):
        name = "counting"

        def compile(self, session, schedule):
            seen.append(schedule)
            return super().compile(session, schedule)

    monkeypatch.setitem(BACKENDS, "counting", CountingBackend)
    x = tf.placeholder(tf.float32, [], name="x")
    y = x * 3.0
    with tf.Session(backend="counting") as sess:
        assert sess.backend == "counting"
        assert sess.run(y, {x: 2.0}) == 6.0 and sess.run(y, {x: 3.0}) == 9.0
    assert len(seen) == 1 and isinstance(seen[0], Schedule)
    with pytest.raises(ValueError, match="device='cuda' needs backend='onnxruntime'"):
        tf.Session(backend="counting", device="cuda")


def test_default_backend_comes_from_the_module_setting(g, monkeypatch):
    monkeypatch.setattr(session_module, "DEFAULT_BACKEND", "onnxruntime")
    assert tf.Session().backend == "onnxruntime"


def test_a_function_graph_is_scheduled_and_run_like_a_graph():
    """A control-flow body (graphlib.FunctionGraph) schedules, optimizes and runs on a
    backend as the outer graph does: its inputs are the feeds, its outputs the fetches,
    and variables it reads come from the session (their values were captured)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        v = tf.Variable([1.0, 2.0, 3.0], name="v")
        f = FunctionGraph("f", g, lambda body, t: tf.placeholder(t.dtype, t.shape))
        with f.as_default():
            a = tf.placeholder(tf.float32, [3], name="a")
            f.arguments.append(a)
            f.outputs = [tf.tanh(a * x) + v]
        with tf.Session() as sess:
            sess.run(v.initializer)
            values = {a: np.full(3, 0.5, np.float32), x: np.full(3, 2.0, np.float32)}
            for level in (0, 2):
                schedule = Schedule.for_signature(f, list(f.outputs), f.inputs, level=level)
                plan = sess._backend.compile(sess, schedule)
                body_inputs = [values[a], values[x], sess.run(v)]   # arguments, then captures
                out, = plan.fn(*body_inputs)
                np.testing.assert_allclose(out, np.tanh(0.5 * 2.0) + np.array([1, 2, 3]),
                                           rtol=1e-6)
