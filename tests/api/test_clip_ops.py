"""TF1 behaviour of the norm-clipping functions beyond the generic cases."""

import numpy as np
import pytest

import staticgraph as tf

# an infinite norm overflows, as TF1's does
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_clip_by_norm_values_and_name():
    t = tf.constant([[3.0, 4.0], [0.0, 0.0]])
    out = tf.clip_by_norm(t, 1.0)
    assert out.op.name == "clip_by_norm"
    np.testing.assert_allclose(_run(out), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(_run(tf.clip_by_norm(t, 10.0)), [[3, 4], [0, 0]])


def test_clip_by_norm_axes_and_zero_rows():
    t = np.array([[3.0, 4.0], [0.0, 0.0], [0.3, 0.4]], np.float32)
    out = _run(tf.clip_by_norm(tf.constant(t), 1.0, axes=[1]))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0, 0], [0.3, 0.4]], rtol=1e-6)
    # the gradient at an all-zero row is finite (TF1's two-tap where)
    x = tf.constant(t)
    g = tf.gradients(tf.reduce_sum(tf.clip_by_norm(x, 1.0, axes=[1])), x)[0]
    assert np.all(np.isfinite(_run(g)))


def test_clip_by_norm_tensor_clip_norm():
    c = tf.placeholder(tf.float32, [])
    out = tf.clip_by_norm(tf.constant([3.0, 4.0]), c)
    np.testing.assert_allclose(_run(out, {c: 2.5}), [1.5, 2.0], rtol=1e-6)


def test_global_norm_skips_none_and_names():
    a = tf.constant([3.0, 4.0])
    b = tf.constant([[12.0]])
    n = tf.global_norm([a, None, b])
    assert n.op.name == "global_norm/global_norm"
    assert n.shape.rank == 0
    np.testing.assert_allclose(_run(n), 13.0, rtol=1e-6)


def test_global_norm_needs_a_sequence():
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.global_norm(tf.constant([1.0]))
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.clip_by_global_norm(tf.constant([1.0]), 1.0)


def test_clip_by_global_norm_values_none_and_names():
    a = tf.constant([3.0, 4.0])
    b = tf.constant([[12.0]])
    clipped, norm = tf.clip_by_global_norm([a, None, b], 6.5)
    assert clipped[1] is None
    assert clipped[0].op.name == "clip_by_global_norm/clip_by_global_norm/_0"
    assert clipped[2].op.name == "clip_by_global_norm/clip_by_global_norm/_2"
    ca, cb, n = _run([clipped[0], clipped[2], norm])
    np.testing.assert_allclose(n, 13.0, rtol=1e-6)
    np.testing.assert_allclose(ca, [1.5, 2.0], rtol=1e-6)
    np.testing.assert_allclose(cb, [[6.0]], rtol=1e-6)


def test_clip_by_global_norm_no_clipping_below_threshold():
    a = tf.constant([0.3, 0.4])
    (c,), n = tf.clip_by_global_norm([a], 1.0)
    np.testing.assert_allclose(_run(c), [0.3, 0.4], rtol=1e-6)


def test_clip_by_global_norm_use_norm():
    a = tf.constant([3.0, 4.0])
    (c,), n = tf.clip_by_global_norm([a], 1.0, use_norm=tf.constant(10.0))
    got_c, got_n = _run([c, n])
    np.testing.assert_allclose(got_c, [0.3, 0.4], rtol=1e-6)
    assert got_n == 10.0


def test_clip_by_global_norm_inf_norm_gives_nan():
    a = tf.constant([np.inf, 1.0])
    (c,), n = tf.clip_by_global_norm([a], 1.0)
    got_c, got_n = _run([c, n])
    assert np.isinf(got_n)
    assert np.all(np.isnan(got_c))


def test_clip_by_global_norm_mixed_dtypes():
    a = tf.constant([3.0, 4.0], tf.float64)
    b = tf.constant([0.0], tf.float64)
    (ca, cb), n = tf.clip_by_global_norm([a, b], 1.0)
    assert ca.dtype == tf.float64 and n.dtype == tf.float64
    np.testing.assert_allclose(_run(ca), [0.6, 0.8])


def test_clip_by_average_norm():
    t = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    out = _run(tf.clip_by_average_norm(tf.constant(t), 0.5))
    l2 = np.sqrt(np.sum(t.astype(np.float64) ** 2))
    want = t * 0.5 / max(l2 / t.size, 0.5)
    np.testing.assert_allclose(out, want, rtol=1e-5)
    small = _run(tf.clip_by_average_norm(tf.constant(t), 10.0))
    np.testing.assert_allclose(small, t, rtol=1e-6)


def test_exported_at_top_level():
    from staticgraph.api import clip_ops
    for name in clip_ops.__all__:
        assert getattr(tf, name) is getattr(clip_ops, name)
