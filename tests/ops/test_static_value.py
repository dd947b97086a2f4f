"""constant_value: memoised static folding stays linear, exact and read-only."""

from __future__ import annotations

import gc
import json
import time
import weakref

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib.graph_def_format import content_digest
from staticgraph.ops import constant_value, constant_value_as_shape
from staticgraph.graphlib.op_def import get_op_def
from staticgraph.ops import static_value


def _reshape_chain_file(path, n):
    """The issue's reproducer: a Const, then ``n`` Reshape ops whose two inputs are
    both the previous op's output (each op reads its input twice)."""
    ops = [{"name": "c", "type": "Const",
            "attrs": {"value": {"array": {"dtype": "int32", "shape": [1], "b64": "AQAAAA=="}},
                      "dtype": {"dtype": "int32"}}}]
    for i in range(n):
        prev = ops[-1]["name"]
        ops.append({"name": f"r{i}", "type": "Reshape", "inputs": [f"{prev}:0", f"{prev}:0"]})
    body = {"format": "staticgraph.GraphDef", "version": 1, "seed": None, "ops": ops,
            "collections": {}}
    body["sha256"] = content_digest(body)
    with open(path, "w") as f:
        json.dump(body, f)


@pytest.fixture
def count_folds(monkeypatch):
    """Counts static_value evaluations of the op types given."""
    counts = {}

    def watch(*types):
        for t in types:
            op_def = get_op_def(t)
            original = op_def.static_value
            counts[t] = 0

            def counted(op, _original=original, _t=t):
                counts[_t] += 1
                return _original(op)
            monkeypatch.setattr(op_def, "static_value", counted)
        return counts
    return watch


@pytest.mark.parametrize("n", [40, 200])
def test_reshape_chain_file_loads_in_linear_time(tmp_path, count_folds, n):
    # Before memoising, each op re-folded every ancestor twice: 20 ops took 1.7 s,
    # 40 ops would have taken weeks.
    path = str(tmp_path / "chain.json")
    _reshape_chain_file(path, n)
    counts = count_folds("Reshape")
    start = time.perf_counter()
    g = tf.export.load_graph(path)
    elapsed = time.perf_counter() - start
    assert counts["Reshape"] <= 2 * n          # each op folded about once, not 2**n times
    assert elapsed < 1.0, elapsed
    last = g.get_tensor_by_name(f"r{n - 1}:0")
    assert last.shape.raw == (1,)
    np.testing.assert_array_equal(constant_value(last), [1])
    with tf.Session(graph=g) as sess:
        np.testing.assert_array_equal(sess.run(last), [1])


def test_reshape_chain_declared_in_python_is_linear(count_folds):
    counts = count_folds("Reshape")
    n = 300
    with tf.Graph().as_default():
        t = tf.constant([1])
        for _ in range(n):
            t = tf.reshape(t, t)
        assert t.shape.raw == (1,)
        np.testing.assert_array_equal(constant_value(t), [1])
    assert counts["Reshape"] <= 2 * n


def test_long_chain_asked_once_at_the_end_folds_without_recursion_error():
    with tf.Graph().as_default():
        t = tf.constant([2, 3])
        for _ in range(3001):                  # far past Python's recursion limit
            t = tf.reverse(t, [0])
        np.testing.assert_array_equal(constant_value(t), [3, 2])
        assert tf.reshape(tf.zeros([6]), t).shape.raw == (3, 2)


def test_unknown_values_are_recomputed_after_set_shape():
    # None is never cached across queries: refining a shape later makes values known.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        s = tf.reverse(tf.reverse(tf.shape(x), [0]), [0])
        assert constant_value(s) is None
        assert tf.reshape(tf.zeros([6]), s).shape.raw == (None, None)
        x.set_shape([2, 3])
        np.testing.assert_array_equal(constant_value(s), [2, 3])
        assert tf.reshape(tf.zeros([6]), s).shape.raw == (2, 3)


