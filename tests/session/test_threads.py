"""Concurrent Session.run calls from several threads on one session."""

import sys
import threading

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.session import session as session_module

pytestmark = pytest.mark.usefixtures("backend")  # numpy and onnxruntime (conftest)

THREADS = 8
RUNS = 100


@pytest.fixture(autouse=True)
def frequent_thread_switches():
    """Switch threads every microsecond so runs really interleave."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def _run_threads(target):
    errors = []
    barrier = threading.Barrier(THREADS)

    def wrapper(i):
        try:
            barrier.wait()
            target(i)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=wrapper, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_concurrent_runs_give_each_thread_its_own_result():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, [None], name="x")
        w = tf.Variable(np.array([2.0], np.float64), name="w")
        y = tf.add(tf.multiply(x, w), 1.0)
        z = tf.multiply(y, y)
    sess = tf.Session(graph=g)
    sess.run(w.initializer)

    def work(i):
        for j in range(RUNS):
            value = np.full(3, i * 1000.0 + j)
            out = sess.run({"y": y, "z": [z]}, {x: value})
            np.testing.assert_array_equal(out["y"], value * 2 + 1)
            np.testing.assert_array_equal(out["z"][0], (value * 2 + 1) ** 2)

    _run_threads(work)
    sess.close()


def test_concurrent_first_runs_compile_once(monkeypatch):
    calls = []
    real = session_module.Session._new_plan

    def counting_plan(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(session_module.Session, "_new_plan", counting_plan)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.int32, [], name="x")
        y = tf.add(x, 1)
    sess = tf.Session(graph=g)

    def work(i):
        for j in range(20):
            assert sess.run([y], {x: i + j}) == [i + j + 1]

    _run_threads(work)
    assert len(calls) == 1
    sess.close()


def test_concurrent_assign_add_with_distinct_variables():
    g = tf.Graph()
    with g.as_default():
        counters = [tf.Variable(0, name=f"c{i}") for i in range(THREADS)]
        incs = [tf.assign_add(c, 1) for c in counters]
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)

    def work(i):
        for _ in range(RUNS):
            sess.run(incs[i])

    _run_threads(work)
    assert sess.run(counters) == [RUNS] * THREADS
    sess.close()


def test_concurrent_sessions_keep_separate_state():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0, name="v")
        inc = tf.assign_add(v, 1)
    sessions = [tf.Session(graph=g) for _ in range(THREADS)]
    for s in sessions:
        s.run(v.initializer)

    def work(i):
        for _ in range(i + 1):
            sessions[i].run(inc)

    _run_threads(work)
    assert [s.run(v) for s in sessions] == list(range(1, THREADS + 1))
    for s in sessions:
        s.close()


def test_concurrent_updates_of_one_variable_are_not_lost():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.zeros(4, np.int64), name="shared")
        inc = tf.assign_add(v, np.ones(4, np.int64))
        dec = tf.assign_sub(v, np.full(4, 2, np.int64))
    sess = tf.Session(graph=g)
    sess.run(v.initializer)

    def work(i):
        for _ in range(RUNS):
            sess.run(inc.op)
            if i % 2:
                sess.run(dec.op)

    _run_threads(work)
    expected = THREADS * RUNS - 2 * (THREADS // 2) * RUNS
    assert sess.run(v).tolist() == [expected] * 4
    sess.close()
