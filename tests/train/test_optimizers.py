"""Each optimizer, several steps, against its update written out in numpy."""

import threading

import numpy as np
import pytest

import staticgraph as tf

from . import reference as ref

F = np.float32
R = np.random.default_rng(5)
W0 = R.standard_normal((2, 3)).astype(F)
B0 = R.standard_normal((3,)).astype(F)
GRADS = [(R.standard_normal((2, 3)).astype(F), R.standard_normal((3,)).astype(F))
         for _ in range(4)]

# name -> (make optimizer, initial slot values, numpy update(var, slots, grad, step t))
OPTIMIZERS = {
    "sgd": (lambda: tf.train.GradientDescentOptimizer(0.1), {},
            lambda var, s, g, t: ref.sgd(var, g, 0.1)),
    "momentum": (lambda: tf.train.MomentumOptimizer(0.1, 0.9), {"momentum": 0.0},
                 lambda var, s, g, t: ref.momentum(var, s, g, 0.1, 0.9)),
    "nesterov": (lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
                 {"momentum": 0.0},
                 lambda var, s, g, t: ref.momentum(var, s, g, 0.1, 0.9, nesterov=True)),
    "adam": (lambda: tf.train.AdamOptimizer(0.01, 0.8, 0.95, 1e-6), {"m": 0.0, "v": 0.0},
             lambda var, s, g, t: ref.adam(var, s, g, 0.01, 0.8, 0.95, 1e-6, t)),
    "adam_defaults": (lambda: tf.train.AdamOptimizer(), {"m": 0.0, "v": 0.0},
                      lambda var, s, g, t: ref.adam(var, s, g, 0.001, 0.9, 0.999, 1e-8, t)),
    "rmsprop": (lambda: tf.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5,
                                                  epsilon=1e-6),
                {"rms": 1.0, "momentum": 0.0},
                lambda var, s, g, t: ref.rmsprop(var, s, g, 0.01, 0.8, 0.5, 1e-6)),
    "rmsprop_defaults": (lambda: tf.train.RMSPropOptimizer(0.01),
                         {"rms": 1.0, "momentum": 0.0},
                         lambda var, s, g, t: ref.rmsprop(var, s, g, 0.01, 0.9, 0.0, 1e-10)),
    "rmsprop_centered": (lambda: tf.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5,
                                                           epsilon=1e-6, centered=True),
                         {"rms": 1.0, "mg": 0.0, "momentum": 0.0},
                         lambda var, s, g, t: ref.rmsprop(var, s, g, 0.01, 0.8, 0.5, 1e-6,
                                                          centered=True)),
    "adagrad": (lambda: tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.2),
                {"accumulator": 0.2}, lambda var, s, g, t: ref.adagrad(var, s, g, 0.1)),
}


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_steps_match_numpy(kind):
    make, slot_init, update = OPTIMIZERS[kind]
    w = tf.Variable(W0, name="w")
    b = tf.Variable(B0, name="b")
    gw = tf.placeholder(tf.float32, [2, 3])
    gb = tf.placeholder(tf.float32, [3])
    step = tf.train.get_or_create_global_step()
    opt = make()
    train = opt.apply_gradients([(gw, w), (gb, b)], global_step=step)
    assert opt.get_slot_names() == sorted(slot_init)
    want = {"w": W0.copy(), "b": B0.copy()}
    want_slots = {(v, k): np.full(a.shape, x, F) for v, a in want.items()
                  for k, x in slot_init.items()}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t, (g_w, g_b) in enumerate(GRADS, start=1):
            sess.run(train, {gw: g_w, gb: g_b})
            for name, g in (("w", g_w), ("b", g_b)):
                update(want[name], {k: want_slots[(name, k)] for k in slot_init}, g, t)
            got_w, got_b, got_step = sess.run([w, b, step])
            np.testing.assert_allclose(got_w, want["w"], rtol=2e-5, atol=1e-6)
            np.testing.assert_allclose(got_b, want["b"], rtol=2e-5, atol=1e-6)
            assert got_step == t and got_step.dtype == np.int64
            for (name, k), value in want_slots.items():
                slot = opt.get_slot(w if name == "w" else b, k)
                np.testing.assert_allclose(sess.run(slot), value, rtol=2e-5, atol=1e-6)
        assert tf.train.global_step(sess, step) == len(GRADS)


def test_adam_beta_powers():
    w = tf.Variable(W0, name="w")
    opt = tf.train.AdamOptimizer(0.01, beta1=0.8, beta2=0.95)
    train = opt.apply_gradients([(tf.constant(GRADS[0][0]), w)])
    b1p, b2p = opt._get_beta_accumulators()
    assert b1p.op.name == "beta1_power" and b2p.op.name == "beta2_power"
    assert not b1p.trainable and b1p in tf.global_variables()
    assert sorted(v.op.name for v in opt.variables()) == [
        "beta1_power", "beta2_power", "w/Adam", "w/Adam_1"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run([b1p, b2p]), [0.8, 0.95], rtol=1e-6)
        for t in range(1, 4):
            sess.run(train)
            np.testing.assert_allclose(sess.run([b1p, b2p]), [F(0.8) ** (t + 1),
                                                             F(0.95) ** (t + 1)], rtol=1e-6)


