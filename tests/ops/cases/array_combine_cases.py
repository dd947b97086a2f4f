"""Cases for combining and splitting: ConcatV2, Pack, Unpack, Split, SplitV.
References copy elements with explicit index arithmetic."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(12)
F23 = R.standard_normal((2, 3)).astype(np.float32)
F24 = R.standard_normal((2, 4)).astype(np.float32)
F33 = R.standard_normal((3, 3)).astype(np.float32)
F234 = R.standard_normal((2, 3, 4)).astype(np.float32)
I23 = R.integers(-9, 9, (2, 3)).astype(np.int32)
I23B = R.integers(-9, 9, (2, 3)).astype(np.int32)
I3 = np.array([4, -2, 7], np.int32)
B4 = np.array([True, False, False, True])
E03 = np.zeros((0, 3), np.float32)


def _concat_ref(parts, axis):
    """Concatenate by copying each part into its offset along ``axis``."""
    shape = list(parts[0].shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    out = np.empty(shape, parts[0].dtype)
    offset = 0
    for p in parts:
        for idx in np.ndindex(p.shape):
            dst = list(idx)
            dst[axis] += offset
            out[tuple(dst)] = p[idx]
        offset += p.shape[axis]
    return out


def _stack_ref(parts, axis):
    shape = list(parts[0].shape)
    shape.insert(axis, len(parts))
    out = np.empty(shape, parts[0].dtype)
    for k, p in enumerate(parts):
        for idx in np.ndindex(p.shape):
            dst = list(idx)
            dst.insert(axis, k)
            out[tuple(dst)] = p[idx]
    return out


def _pieces_ref(x, axis, sizes):
    """The consecutive pieces of ``x`` of ``sizes`` along ``axis``."""
    out, start = [], 0
    for s in sizes:
        shape = list(x.shape)
        shape[axis] = s
        piece = np.empty(shape, x.dtype)
        for idx in np.ndindex(piece.shape):
            src = list(idx)
            src[axis] += start
            piece[idx] = x[tuple(src)]
        out.append(piece)
        start += s
    return out


def _unstack_ref(x, axis):
    return [p.reshape(p.shape[:axis] + p.shape[axis + 1:])
            for p in _pieces_ref(x, axis, [1] * x.shape[axis])]


CASES = [
    # ConcatV2
    Case("ConcatV2", lambda x, y: tf.concat([x, y], 1), [F23, F24],
         lambda x, y: _concat_ref([x, y], 1), bad=[[(2, 3), (3, 4)], [(2, 3), (2, 3, 1)]],
         bad_dtypes=[[np.float32, np.int32]], grad2=True),
    Case("ConcatV2", lambda x, y, a: tf.concat([x, y, x], a), [F23, F33, np.int32(0)],
         lambda x, y, a: _concat_ref([x, y, x], 0), id="float_axis_tensor", grad2=True),
    Case("ConcatV2", lambda x, y, a: tf.concat([y, x], a), [F23, F24, np.int64(-1)],
         lambda x, y, a: _concat_ref([y, x], 1), id="negative_axis_tensor"),
    Case("ConcatV2", lambda x, y: tf.concat([x, y, x], axis=0), [I23, I23B],
         lambda x, y: _concat_ref([x, y, x], 0), bad=[[(2, 3), (2, 4)]], id="int_three"),
    Case("ConcatV2", lambda x, y: tf.concat([x, y], -2), [F23, E03],
         lambda x, y: _concat_ref([x, y], 0), id="negative_empty"),
    Case("ConcatV2", lambda x: tf.concat([x, [[1.0, 2.0, 3.0]]], 0), [F23],
         lambda x: _concat_ref([x, np.array([[1, 2, 3]], np.float32)], 0), id="python_value"),
    Case("ConcatV2", lambda x, a: tf.concat([x, x], a), [I3, np.int32(0)],
         lambda x, a: _concat_ref([x, x], 0), bad=[[(3,), (1,)]],
         bad_dtypes=[[np.int32, np.float32]], id="axis_tensor"),
    Case("ConcatV2", lambda x, y, a: tf.concat([x, y], a), [B4[None], B4[None, ::-1].copy(),
                                                           np.int64(1)],
         lambda x, y, a: _concat_ref([x, y], 1), id="bool_axis_tensor"),
    # Pack
    Case("Pack", lambda x, y: tf.stack([x, y]), [F23, F23], lambda x, y: _stack_ref([x, y], 0),
         bad=[[(2, 3), (3, 3)], [(2, 3), (2, 3, 1)]], bad_dtypes=[[np.float32, np.int32]],
         grad2=True),
    Case("Pack", lambda x, y: tf.stack([x, y, x], axis=-2), [F23, F23[::-1].copy()],
         lambda x, y: _stack_ref([x, y, x], 1), id="float_negative"),
    Case("Pack", lambda x, y: tf.stack([x, y, x], axis=-1), [I23, I23B],
         lambda x, y: _stack_ref([x, y, x], 2), id="last_axis"),
    Case("Pack", lambda x, y: tf.stack([x, y], axis=1), [I3, I3[::-1].copy()],
         lambda x, y: _stack_ref([x, y], 1), id="vectors"),
    Case("Pack", lambda x: tf.stack([x, 2.0 * x, [1.0, 2.0, 3.0]]), [F23[0]],
         lambda x: _stack_ref([x, 2 * x, np.array([1, 2, 3], np.float32)], 0), id="mixed"),
    Case("Pack", lambda x: tf.stack([x]), [np.float32(3.5)], lambda x: np.array([x]),
         id="one_scalar"),
    Case("Pack", lambda x: tf.convert_to_tensor([[x, 1], [2, x]]), [np.int32(5)],
         lambda x: np.array([[5, 1], [2, 5]], np.int32), id="auto_pack"),
    # Unpack
    Case("Unpack", lambda x: tf.unstack(x, num=3, axis=1), [F234],
         lambda x: _unstack_ref(x, 1), bad=[[(2, 4, 4)]], grad2=True),
    Case("Unpack", lambda x: tf.unstack(x, num=3, axis=-1)[1:], [F23],
         lambda x: _unstack_ref(x, 1)[1:], id="unused_outputs"),
    Case("Unpack", lambda x: tf.unstack(x, num=2), [I23], lambda x: _unstack_ref(x, 0),
         bad=[[(3, 3)]], id="int_axis0"),
    Case("Unpack", lambda x: tf.unstack(x, num=3, axis=-1), [I23],
         lambda x: _unstack_ref(x, 1), id="negative"),
    Case("Unpack", lambda x: tf.unstack(x, num=1), [F23[:1]], lambda x: [x[0]], id="one"),
    Case("Unpack", lambda x: tf.unstack(x, num=4), [B4], lambda x: [np.bool_(v) for v in x],
         id="bool_vector"),
    # Split
    Case("Split", lambda x: tf.split(x, 2, axis=2), [F234],
         lambda x: _pieces_ref(x, 2, [2, 2]), bad=[[(2, 3, 5)]], grad2=True),
    Case("Split", lambda x: tf.split(x, 3, axis=0)[2], [F33], lambda x: x[2:],
         id="unused_outputs"),
    Case("Split", lambda x: tf.split(x, 3, -1), [I23], lambda x: _pieces_ref(x, 1, [1, 1, 1]),
         bad=[[(2, 4)]], id="negative"),
    Case("Split", lambda x: tf.split(x, 1, 0), [F23], lambda x: [x], id="one"),
    Case("Split", lambda x, a: tf.split(x, 2, a), [F24, np.int32(1)],
         lambda x, a: _pieces_ref(x, 1, [2, 2]), bad_dtypes=[[np.float32, np.float32]],
         id="axis_tensor"),
    # SplitV
    Case("SplitV", lambda x: tf.split(x, [1, 3], axis=1), [F24],
         lambda x: _pieces_ref(x, 1, [1, 3]), bad=[[(2, 5)], [(2,)]], grad2=True),
    Case("SplitV", lambda x: tf.split(x, [2, -1], -1)[0], [F234],
         lambda x: x[:, :, :2], id="unused_output"),
    Case("SplitV", lambda x: tf.split(x, [2, -1, 1], 0), [np.arange(6, dtype=np.int64)],
         lambda x: _pieces_ref(x, 0, [2, 3, 1]), bad=[[(2,)]], id="minus_one"),
    Case("SplitV", lambda x: tf.split(x, [0, -1], 1), [I23],
         lambda x: _pieces_ref(x, 1, [0, 3]), id="empty_piece"),
    Case("SplitV", lambda x, s: tf.split(x, s, 1, num=2), [F24, np.array([3, 1], np.int64)],
         lambda x, s: _pieces_ref(x, 1, [3, 1]), bad=[[(2, 4), (3,)]],
         bad_dtypes=[[np.float32, np.float32]], id="sizes_tensor"),
    Case("SplitV", lambda x: tf.split(x, [3], 0), [I3], lambda x: [x], id="one"),
    Case("SplitV", lambda x, s: tf.split(x, s, 1, num=2), [F24, np.array([-1, 1], np.int32)],
         lambda x, s: _pieces_ref(x, 1, [3, 1]), id="sizes_tensor_minus_one"),
    Case("SplitV", lambda x, a: tf.split(x, [1, -1], a), [F234, np.int32(-2)],
         lambda x, a: _pieces_ref(x, 1, [1, 2]), id="axis_tensor"),
]
