"""Algebraic simplification: each rule rewrites what it should (structure), leaves alone
what would not be exact, and gives bit-identical values to level 0 (numbers), including
-0.0, nan, inf and subnormal inputs."""

import time

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.optimizer import optimize_signature
from staticgraph.optimizer.simplify import RULES, simplify
from staticgraph.optimizer.working_graph import WorkingGraph
from staticgraph.ops.math.broadcast_grad import sum_to_shape
from staticgraph.ops.apply import apply_op
from staticgraph.ops.state.training_ops import apply_gradient_descent

# edge values (inf, huge scalings) overflow in numpy as they do unfused
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

EDGES = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, 1.5, -3.0e38, 3.0e38, 1e-45, -7.25],
                 np.float32)


@pytest.fixture(autouse=True)
def fresh_graph():
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def simplified(fetches, feeds=()):
    """Op types of the copy after prune + simplify only (no folding, CSE or fusion)."""
    fetches = fetches if isinstance(fetches, list) else [fetches]
    working = WorkingGraph.copy(tf.get_default_graph(), fetches, list(feeds))
    edits = simplify(working)
    working.prune()
    types = [op.type for op in working.ops()]
    return types, edits, working


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), (a, b)


def check_levels(fetches, feed=None):
    """Level 2 gives bit-identical results to level 0 (and level 1)."""
    results = []
    for level in (0, 1, 2):
        with tf.Session(optimizer_level=level) as sess:
            results.append(sess.run(fetches, feed))
    for r in results[1:]:
        if isinstance(fetches, list):
            for a, b in zip(results[0], r):
                same_bits(a, b)
        else:
            same_bits(results[0], r)
    return results[0]


def xf(shape=(None,), dtype=tf.float32):
    return tf.placeholder(dtype, shape, name="x")


# ------------------------------------------------------------------ x * 1, x / 1
def test_mul_by_one_both_sides():
    x = xf()
    y = tf.multiply(1.0, x * tf.ones([1]))
    types, edits, _ = simplified(y, [x])
    assert types == ["Placeholder"] and edits == 2
    same_bits(check_levels(y, {x: EDGES}), EDGES)


def test_mul_by_one_keeps_shape_changing_broadcast():
    x = xf((None,))
    y = x * tf.ones([3, 1])           # result [3, n]: not x
    types, _, _ = simplified(y, [x])
    assert "Mul" in types
    check_levels(y, {x: EDGES})


def test_mul_by_one_int_and_not_other_values():
    x = tf.placeholder(tf.int32, [2], name="i")
    y = x * 1
    z = x * 2
    types, edits, _ = simplified([y, z], [x])
    assert types.count("Mul") == 1 and edits == 1
    check_levels([y, z], {x: np.array([-2**31, 7], np.int32)})


def test_div_by_one():
    x = xf()
    y = tf.realdiv(x, tf.constant(1.0))
    n = tf.div_no_nan(x, tf.constant([1.0]))
    i = tf.placeholder(tf.int32, [None], name="i")
    f = tf.floordiv(i, 1)
    g = tf.floordiv(x, 1.0)            # floor(x): not x
    types, edits, _ = simplified([y, n, f, g], [x, i])
    assert types.count("RealDiv") == 0 and "DivNoNan" not in types
    assert types.count("FloorDiv") == 1 and edits == 3
    check_levels([y, n, f, g], {x: EDGES, i: np.array([-5, 3], np.int32)})


# ------------------------------------------------------------------ x + 0, x - 0
def test_add_positive_zero_is_not_exact_for_floats():
    x = xf()
    y = x + 0.0
    types, edits, _ = simplified(y, [x])
    assert "Add" in types and edits == 0
    out = check_levels(y, {x: EDGES})
    assert not np.signbit(out[0])      # -0.0 + 0.0 is +0.0: the Add must stay


def test_add_negative_zero_and_sub_zero_are_removed():
    x = xf()
    a = x + tf.constant(-0.0)
    b = tf.constant([-0.0]) + x
    c = x - 0.0
    types, edits, _ = simplified([a, b, c], [x])
    assert types == ["Placeholder"] and edits == 3
    for v in check_levels([a, b, c], {x: EDGES}):
        same_bits(v, EDGES)


