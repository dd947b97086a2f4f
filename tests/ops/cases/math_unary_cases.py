"""Cases for the elementwise unary math ops (math_unary.py).

References are written with numpy / the ``math`` module independently of the kernels.
"""

import math

import numpy as np

import staticgraph as tf

from staticgraph.ops.apply import apply_op

from . import Case, rng

R = rng(11)
F32 = R.standard_normal((2, 3)).astype(np.float32)
F64 = R.standard_normal((4,)) * 3
POS32 = (R.random((3, 2)) * 4 + 0.1).astype(np.float32)
POS64 = R.random((5,)) * 10 + 0.01
UNIT64 = R.uniform(-0.99, 0.99, (2, 3))
I32 = np.array([[-7, 0, 3], [5, -1, 2]], np.int32)
I64 = np.array([-3, 0, 9, -(2**40)], np.int64)
I8 = np.array([-128, -3, 0, 127], np.int8)
EMPTY = np.zeros((0, 3), np.float32)
Y32 = R.uniform(-0.9, 0.9, (2, 3)).astype(np.float32)
DY32 = R.standard_normal((2, 3)).astype(np.float32)
SCALAR = np.float32(-2.5)
HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997], np.float32)
WIDE = np.array([-800.0, -50.0, -1.0, 0.0, 1.0, 50.0, 800.0], np.float64)


def _sigmoid_ref(x):
    x = np.asarray(x, np.float64)
    return np.array([1 / (1 + math.exp(-v)) if v > -700 else math.exp(v) for v in x.ravel()]
                    ).reshape(x.shape)


def _floats(op_type, fn, ref, inputs=(F32, F64), **kw):
    return [Case(op_type, fn, [v], ref, id=f"{np.asarray(v).dtype}-{i}", **kw)
            for i, v in enumerate(inputs)]


