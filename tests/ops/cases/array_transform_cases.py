"""Cases for the array transform ops: StopGradient, BroadcastTo, Tile, Pad, PadV2,
MirrorPad, MirrorPadGrad, ReverseV2. References are written with plain numpy indexing and
loops."""

import numpy as np

import staticgraph as tf
from staticgraph.ops.array.pad import mirror_pad_grad

from . import Case
from .array_shape_cases import B23, F23, F234, I23, I3, S, i32


def _tile_ref(x, reps):
    out = np.empty([d * r for d, r in zip(x.shape, reps)], x.dtype)
    for idx in np.ndindex(out.shape):
        out[idx] = x[tuple(i % d for i, d in zip(idx, x.shape))]
    return out


def _pad_ref(x, pads, value):
    out = np.full([d + b + a for d, (b, a) in zip(x.shape, pads)], value, x.dtype)
    for idx in np.ndindex(x.shape):
        out[tuple(i + b for i, (b, _) in zip(idx, pads))] = x[idx]
    return out


def _mirror_index(i, d, symmetric):
    """Index into a dimension of size d for padded position i (may be out of range)."""
    while i < 0 or i >= d:
        if i < 0:
            i = -i - 1 if symmetric else -i
        else:
            i = 2 * d - 1 - i if symmetric else 2 * d - 2 - i
    return i


def _mirror_ref(x, pads, symmetric):
    out = np.empty([d + b + a for d, (b, a) in zip(x.shape, pads)], x.dtype)
    for idx in np.ndindex(out.shape):
        src = tuple(_mirror_index(i - b, d, symmetric)
                    for i, d, (b, _) in zip(idx, x.shape, pads))
        out[idx] = x[src]
    return out


def _mirror_grad_ref(g, pads, symmetric):
    """Each padded element's value added to the input element it mirrors."""
    shape = [d - b - a for d, (b, a) in zip(g.shape, pads)]
    out = np.zeros(shape, g.dtype)
    for idx in np.ndindex(g.shape):
        src = tuple(_mirror_index(i - b, d, symmetric) for i, d, (b, _) in zip(idx, shape, pads))
        out[src] += g[idx]
    return out


F45 = np.arange(20, dtype=np.float32).reshape(4, 5) * 0.25 - 2


