"""Cases for the activations: Relu, Relu6, Elu, Selu, Softplus, Softsign, LeakyRelu,
Softmax, LogSoftmax, BiasAdd, and their fused gradient ops ReluGrad, Relu6Grad, EluGrad,
SeluGrad, SoftplusGrad, SoftsignGrad, LeakyReluGrad, BiasAddGrad."""

import numpy as np

import staticgraph as tf
from staticgraph.ops import nn_activation as nn_act

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
BIG = np.array([[1000.0, 999.0, -1000.0], [-1e30, 0.0, 1e30]], np.float32)
IMG = R.standard_normal((2, 3, 4, 5)).astype(np.float32)

ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946
DY = R.standard_normal((3, 4)).astype(np.float32)
DY64 = R.standard_normal((3, 2))
DY3 = R.standard_normal((2, 3, 2))
SELU_OUT = SCALE * np.where(F64[0] > 0, F64[0], ALPHA * np.expm1(np.minimum(F64[0], 0)))


def ref_softmax(x, axis=-1):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_log_softmax(x, axis=-1):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


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
    Case("Relu", lambda x: tf.nn.relu(x), [SCALAR], lambda x: np.float32(0.0), id="scalar"),
    Case("Relu", lambda x: tf.nn.relu(x), [EMPTY], lambda x: x, id="empty"),
    # Relu6
    Case("Relu6", lambda x: tf.nn.relu6(x), [F * 3],
         lambda x: np.array([[min(max(v, 0), 6) for v in r] for r in x], np.float32)),
    Case("Relu6", lambda x: tf.nn.relu6(x), [I8],
         lambda x: np.array([0, 0, 0, 5, 6, 6], np.int8), id="int8"),
    Case("Relu6", lambda x: tf.nn.relu6(x), [U8],
         lambda x: np.array([0, 3, 6, 6, 6], np.uint8), id="uint8"),
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
    # ---- fused gradient ops (the forward ops' derivatives) ----
    # ReluGrad / Relu6Grad: gradients masked where the features are in the linear part
    Case("ReluGrad", nn_act.relu_grad, [DY, F], lambda g, x: np.where(x > 0, g, 0),
         bad=[[(3, 4), (3, 5)], [(3, 4), (4,)]],
         bad_dtypes=[[np.float32, np.float64], [np.bool_, np.bool_]]),
    Case("ReluGrad", nn_act.relu_grad, [I32, I32[::-1]],
         lambda g, x: np.array([[a if b > 0 else 0 for a, b in zip(r, s)]
                                for r, s in zip(g, x)], np.int32), id="int32"),
    Case("ReluGrad", nn_act.relu_grad, [np.float32(2.0), SCALAR], lambda g, x: np.float32(0),
         id="scalar"),
    Case("Relu6Grad", nn_act.relu6_grad, [DY, F * 2.5],
         lambda g, x: np.where((x > 0) & (x < 6), g, 0), bad=[[(3, 4), (4, 3)]],
         bad_dtypes=[[np.float64, np.float32]]),
    Case("Relu6Grad", nn_act.relu6_grad, [np.ones(6, np.int8), I8],
         lambda g, x: np.array([0, 0, 0, 1, 0, 0], np.int8), id="int8"),
    # EluGrad / SeluGrad take the forward output
    Case("EluGrad", nn_act.elu_grad, [DY, ref_elu(F).astype(np.float32)],
         lambda g, y: np.where(y < 0, g * (y + 1), g), bad=[[(3, 4), (2, 4)]],
         bad_dtypes=[[np.int32, np.int32]], grad2=True),
    Case("SeluGrad", nn_act.selu_grad, [DY64, SELU_OUT],
         lambda g, y: np.where(y < 0, g * (y + SCALE * ALPHA), g * SCALE), id="float64",
         bad=[[(3, 2), (2, 3)]], bad_dtypes=[[np.int64, np.int64]], grad2=True),
    # SoftplusGrad / SoftsignGrad take the forward input
    Case("SoftplusGrad", nn_act.softplus_grad, [DY, F],
         lambda g, x: g / (1 + np.exp(-x.astype(np.float64))), bad=[[(3, 4), (3,)]],
         bad_dtypes=[[np.int32, np.int32]], grad2=True),
    Case("SoftplusGrad", nn_act.softplus_grad, [np.ones_like(WIDE), WIDE],
         lambda g, x: (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32), id="wide"),
    Case("SoftsignGrad", nn_act.softsign_grad, [DY, F],
         lambda g, x: g / (1 + np.abs(x)) ** 2, bad=[[(3, 4), (1, 4)]],
         bad_dtypes=[[np.int32, np.int32]], grad2=True),
    Case("LeakyReluGrad", lambda g, x: nn_act.leaky_relu_grad(g, x, alpha=0.1), [DY, F],
         lambda g, x: np.where(x > 0, g, 0.1 * g), bad=[[(3, 4), (3, 3)]],
         bad_dtypes=[[np.int32, np.int32]]),
    Case("LeakyReluGrad", nn_act.leaky_relu_grad, [DY3, F64],
         lambda g, x: np.where(x > 0, g, 0.2 * g), id="default_alpha"),
    # BiasAddGrad: sums over every dimension but the channel one
    Case("BiasAddGrad", nn_act.bias_add_grad, [IMG],
         lambda g: g.astype(np.float64).sum(axis=(0, 1, 2)).astype(np.float32),
         bad=[[(3,)], [()]], bad_dtypes=[[np.bool_]], grad2=True),
    Case("BiasAddGrad", nn_act.bias_add_grad, [F],
         lambda g: np.array([sum(r[j] for r in g.tolist()) for j in range(4)], np.float32),
         id="matrix"),
    Case("BiasAddGrad", lambda g: nn_act.bias_add_grad(g, data_format="NCHW"), [IMG],
         lambda g: g.astype(np.float64).sum(axis=(0, 2, 3)).astype(np.float32),
         bad=[[(2, 3)]], id="nchw", grad2=True),
    Case("BiasAddGrad", lambda g: nn_act.bias_add_grad(g, data_format="NCHW"), [F64],
         lambda g: g.sum(axis=(0, 2)), id="nchw_rank3_float64", rtol=1e-12),
    Case("BiasAddGrad", nn_act.bias_add_grad, [I32], lambda g: g.sum(axis=0).astype(np.int32),
         id="int32"),
    Case("BiasAddGrad", nn_act.bias_add_grad, [L16],
         lambda g: g.astype(np.float64).sum(axis=0).astype(np.float16), id="float16",
         rtol=2e-3, atol=2e-3),
    Case("BiasAddGrad", nn_act.bias_add_grad, [EMPTY], lambda g: np.zeros(3, np.float32),
         id="empty"),
]
