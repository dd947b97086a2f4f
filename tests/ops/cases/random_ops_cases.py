"""Cases for the random ops: properties of the samples (shape, dtype, range, statistics).

Random ops have no reference values, so every case has ``check=`` instead of
``expected=``. Statistics use ~10k samples with tolerances of at least 5 standard
errors, and most cases are seeded, so they are deterministic anyway. The ONNX export
must draw the kernel's values (the same counter-based stream): integers exactly,
floats to a few units in the last place (``onnx_rtol``/``onnx_atol`` below).
"""

import numpy as np

import staticgraph as tf

from . import Case

N = 10_000
TRUNC_STD = 0.8796256610342398  # std of N(0, 1) truncated to [-2, 2]


def _stats(shape, dtype, mean, std, lo=None, hi=None, tol=5.0):
    """A check: output shape and dtype, optional range, mean and std within ``tol`` s.e."""

    def check(out, inputs):
        out = np.asarray(out)
        assert out.shape == shape, (out.shape, shape)
        assert out.dtype == dtype, out.dtype
        x = out.astype(np.float64)
        assert np.all(np.isfinite(x))
        if lo is not None:
            assert x.min() >= lo, x.min()
        if hi is not None:
            assert x.max() < hi, x.max()
        n = x.size
        assert abs(x.mean() - mean) < tol * std / np.sqrt(n) + 1e-3 * abs(mean), x.mean()
        assert abs(x.std() - std) < tol * std / np.sqrt(n / 2) + 2e-3 * std, x.std()
    return check


def _shape_only(shape, dtype):
    def check(out, inputs):
        out = np.asarray(out)
        assert out.shape == shape and out.dtype == dtype, (out.shape, out.dtype)
    return check


def _check_int_uniform(shape, lo, hi, dtype):
    def check(out, inputs):
        out = np.asarray(out)
        assert out.shape == shape and out.dtype == dtype, (out.shape, out.dtype)
        assert out.min() >= lo and out.max() < hi, (out.min(), out.max())
        assert set(np.unique(out).tolist()) == set(range(lo, hi))  # every value is drawn
        k = hi - lo  # discrete uniform: mean (lo + hi - 1) / 2, variance (k^2 - 1) / 12
        std = np.sqrt((k * k - 1) / 12)
        assert abs(out.mean() - (lo + hi - 1) / 2) < 5 * std / np.sqrt(out.size)
    return check


def _check_wide_ints(shape, lo, hi, dtype):
    """A range too wide to see every value: bounds, and mean and spread of a uniform."""
    def check(out, inputs):
        out = np.asarray(out)
        assert out.shape == shape and out.dtype == dtype, (out.shape, out.dtype)
        assert out.min() >= lo and out.max() < hi, (out.min(), out.max())
        x = out.astype(np.float64)
        width = float(hi) - float(lo)
        assert abs(x.mean() - (float(lo) + float(hi)) / 2) < 5 * width / np.sqrt(12 * x.size)
        assert abs(x.std() - width / np.sqrt(12)) < 0.02 * width
    return check


def _check_shuffle(out, inputs):
    out, (x,) = np.asarray(out), inputs
    assert out.shape == x.shape and out.dtype == x.dtype
    if x.ndim == 0:
        assert out == x
        return
    def rows(a):
        return sorted(a[i].tobytes() for i in range(len(a)))
    assert rows(out) == rows(x)  # the same rows, each intact


def _softmax(logits):
    z = np.where(np.isfinite(logits), logits, -np.inf).astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _check_multinomial(num_samples, dtype):
    def check(out, inputs):
        out, logits = np.asarray(out), inputs[0]
        assert out.shape == (logits.shape[0], num_samples) and out.dtype == dtype
        p = _softmax(logits)
        for row, probs in zip(out, p):
            counts = np.bincount(row, minlength=len(probs))
            assert len(counts) == len(probs)  # no index out of range
            assert np.all(counts[probs == 0] == 0)
            sd = np.sqrt(num_samples * probs * (1 - probs))
            assert np.all(np.abs(counts - num_samples * probs) <= 5 * sd + 1)
    return check


