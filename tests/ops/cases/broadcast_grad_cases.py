"""Cases for SumToShape, the gradient engine's broadcast reduction."""

import numpy as np

from staticgraph.ops.math.broadcast_grad import sum_to_shape

from . import Case, rng

R = rng(21)
G = R.standard_normal((2, 3, 4)).astype(np.float32)


def _sum_to(g, shape):
    """Hand-written reference: sum leading axes, then axes where shape has 1."""
    out = g
    while out.ndim > len(shape):
        out = out.sum(axis=0)
    for i, d in enumerate(shape):
        if d == 1 and out.shape[i] != 1:
            out = out.sum(axis=i, keepdims=True)
    return out


CASES = [
    Case("SumToShape", lambda g: sum_to_shape(g, [3, 4]), [G], lambda g: _sum_to(g, (3, 4)),
         grad2=True),
    Case("SumToShape", lambda g: sum_to_shape(g, [1, 4]), [G], lambda g: _sum_to(g, (1, 4)),
         id="keep_one"),
    Case("SumToShape", lambda g: sum_to_shape(g, [2, 1, 4]), [G],
         lambda g: _sum_to(g, (2, 1, 4)), id="middle"),
    Case("SumToShape", lambda g: sum_to_shape(g, [2, 3, 4]), [G], lambda g: g, id="same"),
    Case("SumToShape", lambda g: sum_to_shape(g, []), [G], lambda g: np.float32(g.sum()),
         id="scalar", rtol=1e-5, atol=1e-5),
    # a shape computed at run time (static variant only: with an unknown-length shape
    # the result's rank is unknown, which an ONNX graph output cannot declare)
    Case("SumToShape", lambda g, s: sum_to_shape(g, s), [G, np.array([1, 4], np.int32)],
         lambda g, s: _sum_to(g, (1, 4)), id="computed_shape", dynamic=False),
    Case("SumToShape", lambda g, s: sum_to_shape(g, s), [G, np.array([2, 3, 4], np.int32)],
         lambda g, s: g, id="computed_same", dynamic=False),
]
