"""Declaring, differentiating, optimizing and compiling large graphs; training steps by level.

1. A chain of N elementwise steps ``y = tanh(y * 1.0001 + 0.001)`` (5 ops a step: two
   Python scalars become Const ops) for N = 1,000 / 4,000 / 16,000: graph build time,
   first run (optimize + plan + run) at level 2, steady run at levels 2 and 0 against
   the plain numpy loop over the same N steps, and the gradient graph's build time
   (``tf.gradients``). Each figure is printed with its growth per doubling of N
   (2.00 = linear). The build time includes CPython's garbage collector, whose share
   is printed under it.
2. The 784-512-256-10 MLP SGD and Adam training steps at batch 128 (the program of
   ``bench_training.py``) at levels 0 and 2, with the peak memory one step allocates
   (``tracemalloc``; numpy reports its buffers to it).

TF1 graph mode (``tensorflow.compat.v1``) runs alongside when tensorflow is installed
(optional, imported lazily): the chain only for N = 1,000 (TF1 is slow there; pass
``--tf1-large`` for 4,000 too), the MLP steps always.

Targets: build < 0.5 s and first run < 1 s at N = 16,000; gradient build < 1 s at
N = 4,000; every figure linear in N; steady run no slower than numpy; level-2 SGD step
within 1.2x of its matrix products; Adam <= 0.9x TF1; level 2 allocating less than
level 0. Run: ``python benchmarks/bench_optimizer.py [--quick] [--tf1-large]``.
"""

from __future__ import annotations

import gc
import math
import os
import sys
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import staticgraph as sg  # noqa: E402
from bench_training import data, declare, matmul_floor  # noqa: E402
from timing import compare, report, tensorflow_v1  # noqa: E402

WIDTH = 64                       # elements of the chain's vector
SIZES = (1000, 4000, 16000)
X = np.linspace(-1.0, 1.0, WIDTH).astype(np.float32)


# ----------------------------------------------------------------------------- chain
class CollectorTime:
    """Seconds CPython's cyclic garbage collector ran inside the block."""

    def __init__(self):
        self.seconds, self._start = 0.0, None

    def _callback(self, phase, info):
        if phase == "start":
            self._start = time.perf_counter()
        elif self._start is not None:
            self.seconds += time.perf_counter() - self._start

    def __enter__(self):
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self._callback)


def chain(lib, n):
    """Declare the chain in a new graph: (graph, x, y, seconds to build, of which GC)."""
    g = lib.Graph()
    gc.collect()
    with CollectorTime() as collector:
        t0 = time.perf_counter()
        with g.as_default():
            x = lib.placeholder(lib.float32, [WIDTH], name="x")
            y = x
            for _ in range(n):
                y = lib.tanh(y * 1.0001 + 0.001)
        elapsed = time.perf_counter() - t0
    return g, x, y, elapsed, collector.seconds


def numpy_chain(n):
    def run():
        y = X
        for _ in range(n):
            y = np.tanh(y * 1.0001 + 0.001)
        return y
    return run


def session(lib, g, level=None):
    if lib is sg:
        return sg.Session(graph=g, optimizer_level=level)
    return lib.Session(graph=g)


def first_run(lib, g, x, y, n, level=None):
    """(seconds of the first run of a new session, the session); checks the result."""
    sess = session(lib, g, level)
    gc.collect()
    t0 = time.perf_counter()
    out = sess.run(y, {x: X})
    elapsed = time.perf_counter() - t0
    np.testing.assert_allclose(out, numpy_chain(n)(), rtol=2e-4, atol=2e-5)
    return elapsed, sess


def gradient_build(lib, g, y, x):
    gc.collect()
    with g.as_default():
        t0 = time.perf_counter()
        dx = lib.gradients(y, x)[0]
        return time.perf_counter() - t0, dx


