"""DType: TF1's names, numpy and ONNX mappings, predicates and limits."""

import copy

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib import dtypes

# name, numpy type, ONNX TensorProto number (from onnx.proto's DataType enum)
TABLE = [
    ("float16", np.float16, 10), ("float32", np.float32, 1), ("float64", np.float64, 11),
    ("int8", np.int8, 3), ("int16", np.int16, 5), ("int32", np.int32, 6),
    ("int64", np.int64, 7), ("uint8", np.uint8, 2), ("bool", np.bool_, 9),
]


@pytest.mark.parametrize("name,np_type,onnx", TABLE)
def test_mappings(name, np_type, onnx):
    d = getattr(tf, name)
    assert d.name == name
    assert d.as_numpy_dtype is np_type
    assert d.np_dtype == np.dtype(np_type)
    assert d.onnx_type == onnx
    assert tf.as_dtype(name) is d
    assert tf.as_dtype(np_type) is d
    assert tf.as_dtype(np.dtype(np_type)) is d
    assert d.size == np.dtype(np_type).itemsize
    assert repr(d) == f"tf.{name}"
    assert copy.deepcopy(d) is d  # __reduce__ keeps dtypes singletons


@pytest.mark.parametrize("alias,target", [
    ("float", "float32"), ("half", "float16"), ("double", "float64"),
])
def test_tf1_string_names(alias, target):
    assert tf.as_dtype(alias) is getattr(tf, target)
    assert getattr(tf, target) == alias


def test_aliases_and_python_types():
    assert tf.half is tf.float16 and tf.double is tf.float64
    assert tf.as_dtype(float) is tf.float32
    assert tf.as_dtype(int) is tf.int32
    assert tf.as_dtype(bool) is tf.bool
    assert tf.as_dtype(tf.float32) is tf.float32
    assert tf.as_dtype(np.dtype(">f4")) is tf.float32   # byte order does not matter
    assert tf.as_dtype(np.str_) is tf.string


def test_equality_and_hash():
    assert tf.float32 == np.float32
    assert tf.float32 == np.dtype("float32")
    assert tf.float32 == "float32"
    assert tf.float32 != tf.float64
    assert tf.float32 != "float64"
    assert tf.float32 != "no such type"
    assert tf.float32 != None  # noqa: E711
    assert tf.float32 != object()
    assert len({tf.float32, tf.as_dtype("float"), tf.as_dtype(np.float32)}) == 1
    assert tf.float32.is_compatible_with("float")
    assert not tf.float32.is_compatible_with(tf.int32)


def test_unknown_type_raises_type_error():
    with pytest.raises(TypeError, match="complex128"):
        tf.as_dtype(np.complex128)
    with pytest.raises(TypeError, match="'floaty'"):
        tf.as_dtype("floaty")
    with pytest.raises(TypeError):
        tf.as_dtype(object())


def test_predicates():
    assert tf.float16.is_floating and tf.float64.is_floating and not tf.int32.is_floating
    assert tf.int8.is_integer and tf.uint8.is_integer and not tf.bool.is_integer
    assert tf.uint8.is_unsigned and not tf.int8.is_unsigned
    assert tf.bool.is_bool and not tf.bool.is_numeric
    assert tf.int64.is_numeric and tf.float32.is_numeric
    assert tf.float32.base_dtype is tf.float32


def test_limits():
    assert tf.int8.min == -128 and tf.int8.max == 127
    assert tf.uint8.min == 0 and tf.uint8.max == 255
    assert tf.int32.max == 2**31 - 1
    assert tf.float32.max == pytest.approx(3.4028234663852886e38)
    assert tf.float16.max == 65504.0
    with pytest.raises(TypeError):
        tf.bool.min  # noqa: B018 (reading the attribute raises)


def test_all_dtypes_listed_in_module():
    names = {d.name for d in dtypes.ALL_DTYPES}
    assert {n for n, _, _ in TABLE} <= names
