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