def test_sub_negative_zero_and_zero_minus_x_stay():
    x = xf()
    a = x - tf.constant(-0.0)          # x + 0.0: -0.0 becomes +0.0
    b = 0.0 - x
    types, edits, _ = simplified([a, b], [x])
    assert types.count("Sub") == 2 and edits == 0
    check_levels([a, b], {x: EDGES})


def test_int_add_sub_zero():
    x = tf.placeholder(tf.int64, [None], name="i")
    y = (0 + x) - 0 + 0
    types, edits, _ = simplified(y, [x])
    assert types == ["Placeholder"] and edits == 3
    check_levels(y, {x: np.array([np.iinfo(np.int64).min, 0, 9], np.int64)})


# ---------------------------------------------------------------- --x, identities
def test_double_negation():
    x = xf()
    y3 = -(-(-x))  # noqa: B002 - a triple negation, on purpose
    y4 = -y3
    types, edits, _ = simplified([y3, y4], [x])
    assert types.count("Neg") == 1
    check_levels([y3, y4], {x: EDGES})
    i = tf.placeholder(tf.int32, [2], name="i")
    types, _, _ = simplified(-(-i), [i])  # noqa: B002
    assert types == ["Placeholder"]
    check_levels(-(-i), {i: np.array([-2**31, 5], np.int32)})  # noqa: B002


def test_identity_stop_gradient_and_noop_cast():
    x = xf()
    y = tf.identity(tf.stop_gradient(tf.identity(x)))
    c = tf.cast(tf.cast(x, tf.float64), tf.float32)
    same = tf.identity(x)
    noop = apply_op("Cast", [same], {"DstT": tf.float32})   # tf.cast would skip it
    types, edits, _ = simplified([y, c, noop], [x])
    assert "Identity" not in types and "StopGradient" not in types
    assert types.count("Cast") == 2      # the float64 round trip stays
    check_levels([y, c, noop], {x: EDGES})


def test_identity_with_control_input_stays():
    x = xf()
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 1.0)
    with tf.control_dependencies([inc]):
        y = tf.identity(x)
    types, _, _ = simplified(y, [x])
    assert "Identity" in types


def test_variable_read_of_unwritten_variable_is_removed():
    v = tf.Variable([1.0, -0.0], name="v")
    y = v * 3.0
    with tf.Session() as sess:
        sess.run(v.initializer)
        types, _, _ = simplified(y)
        assert "Identity" not in types
        same_bits(sess.run(y), np.array([3.0, -0.0], np.float32))


def test_variable_read_before_a_write_keeps_its_timing():
    """w/read runs before the assignment; its consumer after. Level 0 sees the old value."""
    v = tf.Variable(1.0, name="v")
    r = v.value()                          # the snapshot v/read
    inc = tf.assign_add(v, 1.0)
    with tf.control_dependencies([inc]):
        y = tf.negative(r, name="after")      # runs after the write, reads the snapshot
    types, _, _ = simplified(y)
    assert "Identity" in types
    for level in (0, 2):
        with tf.Session(optimizer_level=level) as sess:
            sess.run(v.initializer)
            assert sess.run(y) == -1.0


def test_fresh_copy_is_not_replaced_by_state_under_in_place_update():
    """``w * 1`` copies w before an in-place ``Apply`` op; a later reader must see the copy."""
    w = tf.Variable([1.0, 2.0], name="w")
    before = w * 1.0
    train = apply_gradient_descent(w, 1.0, tf.constant([10.0, 10.0]))
    with tf.control_dependencies([train]):
        after = tf.identity(before, name="after") * 2.0
    types, _, _ = simplified(after)
    assert types.count("Mul") == 2
    for level in (0, 2):
        with tf.Session(optimizer_level=level) as sess:
            sess.run(w.initializer)
            same_bits(sess.run(after), np.array([2.0, 4.0], np.float32))


# --------------------------------------------------------------------- reshapes
def test_reshape_of_reshape_with_unknown_batch():
    x = xf((None, 4, 3))
    y = tf.reshape(tf.reshape(x, [-1, 12]), [-1, 2, 6])
    types, edits, _ = simplified(y, [x])
    assert types.count("Reshape") == 1 and edits == 1
    v = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    same_bits(check_levels(y, {x: v}), v.reshape(-1, 2, 6))


