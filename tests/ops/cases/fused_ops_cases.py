"""Cases for the optimizer's fused ops: FusedMatMul, FusedConv2D, FusedElementwise.

Each reference is the unfused computation written with numpy by hand. Fused ops
exist only after gradients were built, so none is differentiable (``grad=False``).
"""

import numpy as np

from staticgraph.ops.fused import fused_ops

from . import Case, rng
from .nn_conv_cases import naive_conv2d

R = rng(11)
A = R.standard_normal((3, 4)).astype(np.float32)
W = R.standard_normal((4, 5)).astype(np.float32)
WT = R.standard_normal((5, 4)).astype(np.float32)
B5 = R.standard_normal((5,)).astype(np.float32)
AI = R.integers(-4, 4, (2, 3)).astype(np.int32)
WI = R.integers(-4, 4, (3, 2)).astype(np.int32)
BI = R.integers(-4, 4, (2,)).astype(np.int32)
X = R.standard_normal((2, 5, 5, 3)).astype(np.float32)
XC = np.ascontiguousarray(np.transpose(X, (0, 3, 1, 2)))
F = R.standard_normal((3, 3, 3, 4)).astype(np.float32)
B4 = R.standard_normal((4,)).astype(np.float32)
V = R.standard_normal((3, 4)).astype(np.float32)
U = R.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
S = np.float32(1.5)
IV = R.integers(-9, 9, (6,)).astype(np.int64)