# onnxruntime's log/sin/cos round a little differently from numpy's
F32 = {"onnx_rtol": 1e-6, "onnx_atol": 1e-6}
F64 = {"onnx_rtol": 1e-13, "onnx_atol": 1e-13}

SHAPE_2D = np.array([100, 100], np.int32)
ZEROS = np.zeros((100, 100), np.float32)
LOGITS = np.array([[0.0, 1.0, 2.0, -1.0], [3.0, -np.inf, 0.0, 0.5]], np.float32)

CASES = [
    # RandomStandardNormal (random_normal)
    Case("RandomStandardNormal", lambda s: tf.random_normal(s, seed=1), [SHAPE_2D],
         check=_stats((100, 100), np.float32, 0.0, 1.0),
         bad=[[(2, 2)]], bad_dtypes=[[np.float32]], **F32),
    Case("RandomStandardNormal",
         lambda m, sd: tf.random_normal([50, 200], mean=m, stddev=sd, dtype=tf.float64),
         [np.float64(3.0), np.float64(2.0)], check=_stats((50, 200), np.float64, 3.0, 2.0),
         id="mean_stddev_f64_unseeded", **F64),
    Case("RandomStandardNormal", lambda s: tf.random_normal(s, dtype=tf.float16, seed=2),
         [np.array([N], np.int64)], check=_stats((N,), np.float16, 0.0, 1.0),
         id="f16_int64_shape"),
    Case("RandomStandardNormal", lambda s: tf.random_normal(s), [np.array([0, 3], np.int32)],
         check=_shape_only((0, 3), np.float32), id="empty", **F32),
    Case("RandomStandardNormal", lambda s: tf.random_normal(s, seed=3),
         [np.zeros((0,), np.int32)], check=_shape_only((), np.float32), id="scalar", **F32),
    Case("RandomStandardNormal", lambda s: tf.random_normal(s, seed=3),
         [np.array([3, 1, 5], np.int32)], check=_shape_only((3, 1, 5), np.float32),
         id="odd_count", **F32),
    # RandomUniform (float random_uniform)
    Case("RandomUniform", lambda s: tf.random_uniform(s, seed=4), [SHAPE_2D],
         check=_stats((100, 100), np.float32, 0.5, np.sqrt(1 / 12), lo=0.0, hi=1.0),
         bad=[[()]], bad_dtypes=[[np.float64]], **F32),
    Case("RandomUniform",
         lambda lo, hi: tf.random_uniform([N], lo, hi, dtype=tf.float64, seed=5),
         [np.float64(-2.0), np.float64(3.0)],
         check=_stats((N,), np.float64, 0.5, 5 / np.sqrt(12), lo=-2.0, hi=3.0), id="min_max_f64",
         **F64),
    Case("RandomUniform", lambda s: tf.random_uniform(s, dtype=tf.float16, seed=6),
         [np.array([N], np.int32)],
         check=_stats((N,), np.float16, 0.5, np.sqrt(1 / 12), lo=0.0, hi=1.0), id="f16"),
    # RandomUniformInt (integer random_uniform)
    Case("RandomUniformInt",
         lambda s, lo, hi: tf.random_uniform(s, lo, hi, dtype=tf.int32, seed=7),
         [np.array([N], np.int32), np.int32(-3), np.int32(4)],
         check=_check_int_uniform((N,), -3, 4, np.int32),
         bad=[[(1,), (2,), ()], [(1,), (), (1, 1)]],
         bad_dtypes=[[np.float32, np.int32, np.int32]]),
    Case("RandomUniformInt",
         lambda s: tf.random_uniform(s, minval=5, maxval=8, dtype=tf.int64), [SHAPE_2D],
         check=_check_int_uniform((100, 100), 5, 8, np.int64), id="int64_unseeded"),
    Case("RandomUniformInt",
         lambda s: tf.random_uniform(s, -2 ** 31, 2 ** 31 - 1, dtype=tf.int32, seed=15), [SHAPE_2D],
         check=_check_wide_ints((100, 100), -2 ** 31, 2 ** 31 - 1, np.int32), id="int32_full"),
    Case("RandomUniformInt",
         lambda lo, hi: tf.random_uniform([N], lo, hi, dtype=tf.int64, seed=16),
         [np.int64(-2 ** 62 - 7), np.int64(2 ** 62 + 3)],
         check=_check_wide_ints((N,), -2 ** 62 - 7, 2 ** 62 + 3, np.int64), id="int64_wide"),
    # TruncatedNormal
    Case("TruncatedNormal", lambda s: tf.truncated_normal(s, seed=8), [SHAPE_2D],
         check=_stats((100, 100), np.float32, 0.0, TRUNC_STD, lo=-2.0, hi=2.0 + 1e-9),
         bad=[[(1, 2)]], bad_dtypes=[[np.float32]], **F32),
    Case("TruncatedNormal",
         lambda m, sd: tf.truncated_normal([N], m, sd, dtype=tf.float64, seed=9),
         [np.float64(1.0), np.float64(3.0)],
         check=_stats((N,), np.float64, 1.0, 3 * TRUNC_STD, lo=-5.0, hi=7.0 + 1e-9),
         id="mean_stddev_f64", **F64),
    Case("TruncatedNormal", lambda s: tf.truncated_normal(s, dtype=tf.float16),
         [np.array([N], np.int32)],
         check=_stats((N,), np.float16, 0.0, TRUNC_STD, lo=-2.0, hi=2.0 + 1e-9), id="f16"),
    # RandomShuffle
    Case("RandomShuffle", lambda x: tf.random_shuffle(x, seed=10),
         [np.arange(20, dtype=np.int32).reshape(10, 2)], check=_check_shuffle),
    Case("RandomShuffle", lambda x: tf.random_shuffle(x),
         [np.random.default_rng(0).standard_normal((6, 2, 3)).astype(np.float32)],
         check=_check_shuffle, id="f32_3d"),
    Case("RandomShuffle", lambda x: tf.random_shuffle(x),
         [np.array([True, False, False, True, True])], check=_check_shuffle, id="bool"),
    Case("RandomShuffle", lambda x: tf.random_shuffle(x), [np.float32(5.0)],
         check=_check_shuffle, id="scalar"),
    Case("RandomShuffle", lambda x: tf.random_shuffle(x), [np.zeros((0, 3), np.int64)],
         check=_check_shuffle, id="empty"),
    # Multinomial
    Case("Multinomial", lambda logits: tf.multinomial(logits, N, seed=11), [LOGITS],
         check=_check_multinomial(N, np.int64),
         bad=[[(4,)], [(1, 2, 4)]], bad_dtypes=[[np.bool_]]),
    Case("Multinomial",
         lambda logits, n: tf.multinomial(logits, n, output_dtype=tf.int32),
         [LOGITS.astype(np.float64), np.int32(N)], check=_check_multinomial(N, np.int32),
         bad=[[(2, 4), (1,)]], bad_dtypes=[[np.float64, np.int64]], id="tensor_num_samples"),
    Case("Multinomial", lambda logits: tf.multinomial(logits, N, seed=17),
         [np.array([[0, 1, 2], [3, 3, 3]], np.int32)], check=_check_multinomial(N, np.int64),
         id="int_logits"),
    # Shapes computed in the graph (tf.shape of an input): known rank, sizes known
    # only when the input's are (the *Like path of the ONNX export).
    Case("RandomStandardNormal", lambda x: tf.random_normal(tf.shape(x), seed=12), [ZEROS],
         check=_stats((100, 100), np.float32, 0.0, 1.0), id="shape_of_input", **F32),
    Case("TruncatedNormal",
         lambda x: tf.truncated_normal(tf.shape(x), dtype=tf.float64, seed=13), [ZEROS],
         check=_stats((100, 100), np.float64, 0.0, TRUNC_STD, lo=-2.0, hi=2.0 + 1e-9),
         id="shape_of_input", **F64),
    Case("RandomUniformInt",
         lambda x: tf.random_uniform(tf.shape(x, out_type=tf.int64), -1, 1, dtype=tf.int64,
                                     seed=14), [ZEROS],
         check=_check_int_uniform((100, 100), -1, 1, np.int64), id="shape_of_input"),
]