def test_reshape_of_reshape_that_could_fail_differently_stays():
    x = xf((None,))
    y = tf.reshape(tf.reshape(x, [-1, 6]), [-1, 3])   # inner needs multiples of 6
    types, _, _ = simplified(y, [x])
    assert types.count("Reshape") == 2
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(y, {x: np.zeros(9, np.float32)})


def test_reshape_to_own_shape():
    x = xf((2, 3))
    y = tf.reshape(x, [2, 3])
    d = tf.placeholder(tf.float32, [None, 3], name="d")
    z = tf.reshape(d, tf.shape(d))
    types, edits, _ = simplified([y, z], [x, d])
    assert "Reshape" not in types and "Shape" not in types and edits == 2
    check_levels([y, z], {x: EDGES[:6].reshape(2, 3), d: EDGES[:6].reshape(2, 3)})


def test_shape_tensor_with_side_effects_is_not_dropped():
    x = xf((2, 3))
    r = tf.random_normal([2, 3], seed=1)
    y = tf.reshape(x, tf.shape(r))        # the random op must still run
    types, _, _ = simplified(y, [x])
    assert "Reshape" in types and len(types) > 3
    with tf.Session() as sess:
        working = optimize_signature(tf.get_default_graph(), [y], [x], level=2)
        assert any(op.op_def.stateful for op in working.ops())
        sess.run(y, {x: np.ones((2, 3), np.float32)})


def test_scalar_fetch_stays_scalar():
    x = tf.placeholder(tf.float32, [], name="s")
    y = tf.reshape(x, [])
    with tf.Session() as sess:
        out = sess.run(y, {x: 2.0})
    assert isinstance(out, np.float32)


# ------------------------------------------------------------------- transposes
def test_transpose_inverse_perms_vanish():
    x = xf((2, 3, 4))
    y = tf.transpose(tf.transpose(x, [2, 0, 1]), [1, 2, 0])
    types, _, _ = simplified(y, [x])
    assert types == ["Placeholder"]
    v = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    same_bits(check_levels(y, {x: v}), v)


def test_transpose_pair_composes_into_one():
    x = xf((None, 3, 4))
    y = tf.transpose(tf.transpose(x, [2, 0, 1]), [0, 2, 1])
    types, _, _ = simplified(y, [x])
    assert types.count("Transpose") == 1
    v = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    same_bits(check_levels(y, {x: v}), v.transpose(2, 0, 1).transpose(0, 2, 1))


def test_squeeze_expand_dims_pairs():
    x = xf((None, 3))
    a = tf.squeeze(tf.expand_dims(x, -1), [2])
    o = xf((None, 1, 3))
    b = tf.expand_dims(tf.squeeze(o, [1]), 1)
    c = tf.squeeze(tf.expand_dims(o, 0), [2])          # another axis: both stay
    types, edits, _ = simplified([a, b, c], [x, o])
    assert types.count("Squeeze") == 1 and types.count("ExpandDims") == 1 and edits == 2
    check_levels([a, b, c], {x: EDGES[:6].reshape(2, 3), o: EDGES[:6].reshape(2, 1, 3)})


# ------------------------------------------------------- gradient-graph shapes
def test_sum_to_shape_and_broadcast_to_own_shape():
    x = xf((2, 3))
    w = tf.Variable(np.ones((2, 3), np.float32), name="w")
    loss = tf.reduce_sum(x * w)
    g, = tf.gradients(loss, [w])
    b = tf.broadcast_to(x, [2, 3])
    s = sum_to_shape(x, [2, 3])
    types, edits, _ = simplified([g, b, s], [x])
    assert "SumToShape" not in types and edits >= 2
    assert types.count("BroadcastTo") == 1     # the gradient's: a scalar to [2, 3]
    check_vals = {x: EDGES[:6].reshape(2, 3)}
    for level in (0, 2):
        with tf.Session(optimizer_level=level) as sess:
            sess.run(w.initializer)
            out = sess.run([g, b, s], check_vals)
            same_bits(out[0], check_vals[x])
            same_bits(out[1], check_vals[x])
            same_bits(out[2], check_vals[x])


