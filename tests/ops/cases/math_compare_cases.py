"""Cases for comparisons and logical ops (math_compare.py); all outputs are bool."""

import operator

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(13)
F = R.integers(-2, 3, (3, 4)).astype(np.float32)       # small integers: ties are frequent
G = R.integers(-2, 3, (4,)).astype(np.float32)
IX = R.integers(-3, 4, (2, 1, 3)).astype(np.int64)
IY = R.integers(-3, 4, (4, 1)).astype(np.int64)
U8 = np.array([0, 5, 255], np.uint8)
NAN = np.array([np.nan, 1.0, np.nan, 2.0])
NAN2 = np.array([np.nan, np.nan, 1.0, 2.0])
P = np.array([[True, True, False, False]])
Q = np.array([[True], [False]])
PB = np.array([True, False, True])
I16 = np.array([[-32768, -1, 0, 7], [32767, 7, -7, 0]], np.int16)
I8 = np.array([-128, 7, 0, 127], np.int8)
H = np.array([[0.5, np.nan, -2.0, 65504.0]], np.float16)


def _pywise(fn):
    """Elementwise bool reference from Python scalars (broadcast first)."""
    def ref(x, y):
        xb, yb = np.broadcast_arrays(x, y)
        vals = [bool(fn(a, b)) for a, b in zip(xb.ravel().tolist(), yb.ravel().tolist())]
        return np.array(vals, dtype=bool).reshape(xb.shape)
    return ref


def _cmp_cases(op_type, fn, pyop):
    return [
        Case(op_type, fn, [F, G], _pywise(pyop), bad=[[(3, 4), (3,)]],
             bad_dtypes=[[np.float32, np.int32]]),
        Case(op_type, fn, [IX, IY], _pywise(pyop), id="int64_broadcast"),
        Case(op_type, fn, [NAN, NAN2], _pywise(pyop), id="nan"),
        Case(op_type, lambda x: fn(x, 5), [U8], lambda x: _pywise(pyop)(x, np.uint8(5)),
             id="uint8_scalar"),
    ]


CASES = [
    *_cmp_cases("Equal", lambda x, y: tf.equal(x, y), operator.eq),
    Case("Equal", lambda x, y: tf.equal(x, y), [PB, np.array([True])],
         lambda x, y: np.array([True, False, True]), id="bool"),
    *_cmp_cases("NotEqual", lambda x, y: tf.not_equal(x, y), operator.ne),
    Case("NotEqual", lambda x: tf.not_equal(x, 0.0), [np.zeros((0, 2), np.float32)],
         lambda x: np.zeros((0, 2), bool), id="empty"),
    *_cmp_cases("Less", lambda x, y: tf.less(x, y), operator.lt),
    Case("Less", lambda x, y: x < y, [F, G], _pywise(operator.lt), id="operator",
         bad_dtypes=[[np.bool_, np.bool_]]),
    *_cmp_cases("LessEqual", lambda x, y: tf.less_equal(x, y), operator.le),
    Case("GreaterEqual", lambda x: 1.0 <= x, [F], lambda x: x >= 1, id="reflected"),
    *_cmp_cases("Greater", lambda x, y: tf.greater(x, y), operator.gt),
    Case("Greater", lambda x, y: x > y, [IX, IY], _pywise(operator.gt), id="operator"),
    *_cmp_cases("GreaterEqual", lambda x, y: tf.greater_equal(x, y), operator.ge),
    Case("GreaterEqual", lambda x: x >= 0, [np.float64(-0.0)], lambda x: np.bool_(True),
         id="scalar"),
    Case("LogicalAnd", lambda x, y: tf.logical_and(x, y), [P, Q],
         _pywise(lambda a, b: a and b), bad=[[(1, 4), (3,)]],
         bad_dtypes=[[np.int32, np.int32], [np.float32, np.float32]]),
    Case("LogicalAnd", lambda x, y: x & y, [P, Q], _pywise(lambda a, b: a and b),
         id="operator"),
    Case("LogicalOr", lambda x, y: tf.logical_or(x, y), [P, Q], _pywise(lambda a, b: a or b),
         bad=[[(1, 4), (3,)]], bad_dtypes=[[np.int32, np.int32]]),
    Case("LogicalOr", lambda x, y: x | y, [PB, PB[::-1].copy()], _pywise(lambda a, b: a or b),
         id="operator"),
    Case("LogicalNot", lambda x: tf.logical_not(x), [P], lambda x: np.array(
        [[False, False, True, True]]), bad_dtypes=[[np.int32]]),
    Case("LogicalNot", lambda x: ~x, [np.bool_(True)], lambda x: np.bool_(False),
         id="operator_scalar"),
    # xor is composed of and/or/not, as in TF1
    Case("LogicalAnd", lambda x, y: tf.logical_xor(x, y), [P, Q],
         _pywise(lambda a, b: a != b), id="xor", bad=[[(1, 4), (3,)]],
         bad_dtypes=[[np.int32, np.int32]]),
    Case("LogicalOr", lambda x, y: x ^ y, [PB, np.array([True])],
         lambda x, y: np.array([False, True, False]), id="xor_operator"),
    # narrow dtypes (ONNX lowerings)
    Case("Equal", lambda x, y: tf.equal(x, y), [I16, I16[::-1].copy()], _pywise(operator.eq),
         id="int16"),
    Case("NotEqual", lambda x, y: tf.not_equal(x, y), [P, Q], _pywise(operator.ne), id="bool"),
    Case("NotEqual", lambda x, y: tf.not_equal(x, y), [H, H[:, ::-1].copy()],
         _pywise(operator.ne), id="float16"),
    Case("Less", lambda x, y: x < y, [I8, I8[::-1].copy()], _pywise(operator.lt), id="int8"),
    Case("LessEqual", lambda x, y: x <= y, [H, H[:, ::-1].copy()], _pywise(operator.le),
         id="float16"),
    Case("Greater", lambda x, y: x > y, [I16, I16[:1]], _pywise(operator.gt), id="int16"),
    Case("GreaterEqual", lambda x, y: x >= y, [I8, I8[::-1].copy()], _pywise(operator.ge),
         id="int8"),
    Case("LogicalNot", lambda x: tf.logical_not(x), [np.zeros((0, 3), bool)],
         lambda x: np.ones((0, 3), bool), id="empty"),
]