def test_slot_variable_names():
    w = tf.Variable(W0, name="w")
    g = tf.constant(GRADS[0][0])
    names = {}
    for opt in (tf.train.AdamOptimizer(), tf.train.MomentumOptimizer(0.1, 0.9),
                tf.train.RMSPropOptimizer(0.1), tf.train.RMSPropOptimizer(0.1, centered=True),
                tf.train.AdagradOptimizer(0.1)):
        opt.apply_gradients([(g, w)])
        names[type(opt).__name__ + str(getattr(opt, "_centered", ""))] = {
            k: opt.get_slot(w, k).op.name for k in opt.get_slot_names()}
    assert names["AdamOptimizer"] == {"m": "w/Adam", "v": "w/Adam_1"}
    assert names["MomentumOptimizer"] == {"momentum": "w/Momentum"}
    assert names["RMSPropOptimizerFalse"] == {"rms": "w/RMSProp", "momentum": "w/RMSProp_1"}
    assert names["RMSPropOptimizerTrue"] == {"rms": "w/RMSProp_2", "mg": "w/RMSProp_3",
                                             "momentum": "w/RMSProp_4"}
    assert names["AdagradOptimizer"] == {"accumulator": "w/Adagrad"}
    slots = [v for v in tf.global_variables() if v.op.name.startswith("w/")]
    assert len(slots) == 9 and not any(v.trainable for v in slots)
    assert tf.trainable_variables() == [w]


def test_op_names_and_train_op_collection():
    w = tf.Variable(W0, name="w")
    loss = tf.reduce_sum(w * w)
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    assert train.name == "Adam" and train.type == "NoOp"
    names = {op.name for op in tf.get_default_graph().get_operations()}
    assert {"Adam/update_w/ApplyAdam", "Adam/learning_rate", "Adam/beta1"} <= names
    step = tf.train.get_or_create_global_step()
    train2 = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step,
                                                              name="sgd")
    assert train2.name == "sgd" and train2.type == "AssignAdd"
    assert "sgd/update_w/ApplyGradientDescent" in {
        op.name for op in tf.get_default_graph().get_operations()}
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train, train2]


def test_minimize_matches_hand_gradient_and_var_list():
    w = tf.Variable([1.0, -2.0], name="w")
    u = tf.Variable([3.0], name="u")
    loss = tf.reduce_sum(w * w) + tf.reduce_sum(u * u * 0.5)
    opt = tf.train.MomentumOptimizer(0.1, 0.5)
    train = opt.minimize(loss, var_list=[w])
    assert opt.get_slot(u, "momentum") is None and opt.get_slot(w, "momentum") is not None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want, acc = np.array([1.0, -2.0], F), np.zeros(2, F)
        for _ in range(3):
            sess.run(train)
            acc = acc * F(0.5) + 2 * want
            want = want - F(0.1) * acc
        np.testing.assert_allclose(sess.run(w), want, rtol=1e-6)
        np.testing.assert_array_equal(sess.run(u), [3.0])


def test_compute_gradients_default_var_list_and_none():
    w = tf.Variable([1.0, 2.0], name="w")
    tf.Variable([5.0], name="unused")
    tf.Variable([7.0], name="frozen", trainable=False)
    loss = tf.reduce_sum(w * 3.0)
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    assert [v.op.name for _, v in pairs] == ["w", "unused"]
    assert pairs[1][0] is None
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(pairs[0][0]), [3.0, 3.0])
    # apply_gradients skips the None gradient
    train = tf.train.GradientDescentOptimizer(0.5).apply_gradients(pairs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [-0.5, 0.5])


def test_grad_loss():
    w = tf.Variable([1.0, 2.0], name="w")
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(
        w * 2.0, grad_loss=tf.constant([1.0, 10.0]))
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(pairs[0][0]), [2.0, 20.0])


def test_apply_gradients_errors():
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(TypeError, match="Gradient must be convertible"):
        opt.apply_gradients([(object(), w)])
    with pytest.raises(NotImplementedError, match="unsupported type"):
        opt.apply_gradients([(tf.constant([1.0, 1.0]), tf.constant([1.0, 2.0]))])


def test_minimize_errors():
    w = tf.Variable([1.0, 2.0], name="w")
    opt = tf.train.GradientDescentOptimizer(0.1)
    other = tf.Variable([1.0], name="other")
    with pytest.raises(ValueError, match="No gradients provided for any variable, check"):
        opt.minimize(tf.reduce_sum(other * 2.0), var_list=[w])
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        opt.minimize(tf.reduce_sum(w), gate_gradients=7)
    with pytest.raises(ValueError, match="Invalid type"):
        opt.minimize(tf.constant(3))
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf.train.GradientDescentOptimizer(0.1, name="")
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_no_variables_to_optimize():
    with pytest.raises(ValueError, match="No variables to optimize"):
        tf.train.AdamOptimizer().minimize(tf.constant(1.0) * 2.0)


