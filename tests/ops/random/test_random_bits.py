"""The counter-based generator behind every random op: its words against a hand-written
SplitMix64 (checked on the published sequence), the ONNX construction against numpy
bit for bit in onnxruntime, and the statistics of words and values."""

import math

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper

from staticgraph.export.onnx import LoweringContext
from staticgraph.ops.random import random_bits as rb

M64 = (1 << 64) - 1
KEYS = [0, 1, rb.key_of(42, 7), rb.key_of(None, 3), M64, (1 << 63) + 12345]
COUNTERS = [0, 1, 2, 1000, (1 << 40) + 3]


def _splitmix64(state, n):
    """SplitMix64 written from its definition with Python ints: the reference."""
    out = []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        out.append(z ^ (z >> 31))
    return out


def test_reference_is_splitmix64():
    # the published first outputs of SplitMix64 seeded with 0
    assert _splitmix64(0, 4) == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4,
                                 0x06C45D188009454F, 0xF88BB8A8724C81EC]


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("counter", [0, 5, 1 << 40])
def test_words_are_splitmix64_from_the_stream_base(key, counter):
    got = rb.words(key, counter, 50)
    assert got.dtype == np.uint64
    assert [int(w) for w in got] == _splitmix64(rb.stream_base(key, counter), 50)


def test_streams_differ_by_key_and_counter():
    first = {tuple(rb.words(k, c, 4).tolist()) for k in KEYS for c in COUNTERS}
    assert len(first) == len(KEYS) * len(COUNTERS)
    assert rb.key_of(1, 2) != rb.key_of(2, 1)
    assert rb.key_of(None, None) is None  # unseeded: the session draws a key
    assert rb.as_int64(M64) == -1 and rb.as_int64(5) == 5


# ------------------------------------------------------------------ ONNX bit for bit
def _ort_model(build, n_inputs, out_dtype=np.uint64):
    """An ONNX model of ``build(ctx, key, counter[, count])`` (int64 scalar inputs) with
    one output of ``out_dtype``."""
    ctx = LoweringContext(18)
    names = [ctx.reserve(n) for n in ("key", "counter", "count")[:n_inputs]]
    out = build(ctx, *names)
    inputs = [helper.make_tensor_value_info(n, onnx.TensorProto.INT64, []) for n in names]
    graph = helper.make_graph(ctx.nodes, "g", inputs,
                              [helper.make_tensor_value_info(
                                  out, helper.np_dtype_to_tensor_dtype(np.dtype(out_dtype)),
                                  None)],
                              initializer=ctx.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def _feeds(key, counter, count=None):
    feeds = {"key": np.array(rb.as_int64(key), np.int64),
             "counter": np.array(counter, np.int64)}
    if count is not None:
        feeds["count"] = np.array(count, np.int64)
    return feeds


def test_onnx_words_equal_numpy_words_exactly():
    session = _ort_model(rb.onnx_words, 3)
    static = _ort_model(lambda ctx, k, c: rb.onnx_words(ctx, k, c, 777), 2)
    for key in KEYS:
        for counter in COUNTERS:
            want = rb.words(key, counter, 5000)
            got = session.run(None, _feeds(key, counter, 5000))[0]
            assert got.dtype == np.uint64
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(static.run(None, _feeds(key, counter))[0],
                                          want[:777])
    assert session.run(None, _feeds(1, 2, 0))[0].shape == (0,)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_onnx_uniform_equals_numpy_exactly(dtype):
    session = _ort_model(lambda ctx, k, c, n: rb.onnx_uniform(
        ctx, rb.onnx_words(ctx, k, c, n), dtype), 3, dtype)
    for key, counter in [(KEYS[2], 0), (KEYS[5], 9)]:
        got = session.run(None, _feeds(key, counter, 4000))[0]
        want = rb.uniform(rb.words(key, counter, 4000), dtype)
        assert got.dtype == want.dtype == dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kind", ["normal", "truncated_normal"])
@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-6), (np.float64, 1e-13),
                                       (np.float16, 1e-3)])
def test_onnx_normals_equal_numpy_to_rounding(kind, dtype, tol):
    build = getattr(rb, f"onnx_{kind}")
    session = _ort_model(lambda ctx, k, c, n: build(ctx, k, c, n, dtype), 3, dtype)
    worst = 0.0
    for key in KEYS[:4]:
        for counter in COUNTERS[:3]:
            for n in (1, 2, 7, 6001):  # odd counts use half of the last Box-Muller pair
                want = getattr(rb, kind)(key, counter, n, dtype)
                got = session.run(None, _feeds(key, counter, n))[0]
                assert got.dtype == dtype and got.shape == (n,)
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
                worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - want))))
    assert worst < tol


def test_onnx_integers_and_permutations_equal_numpy_exactly():
    ints = _ort_model(lambda ctx, k, c, n: rb.onnx_uniform_int(
        ctx, k, c, n, -2 ** 63, 2 ** 63 - 1, np.int64), 3, np.int64)
    perm = _ort_model(rb.onnx_permutation, 3, np.int64)
    for key, counter in [(KEYS[1], 0), (KEYS[3], 4), (KEYS[4], 1 << 40)]:
        np.testing.assert_array_equal(
            ints.run(None, _feeds(key, counter, 3000))[0],
            rb.uniform_int(key, counter, 3000, -2 ** 63, 2 ** 63 - 1, np.int64))
        for n in (2, 3, 1000):
            np.testing.assert_array_equal(perm.run(None, _feeds(key, counter, n))[0],
                                          rb.permutation(key, counter, n))