# ---------------------------------------------------------- constant merging
def test_power_of_two_scalings_merge():
    x = xf()
    y = x * 2.0 * -4.0                  # x * 2 is exact (or overflows), |-4| >= 1
    z = x * -1.0 * 0.1                  # x * -1 is exact: any c2
    w = x * 8.0 * -0.5                  # x * 8 may overflow where x * -4 does not
    for t, muls in ((y, 1), (z, 1), (w, 2)):
        types, _, _ = simplified(t, [x])
        assert types.count("Mul") == muls
    out = check_levels([y, z, w], {x: EDGES})
    same_bits(out[0], EDGES * np.float32(2) * np.float32(-4))
    same_bits(out[1], EDGES * np.float32(-1) * np.float32(0.1))


def test_scaling_merge_chain_is_one_mul():
    x = xf()
    y = x
    for c in (2.0, 4.0, 3.0, 1.5):
        y = y * c
    types, _, working = simplified(y, [x])
    assert types.count("Mul") == 2      # 2*4 merges, *3 too (|3|>=1); 24 is not a power of two
    same_bits(check_levels(y, {x: EDGES}), (((EDGES * 2) * 4) * 3 * np.float32(1.5)))


@pytest.mark.parametrize("c1, c2", [(4.0, 0.25), (0.5, 0.5), (3.0, 2.0), (2.0, 0.0),
                                    (2.0**100, 2.0**100)])
def test_inexact_scalings_do_not_merge(c1, c2):
    x = tf.placeholder(tf.float32, [None], name="x")
    y = x * np.float32(c1) * np.float32(c2)
    types, _, _ = simplified(y, [x])
    assert types.count("Mul") == 2
    check_levels(y, {x: np.concatenate([EDGES, [1.4e-45, 3e-39]]).astype(np.float32)})


def test_int_scalings_merge_with_wraparound():
    x = tf.placeholder(tf.int32, [None], name="i")
    y = x * 65536 * 65537
    types, _, _ = simplified(y, [x])
    assert types.count("Mul") == 1
    v = np.array([1, -3, 2**31 - 1], np.int32)
    same_bits(check_levels(y, {x: v}), v * np.int32(65536) * np.int32(65537))


# --------------------------------------------------------- report and origins
def test_edits_are_reported_with_user_lines():
    x = xf()
    y = x * 1.0
    working = optimize_signature(tf.get_default_graph(), [y], [x], level=2)
    changes = [c for c in working.report.changes if c.pass_name == "simplify"]
    assert changes and "x * 1" in changes[0].description
    assert any(f is not None for f in changes[0].user_lines)


def test_new_ops_know_their_user_line():
    x = xf((None, 3, 4))
    y = tf.transpose(tf.transpose(x, [2, 0, 1]), [0, 2, 1]) * 2.0 * 2.0
    working = optimize_signature(tf.get_default_graph(), [y], [x], level=2)
    assert working.report.count("simplify") >= 2
    for op in working.ops():
        assert working.origin(op).graph is tf.get_default_graph()
        assert working.origin(op).traceback is not None


# ------------------------------------------------------------------- the rules' arguments
@pytest.mark.parametrize("rule", sorted({r for rules in RULES.values() for r in rules},
                                        key=lambda r: r.__name__),
                         ids=lambda r: r.__name__)
def test_every_rule_states_why_it_is_exact(rule):
    """Each rule carries its exactness argument in its own docstring (not elsewhere)."""
    doc = rule.__doc__ or ""
    assert "->" in doc, f"{rule.__name__}: the rewrite is not stated"
    assert "Exact" in doc, f"{rule.__name__}: no exactness argument"
    assert not rule.__name__.startswith("_"), "rules are named for what they do"


# ------------------------------------------------------------------- big graphs
@pytest.mark.parametrize("kind", ["identity", "merge"])
def test_long_chain_simplifies_in_linear_time(kind):
    x = xf() if kind == "identity" else tf.placeholder(tf.int32, [None], name="i")
    y = x
    one, three = tf.constant(1.0), tf.constant(3)
    for _ in range(8000 if kind == "identity" else 16000):
        y = -(y * one) if kind == "identity" else y * three   # ints: every Mul merges
    working = WorkingGraph.copy(tf.get_default_graph(), [y], [x])
    assert len(working.ops()) > 16000
    start = time.perf_counter()
    simplify(working)
    elapsed = time.perf_counter() - start
    working.prune()
    assert elapsed < 1.0, elapsed
    assert len(working.ops()) < 8
