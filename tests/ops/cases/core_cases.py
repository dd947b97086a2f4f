"""Cases for the core ops: Const, Identity, PlaceholderWithDefault and Add/Sub/Mul."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(1)
A = R.standard_normal((2, 3)).astype(np.float32)
B = R.standard_normal((3,)).astype(np.float32)
I = R.integers(-5, 5, (4, 1)).astype(np.int32)
J = R.integers(-5, 5, (3,)).astype(np.int32)

CASES = [
    Case("Const", lambda x: x + tf.constant([[1.0, 2.0, 3.0]]), [A],
         lambda x: x + np.array([[1.0, 2.0, 3.0]], np.float32)),
    Case("Identity", lambda x: tf.identity(x), [A], lambda x: x),
    Case("PlaceholderWithDefault",
         lambda x: tf.placeholder_with_default(x, [None, 3]) * 2.0, [A], lambda x: x * 2),
    Case("Add", lambda x, y: tf.add(x, y), [A, B], lambda x, y: x + y, bad=[[(2, 3), (4,)]],
         bad_dtypes=[[np.float32, np.int32]]),
    Case("Add", lambda x, y: x + y, [I, J], lambda x, y: x + y, id="int_broadcast"),
    Case("Sub", lambda x, y: tf.subtract(x, y), [A, B], lambda x, y: x - y,
         bad=[[(2, 3), (2,)]]),
    Case("Mul", lambda x, y: x * y, [A, B], lambda x, y: x * y, bad=[[(2, 3), (5, 3)]]),
    Case("Mul", lambda x: 3 * x, [I], lambda x: 3 * x, id="scalar"),
]
