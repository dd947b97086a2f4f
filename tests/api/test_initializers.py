"""Initializers (tf.*_initializer): values, TF1 fan computations, bounds, configs, errors."""

import math

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.api.initializers import _compute_fans
from tests.helpers import run


def test_constant_family_values_and_dtypes():
    z, o = tf.zeros_initializer()([2, 3]), tf.ones_initializer(dtype=tf.int32)([2])
    c = tf.constant_initializer(2.5)([2, 2])
    padded = tf.constant_initializer([1, 2, 3])([2, 3], dtype=tf.int64)
    zi = tf.zeros_initializer()(tf.TensorShape([3]), dtype=tf.int32)
    assert (z.dtype, o.dtype, c.dtype, padded.dtype, zi.dtype) == (
        tf.float32, tf.int32, tf.float32, tf.int64, tf.int32)
    zv, ov, cv, pv, ziv = run([z, o, c, padded, zi])
    np.testing.assert_array_equal(zv, np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(ov, [1, 1])
    np.testing.assert_array_equal(cv, np.full((2, 2), 2.5, np.float32))
    # TF1: a list shorter than the shape is padded with its last element.
    np.testing.assert_array_equal(pv, [[1, 2, 3], [3, 3, 3]])
    np.testing.assert_array_equal(ziv, [0, 0, 0])


def test_constant_initializer_errors():
    with pytest.raises(TypeError, match="Invalid type for initial value"):
        tf.constant_initializer(tf.constant(1.0))
    with pytest.raises(TypeError, match="Expected Tensor's shape"):
        tf.constant_initializer([1.0, 2.0], verify_shape=True)([3])
    with pytest.raises(ValueError, match="Too many elements"):
        tf.constant_initializer([1.0, 2.0, 3.0])([2])


@pytest.mark.parametrize("shape, fans", [
    ([], (1, 1)), ([5], (5, 5)), ([3, 4], (3, 4)),
    ([3, 3, 8, 16], (72, 144)), ([2, 3, 4, 5, 6], (120, 144)),
])
def test_compute_fans_tf1_rule(shape, fans):
    assert _compute_fans(shape) == fans


@pytest.mark.parametrize("mode, n", [("fan_in", 3 * 3 * 8), ("fan_out", 3 * 3 * 16),
                                     ("fan_avg", (72 + 144) / 2)])
def test_variance_scaling_uniform_conv_kernel_limits(mode, n):
    init = tf.variance_scaling_initializer(scale=2.0, mode=mode, distribution="uniform", seed=3)
    v = run(init([3, 3, 8, 16]))
    limit = math.sqrt(3 * 2.0 / n)
    assert v.shape == (3, 3, 8, 16) and v.dtype == np.float32
    assert np.abs(v).max() <= limit * (1 + 1e-6)
    assert np.abs(v).max() > 0.95 * limit   # 1152 samples: the bound is nearly reached


def test_glorot_uniform_limit_and_spread():
    v = run(tf.glorot_uniform_initializer(seed=1)([60, 140]))
    limit = math.sqrt(6.0 / (60 + 140))
    assert np.abs(v).max() <= limit * (1 + 1e-6) and np.abs(v).max() > 0.99 * limit
    np.testing.assert_allclose(v.std(), limit / math.sqrt(3), rtol=0.03)
    assert abs(v.mean()) < 0.01


def test_glorot_normal_is_truncated_with_tf1_stddev():
    v = run(tf.glorot_normal_initializer(seed=2)([100, 200]))
    target = math.sqrt(2.0 / 300)
    sigma = target / .87962566103423978     # the stddev before truncation
    assert np.abs(v).max() <= 2 * sigma * (1 + 1e-5)
    np.testing.assert_allclose(v.std(), target, rtol=0.03)


def test_variance_scaling_normal_variants():
    trunc = run(tf.variance_scaling_initializer(seed=4)([200, 100]))  # fan_in, truncated
    sigma = math.sqrt(1.0 / 200) / .87962566103423978
    assert np.abs(trunc).max() <= 2 * sigma * (1 + 1e-5)
    np.testing.assert_allclose(trunc.std(), math.sqrt(1.0 / 200), rtol=0.03)
    plain = run(tf.variance_scaling_initializer(
        distribution="untruncated_normal", mode="fan_out", seed=5)([200, 100]))
    np.testing.assert_allclose(plain.std(), math.sqrt(1.0 / 100), rtol=0.03)
    assert np.abs(plain).max() > 2.5 * math.sqrt(1.0 / 100)   # not truncated
    assert tf.variance_scaling_initializer(distribution="Normal").distribution == "normal"


def test_random_initializers_bounds_and_moments():
    n = run(tf.random_normal_initializer(mean=5.0, stddev=0.1, seed=1)([100, 100]))
    np.testing.assert_allclose([n.mean(), n.std()], [5.0, 0.1], rtol=0.02)
    t = run(tf.truncated_normal_initializer(mean=1.0, stddev=0.5, seed=1)([100, 100]))
    assert t.min() >= 0.0 and t.max() <= 2.0
    u = run(tf.random_uniform_initializer(-1.0, 2.0, seed=1)([100, 100]))
    assert u.min() >= -1.0 and u.max() < 2.0 and u.min() < -0.99 and u.max() > 1.99
    ui = run(tf.random_uniform_initializer(0, 3, dtype=tf.int32)([50]))
    assert ui.dtype == np.int32 and set(np.unique(ui)) <= {0, 1, 2}
    uus = run(tf.uniform_unit_scaling_initializer(factor=2.0, seed=1)([4, 5, 30]))
    assert np.abs(uus).max() <= math.sqrt(3.0 / 20) * 2.0 * (1 + 1e-6)


def test_seeded_initializers_repeat_across_graphs():
    values = []
    for _ in range(2):
        with tf.Graph().as_default():
            values.append(run(tf.glorot_uniform_initializer(seed=7)([3, 4])))
    np.testing.assert_array_equal(values[0], values[1])


def test_get_config_round_trip():
    init = tf.variance_scaling_initializer(2.0, "fan_out", "uniform", seed=3, dtype=tf.float64)
    cfg = init.get_config()
    assert cfg == {"scale": 2.0, "mode": "fan_out", "distribution": "uniform", "seed": 3,
                   "dtype": "float64"}
    again = tf.variance_scaling_initializer.from_config(cfg)
    assert again.get_config() == cfg and again.dtype is tf.float64
    assert tf.glorot_uniform_initializer(seed=1).get_config() == {"seed": 1, "dtype": "float32"}
    assert tf.constant_initializer(3).get_config() == {"value": 3, "dtype": "float32",
                                                      "verify_shape": False}
    assert tf.random_uniform_initializer(1, 2).get_config() == {
        "minval": 1, "maxval": 2, "seed": None, "dtype": "float32"}
    assert tf.zeros_initializer.from_config({"dtype": "int32"}).dtype is tf.int32


def test_argument_errors():
    with pytest.raises(ValueError, match="`scale` must be positive float."):
        tf.variance_scaling_initializer(scale=0.0)
    with pytest.raises(ValueError, match="Invalid `mode` argument"):
        tf.variance_scaling_initializer(mode="fan")
    with pytest.raises(ValueError, match="Invalid `distribution` argument"):
        tf.variance_scaling_initializer(distribution="cauchy")
    with pytest.raises(ValueError, match="Expected floating point type, got"):
        tf.random_normal_initializer(dtype=tf.int32)
    with pytest.raises(ValueError, match="Expected floating point type"):
        tf.glorot_uniform_initializer(dtype=tf.int64)
