"""Generic checks parametrized over every registered op type's cases.

An op type registered without cases fails ``test_every_op_type_has_cases``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib.op_def import registered_types

from .cases import all_cases

CASES = all_cases()
IDS = [c.test_id for c in CASES]

# Ops exercised by dedicated tests elsewhere (their behaviour is session state).
COVERED_ELSEWHERE = {"Placeholder", "VariableV2", "Assign", "AssignAdd", "AssignSub",
                     "IsVariableInitialized", "ReportUninitializedVariables", "NoOp"}


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _build(case, shapes):
    graph = tf.Graph()
    with graph.as_default():
        phs = [tf.placeholder(tf.as_dtype(v.dtype), shape, name=f"in{i}")
               for i, (v, shape) in enumerate(zip(case.inputs, shapes))]
        out = case.build(*phs)
    return graph, phs, out


def _run(case, shapes):
    graph, phs, out = _build(case, shapes)
    with tf.Session(graph=graph) as sess:
        got = sess.run(out, dict(zip(phs, case.inputs)))
    return graph, out, got


def test_every_op_type_has_cases():
    covered = {c.op_type for c in CASES} | COVERED_ELSEWHERE
    missing = sorted(set(registered_types()) - covered)
    assert not missing, f"op types without test cases: {missing}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_exercises_its_op_type(case):
    graph, _, _ = _build(case, [v.shape for v in case.inputs])
    assert case.op_type in {op.type for op in graph.get_operations()}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_kernel_matches_reference(case):
    _, out, got = _run(case, [v.shape for v in case.inputs])
    if case.check is not None:
        case.check(got, case.inputs)
    if case.expected is not None:
        want = case.expected(*case.inputs)
        got_l, want_l = _as_list(got), _as_list(want)
        assert len(got_l) == len(want_l)
        for g, w in zip(got_l, want_l):
            w = np.asarray(w)
            g = np.asarray(g)
            assert g.shape == w.shape, (g.shape, w.shape)
            if w.dtype.kind in "fc":
                np.testing.assert_allclose(g, w, rtol=case.rtol, atol=case.atol)
            else:
                np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_static_shape_and_dtype_match_kernel(case):
    _, out, got = _run(case, [v.shape for v in case.inputs])
    for t, g in zip(_as_list(out), _as_list(got)):
        g = np.asarray(g)
        assert t.dtype.np_dtype == g.dtype, f"{t.name}: declared {t.dtype}, kernel gave {g.dtype}"
        assert t.shape.is_compatible_with(g.shape), f"{t.name}: declared {t.shape}, got {g.shape}"


@pytest.mark.parametrize("case", [c for c in CASES if c.dynamic],
                         ids=[c.test_id for c in CASES if c.dynamic])
@pytest.mark.parametrize("mode", ["unknown_dims", "unknown_rank"])
def test_unknown_dimensions(case, mode):
    shapes = [[None] * v.ndim if mode == "unknown_dims" else None for v in case.inputs]
    _, out, got = _run(case, shapes)
    _, _, ref = _run(case, [v.shape for v in case.inputs])
    for t, g, r in zip(_as_list(out), _as_list(got), _as_list(ref)):
        g = np.asarray(g)
        assert t.dtype.np_dtype == g.dtype
        assert t.shape.is_compatible_with(g.shape), f"{t.name}: declared {t.shape}, got {g.shape}"
        if case.check is None:
            np.testing.assert_array_equal(g, np.asarray(r))


BAD = [(c, shapes) for c in CASES for shapes in c.bad]


@pytest.mark.parametrize("case,shapes", BAD, ids=[f"{c.test_id}-{s}" for c, s in BAD])
def test_bad_shapes_raise_while_declaring(case, shapes):
    with pytest.raises(ValueError) as info:
        _build(case, shapes)
    message = str(info.value)
    assert "Declared at" in message, message
    assert f"{os.sep}tests{os.sep}ops{os.sep}" in message, message  # the user's file


BAD_DTYPES = [(c, dts) for c in CASES for dts in c.bad_dtypes]


@pytest.mark.parametrize("case,dts", BAD_DTYPES, ids=[f"{c.test_id}-{d}" for c, d in BAD_DTYPES])
def test_bad_dtypes_raise_while_declaring(case, dts):
    graph = tf.Graph()
    with graph.as_default(), pytest.raises(TypeError):
        phs = [tf.placeholder(tf.as_dtype(d), v.shape) for d, v in zip(dts, case.inputs)]
        case.build(*phs)


@pytest.mark.parametrize("op_type", registered_types())
def test_every_op_definition_is_documented(op_type):
    from staticgraph.graphlib.op_def import get_op_def
    doc = type(get_op_def(op_type)).__doc__
    assert doc and doc.strip(), f"op definition {op_type} has no docstring"