def measure_chain(lib, n, best_of, with_gradient=True):
    """Build, first run, steady runs and gradient build of the chain of ``n`` steps."""
    out = {}
    builds = []
    for _ in range(best_of):
        g, x, y, t, in_gc = chain(lib, n)
        builds.append((t, in_gc))
    out["build"], out["  of which GC"] = min(builds)
    out["  build minus GC"] = out["build"] - out["  of which GC"]
    out["first run L2"], sess2 = first_run(lib, g, x, y, n, 2)
    steady = {"L2": lambda: sess2.run(y, {x: X})}
    if lib is sg:
        _, sess0 = first_run(lib, g, x, y, n, 0)
        steady["L0"] = lambda: sess0.run(y, {x: X})
    steady["numpy"] = numpy_chain(n)
    times = compare(steady, rounds=5, round_budget_s=0.05 if n <= 4000 else 0.15)
    out["steady L2"] = times["L2"]
    if "L0" in times:
        out["steady L0"] = times["L0"]
    out["numpy loop"] = times["numpy"]
    if with_gradient:
        out["gradient build"], _ = gradient_build(lib, g, y, x)
    return out


def _fmt(seconds):
    if seconds is None:
        return "        -"
    if seconds < 1:
        return f"{seconds * 1e3:7.1f} ms"
    return f"{seconds:7.3f} s "


def print_chain_table(title, rows, sizes):
    print(f"\n{title}")
    keys = list(next(iter(rows.values())))
    head = "".join(f"{'N=' + format(n, ','):>12}" for n in sizes)
    print(f"  {'':<16}{head}   growth per doubling of N (2.00 = linear)")
    for key in keys:
        cells = "".join(f"{_fmt(rows[n].get(key)):>12}" for n in sizes)
        growth = []
        for a, b in zip(sizes, sizes[1:]):
            ta, tb = rows[a].get(key), rows[b].get(key)
            if ta and tb:
                growth.append(f"{(tb / ta) ** (1 / math.log2(b / a)):.2f}")
        print(f"  {key:<16}{cells}   {' '.join(growth)}")


# ------------------------------------------------------------------------------- mlp
def mlp_step(lib, ws, xb, yb, optimizer, level=None):
    g = lib.Graph()
    with g.as_default():
        x, y, loss, train, init = declare(lib, ws, optimizer)
    sess = session(lib, g, level)
    sess.run(init)
    feed = {x: xb, y: yb}
    return (lambda: sess.run(train, feed)), (lambda: float(sess.run(loss, feed)))


def peak_bytes(step):
    """Peak bytes allocated (Python objects and numpy buffers) during one call."""
    step()  # warm: plans compiled, buffers of in-place kernels allocated
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        step()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak - base


def measure_mlp(tf1):
    ws, xb, yb = data()
    results = {}
    for optimizer in ("sgd", "adam"):
        candidates = {"matrix products alone (numpy)": matmul_floor(ws, xb)}
        losses = {}
        for level in (0, 2):
            step, loss = mlp_step(sg, ws, xb, yb, optimizer, level)
            losses[level] = loss
            candidates[f"staticgraph level {level}"] = step
        if tf1 is not None:
            step, _ = mlp_step(tf1, ws, xb, yb, optimizer)
            candidates["tf1"] = step
        before = {k: f() for k, f in losses.items()}
        times = compare(candidates, rounds=7, round_budget_s=0.25)
        for level, f in losses.items():
            assert f() < before[level], f"{optimizer} level {level}: loss did not decrease"
        report(f"MLP 784-512-256-10 {optimizer} step, batch 128", times,
               "matrix products alone (numpy)")
        memory = {level: peak_bytes(candidates[f"staticgraph level {level}"])
                  for level in (0, 2)}
        print("  peak memory of one step: " + ", ".join(
            f"level {lv} {b / 2**20:.2f} MiB" for lv, b in memory.items()))
        results[optimizer] = (times, memory)
    return results


