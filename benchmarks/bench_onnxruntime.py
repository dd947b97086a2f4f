"""The numpy backend against the onnxruntime backend, side by side in one process.

1. Tiny graph ``y = x*2+1`` on one element: ``sess.run`` and ``make_callable`` on
   both backends (target: onnxruntime within 2x of numpy).
2. A 784-512-256-10 MLP forward at batch 1024 (target: onnxruntime at least as fast).
3. The same MLP's training step at batch 128 with SGD and with Adam (target:
   onnxruntime at least as fast).

Both backends must give the same numbers; the script checks that first. With
``--device cuda`` (on a machine with a GPU) the onnxruntime sessions use CUDA.
Run: ``python benchmarks/bench_onnxruntime.py [--device cpu|cuda]``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import staticgraph as sg  # noqa: E402
from timing import compare, report  # noqa: E402

SIZES = [784, 512, 256, 10]


def sessions(graph, device):
    """A numpy-backend and an onnxruntime-backend session of ``graph``."""
    return {"numpy": sg.Session(graph=graph),
            "onnxruntime": sg.Session(graph=graph, backend="onnxruntime", device=device)}


def tiny_graph(device):
    a = np.ones(1, np.float32)
    g = sg.Graph()
    with g.as_default():
        x = sg.placeholder(sg.float32, [None], name="x")
        y = x * 2.0 + 1.0
    candidates = {}
    for name, sess in sessions(g, device).items():
        call = sess.make_callable(y, [x])
        np.testing.assert_allclose(sess.run(y, {x: a}), a * 2 + 1)
        candidates[f"{name} sess.run"] = lambda sess=sess: sess.run(y, {x: a})
        candidates[f"{name} make_callable"] = lambda call=call: call(a)
    return compare(candidates, rounds=9)


def mlp(optimizer=None, batch=1024):
    """The MLP graph: placeholders, logits, loss and (with ``optimizer``) a train op."""
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((m, n)) * 0.05).astype(np.float32)
          for m, n in zip(SIZES[:-1], SIZES[1:])]
    g = sg.Graph()
    with g.as_default():
        x = sg.placeholder(sg.float32, [None, 784], name="x")
        y = sg.placeholder(sg.int64, [None], name="y")
        h = x
        for i, w in enumerate(ws):
            h = sg.matmul(h, sg.Variable(w, name=f"w{i}")) + sg.Variable(
                np.zeros(w.shape[1], np.float32), name=f"b{i}")
            if i < 2:
                h = sg.nn.relu(h)
        loss = sg.reduce_mean(sg.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                            logits=h))
        train = None
        if optimizer == "sgd":
            train = sg.train.GradientDescentOptimizer(0.01).minimize(loss)
        elif optimizer == "adam":
            train = sg.train.AdamOptimizer(1e-3).minimize(loss)
        init = sg.global_variables_initializer()
    xb = rng.standard_normal((batch, 784)).astype(np.float32)
    yb = rng.integers(0, 10, batch)
    return g, x, y, h, loss, train, init, xb, yb


def mlp_forward(device):
    g, x, _, logits, _, _, init, xb, _ = mlp()
    runs = sessions(g, device)
    outs = {}
    for name, sess in runs.items():
        sess.run(init)
        outs[name] = sess.run(logits, {x: xb})
    np.testing.assert_allclose(outs["onnxruntime"], outs["numpy"], rtol=1e-4, atol=1e-4)
    return compare({name: (lambda s=s: s.run(logits, {x: xb})) for name, s in runs.items()})


def mlp_training(device, optimizer):
    g, x, y, _, loss, train, init, xb, yb = mlp(optimizer, batch=128)
    runs = sessions(g, device)
    losses = {}
    for name, sess in runs.items():
        sess.run(init)
        losses[name] = [sess.run([train, loss], {x: xb, y: yb})[1] for _ in range(5)]
    np.testing.assert_allclose(losses["onnxruntime"], losses["numpy"], rtol=1e-4, atol=1e-5)
    return compare({name: (lambda s=s: s.run(train, {x: xb, y: yb})) for name, s in runs.items()})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args()
    print(f"onnxruntime device: {args.device}")
    report("tiny graph y = x*2+1 (one element)", tiny_graph(args.device), "numpy sess.run")
    report("MLP 784-512-256-10 forward, batch 1024", mlp_forward(args.device), "numpy")
    for optimizer in ("sgd", "adam"):
        report(f"MLP training step ({optimizer}), batch 128",
               mlp_training(args.device, optimizer), "numpy")


if __name__ == "__main__":
    main()
