"""Cases for TF1's fused gradient kernels of unary math (math_unary_grad.py)."""

import numpy as np

from staticgraph.ops.math import unary_grad as math_unary_grad

from . import Case
from .math_unary_cases import DY32, F64, POS32, Y32

CASES = [
    # TF1's fused gradient kernels: (y, dy) -> gradient at the forward input
    Case("TanhGrad", lambda y, d: math_unary_grad.tanh_grad(y, d), [Y32, DY32],
         lambda y, d: d * (1 - y * y), bad=[[(2, 3), (3, 2)]],
         bad_dtypes=[[np.int32, np.int32], [np.float32, np.float64]], grad2=True),
    Case("TanhGrad", lambda y, d: math_unary_grad.tanh_grad(y, d),
         [np.float64(0.5), np.float64(2.0)],
         lambda y, d: np.float64(1.5), id="scalar"),
    Case("SigmoidGrad", lambda y, d: math_unary_grad.sigmoid_grad(y, d), [Y32, DY32],
         lambda y, d: d * y * (1 - y), bad=[[(2, 3), (2, 4)]],
         bad_dtypes=[[np.int64, np.int64]], grad2=True),
    Case("SigmoidGrad", lambda y, d: math_unary_grad.sigmoid_grad(y, d),
         [np.zeros((0, 2)), np.zeros((0, 2))], lambda y, d: np.zeros((0, 2)), id="empty"),
    Case("SqrtGrad", lambda y, d: math_unary_grad.sqrt_grad(y, d), [POS32, DY32.reshape(3, 2)],
         lambda y, d: d / (2 * y), bad=[[(3, 2), (2, 3)]], bad_dtypes=[[np.int32, np.int32]],
         grad2=True),
    Case("RsqrtGrad", lambda y, d: math_unary_grad.rsqrt_grad(y, d), [POS32, DY32.reshape(3, 2)],
         lambda y, d: -d * y ** 3 / 2, bad=[[(3, 2), (3,)]], grad2=True),
    Case("ReciprocalGrad", lambda y, d: math_unary_grad.reciprocal_grad(y, d),
         [F64, F64[::-1].copy()],
         lambda y, d: -d * y * y, bad=[[(4,), (5,)]], bad_dtypes=[[np.float16, np.float32]],
         grad2=True),
]
