"""TF1 behaviour of stop_gradient, broadcast_to, tile, pad, reverse and meshgrid beyond
the generic cases: static shapes, names, modes, composites and errors."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.errors import InvalidArgumentError
from staticgraph.ops import get_op_def
from ..helpers import run, shape


# ------------------------------------------------------------------- misc
def test_stop_gradient_and_broadcast_to_static_shapes():
    x = tf.placeholder(tf.float32, [None, 3])
    s = tf.stop_gradient(x)
    assert s.op.type == "StopGradient" and s.op.name == "StopGradient" and shape(s) == (None, 3)
    assert not get_op_def("StopGradient").differentiable
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
