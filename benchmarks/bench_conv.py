"""Convolution + pooling forward speed, side by side in one process.

The network (batch 64 of 28x28x1, float32)::

    conv 3x3x1->32 SAME + relu + max-pool 2x2/2 SAME
    conv 3x3x32->64 SAME + relu + max-pool 2x2/2 SAME

Candidates: staticgraph's kernels called directly (Conv2D/MaxPool ``compute``),
the same network through ``sess.run``, and two plain numpy versions: a naive one
(``einsum`` over a sliding-window view, pooling by a reshape and ``max``) and a
per-kernel-offset loop of matrix products. TF1 graph mode runs alongside when
``tensorflow-cpu`` is installed (target: staticgraph within 2x of TF1's CPU time).
Run: ``python benchmarks/bench_conv.py`` (about 15 s).
"""

from __future__ import annotations

import os
import sys


import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(1, os.path.dirname(_HERE))  # the repository root, when not installed
import staticgraph as sg  # noqa: E402
from staticgraph.ops.registry import get_op_def  # noqa: E402
from timing import compare, report, tensorflow_v1  # noqa: E402

BATCH = 64
RNG = np.random.default_rng(0)
X = RNG.standard_normal((BATCH, 28, 28, 1)).astype(np.float32)
W1 = (RNG.standard_normal((3, 3, 1, 32)) * 0.3).astype(np.float32)
W2 = (RNG.standard_normal((3, 3, 32, 64)) * 0.1).astype(np.float32)
CONV_ATTRS = {"strides": (1, 1, 1, 1), "padding": "SAME", "explicit_paddings": (),
              "data_format": "NHWC", "dilations": (1, 1, 1, 1)}
POOL_ATTRS = {"ksize": (1, 2, 2, 1), "strides": (1, 2, 2, 1), "padding": "SAME",
              "data_format": "NHWC"}


# ---------------------------------------------------------------- plain numpy versions
def naive_conv(x, w):
    """SAME 3x3 stride-1 convolution by einsum over a sliding-window view."""
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    windows = sliding_window_view(xp, (3, 3), axis=(1, 2))   # (N, H, W, C, 3, 3)
    return np.einsum("nhwcij,ijco->nhwo", windows, w)


def naive_pool(x):
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def naive_forward():
    h = naive_pool(np.maximum(naive_conv(X, W1), 0))
    return naive_pool(np.maximum(naive_conv(h, W2), 0))


def offset_conv(x, w):
    """SAME 3x3 convolution as nine shifted matrix products (a common numpy idiom)."""
    n, hh, ww, _ = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((n, hh, ww, w.shape[3]), x.dtype)
    for i in range(3):
        for j in range(3):
            out += xp[:, i:i + hh, j:j + ww] @ w[i, j]
    return out


def offset_forward():
    h = naive_pool(np.maximum(offset_conv(X, W1), 0))
    return naive_pool(np.maximum(offset_conv(h, W2), 0))


# ---------------------------------------------------------------- staticgraph
CONV = get_op_def("Conv2D").compute
POOL = get_op_def("MaxPool").compute


def conv(x, w):
    return CONV(x, w, **CONV_ATTRS)


def pool(x):
    return POOL(x, **POOL_ATTRS)


def kernels_forward():
    h = pool(np.maximum(conv(X, W1), 0))
    return pool(np.maximum(conv(h, W2), 0))


def declare(lib):
    x = lib.placeholder(lib.float32, [None, 28, 28, 1], name="x")
    h = x
    for w in (W1, W2):
        h = lib.nn.relu(lib.nn.conv2d(h, lib.constant(w), [1, 1, 1, 1], "SAME"))
        h = lib.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    return x, h


def main():
    want = naive_forward()
    for fn in (offset_forward, kernels_forward):
        np.testing.assert_allclose(fn(), want, rtol=1e-4, atol=1e-4)
    g = sg.Graph()
    with g.as_default():
        x, out = declare(sg)
    sess = sg.Session(graph=g)
    np.testing.assert_allclose(sess.run(out, {x: X}), want, rtol=1e-4, atol=1e-4)

    candidates = {
        "numpy naive (einsum windows)": naive_forward,
        "numpy per-offset matmuls": offset_forward,
        "staticgraph kernels": kernels_forward,
        "staticgraph sess.run": lambda: sess.run(out, {x: X}),
    }
    tf1 = tensorflow_v1()
    if tf1 is None:
        print("(tensorflow not installed: TF1 column skipped; "
              "pip install tensorflow-cpu to add it)")
    else:
        tg = tf1.Graph()
        with tg.as_default():
            tx, tout = declare(tf1)
        tsess = tf1.Session(graph=tg)
        np.testing.assert_allclose(tsess.run(tout, {tx: X}), want, rtol=1e-4, atol=1e-4)
        candidates["tf1 sess.run"] = lambda: tsess.run(tout, {tx: X})
    times = compare(candidates, rounds=5, round_budget_s=0.4)
    report(f"conv3x3(1->32)+relu+pool, conv3x3(32->64)+relu+pool, batch {BATCH} of 28x28",
           times, "numpy naive (einsum windows)")

    h1 = np.maximum(conv(X, W1), 0)
    p1 = pool(h1)
    h2 = np.maximum(conv(p1, W2), 0)
    layers = compare({
        "conv1 (64x28x28x1 -> 32)": lambda: conv(X, W1),
        "pool1 (64x28x28x32)": lambda: pool(h1),
        "conv2 (64x14x14x32 -> 64)": lambda: conv(p1, W2),
        "pool2 (64x14x14x64)": lambda: pool(h2),
        "relu1 (np.maximum, for scale)": lambda: np.maximum(h1, 0),
    }, rounds=5, round_budget_s=0.2)
    report("staticgraph kernels, per layer", layers, "conv2 (64x14x14x32 -> 64)")
    if tf1 is not None:
        ratio = times["staticgraph sess.run"] / times["tf1 sess.run"]
        print(f"\nTarget: staticgraph sess.run within 2x of TF1. Measured: {ratio:.2f}x")


if __name__ == "__main__":
    main()
