"""Cases for the elementwise binary math ops (math_binary.py).

References are hand-written with numpy / Python's own arithmetic.
"""

import math
import operator

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(12)
A = R.standard_normal((2, 3)).astype(np.float32)
B = (R.random((3,)) + 0.5).astype(np.float32)
D = R.standard_normal((4, 1)) * 5
E = R.standard_normal((1, 3)) * 2 + 0.1
# integer operands with every sign combination, including exact divisions
IX = np.array([[-7, -6, 7, 6, 0, 1, -1, 13]], np.int32)
IY = np.array([[2], [-2], [3], [-3]], np.int32)
IX64 = np.array([-(2**40) - 1, 2**40 + 3, -5, 5], np.int64)
IY64 = np.array([3, -7, 3, -3], np.int64)
U8X = np.array([7, 200, 0, 255], np.uint8)
U8Y = np.array([2, 3, 5, 16], np.uint8)
I8X = np.array([-128, -7, 7, 127], np.int8)
I8Y = np.array([3, 2, -2, -3], np.int8)
FX = np.array([-7.5, -6.0, 7.5, 1.0, 0.0, 5.0], np.float32)
FY = np.array([2.0, -4.0, -2.0, 0.1, 3.0, 2.5], np.float32)
EMPTY = np.zeros((0, 3), np.float32)
# floor modulo away from the jumps of floor(x / y), broadcasting
MX = np.array([[-7.3, -5.9, 0.4], [2.2, 7.7, 4.1]])
MY = np.array([2.1, -1.7, 3.3])
# powers of non-positive bases: the log term of d/dy is 0 there, as in TF1
PX = np.array([0.0, -2.0, 1.5, 3.0])
PY = np.array([2.0, 3.0, 2.5, -1.0])
# narrow dtypes (onnxruntime lacks some of their kernels) and wrap-around
H1 = np.array([[0.5, -1.25, 3.0], [100.0, -0.1, 7.0]], np.float16)
H2 = np.array([1.5, 2.0, -0.75], np.float16)
I16X = np.array([[-32768, -7, 7, 300], [5, -300, 32767, 0]], np.int16)
I16Y = np.array([3, 2, -2, -7], np.int16)
# float remainders at infinities, zero divisors, signed zeros and NaN
RX = np.array([5.0, -5.0, 5.0, -5.0, np.inf, 3.0, -0.0, 0.0, np.nan, 7.5])
RY = np.array([np.inf, np.inf, -np.inf, -np.inf, 3.0, 0.0, 2.0, -2.0, 1.0, np.nan])
# atan2(y, x) in every quadrant and on the axes: signed zeros, infinities, NaN
AY = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.inf, -np.inf, np.nan,
               1.0, 0.0, 5e-324, 1e300, -2.0, 3.0, -1e-5, np.inf, 2.5])
AX = np.array([0.0, 0.0, -0.0, -0.0, 0.0, -0.0, 1.0, 1.0, -np.inf, np.inf, 1.0, np.nan,
               3.0, -1e-300, 1e-300, -3.0, -0.5, -4.0, np.inf, -np.inf])
_TINY32 = {5e-324: 1e-45, 1e300: 1e30, -1e-300: -1e-38, 1e-300: 1e-38}
AY32 = np.array([_TINY32.get(v, v) for v in AY.tolist()], np.float32)
AX32 = np.array([_TINY32.get(v, v) for v in AX.tolist()], np.float32)


def _pywise(fn, out_dtype=None):
    """Elementwise reference from Python scalars (broadcast first)."""
    def ref(x, y):
        xb, yb = np.broadcast_arrays(x, y)
        vals = [fn(a, b) for a, b in zip(xb.ravel().tolist(), yb.ravel().tolist())]
        return np.array(vals, dtype=out_dtype or x.dtype).reshape(xb.shape)
    return ref


def _c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _c_mod(a, b):
    return a - _c_div(a, b) * b


def _wrap(bits, signed=True):
    """Python ints wrapped to ``bits``-bit two's complement (numpy's integer overflow)."""
    def wrap(v):
        v %= 1 << bits
        return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v
    return wrap


