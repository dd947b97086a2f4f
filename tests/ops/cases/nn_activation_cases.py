"""Cases for the activations: Relu, Relu6, Elu, Selu, Softplus, Softsign, LeakyRelu,
BiasAdd. Softmax and LogSoftmax are in ``nn_softmax_cases``, the fused gradient ops
in ``nn_activation_grad_cases`` (both use this module's data)."""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(7)
F = R.standard_normal((3, 4)).astype(np.float32) * 3
F64 = R.standard_normal((2, 3, 2)) * 3
WIDE = np.array([-100.0, -20.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 20.0, 100.0], np.float32)
I32 = R.integers(-9, 9, (2, 5)).astype(np.int32)
I8 = np.array([-128, -3, 0, 5, 7, 127], np.int8)
U8 = np.array([0, 3, 6, 7, 255], np.uint8)
EMPTY = np.zeros((0, 3), np.float32)
SCALAR = np.array(-2.5, np.float32)
L3 = R.standard_normal((2, 3, 4)).astype(np.float32) * 4
L16 = R.standard_normal((3, 5)).astype(np.float16)
IMG = R.standard_normal((2, 3, 4, 5)).astype(np.float32)

ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946
DY = R.standard_normal((3, 4)).astype(np.float32)
DY64 = R.standard_normal((3, 2))
DY3 = R.standard_normal((2, 3, 2))


def ref_softplus(x):
    x = x.astype(np.float64)
    return np.where(x > 0, x + np.log1p(np.exp(-np.abs(x))), np.log1p(np.exp(np.minimum(x, 0))))


def ref_elu(x):
    x = x.astype(np.float64)
    return np.where(x > 0, x, np.exp(np.minimum(x, 0)) - 1)


def _f(dtype):
    return lambda v: np.asarray(v).astype(dtype)


CASES = [
    # Relu
    Case("Relu", lambda x: tf.nn.relu(x), [F], lambda x: np.where(x > 0, x, 0).astype(np.float32),
         bad_dtypes=[[np.bool_]]),
    Case("Relu", lambda x: tf.nn.relu(x), [I32], lambda x: np.where(x > 0, x, 0).astype(np.int32),
         id="int32"),
    Case("Relu", lambda x: tf.nn.relu(x), [I8], lambda x: np.where(x > 0, x, 0).astype(np.int8),
         id="int8"),
    # int16 and uint8: onnxruntime has no Relu/Clip kernel (onnx_support.LACKS): int32
    Case("Relu", lambda x: tf.nn.relu(x), [I8.astype(np.int16) * 200],
         lambda x: np.where(x > 0, x, 0).astype(np.int16), id="int16"),
    Case("Relu", lambda x: tf.nn.relu(x), [U8], lambda x: x, id="uint8"),
    Case("Relu", lambda x: tf.nn.relu(x), [SCALAR], lambda x: np.float32(0.0), id="scalar"),
    Case("Relu", lambda x: tf.nn.relu(x), [EMPTY], lambda x: x, id="empty"),
    # Relu6
    Case("Relu6", lambda x: tf.nn.relu6(x), [F * 3],
         lambda x: np.array([[min(max(v, 0), 6) for v in r] for r in x], np.float32)),
    Case("Relu6", lambda x: tf.nn.relu6(x), [I8],
         lambda x: np.array([0, 0, 0, 5, 6, 6], np.int8), id="int8"),
    Case("Relu6", lambda x: tf.nn.relu6(x), [U8],
         lambda x: np.array([0, 3, 6, 6, 6], np.uint8), id="uint8"),
    Case("Relu6", lambda x: tf.nn.relu6(x), [I8.astype(np.int16) * 200],
         lambda x: np.clip(x, 0, 6).astype(np.int16), id="int16"),
    # Elu / Selu
    Case("Elu", lambda x: tf.nn.elu(x), [WIDE], lambda x: ref_elu(x).astype(np.float32),
         bad_dtypes=[[np.int32]]),
    Case("Elu", lambda x: tf.nn.elu(x), [F64], ref_elu, id="float64", grad2=True),
    Case("Selu", lambda x: tf.nn.selu(x), [WIDE],
         lambda x: (SCALE * np.where(x > 0, x, ALPHA * (np.exp(np.minimum(x, 0.0)) - 1)))
         .astype(np.float32), bad_dtypes=[[np.int64]], grad=False),  # 0.0 is a kink
    Case("Selu", lambda x: tf.nn.selu(x), [F64],
         lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(np.minimum(x, 0.0))),
         id="float64", rtol=1e-12, grad2=True),
    # Softplus / Softsign
    Case("Softplus", lambda x: tf.nn.softplus(x), [WIDE],
         lambda x: _f(np.float32)(ref_softplus(x)), bad_dtypes=[[np.int32]]),
    Case("Softplus", lambda x: tf.nn.softplus(x), [F64], ref_softplus, id="float64",
         grad2=True),
    Case("Softsign", lambda x: tf.nn.softsign(x), [WIDE],
         lambda x: np.array([v / (1 + abs(v)) for v in x.tolist()], np.float32),
         bad_dtypes=[[np.int32]]),
    Case("Softsign", lambda x: tf.nn.softsign(x), [SCALAR], lambda x: np.float32(-2.5 / 3.5),
         id="scalar", grad2=True),
    Case("Softsign", lambda x: tf.nn.softsign(x), [F64], lambda x: x / (1 + np.abs(x)),
         id="float64", grad2=True),
    # LeakyRelu
    Case("LeakyRelu", lambda x: tf.nn.leaky_relu(x), [F],
         lambda x: np.where(x > 0, x, 0.2 * x).astype(np.float32)),
    Case("LeakyRelu", lambda x: tf.nn.leaky_relu(x, alpha=0.01), [F64],
         lambda x: np.where(x > 0, x, 0.01 * x), id="alpha"),
    # BiasAdd
    Case("BiasAdd", lambda x, b: tf.nn.bias_add(x, b), [IMG, np.arange(5, dtype=np.float32)],
         lambda x, b: x + b[None, None, None, :],
         bad=[[(2, 3), (4,)], [(2, 3), (3, 1)], [(3,), (3,)], [(2, 3), ()]],
         bad_dtypes=[[np.float32, np.float64]]),
    Case("BiasAdd", lambda x, b: tf.nn.bias_add(x, b), [F, np.arange(4, dtype=np.float32)],
         lambda x, b: np.array([[v + j for j, v in enumerate(r)] for r in x], np.float32),
         id="matrix", grad2=True),
    Case("BiasAdd", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
         [IMG, np.arange(3, dtype=np.float32)], lambda x, b: x + b[None, :, None, None],
         bad=[[(2, 3, 4, 5), (5,)], [(2, 3), (3,)]], id="nchw"),
    Case("BiasAdd", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
         [IMG[0], np.arange(4, dtype=np.float32)], lambda x, b: x + b[None, :, None],
         id="nchw_rank3", grad2=True),
    Case("BiasAdd", lambda x, b: tf.nn.bias_add(x, b), [I32, np.arange(5, dtype=np.int32)],
         lambda x, b: x + b, id="int32"),
]
