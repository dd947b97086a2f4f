"""Cases for the int helper ops of reduction gradients (reduction_grad.py)."""

import numpy as np

from staticgraph.ops.math.reduction_grad import reduced_shape
from staticgraph.ops.apply import apply_op

from . import Case

CASES = [
    Case("ReducedShape", lambda s, a: reduced_shape(s, a),
         [np.array([2, 3, 4], np.int32), np.array([0, -1], np.int32)],
         lambda s, a: np.array([1, 3, 1], np.int32), bad=[[(2, 3), (1,)]],
         bad_dtypes=[[np.float32, np.int32]]),
    Case("ReducedShape", lambda s, a: reduced_shape(s, a),
         [np.array([5, 2], np.int64), np.array(1, np.int64)],
         lambda s, a: np.array([5, 1], np.int64), id="scalar_axis_int64"),
    Case("ReductionPermutation",
         lambda s, a: apply_op("ReductionPermutation", [s, a]),
         [np.array([2, 3, 4, 5], np.int32), np.array([3, -3, 1], np.int32)],
         lambda s, a: [np.array([1, 3, 0, 2], np.int32), np.array([2, 0, 3, 1], np.int32)],
         bad=[[(2, 2), (1,)]]),
]
