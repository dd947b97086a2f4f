"""to_dot / render: the DOT text is parsed (nodes, edges, nested clusters) and checked."""

from __future__ import annotations

import re
import shutil
import stat
import sys
import time
import xml.etree.ElementTree as ET

import pytest

import staticgraph as tf
from staticgraph.export import GraphvizNotFoundError, render, to_dot


# ----------------------------------------------------------------- DOT parser
_TOKEN = re.compile(r'\s*(?:(//[^\n]*)|("(?:[^"\\]|\\.)*")|(->|[{}\[\];=,])|([A-Za-z0-9_.#-]+))')


def _tokens(text):
    pos, out = 0, []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise ValueError(f"bad DOT at {text[pos:pos + 40]!r}")
        pos = m.end()
        comment, quoted, sym, word = m.groups()
        if comment:
            continue
        if quoted is not None:
            out.append(("id", re.sub(r"\\(.)", lambda g: "\n" if g.group(1) == "n"
                                     else g.group(1), quoted[1:-1])))
        elif sym is not None:
            out.append(("sym", sym))
        elif word is not None:
            out.append(("id", word))
    return out


class Dot:
    """A parsed digraph: nodes (attrs + cluster), edges, clusters (attrs, parent)."""

    def __init__(self, text):
        self.nodes, self.edges, self.clusters = {}, [], {}
        self.attrs = {}
        toks = _tokens(text)
        assert toks[0] == ("id", "digraph"), toks[:2]
        i = 2 if toks[1][0] == "id" else 1
        assert toks[i] == ("sym", "{")
        i = self._body(toks, i + 1, None)
        assert i == len(toks), "trailing tokens"

    def _attrs(self, toks, i):
        attrs = {}
        assert toks[i] == ("sym", "[")
        i += 1
        while toks[i] != ("sym", "]"):
            key = toks[i][1]
            assert toks[i + 1] == ("sym", "="), toks[i:i + 3]
            attrs[key] = toks[i + 2][1]
            i += 3
            if toks[i] == ("sym", ","):
                i += 1
        return attrs, i + 1

    def _body(self, toks, i, cluster):
        while True:
            kind, val = toks[i]
            if (kind, val) == ("sym", "}"):
                return i + 1
            if (kind, val) == ("sym", ";"):
                i += 1
                continue
            if kind == "id" and val == "subgraph":
                name = toks[i + 1][1]
                self.clusters[name] = {"parent": cluster, "attrs": {}}
                assert toks[i + 2] == ("sym", "{")
                i = self._body(toks, i + 3, name)
                continue
            if kind == "id" and val in ("graph", "node", "edge") and toks[i + 1] == ("sym", "["):
                attrs, i = self._attrs(toks, i + 1)
                if val == "graph":
                    self.attrs.update(attrs)
                continue
            if toks[i + 1] == ("sym", "="):
                target = self.clusters[cluster]["attrs"] if cluster else self.attrs
                target[val] = toks[i + 2][1]
                i += 3
                continue
            if toks[i + 1] == ("sym", "->"):
                dst = toks[i + 2][1]
                i += 3
                attrs = {}
                if toks[i] == ("sym", "["):
                    attrs, i = self._attrs(toks, i)
                self.edges.append((val, dst, attrs))
                continue
            attrs = {}
            i += 1
            if toks[i] == ("sym", "["):
                attrs, i = self._attrs(toks, i)
            assert val not in self.nodes, f"node {val} declared twice"
            attrs["_cluster"] = cluster
            self.nodes[val] = attrs

    # helpers
    def cluster_path(self, node):
        path, c = [], self.nodes[node]["_cluster"]
        while c is not None:
            path.append(c)
            c = self.clusters[c]["parent"]
        return path[::-1]

    def edge(self, src, dst):
        found = [a for s, d, a in self.edges if s == src and d == dst]
        assert found, f"no edge {src} -> {dst}"
        return found[0]

    def kinds(self, node):
        return self.nodes[node]["class"].split()


def parse_dot(text):
    return Dot(text)


# --------------------------------------------------------------------- models
def _mlp(device=None):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        with tf.name_scope("layer1"):
            w = tf.Variable(tf.zeros([784, 10]), name="w")
            b = tf.Variable(tf.zeros([10]), name="b")
            if device:
                with tf.device(device):
                    h = tf.nn.relu(tf.matmul(x, w) + b)
            else:
                h = tf.nn.relu(tf.matmul(x, w) + b)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h),
                              name="loss")
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
    return g, x, y, h, loss, train


