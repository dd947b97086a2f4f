"""GraphDef load limits: refused on the raw text before parsing where possible, and
every refusal a typed error (never OverflowError, RecursionError, ...)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib import graph_def_checks
from staticgraph.graphlib.graph_def_attrs import AttrDecoder
from staticgraph.graphlib.graph_def_format import (MAX_LIST, InvalidGraphDefError, short_repr,
                                                   content_digest, parse_json)

HEADER = {"format": "staticgraph.GraphDef", "version": 1}


def _placeholder(shape_attr):
    return {**HEADER, "ops": [{"name": "p", "type": "Placeholder",
                               "attrs": {"dtype": {"dtype": "float32"}, "shape": shape_attr}}]}


def test_value_count_is_checked_on_the_raw_text():
    text = json.dumps({**HEADER, "ops": [], "pad": [0] * 99})
    assert parse_json(text, max_values=200)["pad"] == [0] * 99
    with pytest.raises(InvalidGraphDefError, match="JSON values, above the limit of 50"):
        parse_json(text, max_values=50)
    with pytest.raises(InvalidGraphDefError, match="bytes, above the limit of 10 bytes"):
        parse_json(text.encode(), max_bytes=10)
    # By default the value limit is one value per 64 bytes of the byte limit.
    with pytest.raises(InvalidGraphDefError, match="limit of 50 .a larger max_bytes"):
        parse_json(text, max_bytes=64 * 50)
    assert parse_json(text, max_bytes=64 * 200)["ops"] == []


@pytest.mark.parametrize("text", [
    '{"a": 1e999}', '{"a": -1e400}', '{"a": NaN}', '{"a": Infinity}',
    '{"a": ' + "9" * 5000 + "}", '{"a": 1, "a": 2}', '{"a": "\\ud800"', b'{"a": "\xff"}',
])
def test_non_standard_json_is_data_loss(text):
    with pytest.raises(tf.errors.DataLossError):
        parse_json(text)


def test_checksum_of_deep_json_is_data_loss_not_recursion_error():
    depth = 900    # parses, but writing it again for the checksum may exceed the stack
    text = '{"sha256": "0", "a": ' + "[" * depth + "]" * depth + "}"
    try:
        parse_json(text)
    except tf.errors.DataLossError as exc:
        assert "nested too deeply" in str(exc) or "checksum" in str(exc)
    else:
        raise AssertionError("a wrong checksum was accepted")


@pytest.mark.parametrize("value, match", [
    ({"f": 10**400}, "out of the float range"),
    ({"list": [{"i": 1}] * (MAX_LIST + 1)}, "exceeds the limit"),
    ({"dict": {str(i): {"i": i} for i in range(MAX_LIST + 1)}}, "exceeds the limit"),
    ({"dtype": "float8x"}, "unknown dtype"),
    ({"dtype": {"x": 1}}, "invalid attribute value"),
])
def test_attribute_values_beyond_limits_are_refused(value, match):
    with pytest.raises(InvalidGraphDefError, match=match):
        AttrDecoder({}).attr(value, "t")


def test_bool_arrays_hold_only_true_and_false():
    # byte 2 is not a valid numpy bool: it is read as True (1), as any nonzero byte
    arr = AttrDecoder({}).attr({"array": {"dtype": "bool", "shape": [3], "b64": "AAIB"}}, "t")
    assert arr.dtype == np.bool_ and arr.view(np.uint8).tolist() == [0, 1, 1]


def test_messages_show_hostile_values_briefly():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    assert len(short_repr(deep)) <= 60
    assert len(short_repr("x" * 10**7)) <= 60
    data = _placeholder({"list": [{"list": deep}]})
    with pytest.raises(InvalidGraphDefError) as info:
        tf.import_graph_def(data)
    assert len(str(info.value)) < 300


def test_too_many_inputs_or_collection_entries_are_refused(monkeypatch):
    monkeypatch.setattr(graph_def_checks, "MAX_ITEMS", 4)
    ops = [{"name": "a", "type": "NoOp"},
           {"name": "b", "type": "NoOp", "control_inputs": ["a"] * 5}]
    with pytest.raises(InvalidGraphDefError, match="5 control_inputs, above the limit of 4"):
        tf.import_graph_def({**HEADER, "ops": ops})
    data = {**HEADER, "ops": ops[:1], "collections": {"c": [{"string": "s"}] * 5}}
    with pytest.raises(InvalidGraphDefError, match="'c' has 5 entries"):
        tf.import_graph_def(data)


@pytest.mark.parametrize("frame", [["f.py", -1, "g"], ["f.py", 2**40, "g"],
                                   ["f" * 5000, 1, "g"], ["f.py", 1, ["g"]]])
def test_invalid_frames_are_refused(frame):
    data = {**HEADER, "ops": [{"name": "a", "type": "NoOp", "frame": frame}]}
    with pytest.raises(InvalidGraphDefError, match="frame must be"):
        tf.import_graph_def(data)


def test_checksummed_text_roundtrips_through_parse_json():
    body = {**HEADER, "ops": [], "x": [1.5, "é", None]}
    text = json.dumps({**body, "sha256": content_digest(body)})
    assert parse_json(text) == body
    assert parse_json(text.encode()) == body
