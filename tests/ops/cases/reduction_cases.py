"""Cases for reductions: Sum, Mean, Max, Min, Prod, Any, All, ArgMax, ArgMin."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(7)
F = R.standard_normal((2, 3, 4)).astype(np.float32)
F64 = R.standard_normal((3, 5))
H = R.standard_normal((4, 3)).astype(np.float16)
I = R.integers(-9, 9, (3, 4)).astype(np.int32)
I64 = R.integers(-9, 9, (5,)).astype(np.int64)
U8 = R.integers(0, 50, (2, 3)).astype(np.uint8)
B = R.random((3, 4)) > 0.5
EMPTY = np.zeros((0, 3), np.float32)
SCALAR = np.array(2.5, np.float32)
TIES = np.array([[1, 3, 3], [2, 2, 0]], np.int32)
PZ = np.array([[1.5, -2.0, 0.0], [0.5, 3.0, -1.0]])
PZ2 = np.array([[0.0, 2.0, 0.0, 1.5], [1.0, 0.0, -2.0, 3.0], [2.0, 3.0, 0.5, 1.0]])
NAN = np.array([[1.0, np.nan, 3.0], [-np.inf, 2.0, np.nan], [np.inf, 1.0, 2.0]], np.float32)
I8 = np.array([[100, 100, -3], [-100, -100, 5]], np.int8)
I16 = np.array([[300, -7, 300], [2, 9, -1]], np.int16)

CASES = [
    # ---- Sum
    Case("Sum", lambda x: tf.reduce_sum(x, 1), [F], lambda x: x.sum(1),
         bad=[[(2,)]], bad_dtypes=[[np.bool_]], grad2=True),
    Case("Sum", lambda x: tf.reduce_sum(x), [F], lambda x: x.sum(), id="all", rtol=1e-5,
         grad2=True),
    Case("Sum", lambda x: tf.reduce_sum(x, axis=[0, -1], keepdims=True), [F],
         lambda x: x.sum((0, 2), keepdims=True), id="keepdims_negative", grad2=True),
    Case("Sum", lambda x: tf.reduce_sum(x, reduction_indices=(2, 0), keep_dims=True), [F],
         lambda x: x.sum((0, 2), keepdims=True), id="old_keywords"),
    Case("Sum", lambda x: tf.reduce_sum(x, [1, -1]), [I], lambda x: x.sum(1, dtype=np.int32),
         id="int_duplicate_axis"),
    Case("Sum", lambda x: tf.reduce_sum(x, []), [I], lambda x: x, id="no_axes"),
    Case("Sum", lambda x: tf.reduce_sum(x, tf.constant(-1, tf.int64)), [F64],
         lambda x: x.sum(-1), id="int64_axis_tensor"),
    # Computed axes keep dims (or are one scalar axis) in these cases: without, the
    # result's rank depends on the axes' values, and an ONNX model cannot declare a
    # graph output of unknown rank.
    Case("Sum", lambda x, a: tf.reduce_sum(x, a, keepdims=True),
         [F, np.array([2, 0, -1], np.int32)], lambda x, a: x.sum((0, 2), keepdims=True),
         id="computed_axes_duplicate", grad2=True),
    Case("Sum", lambda x, a: tf.reduce_sum(x, a, keepdims=True), [F, np.int64(-2)],
         lambda x, a: x.sum(1, keepdims=True), id="computed_axis_keepdims"),
    Case("Sum", lambda x: tf.reduce_sum(x, [1, 0]), [F], lambda x: x.sum((0, 1)),
         id="leading_axes"),
    Case("Sum", lambda x: tf.reduce_sum(x, 0), [EMPTY], lambda x: np.zeros(3, np.float32),
         id="empty"),
    Case("Sum", lambda x: tf.reduce_sum(x), [SCALAR], lambda x: x, id="scalar"),
    Case("Sum", lambda x: tf.reduce_sum(x, 1), [U8], lambda x: x.sum(1, dtype=np.uint8),
         id="uint8"),
    Case("Sum", lambda x: tf.reduce_sum(x, 0), [H],
         lambda x: x.astype(np.float32).sum(0).astype(np.float16), id="float16", rtol=1e-3,
         atol=1e-3),
    # ---- Mean
    Case("Mean", lambda x: tf.reduce_mean(x, [0, 2]), [F], lambda x: x.mean((0, 2)),
         bad=[[(2, 3)]], bad_dtypes=[[np.bool_]], grad2=True),
    Case("Mean", lambda x: tf.reduce_mean(x), [F64], lambda x: x.mean(), id="all", grad2=True),
    Case("Mean", lambda x: tf.reduce_mean(x, -1, keepdims=True), [F],
         lambda x: x.mean(2, keepdims=True), id="keepdims"),
    Case("Mean", lambda x, a: tf.reduce_mean(x, a, keepdims=True),
         [F, np.array([1, -1], np.int32)], lambda x, a: x.mean((1, 2), keepdims=True),
         id="computed_axes", grad2=True),
    Case("Mean", lambda x, a: tf.reduce_mean(x, a), [I, np.int32(0)],
         lambda x, a: np.trunc(x.sum(0) / 3).astype(np.int32), id="computed_axis_int"),
    Case("Mean", lambda x: tf.reduce_mean(x, 1), [I],
         lambda x: np.trunc(x.sum(1) / 4).astype(np.int32), id="int_truncates"),
    Case("Mean", lambda x: tf.reduce_mean(x), [I64],
         lambda x: np.int64(np.trunc(x.sum() / 5)), id="int64_all"),
    Case("Mean", lambda x: tf.reduce_mean(x, 0, keepdims=True), [EMPTY],
         lambda x: np.full((1, 3), np.nan, np.float32), id="empty_nan"),
    # ---- Max / Min
    Case("Max", lambda x: tf.reduce_max(x, -1), [F], lambda x: x.max(-1), bad=[[()]]),
    Case("Max", lambda x: tf.reduce_max(x, [0, 2], keepdims=True), [F],
         lambda x: x.max((0, 2), keepdims=True), id="two_axes_keepdims"),
    Case("Max", lambda x: tf.reduce_max(x), [F64], lambda x: x.max(), id="all"),
    Case("Max", lambda x, a: tf.reduce_max(x, a), [F, np.int32(1)],
         lambda x, a: x.max(1), id="computed_axis"),
    Case("Max", lambda x: tf.reduce_max(x, keepdims=True), [I], lambda x: x.max(keepdims=True),
         id="int_all_keepdims"),
    Case("Max", lambda x: tf.reduce_max(x, 0), [EMPTY],
         lambda x: np.full(3, -np.inf, np.float32), id="empty"),
    Case("Min", lambda x: tf.reduce_min(x, [1]), [F], lambda x: x.min(1),
         bad_dtypes=[[np.bool_]]),
    Case("Min", lambda x: tf.reduce_min(x, [-1, 0]), [F64], lambda x: x.min(),
         id="all_axes_listed"),
    Case("Min", lambda x: tf.reduce_min(x, 1), [I], lambda x: x.min(1), id="int"),
    # ---- Prod
    Case("Prod", lambda x: tf.reduce_prod(x, 0), [F64], lambda x: x.prod(0), grad2=True),
    Case("Prod", lambda x: tf.reduce_prod(x, [0, 2]), [F], lambda x: x.prod((0, 2)),
         id="noncontiguous_axes", grad2=True),
    Case("Prod", lambda x: tf.reduce_prod(x, [1, 0], keepdims=True), [F],
         lambda x: x.prod((0, 1), keepdims=True), id="leading_axes_keepdims"),
    Case("Prod", lambda x: tf.reduce_prod(x), [PZ], lambda x: np.float64(0.0),
         id="all_one_zero"),  # grad2 is nan at zeros in TF1 too (Cumprod's rule divides)
    Case("Prod", lambda x: tf.reduce_prod(x, -1), [PZ2],
         lambda x: np.array([0.0, 0.0, 2.0 * 3.0 * 0.5]), id="zeros"),
    Case("Prod", lambda x, a: tf.reduce_prod(x, a, keepdims=True),
         [F, np.array([2, 1], np.int32)], lambda x, a: x.prod((1, 2), keepdims=True),
         id="computed_axes"),
    Case("Prod", lambda x: tf.reduce_prod(x, []), [F64], lambda x: x, id="no_axes"),
    Case("Prod", lambda x: tf.reduce_prod(x, 1, keepdims=True), [I],
         lambda x: x.prod(1, keepdims=True, dtype=np.int32), id="int"),
    # ---- Any / All
    Case("Any", lambda x: tf.reduce_any(x, 1), [B], lambda x: x.any(1),
         bad_dtypes=[[np.float32]]),
    Case("Any", lambda x: tf.reduce_any(x, 0), [np.zeros((0, 2), bool)],
         lambda x: np.zeros(2, bool), id="empty"),
    Case("All", lambda x: tf.reduce_all(x, -2, keep_dims=True), [B],
         lambda x: x.all(0, keepdims=True), bad_dtypes=[[np.int32]]),
    Case("All", lambda x: tf.reduce_all(x, [0, 1]), [B], lambda x: x.all(), id="both_axes"),
    # ---- ArgMax / ArgMin
    Case("ArgMax", lambda x: tf.argmax(x, 1), [F], lambda x: x.argmax(1).astype(np.int64),
         bad=[[(2,)]]),
    Case("ArgMax", lambda x: tf.argmax(x), [TIES], lambda x: np.array([1, 0, 0], np.int64),
         id="default_axis_first_tie"),
    Case("ArgMax", lambda x: tf.argmax(x, dimension=-1, output_type=tf.int32), [TIES],
         lambda x: np.array([1, 0], np.int32), id="dimension_int32"),
    Case("ArgMin", lambda x: tf.argmin(x, axis=2), [F], lambda x: x.argmin(2).astype(np.int64),
         bad=[[(2, 3)]]),
    Case("ArgMin", lambda x: tf.argmin(x, 0, output_type=tf.int32), [I64],
         lambda x: np.int32(x.argmin()), id="vector_int32"),
    # ---- dtypes onnxruntime lacks kernels for, and NaN (numpy propagates it)
    Case("Sum", lambda x: tf.reduce_sum(x, 1), [I8],
         lambda x: ((x.astype(np.int64).sum(1) + 128) % 256 - 128).astype(np.int8),
         id="int8_wraps"),
    Case("Mean", lambda x: tf.reduce_mean(x, 0), [I8],
         lambda x: np.trunc(x.astype(np.int64).sum(0) / 2).astype(np.int8), id="int8"),
    Case("Mean", lambda x: tf.reduce_mean(x, 1), [U8],
         lambda x: (x.astype(np.int64).sum(1) % 256 // 3).astype(np.uint8), id="uint8"),
    Case("Mean", lambda x: tf.reduce_mean(x, 1), [H],
         lambda x: (x.astype(np.float32).sum(1) / 3).astype(np.float16), id="float16",
         rtol=1e-3, atol=1e-3),
    Case("Prod", lambda x: tf.reduce_prod(x, 0), [I16],
         lambda x: np.array([(600 + 32768) % 65536 - 32768, -63, -300], np.int16),
         id="int16_wraps"),
    Case("Max", lambda x: tf.reduce_max(x, 1), [NAN],
         lambda x: np.array([np.nan, np.nan, np.inf], np.float32), id="nan", grad=False),
    Case("Min", lambda x: tf.reduce_min(x, 0, keepdims=True), [NAN],
         lambda x: np.array([[-np.inf, np.nan, np.nan]], np.float32), id="nan_keepdims",
         grad=False),
    Case("Max", lambda x: tf.reduce_max(x, 0), [H], lambda x: x.max(0), id="float16"),
    Case("Min", lambda x: tf.reduce_min(x), [I16], lambda x: np.int16(-7), id="int16"),
    Case("All", lambda x: tf.reduce_all(x, 0), [np.zeros((0, 2), bool)],
         lambda x: np.ones(2, bool), id="empty"),
    Case("Any", lambda x: tf.reduce_any(x), [B], lambda x: np.bool_(x.any()), id="all"),
    Case("ArgMax", lambda x: tf.argmax(x, 1), [NAN], lambda x: np.array([1, 2, 0], np.int64),
         id="nan_first"),
    Case("ArgMin", lambda x: tf.argmin(x, -1, output_type=tf.int32), [NAN],
         lambda x: np.array([1, 2, 1], np.int32), id="nan_first"),
    Case("ArgMax", lambda x: tf.argmax(x, 0), [I16], lambda x: np.array([0, 1, 0], np.int64),
         id="int16"),
    Case("ArgMin", lambda x: tf.argmin(x, 1), [U8], lambda x: x.argmin(1).astype(np.int64),
         id="uint8"),
    # negative axes of empty tensors (onnxruntime leaves those unreduced)
    Case("Sum", lambda x: tf.reduce_sum(x, -1), [EMPTY], lambda x: np.zeros(0, np.float32),
         id="empty_negative_axis"),
    Case("Max", lambda x, a: tf.reduce_max(x, a, keepdims=True), [EMPTY, np.int32(-1)],
         lambda x, a: np.zeros((0, 1), np.float32), id="empty_computed_negative_axis"),
    Case("ArgMax", lambda x: tf.argmax(x, -1), [EMPTY], lambda x: np.zeros(0, np.int64),
         id="empty_rows"),
]