def test_parser_reads_nesting_edges_and_attributes():
    d = parse_dot('digraph "g" {\n graph [rankdir=LR];\n "a" [label="a\\nB", shape=box];\n'
                  ' subgraph "cluster_s" { label="s"; "s/b" [shape=ellipse];\n'
                  '  subgraph "cluster_s/t" { "s/t/c" [x="1"]; } }\n'
                  ' // comment\n "a" -> "s/b" [label="f[1]", style=dashed];\n}\n')
    assert d.attrs["rankdir"] == "LR"
    assert d.nodes["a"]["label"] == "a\nB"
    assert d.cluster_path("s/t/c") == ["cluster_s", "cluster_s/t"]
    assert d.clusters["cluster_s"]["attrs"]["label"] == "s"
    assert d.edge("a", "s/b") == {"label": "f[1]", "style": "dashed"}


def test_whole_graph_scopes_labels_and_kinds():
    g, *_ = _mlp()
    d = parse_dot(to_dot(g, auto_collapse=None))
    assert set(d.nodes) == {op.name for op in g.get_operations()}
    # ops labelled by (short) name and type
    assert d.nodes["layer1/MatMul"]["label"].split("\n")[:2] == ["MatMul", "MatMul"]
    assert d.nodes["loss"]["label"].split("\n")[:2] == ["loss", "Mean"]
    # scopes are nested clusters
    assert d.cluster_path("layer1/MatMul") == ["cluster_layer1"]
    assert d.cluster_path("layer1/w/read") == ["cluster_layer1", "cluster_layer1/w"]
    assert d.cluster_path("x") == []
    # edges carry dtype and static shape
    assert d.edge("x", "layer1/MatMul")["label"] == "float32[?,784]"
    assert d.edge("layer1/w/read", "layer1/MatMul")["label"] == "float32[784,10]"
    assert d.edge("y", "SparseSoftmaxCrossEntropyWithLogits/"
                       "SparseSoftmaxCrossEntropyWithLogits")["label"] == "int64[?]"
    assert d.edge("Adam/update_layer1/w/ApplyAdam", "Adam")["style"] == "dashed"
    # a distinct style per kind
    shapes = {k: d.nodes[n]["shape"] for k, n in [("placeholder", "x"), ("variable", "layer1/w"),
                                                   ("constant", "layer1/zeros_1"),
                                                   ("op", "layer1/MatMul"),
                                                   ("update", "Adam/update_layer1/w/ApplyAdam")]}
    assert len(set(shapes.values())) == 5, shapes
    fills = {d.nodes[n]["fillcolor"] for n in ("x", "layer1/w", "layer1/zeros_1",
                                                "layer1/MatMul", "Adam/update_layer1/w/ApplyAdam")}
    assert len(fills) == 5
    assert "placeholder" in d.kinds("x") and "variable" in d.kinds("layer1/w")
    assert "constant" in d.kinds("layer1/zeros_1") and "update" in d.kinds("Adam")


def test_control_dependencies_are_dashed_and_data_edges_are_not():
    g, *_ = _mlp()
    d = parse_dot(to_dot(g, auto_collapse=None))
    adam = g.get_operation_by_name("Adam")
    for c in adam.control_inputs:
        assert d.edge(c.name, "Adam")["style"] == "dashed"
    dashed = {(s, t) for s, t, a in d.edges if a.get("style") == "dashed"}
    expected = {(c.name, op.name) for op in g.get_operations() for c in op.control_inputs}
    assert dashed == expected and expected
    assert "style" not in d.edge("x", "layer1/MatMul")


def test_gradient_and_update_clusters_are_apart():
    g, *_ = _mlp()
    d = parse_dot(to_dot(g, auto_collapse=None))
    grad = d.clusters["cluster_gradients"]
    adam = d.clusters["cluster_Adam"]
    fwd = d.clusters["cluster_layer1"]
    assert grad["parent"] is None and adam["parent"] is None
    fills = {grad["attrs"]["fillcolor"], adam["attrs"]["fillcolor"], fwd["attrs"]["fillcolor"]}
    assert len(fills) == 3
    assert grad["attrs"]["class"] == "gradient" and adam["attrs"]["class"] == "update"
    assert d.cluster_path("gradients/layer1/MatMul_grad/MatMul")[0] == "cluster_gradients"
    assert d.cluster_path("Adam/update_layer1/w/ApplyAdam")[0] == "cluster_Adam"
    # slot variables live under layer1/w but are drawn as updates
    slot = d.clusters["cluster_layer1/w/Adam"]
    assert slot["attrs"]["fillcolor"] == adam["attrs"]["fillcolor"]
    assert not any(c == "cluster_gradients" for n in d.nodes if not n.startswith("gradients/")
                   for c in d.cluster_path(n))