# ------------------------------------------------------------------ statistics
def _chi2(counts, expected):
    return float(np.sum((counts - expected) ** 2 / expected))


def _chi2_bound(df):
    """A chi-square value with a p-value near 1e-6 (Wilson-Hilferty)."""
    z = 4.9
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_words_are_uniform_bits():
    n = 1 << 16
    w = np.concatenate([rb.words(rb.key_of(3, s), 0, n // 4) for s in range(4)])
    for shift in (56, 32, 0):  # top, middle and bottom bytes
        counts = np.bincount(((w >> np.uint64(shift)) & np.uint64(255)).astype(np.int64),
                             minlength=256)
        assert _chi2(counts, n / 256) < _chi2_bound(255), shift
    bits = (w[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)
    ones = bits.mean(axis=0)
    assert np.all(np.abs(ones - 0.5) < 5 * 0.5 / math.sqrt(n)), ones


def test_no_correlation_between_neighbouring_streams_and_elements():
    n = 50_000
    u = rb.uniform(rb.words(rb.key_of(1, 1), 0, n), np.float64)
    tol = 5 / math.sqrt(n)
    for other in (rb.words(rb.key_of(1, 1), 1, n), rb.words(rb.key_of(1, 2), 0, n),
                  rb.words(rb.key_of(2, 1), 0, n)):
        r = np.corrcoef(u, rb.uniform(other, np.float64))[0, 1]
        assert abs(r) < tol, r
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < tol
    assert abs(u.mean() - 0.5) < tol * math.sqrt(1 / 12)
    assert abs(u.var() - 1 / 12) < 0.01 / 12


def test_uniform_floats_are_exact_fractions_below_one():
    w = rb.words(7, 0, 10_000)
    u32 = rb.uniform(w, np.float32)
    np.testing.assert_array_equal(u32.astype(np.float64) * 2 ** 24,
                                  (w >> np.uint64(40)).astype(np.float64))
    u64 = rb.uniform(w, np.float64)
    np.testing.assert_array_equal(u64 * 2 ** 53, (w >> np.uint64(11)).astype(np.float64))
    u16 = rb.uniform(w, np.float16)
    np.testing.assert_array_equal(u16.astype(np.float64) * 2 ** 11,
                                  (w >> np.uint64(53)).astype(np.float64))
    for u in (u16, u32, u64):
        assert u.min() >= 0 and u.max() < 1


def _normal_cdf(x):
    return 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def _ks(sample, cdf):
    x = np.sort(sample.astype(np.float64))
    n = len(x)
    f = cdf(x)
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_matches_the_normal_distribution(dtype):
    z = rb.normal(rb.key_of(5, 5), 0, 40_001, dtype)
    assert z.dtype == dtype and z.shape == (40_001,)
    n = len(z)
    x = z.astype(np.float64)
    assert abs(x.mean()) < 5 / math.sqrt(n)
    assert abs(x.var() - 1) < 5 * math.sqrt(2 / n)
    assert abs(np.mean(x ** 4) - 3) < 5 * math.sqrt(96 / n)  # kurtosis of N(0, 1)
    assert _ks(x, _normal_cdf) < 1.95 / math.sqrt(n)  # KS, p ~ 0.001
    # the two values of a Box-Muller pair (elements j and m + j) are independent
    m = (n + 1) // 2
    a, b = x[:n - m], x[m:]
    assert abs(np.corrcoef(a, b)[0, 1]) < 5 / math.sqrt(n - m)
    assert abs(np.corrcoef(a * a, b * b)[0, 1]) < 5 / math.sqrt(n - m)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_truncated_normal_matches_its_distribution(dtype):
    z = rb.truncated_normal(rb.key_of(6, 1), 3, 40_000, dtype).astype(np.float64)
    assert np.all(np.abs(z) <= 2)
    lo, hi = _normal_cdf(np.array([-2.0, 2.0]))

    def cdf(x):
        return (_normal_cdf(x) - lo) / (hi - lo)
    assert _ks(z, cdf) < 1.95 / math.sqrt(len(z))
    assert np.sum(np.abs(z) > 1.95) > 0


def test_uniform_int_is_uniform_in_range():
    v = rb.uniform_int(rb.key_of(8, 8), 0, 30_000, -3, 7, np.int32)
    assert v.dtype == np.int32 and v.min() == -3 and v.max() == 6
    counts = np.bincount(v + 3, minlength=10)
    assert _chi2(counts, 3000) < _chi2_bound(9)
    wide = rb.uniform_int(1, 2, 10_000, -2 ** 63, 2 ** 63 - 1, np.int64)
    assert wide.min() < -2 ** 62 and wide.max() > 2 ** 62


def test_permutations_are_uniform():
    counts = np.zeros((5, 5))
    runs = 4000
    for counter in range(runs):
        p = rb.permutation(11, counter, 5)
        assert sorted(p.tolist()) == list(range(5))
        counts[np.arange(5), p] += 1  # where each position's element came from
    assert _chi2(counts.ravel(), runs / 5) < _chi2_bound(16)