def _sigmoid(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


ACT = {"": lambda x: x, "Relu": lambda x: np.maximum(x, 0),
       "Relu6": lambda x: np.clip(x, 0, 6), "Tanh": np.tanh, "Sigmoid": _sigmoid,
       "LeakyRelu": lambda x: np.where(x > 0, x, x * np.float32(0.3))}


def _mm(activation, bias_op="BiasAdd"):
    return Case("FusedMatMul",
                lambda a, w, b: fused_ops.fused_matmul(a, w, b, bias_op=bias_op,
                                                       activation=activation, alpha=0.3),
                [A * 2, W, B5], lambda a, w, b: ACT[activation](a @ w + b),
                bad=[[(3, 4), (5, 5), (5,)], [(3, 4), (4, 5), (4,)], [(3, 4), (4, 5), (5, 1)]],
                bad_dtypes=[[np.float32, np.float64, np.float32]],
                id=f"{activation or 'none'}_{bias_op}", grad=False)


def _conv(activation, fmt="NHWC", bias_op="BiasAdd", bias=B4):
    x = X if fmt == "NHWC" else XC

    def ref(x, f, b):
        out = naive_conv2d(x, f, padding="SAME", fmt=fmt)
        shaped = b.reshape(-1, 1, 1) if fmt == "NCHW" and bias_op == "BiasAdd" else b
        return ACT[activation](out + shaped)
    return Case("FusedConv2D",
                lambda x, f, b: fused_ops.fused_conv2d(x, f, b, padding="SAME",
                                                       data_format=fmt, bias_op=bias_op,
                                                       activation=activation, alpha=0.3),
                [x, F, bias], ref,
                bad=[[x.shape, (3, 3, 2, 4), bias.shape], [x.shape, F.shape, (3,)],
                     [x.shape, F.shape, (4, 1)]],
                dynamic=fmt == "NHWC", rtol=1e-4, atol=1e-5,
                id=f"{activation or 'none'}_{fmt}_{bias_op}", grad=False)


def _ew(program, inputs, expected, id, bad=(), dynamic=True, rtol=0, atol=0):
    return Case("FusedElementwise",
                lambda *xs: fused_ops.fused_elementwise(xs, program), inputs, expected,
                bad=bad, id=id, grad=False, dynamic=dynamic, rtol=rtol, atol=atol)


def _f64(x):
    return np.asarray(x, np.float64)


def _i(k):
    return ("input", k)


def _s(k):
    return ("step", k)


def _c(v):
    return ("const", v)


CHAIN = (("multiply", (_i(0), _c(1.0001))), ("add", (_s(0), _c(0.001))), ("tanh", (_s(1),)),
         ("multiply", (_s(2), _c(1.0001))), ("add", (_s(3), _c(0.001))), ("tanh", (_s(4),)))
TREE = (("multiply", (_i(0), _c(2.0))), ("exp", (_i(1),)), ("add", (_s(0), _s(1))),
        ("subtract", (_i(2), _s(2))), ("multiply", (_s(3), _s(3))), ("sqrt", (_i(1),)),
        ("true_divide", (_s(4), _s(5))))


# Functions whose ONNX forms are formulas (float64 kernels missing in onnxruntime, or
# no ONNX operator): x in V (standard normal), y in U (0.5 to 2).
MATH = (("arctan", (_i(0),)), ("sinh", (_i(0),)), ("add", (_s(0), _s(1))),
        ("expm1", (_i(0),)), ("remainder", (_s(2), _i(1))), ("arctan2", (_i(0), _s(3))),
        ("arcsinh", (_s(5),)), ("power", (_i(1), _s(6))), ("multiply", (_c(0.25), _i(0))),
        ("arcsin", (_s(8),)), ("arccos", (_s(8),)), ("log1p", (_i(1),)),
        ("add", (_s(9), _s(10))), ("cosh", (_s(11),)), ("tan", (_s(8),)),
        ("arctanh", (_s(8),)), ("arccosh", (_s(13),)), ("add", (_s(13), _s(14))),
        ("add", (_s(15), _s(16))), ("subtract", (_s(17), _s(18))), ("add", (_s(19), _s(12))),
        ("add", (_s(20), _s(7))), ("add", (_s(21), _s(4))))


def _math_ref(x, y):
    x, y, dtype = _f64(x), _f64(y), x.dtype
    s2 = np.arctan(x) + np.sinh(x)
    s4 = s2 - y * np.floor(s2 / y)                      # Python's %: the sign of y
    s7 = y ** np.arcsinh(np.arctan2(x, np.exp(x) - 1))
    q = x / 4
    s12 = np.arcsin(q) + np.arccos(q)                   # pi / 2
    c = np.cosh(np.log(1 + y))                          # >= 1
    s19 = (c + np.tan(q)) - (np.arctanh(q) + np.arccosh(c))
    return (s19 + s12 + s7 + s4).astype(dtype)


def _chain_ref(x):
    a, b = x.dtype.type(1.0001), x.dtype.type(0.001)
    return np.tanh(np.tanh(x * a + b) * a + b)


def _tree_ref(x, y, s):
    d = s - (x * np.float32(2) + np.exp(y))
    return (d * d) / np.sqrt(y)


CASES = [
    _mm(""), _mm("Relu"), _mm("Relu6"), _mm("Tanh"), _mm("Sigmoid"), _mm("LeakyRelu"),
    _mm("Relu", "Add"),
    Case("FusedMatMul",
         lambda a, w, b: fused_ops.fused_matmul(a, w, b, transpose_a=True, transpose_b=True,
                                                activation="Relu"),
         [A.T.copy(), WT, B5], lambda a, w, b: np.maximum(a.T @ w.T + b, 0),
         id="transposed", grad=False),
    Case("FusedMatMul",
         lambda a, w, b: fused_ops.fused_matmul(a, w, b, bias_op="Add", activation="Relu"),
         [AI, WI, BI], lambda a, w, b: np.maximum(a @ w + b, 0), id="int32", grad=False,
         bad_dtypes=[[np.int32, np.int32, np.float32]]),
    _conv("Relu"), _conv(""), _conv("Sigmoid"), _conv("Relu6", "NCHW"),
    _conv("Tanh", "NCHW", "Add", B5),
    _ew(CHAIN, [V], _chain_ref, "chain"),
    _ew(TREE, [V, U, np.array(S)], _tree_ref, "tree", bad=[[(3, 4), (2, 4), ()]]),
    _ew(TREE, [V, U, U], _tree_ref, "same_shape_inputs"),
    _ew((("maximum", (_i(0), _c(0))), ("minimum", (_s(0), _c(6))),
         ("negative", (_s(0),)), ("add", (_s(1), _s(2)))), [IV],
        lambda x: np.minimum(np.maximum(x, 0), 6) + -np.maximum(x, 0), "int64"),
    _ew(CHAIN, [np.array(0.3, np.float32)], _chain_ref, "scalar"),
    _ew(CHAIN, [np.array([0.3], np.float32)], _chain_ref, "one_element"),
    _ew(CHAIN, [np.zeros((0, 3), np.float32)], _chain_ref, "empty"),
    _ew((("add", (_i(0), _i(1))), ("tanh", (_s(0),))), [V, V[:1]],
        lambda x, y: np.tanh(x + y), "broadcasting_inputs", bad=[[(3, 4), (2, 4)]]),
    # dtypes beyond float32: LeakyRelu's alpha in float64, float16 via float32
    Case("FusedMatMul",
         lambda a, w, b: fused_ops.fused_matmul(a, w, b, activation="LeakyRelu", alpha=0.3),
         [_f64(A * 2), _f64(W), _f64(B5)],
         lambda a, w, b: np.where(a @ w + b > 0, a @ w + b, (a @ w + b) * 0.3),
         id="LeakyRelu_f64", grad=False),
    Case("FusedMatMul",
         lambda a, w, b: fused_ops.fused_matmul(a, w, b, bias_op="Add", activation="Sigmoid"),
         [A.astype(np.float16), W.astype(np.float16), B5.astype(np.float16)],
         lambda a, w, b: (1 / (1 + np.exp(-(_f64(a) @ _f64(w) + _f64(b))))).astype(np.float16),
         rtol=1e-2, atol=1e-2, id="Sigmoid_Add_f16", grad=False),
    _conv("LeakyRelu", "NHWC", "Add"),
    _ew(MATH, [_f64(V), _f64(U)], _math_ref, "math_f64", rtol=1e-12, atol=1e-12),
    _ew(MATH, [V, U], _math_ref, "math_f32", rtol=1e-5, atol=1e-6),
    _ew(CHAIN, [V.astype(np.float16)], _chain_ref, "chain_f16", rtol=1e-2, atol=1e-2),
]
