"""GraphDef attribute values: typed encoding, strict decoding, sidecar arrays, refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib.graph_def_attrs import AttrDecoder, AttrEncoder
from staticgraph.graphlib.graph_def_format import MAX_DEPTH, InvalidGraphDefError


# ------------------------------------------------------------------ attr encoding
@pytest.mark.parametrize("value", [
    0, -7, 2**62, 1.5, float("inf"), float("-inf"), True, False, "SAME", "", None, b"\x00\xff",
    (1, 2, 3), [1, (2, "a")], (), {"k": 1.0}, tf.float32, tf.string, tf.TensorShape(None),
    tf.TensorShape([None, 3]), tf.TensorShape([]),
    np.float32(2.5), np.int64(-3),
])
def test_attr_values_roundtrip(value):
    enc = AttrEncoder(1024).attr(value, "t")
    back = AttrDecoder({}).attr(json.loads(json.dumps(enc)), "t")
    assert type(back) is type(value)
    if isinstance(value, tf.TensorShape):
        assert back.raw == value.raw
    else:
        assert back == value


def test_nan_attr_roundtrips_through_strict_json():
    enc = AttrEncoder(1024).attr(float("nan"), "t")
    text = json.dumps(enc, allow_nan=False)
    assert np.isnan(AttrDecoder({}).attr(json.loads(text), "t"))


@pytest.mark.parametrize("arr", [
    np.arange(6, dtype=np.float32).reshape(2, 3), np.array([True, False]), np.zeros((0, 4)),
    np.array(3, dtype=np.int64), np.array([[1, 2]], dtype=np.uint8),
    np.array(["a", b"b\x00"], dtype=object), np.array([np.nan, -np.inf], dtype=np.float16),
])
def test_arrays_roundtrip_inline(arr):
    enc = AttrEncoder(1 << 20).attr(arr, "t")
    assert "ref" not in enc["array"]
    back = AttrDecoder({}).attr(json.loads(json.dumps(enc)), "t")
    assert back.dtype == arr.dtype and back.shape == arr.shape and not back.flags.writeable
    np.testing.assert_array_equal(back, arr)


def test_large_arrays_go_to_sidecar_tensors():
    arr = np.arange(4096, dtype=np.float64)
    enc = AttrEncoder(1024)
    spec = enc.attr(arr, "t")["array"]
    assert spec["ref"] in enc.tensors and "b64" not in spec
    back = AttrDecoder(enc.tensors).attr({"array": spec}, "t")
    np.testing.assert_array_equal(back, arr)


def test_unserialisable_attr_is_a_clear_type_error():
    with pytest.raises(TypeError, match="cannot be written"):
        AttrEncoder(1024).attr(object(), "op 'x' attr 'f'")


@pytest.mark.parametrize("enc", [
    {"i": 1.5}, {"i": True}, {"i": 2**70}, {"f": "NaN!"}, {"b": 1}, {"s": 3}, {"x": 1},
    {"i": 1, "f": 2.0}, [1], {"dtype": "complex64"}, {"dtype": "O"}, {"shape": [-1]},
    {"shape": [1.5]}, {"shape": [1] * 100}, {"bytes": "@@@"},
    {"array": {"dtype": "float32", "shape": [2], "b64": "AAAA"}},
    {"array": {"dtype": "float32", "shape": [10**9, 10**9], "b64": ""}},
    {"array": {"dtype": "object", "shape": [1], "b64": "AAAA"}},
    {"array": {"dtype": "float32", "shape": [1], "ref": "missing"}},
    {"array": {"dtype": "string", "shape": [2], "items": [{"s": "a"}]}},
    {"array": {"dtype": "string", "shape": [1], "items": [{"i": 1}]}},
    {"scalar": {"dtype": "int32", "shape": [1], "b64": "AAAAAA=="}},
])
def test_bad_attr_encodings_are_refused(enc):
    with pytest.raises(InvalidGraphDefError):
        AttrDecoder({}).attr(enc, "t")


def test_deep_attr_nesting_is_refused():
    enc = {"i": 1}
    for _ in range(MAX_DEPTH + 2):
        enc = {"list": [enc]}
    with pytest.raises(InvalidGraphDefError, match="nested"):
        AttrDecoder({}).attr(enc, "t")
