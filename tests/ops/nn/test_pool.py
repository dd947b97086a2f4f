"""TF1 behaviour of max_pool / avg_pool padding beyond the generic cases (their gradients:
``test_nn_pool_grad``)."""

import numpy as np

import staticgraph as tf

from ...helpers import run


# ------------------------------------------------------------------ padding rules
def test_avg_pool_same_divides_by_valid_count():
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    got = run(tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"))[0, :, :, 0]
    np.testing.assert_allclose(got, [[3.0, 4.5], [7.5, 9.0]])
    ones = run(tf.nn.avg_pool(np.ones((1, 5, 5, 1), np.float32), 3, 2, "SAME"))
    np.testing.assert_allclose(ones, 1.0)


def test_max_pool_same_padding_never_wins():
    x = -np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    got = run(tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"))[0, :, :, 0]
    np.testing.assert_array_equal(got, [[-1, -3], [-7, -9]])
    xi = x.astype(np.int64)
    got = run(tf.nn.max_pool(xi, 2, 2, "SAME"))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got[0, :, :, 0], [[-1, -3], [-7, -9]])
