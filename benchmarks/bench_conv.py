"""Convolution + pooling forward speed, side by side in one process.

The network (batch 64 of 28x28x1, float32)::

    conv 3x3x1->32 SAME + relu + max-pool 2x2/2 SAME
    conv 3x3x32->64 SAME + relu + max-pool 2x2/2 SAME

Candidates: staticgraph's kernels called directly (Conv2D/MaxPool ``compute``),
the same network through ``sess.run``, and two plain numpy versions: a naive one
(``einsum`` over a sliding-window view, pooling by a reshape and ``max``) and a
per-kernel-offset loop of matrix products. TF1 graph mode runs alongside when
``tensorflow-cpu`` is installed (target: staticgraph within 2x of TF1's CPU time).
A training step of the small CNN follows (the network above, then dense
3136->128 relu -> 10, sparse softmax cross-entropy, plain SGD through
``GradientDescentOptimizer.minimize``, batch 64, NHWC): staticgraph ``sess.run``
against TF1 and a plain numpy version (einsum over window views forward and
backward), then a per-op-type breakdown of staticgraph's backward pass (each
gradient op's kernel timed on the values of one step).
Run: ``python benchmarks/bench_conv.py`` (about 40 s; ``--train`` for the training
step only, ``--forward`` for the forward pass only).
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)
sys.path.insert(1, os.path.dirname(_HERE))  # the repository root, when not installed
import staticgraph as sg  # noqa: E402
from staticgraph.graphlib.op_def import get_op_def  # noqa: E402
from timing import _fmt, compare, report, tensorflow_v1  # noqa: E402

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


# ---------------------------------------------------------------- training step
LR = 0.01
Y = RNG.integers(0, 10, BATCH)
INIT = {
    "w1": W1, "b1": np.full(32, 0.01, np.float32),
    "w2": W2, "b2": np.full(64, 0.01, np.float32),
    "w3": (RNG.standard_normal((3136, 128)) * 0.02).astype(np.float32),
    "b3": np.full(128, 0.01, np.float32),
    "w4": (RNG.standard_normal((128, 10)) * 0.1).astype(np.float32),
    "b4": np.zeros(10, np.float32),
}


def declare_train(lib):
    """The small CNN with its loss and one SGD update: (x, y, loss, train, vars, init)."""
    x = lib.placeholder(lib.float32, [None, 28, 28, 1], name="x")
    y = lib.placeholder(lib.int64, [None], name="y")
    v = {k: lib.Variable(val, name=k) for k, val in INIT.items()}
    h = x
    for i in (1, 2):
        h = lib.nn.conv2d(h, v[f"w{i}"], [1, 1, 1, 1], "SAME")
        h = lib.nn.relu(lib.nn.bias_add(h, v[f"b{i}"]))
        h = lib.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = lib.reshape(h, [-1, 7 * 7 * 64])
    h = lib.nn.relu(lib.matmul(h, v["w3"]) + v["b3"])
    logits = lib.matmul(h, v["w4"]) + v["b4"]
    loss = lib.reduce_mean(lib.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                           logits=logits))
    train = lib.train.GradientDescentOptimizer(LR).minimize(loss)
    return x, y, loss, train, v, lib.global_variables_initializer()


class NumpyCNN:
    """The same training step in plain numpy: einsum over window views, masks for pooling."""

    def __init__(self):
        self.p = {k: v.copy() for k, v in INIT.items()}

    @staticmethod
    def windows(x):
        xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        return sliding_window_view(xp, (3, 3), axis=(1, 2))     # (N, H, W, C, 3, 3)

    @staticmethod
    def pool(a):
        n, h, w, c = a.shape
        r = a.reshape(n, h // 2, 2, w // 2, 2, c)
        m = r.max(axis=(2, 4))
        return m, (r == m[:, :, None, :, None])

    @staticmethod
    def unpool(d, mask):
        n, h2, _, w2, _, c = mask.shape
        return (mask * d[:, :, None, :, None]).reshape(n, h2 * 2, w2 * 2, c)

    def step(self, x, y):
        p, n = self.p, x.shape[0]
        win1 = self.windows(x)
        z1 = np.einsum("nhwcij,ijco->nhwo", win1, p["w1"]) + p["b1"]
        p1, m1 = self.pool(np.maximum(z1, 0))
        win2 = self.windows(p1)
        z2 = np.einsum("nhwcij,ijco->nhwo", win2, p["w2"]) + p["b2"]
        p2, m2 = self.pool(np.maximum(z2, 0))
        flat = p2.reshape(n, -1)
        z3 = flat @ p["w3"] + p["b3"]
        h3 = np.maximum(z3, 0)
        logits = h3 @ p["w4"] + p["b4"]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        prob = e / e.sum(axis=1, keepdims=True)
        loss = -np.mean(np.log(prob[np.arange(n), y]))
        dl = prob
        dl[np.arange(n), y] -= 1
        dl /= n
        g = {"w4": h3.T @ dl, "b4": dl.sum(0)}
        dz3 = (dl @ p["w4"].T) * (z3 > 0)
        g["w3"], g["b3"] = flat.T @ dz3, dz3.sum(0)
        dz2 = self.unpool((dz3 @ p["w3"].T).reshape(p2.shape), m2) * (z2 > 0)
        g["w2"] = np.einsum("nhwcij,nhwo->ijco", win2, dz2)
        g["b2"] = dz2.sum((0, 1, 2))
        flipped = p["w2"][::-1, ::-1]
        dp1 = np.einsum("nhwoij,ijco->nhwc", self.windows(dz2), flipped)
        dz1 = self.unpool(dp1, m1) * (z1 > 0)
        g["w1"] = np.einsum("nhwcij,nhwo->ijco", win1, dz1)
        g["b1"] = dz1.sum((0, 1, 2))
        for k in p:
            p[k] -= (LR * g[k]).astype(np.float32)
        return loss


def _values_after_one_step(sess, x, y, loss, train, v, init):
    sess.run(init)
    first, _ = sess.run([loss, train], {x: X, y: Y})
    return first, sess.run(v)


def backward_breakdown(graph, sess, x, y, loss, variables):
    """Seconds per op type of the gradient ops, each kernel timed on one step's values."""
    with graph.as_default():
        grads = sg.gradients(loss, list(variables.values()))
    grad_ops = [op for op in graph.get_operations() if op.name.startswith("gradients")
                and op.outputs and op.op_def.compute is not None]
    needed = _needed(grads, grad_ops)
    inputs = {id(t): t for op in needed for t in op.inputs}
    tensors = list(inputs.values())
    values = dict(zip((id(t) for t in tensors), sess.run(tensors, {x: X, y: Y})))
    calls = {}
    for op in needed:
        kernel = op.op_def.make_kernel(op, None)
        args = [values[id(t)] for t in op.inputs]
        calls[op.name] = (op.type, lambda k=kernel, a=args: k(*a))
    times = compare({name: fn for name, (_, fn) in calls.items()}, rounds=5,
                    round_budget_s=0.02)
    by_type = defaultdict(float)
    for name, (op_type, _) in calls.items():
        by_type[op_type] += times[name]
    return by_type, {name: (calls[name][0], t) for name, t in times.items()}


