"""python -m staticgraph show: graph JSON files and ONNX models to SVG/DOT, summaries, errors."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.__main__ import main
from staticgraph.export import save_graph

from .test_dot import _fake_dot, parse_dot

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def _graph_file(tmp_path):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        with tf.name_scope("layer1"):
            w = tf.Variable(tf.ones([4, 3]), name="w")
            tf.nn.relu(tf.matmul(x, w))
    return save_graph(g, str(tmp_path / "model.json")), g


def _onnx_file(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array(np.ones((4, 3), np.float32), name="dense/kernel")
    nodes = [helper.make_node("MatMul", ["input", "dense/kernel"], ["mm"], name="dense/MatMul"),
             helper.make_node("Relu", ["mm"], ["output"], name="dense/Relu")]
    graph = helper.make_graph(
        nodes, "net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["N", 3])],
        initializer=[w],
        value_info=[helper.make_tensor_value_info("mm", TensorProto.FLOAT, ["N", 3])])
    model = helper.make_model(graph)
    path = tmp_path / "net.onnx"
    onnx.save(model, str(path))
    return str(path)


def test_show_graph_file_falls_back_to_dot_without_graphviz(tmp_path, monkeypatch):
    path, g = _graph_file(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    code, out, err = _run(["show", path])
    assert code == 0
    assert "not installed" in err and "apt-get install graphviz" in err
    dot = tmp_path / "model.dot"
    d = parse_dot(dot.read_text())
    assert set(d.nodes) == {op.name for op in g.get_operations()}
    assert d.edge("x", "layer1/MatMul")["label"] == "float32[?,4]"
    assert not (tmp_path / "model.svg").exists()


def test_show_to_svg_through_graphviz_with_collapse(tmp_path, monkeypatch):
    path, g = _graph_file(tmp_path)
    bindir, log = _fake_dot(tmp_path)
    monkeypatch.setenv("PATH", str(bindir))
    code, out, err = _run(["show", path, "--collapse", "1"])
    assert code == 0, err
    svg = tmp_path / "model.svg"
    assert log.read_text().split("\n") == ["-Tsvg", "-o", str(svg)]
    d = parse_dot(svg.read_text())      # the fake dot copies its input
    count = sum(1 for op in g.get_operations() if op.name.startswith("layer1/"))
    assert d.nodes["layer1/"]["label"] == f"layer1/\n{count} ops"
    assert f"wrote {svg}" in out


def test_show_onnx_model_dot_and_summary(tmp_path):
    path = _onnx_file(tmp_path)
    out_path = tmp_path / "drawing.dot"
    code, out, err = _run(["show", path, "-o", str(out_path), "--summary"])
    assert code == 0, err
    d = parse_dot(out_path.read_text())
    assert d.nodes["input"]["shape"] == "invhouse"
    assert d.nodes["dense/kernel"]["shape"] == "cylinder"
    assert d.nodes["dense/MatMul"]["label"].split("\n")[:2] == ["MatMul", "MatMul"]
    assert d.cluster_path("dense/MatMul") == ["cluster_dense"]
    assert d.edge("input", "dense/MatMul")["label"] == "float32[?,4]"
    assert d.edge("dense/kernel", "dense/MatMul")["label"] == "float32[4,3]"
    assert d.edge("dense/MatMul", "dense/Relu")["label"] == "float32[?,3]"
    assert d.edge("dense/Relu", "output (output)")["label"] == "float32[?,3]"
    assert "Total parameters: 12" in out
    assert any(line.split()[:2] == ["input", "float32"] for line in out.splitlines())
    assert any(line.split() == ["MatMul", "1"] for line in out.splitlines())


def test_show_format_dot_and_summary_only(tmp_path):
    path, g = _graph_file(tmp_path)
    code, out, err = _run(["show", path, "--format", "dot"])
    assert code == 0 and (tmp_path / "model.dot").exists()
    code, out, err = _run(["show", path, "--summary", "--no-draw"])
    assert code == 0 and "Total parameters: 12" in out


@pytest.mark.parametrize("make", ["missing", "directory", "garbage_json", "garbage_onnx"])
def test_unreadable_files_exit_cleanly(tmp_path, make):
    path = tmp_path / {"missing": "nope.json", "directory": "dir.json",
                       "garbage_json": "bad.json", "garbage_onnx": "bad.onnx"}[make]
    if make == "directory":
        path.mkdir()
    elif make == "garbage_json":
        path.write_text('{"not": "a graph"')
    elif make == "garbage_onnx":
        path.write_bytes(b"\xff\x00garbage" * 10)
    code, out, err = _run(["show", str(path)])
    assert code == 1
    assert err.startswith("error: ") and str(path) in err
    assert "Traceback" not in err


def test_bad_arguments():
    assert _run([])[0] == 2
    assert _run(["show"])[0] == 2
    assert _run(["show", "x.json", "--format", "gif"])[0] == 2


def test_module_entry_point(tmp_path):
    path, g = _graph_file(tmp_path)
    env = dict(os.environ, PATH=str(tmp_path / "nothing"), PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-m", "staticgraph", "show", path, "-o",
                           str(tmp_path / "out.dot")], capture_output=True, text=True,
                          env=env, cwd=str(tmp_path), timeout=120)
    assert done.returncode == 0, done.stderr
    assert parse_dot((tmp_path / "out.dot").read_text()).nodes["x"]
    done = subprocess.run([sys.executable, "-m", "staticgraph", "show",
                           str(tmp_path / "missing.json")], capture_output=True, text=True,
                          env=env, cwd=str(tmp_path), timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "no such file" in done.stderr
