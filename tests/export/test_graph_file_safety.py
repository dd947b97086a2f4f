"""Graph files under hostile conditions: FIFOs and devices, a small address space,
kill -9 while overwriting, oversized and deeply nested files, and bad collections."""

from __future__ import annotations

import hashlib
import json
import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.export.graph_file import graph_file_paths
from staticgraph.graphlib.graph_def_format import (MAX_JSON_VALUES, MAX_LIST,
                                                   InvalidGraphDefError, content_digest)

CHILD_ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
             "MKL_NUM_THREADS": "1"}


def _graph(value, n=300):
    """A graph with a sidecar constant (n floats) and an inline one, both ``value``."""
    g = tf.Graph()
    with g.as_default():
        tf.constant(np.full(n, value, np.float32), name="big")
        tf.constant(np.full(3, value, np.float32), name="small")
    return g


def _values(g):
    return (g.get_operation_by_name("big").attrs["value"],
            g.get_operation_by_name("small").attrs["value"])


def _run_child(code, *args, timeout=60):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=timeout, env=CHILD_ENV)


# ------------------------------------------------------------- not regular files
def test_fifo_graph_file_is_refused_without_blocking(tmp_path):
    fifo = str(tmp_path / "graph.json")
    os.mkfifo(fifo)
    # In a child with a timeout: the old loader blocked forever opening the FIFO.
    out = _run_child("""
        import sys, staticgraph as tf
        try:
            tf.export.load_graph(sys.argv[1])
        except tf.errors.InvalidArgumentError as e:
            print("refused:", e)
    """, fifo, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "refused:" in out.stdout and "FIFO" in out.stdout


def test_fifo_sidecar_and_device_are_refused(tmp_path):
    path = str(tmp_path / "m.json")
    tf.export.save_graph(_graph(1.0), path)
    sidecar, = graph_file_paths(path)[1:]
    os.remove(sidecar)
    os.mkfifo(sidecar)
    with pytest.raises(tf.errors.InvalidArgumentError, match="FIFO"):
        tf.export.load_graph(path)
    with pytest.raises(tf.errors.InvalidArgumentError, match="device"):
        tf.export.load_graph("/dev/zero")
    with pytest.raises(tf.errors.NotFoundError, match="directory"):
        tf.export.load_graph(str(tmp_path))


def test_save_and_load_under_small_address_space(tmp_path):
    # The old loader reserved its limits (1 GiB for the JSON, 16 GiB for the sidecar)
    # before reading: with 1 GiB of address space above what the import needs, it
    # raised MemoryError for a 300-float constant.
    out = _run_child("""
        import resource, sys
        import numpy as np
        import staticgraph as tf
        def vm_size():
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmSize:"):
                        return int(line.split()[1]) * 1024
        limit = vm_size() + (1 << 30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        g = tf.Graph()
        with g.as_default():
            tf.constant(np.arange(300, dtype=np.float32), name="c")
        tf.export.save_graph(g, sys.argv[1])
        value = tf.export.load_graph(sys.argv[1]).get_operation_by_name("c").attrs["value"]
        print("sum", float(value.sum()))
    """, str(tmp_path / "m.json"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert "sum 44850.0" in out.stdout


# ------------------------------------------------------------- crash-safe pairs
def test_sidecar_named_by_content_and_stale_ones_removed(tmp_path):
    path = str(tmp_path / "m.json")
    tf.export.save_graph(_graph(1.0), path)
    files1 = graph_file_paths(path)
    with open(path) as f:
        digest = json.load(f)["tensors_sha256"]
    with open(files1[1], "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == digest
    assert [os.path.basename(p) for p in files1] == ["m.json",
                                                     f"m.json.{digest[:16]}.safetensors"]
    tf.export.save_graph(_graph(2.0), path)
    files2 = graph_file_paths(path)
    assert len(files2) == 2 and files2[1] != files1[1]          # the old one is gone
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(p) for p in files2)
    np.testing.assert_array_equal(_values(tf.export.load_graph(path))[0], np.full(300, 2.0))
    tf.export.save_graph(_graph(3.0, n=3), path)                  # no sidecar needed now
    assert graph_file_paths(path) == [path] and os.listdir(tmp_path) == ["m.json"]


def test_older_layout_still_loads_and_is_replaced(tmp_path):
    path = str(tmp_path / "m.json")
    tf.export.save_graph(_graph(5.0), path)
    sidecar = graph_file_paths(path)[1]
    os.rename(sidecar, path + ".safetensors")     # the layout of earlier staticgraph
    big, small = _values(tf.export.load_graph(path))
    np.testing.assert_array_equal(big, np.full(300, 5.0))
    np.testing.assert_array_equal(small, np.full(3, 5.0))
    assert graph_file_paths(path) == [path, path + ".safetensors"]
    tf.export.save_graph(_graph(6.0), path)
    assert len(graph_file_paths(path)) == 2
    assert not os.path.exists(path + ".safetensors")


def test_renamed_pair_loads_and_a_stale_sidecar_is_refused(tmp_path):
    path = str(tmp_path / "m.json")
    tf.export.save_graph(_graph(4.0), path)
    for p in graph_file_paths(path):            # rename the JSON and its sidecar alike
        os.rename(p, p.replace("m.json", "n.json", 1))
    renamed = str(tmp_path / "n.json")
    np.testing.assert_array_equal(_values(tf.export.load_graph(renamed))[0], np.full(300, 4.0))
    old_sidecar = graph_file_paths(renamed)[1]
    tf.export.save_graph(_graph(7.0), path)     # another graph's sidecar, in n.json's name
    os.replace(graph_file_paths(path)[1], old_sidecar)
    with pytest.raises(tf.errors.DataLossError, match="does not match"):
        tf.export.load_graph(renamed)


# One child imports staticgraph once, then forks a writer per round that overwrites
# the graph file in a loop with two alternating versions until it is killed.
_WRITERS = """
    import os, sys
    import numpy as np
    import staticgraph as tf
    graphs = []
    for v in (1.0, 2.0):
        g = tf.Graph()
        with g.as_default():
            tf.constant(np.full(300, v, np.float32), name="big")
            tf.constant(np.full(3, v, np.float32), name="small")
        graphs.append(g)
    for _ in sys.stdin:
        pid = os.fork()
        if pid == 0:
            try:
                i = 0
                while True:
                    tf.export.save_graph(graphs[i % 2], sys.argv[1])
                    i += 1
            finally:
                os._exit(1)
        print(pid, flush=True)
        _, status = os.waitpid(pid, 0)
        print(status, flush=True)
"""


def _readline(proc, deadline):
    """A line of the child's output, failing the test past ``deadline``."""
    line = b""
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        assert left > 0, "the writer process did not answer in time"
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 1)
            assert chunk, f"the writer process ended: {proc.stderr.read()[-2000:]!r}"
            line += chunk
    return line.decode().strip()


def test_kill_9_while_overwriting_leaves_a_loadable_pair(tmp_path):
    path = str(tmp_path / "m.json")
    tf.export.save_graph(_graph(1.0), path)
    rng = random.Random(20240601)
    kills = 10
    writers = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_WRITERS), path],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=CHILD_ENV)
    deadline = time.monotonic() + 60
    try:
        for _ in range(kills):
            writers.stdin.write(b"go\n")
            writers.stdin.flush()
            pid = int(_readline(writers, deadline))
            time.sleep(rng.uniform(0.005, 0.1))         # some saves in, then a random moment
            os.kill(pid, signal.SIGKILL)
            status = int(_readline(writers, deadline))
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
            big, small = _values(tf.export.load_graph(path))   # JSON and sidecar of one save
            assert small[0] in (1.0, 2.0)
            np.testing.assert_array_equal(big, np.full(300, small[0]))
            np.testing.assert_array_equal(small, np.full(3, small[0]))
        writers.stdin.close()
        assert writers.wait(timeout=30) == 0, writers.stderr.read()[-2000:]
    finally:
        if writers.poll() is None:
            writers.kill()
            writers.wait(timeout=30)
        writers.stdout.close()
        writers.stderr.close()
    # The next save removes what the killed writers left: temporary files and sidecars
    # the JSON does not name.
    tf.export.save_graph(_graph(3.0), path)
    assert sorted(os.listdir(tmp_path)) == sorted(os.path.basename(p)
                                                  for p in graph_file_paths(path))
    assert len(os.listdir(tmp_path)) == 2


