"""Cases for the slicing ops: StridedSlice (through ``tensor[...]`` and
``strided_slice``) and Slice. References are plain numpy indexing.

The inputs below (one seeded generator, drawn in this order) are shared with
``array_gather_cases`` and ``array_select_cases``; only ``array_select_cases``
draws from ``R`` again, while building its cases."""

import numpy as np

import staticgraph as tf
from staticgraph.ops.array.slicing import strided_slice_grad

from . import Case, rng

R = rng(7)
F34 = R.standard_normal((3, 4)).astype(np.float32)
F345 = R.standard_normal((3, 4, 5)).astype(np.float32)
I234 = R.integers(-9, 9, (2, 3, 4)).astype(np.int32)
V5 = np.arange(5, dtype=np.float64)
B6 = R.integers(0, 2, (6,)).astype(bool)
P53 = R.standard_normal((5, 3)).astype(np.float32)
P234 = R.standard_normal((2, 3, 4)).astype(np.float32)
DY = np.linspace(-1, 1, 1 * 4 * 3).reshape(1, 4, 3).astype(np.float32)  # not drawn from R


def _written(shape, index, dy):
    """Reference StridedSliceGrad: zeros of ``shape`` with ``dy`` put at numpy ``index``."""
    out = np.zeros(shape, dy.dtype)
    out[index] = dy
    return out


