"""Cases for the trigonometric and hyperbolic ops (math_trig.py).

References are written with numpy / the ``math`` module independently of the kernels.
"""

import math

import numpy as np

import staticgraph as tf

from . import Case
from .math_unary_cases import F32, F64, POS64, UNIT64, _floats

CASES = [
    # trigonometric and hyperbolic
    *_floats("Sin", lambda x: tf.sin(x), lambda x: np.vectorize(math.sin)(x).astype(x.dtype),
             grad2=True),
    *_floats("Cos", lambda x: tf.cos(x), lambda x: np.vectorize(math.cos)(x).astype(x.dtype),
             grad2=True),
    *_floats("Tan", lambda x: tf.tan(x), lambda x: np.vectorize(math.tan)(x).astype(x.dtype),
             inputs=(UNIT64,), grad2=True),
    Case("Asin", lambda x: tf.asin(x), [UNIT64], np.vectorize(math.asin),
         bad_dtypes=[[np.int32]], grad2=True),
    Case("Acos", lambda x: tf.acos(x), [UNIT64], np.vectorize(math.acos), grad2=True),
    Case("Atan", lambda x: tf.atan(x), [F64], np.vectorize(math.atan), grad2=True),
    Case("Sinh", lambda x: tf.sinh(x), [F64], lambda x: (np.e ** x - np.e ** -x) / 2,
         grad2=True),
    Case("Cosh", lambda x: tf.cosh(x), [F32], lambda x: ((np.e ** x + np.e ** -x) / 2
                                                         ).astype(np.float32), grad2=True),
    Case("Asinh", lambda x: tf.asinh(x), [F64], np.vectorize(math.asinh), grad2=True),
    Case("Acosh", lambda x: tf.acosh(x), [POS64 + 1], np.vectorize(math.acosh), grad2=True),
    Case("Atanh", lambda x: tf.atanh(x), [UNIT64], np.vectorize(math.atanh), grad2=True),
]

# ONNX lowering coverage: float16 (onnxruntime kernels) and float64 edges (onnxruntime has
# no float64 kernels for these: the lowerings build accurate float64 formulations).
H16 = (UNIT64 * 0.9).astype(np.float16)
_vec = np.vectorize


def _half(fn):
    return lambda x: _vec(fn)(x.astype(np.float64)).astype(np.float16)


CASES += [
    *[Case(t, f, [H16], _half(ref), id="half", rtol=2e-3, atol=1e-3, grad=False)
      for t, f, ref in [("Sin", tf.sin, math.sin), ("Cos", tf.cos, math.cos),
                        ("Tan", tf.tan, math.tan), ("Asin", tf.asin, math.asin),
                        ("Acos", tf.acos, math.acos), ("Atan", tf.atan, math.atan),
                        ("Sinh", tf.sinh, math.sinh), ("Cosh", tf.cosh, math.cosh),
                        ("Asinh", tf.asinh, math.asinh), ("Atanh", tf.atanh, math.atanh)]],
    Case("Acosh", lambda x: tf.acosh(x), [(POS64[:3] + 1).astype(np.float16)],
         _half(math.acosh), id="half", rtol=2e-3, atol=1e-3, grad=False),
    Case("Tan", lambda x: tf.tan(x), [F32], lambda x: _vec(math.tan)(x).astype(np.float32),
         id="f32"),
    Case("Atan", lambda x: tf.atan(x), [np.array([np.inf, -np.inf, 1e300, -1e-300, 0.0, 1.0,
                                                  -7.5, np.nan])],
         lambda x: np.array([math.pi / 2, -math.pi / 2, math.pi / 2, -1e-300, 0.0,
                             math.pi / 4, math.atan(-7.5), np.nan]), id="edges", grad=False),
    Case("Asin", lambda x: tf.asin(x), [np.array([1.0, -1.0, 1e-20, 0.5, 1.5, np.nan])],
         lambda x: np.array([math.pi / 2, -math.pi / 2, 1e-20, math.pi / 6, np.nan, np.nan]),
         id="edges", grad=False),
    Case("Acos", lambda x: tf.acos(x), [np.array([1.0, -1.0, 0.0, 0.5, -1.5])],
         lambda x: np.array([0.0, math.pi, math.pi / 2, math.pi / 3, np.nan]), id="edges",
         grad=False),
    Case("Sinh", lambda x: tf.sinh(x), [np.array([1e-12, -3e-9, 0.0, 700.0, -np.inf])],
         lambda x: np.array([1e-12, -3e-9, 0.0, math.sinh(700.0), -np.inf]), id="edges",
         grad=False),
    Case("Cosh", lambda x: tf.cosh(x), [np.array([0.0, 1e-9, -700.0, 710.0, np.inf])],
         lambda x: np.array([1.0, 1.0, math.cosh(700.0), math.cosh(710.0), np.inf]),
         id="edges64", grad=False),
    Case("Asinh", lambda x: tf.asinh(x), [np.array([1e-15, -2e-8, 0.0, 1e200, -np.inf])],
         lambda x: np.array([1e-15, -2e-8, 0.0, math.asinh(1e200), -np.inf]), id="edges",
         grad=False),
    Case("Acosh", lambda x: tf.acosh(x), [np.array([1.0, 1 + 2**-40, 1e200, np.inf, 0.5])],
         lambda x: np.array([0.0, math.acosh(1 + 2**-40), math.acosh(1e200), np.inf, np.nan]),
         id="edges", grad=False),
    Case("Atanh", lambda x: tf.atanh(x), [np.array([1.0, -1.0, 1e-17, -0.5, 2.0])],
         lambda x: np.array([np.inf, -np.inf, 1e-17, math.atanh(-0.5), np.nan]), id="edges",
         grad=False),
]
