"""Cases for the array creation ops: Fill, ZerosLike, Range, LinSpace.
References are written with plain numpy."""

import numpy as np

import staticgraph as tf

from . import Case
from .array_shape_cases import B23, F23, I23, I3, S, f32, i32


CASES = [
    # Fill / ZerosLike
    Case("Fill", lambda d, v: tf.fill(d, v), [i32([2, 3]), S],
         lambda d, v: np.array([[v] * 3] * 2, np.float32),
         bad=[[(2,), (2,)], [(2, 1), ()]], bad_dtypes=[[np.float32, np.float32]], grad2=True),
    Case("Fill", lambda v: tf.fill([3, 1], v), [np.int32(-4)],
         lambda v: np.array([[-4], [-4], [-4]], np.int32), id="const_dims"),
    Case("Fill", lambda x: tf.zeros(tf.shape(x), tf.int32), [F23],
         lambda x: np.zeros((2, 3), np.int32), id="zeros_of_shape", grad=False),  # int output
    Case("Fill", lambda x: tf.ones_like(x, optimize=False) * 3.0, [F23],
         lambda x: np.full((2, 3), 3.0, np.float32), id="ones_like_float", grad="none"),
    Case("Fill", lambda x: tf.ones_like(x, optimize=False), [I23],
         lambda x: np.ones((2, 3), np.int32), id="ones_like"),
    Case("ZerosLike", lambda x: tf.zeros_like(x, optimize=False), [F23],
         lambda x: np.zeros((2, 3), np.float32), grad="none"),
    Case("ZerosLike", lambda x: tf.zeros_like(x, optimize=False), [B23],
         lambda x: np.zeros((2, 3), bool), id="bool"),
    Case("ZerosLike", lambda x: tf.zeros_like(x, optimize=False), [I23.astype(np.int64)],
         lambda x: np.zeros((2, 3), np.int64), id="int64"),
    Case("Fill", lambda d, v: tf.fill(d, v), [i32([2, 2]), np.bool_(True)],
         lambda d, v: np.array([[True, True], [True, True]]), id="bool"),
    # Range / LinSpace
    Case("Range", lambda s, l, d: tf.range(s, l, d), [np.int32(3), np.int32(18), np.int32(4)],
         lambda s, l, d: i32([3, 7, 11, 15]), bad=[[(2,), (), ()]]),
    Case("Range", lambda s, l, d: tf.range(s, l, d), [np.int64(5), np.int64(-2), np.int64(-3)],
         lambda s, l, d: np.array([5, 2, -1], np.int64), id="negative_delta"),
    Case("Range", lambda s, l, d: tf.range(s, l, d), [f32(1.0), f32(2.25), f32(0.5)],
         lambda s, l, d: f32([1.0, 1.5, 2.0]), id="float", grad="none"),
    Case("Range", lambda s, l, d: tf.range(s, l, d),
         [np.float64(-1.0), np.float64(1.0), np.float64(0.3)],
         lambda s, l, d: np.array([-1.0 + 0.3 * i for i in range(7)]), id="float64",
         grad="none"),
    Case("Range", lambda s: tf.range(s), [np.int32(0)], lambda s: np.zeros((0,), np.int32),
         id="empty"),
    Case("Range", lambda x: tf.range(4) + x, [I3[:1]], lambda x: i32([0, 1, 2, 3]) + x,
         id="const"),
    Case("LinSpace", lambda a, b, n: tf.lin_space(a, b, n), [f32(10.0), f32(12.0), np.int32(5)],
         lambda a, b, n: f32([10.0, 10.5, 11.0, 11.5, 12.0]), bad=[[(), (2,), ()]],
         bad_dtypes=[[np.int32, np.int32, np.int32]], grad="none"),
    Case("LinSpace", lambda a, b, n: tf.linspace(a, b, n),
         [np.float64(1.0), np.float64(-1.0), np.int64(1)],
         lambda a, b, n: np.array([1.0]), id="one_float64", grad="none"),
    Case("LinSpace", lambda a, b, n: tf.linspace(a, b, n),
         [np.float64(-2.0), np.float64(1.0), np.int64(4)],
         lambda a, b, n: np.array([-2.0, -1.0, 0.0, 1.0]), id="float64", grad="none"),
]
