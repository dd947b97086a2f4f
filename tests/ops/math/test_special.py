"""erf and erfc beyond the per-op cases: float64 accuracy, special values, dtypes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run


@pytest.fixture(autouse=True)
def no_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


def test_erf_matches_math_erf_to_float64_precision():
    xs = np.concatenate([np.linspace(-7, 7, 2801), np.geomspace(1e-12, 7, 300)])
    got = run(tf.erf(tf.constant(xs)))
    want = np.array([math.erf(v) for v in xs])
    np.testing.assert_allclose(got, want, rtol=2e-15, atol=1e-16)
    gotc = run(tf.erfc(tf.constant(xs)))
    wantc = np.array([math.erfc(v) for v in xs])
    np.testing.assert_allclose(gotc, wantc, rtol=3e-14, atol=0)


def test_erf_special_values_and_dtype():
    got = run(tf.erf(tf.constant([0.0, np.inf, -np.inf, np.nan], tf.float32)))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [0.0, 1.0, -1.0, np.nan])
    assert run(tf.erf(tf.constant(-0.0, tf.float64))) == 0.0