CASES = [
    # StopGradient
    Case("StopGradient", lambda x: tf.stop_gradient(x), [F23], lambda x: x, grad="none"),
    Case("StopGradient", lambda x: tf.stop_gradient(x) * 2, [I23], lambda x: x * 2, id="int"),
    # BroadcastTo
    Case("BroadcastTo", lambda x: tf.broadcast_to(x, [4, 2, 3]), [F23],
         lambda x: np.array([x, x, x, x]), bad=[[(3, 3)], [(1, 2, 2, 3)]], grad2=True),
    Case("BroadcastTo", lambda x: tf.broadcast_to(x, [2, 3, 4]), [F23[0].reshape(3, 1)],
         lambda x: np.array([[[v] * 4 for v in x[:, 0]]] * 2), id="float_column"),
    Case("BroadcastTo", lambda x: tf.broadcast_to(x, [3, 3]), [I3.reshape(3, 1)],
         lambda x: np.array([[4, 4, 4], [-2, -2, -2], [7, 7, 7]], np.int32), id="column"),
    Case("BroadcastTo", lambda x, s: tf.broadcast_to(x, s), [I3, i32([2, 3])],
         lambda x, s: np.array([x, x]), id="shape_tensor"),
    # Tile
    Case("Tile", lambda x: tf.tile(x, [2, 3]), [F23], lambda x: _tile_ref(x, (2, 3)),
         bad=[[(2, 3, 4)]], grad2=True),
    Case("Tile", lambda x, m: tf.tile(x, m), [F234, i32([1, 2, 1])],
         lambda x, m: _tile_ref(x, (1, 2, 1)), id="multiples_tensor", grad2=True),
    Case("Tile", lambda x: tf.tile(x, []), [S], lambda x: x, id="scalar"),
    Case("Tile", lambda x: tf.tile(x, [0, 2]), [F23], lambda x: np.zeros((0, 6), np.float32),
         id="zero_float"),
    Case("Tile", lambda x, m: tf.tile(x, m), [I23, i32([1, 0])],
         lambda x, m: np.zeros((2, 0), np.int32), bad_dtypes=[[np.int32, np.float32]],
         id="zero_multiple"),
    Case("Tile", lambda x: tf.tile(x, [3]), [B23[0]], lambda x: _tile_ref(x, (3,)), id="bool"),
    # Pad / PadV2 / MirrorPad
    Case("Pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), [F23],
         lambda x: _pad_ref(x, [(1, 0), (2, 1)], 0), bad=[[(2,)], [(2, 3, 4)]], grad2=True),
    Case("Pad", lambda x, p: tf.pad(x, p), [F234, i32([[1, 0], [0, 0], [2, 1]])],
         lambda x, p: _pad_ref(x, [(1, 0), (0, 0), (2, 1)], 0), id="float_paddings_tensor",
         grad2=True),
    Case("Pad", lambda x, p: tf.pad(x, p), [I23, i32([[0, 1], [1, 1]])],
         lambda x, p: _pad_ref(x, [(0, 1), (1, 1)], 0), bad=[[(2, 3), (3, 2)]],
         bad_dtypes=[[np.int32, np.float32]], id="paddings_tensor"),
    Case("PadV2", lambda x: tf.pad(x, [[1, 0], [0, 1]], constant_values=3),
         [I23.astype(np.int16)], lambda x: _pad_ref(x, [(1, 0), (0, 1)], 3), id="int16"),
    Case("Pad", lambda x: tf.pad(x, np.zeros((0, 2), np.int32)), [S], lambda x: np.float32(x),
         id="scalar"),
    Case("PadV2", lambda x: tf.pad(x, [[1, 1], [0, 2]], constant_values=-1), [I23],
         lambda x: _pad_ref(x, [(1, 1), (0, 2)], -1), bad=[[(3,)]]),
    Case("PadV2", lambda x: tf.pad(x, [[0, 1], [1, 1]], constant_values=0.5), [F23],
         lambda x: _pad_ref(x, [(0, 1), (1, 1)], 0.5), id="float", grad2=True),
    Case("PadV2", lambda x, c: tf.pad(x, [[2, 0], [0, 0]], constant_values=c), [F23, S],
         lambda x, c: _pad_ref(x, [(2, 0), (0, 0)], c), bad=[[(2, 3), (2,)]],
         bad_dtypes=[[np.float32, np.int32]], id="value_tensor",
         grad_inputs=[0]),  # TF1: no gradient for constant_values (None)
    Case("MirrorPad", lambda x: tf.pad(x, [[1, 1], [2, 2]], "REFLECT"), [F23],
         lambda x: _mirror_ref(x, [(1, 1), (2, 2)], False), bad=[[(2, 2)], [(1, 3)]],
         grad2=True),
    Case("MirrorPad", lambda x: tf.pad(x, [[2, 1], [0, 3]], mode="SYMMETRIC"), [F234[0]],
         lambda x: _mirror_ref(x, [(2, 1), (0, 3)], True), id="symmetric_float", grad2=True),
    Case("MirrorPad", lambda x, p: tf.pad(x, p, "REFLECT"), [F234, i32([[1, 0], [0, 2], [3, 3]])],
         lambda x, p: _mirror_ref(x, [(1, 0), (0, 2), (3, 3)], False), id="paddings_tensor"),
    Case("MirrorPad", lambda x: tf.pad(x, [[1, 2], [3, 0]], mode="symmetric"), [I23],
         lambda x: _mirror_ref(x, [(1, 2), (3, 0)], True), bad=[[(2, 2)]], id="symmetric"),
    Case("MirrorPad", lambda x, p: tf.pad(x, p, "SYMMETRIC"),
         [F234, i32([[1, 0], [2, 3], [0, 4]])],
         lambda x, p: _mirror_ref(x, [(1, 0), (2, 3), (0, 4)], True),
         id="symmetric_paddings_tensor"),
    Case("MirrorPad", lambda x: tf.pad(x, [[1, 1], [0, 2]], "REFLECT"), [I23.astype(np.int16)],
         lambda x: _mirror_ref(x, [(1, 1), (0, 2)], False), id="int16"),
    # MirrorPadGrad (the gradient of MirrorPad)
    Case("MirrorPadGrad", lambda g: mirror_pad_grad(g, [[1, 1], [0, 2]], "REFLECT"), [F45],
         lambda g: _mirror_grad_ref(g, [(1, 1), (0, 2)], False), bad=[[(4, 3)], [(4,)]],
         grad2=True),
    Case("MirrorPadGrad", lambda g: mirror_pad_grad(g, [[1, 1], [2, 1]], "SYMMETRIC"), [F45],
         lambda g: _mirror_grad_ref(g, [(1, 1), (2, 1)], True), bad=[[(2, 5)]],
         id="symmetric", grad2=True),
    Case("MirrorPadGrad", lambda g, p: mirror_pad_grad(g, p, "SYMMETRIC"),
         [F45[:, :4].astype(np.float64), i32([[0, 0], [1, 1]])],
         lambda g, p: _mirror_grad_ref(g, [(0, 0), (1, 1)], True), id="paddings_tensor"),
    Case("MirrorPadGrad", lambda g, p: mirror_pad_grad(g, p, "REFLECT"),
         [F45, i32([[1, 0], [1, 1]])],
         lambda g, p: _mirror_grad_ref(g, [(1, 0), (1, 1)], False), id="reflect_paddings_tensor"),
    # ReverseV2
    Case("ReverseV2", lambda x: tf.reverse(x, [1]), [F23], lambda x: x[:, ::-1],
         bad=[[(3,)]], grad2=True),
    Case("ReverseV2", lambda x: tf.reverse_v2(x, [0, -1]), [F234], lambda x: x[::-1, :, ::-1],
         id="two_axes"),
    Case("ReverseV2", lambda x: tf.reverse(x, []), [I3], lambda x: x, id="no_axes"),
    Case("ReverseV2", lambda x, a: tf.reverse(x, a), [B23, np.array([0], np.int64)],
         lambda x, a: x[::-1], bad_dtypes=[[bool, np.float32]], id="axis_tensor"),
    Case("ReverseV2", lambda x, a: tf.reverse(x, a), [F234, i32([2, 0])],
         lambda x, a: x[::-1, :, ::-1], id="float_axis_tensor"),
]