def test_collapse_draws_scopes_as_boxes_with_op_counts():
    g, *_ = _mlp()
    d = parse_dot(to_dot(g, collapse=1))
    names = [op.name for op in g.get_operations()]
    for scope in ("layer1", "gradients", "Adam"):
        box = d.nodes[scope + "/"]
        count = sum(1 for n in names if n.startswith(scope + "/"))
        assert box["label"] == f"{scope}/\n{count} ops"
        assert box["shape"] == "folder"
        assert not any(n.startswith(scope + "/") for n in d.nodes if n != scope + "/")
    assert d.nodes["gradients/"]["fillcolor"] != d.nodes["layer1/"]["fillcolor"]
    assert d.nodes["Adam/"]["fillcolor"] not in (d.nodes["gradients/"]["fillcolor"],
                                                 d.nodes["layer1/"]["fillcolor"])
    # edges join the boxes; inner edges disappear
    assert d.edge("x", "layer1/")["label"] == "float32[?,784]"
    assert not any(s == t for s, t, _ in d.edges)
    assert d.edge("Adam/", "Adam")["style"] == "dashed"
    # depth 2: layer1 is a cluster holding the boxes layer1/w/ and layer1/b/
    d2 = parse_dot(to_dot(g, collapse=2))
    assert d2.cluster_path("layer1/w/") == ["cluster_layer1"]
    count = sum(1 for n in names if n.startswith("layer1/w/"))
    assert d2.nodes["layer1/w/"]["label"] == f"w/\n{count} ops"
    assert "layer1/MatMul" in d2.nodes
    with pytest.raises(ValueError, match="collapse"):
        to_dot(g, collapse=0)


def test_fetches_draw_only_what_they_need_and_feeds_cut():
    g, x, y, h, loss, train = _mlp()
    d = parse_dot(to_dot(h))
    assert set(d.nodes) == {"x", "layer1/w", "layer1/w/read", "layer1/b", "layer1/b/read",
                            "layer1/MatMul", "layer1/add", "layer1/Relu"}
    assert d.nodes["layer1/Relu"].get("peripheries") == "2"
    d = parse_dot(to_dot([h, "loss:0"], feed_dict={h: None}))
    assert "layer1/MatMul" not in d.nodes and "loss" in d.nodes and "y" in d.nodes
    with g.as_default():
        d = parse_dot(to_dot("layer1/add"))
    assert "layer1/Relu" not in d.nodes and "layer1/add" in d.nodes


def test_devices_are_coloured():
    g, *_ = _mlp(device="/gpu:0")
    d = parse_dot(to_dot(g, auto_collapse=None))
    assert d.nodes["layer1/MatMul"]["color"] != d.nodes.get("x", {}).get("color")
    assert "/gpu:0" in d.nodes["layer1/MatMul"]["label"]
    assert "color" not in d.nodes["layer1/w"]
    g2 = tf.Graph()
    with g2.as_default():
        with tf.device("/cpu:0"):
            a = tf.constant(1.0, name="a")
        with tf.device("/gpu:1"):
            tf.add(a, a, name="b")
    d = parse_dot(to_dot(g2))
    assert d.nodes["a"]["color"] != d.nodes["b"]["color"]
    assert d.nodes["b"]["penwidth"]