def _py_mod(a, b):
    """Python's float %, with NaN where Python raises (division by zero)."""
    return math.nan if b == 0 else a % b


def _floor_of_quotient32(a, b):
    """TF1's float FloorDiv is floor(x / y) with x / y rounded to float32 (1 // 0.1 -> 10)."""
    return math.floor(np.float32(a / b))


CASES = [
    # more Add/Sub/Mul coverage: dtypes, scalars, empty tensors
    Case("Add", lambda x, y: tf.add(x, y), [IX64, IY64], _pywise(operator.add), id="int64"),
    Case("Add", lambda x, y: x + y, [EMPTY, B], lambda x, y: np.zeros((0, 3), np.float32),
         id="empty"),
    Case("Add", lambda x, y: tf.add(x, y), [D, E], _pywise(operator.add), id="f64_outer",
         grad2=True),
    Case("Sub", lambda x, y: tf.subtract(x, y), [E, D], _pywise(operator.sub), id="f64_outer",
         grad2=True),
    Case("Sub", lambda x, y: x - y, [U8X, U8Y], _pywise(lambda a, b: (a - b) % 256),
         id="uint8_wraps"),
    Case("Mul", lambda x, y: tf.multiply(x, y), [D, E], _pywise(operator.mul), id="f64_outer",
         bad=[[(4, 2), (1, 3)]], grad2=True),
    # true division: floats directly, integers cast first
    Case("RealDiv", lambda x, y: tf.realdiv(x, y), [A, B], _pywise(operator.truediv),
         bad=[[(2, 3), (2,)]], bad_dtypes=[[np.int32, np.int32], [np.float32, np.float64]],
         grad2=True),
    Case("RealDiv", lambda x, y: x / y, [D, E], _pywise(operator.truediv), id="operator"),
    Case("RealDiv", lambda x, y: tf.truediv(x, y), [IX, IY],
         _pywise(operator.truediv, np.float64), id="int32_to_float64"),
    Case("RealDiv", lambda x, y: tf.divide(x, y), [I8X, I8Y],
         _pywise(operator.truediv, np.float32), id="int8_to_float32", rtol=1e-6),
    Case("RealDiv", lambda x, y: tf.div(x, y), [FX, FY], _pywise(operator.truediv),
         id="div_float"),
    Case("RealDiv", lambda x: x / 0.0, [np.array([1.0, -1.0, 0.0], np.float32)],
         lambda x: np.array([np.inf, -np.inf, np.nan], np.float32), id="by_zero", grad=False),
    # floor division: Python semantics for ints, floor(x / y) for floats
    Case("FloorDiv", lambda x, y: tf.floordiv(x, y), [IX, IY], _pywise(operator.floordiv),
         bad=[[(1, 8), (3, 2)]], bad_dtypes=[[np.bool_, np.bool_], [np.int32, np.int64]]),
    Case("FloorDiv", lambda x, y: x // y, [IX64, IY64], _pywise(operator.floordiv),
         id="int64"),
    Case("FloorDiv", lambda x, y: tf.floor_div(x, y), [U8X, U8Y], _pywise(operator.floordiv),
         id="uint8"),
    Case("FloorDiv", lambda x, y: x // y, [I8X, I8Y], _pywise(operator.floordiv), id="int8"),
    Case("FloorDiv", lambda x, y: tf.floordiv(x, y), [FX, FY], _pywise(_floor_of_quotient32),
         id="float", grad="none"),
    Case("FloorDiv", lambda x, y: tf.div(x, y), [IX, IY], _pywise(operator.floordiv),
         id="div_int"),
    # floor modulo: Python's %, sign of the divisor
    Case("FloorMod", lambda x, y: tf.floormod(x, y), [IX, IY], _pywise(operator.mod),
         bad=[[(1, 8), (3, 2)]], bad_dtypes=[[np.bool_, np.bool_]]),
    Case("FloorMod", lambda x, y: x % y, [IX64, IY64], _pywise(operator.mod), id="int64"),
    Case("FloorMod", lambda x, y: tf.mod(x, y), [FX, FY], _pywise(operator.mod), id="float",
         atol=1e-5, grad=False),  # inputs sit on the jumps of floor(x / y)
    Case("FloorMod", lambda x, y: tf.floormod(x, y), [MX, MY], _pywise(operator.mod),
         id="float_broadcast", grad2=True),
    Case("FloorMod", lambda x, y: x % y, [U8X, U8Y], _pywise(operator.mod), id="uint8"),
    # truncating division and modulo: C semantics
    Case("TruncateDiv", lambda x, y: tf.truncatediv(x, y), [IX, IY], _pywise(_c_div),
         bad=[[(1, 8), (3, 2)]], bad_dtypes=[[np.float32, np.float32]]),
    Case("TruncateDiv", lambda x, y: tf.truncatediv(x, y), [IX64, IY64], _pywise(_c_div),
         id="int64"),
    Case("TruncateDiv", lambda x, y: tf.truncatediv(x, y), [I8X, I8Y], _pywise(_c_div),
         id="int8"),
    Case("TruncateDiv", lambda x, y: tf.truncatediv(x, y), [U8X, U8Y], _pywise(_c_div),
         id="uint8"),
    Case("TruncateMod", lambda x, y: tf.truncatemod(x, y), [IX, IY], _pywise(_c_mod),
         bad=[[(1, 8), (3, 2)]]),
    Case("TruncateMod", lambda x, y: tf.truncatemod(x, y), [FX, FY], _pywise(math.fmod),
         id="float", atol=1e-5),
    # powers
    Case("Pow", lambda x, y: tf.pow(x, y), [np.abs(A) + 0.1, B], _pywise(operator.pow),
         bad=[[(2, 3), (4,)]], bad_dtypes=[[np.float32, np.int32]], grad2=True),
    Case("Pow", lambda x, y: x ** y, [PX, PY], _pywise(operator.pow), id="nonpositive_base",
         grad_inputs=[0]),  # d/dy of (-2) ** y is nan by differences (TF1 gives 0: test_math)
    Case("Pow", lambda x, y: x ** y, [np.array([[2, -3, 0, 1]], np.int32),
                                      np.array([[0], [1], [3]], np.int32)],
         _pywise(operator.pow), id="int"),
    Case("Pow", lambda x: 2.0 ** x, [np.array([0.5, 3.0, -1.0], np.float32)],
         lambda x: np.array([math.sqrt(2), 8.0, 0.5], np.float32), id="python_base"),
    Case("Pow", lambda x: tf.pow(x, 0.5), [np.array([-1.0, 4.0])],
         lambda x: np.array([np.nan, 2.0]), id="nan", grad=False),
    # max / min / squared difference
    Case("Maximum", lambda x, y: tf.maximum(x, y), [D, E], _pywise(max),
         bad=[[(4, 2), (1, 3)]], bad_dtypes=[[np.bool_, np.bool_]], grad2=True),
    Case("Maximum", lambda x: tf.maximum(x, 0), [IX], lambda x: np.where(x > 0, x, 0),
         id="int_scalar"),
    Case("Minimum", lambda x, y: tf.minimum(x, y), [IX, IY], _pywise(min),
         bad=[[(1, 8), (3, 2)]]),
    Case("Minimum", lambda x, y: tf.minimum(x, y), [A, B], _pywise(min), id="float", grad2=True),
    Case("SquaredDifference", lambda x, y: tf.squared_difference(x, y), [A, B],
         _pywise(lambda a, b: (a - b) ** 2), bad=[[(2, 3), (2,)]],
         bad_dtypes=[[np.uint8, np.uint8]], grad2=True),
    Case("SquaredDifference", lambda x, y: tf.squared_difference(x, y), [IX, IY],
         _pywise(lambda a, b: (a - b) ** 2), id="int"),
    # division returning 0 where the divisor is 0
    Case("DivNoNan", lambda x, y: tf.div_no_nan(x, y),
         [np.array([[1.0, -2.0, 0.0]], np.float32), np.array([[0.0], [4.0]], np.float32)],
         lambda x, y: np.array([[0, 0, 0], [0.25, -0.5, 0]], np.float32),
         bad=[[(1, 3), (2, 2)]], bad_dtypes=[[np.int32, np.int32]],
         grad=False),  # finite differences jump across y = 0
    Case("DivNoNan", lambda x, y: tf.div_no_nan(x, y), [D, E], _pywise(operator.truediv),
         id="f64", grad2=True),
    Case("Atan2", lambda y, x: tf.atan2(y, x), [D, E], _pywise(math.atan2),
         bad=[[(4, 2), (1, 3)]], bad_dtypes=[[np.int32, np.int32]], grad2=True),
    # any number of same-shape tensors
    Case("AddN", lambda x, y, z: tf.add_n([x, y, z]), [A, A * 2, -A],
         lambda x, y, z: x + y + z, bad=[[(2, 3), (2, 3), (3, 2)], [(2, 3), (2, 3), (3,)]],
         bad_dtypes=[[np.float32, np.float32, np.float64]], grad2=True),
    Case("AddN", lambda x, y: tf.add_n([x, y]), [IX64, IY64], _pywise(operator.add),
         id="int64_two"),
    Case("AddN", lambda x: tf.add_n([x, x, x, x]), [np.float64(1.5)],
         lambda x: np.float64(6.0), id="scalar"),
    # ---- narrow dtypes, wrap-around and edge values (ONNX lowerings)
    Case("Add", lambda x, y: x + y, [H1, H2], _pywise(operator.add), id="float16", rtol=1e-3,
         grad=False),
    Case("Add", lambda x, y: x + y, [I8X, I8Y], _pywise(lambda a, b: _wrap(8)(a + b)),
         id="int8_wraps"),
    Case("Sub", lambda x, y: x - y, [I16X, I16Y], _pywise(lambda a, b: _wrap(16)(a - b)),
         id="int16_wraps"),
    Case("Sub", lambda x, y: x - y, [H1, H2], _pywise(operator.sub), id="float16", rtol=1e-3,
         grad=False),
    Case("Mul", lambda x, y: x * y, [U8X, U8Y], _pywise(lambda a, b: a * b % 256),
         id="uint8_wraps"),
    Case("Mul", lambda x, y: x * y, [I16X, I16Y], _pywise(lambda a, b: _wrap(16)(a * b)),
         id="int16_wraps"),
    Case("Mul", lambda x, y: x * y, [H1, H2], _pywise(operator.mul), id="float16", rtol=1e-3,
         grad=False),
    Case("RealDiv", lambda x, y: x / y, [H1, H2], _pywise(operator.truediv), id="float16",
         rtol=1e-3, grad=False),
    Case("FloorDiv", lambda x, y: x // y, [I16X, I16Y], _pywise(operator.floordiv),
         id="int16"),
    Case("FloorDiv", lambda x, y: x // y, [H1, H2], _pywise(lambda a, b: math.floor(a / b)),
         id="float16", grad=False),
    Case("FloorDiv", lambda x, y: x // y,
         [np.array([1.0, -1.0, 0.0, -7.0]), np.array([0.0, 0.0, 0.0, np.inf])],
         lambda x, y: np.array([np.inf, -np.inf, np.nan, -0.0]), id="float_by_zero",
         grad=False),
    Case("FloorMod", lambda x, y: x % y, [I8X, I8Y], _pywise(operator.mod), id="int8"),
    Case("FloorMod", lambda x, y: x % y, [I16X, I16Y], _pywise(operator.mod), id="int16"),
    Case("FloorMod", lambda x, y: x % y, [H1, H2], _pywise(operator.mod), id="float16",
         rtol=1e-3, grad=False),
    Case("FloorMod", lambda x, y: x % y, [RX, RY], _pywise(_py_mod), id="float_edges",
         grad=False),
    Case("TruncateDiv", lambda x, y: tf.truncatediv(x, y), [I16X, I16Y], _pywise(_c_div),
         id="int16"),
    Case("TruncateMod", lambda x, y: tf.truncatemod(x, y), [I8X, I8Y], _pywise(_c_mod),
         id="int8"),
    Case("TruncateMod", lambda x, y: tf.truncatemod(x, y), [U8X, U8Y], _pywise(_c_mod),
         id="uint8"),
    Case("TruncateMod", lambda x, y: tf.truncatemod(x, y), [IX64, IY64], _pywise(_c_mod),
         id="int64"),
    Case("TruncateMod", lambda x, y: tf.truncatemod(x, y), [H1, H2], _pywise(math.fmod),
         id="float16", rtol=1e-3),
    Case("Pow", lambda x, y: x ** y, [np.array([2, -3, 0, 1, 5], np.int8),
                                      np.array([3, 3, 0, 7, 4], np.int8)],
         _pywise(lambda a, b: _wrap(8)(a ** b)), id="int8_wraps"),
    Case("Pow", lambda x, y: x ** y, [np.array([3, -7, 2], np.int64),
                                      np.array([30, 17, 52], np.int64)],
         _pywise(operator.pow), id="int64"),
    Case("Pow", lambda x, y: x ** y, [np.array([3, 7, 2], np.int32),
                                      np.array([21, 13, 31], np.int32)],
         _pywise(lambda a, b: _wrap(32)(a ** b)), id="int32_wraps"),
    Case("Pow", lambda x, y: x ** y, [np.abs(H1) + np.float16(0.5), H2], _pywise(operator.pow),
         id="float16", rtol=2e-3, grad=False),
    Case("Maximum", lambda x, y: tf.maximum(x, y), [I16X, I16Y], _pywise(max), id="int16"),
    Case("Maximum", lambda x, y: tf.maximum(x, y), [I8X, I8Y], _pywise(max), id="int8"),
    Case("Maximum", lambda x, y: tf.maximum(x, y),
         [np.array([np.nan, 1.0, 2.0], np.float32), np.array([0.0, np.nan, 1.0], np.float32)],
         lambda x, y: np.array([np.nan, np.nan, 2.0], np.float32), id="nan", grad=False),
    Case("Minimum", lambda x, y: tf.minimum(x, y), [I16X, I16Y], _pywise(min), id="int16"),
    Case("Minimum", lambda x, y: tf.minimum(x, y), [U8X, U8Y], _pywise(min), id="uint8"),
    Case("Minimum", lambda x, y: tf.minimum(x, y), [H1, H2], _pywise(min), id="float16",
         grad=False),
    Case("SquaredDifference", lambda x, y: tf.squared_difference(x, y), [I8X, I8Y],
         _pywise(lambda a, b: _wrap(8)((_wrap(8)(a - b)) ** 2)), id="int8_wraps"),
    Case("SquaredDifference", lambda x, y: tf.squared_difference(x, y), [H1, H2],
         _pywise(lambda a, b: (a - b) ** 2), id="float16", rtol=1e-3, grad=False),
    Case("DivNoNan", lambda x, y: tf.div_no_nan(x, y),
         [np.array([np.nan, 1.0, np.inf, 3.0]), np.array([0.0, -0.0, 0.0, -2.0])],
         lambda x, y: np.array([0.0, 0.0, 0.0, -1.5]), id="zero_divisors", grad=False),
    Case("DivNoNan", lambda x, y: tf.div_no_nan(x, y), [H1, np.array([[0.0], [2.0]], np.float16)],
         lambda x, y: np.array([[0, 0, 0], [50.0, -0.05, 3.5]], np.float16), id="float16",
         rtol=1e-3, grad=False),
    Case("Atan2", lambda y, x: tf.atan2(y, x), [AY, AX], _pywise(math.atan2), id="edges",
         grad=False),
    Case("Atan2", lambda y, x: tf.atan2(y, x), [A, B - 0.9], _pywise(math.atan2), id="float32",
         grad=False),
    Case("Atan2", lambda y, x: tf.atan2(y, x), [AY32, AX32],
         _pywise(math.atan2), id="float32_edges", grad=False),
    Case("Atan2", lambda y, x: tf.atan2(y, x), [H1, H2], _pywise(math.atan2), id="float16",
         rtol=1e-3, grad=False),
    Case("AddN", lambda x, y, z: tf.add_n([x, y, z]), [I16X, I16X, I16X],
         lambda x, y, z: _pywise(lambda a, b: _wrap(16)(3 * a))(x, y), id="int16_wraps"),
    Case("AddN", lambda x, y: tf.add_n([x, y]), [H1, -H1 / 2], lambda x, y: x / 2,
         id="float16", grad=False),
]
