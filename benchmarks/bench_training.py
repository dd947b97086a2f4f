"""Training-step speed of the 784-512-256-10 MLP at batch 128, side by side in one process.

For plain SGD and for Adam: staticgraph's ``sess.run(train_op)`` against the step's
matrix products alone written in numpy (the floor: 3 forward products, 3 weight
gradients, 2 input gradients), and TF1 graph mode running the same program when
``tensorflow-cpu`` is installed (optional, never a dependency).
Targets (issue 3): SGD within 1.3x of its matrix products and no slower than TF1;
Adam no slower than TF1. Run: ``python benchmarks/bench_training.py``.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import staticgraph as sg  # noqa: E402
from timing import compare, report, tensorflow_v1  # noqa: E402

SIZES = [784, 512, 256, 10]
BATCH = 128


def data():
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((m, n)) * np.sqrt(2.0 / m)).astype(np.float32)
          for m, n in zip(SIZES[:-1], SIZES[1:])]
    xb = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    yb = rng.integers(0, SIZES[-1], BATCH).astype(np.int64)
    return ws, xb, yb


def declare(lib, ws, optimizer):
    """The same TF1 program for staticgraph and tensorflow.compat.v1."""
    x = lib.placeholder(lib.float32, [None, SIZES[0]], name="x")
    y = lib.placeholder(lib.int64, [None], name="y")
    h = x
    for i, w in enumerate(ws):
        wv = lib.Variable(w, name=f"w{i}")
        bv = lib.Variable(np.zeros(w.shape[1], np.float32), name=f"b{i}")
        h = lib.matmul(h, wv) + bv
        if i < len(ws) - 1:
            h = lib.nn.relu(h)
    loss = lib.reduce_mean(lib.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    opt = (lib.train.GradientDescentOptimizer(0.01) if optimizer == "sgd"
           else lib.train.AdamOptimizer(1e-3))
    train = opt.minimize(loss)
    return x, y, loss, train, lib.global_variables_initializer()


def matmul_floor(ws, xb):
    """The step's matrix products alone, in numpy."""
    acts = [xb]
    for w in ws:
        acts.append(acts[-1] @ w)
    grads = [np.ones_like(a) for a in acts[1:]]

    def products():
        h = xb
        for w in ws:
            h = h @ w
        for i in range(len(ws)):
            acts[i].T @ grads[i]          # weight gradients
            if i > 0:
                grads[i] @ ws[i].T        # input gradients (not for the first layer)
    return products


def session_step(lib, ws, xb, yb, optimizer):
    g = lib.Graph()
    with g.as_default():
        x, y, loss, train, init = declare(lib, ws, optimizer)
    sess = lib.Session(graph=g)
    sess.run(init)
    feed = {x: xb, y: yb}
    return lambda: sess.run(train, feed), lambda: sess.run(loss, feed)


def main():
    tf1 = tensorflow_v1()
    if tf1 is None:
        print("(tensorflow not installed: TF1 columns skipped)")
    ws, xb, yb = data()
    results = {}
    for optimizer in ("sgd", "adam"):
        step, loss = session_step(sg, ws, xb, yb, optimizer)
        before = float(loss())
        candidates = {"matrix products alone (numpy)": matmul_floor(ws, xb),
                      f"staticgraph {optimizer} step": step}
        if tf1 is not None:
            tstep, _ = session_step(tf1, ws, xb, yb, optimizer)
            candidates[f"tf1 {optimizer} step"] = tstep
        times = compare(candidates, rounds=7, round_budget_s=0.25)
        after = float(loss())
        assert after < before, f"{optimizer}: loss did not decrease ({before} -> {after})"
        report(f"MLP 784-512-256-10 {optimizer} step, batch {BATCH}", times,
               "matrix products alone (numpy)")
        results[optimizer] = times
    print("\nTargets: SGD <= 1.3x its matrix products and <= TF1; Adam <= TF1")
    for optimizer, times in results.items():
        ours = times[f"staticgraph {optimizer} step"]
        line = f"{optimizer}: {ours / times['matrix products alone (numpy)']:.2f}x matrix products"
        if f"tf1 {optimizer} step" in times:
            line += f", {ours / times[f'tf1 {optimizer} step']:.2f}x TF1"
        print(line)


if __name__ == "__main__":
    main()
