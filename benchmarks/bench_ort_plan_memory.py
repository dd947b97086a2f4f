"""Memory per compiled plan with a large constant: the numpy and onnxruntime backends.

A graph holds one 40 MB constant (a 2560x4096 float32 matrix); each signature
``sum(matmul(x, C) * k)`` (k = 1, 2, ...) is a new plan of one session. Each
measurement runs in a fresh process: compile and run the first signature (imports,
arenas and the shared constant are paid there), then N more, and report the
growth of the resident set per extra plan.

Before plans shared constants, each onnxruntime plan embedded the constant (in its
ONNX model, in onnxruntime's copy of it and in the pre-packed MatMul weights) and
kept its own memory arena: ~115 MB per signature. ``--before DIR`` measures the
staticgraph sources in DIR too (e.g. ``git archive <commit> | tar -x -C DIR``) and
prints the ratio.

Run: ``python benchmarks/bench_ort_plan_memory.py [--plans 20] [--before DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROWS, COLS = 2560, 4096  # 40 MiB of float32


def _rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def measure(backend: str, plans: int) -> dict:
    """In this process: RSS after the first plan and MB added per further plan."""
    import gc

    import numpy as np

    import staticgraph as sg
    weights = np.random.default_rng(0).standard_normal((ROWS, COLS)).astype(np.float32)
    g = sg.Graph()
    with g.as_default():
        x = sg.placeholder(sg.float32, [None, ROWS], name="x")
        c = sg.constant(weights, name="C")
        product = sg.matmul(x, c)
        outs = [sg.reduce_sum(product * float(k)) for k in range(1, plans + 2)]
    del weights
    kwargs = {"backend": backend}
    if backend == "onnxruntime":
        kwargs["device"] = "cpu"
    sess = sg.Session(graph=g, **kwargs)
    xb = np.ones((1, ROWS), np.float32)
    first = sess.run(outs[0], {x: xb})
    gc.collect()
    start = _rss_mb()
    for k, out in enumerate(outs[1:], start=2):
        value = sess.run(out, {x: xb})
        assert np.isclose(value, first * k, rtol=1e-4), (value, first * k)
    gc.collect()
    end = _rss_mb()
    return {"backend": backend, "rss_first_mb": start, "rss_end_mb": end,
            "mb_per_plan": (end - start) / plans}


def _child(backend: str, plans: int, src: str | None) -> dict:
    """``measure`` in a fresh Python process (with ``src`` first on its path)."""
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([src] + [p for p in [env.get("PYTHONPATH")] if p])
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import bench_ort_plan_memory "
            "as b; import staticgraph; print(json.dumps(dict(b.measure(sys.argv[2], "
            "int(sys.argv[3])), source=staticgraph.__file__)))")
    here = os.path.dirname(os.path.abspath(__file__))
    # cwd: the benchmarks folder, so that "staticgraph" is the one on the path
    proc = subprocess.run([sys.executable, "-c", code, here, backend, str(plans)], cwd=here,
                          capture_output=True, text=True, env=env, timeout=1800, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the {backend} measurement failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plans", type=int, default=20, help="signatures after the first")
    parser.add_argument("--before", metavar="DIR",
                        help="also measure the staticgraph sources in DIR (the old code)")
    args = parser.parse_args()
    rows = [("numpy", None), ("onnxruntime", None)]
    if args.before:
        rows.append(("onnxruntime", os.path.abspath(args.before)))
    results = {}
    print(f"40 MB constant, {args.plans} signatures after the first, fresh process each")
    for backend, src in rows:
        r = _child(backend, args.plans, src)
        label = f"{backend} ({'before: ' + src if src else 'this tree'})"
        assert src is None or r["source"].startswith(src), r["source"]
        results[(backend, src)] = r
        print(f"  {label:48s} {r['mb_per_plan']:8.1f} MB/plan   RSS {r['rss_first_mb']:7.0f}"
              f" -> {r['rss_end_mb']:7.0f} MB")
    if args.before:
        before = results[("onnxruntime", os.path.abspath(args.before))]["mb_per_plan"]
        after = results[("onnxruntime", None)]["mb_per_plan"]
        print(f"onnxruntime MB per plan: before {before:.1f}, after {after:.1f}: "
              f"{before / max(after, 1e-3):.0f}x less")


if __name__ == "__main__":
    main()
