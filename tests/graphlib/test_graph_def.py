"""GraphDef: graph descriptions, import_graph_def semantics, every op case round-trips."""

from __future__ import annotations

import json

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib import graph_def as gdm
from staticgraph.graphlib.graph_def import GraphDef, InvalidGraphDefError

from ..ops.cases import all_cases

CASES = all_cases()


def _roundtrip_json(gd):
    return GraphDef.from_json(gd.to_json(), gd.tensors)


# -------------------------------------------------------------- graph description
def test_as_graph_def_describes_ops_in_creation_order():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        with tf.device("/cpu:0"), tf.name_scope("s"):
            c = tf.constant([1.0, 2.0], name="c")
        with tf.control_dependencies([c.op]):
            y = tf.add(x, c, name="y")
        tf.add_to_collection("mine", y)
        tf.add_to_collection("mine", "note")
        tf.add_to_collection("mine", object())       # skipped
    gd = g.as_graph_def()
    json.dumps(gd, allow_nan=False)                  # plain JSON values throughout
    assert gd["format"] == gdm.FORMAT and gd["version"] == gdm.VERSION and gd["seed"] == 5
    names = [o["name"] for o in gd["ops"]]
    assert names == [op.name for op in g.get_operations()]
    y_def = gd["ops"][names.index("y")]
    assert y_def["type"] == "AddV2" or y_def["type"] == y.op.type
    assert y_def["inputs"] == ["x:0", "s/c:0"] and y_def["control_inputs"] == []
    assert gd["ops"][names.index("s/c")]["device"] == "/cpu:0"
    assert gd["ops"][names.index("x")]["outputs"] == [{"dtype": "float32", "shape": [None, 2]}]
    assert y_def["frame"][0].endswith("test_graph_def.py")
    assert gd["collections"]["mine"] == [{"tensor": "y:0"}, {"string": "note"}]


def test_variable_scope_stores_are_never_written():
    g = tf.Graph()
    with g.as_default():
        with tf.variable_scope("vs"):
            tf.get_variable("v", [2], initializer=tf.zeros_initializer())
    keys = set(g.as_graph_def()["collections"])
    assert "__variable_store" not in keys and "__varscope" not in keys
    assert "variables" in keys


# ------------------------------------------------------------------ import_graph_def
def _small_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        y = tf.multiply(x, 3.0, name="y")
        tf.identity(y, name="z")
    return g


def test_import_prefix_and_return_elements():
    gd = _small_graph().as_graph_def()
    g = tf.Graph()
    with g.as_default():
        y, z_op = tf.import_graph_def(gd, return_elements=["y:0", "z"])
        assert y.name == "import/y:0" and z_op.name == "import/z"
        y2, = tf.import_graph_def(gd, return_elements=["y:0"])   # the prefix is uniquified
        assert y2.name == "import_1/y:0"
        z3, = tf.import_graph_def(gd, return_elements=["z:0"], name="")
        assert z3.name == "z:0"
        assert tf.import_graph_def(gd, name="") is None            # taken names get suffixes
        assert g.get_operation_by_name("z_1").type == "Identity"
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(z3, {"x:0": [1.0, 2.0]}), [3.0, 6.0])


def test_import_input_map_replaces_inputs():
    gd = _small_graph().as_graph_def()
    g = tf.Graph()
    with g.as_default():
        c = tf.constant([2.0, 4.0])
        z, = tf.import_graph_def(gd, input_map={"x:0": c}, return_elements=["z:0"])
        assert z.shape.raw == (2,)                                 # inference ran again
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(z), [6.0, 12.0])
        z2, = tf.import_graph_def(gd, input_map={"x": c}, return_elements=["z:0"])
        assert z2.op.inputs[0].op.inputs[0] is c
        with pytest.raises(ValueError, match="not found in graph_def"):
            tf.import_graph_def(gd, input_map={"nope:0": c})
        with pytest.raises(ValueError, match="not found in graph_def"):
            tf.import_graph_def(gd, return_elements=["nope:0"])
        with pytest.raises(TypeError):
            tf.import_graph_def(gd, input_map={"x:0": [1.0]})
        with pytest.raises(TypeError):
            tf.import_graph_def(42)


def test_import_under_control_dependencies_and_device_scope():
    gd = _small_graph().as_graph_def()
    g = tf.Graph()
    with g.as_default():
        first = tf.no_op(name="first")
        with tf.control_dependencies([first]), tf.device("/gpu:0"):
            x, y = tf.import_graph_def(gd, return_elements=["x", "y"])
        assert first in x.control_inputs            # roots wait for the outer control deps
        assert y.device == "/gpu:0"


def _mutated(gd, fn):
    data = json.loads(json.dumps(gd))
    fn(data)
    return data