CASES = [
    # ---- StridedSlice (through tensor[...] and strided_slice)
    Case("StridedSlice", lambda x: x[1:, ::-1], [F34], lambda x: x[1:, ::-1], id="getitem"),
    Case("StridedSlice", lambda x: x[2, ::-1], [F34], lambda x: x[2, ::-1], id="shrink",
         bad=[[(2, 4)], [(3,)]]),
    Case("StridedSlice", lambda x: x[-1], [F34], lambda x: x[-1], id="neg_index"),
    Case("StridedSlice", lambda x: x[1, 2], [F34], lambda x: np.asarray(x[1, 2]), id="scalar"),
    Case("StridedSlice", lambda x: x[..., None, -1], [I234], lambda x: x[..., None, -1],
         id="ellipsis_newaxis"),
    Case("StridedSlice", lambda x: x[None, 1, ..., 0:5:2], [F345],
         lambda x: x[None, 1, ..., 0:5:2], id="mixed", grad2=True),
    Case("StridedSlice", lambda x: x[10:-10:-1], [V5], lambda x: x[10:-10:-1], id="neg_stride"),
    Case("StridedSlice", lambda x: x[-100:100:3], [V5], lambda x: x[-100:100:3], id="clamp"),
    Case("StridedSlice", lambda x: x[3:1], [V5], lambda x: x[3:1], id="empty"),
    Case("StridedSlice", lambda x: x[()], [I234], lambda x: x[()], id="empty_key"),
    Case("StridedSlice", lambda x: x[::2], [B6], lambda x: x[::2], id="bool"),
    Case("StridedSlice",
         lambda x: tf.strided_slice(x, [0, 2], [0, -1], [1, -1], begin_mask=1, end_mask=3),
         [F34], lambda x: x[:, 2::-1], id="masks"),
    Case("StridedSlice",
         lambda x: tf.strided_slice(x, [0, 1, 0, 0], [0, 2, 0, 3], [1, 1, 1, 2],
                                    new_axis_mask=1, shrink_axis_mask=2, ellipsis_mask=4),
         [F345], lambda x: x[None, 1, ..., 0:3:2], id="all_masks"),
    Case("StridedSlice", lambda x: tf.strided_slice(x, [1], [3]), [V5], lambda x: x[1:3],
         id="default_strides"),
    Case("StridedSlice", lambda x, i: x[i, 1:], [F34, np.int32(2)], lambda x, i: x[i, 1:],
         id="tensor_index"),
    Case("StridedSlice", lambda x, n: x[:n], [V5, np.int64(3)], lambda x, n: x[:n],
         id="tensor_stop_int64"),
    Case("StridedSlice",
         lambda x, b, e, s: tf.strided_slice(x, b, e, s, begin_mask=2, end_mask=5),
         [F345, np.array([1, 0, -1], np.int32), np.array([0, 1, 0], np.int32),
          np.array([1, -1, 1], np.int32)],
         lambda x, b, e, s: x[1:, :1:-1, -1:], id="tensor_spec"),
    Case("StridedSlice", lambda x, b, e, s: tf.strided_slice(x, b, e, s, end_mask=2),
         [F345, np.array([0, -5], np.int64), np.array([2, 0], np.int64),
          np.array([1, -1], np.int64)],
         lambda x, b, e, s: x[0:2, -5::-1], id="tensor_spec_below_range"),
    # masks that refer to entries need the spec's length: not run with unknown dims
    Case("StridedSlice",
         lambda x, b, e, s: tf.strided_slice(x, b, e, s, begin_mask=1, end_mask=2,
                                             ellipsis_mask=1, new_axis_mask=4,
                                             shrink_axis_mask=8),
         [F345, np.array([0, -9, 0, -1], np.int64), np.array([0, 0, 0, 0], np.int64),
          np.array([1, -1, 1, 1], np.int64)],
         lambda x, b, e, s: x[..., -9::-1, None, -1], id="tensor_spec_masks", dynamic=False),
    Case("StridedSlice",
         lambda x, b: tf.strided_slice(x, b, [0, 0, 2], [1, 1, -1], end_mask=2,
                                       shrink_axis_mask=1),
         [F345, np.array([-1, 1, -2], np.int32)],
         lambda x, b: x[-1, 1:, -2:2:-1], id="tensor_begin_shrink", dynamic=False),
    Case("StridedSlice", lambda x: tf.strided_slice(x, [-10], [0], [-1], end_mask=1), [V5],
         lambda x: x[-10::-1], id="neg_stride_below_range"),
    Case("StridedSlice", lambda x: x[-7:-10:-1, ..., 3:-7:-2], [F345],
         lambda x: x[-7:-10:-1, ..., 3:-7:-2], id="neg_stride_clamps"),
    # ---- Slice
    Case("Slice", lambda x: tf.slice(x, [1, 0], [2, -1]), [F34], lambda x: x[1:3, 0:],
         bad=[[(2, 4)], [(3,)]], grad2=True),
    Case("Slice", lambda x: tf.slice(x, np.array([1], np.int64), np.array([3], np.int64)),
         [I234[0, 0]], lambda x: x[1:4], id="int64"),
    Case("Slice", lambda x, b: tf.slice(x, b, [1, 2]), [F34, np.array([2, 1], np.int32)],
         lambda x, b: x[2:3, 1:3], id="tensor_begin"),
    Case("Slice", lambda x: tf.slice(x, [0, 0, 5], [-1, 2, 0]), [F345],
         lambda x: x[:, 0:2, 5:5], id="empty"),
    Case("Slice", lambda x, b, s: tf.slice(x, b, s),
         [F345, np.array([1, 0, 2], np.int64), np.array([-1, 2, -1], np.int64)],
         lambda x, b, s: x[1:, 0:2, 2:], id="tensor_size"),
    Case("Slice", lambda x, s: tf.slice(x, [0, 1, 0], s), [F345, np.array([-1, 3, 1], np.int32)],
         lambda x, s: x[:, 1:4, 0:1], id="tensor_size_const_begin"),
    # ---- StridedSliceGrad (the gradient of StridedSlice: dy written into zeros)
    Case("StridedSliceGrad",
         lambda dy: strided_slice_grad(np.array([3, 4, 5], np.int32), [0, 1, 0, 0],
                                        [0, 2, 0, 5], [1, 1, 1, 2],
                                        dy, dict(begin_mask=0, end_mask=0, ellipsis_mask=4,
                                                 new_axis_mask=1, shrink_axis_mask=2)),
         [DY], lambda dy: _written((3, 4, 5), (None, 1, Ellipsis, slice(0, 5, 2)), dy),
         bad=[[(1, 3, 2)], [(3, 3)]], grad2=True),
    Case("StridedSliceGrad",
         lambda dy: strided_slice_grad(np.array([6], np.int64), np.array([4], np.int64),
                                        np.array([0], np.int64), np.array([-2], np.int64),
                                        dy, dict(begin_mask=0, end_mask=1, ellipsis_mask=0,
                                                 new_axis_mask=0, shrink_axis_mask=0)),
         [V5[:3]], lambda dy: _written((6,), (slice(4, None, -2),), dy), id="neg_stride_int64"),
    Case("StridedSliceGrad",
         lambda dy, s: strided_slice_grad(s, [1, 0], [2, 0], [1, 1], dy,
                                           dict(begin_mask=0, end_mask=2, ellipsis_mask=0,
                                                new_axis_mask=0, shrink_axis_mask=1)),
         [V5[:4].astype(np.float32), np.array([3, 4], np.int32)],
         lambda dy, s: _written(tuple(s), (1, slice(None)), dy), id="shape_tensor"),
    Case("StridedSliceGrad",
         lambda dy: strided_slice_grad(np.array([2, 3], np.int32), [0, 0], [0, 0], [1, 1],
                                        dy, dict(begin_mask=3, end_mask=3, ellipsis_mask=0,
                                                 new_axis_mask=0, shrink_axis_mask=0)),
         [I234[0, :, :3].T[:2]], lambda dy: dy.copy(), id="int_full"),
    Case("StridedSliceGrad",
         lambda dy, b: strided_slice_grad(np.array([4, 5], np.int32), b, [0, 5], [-1, 2],
                                           dy, dict(begin_mask=0, end_mask=1, ellipsis_mask=0,
                                                    new_axis_mask=0, shrink_axis_mask=0)),
         [F34[:3, :2], np.array([2, 1], np.int32)],
         lambda dy, b: _written((4, 5), (slice(2, None, -1), slice(1, 5, 2)), dy),
         id="tensor_begin"),
    Case("StridedSliceGrad",
         lambda dy: strided_slice_grad(np.array([3, 4], np.int64), np.array([2, 0], np.int64),
                                        np.array([0, 3], np.int64), np.array([-1, 1], np.int64),
                                        dy, dict(begin_mask=0, end_mask=1, ellipsis_mask=0,
                                                 new_axis_mask=0, shrink_axis_mask=0)),
         [I234[0, :, :3].astype(np.int16)], lambda dy: _written((3, 4), (slice(2, None, -1),
                                                                          slice(0, 3)), dy),
         id="reversed_pad_int16"),
]
