"""Cases for Cast, ClipByValue, Cumsum, Cumprod, Where, Select and SelectV2."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(5)
F = (R.standard_normal((3, 4)) * 3).astype(np.float32)
F64 = R.standard_normal((2, 3))
I = R.integers(-5, 5, (3, 4)).astype(np.int32)
I64 = R.integers(-5, 5, (4,)).astype(np.int64)
B = R.random((3, 4)) > 0.5
V = np.array([True, False, True])
LO = np.float32(-1.0)
HI = np.float32(1.5)
ROW_LO = np.full((4,), -0.5, np.float32)
I8 = np.array([[-128, 3, -2, 127], [0, -1, 5, 2]], np.int8)
I16 = np.array([[-300, 2, 7, 30000], [5, -1, 0, 12]], np.int16)
H = np.array([[0.5, -2.75, 65504.0], [-0.0, 3.0, -1000.5]], np.float16)
NEAR1 = 1 + R.standard_normal((2, 100)) * 0.01  # long axis: the scan lowering of Cumprod
R3 = R.integers(-3, 4, (2, 3, 4)).astype(np.float32)


def _cumsum_ref(x, axis, exclusive=False, reverse=False):
    """Cumulative sums by explicit slicing sums (no np.cumsum)."""
    x = np.moveaxis(x, axis, 0)
    n = x.shape[0]
    out = np.zeros_like(x)
    for i in range(n):
        if reverse:
            idx = range(i + 1 if exclusive else i, n)
        else:
            idx = range(0, i if exclusive else i + 1)
        for j in idx:
            out[i] = out[i] + x[j]
    return np.moveaxis(out, 0, axis)


def _cumprod_ref(x, axis, exclusive=False, reverse=False):
    x = np.moveaxis(x, axis, 0)
    n = x.shape[0]
    out = np.ones_like(x)
    for i in range(n):
        idx = (range(i + 1 if exclusive else i, n) if reverse
               else range(0, i if exclusive else i + 1))
        for j in idx:
            out[i] = out[i] * x[j]
    return np.moveaxis(out, 0, axis)


def _trunc_int(x, np_type):
    return np.array([int(v) for v in x.reshape(-1)], np_type).reshape(x.shape)


CASES = [
    # ---- Cast
    Case("Cast", lambda x: tf.cast(x, tf.int32), [F], lambda x: _trunc_int(x, np.int32),
         bad_dtypes=[[object]], grad="none"),
    Case("Cast", lambda x: tf.cast(x, tf.float32), [I], lambda x: x.astype(np.float32),
         id="int_to_float"),
    Case("Cast", lambda x: tf.cast(x, tf.bool), [F64],
         lambda x: np.array([[v != 0 for v in r] for r in x]), id="float_to_bool",
         grad="none"),
    Case("Cast", lambda x: tf.cast(x, "float64"), [B], lambda x: np.where(x, 1.0, 0.0),
         id="bool_to_double"),
    Case("Cast", lambda x: tf.to_int64(x), [np.array([-2.7, -0.5, 0.5, 2.7], np.float32)],
         lambda x: np.array([-2, 0, 0, 2], np.int64), id="to_int64_truncates", grad="none"),
    # Gradient checks run in float64: float32 rounding is kept below the tolerance by
    # using tiny values (their float32 spacing is ~1e-12).
    Case("Cast", lambda x: tf.cast(x, tf.float32), [F64 * 1e-5],
         lambda x: x.astype(np.float32), id="double_to_float", grad2=True, grad_atol=1e-5,
         grad_rtol=1e-3),
    Case("Cast", lambda x: tf.to_float(x), [I64], lambda x: x.astype(np.float32),
         id="to_float"),
    Case("Cast", lambda x: tf.saturate_cast(x, tf.uint8),
         [np.array([-5.0, 3.7, 300.0, 255.0], np.float32)],
         lambda x: np.array([0, 3, 255, 255], np.uint8), id="saturate_cast", grad="none"),
    Case("Cast", lambda x: tf.cast(x, tf.int32), [H], lambda x: _trunc_int(x, np.int32),
         id="float16_to_int", grad="none"),
    Case("Cast", lambda x: tf.cast(x, tf.float16), [I16],
         lambda x: np.array([[float(v) for v in r] for r in x], np.float16), id="int16_to_half",
         rtol=1e-3),
    Case("Cast", lambda x: tf.cast(x, tf.int8), [np.array([300, -200, 127, -129], np.int64)],
         lambda x: np.array([44, 56, 127, 127], np.int8), id="int64_to_int8_wraps"),
    Case("Cast", lambda x: tf.cast(x, tf.uint8), [I8],
         lambda x: np.array([[v % 256 for v in r] for r in x.tolist()], np.uint8),
         id="int8_to_uint8"),
    Case("Cast", lambda x: tf.cast(x, tf.bool), [np.array([np.nan, -0.0, 1e-30, -np.inf])],
         lambda x: np.array([True, False, True, True]), id="nan_to_bool", grad="none"),
    Case("Cast", lambda x: tf.cast(x, tf.int16), [B],
         lambda x: np.array([[1 if v else 0 for v in r] for r in x], np.int16),
         id="bool_to_int16"),
    Case("Cast", lambda x: tf.cast(x, tf.float16), [F64 * 1e4],
         lambda x: np.array([[np.float16(np.float64(v)) for v in r] for r in x]),
         id="double_to_half", grad=False, rtol=1e-3),
    # ---- ClipByValue
    Case("ClipByValue", lambda x: tf.clip_by_value(x, -1.0, 1.5), [F],
         lambda x: np.array([[min(max(v, -1.0), 1.5) for v in r] for r in x], np.float32),
         bad_dtypes=[[np.int32]]),
    Case("ClipByValue", lambda x, lo, hi: tf.clip_by_value(x, lo, hi), [F, ROW_LO, HI],
         lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi), id="tensor_bounds",
         grad_inputs=[0, 1, 2],
         bad=[[(3, 4), (3, 1, 4), ()], [(3, 4), (5,), ()]],
         bad_dtypes=[[np.float32, np.float64, np.float32]]),
    Case("ClipByValue", lambda x: tf.clip_by_value(x, 0, 3), [I],
         lambda x: np.array([[min(max(v, 0), 3) for v in r] for r in x], np.int32), id="int"),
    Case("ClipByValue", lambda x: tf.clip_by_value(x, 1.0, 0.0), [F64],
         lambda x: np.ones_like(x), id="min_above_max_gives_min", grad=False),
    Case("ClipByValue", lambda x, lo, hi: tf.clip_by_value(x, lo, hi),
         [F64, np.full((2, 1), -0.3), np.array([0.2, 0.9, 0.4])],
         lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi), id="broadcast_bounds_float64"),
    Case("ClipByValue", lambda x, lo, hi: tf.clip_by_value(x, lo, hi),
         [I16, np.array([0, -5, 0, 0], np.int16), np.int16(100)],
         lambda x, lo, hi: np.array([[min(max(v, l), 100) for v, l in zip(r, lo)] for r in x],
                                    np.int16), id="int16_tensor_bounds"),
    Case("ClipByValue", lambda x, lo, hi: tf.clip_by_value(x, lo, hi),
         [F64, np.float64(1.0), np.float64(0.0)], lambda x, lo, hi: np.ones_like(x),
         id="fed_min_above_max", grad=False),
    Case("ClipByValue", lambda x: tf.clip_by_value(x, np.int8(-3), np.int8(4)), [I8],
         lambda x: np.array([[min(max(v, -3), 4) for v in r] for r in x], np.int8),
         id="int8"),
    Case("ClipByValue", lambda x: tf.clip_by_value(x, -1.0, 1.0),
         [np.array([np.nan, -np.inf, 0.5, np.inf])],
         lambda x: np.array([np.nan, -1.0, 0.5, 1.0]), id="nan_passes", grad=False),
    Case("ClipByValue", lambda x: tf.clip_by_value(x, -3.0, 2.0), [H],
         lambda x: np.array([[min(max(v, -3.0), 2.0) for v in r] for r in x.tolist()],
                            np.float16), id="float16", grad=False),
    # ---- Cumsum / Cumprod
    Case("Cumsum", lambda x: tf.cumsum(x), [F], lambda x: _cumsum_ref(x, 0),
         bad=[[()]], bad_dtypes=[[np.bool_]], grad2=True),
    Case("Cumsum", lambda x: tf.cumsum(x, -1, exclusive=True, reverse=True), [F64],
         lambda x: _cumsum_ref(x, 1, True, True), id="exclusive_reverse_float", grad2=True),
    Case("Cumsum", lambda x, a: tf.cumsum(x, a, reverse=True), [F, np.int32(1)],
         lambda x, a: _cumsum_ref(x, 1, reverse=True), id="computed_axis"),
    Case("Cumsum", lambda x: tf.cumsum(x, axis=1, exclusive=True), [F],
         lambda x: _cumsum_ref(x, 1, exclusive=True), id="exclusive"),
    Case("Cumsum", lambda x: tf.cumsum(x, -1, reverse=True), [I],
         lambda x: _cumsum_ref(x, 1, reverse=True), id="reverse_int"),
    Case("Cumsum", lambda x: tf.cumsum(x, 0, exclusive=True, reverse=True), [I64],
         lambda x: _cumsum_ref(x, 0, True, True), id="exclusive_reverse"),
    Case("Cumsum", lambda x: tf.cumsum(x, tf.constant(1, tf.int64), exclusive=True),
         [np.zeros((2, 0), np.float32)], lambda x: x, id="empty"),
    Case("Cumprod", lambda x: tf.cumprod(x, 1), [F64], lambda x: _cumprod_ref(x, 1),
         bad=[[(2,)]], bad_dtypes=[[np.bool_]], grad2=True),
    Case("Cumprod", lambda x: tf.cumprod(x, 0, exclusive=True), [F],
         lambda x: _cumprod_ref(x, 0, exclusive=True), id="exclusive", grad2=True),
    Case("Cumprod", lambda x: tf.cumprod(x, -1, exclusive=True, reverse=True), [F64],
         lambda x: _cumprod_ref(x, 1, True, True), id="exclusive_reverse_float"),
    Case("Cumprod", lambda x: tf.cumprod(x, exclusive=True, reverse=True), [I],
         lambda x: _cumprod_ref(x, 0, True, True), id="exclusive_reverse_int"),
    Case("Cumsum", lambda x: tf.cumsum(x, 1), [I8], lambda x: np.array(
        [[(sum(r[:k + 1]) + 128) % 256 - 128 for k in range(4)] for r in x.tolist()], np.int8),
         id="int8_wraps"),
    Case("Cumsum", lambda x: tf.cumsum(x, 1, exclusive=True, reverse=True), [I16],
         lambda x: _cumsum_ref(x, 1, True, True), id="int16"),
    Case("Cumsum", lambda x: tf.cumsum(x, 1, reverse=True), [H],
         lambda x: _cumsum_ref(x.astype(np.float64), 1, reverse=True).astype(np.float16),
         id="float16", rtol=1e-3, grad=False),
    Case("Cumsum", lambda x: tf.cumsum(x, -2, exclusive=True), [R3],
         lambda x: _cumsum_ref(x, 1, exclusive=True), id="rank3_middle"),
    Case("Cumprod", lambda x: tf.cumprod(x, 1), [NEAR1], lambda x: _cumprod_ref(x, 1),
         id="long_axis", grad=False),
    Case("Cumprod", lambda x: tf.cumprod(x, -1, exclusive=True), [NEAR1],
         lambda x: _cumprod_ref(x, 1, exclusive=True), id="long_axis_exclusive", grad=False),
    Case("Cumprod", lambda x: tf.cumprod(x, 1, reverse=True), [NEAR1],
         lambda x: _cumprod_ref(x, 1, reverse=True), id="long_axis_reverse", grad=False),
    Case("Cumprod", lambda x: tf.cumprod(x, 1, exclusive=True, reverse=True), [NEAR1],
         lambda x: _cumprod_ref(x, 1, True, True), id="long_axis_exclusive_reverse",
         grad=False),
    Case("Cumprod", lambda x: tf.cumprod(x, 1, reverse=True), [R3],
         lambda x: _cumprod_ref(x, 1, reverse=True), id="rank3_zeros_and_signs", grad=False),
    Case("Cumprod", lambda x: tf.cumprod(x, -2, exclusive=True), [R3],
         lambda x: _cumprod_ref(x, 1, exclusive=True), id="rank3_exclusive", grad=False),
    Case("Cumprod", lambda x: tf.cumprod(x, 1), [I8], lambda x: np.array(
        [[(int(np.prod(r[:k + 1])) + 128) % 256 - 128 for k in range(4)] for r in x.tolist()],
        np.int8), id="int8_wraps"),
    Case("Cumprod", lambda x: tf.cumprod(x, 0, exclusive=True), [I16],
         lambda x: _cumprod_ref(x, 0, exclusive=True), id="int16"),
    Case("Cumprod", lambda x: tf.cumprod(x, 1), [H / np.float16(100)],
         lambda x: _cumprod_ref(x.astype(np.float64), 1).astype(np.float16), id="float16",
         rtol=1e-3, grad=False),
    Case("Cumprod", lambda x: tf.cumprod(x, 1, exclusive=True), [np.zeros((3, 0), np.float32)],
         lambda x: x, id="empty", grad=False),
    # ---- Where (coordinates)
    Case("Where", lambda c: tf.where(c), [B],
         lambda c: np.array([[i, j] for i in range(3) for j in range(4) if c[i, j]],
                            np.int64).reshape(-1, 2)),
    Case("Where", lambda c: tf.where(c), [I64],
         lambda c: np.array([[i] for i in range(4) if c[i] != 0], np.int64).reshape(-1, 1),
         id="int_vector"),
    Case("Where", lambda c: tf.where_v2(c), [np.zeros((2, 3), bool)],
         lambda c: np.zeros((0, 2), np.int64), id="none_true_v2"),
    Case("Where", lambda c: tf.where(c), [F64 > 0.2],
         lambda c: np.array([[i, j] for i in range(2) for j in range(3) if c[i, j]],
                            np.int64).reshape(-1, 2), id="from_compare"),
    Case("Where", lambda c: tf.where(c), [np.array([[0.0, np.nan], [-0.0, 2.0]])],
         lambda c: np.array([[0, 1], [1, 1]], np.int64), id="float64_nan"),
    Case("Where", lambda c: tf.where(c), [I8], lambda c: np.array(
        [[i, j] for i in range(2) for j in range(4) if c[i, j] != 0], np.int64), id="int8"),
    Case("Where", lambda c: tf.where(c), [R3], lambda c: np.array(
        [[i, j, k] for i in range(2) for j in range(3) for k in range(4) if c[i, j, k] != 0],
        np.int64).reshape(-1, 3), id="rank3"),
    Case("Where", lambda c: tf.where(c), [np.array(True)],
         lambda c: np.zeros((1, 0), np.int64), id="scalar_true"),
    Case("Where", lambda c: tf.where(c), [np.array(0, np.int16)],
         lambda c: np.zeros((0, 0), np.int64), id="scalar_false_int16"),
    # ---- Select
    Case("Select", lambda c, x, y: tf.where(c, x, y), [B, F, -F],
         lambda c, x, y: np.array([[x[i, j] if c[i, j] else y[i, j] for j in range(4)]
                                   for i in range(3)], np.float32),
         bad=[[(3, 4), (3, 4), (3, 5)], [(3, 3), (3, 4), (3, 4)], [(4,), (3, 4), (3, 4)]],
         bad_dtypes=[[np.float32, np.float32, np.float32], [np.bool_, np.float32, np.int32]]),
    Case("Select", lambda c, x, y: tf.where(c, x, y), [V, I[:3], -I[:3]],
         lambda c, x, y: np.stack([x[i] if c[i] else y[i] for i in range(3)]),
         id="vector_selects_rows"),
    Case("Select", lambda c, x, y: tf.where(c, x, y), [np.array(False), F64, 2 * F64],
         lambda c, x, y: 2 * x, id="scalar_condition"),
    Case("Select", lambda c, x, y: tf.where(c, x, y), [V, F[:3], -F[:3]],
         lambda c, x, y: np.stack([x[i] if c[i] else y[i] for i in range(3)]),
         id="vector_selects_rows_float"),
    Case("Select", lambda c, x, y: tf.where(c, x, y), [V, R3[:, :, :1].repeat(3, 0)[:3],
                                                        -R3[:, :, :1].repeat(3, 0)[:3]],
         lambda c, x, y: np.stack([x[i] if c[i] else y[i] for i in range(3)]),
         id="vector_selects_rank3_rows"),
    Case("Select", lambda c, x, y: tf.where(c, x, y), [B[:2], I16, -I16],
         lambda c, x, y: np.array([[x[i, j] if c[i, j] else y[i, j] for j in range(4)]
                                   for i in range(2)], np.int16), id="int16"),
    Case("Select", lambda c, x, y: tf.where(c, x, y), [V, B, ~B],
         lambda c, x, y: np.stack([x[i] if c[i] else y[i] for i in range(3)]), id="bool_rows"),
    Case("Select", lambda c, x, y: tf.where(c, x, y), [np.array(True), H, -H],
         lambda c, x, y: x, id="scalar_condition_float16"),
    # ---- SelectV2
    Case("SelectV2", lambda c, x, y: tf.where_v2(c, x, y), [B[0], F, np.float32(7)],
         lambda c, x, y: np.array([[x[i, j] if c[j] else 7 for j in range(4)]
                                   for i in range(3)], np.float32),
         bad=[[(3,), (3, 4), ()]], bad_dtypes=[[np.int32, np.float32, np.float32]]),
    Case("SelectV2", lambda c, x, y: tf.where_v2(c, x, y), [B[:, :1], F[0], F[:1, :1] * 2],
         lambda c, x, y: np.array([[x[j] if c[i, 0] else y[0, 0] for j in range(4)]
                                   for i in range(3)], np.float32), id="all_broadcast",
         bad_dtypes=[[np.bool_, np.float32, np.float64]]),
    Case("SelectV2", lambda c, x: tf.where_v2(c, x, -1), [B[:, :1], I],
         lambda c, x: np.array([[x[i, j] if c[i, 0] else -1 for j in range(4)]
                                for i in range(3)], np.int32), id="column_condition_int"),
    Case("SelectV2", lambda c, x, y: tf.where_v2(c, x, y), [V[:, None], B, np.array(True)],
         lambda c, x, y: np.array([[x[i, j] if c[i, 0] else True for j in range(4)]
                                   for i in range(3)]), id="bool"),
    Case("SelectV2", lambda c, x, y: tf.where_v2(c, x, y), [B[0], I16, np.int16(-9)],
         lambda c, x, y: np.array([[x[i, j] if c[j] else -9 for j in range(4)]
                                   for i in range(2)], np.int16), id="int16"),
]