CASES = [
    # sign and magnitude: floats and signed integers
    Case("Neg", lambda x: tf.negative(x), [F32], lambda x: -x,
         bad_dtypes=[[np.uint8], [np.bool_]], grad2=True),
    Case("Neg", lambda x: -x, [I32], lambda x: -x, id="int_operator"),
    Case("Neg", lambda x: tf.negative(x), [EMPTY], lambda x: -x, id="empty"),
    Case("Abs", lambda x: tf.abs(x), [F64], lambda x: np.where(x < 0, -x, x),
         bad_dtypes=[[np.uint8]], grad2=True),
    Case("Abs", lambda x: abs(x), [I64], lambda x: np.array([3, 0, 9, 2**40]), id="int64"),
    Case("Abs", lambda x: tf.abs(x), [I8], lambda x: np.array([-128, 3, 0, 127], np.int8),
         id="int8_wraps"),
    Case("Sign", lambda x: tf.sign(x), [F32], lambda x: (x > 0).astype(np.float32)
         - (x < 0).astype(np.float32), bad_dtypes=[[np.bool_]]),
    Case("Sign", lambda x: tf.sign(x), [I32], lambda x: np.array([[-1, 0, 1], [1, -1, 1]],
                                                               np.int32), id="int"),
    Case("Square", lambda x: tf.square(x), [F32], lambda x: x * x, bad_dtypes=[[np.bool_]],
         grad2=True),
    Case("Square", lambda x: tf.square(x), [I64], lambda x: x * x, id="int64"),
    Case("Square", lambda x: tf.square(x), [SCALAR], lambda x: np.float32(6.25), id="scalar"),
    Case("Reciprocal", lambda x: tf.reciprocal(x), [POS32], lambda x: 1 / x,
         bad_dtypes=[[np.bool_]], grad2=True),
    Case("Reciprocal", lambda x: tf.reciprocal(x), [np.array([1, -1, 2, -5, 7], np.int32)],
         lambda x: np.array([1, -1, 0, 0, 0], np.int32), id="int_truncates"),
    # exponentials, logarithms and roots (floats only)
    *_floats("Exp", lambda x: tf.exp(x), lambda x: np.e ** x.astype(np.float64),
             rtol=1e-6, grad2=True),
    Case("Exp", lambda x: tf.exp(x), [np.array([0.0, 100.0, -200.0], np.float32)],
         lambda x: np.array([1.0, np.inf, 0.0], np.float32), id="overflow",
         bad_dtypes=[[np.int32]], grad=False),  # huge values swamp finite differences
    Case("Expm1", lambda x: tf.expm1(x), [np.array([1e-10, -1e-7, 1.0, -30.0])],
         np.vectorize(math.expm1), rtol=1e-12, bad_dtypes=[[np.int64]], grad2=True),
    *_floats("Log", lambda x: tf.log(x), lambda x: np.vectorize(math.log)(x).astype(x.dtype),
             inputs=(POS32, POS64), grad2=True),
    Case("Log", lambda x: tf.log(x), [np.array([0.0, -1.0, 1.0, np.inf])],
         lambda x: np.array([-np.inf, np.nan, 0.0, np.inf]), id="edges",
         bad_dtypes=[[np.int32]], grad=False),
    Case("Log1p", lambda x: tf.log1p(x), [np.array([1e-12, -0.5, 3.0, 1e-300])],
         np.vectorize(math.log1p), rtol=1e-12, grad2=True),
    Case("Log1p", lambda x: tf.log1p(x), [np.array([-1.0, -2.0], np.float32)],
         lambda x: np.array([-np.inf, np.nan], np.float32), id="edges", bad_dtypes=[[np.int32]],
         grad=False),
    *_floats("Sqrt", lambda x: tf.sqrt(x), lambda x: x ** 0.5, inputs=(POS32, POS64),
             grad2=True),
    Case("Sqrt", lambda x: tf.sqrt(x), [np.array([-1.0, 0.0, 4.0], np.float32)],
         lambda x: np.array([np.nan, 0.0, 2.0], np.float32), id="negative",
         bad_dtypes=[[np.int32]], grad=False),
    *_floats("Rsqrt", lambda x: tf.rsqrt(x), lambda x: 1 / x ** 0.5, inputs=(POS32, POS64),
             grad2=True),
    # rounding
    Case("Floor", lambda x: tf.floor(x), [HALVES], lambda x: np.array(
        [-3, -2, -1, 0, 1, 2, 3, 0], np.float32), bad_dtypes=[[np.int32]], grad="none"),
    Case("Ceil", lambda x: tf.ceil(x), [HALVES], lambda x: np.array(
        [-2, -1, -0.0, 1, 2, 3, 4, 1], np.float32), bad_dtypes=[[np.int32]], grad="none"),
    Case("Round", lambda x: tf.round(x), [HALVES], lambda x: np.array(
        [-2, -2, -0.0, 0, 2, 2, 4, 0], np.float32), grad="none"),
    Case("Round", lambda x: tf.round(x * 10.0), [np.array([[0.05, 0.15], [0.25, -0.35]])],
         lambda x: np.array([[0.0, 2.0], [2.0, -4.0]]), id="float64", grad="none"),
    Case("Rint", lambda x: tf.rint(x), [HALVES], lambda x: np.array(
        [-2, -2, -0.0, 0, 2, 2, 4, 0], np.float32), bad_dtypes=[[np.int32]], grad="none"),
    *_floats("Tanh", lambda x: tf.tanh(x), lambda x: np.vectorize(math.tanh)(x).astype(x.dtype),
             grad2=True),
    Case("Tanh", lambda x: tf.nn.tanh(x), [WIDE], np.vectorize(math.tanh), id="wide",
         bad_dtypes=[[np.int32]]),
    # sigmoid: stable and accurate in both tails
    *_floats("Sigmoid", lambda x: tf.sigmoid(x), lambda x: _sigmoid_ref(x).astype(x.dtype),
             grad2=True),
    Case("Sigmoid", lambda x: tf.nn.sigmoid(x), [WIDE], _sigmoid_ref, id="tails",
         rtol=1e-12, atol=0, bad_dtypes=[[np.int32]]),
    Case("Sigmoid", lambda x: tf.sigmoid(x), [WIDE.astype(np.float32)],
         lambda x: _sigmoid_ref(x).astype(np.float32), id="tails32", atol=0),
    Case("Sigmoid", lambda x: tf.sigmoid(x), [WIDE.astype(np.float16)],
         lambda x: _sigmoid_ref(x).astype(np.float16), id="half", rtol=1e-3, atol=0),
    # classification
    Case("IsNan", lambda x: tf.is_nan(x), [np.array([np.nan, 1.0, np.inf], np.float32)],
         lambda x: np.array([True, False, False]), bad_dtypes=[[np.int32]]),
    Case("IsInf", lambda x: tf.is_inf(x), [np.array([np.nan, -np.inf, np.inf, 0.0])],
         lambda x: np.array([False, True, True, False])),
    Case("IsFinite", lambda x: tf.is_finite(x), [np.array([np.nan, -np.inf, 2.0], np.float16)],
         lambda x: np.array([False, False, True])),
]

# ONNX lowering coverage: dtypes onnxruntime lacks kernels for, accuracy near 0, edges.
TINY = np.array([1e-30, -1e-20, 3e-8, -2e-5, 0.0, 0.3, -0.7])
I16 = np.array([-32768, -5, 0, 32767], np.int16)
EDGES64 = np.array([np.nan, -np.inf, np.inf, -0.0, 2.0, -3.0])

