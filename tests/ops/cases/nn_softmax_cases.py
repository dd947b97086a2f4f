"""Cases for Softmax and LogSoftmax (data from ``nn_activation_cases``)."""

import numpy as np

import staticgraph as tf

from . import Case
from .nn_activation_cases import EMPTY, F, F64, L3, L16, WIDE, _f

BIG = np.array([[1000.0, 999.0, -1000.0], [-1e30, 0.0, 1e30]], np.float32)


def ref_softmax(x, axis=-1):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_log_softmax(x, axis=-1):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


CASES = [
    # Softmax / LogSoftmax
    Case("Softmax", lambda x: tf.nn.softmax(x), [F], lambda x: _f(np.float32)(ref_softmax(x)),
         bad=[[()]], bad_dtypes=[[np.int32]], grad2=True),
    Case("Softmax", lambda x: tf.nn.softmax(x, axis=1), [L3],
         lambda x: _f(np.float32)(ref_softmax(x, 1)), id="axis1", grad2=True),
    Case("Softmax", lambda x: tf.nn.softmax(x, dim=-3), [L3],
         lambda x: _f(np.float32)(ref_softmax(x, 0)), id="dim_neg"),
    Case("Softmax", lambda x: tf.nn.softmax(x), [F64], lambda x: ref_softmax(x), id="float64",
         rtol=1e-12),
    Case("Softmax", lambda x: tf.nn.softmax(x), [L16],
         lambda x: _f(np.float16)(ref_softmax(x)), id="float16", rtol=2e-3, atol=1e-3),
    Case("Softmax", lambda x: tf.nn.softmax(x), [BIG], lambda x: _f(np.float32)(ref_softmax(x)),
         id="large", grad=False),  # huge inputs: finite differences are meaningless
    Case("Softmax", lambda x: tf.nn.softmax(x), [EMPTY], lambda x: x, id="empty"),
    Case("Softmax", lambda x: tf.nn.softmax(x), [WIDE[:3]],
         lambda x: _f(np.float32)(ref_softmax(x)), id="vector"),
    Case("LogSoftmax", lambda x: tf.nn.log_softmax(x), [F],
         lambda x: _f(np.float32)(ref_log_softmax(x)), bad=[[()]], bad_dtypes=[[np.int64]],
         grad2=True),
    Case("LogSoftmax", lambda x: tf.nn.log_softmax(x, axis=0), [L3],
         lambda x: _f(np.float32)(ref_log_softmax(x, 0)), id="axis0", grad2=True),
    Case("LogSoftmax", lambda x: tf.nn.log_softmax(x), [BIG],
         lambda x: _f(np.float32)(ref_log_softmax(x)), id="large", rtol=1e-5, atol=1e-3,
         grad=False),  # huge inputs: finite differences are meaningless
    Case("LogSoftmax", lambda x: tf.nn.log_softmax(x), [F64], ref_log_softmax, id="float64",
         rtol=1e-12),
]