def test_optimized_plan_shows_fused_ops_and_omits_pruned():
    g, x, y, h, loss, train = _mlp()
    with g.as_default():
        sess = tf.Session()
    d = parse_dot(to_dot(h, session=sess, optimized=True))
    fused = [n for n in d.nodes if d.nodes[n]["label"].split("\n")[1] == "FusedMatMul"]
    assert len(fused) == 1
    label = d.nodes[fused[0]]["label"]
    for member in ("layer1/MatMul", "layer1/add", "layer1/Relu"):
        assert member in label
        assert member not in d.nodes    # replaced: pruned from the plan
    assert "fused" in d.kinds(fused[0])
    assert d.edge("x", fused[0])["label"] == "float32[?,784]"
    # the unoptimized drawing of the same fetch shows the three ops
    plain = parse_dot(to_dot(h, session=sess))
    assert {"layer1/MatMul", "layer1/add", "layer1/Relu"} <= set(plain.nodes)
    # show_pruned: the replaced ops come back, greyed and dashed
    d = parse_dot(to_dot(h, session=sess, optimized=True, show_pruned=True))
    for member in ("layer1/MatMul", "layer1/add", "layer1/Relu"):
        assert "pruned" in d.kinds(member)
        assert "dashed" in d.nodes[member]["style"]
    assert "pruned" not in d.kinds(fused[0])
    with pytest.raises(ValueError, match="fetches"):
        to_dot(g, session=sess, optimized=True)


def test_optimized_plan_marks_folded_constants():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        k = tf.multiply(tf.constant(2.0, name="two"), tf.constant(3.0, name="three"), name="k")
        out = tf.subtract(x, k, name="out")
        sess = tf.Session()
    d = parse_dot(to_dot(out, session=sess, optimized=True))
    assert "k/folded" in d.nodes and "k" not in d.nodes and "two" not in d.nodes
    assert "folded" in d.kinds("k/folded")
    assert d.nodes["k/folded"]["fillcolor"] != parse_dot(to_dot(g)).nodes["two"]["fillcolor"]
    assert d.edge("k/folded", "out")["label"] == "float32[]"


def _big_graph(blocks=250):
    g = tf.Graph()
    with g.as_default():
        h = tf.placeholder(tf.float32, [None, 16], name="x")
        for i in range(blocks):
            with tf.name_scope(f"block{i}"):
                for j in range(4):
                    with tf.name_scope(f"sub{j}"):
                        h = tf.nn.relu(h * 1.5 + 2.0)
    return g, h


def test_large_graph_collapses_automatically_and_is_fast():
    g, h = _big_graph()
    n = len(g.get_operations())
    assert n >= 5000
    start = time.perf_counter()
    text = to_dot(g)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, elapsed
    d = parse_dot(text)
    assert len(d.nodes) <= 300
    assert d.nodes["block7/"]["label"] == "block7/\n20 ops"
    start = time.perf_counter()
    full = to_dot(g, auto_collapse=None)
    assert time.perf_counter() - start < 1.0
    assert len(parse_dot(full).nodes) == n


# --------------------------------------------------------------------- render
def test_render_writes_dot_without_graphviz(tmp_path, monkeypatch):
    g, *_ = _mlp()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    path = render(g, tmp_path / "g.dot")
    assert parse_dot(open(path).read()).nodes["x"]["shape"] == "invhouse"
    with pytest.raises(GraphvizNotFoundError) as info:
        render(g, tmp_path / "g.svg")
    msg = str(info.value)
    for hint in ("apt-get install graphviz", "brew install graphviz",
                 "https://graphviz.org/download/"):
        assert hint in msg
    assert not (tmp_path / "g.svg").exists()
    with pytest.raises(ValueError, match="format"):
        render(g, tmp_path / "g.txt")


def test_render_missing_program_through_which(tmp_path, monkeypatch):
    import shutil
    g, *_ = _mlp()
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(GraphvizNotFoundError, match="graphviz"):
        render(g, tmp_path / "g.png")


def _fake_dot(tmp_path, exit_code=0, error_lines=1):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "dot_args.txt"
    script = bindir / "dot"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "args = sys.argv[1:]\n"
        f"open({str(log)!r}, 'w').write('\\n'.join(args))\n"
        "data = sys.stdin.buffer.read()\n"
        f"if {exit_code}:\n"
        f"    for k in range({error_lines}):\n"
        "        sys.stderr.write(f'syntax error in line {k + 1}\\n')\n"
        f"    sys.exit({exit_code})\n"
        "open(args[args.index('-o') + 1], 'wb').write(data)\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC | stat.S_IXGRP | stat.S_IXOTH)
    return bindir, log


