"""Session overhead and forward speed, side by side in one process.

1. A tiny graph, ``y = x*2+1`` on one element: ``sess.run`` and ``make_callable``
   against the same numpy expression (targets: run within 12x, callable within 5x).
2. A 784-512-256-10 MLP forward at batch 1024 against the same computation in numpy
   (target: within 1.05x).

TF1 graph mode runs alongside when ``tensorflow-cpu`` is installed (optional).
Run: ``python benchmarks/bench_session.py``.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import staticgraph as sg  # noqa: E402
from timing import compare, report, tensorflow_v1  # noqa: E402


def tiny_graph(tf1):
    a = np.ones(1, np.float32)
    g = sg.Graph()
    with g.as_default():
        x = sg.placeholder(sg.float32, [None], name="x")
        y = x * 2.0 + 1.0
    sess = sg.Session(graph=g)
    call = sess.make_callable(y, [x])
    candidates = {
        "numpy a*2+1": lambda: a * 2 + 1,
        "staticgraph sess.run": lambda: sess.run(y, {x: a}),
        "staticgraph make_callable": lambda: call(a),
    }
    if tf1 is not None:
        tg = tf1.Graph()
        with tg.as_default():
            tx = tf1.placeholder(tf1.float32, [None])
            ty = tx * 2.0 + 1.0
        tsess = tf1.Session(graph=tg)
        tcall = tsess.make_callable(ty, [tx])
        candidates["tf1 sess.run"] = lambda: tsess.run(ty, {tx: a})
        candidates["tf1 make_callable"] = lambda: tcall(a)
    return compare(candidates, rounds=9)


def mlp_forward(tf1, batch=1024):
    rng = np.random.default_rng(0)
    sizes = [784, 512, 256, 10]
    ws = [(rng.standard_normal((m, n)) * 0.05).astype(np.float32)
          for m, n in zip(sizes[:-1], sizes[1:])]
    bs = [np.zeros(n, np.float32) for n in sizes[1:]]
    xb = rng.standard_normal((batch, 784)).astype(np.float32)

    def numpy_forward():
        h = np.maximum(xb @ ws[0] + bs[0], 0)
        h = np.maximum(h @ ws[1] + bs[1], 0)
        return h @ ws[2] + bs[2]

    def declare(lib):
        x = lib.placeholder(lib.float32, [None, 784], name="x")
        h = x
        for i, (w, b) in enumerate(zip(ws, bs)):
            wv = lib.Variable(w, name=f"w{i}")
            bv = lib.Variable(b, name=f"b{i}")
            h = lib.matmul(h, wv) + bv
            if i < 2:
                h = lib.nn.relu(h)
        return x, h

    g = sg.Graph()
    with g.as_default():
        x, logits = declare(sg)
        init = sg.global_variables_initializer()
    sess = sg.Session(graph=g)
    sess.run(init)
    np.testing.assert_allclose(sess.run(logits, {x: xb}), numpy_forward(), rtol=1e-4, atol=1e-4)
    candidates = {
        "numpy forward": numpy_forward,
        "staticgraph sess.run": lambda: sess.run(logits, {x: xb}),
    }
    if tf1 is not None:
        tg = tf1.Graph()
        with tg.as_default():
            tx, tlogits = declare(tf1)
            tinit = tf1.global_variables_initializer()
        tsess = tf1.Session(graph=tg)
        tsess.run(tinit)
        candidates["tf1 sess.run"] = lambda: tsess.run(tlogits, {tx: xb})
    return compare(candidates, rounds=7, round_budget_s=0.3)


def main():
    tf1 = tensorflow_v1()
    if tf1 is None:
        print("(tensorflow not installed: TF1 columns skipped; pip install tensorflow-cpu to "
              "add them)")
    tiny = tiny_graph(tf1)
    report("Tiny graph y = x*2+1 (one element)", tiny, "numpy a*2+1")
    mlp = mlp_forward(tf1)
    report("MLP 784-512-256-10 forward, batch 1024", mlp, "numpy forward")
    print("\nTargets: sess.run <= 12x numpy, make_callable <= 5x numpy, MLP forward <= 1.05x numpy")
    run_ratio = tiny["staticgraph sess.run"] / tiny["numpy a*2+1"]
    call_ratio = tiny["staticgraph make_callable"] / tiny["numpy a*2+1"]
    mlp_ratio = mlp["staticgraph sess.run"] / mlp["numpy forward"]
    print(f"Measured: sess.run {run_ratio:.2f}x, make_callable {call_ratio:.2f}x, "
          f"MLP {mlp_ratio:.3f}x")


if __name__ == "__main__":
    main()