def _op(data, name):
    return next(o for o in data["ops"] if o["name"] == name)


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.update(format="other"), "format"),
    (lambda d: d.update(version=99), "newer"),
    (lambda d: d.update(version="1"), "version"),
    (lambda d: d.update(extra=1), "Unknown GraphDef field"),
    (lambda d: d.update(ops={}), "list"),
    (lambda d: _op(d, "y").update(type="NoSuchOp"), "unknown op type"),
    (lambda d: _op(d, "y").update(inputs=["ghost:0", "Const:0"]), "not in the GraphDef"),
    (lambda d: _op(d, "y").update(inputs=["x:7", "Const:0"]), "only 1 output"),
    (lambda d: _op(d, "y").update(inputs=["x", "Const:0"]), "not a tensor name"),
    (lambda d: _op(d, "x").update(control_inputs=["z"]), "cycle"),
    (lambda d: _op(d, "x").update(control_inputs=["missing"]), "not in the GraphDef"),
    (lambda d: d["ops"].append(dict(_op(d, "z"))), "Duplicate"),
    (lambda d: _op(d, "z").update(name="bad name!"), "invalid op name"),
    (lambda d: _op(d, "z").update(name=":0"), "invalid op name"),
    (lambda d: _op(d, "x").update(attrs={"dtype": {"s": "float32"}}), "cannot be imported"),
    (lambda d: _op(d, "Const")["attrs"].update(dtype={"i": 1}), "output dtype"),
    (lambda d: _op(d, "x").update(attrs={"bogus": {"i": 1}}), "unknown attribute"),
    (lambda d: _op(d, "x").update(attrs={"shape": {"shape": [2**50]}}), "invalid dimension"),
    (lambda d: _op(d, "y").update(inputs=["Const:0", "Const:0"]), None),
    (lambda d: _op(d, "z").update(outputs=[{"dtype": "int32", "shape": [None]}]), "infers"),
    (lambda d: _op(d, "z").update(outputs=[{"dtype": "float32", "shape": [3, 3]}]), None),
    (lambda d: _op(d, "z").update(frame=["f", "1", "g"]), "frame"),
    (lambda d: _op(d, "z").update(device=5), "device"),
    (lambda d: _op(d, "Const")["attrs"].update(dtype={"dtype": "int32"}), "infers"),
    (lambda d: d.update(collections={"c": [{"tensor": "ghost:0"}]}), "not in the GraphDef"),
    (lambda d: d.update(collections={"c": [{"pickle": "x"}]}), "unknown entry kind"),
    (lambda d: d.update(collections={"c": [{"variable": {"name": "x"}}]}), "variable entry"),
])
def test_malformed_graph_defs_are_refused(mutate, match):
    data = _mutated(_small_graph().as_graph_def(), mutate)
    g = tf.Graph()
    with g.as_default():
        with pytest.raises(InvalidGraphDefError, match=match) as info:
            tf.import_graph_def(data)
    assert isinstance(info.value, tf.errors.InvalidArgumentError)
    assert isinstance(info.value, ValueError)


def test_invalid_json_text_is_data_loss():
    with pytest.raises(tf.errors.DataLossError):
        tf.import_graph_def('{"format": ')
    with pytest.raises(tf.errors.DataLossError):
        tf.import_graph_def('{"a": NaN}')
    with pytest.raises(tf.errors.DataLossError):
        tf.import_graph_def('{"a": 1, "a": 2}')
    with pytest.raises(tf.errors.DataLossError, match="nested"):
        tf.import_graph_def("[" * 100000)


def test_checksum_detects_edits():
    text = _small_graph().as_graph_def().to_json()
    assert isinstance(GraphDef.from_json(text), GraphDef)
    with pytest.raises(tf.errors.DataLossError, match="checksum"):
        GraphDef.from_json(text.replace('"z"', '"w"'))


def test_imported_ops_keep_their_user_lines():
    g = _small_graph()
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(g.as_graph_def(), name="")
    for op in g.get_operations():
        assert g2.get_operation_by_name(op.name).traceback == op.traceback


# ------------------------------------------------------------- every case round-trips
def _case_graph(case):
    g = tf.Graph()
    with g.as_default():
        phs = [tf.placeholder(tf.as_dtype(v.dtype), v.shape, name=f"in{i}")
               for i, v in enumerate(case.inputs)]
        out = case.build(*phs)
    return g, phs, (list(out) if isinstance(out, (list, tuple)) else [out])


def _seeded(graph):
    return all(not op.op_def.stateful or op.attrs.get("seed") is not None
               for op in graph.get_operations())


@pytest.mark.parametrize("case", CASES, ids=[c.test_id for c in CASES])
def test_every_case_roundtrips(case):
    g, phs, outs = _case_graph(case)
    gd = _roundtrip_json(g.as_graph_def())
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
    outs2 = [g2.get_tensor_by_name(t.name) for t in outs]
    assert [t.shape.raw for t in outs2] == [t.shape.raw for t in outs]
    assert [t.dtype for t in outs2] == [t.dtype for t in outs]
    feeds = dict(zip(phs, case.inputs))
    feeds2 = {g2.get_tensor_by_name(p.name): v for p, v in feeds.items()}
    with tf.Session(graph=g) as s:
        a = s.run(outs, feeds)
    with tf.Session(graph=g2) as s:
        b = s.run(outs2, feeds2)
    if _seeded(g):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    if case.grad is True and _seeded(g):
        wrt = [i for i, v in enumerate(case.inputs) if v.dtype.kind == "f"]
        if case.grad_inputs is not None:
            wrt = list(case.grad_inputs)
        floats = [t for t in outs if t.dtype.is_floating]
        if not wrt or not floats:
            return
        floats2 = [g2.get_tensor_by_name(t.name) for t in floats]
        wrt2 = [g2.get_tensor_by_name(phs[i].name) for i in wrt]
        with g.as_default():
            try:
                ga = tf.gradients([tf.reduce_sum(t) for t in floats], [phs[i] for i in wrt])
            except LookupError:          # not differentiable there: the same after loading
                with g2.as_default(), pytest.raises(LookupError):
                    tf.gradients([tf.reduce_sum(t) for t in floats2], wrt2)
                return
        with g2.as_default():
            gb = tf.gradients([tf.reduce_sum(t) for t in floats2], wrt2)
        assert [x is None for x in ga] == [x is None for x in gb]
        ga, gb = [x for x in ga if x is not None], [x for x in gb if x is not None]
        if ga:
            with tf.Session(graph=g) as s:
                va = s.run(ga, feeds)
            with tf.Session(graph=g2) as s:
                vb = s.run(gb, feeds2)
            for x, y in zip(va, vb):
                np.testing.assert_array_equal(x, y)
