"""Learning-rate schedules against TF1's formulas in numpy."""

import math

import numpy as np
import pytest

import staticgraph as tf

STEPS = [0, 1, 5, 10, 11, 25, 100]


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _values(make):
    step = tf.placeholder(tf.int64, [])
    out = make(step)
    assert out.shape.rank == 0
    with tf.Session() as sess:
        return out, [sess.run(out, {step: s}) for s in STEPS]


def test_exponential_decay():
    out, got = _values(lambda s: tf.train.exponential_decay(0.1, s, 10, 0.5))
    assert out.dtype == tf.float32 and out.op.name == "ExponentialDecay"
    np.testing.assert_allclose(got, [0.1 * 0.5 ** (s / 10) for s in STEPS], rtol=1e-6)
    _, got = _values(lambda s: tf.train.exponential_decay(0.1, s, 10, 0.5, staircase=True))
    np.testing.assert_allclose(got, [0.1 * 0.5 ** (s // 10) for s in STEPS], rtol=1e-6)


def test_exponential_decay_float64_and_variable_step():
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(tf.constant(0.2, tf.float64), step, 3, 0.9, name="lr")
    assert lr.dtype == tf.float64 and lr.op.name == "lr"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(lr) == 0.2
        sess.run(tf.assign_add(step, 6))
        # TF1's cast converts the Python 0.9 to float32 first, then to float64
        np.testing.assert_allclose(sess.run(lr), 0.2 * float(np.float32(0.9)) ** 2,
                                   rtol=1e-12)


def test_global_step_required():
    for fn in (tf.train.exponential_decay, tf.train.natural_exp_decay,
               tf.train.inverse_time_decay):
        with pytest.raises(ValueError, match="global_step is required"):
            fn(0.1, None, 10, 0.5)
    with pytest.raises(ValueError, match="global_step is required"):
        tf.train.polynomial_decay(0.1, None, 10)
    with pytest.raises(ValueError, match="global_step is required"):
        tf.train.cosine_decay(0.1, None, 10)


def test_piecewise_constant_int64_step():
    _, got = _values(lambda s: tf.train.piecewise_constant(s, [5, 11], [1.0, 0.5, 0.1]))
    want = [1.0 if s <= 5 else 0.5 if s <= 11 else 0.1 for s in STEPS]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_piecewise_constant_int32_boundary_tensors_promoted():
    _, got = _values(lambda s: tf.train.piecewise_constant(
        s, [tf.constant(10, tf.int32)], [tf.constant(3), tf.constant(4)]))
    assert got == [3 if s <= 10 else 4 for s in STEPS]


def test_piecewise_constant_float_x():
    x = tf.placeholder(tf.float32, [])
    out = tf.train.piecewise_constant(x, [0.5, 1.5], [10.0, 20.0, 30.0])
    with tf.Session() as sess:
        got = [sess.run(out, {x: v}) for v in (0.0, 0.5, 0.6, 1.5, 2.0)]
    assert got == [10.0, 10.0, 20.0, 20.0, 30.0]


def test_piecewise_constant_errors():
    s = tf.placeholder(tf.int64, [])
    with pytest.raises(ValueError, match="1 less than"):
        tf.train.piecewise_constant(s, [1, 2], [1.0, 2.0])
    with pytest.raises(ValueError, match="Boundaries .* same dtype"):
        tf.train.piecewise_constant(s, [1.5], [1.0, 2.0])
    with pytest.raises(ValueError, match="same dtype"):
        tf.train.piecewise_constant(s, [1], [1.0, 2])


def test_polynomial_decay():
    _, got = _values(lambda s: tf.train.polynomial_decay(0.1, s, 20, 0.01, power=2.0))
    want = [(0.1 - 0.01) * (1 - min(s, 20) / 20) ** 2 + 0.01 for s in STEPS]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    _, got = _values(lambda s: tf.train.polynomial_decay(0.1, s, 20, 0.01, cycle=True))
    want = []
    for s in STEPS:
        steps = 20 * (1.0 if s == 0 else math.ceil(s / 20))
        want.append((0.1 - 0.01) * (1 - s / steps) + 0.01)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_natural_exp_and_inverse_time_decay():
    _, got = _values(lambda s: tf.train.natural_exp_decay(0.1, s, 10, 0.3))
    np.testing.assert_allclose(got, [0.1 * math.exp(-0.3 * s / 10) for s in STEPS], rtol=1e-6)
    _, got = _values(lambda s: tf.train.natural_exp_decay(0.1, s, 10, 0.3, staircase=True))
    np.testing.assert_allclose(got, [0.1 * math.exp(-0.3 * (s // 10)) for s in STEPS],
                               rtol=1e-6)
    _, got = _values(lambda s: tf.train.inverse_time_decay(0.1, s, 10, 0.5))
    np.testing.assert_allclose(got, [0.1 / (1 + 0.5 * s / 10) for s in STEPS], rtol=1e-6)
    _, got = _values(lambda s: tf.train.inverse_time_decay(0.1, s, 10, 0.5, staircase=True))
    np.testing.assert_allclose(got, [0.1 / (1 + 0.5 * (s // 10)) for s in STEPS], rtol=1e-6)


def test_cosine_decay():
    _, got = _values(lambda s: tf.train.cosine_decay(0.1, s, 20, alpha=0.1))
    want = [0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 20) / 20)) + 0.1)
            for s in STEPS]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