def test_render_calls_graphviz(tmp_path, monkeypatch):
    g, x, y, h, loss, train = _mlp()
    bindir, log = _fake_dot(tmp_path)
    monkeypatch.setenv("PATH", str(bindir))
    out = render(h, tmp_path / "h.svg", collapse=1)
    assert out == str(tmp_path / "h.svg")
    args = log.read_text().split("\n")
    assert args == ["-Tsvg", "-o", str(tmp_path / "h.svg")]
    d = parse_dot((tmp_path / "h.svg").read_text())
    assert "layer1/" in d.nodes      # the to_dot keywords were passed on
    render(h, tmp_path / "h.bin", format="png")
    assert log.read_text().split("\n")[0] == "-Tpng"


def test_render_reports_graphviz_failure(tmp_path, monkeypatch):
    g, *_ = _mlp()
    bindir, _ = _fake_dot(tmp_path, exit_code=1)
    monkeypatch.setenv("PATH", str(bindir))
    with pytest.raises(RuntimeError, match="syntax error"):
        render(g, tmp_path / "g.svg")


def test_names_with_special_characters_are_quoted():
    g = tf.Graph()
    with g.as_default():
        with tf.name_scope("a-b.c"):
            tf.constant(1.0, name="k>1")
    d = parse_dot(to_dot(g))
    assert "a-b.c/k>1" in d.nodes
    assert d.cluster_path("a-b.c/k>1") == ["cluster_a-b.c"]


def test_render_caps_graphviz_error_output(tmp_path, monkeypatch):
    g, *_ = _mlp()
    bindir, _ = _fake_dot(tmp_path, exit_code=1, error_lines=200)
    monkeypatch.setenv("PATH", str(bindir))
    with pytest.raises(RuntimeError) as info:
        render(g, tmp_path / "g.svg")
    msg = str(info.value)
    assert "syntax error in line 1" in msg and "syntax error in line 5" in msg
    assert "syntax error in line 6" not in msg
    assert "(195 more lines)" in msg
    assert len(msg.splitlines()) <= 7


def test_dot_text_is_refused_quoting_one_line(tmp_path):
    text = "digraph g {\n" + "".join(f"  a{i} -> b{i};\n" for i in range(500)) + "}\n"
    for call in (lambda: render(text, tmp_path / "g.svg"), lambda: to_dot(text)):
        with pytest.raises(ValueError) as info:
            call()
        msg = str(info.value)
        assert "'digraph g {'" in msg and "502 lines" in msg
        assert "a0" not in msg and len(msg) < 300, msg
    long_line = "digraph g { " + " ".join(f"a{i} -> b{i};" for i in range(500)) + " }"
    with pytest.raises(ValueError) as info:
        to_dot(long_line)
    assert len(str(info.value)) < 300 and "a0 -> b0" in str(info.value)
    assert not (tmp_path / "g.svg").exists()


def _training_mlp(optimizer, layers):
    """An MLP of ``layers`` dense layers and its training step."""
    g = tf.Graph()
    with g.as_default():
        h = tf.placeholder(tf.float32, [None, 784], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        for k in range(layers):
            units = 10 if k == layers - 1 else 32
            with tf.name_scope(f"layer{k + 1}"):
                w = tf.Variable(tf.random_normal([int(h.shape[1]), units]), name="w")
                b = tf.Variable(tf.zeros([units]), name="b")
                h = tf.matmul(h, w) + b
                if k < layers - 1:
                    h = tf.nn.relu(h)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h), name="loss")
        optimizer.minimize(loss)
    return g


def _svg_node_titles(path):
    ns = {"svg": "http://www.w3.org/2000/svg"}
    root = ET.parse(path).getroot()
    return {g.find("svg:title", ns).text for g in root.iter("{http://www.w3.org/2000/svg}g")
            if g.get("class", "").split()[:1] == ["node"]}


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot program")
@pytest.mark.parametrize("optimizer,layers,collapse", [
    ("adam", 2, None), ("adam", 2, 1), ("momentum", 3, None), ("momentum", 3, 2)])
def test_training_graphs_render_with_the_installed_graphviz(tmp_path, optimizer, layers,
                                                            collapse):
    # Without newrank, Graphviz 2.43 (Debian/Ubuntu) fails on these: "trouble in init_rank"
    opt = (tf.train.AdamOptimizer(0.01) if optimizer == "adam"
           else tf.train.MomentumOptimizer(0.1, 0.9))
    g = _training_mlp(opt, layers)
    text = to_dot(g, collapse=collapse, auto_collapse=None)
    d = parse_dot(text)
    assert d.attrs["newrank"] == "true"
    path = render(g, tmp_path / "train.svg", collapse=collapse, auto_collapse=None,
                  timeout=60)
    assert _svg_node_titles(path) == set(d.nodes)
    names = {op.name for op in g.get_operations()}
    if collapse is None:
        assert set(d.nodes) == names
    else:
        boxes = {n for n in d.nodes if n not in names}
        assert boxes and all(n.endswith("/") and n.count("/") == collapse for n in boxes)
        assert any(n.startswith("gradients/") for n in boxes)