def test_cached_values_are_read_only():
    with tf.Graph().as_default():
        t = tf.reshape(tf.constant([[1, 2], [3, 4]]), [4])
        v = constant_value(t)
        np.testing.assert_array_equal(v, [1, 2, 3, 4])
        assert not v.flags.writeable
        with pytest.raises(ValueError):
            v[0] = 7
        np.testing.assert_array_equal(constant_value(t), [1, 2, 3, 4])
        w = np.array(constant_value(t))       # a copy is writable
        w[0] = 7
        np.testing.assert_array_equal(constant_value(t), [1, 2, 3, 4])


def test_unknown_chains_asked_many_times_stay_linear(count_folds):
    # A hostile graph: every unknown value sits at the end of a long chain and is
    # asked once per op. Without a bound each ask walks the chain (quadratic).
    counts = count_folds("ReverseV2")
    n = 1000
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3])
        chain = [tf.shape(x)]
        for _ in range(n):
            chain.append(tf.reverse(chain[-1], [0]))
        y = tf.placeholder(tf.float32, None)
        for t in chain[1:]:
            assert tf.reshape(y, t).shape.raw == (None, None)
        ops = len(g.get_operations())
    assert counts["ReverseV2"] <= static_value.FOLD_STEPS_PER_OP * ops + \
        static_value.MAX_FOLD_STEPS + static_value.MIN_FOLD_STEPS * ops
    assert counts["ReverseV2"] < n * n / 8    # what walking the chain each time costs


def test_constant_value_as_shape_of_nested_concatenations():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5])
        empty = tf.placeholder(tf.int32, [0])
        t = tf.shape(x)
        for _ in range(2000):                  # deep: no recursion error
            t = tf.concat([t, empty], 0)
        assert constant_value_as_shape(t).raw == (None, 5)
        z = empty
        for _ in range(60):                    # shared inputs: looked at once each
            z = tf.concat([z, z], 0)
        assert constant_value_as_shape(z).raw == ()
        long = tf.placeholder(tf.int32, [1 << 30])
        assert constant_value_as_shape(long).raw is None   # not a list of 2**30 dims


def test_reshape_by_a_deep_chain_of_concatenations_is_linear():
    """Shape arguments built by concatenating a tensor with itself, 2000 levels deep
    (a hostile graph file can hold this), are read once per tensor, not 2**2000 times,
    and without recursion."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        empty = tf.shape(x)[:0]
        chain = empty
        for _ in range(2000):
            chain = tf.concat([chain, chain], 0)
        shape = tf.concat([chain, tf.shape(x)], 0)
        start = time.perf_counter()
        y = tf.reshape(x, shape)
        assert time.perf_counter() - start < 5
        assert y.shape.as_list() == [None, 3]
        with tf.Session() as sess:
            value = np.arange(6, dtype=np.float32).reshape(2, 3)
            np.testing.assert_array_equal(sess.run(y, {x: value}), value)


def test_fold_state_belongs_to_each_graph_and_goes_with_it():
    """Known values and the fold budget live on the graph (no module-level caches):
    another graph starts with an empty cache, and a dropped graph frees its own."""
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        t = tf.reshape(tf.constant([[1, 2], [3, 4]]), [4])
        np.testing.assert_array_equal(constant_value(t), [1, 2, 3, 4])
    cache = static_value.fold_cache(g1)
    assert cache is static_value.fold_cache(g1)
    assert t.op in cache.known and cache.spent > 0
    fresh = static_value.fold_cache(g2)
    assert fresh is not cache and not fresh.known and fresh.spent == 0
    assert not any(isinstance(v, (dict, weakref.WeakKeyDictionary))
                   for k, v in vars(static_value).items() if not k.startswith("__"))
    watch = weakref.ref(g1)
    del g1, t, cache
    gc.collect()
    assert watch() is None   # nothing outside the graph holds it (or its cache)
