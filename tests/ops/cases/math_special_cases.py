"""Cases for the error functions erf and erfc (math_special.py).

References come from the ``math`` module, independently of the kernels.
"""

import math

import numpy as np

import staticgraph as tf

from . import Case
from .math_unary_cases import F32, F64, SCALAR

ERF_X = np.concatenate([np.linspace(-6.5, 6.5, 53), [0.0, 1e-8, -1e-300, 2.4999, 2.5, 2.5001,
                                                     np.inf, -np.inf]])

_erf_ref = np.vectorize(math.erf, otypes=[np.float64])
_erfc_ref = np.vectorize(math.erfc, otypes=[np.float64])

# onnxruntime has no float64 Erf kernel and ONNX no Erfc: the exported float64 models
# compute erf (and erfc = 1 - erf) in float32, about 1e-7 absolute accuracy.
_F32_ERF = {"onnx_rtol": 1e-6, "onnx_atol": 1e-7}

CASES = [
    # error functions: float64 accuracy
    Case("Erf", lambda x: tf.erf(x), [ERF_X], _erf_ref, rtol=1e-13, atol=1e-15,
         bad_dtypes=[[np.int32]], **_F32_ERF),
    Case("Erf", lambda x: tf.erf(x), [F32], lambda x: _erf_ref(x).astype(np.float32), id="f32",
         grad2=True),
    Case("Erf", lambda x: tf.erf(x), [SCALAR], lambda x: np.float32(math.erf(-2.5)),
         id="scalar"),
    Case("Erfc", lambda x: tf.erfc(x), [ERF_X], _erfc_ref, rtol=1e-12, atol=0, **_F32_ERF),
    Case("Erfc", lambda x: tf.erfc(x), [np.array([10.0, 20.0, 26.0])], _erfc_ref, id="tail",
         rtol=1e-12, atol=0, bad_dtypes=[[np.int64]], **_F32_ERF),
    Case("Erfc", lambda x: tf.erfc(x), [F64], _erfc_ref, id="f64", grad2=True,
         **_F32_ERF),
]
