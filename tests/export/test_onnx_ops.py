"""Every op case of ``tests/ops/cases`` exported to ONNX and run by onnxruntime.

For each case: the single-op model passes ``onnx.checker`` (full check) and strict
shape inference with data propagation, uses only ``ai.onnx`` operators, and
onnxruntime's outputs equal the numpy kernel's (same dtype and shape; values to a
tolerance by dtype: exact for integers and bools, ``rtol=1e-5, atol=1e-5`` for
float32, ``1e-2`` for float16, ``1e-9`` for float64, unless the case states
``onnx_rtol`` / ``onnx_atol``). Random ops too: both backends compute the same
counter-based streams, and an exported model holds the session's keys with the counter
0, so it draws what the session's first run draws; their property checks run as well.
Cases marked ``ort_differs`` are run by ``onnx.reference`` instead (the
second witness). Cases with ``dynamic=True`` are exported again with every input
dimension unknown (except the length of 1-D integer inputs, the shape and axis vectors:
an ONNX model must know the rank of its outputs): the model then has named
``dim_param``\\ s and must give the same numbers. Where unknown dimensions make an output's rank
unknown (a squeeze without axes), the export must refuse it with a clear error.
Op types that declare ``onnx_unsupported`` must raise OnnxExportError naming the op
and the user's line.
"""

from __future__ import annotations

import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx.reference import ReferenceEvaluator

import staticgraph as tf
from staticgraph.export import OnnxExportError, to_onnx
from staticgraph.graphlib.op_def import get_op_def, registered_types

from ..ops.cases import all_cases

CASES = all_cases()
IDS = [c.test_id for c in CASES]

_TOLERANCES = {"float16": (1e-2, 1e-2), "float32": (1e-5, 1e-5), "float64": (1e-9, 1e-9)}


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _export(case, dynamic):
    graph = tf.Graph()
    with graph.as_default():
        phs = [tf.placeholder(tf.as_dtype(v.dtype), _dynamic_shape(v) if dynamic else v.shape,
                              name=f"in{i}")
               for i, v in enumerate(case.inputs)]
        outs = _as_list(case.build(*phs))
    sess = tf.Session(graph=graph)
    try:
        try:
            model = to_onnx(outs, phs, session=sess)
        except OnnxExportError as exc:
            # an ONNX model must state each output's rank: when neither staticgraph nor
            # ONNX shape inference knows it, the export says so clearly
            if "rank is unknown" in str(exc) and any(t.shape.rank is None for t in outs):
                return None, outs, None
            raise
        want = sess.run(outs, dict(zip(phs, case.inputs)))
    finally:
        sess.close()
    return model, outs, want


def _dynamic_shape(value):
    """Every dimension unknown, but the length of a shape or axis vector (1-D ints)."""
    if value.ndim == 1 and value.dtype.kind in "iu":
        return list(value.shape)
    return [None] * value.ndim


def _ort_run(model, inputs):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options,
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {f"in{i}:0": v for i, v in enumerate(inputs)})


def _reference_run(model, inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return ReferenceEvaluator(model).run(None, {f"in{i}:0": v for i, v in enumerate(inputs)})


def _compare(case, outs, got, want):
    assert len(got) == len(want)
    for t, g, w in zip(outs, got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype or (w.dtype == object and g.dtype.kind in "OUS"), \
            f"{t.name}: onnxruntime gave {g.dtype}, numpy {w.dtype}"
        assert g.shape == w.shape, f"{t.name}: onnxruntime gave {g.shape}, numpy {w.shape}"
        if w.dtype.kind == "f":
            rtol, atol = _TOLERANCES[w.dtype.name]
            np.testing.assert_allclose(
                g, w, rtol=case.onnx_rtol if case.onnx_rtol is not None else rtol,
                atol=case.onnx_atol if case.onnx_atol is not None else atol,
                err_msg=f"output {t.name}")
        elif w.dtype == object:
            assert [str(x) for x in g.reshape(-1)] == [str(x) for x in w.reshape(-1)]
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"output {t.name}")
    if case.check is not None:
        case.check(got if len(got) > 1 else got[0], case.inputs)


def _check_model(model):
    onnx.checker.check_model(model, full_check=True)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    assert model.ir_version == 8
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 18)]
    for node in model.graph.node:
        assert node.domain in ("", "ai.onnx"), node
        assert "declared at" in node.doc_string and ".py:" in node.doc_string, node


def _run_case(case, dynamic):
    if get_op_def(case.op_type).onnx is None:
        with pytest.raises(OnnxExportError, match=case.op_type) as info:
            _export(case, dynamic)
        assert "_cases.py:" in str(info.value)
        return
    model, outs, want = _export(case, dynamic)
    if model is None:
        return None
    _check_model(model)
    if case.ort_differs:
        got = _reference_run(model, case.inputs)
    else:
        got = _ort_run(model, case.inputs)
    _compare(case, outs, got, want)
    return model


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_exported_case_matches_numpy(case):
    _run_case(case, dynamic=False)


@pytest.mark.parametrize("case", [c for c in CASES if c.dynamic],
                         ids=[c.test_id for c in CASES if c.dynamic])
def test_exported_case_with_unknown_dims_matches_numpy(case):
    model = _run_case(case, dynamic=True)
    if model is None:
        return
    for value, array in zip(model.graph.input, case.inputs):
        dims = value.type.tensor_type.shape.dim
        if not (array.ndim == 1 and array.dtype.kind in "iu"):
            assert all(d.dim_param and not d.dim_value for d in dims), value


def test_every_op_type_has_an_onnx_lowering_or_a_reason():
    missing = [t for t in registered_types()
               if get_op_def(t).onnx is None and not get_op_def(t).onnx_unsupported]
    assert not missing, f"op types without an ONNX lowering: {missing}"


def test_register_requires_an_onnx_lowering_or_a_reason():
    from staticgraph.graphlib.op_def import OpDef, register

    class NoLowering(OpDef):
        def infer(self, x):
            return []

        @staticmethod
        def compute(x):
            return ()

    with pytest.raises(TypeError, match="ONNX lowering"):
        register(NoLowering)
    assert "NoLowering" not in registered_types()


WITNESS_OPS = {"MatMul", "Relu", "Softmax", "SparseSoftmaxCrossEntropyWithLogits", "Conv2D",
               "MaxPool", "ApplyAdam", "StridedSlice", "Sum", "FloorMod", "GatherV2"}
# Where onnx.reference itself cannot follow (checked by reading its source):
REFERENCE_LIMITS = {
    # its LogSoftmax is log(Softmax(x)): log(0) = -inf for logits far below the max
    "SparseSoftmaxCrossEntropyWithLogits-large",
    # its ReduceSum refuses a run-time axes input listing an axis twice (onnxruntime and
    # the kernel reduce it once; the ONNX spec does not say)
    "Sum-computed_axes_duplicate",
}
WITNESS_CASES = [c for c in CASES if c.op_type in WITNESS_OPS and c.expected is not None
                 and c.test_id not in REFERENCE_LIMITS]


@pytest.mark.parametrize("case", WITNESS_CASES, ids=[c.test_id for c in WITNESS_CASES])
def test_onnx_reference_evaluator_agrees(case):
    """The second witness on a sample of hot and tricky ops: onnx's own evaluator runs
    the exported model to the kernel's numbers too (so a lowering does not merely match
    an onnxruntime quirk)."""
    model, outs, want = _export(case, dynamic=False)
    _compare(case, outs, _reference_run(model, case.inputs), want)
