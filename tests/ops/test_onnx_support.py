"""The one table of onnxruntime's dtype gaps, and the compute dtype chosen from it."""

import numpy as np
import pytest

from staticgraph.graphlib import dtypes
from staticgraph.ops import onnx_support
from staticgraph.ops.onnx_support import LACKS, WIDER, lacks, via, work_dtype

STATICGRAPH_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32",
                      "float64")


def test_the_table_names_staticgraph_dtypes_only():
    for op, names in LACKS.items():
        assert set(names) <= set(STATICGRAPH_DTYPES), op
        assert len(set(names)) == len(names), op


def test_wider_dtypes_hold_every_value():
    for name, wider in WIDER.items():
        for w in wider:
            if name == "int64" and w == "float64":
                continue  # exact up to 2**53 only (documented)
            assert np.can_cast(np.dtype(name), np.dtype(w), "safe"), (name, w)


@pytest.mark.parametrize("op,dtype,work", [
    ("Where", "bool", "uint8"), ("Where", dtypes.int16, "int32"), ("Where", "float32", "float32"),
    ("CumSum", "int8", "int32"), ("Max", "int16", "int32"), ("MaxPool", "int32", "float64"),
    ("Erf", "float64", "float32"),           # no wider float: the documented lossy fallback
    ("Exp", "float16", "float16"),           # not in the table: every dtype has a kernel
    (("MatMul", "Add", "Relu"), "int8", "int32"), (("MatMul", "Relu"), "uint8", "int32"),
])
def test_work_dtype(op, dtype, work):
    assert work_dtype(op, dtype) == work


def test_lacks():
    assert lacks("Atan", dtypes.float64) and not lacks("Atan", "float32")
    assert not lacks("NoSuchOperator", "int8")


class _Ctx:
    """Records the nodes a lowering emits."""

    def __init__(self):
        self.nodes = []

    def node(self, op, inputs, **attrs):
        self.nodes.append((op, list(inputs), attrs))
        return f"v{len(self.nodes)}"

    def cast(self, name, to, from_dtype=None):
        return self.node("Cast", [name], to=dtypes.as_dtype(to).name)


def test_via_casts_only_where_the_kernel_is_missing():
    ctx = _Ctx()
    assert via(ctx, "Max", ["a", "b"], dtypes.int32) == "v1"
    assert ctx.nodes == [("Max", ["a", "b"], {})]
    ctx = _Ctx()
    via(ctx, "Max", ["a", "b"], dtypes.int16)
    assert [n[0] for n in ctx.nodes] == ["Cast", "Cast", "Max", "Cast"]
    assert ctx.nodes[-1][2] == {"to": "int16"}
    ctx = _Ctx()
    via(ctx, "IsInf", ["a"], dtypes.float16, cast_back=False)  # a bool result stays bool
    assert [n[0] for n in ctx.nodes] == ["Cast", "IsInf"]


def test_module_documents_its_table():
    assert "LACKS" in onnx_support.__doc__