def _needed(grads, grad_ops):
    """The gradient ops the ``grads`` depend on (skipping unused gradient branches)."""
    wanted, stack = set(), [g.op for g in grads]
    while stack:
        op = stack.pop()
        if id(op) in wanted:
            continue
        wanted.add(id(op))
        stack.extend(t.op for t in op.inputs)
    return [op for op in grad_ops if id(op) in wanted]


def train_main():
    g = sg.Graph()
    with g.as_default():
        x, y, loss, train, v, init = declare_train(sg)
    sess = sg.Session(graph=g)
    first, after = _values_after_one_step(sess, x, y, loss, train, v, init)
    ref = NumpyCNN()
    ref_first = ref.step(X, Y)
    np.testing.assert_allclose(first, ref_first, rtol=1e-4)
    for k in INIT:
        np.testing.assert_allclose(after[k], ref.p[k], rtol=1e-3, atol=1e-5, err_msg=k)

    naive = NumpyCNN()
    candidates = {
        "numpy naive (einsum windows)": lambda: naive.step(X, Y),
        "staticgraph sess.run": lambda: sess.run(train, {x: X, y: Y}),
    }
    tf1 = tensorflow_v1()
    if tf1 is not None:
        tg = tf1.Graph()
        with tg.as_default():
            tx, ty, tloss, ttrain, tv, tinit = declare_train(tf1)
        tsess = tf1.Session(graph=tg)
        tfirst, tafter = _values_after_one_step(tsess, tx, ty, tloss, ttrain, tv, tinit)
        np.testing.assert_allclose(tfirst, first, rtol=1e-4)
        for k in INIT:
            np.testing.assert_allclose(tafter[k], after[k], rtol=1e-3, atol=1e-5, err_msg=k)
        candidates["tf1 sess.run"] = lambda: tsess.run(ttrain, {tx: X, ty: Y})
    else:
        print("(tensorflow not installed: TF1 column skipped)")
    times = compare(candidates, rounds=5, round_budget_s=0.5)
    report(f"training step (forward + backward + SGD), small CNN, batch {BATCH}", times,
           "tf1 sess.run" if tf1 is not None else "staticgraph sess.run")

    by_type, by_op = backward_breakdown(g, sess, x, y, loss, v)
    total = sum(by_type.values())
    print(f"\nstaticgraph backward pass by op type (kernels alone, sum {_fmt(total)})")
    for op_type, t in sorted(by_type.items(), key=lambda kv: -kv[1]):
        print(f"  {op_type:<38} {_fmt(t)}   {100 * t / total:5.1f}%")
    print("  heaviest ops:")
    for name, (op_type, t) in sorted(by_op.items(), key=lambda kv: -kv[1][1])[:8]:
        print(f"    {name:<56} {op_type:<22} {_fmt(t)}")
    if tf1 is not None:
        ratio = times["staticgraph sess.run"] / times["tf1 sess.run"]
        print(f"\nTarget: staticgraph training step within 2x of TF1. Measured: {ratio:.2f}x")


def forward_main():
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


def main(argv=()):
    if "--train" not in argv:
        forward_main()
    if "--forward" not in argv:
        train_main()


if __name__ == "__main__":
    main(sys.argv[1:])