# ------------------------------------------------------------------------------ main
def main():
    quick = "--quick" in sys.argv
    sizes = SIZES[:2] if quick else SIZES
    rows = {n: measure_chain(sg, n, best_of=2 if n <= 4000 else 1) for n in sizes}
    print_chain_table(f"staticgraph: chain y = tanh(y*1.0001 + 0.001), {WIDTH} floats "
                      "(5 ops a step)", rows, sizes)
    # TensorFlow is imported only now: its ~330,000 Python objects would otherwise
    # slow every full garbage collection while the chains above are declared.
    tf1 = tensorflow_v1()
    if tf1 is None:
        print("(tensorflow not installed: TF1 columns skipped)")
    tf_rows = {}
    if tf1 is not None:
        tf_sizes = (1000, 4000) if "--tf1-large" in sys.argv else (1000,)
        tf_rows = {n: measure_chain(tf1, n, best_of=1) for n in tf_sizes}
        print_chain_table("TF1 graph mode, same chain", tf_rows, tf_sizes)

    mlp = measure_mlp(tf1)

    # ------------------------------------------------------------- against targets
    big, mid = sizes[-1], (4000 if 4000 in rows else sizes[-1])
    print("\nTargets (ratio = measured / target; <= 1.00 meets it; "
          "linear = at most 2.2x per doubling)")
    lines = []

    def target(label, measured, goal, unit="s"):
        ratio = measured / goal
        shown = f"{measured:.3f} {unit}" if unit == "s" else f"{measured:.2f}{unit}"
        goal_shown = f"{goal:.3f} {unit}" if unit == "s" else f"{goal:.2f}{unit}"
        lines.append((label, shown, goal_shown, ratio))

    target(f"build, N={big:,}", rows[big]["build"], 0.5)
    target(f"first run (level 2), N={big:,}", rows[big]["first run L2"], 1.0)
    target(f"gradient build, N={mid:,}", rows[mid]["gradient build"], 1.0)
    for key in ("build", "first run L2", "gradient build", "steady L2", "steady L0"):
        a, b = sizes[0], sizes[-1]
        if rows[a].get(key) and rows[b].get(key):
            per_doubling = (rows[b][key] / rows[a][key]) ** (1 / math.log2(b / a))
            target(f"{key}: growth per doubling", per_doubling, 2.2, "x")
    for level in ("L2", "L0"):
        target(f"steady {level} / numpy loop, N={big:,}",
               rows[big][f"steady {level}"] / rows[big]["numpy loop"], 1.0, "x")
    sgd_times, sgd_mem = mlp["sgd"]
    adam_times, adam_mem = mlp["adam"]
    target("SGD level 2 / matrix products", sgd_times["staticgraph level 2"]
           / sgd_times["matrix products alone (numpy)"], 1.2, "x")
    if "tf1" in adam_times:
        target("Adam level 2 / TF1", adam_times["staticgraph level 2"] / adam_times["tf1"],
               0.9, "x")
    for name, memory in (("SGD", sgd_mem), ("Adam", adam_mem)):
        target(f"{name} peak memory level 2 / level 0", memory[2] / memory[0], 1.0, "x")
    if 1000 in tf_rows:
        print(f"  (TF1 at N=1,000: build {tf_rows[1000]['build']:.3f} s, first run "
              f"{tf_rows[1000]['first run L2']:.3f} s, gradient build "
              f"{tf_rows[1000]['gradient build']:.3f} s; staticgraph: "
              f"{rows[1000]['build']:.3f} s, {rows[1000]['first run L2']:.3f} s, "
              f"{rows[1000]['gradient build']:.3f} s)")
    for label, shown, goal, ratio in lines:
        mark = "ok" if ratio <= 1.0 else "MISSED"
        print(f"  {label:<44} {shown:>12}  target {goal:>10}  {ratio:5.2f}  {mark}")


if __name__ == "__main__":
    main()