CASES += [
    Case("Neg", lambda x: tf.negative(x), [I8], lambda x: np.array([-128, 3, 0, -127], np.int8),
         id="int8_wraps"),
    Case("Neg", lambda x: tf.negative(x), [I16],
         lambda x: np.array([-32768, 5, 0, -32767], np.int16), id="int16"),
    Case("Abs", lambda x: tf.abs(x), [I16], lambda x: np.array([-32768, 5, 0, 32767], np.int16),
         id="int16"),
    Case("Abs", lambda x: tf.abs(x), [F32.astype(np.float16)],
         lambda x: np.where(x < 0, -x, x), id="half"),
    Case("Sign", lambda x: tf.sign(x), [I8], lambda x: np.array([-1, -1, 0, 1], np.int8),
         id="int8"),
    Case("Sign", lambda x: tf.sign(x), [EDGES64],
         lambda x: np.array([np.nan, -1.0, 1.0, 0.0, 1.0, -1.0]), id="edges", grad=False),
    Case("Square", lambda x: tf.square(x), [I16], lambda x: np.array([0, 25, 0, 1], np.int16),
         id="int16_wraps"),
    Case("Reciprocal", lambda x: tf.reciprocal(x), [np.array([1, -1, 3, -(2**40)], np.int64)],
         lambda x: np.array([1, -1, 0, 0], np.int64), id="int64"),
    Case("Reciprocal", lambda x: tf.reciprocal(x), [np.array([2.0, -0.25, 0.0], np.float16)],
         lambda x: np.array([0.5, -4.0, np.inf], np.float16), id="half", grad=False),
    Case("Round", lambda x: apply_op("Round", [x]), [I32], lambda x: x.copy(), id="int_op",
         grad=False),
    Case("Round", lambda x: tf.round(x), [HALVES.astype(np.float16)], lambda x: np.array(
        [-2, -2, -0.0, 0, 2, 2, 4, 0], np.float16), id="half", grad="none"),
    Case("Expm1", lambda x: tf.expm1(x), [TINY.astype(np.float32)],
         lambda x: np.vectorize(math.expm1)(x.astype(np.float64)).astype(np.float32), id="f32_tiny",
         grad=False),
    Case("Expm1", lambda x: tf.expm1(x), [np.array([-np.inf, np.inf, -800.0, 800.0, np.nan])],
         lambda x: np.array([-1.0, np.inf, -1.0, np.inf, np.nan]), id="edges", grad=False),
    Case("Expm1", lambda x: tf.expm1(x), [TINY.astype(np.float16)],
         lambda x: np.vectorize(math.expm1)(x.astype(np.float64)).astype(np.float16),
         id="half", rtol=1e-3, grad=False),
    Case("Log1p", lambda x: tf.log1p(x), [np.abs(TINY).astype(np.float32)],
         lambda x: np.vectorize(math.log1p)(x.astype(np.float64)).astype(np.float32), id="f32_tiny",
         grad=False),
    Case("Log1p", lambda x: tf.log1p(x), [np.array([np.inf, 1e300, -1.0, np.nan, -1e-300])],
         lambda x: np.array([np.inf, math.log(1e300), -np.inf, np.nan, -1e-300]), id="edges64",
         grad=False),
    Case("Exp", lambda x: tf.exp(x), [F32.astype(np.float16)],
         lambda x: (np.e ** x.astype(np.float64)).astype(np.float16), id="half", rtol=1e-3),
    Case("Log", lambda x: tf.log(x), [POS32.astype(np.float16)],
         lambda x: np.vectorize(math.log)(x.astype(np.float64)).astype(np.float16), id="half",
         rtol=1e-3, atol=1e-3),
    Case("Sqrt", lambda x: tf.sqrt(x), [POS32.astype(np.float16)],
         lambda x: (x.astype(np.float64) ** 0.5).astype(np.float16), id="half", rtol=1e-3),
    Case("Rsqrt", lambda x: tf.rsqrt(x), [np.array([4.0, 0.0, 0.25], np.float16)],
         lambda x: np.array([0.5, np.inf, 2.0], np.float16), id="half", grad=False),
    Case("Floor", lambda x: tf.floor(x), [EDGES64],
         lambda x: np.array([np.nan, -np.inf, np.inf, -0.0, 2.0, -3.0]), id="edges",
         grad="none"),
    Case("Tanh", lambda x: tf.tanh(x), [F32.astype(np.float16)],
         lambda x: np.vectorize(math.tanh)(x.astype(np.float64)).astype(np.float16), id="half",
         rtol=1e-3, atol=1e-3),
    Case("IsNan", lambda x: tf.is_nan(x), [EDGES64.astype(np.float16)],
         lambda x: np.array([True, False, False, False, False, False]), id="half"),
    Case("IsInf", lambda x: tf.is_inf(x), [EDGES64.astype(np.float16)],
         lambda x: np.array([False, True, True, False, False, False]), id="half"),
    Case("IsFinite", lambda x: tf.is_finite(x), [EDGES64],
         lambda x: np.array([False, False, False, True, True, True]), id="float64"),
    Case("IsFinite", lambda x: tf.is_finite(x), [np.array([[np.inf, 1e38], [np.nan, -3.0]],
                                                          np.float32)],
         lambda x: np.array([[False, True], [False, True]]), id="float32"),
]