# ----------------------------------------------------------------------- ONNX scale
def _onnx_chain(n, name=lambda i: f"block{i // 100}/relu{i}"):
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"], name=name(i)) for i in range(n)]
    graph = helper.make_graph(
        nodes, "chain", [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info(f"t{n}", TensorProto.FLOAT, [1])])
    return helper.make_model(graph)


def test_large_onnx_model_draws_in_linear_time():
    pytest.importorskip("onnx")
    n = 50_000          # the quadratic drawing took about 18 s here; a linear one 1-2 s
    model = _onnx_chain(n)
    start = time.perf_counter()
    text = to_dot(model, auto_collapse=None)
    elapsed = time.perf_counter() - start
    assert elapsed < 10.0, elapsed
    lines = [line.strip() for line in text.splitlines()]   # (parse_dot is slow at this size)
    edges = [line for line in lines if " -> " in line]
    assert len(edges) == n + 1
    assert sum(1 for line in lines if " [label=" in line and " -> " not in line) == n + 2
    assert '"t0" -> "block0/relu0" [label="float32[1]"];' in edges
    assert '"block0/relu1" -> "block0/relu2";' in edges      # no value_info: no label
    assert f'"block{(n - 1) // 100}/relu{n - 1}" -> "t{n} (output)" [label="float32[1]"];' \
        in edges
    d = parse_dot(to_dot(_onnx_chain(1000), auto_collapse=None))   # the same, parsed
    assert len(d.nodes) == 1002 and len(d.edges) == 1001
    assert d.cluster_path("block7/relu712") == ["cluster_block7"]


def test_onnx_node_names_that_repeat_or_name_tensors_get_their_own_ids():
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    n = 3000
    nodes = [helper.make_node("Relu", ["t0" if i == 0 else f"t{i}"], [f"t{i + 1}"],
                              name="relu") for i in range(n)]
    nodes.append(helper.make_node("Neg", [f"t{n}"], ["t_out"], name="t0"))  # = the input
    nodes.append(helper.make_node("Abs", ["t_out"], ["y"], name="relu_1"))  # = a suffixed id
    graph = helper.make_graph(
        nodes, "dups", [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    start = time.perf_counter()
    d = parse_dot(to_dot(helper.make_model(graph), auto_collapse=None))
    assert time.perf_counter() - start < 5.0
    assert len(d.nodes) == n + 4                  # no two nodes share an id
    ids = ["relu"] + [f"relu_{k}" for k in range(1, n)]
    edges = {(src, dst) for src, dst, _ in d.edges}
    assert all((a, b) in edges for a, b in zip(ids, ids[1:]))
    assert d.edge("t0", "relu")["label"] == "float32[1]"
    assert d.nodes["t0"]["shape"] == "invhouse"
    neg = [name for name, attrs in d.nodes.items() if attrs["label"].split("\n")[1] == "Neg"]
    abs_ = [name for name, attrs in d.nodes.items() if attrs["label"].split("\n")[1] == "Abs"]
    assert neg != ["t0"] and abs_ != ["relu_1"]
    assert {(f"relu_{n - 1}", neg[0]), (neg[0], abs_[0]), (abs_[0], "y (output)")} <= edges


def test_onnx_names_that_are_not_utf8_are_drawn_and_summarized():
    onnx = pytest.importorskip("onnx")
    from staticgraph.export import summary
    blob = _onnx_chain(3, name=lambda i: f"scope/nodeA{i}").SerializeToString()
    assert blob.count(b"nodeA1") == 1
    damaged = onnx.load_model_from_string(blob.replace(b"nodeA1", b"node\xff1"))
    d = parse_dot(to_dot(damaged, auto_collapse=None))
    assert "scope/node\ufffd1" in d.nodes
    assert d.edge("scope/nodeA0", "scope/node\ufffd1") == {}
    assert d.edge("scope/node\ufffd1", "scope/nodeA2") == {}
    assert summary(damaged).ops_by_type == {"Relu": 3}