def test_gate_graph_and_gate_none():
    w = tf.Variable([1.0, 2.0], name="w")
    for gate in (tf.train.Optimizer.GATE_NONE, tf.train.Optimizer.GATE_GRAPH):
        train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(w * w),
                                                                 gate_gradients=gate)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), [0.0, 0.0])


def test_learning_rate_tensor_from_exponential_decay():
    w = tf.Variable(W0, name="w")
    gw = tf.placeholder(tf.float32, [2, 3])
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.1, step, decay_steps=2, decay_rate=0.5)
    train = tf.train.MomentumOptimizer(lr, 0.9).apply_gradients([(gw, w)], global_step=step)
    want, acc = W0.copy(), np.zeros_like(W0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for t, (g, _) in enumerate(GRADS):
            sess.run(train, {gw: g})
            ref.momentum(want, {"momentum": acc}, g, F(0.1) * F(0.5) ** F(t / 2), 0.9)
            np.testing.assert_allclose(sess.run(w), want, rtol=2e-5, atol=1e-6)


def test_callable_hyperparameters_and_float64_variables():
    w = tf.Variable(np.array([1.0, -1.0]), name="w")   # float64
    assert w.dtype == tf.float64
    opt = tf.train.AdamOptimizer(learning_rate=lambda: 0.1, beta1=lambda: 0.5)
    train = opt.apply_gradients([(tf.constant([1.0, 2.0], tf.float64), w)])
    assert opt.get_slot(w, "m").dtype == tf.float64
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        got = sess.run(w)
    assert got.dtype == np.float64
    # step 1: lr_t = lr * sqrt(1 - b2) / (1 - b1); m = (1 - b1) g; v = (1 - b2) g^2
    lr, b1, b2 = float(F(0.1)), float(F(0.5)), float(F(0.999))
    g = np.array([1.0, 2.0])
    m, v = (1 - b1) * g, (1 - b2) * g * g
    want = np.array([1.0, -1.0]) - lr * np.sqrt(1 - b2) / (1 - b1) * m / (np.sqrt(v)
                                                                          + float(F(1e-8)))
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_scalar_variable_and_constraint():
    s = tf.Variable(2.0, name="s", constraint=lambda v: tf.maximum(v, 1.5))
    train = tf.train.GradientDescentOptimizer(0.25).minimize(s * s)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)          # 2 - 0.25 * 4 = 1.0, clipped to 1.5
        assert sess.run(s) == 1.5


def test_uninitialized_slot_is_reported():
    w = tf.Variable(W0, name="w")
    train = tf.train.AdamOptimizer().minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(w.initializer)
        with pytest.raises(tf.errors.FailedPreconditionError, match="w/Adam|beta"):
            sess.run(train)


def test_fetched_values_are_not_aliased_to_state():
    w = tf.Variable([1.0, 2.0], name="w")
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(
        [(tf.constant([1.0, 1.0]), w)])
    update = tf.get_default_graph().get_operation_by_name(
        "GradientDescent/update_w/ApplyGradientDescent").outputs[0]
    with tf.Session() as sess:
        sess.run(w.initializer)
        before = sess.run(w)
        after_one = sess.run(update)       # the op's output: the updated value
        sess.run(train)                    # updates the stored array in place
        np.testing.assert_array_equal(before, [1.0, 2.0])
        np.testing.assert_array_equal(after_one, [0.0, 1.0])
        np.testing.assert_array_equal(sess.run(w), [-1.0, 0.0])


def test_concurrent_steps_lose_no_update():
    w = tf.Variable(np.zeros(4, F), name="w")
    train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(
        [(tf.constant(np.ones(4, F)), w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())

        def worker():
            for _ in range(50):
                sess.run(train)
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(sess.run(w), np.full(4, -200.0, F))


def test_two_sessions_keep_separate_state():
    w = tf.Variable([1.0], name="w")
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    with tf.Session() as s1, tf.Session() as s2:
        s1.run(tf.global_variables_initializer())
        s2.run(tf.global_variables_initializer())
        s1.run(train)
        s1.run(train)
        s2.run(train)
        assert s1.run(w)[0] < s2.run(w)[0] < 1.0


def test_names_inside_a_name_scope_and_control_dependencies():
    w = tf.Variable(W0, name="w")
    c = tf.constant(1.0)
    with tf.name_scope("train"), tf.control_dependencies([c]):
        opt = tf.train.AdamOptimizer()
        train = opt.minimize(tf.reduce_sum(w * w))
    # slots are named after their variable only (TF1 creates them with get_variable)
    assert opt.get_slot(w, "m").op.name == "w/Adam"
    assert opt.get_slot(w, "m").initializer.control_inputs == []
    assert opt._get_beta_accumulators()[0].op.name == "train/beta1_power"
    assert train.name == "train/Adam"
    assert tf.get_default_graph().get_operation_by_name("train/Adam/update_w/ApplyAdam")
