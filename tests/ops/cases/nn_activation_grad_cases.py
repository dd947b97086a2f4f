"""Cases for the activations' fused gradient ops: ReluGrad, Relu6Grad, EluGrad, SeluGrad,
SoftplusGrad, SoftsignGrad, LeakyReluGrad, BiasAddGrad (data from
``nn_activation_cases``)."""

import numpy as np

from staticgraph.ops.nn import activation_grad as nn_act_grad

from . import Case
from .nn_activation_cases import (ALPHA, DY, DY3, DY64, EMPTY, F, F64, I8, I32, IMG, L16,
                                  SCALAR, SCALE, WIDE, ref_elu)

SELU_OUT = SCALE * np.where(F64[0] > 0, F64[0], ALPHA * np.expm1(np.minimum(F64[0], 0)))

CASES = [
    # ---- fused gradient ops (the forward ops' derivatives) ----
    # ReluGrad / Relu6Grad: gradients masked where the features are in the linear part
    Case("ReluGrad", nn_act_grad.relu_grad, [DY, F], lambda g, x: np.where(x > 0, g, 0),
         bad=[[(3, 4), (3, 5)], [(3, 4), (4,)]],
         bad_dtypes=[[np.float32, np.float64], [np.bool_, np.bool_]]),
    Case("ReluGrad", nn_act_grad.relu_grad, [I32, I32[::-1]],
         lambda g, x: np.array([[a if b > 0 else 0 for a, b in zip(r, s)]
                                for r, s in zip(g, x)], np.int32), id="int32"),
    Case("ReluGrad", nn_act_grad.relu_grad, [np.float32(2.0), SCALAR], lambda g, x: np.float32(0),
         id="scalar"),
    Case("Relu6Grad", nn_act_grad.relu6_grad, [DY, F * 2.5],
         lambda g, x: np.where((x > 0) & (x < 6), g, 0), bad=[[(3, 4), (4, 3)]],
         bad_dtypes=[[np.float64, np.float32]]),
    Case("Relu6Grad", nn_act_grad.relu6_grad, [np.ones(6, np.int8), I8],
         lambda g, x: np.array([0, 0, 0, 1, 0, 0], np.int8), id="int8"),
    # EluGrad / SeluGrad take the forward output
    Case("EluGrad", nn_act_grad.elu_grad, [DY, ref_elu(F).astype(np.float32)],
         lambda g, y: np.where(y < 0, g * (y + 1), g), bad=[[(3, 4), (2, 4)]],
         bad_dtypes=[[np.int32, np.int32]], grad2=True),
    Case("SeluGrad", nn_act_grad.selu_grad, [DY64, SELU_OUT],
         lambda g, y: np.where(y < 0, g * (y + SCALE * ALPHA), g * SCALE), id="float64",
         bad=[[(3, 2), (2, 3)]], bad_dtypes=[[np.int64, np.int64]], grad2=True),
    # SoftplusGrad / SoftsignGrad take the forward input
    Case("SoftplusGrad", nn_act_grad.softplus_grad, [DY, F],
         lambda g, x: g / (1 + np.exp(-x.astype(np.float64))), bad=[[(3, 4), (3,)]],
         bad_dtypes=[[np.int32, np.int32]], grad2=True),
    Case("SoftplusGrad", nn_act_grad.softplus_grad, [np.ones_like(WIDE), WIDE],
         lambda g, x: (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32), id="wide"),
    Case("SoftsignGrad", nn_act_grad.softsign_grad, [DY, F],
         lambda g, x: g / (1 + np.abs(x)) ** 2, bad=[[(3, 4), (1, 4)]],
         bad_dtypes=[[np.int32, np.int32]], grad2=True),
    Case("LeakyReluGrad", lambda g, x: nn_act_grad.leaky_relu_grad(g, x, alpha=0.1), [DY, F],
         lambda g, x: np.where(x > 0, g, 0.1 * g), bad=[[(3, 4), (3, 3)]],
         bad_dtypes=[[np.int32, np.int32]]),
    Case("LeakyReluGrad", nn_act_grad.leaky_relu_grad, [DY3, F64],
         lambda g, x: np.where(x > 0, g, 0.2 * g), id="default_alpha"),
    # BiasAddGrad: sums over every dimension but the channel one
    Case("BiasAddGrad", nn_act_grad.bias_add_grad, [IMG],
         lambda g: g.astype(np.float64).sum(axis=(0, 1, 2)).astype(np.float32),
         bad=[[(3,)], [()]], bad_dtypes=[[np.bool_]], grad2=True),
    Case("BiasAddGrad", nn_act_grad.bias_add_grad, [F],
         lambda g: np.array([sum(r[j] for r in g.tolist()) for j in range(4)], np.float32),
         id="matrix"),
    Case("BiasAddGrad", lambda g: nn_act_grad.bias_add_grad(g, data_format="NCHW"), [IMG],
         lambda g: g.astype(np.float64).sum(axis=(0, 2, 3)).astype(np.float32),
         bad=[[(2, 3)]], id="nchw", grad2=True),
    Case("BiasAddGrad", lambda g: nn_act_grad.bias_add_grad(g, data_format="NCHW"), [F64],
         lambda g: g.sum(axis=(0, 2)), id="nchw_rank3_float64", rtol=1e-12),
    Case("BiasAddGrad", nn_act_grad.bias_add_grad, [I32], lambda g: g.sum(axis=0).astype(np.int32),
         id="int32"),
    Case("BiasAddGrad", nn_act_grad.bias_add_grad, [L16],
         lambda g: g.astype(np.float64).sum(axis=0).astype(np.float16), id="float16",
         rtol=2e-3, atol=2e-3),
    Case("BiasAddGrad", nn_act_grad.bias_add_grad, [EMPTY], lambda g: np.zeros(3, np.float32),
         id="empty"),
]
