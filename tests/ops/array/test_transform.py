"""TF1 behaviour of stop_gradient, broadcast_to, tile, pad, reverse and meshgrid beyond
the generic cases: static shapes, names, modes, composites and errors."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from staticgraph.ops.array.pad import mirror_pad_grad
from ...helpers import run, shape


# ------------------------------------------------------------------- misc
def test_stop_gradient_and_broadcast_to_static_shapes():
    x = tf.placeholder(tf.float32, [None, 3])
    s = tf.stop_gradient(x)
    assert s.op.type == "StopGradient" and s.op.name == "StopGradient" and shape(s) == (None, 3)
    assert tf.gradients(s, x) == [None]  # TF1: NotDifferentiable gives None, no error
    n = tf.placeholder(tf.int32, [])
    b = tf.broadcast_to(x, tf.stack([n, 2, 3]))
    assert b.op.name == "BroadcastTo" and shape(b) == (None, 2, 3)
    assert shape(tf.broadcast_to(x, tf.stack([2, n]))) == (2, 3)
    with pytest.raises(ValueError, match="Incompatible shapes"):
        tf.broadcast_to(x, [2, 4])
    with pytest.raises(ValueError, match="Rank of input"):
        tf.broadcast_to(x, [3])


def test_tile_static_shapes_and_runtime_errors():
    x = tf.placeholder(tf.float32, [None, 3])
    t = tf.tile(x, [2, 2])
    assert t.op.name == "Tile" and shape(t) == (None, 6)
    assert shape(tf.tile(x, [0, 1])) == (0, 3)
    m = tf.placeholder(tf.int32, [None])
    with pytest.raises(InvalidArgumentError, match="multiples"):
        run(tf.tile(x, m), {x: np.zeros((1, 3), np.float32), m: [1, 1, 1]})
    with pytest.raises(ValueError, match="Expected multiples"):
        tf.tile(x, [-1, 1])


def test_pad_modes_names_and_errors():
    x = tf.constant([[1, 2, 3], [4, 5, 6]])
    assert tf.pad(x, [[1, 1], [2, 2]]).op.name == "Pad"
    assert tf.pad(x, [[1, 1], [2, 2]], constant_values=3).op.type == "PadV2"
    m = tf.pad(x, [[1, 1], [2, 2]], "reflect")
    assert m.op.type == "MirrorPad" and m.op.attrs["mode"] == "REFLECT" and shape(m) == (4, 7)
    # TF1's documented examples
    assert run(m).tolist() == [[6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1],
                               [6, 5, 4, 5, 6, 5, 4], [3, 2, 1, 2, 3, 2, 1]]
    assert run(tf.pad(x, [[1, 1], [2, 2]], "SYMMETRIC")).tolist() == [
        [2, 1, 1, 2, 3, 3, 2], [2, 1, 1, 2, 3, 3, 2], [5, 4, 4, 5, 6, 6, 5],
        [5, 4, 4, 5, 6, 6, 5]]
    with pytest.raises(ValueError, match="Unknown padding mode"):
        tf.pad(x, [[1, 1], [2, 2]], "EDGE")
    with pytest.raises(ValueError, match="less than the dimension size"):
        tf.pad(x, [[2, 0], [0, 0]], "REFLECT")
    y = tf.placeholder(tf.int32, [None, 3])
    with pytest.raises(InvalidArgumentError, match="less than the dimension size"):
        run(tf.pad(y, [[1, 1], [0, 0]], "REFLECT"), {y: [[1, 2, 3]]})
    assert shape(tf.pad(y, tf.placeholder(tf.int32, [2, 2]))) == (None, None)


def test_reverse_is_reverse_v2():
    assert tf.reverse is tf.reverse_v2
    x = tf.constant([[1, 2], [3, 4]])
    r = tf.reverse(x, [1])
    assert r.op.type == "ReverseV2" and r.op.name == "ReverseV2"
    assert run(r).tolist() == [[2, 1], [4, 3]]
    with pytest.raises(ValueError, match="specified more than once"):
        tf.reverse(x, [1, -1])
    with pytest.raises(ValueError, match="out of valid range"):
        tf.reverse(x, [2])


# --------------------------------------------------------------- meshgrid
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = [1, 2, 3], [4.0, 5.0], [7, 8, 9, 10]
    xs = tf.meshgrid(tf.constant(a, tf.float32), b, indexing=indexing)
    want = np.meshgrid(np.float32(a), np.float32(b), indexing=indexing)
    assert [shape(t) for t in xs] == [w.shape for w in want]
    for g, w in zip(run(xs), want):
        np.testing.assert_array_equal(g, w)
    three = tf.meshgrid(a, [4, 5], c, indexing=indexing)
    for g, w in zip(run(three), np.meshgrid(a, [4, 5], c, indexing=indexing)):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_meshgrid_arguments():
    with pytest.raises(ValueError, match="indexing parameter"):
        tf.meshgrid([1], [2], indexing="yx")
    with pytest.raises(TypeError, match="'foo' is an invalid keyword argument"):
        tf.meshgrid([1], [2], foo=1)
    x = tf.placeholder(tf.int32, [None])
    out = tf.meshgrid(x, [1, 2, 3], name="grid")
    assert shape(out[0]) == (3, None) and out[0].op.name.startswith("grid/")
    got = run(out, {x: [5, 6]})
    np.testing.assert_array_equal(got[0], [[5, 6]] * 3)


# ---------------------------------------------------------------- gradients
def test_stop_gradient_blocks_only_its_path():
    x = tf.placeholder(tf.float32, [None])
    y = x * x + tf.stop_gradient(x * x)
    (dx,) = tf.gradients(y, x)
    np.testing.assert_array_equal(run(dx, {x: [1.0, 3.0]}), [2.0, 6.0])


def test_broadcast_to_gradient_sums_to_the_input_shape():
    x = tf.placeholder(tf.float32, [None, 1])
    n = tf.placeholder(tf.int32, [])
    b = tf.broadcast_to(x, tf.stack([2, n, 3]))
    w = np.arange(18, dtype=np.float32).reshape(2, 3, 3)
    (dx,) = tf.gradients(tf.reduce_sum(b * w), x)
    assert dx.op.type == "SumToShape" and shape(dx) == (None, 1)
    np.testing.assert_array_equal(run(dx, {x: np.zeros((3, 1)), n: 3}),
                                  w.sum(axis=(0, 2)).reshape(3, 1))


def test_tile_gradient_sums_the_tiles_with_unknown_dimensions():
    x = tf.placeholder(tf.float32, [None, 2])
    m = tf.placeholder(tf.int32, [2])
    w = np.arange(24, dtype=np.float32).reshape(4, 6)
    for mult in ([2, 3], m):
        (dx,) = tf.gradients(tf.reduce_sum(tf.tile(x, mult) * w), x)
        assert shape(dx) == (None, 2)
        got = run(dx, {x: np.zeros((2, 2)), m: [2, 3]})
        want = w.reshape(2, 2, 3, 2).sum(axis=(0, 2))
        np.testing.assert_array_equal(got, want)


def test_pad_gradients_slice_dy_and_padv2_gives_no_gradient_to_its_value():
    x = tf.placeholder(tf.float32, [None, 3])
    c = tf.placeholder(tf.float32, [])
    w = np.arange(30, dtype=np.float32).reshape(5, 6)
    y = tf.pad(x, [[1, 2], [2, 1]], constant_values=c)
    assert y.op.type == "PadV2"
    dx, dc = tf.gradients(tf.reduce_sum(y * w), [x, c])
    assert dc is None and shape(dx) == (None, 3)
    np.testing.assert_array_equal(run(dx, {x: np.zeros((2, 3)), c: 1.0}), w[1:3, 2:5])
    p = tf.placeholder(tf.int64, [2, 2])
    (dx,) = tf.gradients(tf.reduce_sum(tf.pad(x, p) * w), x)
    assert shape(dx) == (None, 3)
    np.testing.assert_array_equal(run(dx, {x: np.zeros((2, 3)), p: [[1, 2], [2, 1]]}),
                                  w[1:3, 2:5])


@pytest.mark.parametrize("mode", ["REFLECT", "SYMMETRIC"])
def test_mirror_pad_gradient_folds_borders_back(mode):
    x = tf.placeholder(tf.float32, [None, 4])
    pads = [[1, 2], [3, 1]]
    w = np.arange(6 * 8, dtype=np.float32).reshape(6, 8)
    (dx,) = tf.gradients(tf.reduce_sum(tf.pad(x, pads, mode) * w), x)
    assert dx.op.type == "MirrorPadGrad" and shape(dx) == (None, 4)
    # numpy reference: d/dx_j sum(w * pad(x)) = sum of w where pad(e_j) is 1
    want = np.zeros((3, 4), np.float32)
    for j in np.ndindex(3, 4):
        e = np.zeros((3, 4), np.float32)
        e[j] = 1
        want[j] = np.sum(w * np.pad(e, pads, mode=mode.lower()))
    np.testing.assert_array_equal(run(dx, {x: np.zeros((3, 4))}), want)
    # second order: the gradient of MirrorPadGrad is MirrorPad
    g = tf.placeholder(tf.float32, [6, 8])
    dg = tf.gradients(tf.reduce_sum(tf.gradients(tf.pad(x, pads, mode), x, grad_ys=g)[0] * 1.5),
                      g)[0]
    assert dg.op.type == "MirrorPad"
    np.testing.assert_array_equal(run(dg, {x: np.zeros((3, 4)), g: w}),
                                  np.pad(np.full((3, 4), 1.5), pads, mode=mode.lower()))


def test_mirror_pad_grad_refuses_paddings_larger_than_the_result():
    g = tf.placeholder(tf.float32, [3, 4])
    assert shape(mirror_pad_grad(g, [[1, 0], [1, 1]], "REFLECT")) == (2, 2)
    with pytest.raises(ValueError):
        mirror_pad_grad(g, [[1, 1], [2, 1]], "REFLECT")
    with pytest.raises(ValueError):
        mirror_pad_grad(g, [[2, 2], [0, 0]], "SYMMETRIC")


def test_reverse_gradient_reverses_dy():
    x = tf.placeholder(tf.float32, [2, None])
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    (dx,) = tf.gradients(tf.reduce_sum(tf.reverse(x, [0, 1]) * w), x)
    assert dx.op.type == "ReverseV2"
    np.testing.assert_array_equal(run(dx, {x: np.zeros((2, 3))}), w[::-1, ::-1])


_LINEAR = {  # name -> (op applied to x, x's shape); every one is linear in x
    "reshape": (lambda x: tf.reshape(x, [3, -1]), (2, 3, 2)),
    "transpose": (lambda x: tf.transpose(x, [2, 0, 1]), (2, 3, 2)),
    "expand_dims": (lambda x: tf.expand_dims(x, 1), (2, 3)),
    "squeeze": (lambda x: tf.squeeze(x, [1]), (2, 1, 3)),
    "broadcast_to": (lambda x: tf.broadcast_to(x, [2, 3, 3]), (3, 1)),
    "tile": (lambda x: tf.tile(x, [2, 1, 3]), (2, 3, 2)),
    "pad": (lambda x: tf.pad(x, [[1, 0], [0, 2]]), (2, 3)),
    "mirror_pad": (lambda x: tf.pad(x, [[1, 1], [2, 0]], "REFLECT"), (2, 3)),
    "reverse": (lambda x: tf.reverse(x, [0, 2]), (2, 3, 2)),
    "concat": (lambda x: tf.concat([x, 2.0 * x, x[:1]], 0), (2, 3)),
    "stack": (lambda x: tf.stack([x, x], axis=1), (2, 3)),
    "unstack": (lambda x: tf.unstack(x, num=3, axis=1), (2, 3)),
    "split": (lambda x: tf.split(x, 3, axis=1), (2, 3)),
    "split_v": (lambda x: tf.split(x, [2, -1], axis=1), (2, 3)),
}


@pytest.mark.parametrize("name", sorted(_LINEAR))
def test_gradient_of_the_gradient_is_the_op_itself(name):
    # For a linear f, dx = J^T g; differentiating <dx, v> with respect to g gives J v = f(v).
    f, x_shape = _LINEAR[name]
    x = tf.placeholder(tf.float64, [None] * len(x_shape))
    outs = f(x)
    outs = list(outs) if isinstance(outs, list) else [outs]
    gs = [tf.placeholder(tf.float64, o.shape) for o in outs]
    (dx,) = tf.gradients(outs, x, grad_ys=gs)
    rng = np.random.default_rng(0)
    v = rng.standard_normal(x_shape)
    ddg = tf.gradients(tf.reduce_sum(dx * v), gs)
    feed = {x: np.zeros(x_shape)}
    g_values = [rng.standard_normal(s) for s in run([tf.shape(o) for o in outs], feed)]
    feed.update(zip(gs, g_values))
    got = run(ddg, feed)
    want = run(outs, {x: v})
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