# ------------------------------------------------------------- size limits
def test_file_beyond_the_value_limit_is_refused_before_parsing(tmp_path):
    # One list attribute of MAX_JSON_VALUES / 2 + 1 items: json.loads would build
    # ~2M dicts (hundreds of MB); the pre-scan refuses the text first.
    n = MAX_JSON_VALUES // 2 + 1
    path = str(tmp_path / "big.json")
    head = ('{"format": "staticgraph.GraphDef", "version": 1, "ops": [{"name": "p", '
            '"type": "Placeholder", "attrs": {"dtype": {"dtype": "float32"}, "shape": '
            '{"list": [')
    with open(path, "w") as f:
        f.write(head + ",".join(['{"i":1}'] * n) + "]}}}]}")
    size = os.path.getsize(path)
    tracemalloc.start()
    try:
        with pytest.raises(InvalidGraphDefError, match="JSON values"):
            tf.export.load_graph(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * size + (8 << 20), (peak, size)


def test_long_attribute_list_is_refused(tmp_path):
    items = [{"i": 1}] * (MAX_LIST + 1)
    data = {"format": "staticgraph.GraphDef", "version": 1, "ops": [
        {"name": "p", "type": "Placeholder",
         "attrs": {"dtype": {"dtype": "float32"}, "shape": {"list": items}}}]}
    with pytest.raises(InvalidGraphDefError, match="exceeds the limit"):
        tf.import_graph_def(data)


# ------------------------------------------------------------- nesting
def _write(path, data):
    text = data if isinstance(data, str) else json.dumps(data)
    with open(path, "w") as f:
        f.write(text)


def _nested_attr(depth) -> str:
    """JSON text of an attribute value nested ``depth`` lists deep."""
    return '{"list":[' * depth + '{"i":1}' + "]}" * depth


@pytest.mark.parametrize("depth", [40, 200, 480])
def test_deeply_nested_files_give_typed_errors(tmp_path, depth):
    # 480 attribute levels are 960 JSON levels: Python's parser may give up (DataLoss).
    expected = InvalidGraphDefError if depth <= 200 else (InvalidGraphDefError,
                                                          tf.errors.DataLossError)
    path = str(tmp_path / "m.json")
    base = '{"format": "staticgraph.GraphDef", "version": 1, '
    deep = _nested_attr(depth)
    cases = [
        base + '"ops": [{"name": "p", "type": "Placeholder", "attrs": {"dtype": {"dtype": '
               '"float32"}, "shape": ' + deep + "}}]}",
        base + '"collections": {"c": [{"value": ' + deep + "}]}}",
        base + '"ops": [{"name": "p", "type": "NoOp", "frame": ' + deep + "}]}",
        base + '"unknown": ' + deep + "}",
        base + '"collections": {"c": [' + deep + "]}}",
    ]
    for text in cases:
        _write(path, text)
        with pytest.raises(expected):
            tf.export.load_graph(path)
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        _write(path, text)
        with pytest.raises(tf.errors.DataLossError, match="nested too deeply"):
            tf.export.load_graph(path)


def test_deep_meta_graph_fields_give_typed_errors(tmp_path):
    path = str(tmp_path / "m.meta")
    g = tf.Graph()
    with g.as_default():
        tf.Variable([1.0], name="v")
        meta = tf.train.export_meta_graph(path)
    with open(path) as f:
        data = json.load(f)
    del data["sha256"]
    text = json.dumps(data)
    for key in ("saver_def", "format", "version"):
        data[key] = "DEEP"
        deep = '{"max_to_keep": ' + _nested_attr(400) + "}"
        _write(path, json.dumps(data).replace('"DEEP"', deep))
        with tf.Graph().as_default(), pytest.raises(InvalidGraphDefError):
            tf.train.import_meta_graph(path)
        data = json.loads(text)
    _write(path, '{"format":' + "[" * 100_000 + "]" * 100_000 + "}")
    with tf.Graph().as_default(), pytest.raises(tf.errors.DataLossError):
        tf.train.import_meta_graph(path)
    assert meta["format"] == "staticgraph.MetaGraphDef"


# ------------------------------------------------------------- variable collections
@pytest.mark.parametrize("key", ["variables", "trainable_variables"])
@pytest.mark.parametrize("entry", [{"string": "w"}, {"tensor": "v:0"}, {"operation": "v"},
                                   {"value": {"i": 3}}])
def test_non_variables_in_variable_collections_are_refused(tmp_path, key, entry):
    g = tf.Graph()
    with g.as_default():
        tf.Variable([1.0], name="v")
    path = str(tmp_path / "m.json")
    tf.export.save_graph(g, path)
    with open(path) as f:
        data = json.load(f)
    del data["sha256"]
    data["collections"][key].append(entry)
    data["sha256"] = content_digest(data)
    _write(path, data)
    with pytest.raises(InvalidGraphDefError, match=f"Collection '{key}'.*entry #1"):
        tf.export.load_graph(path)
    data["collections"][key].pop()
    del data["sha256"]
    _write(path, data)
    with tf.export.load_graph(path).as_default():        # the valid file still loads
        assert [v.name for v in tf.global_variables()] == ["v:0"]
        tf.global_variables_initializer()
