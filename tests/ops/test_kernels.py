"""One kernel per op: every second way of computing an op is checked against ``compute``.

``compute`` is an op's kernel. Two things may compute an op another way, and both are
checked here on every case of ``tests/ops/cases``:

* a definition's specialized fast kernel (``make_kernel`` next to ``compute``, e.g.
  MatMul's transposes chosen once): it must give ``compute``'s results;
* the ufunc steps the fusion pass fuses (an elementwise op's ``ufunc_steps``, read by
  :func:`staticgraph.optimizer.fusion.elementwise_rule`): for the dtypes the pass fuses,
  they must give ``compute``'s results bit for bit; so must the in-place kernel a fused
  op applies as its activation (:func:`staticgraph.ops.math.elementwise.in_place_kernel`).

The op inputs are the values the case's graph feeds the op (computed by a session
that rewrites nothing), so ops inside composite cases are checked too.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib.op_def import OpDef, get_op_def, registered_types
from staticgraph.ops.math import elementwise
from staticgraph.optimizer import fusion

from .cases import all_cases

CASES = all_cases()


def _specialized(op_type):
    """True when the definition has both ``compute`` and its own ``make_kernel``."""
    d = get_op_def(op_type)
    return d.compute is not None and type(d).make_kernel is not OpDef.make_kernel


SPECIALIZED = frozenset(t for t in registered_types() if _specialized(t))
FUSABLE = frozenset(t for t in registered_types()
                    if fusion.elementwise_rule(get_op_def(t)) is not None)
IN_PLACE = frozenset(t for t in registered_types()
                    if isinstance(get_op_def(t), elementwise.ElementwiseOp))
FUSED_FLOATS = ("float16", "float32", "float64")
FUSED_INTS = ("int32", "int64")


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _op_inputs(case, op_types):
    """``[(op, input values)]`` for the ops of ``op_types`` in ``case``'s graph."""
    graph = tf.Graph()
    with graph.as_default():
        phs = [tf.placeholder(tf.as_dtype(v.dtype), v.shape, name=f"in{i}")
               for i, v in enumerate(case.inputs)]
        case.build(*phs)
    ops = [op for op in graph.get_operations() if op.type in op_types]
    if not ops:
        return []
    with tf.Session(graph=graph, optimizer_level=0) as sess:
        values = sess.run([list(op.inputs) for op in ops], dict(zip(phs, case.inputs)))
    return list(zip(ops, values))


def _outcome(fn, values):
    """``fn``'s results on copies of ``values`` (list of arrays), or the exception type."""
    try:
        return [np.asarray(r) for r in _as_list(fn(*[np.array(v, copy=True) for v in values]))]
    except Exception as e:  # noqa: BLE001 - both kernels must fail alike
        return type(e)


def _assert_same(got, want, exact, where):
    if isinstance(want, type) or isinstance(got, type):
        assert got == want, f"{where}: {got} vs {want}"
        return
    assert len(got) == len(want), where
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (where, g.dtype, w.dtype, g.shape,
                                                           w.shape)
        if exact or w.dtype.kind not in "fc":
            np.testing.assert_array_equal(g, w, err_msg=where)
        else:
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=0, err_msg=where)


def test_specialized_kernels_exist_for_hot_ops_only():
    """The op types allowed a second kernel (each needs a measured reason to keep it)."""
    assert SPECIALIZED == {"MatMul", "BatchMatMulV2", "Cast", "Sum", "Mean", "Max", "Min",
                           "Prod", "Any", "All"}


def test_every_specialized_op_type_has_cases():
    covered = {c.op_type for c in CASES}
    assert SPECIALIZED <= covered, sorted(SPECIALIZED - covered)


@pytest.mark.parametrize("case", [c for c in CASES if c.op_type in SPECIALIZED],
                         ids=lambda c: c.test_id)
def test_specialized_kernel_matches_compute(case):
    checked = _op_inputs(case, SPECIALIZED)
    assert checked, f"the case builds no {case.op_type}"
    for op, values in checked:
        fast = _outcome(op.op_def.make_kernel(op, None), values)
        one = _outcome(functools.partial(op.op_def.compute, **op.attrs), values)
        _assert_same(fast, one, False, f"{op.type} {op.name}")


@pytest.mark.parametrize("case", [c for c in CASES if c.op_type in FUSABLE],
                         ids=lambda c: c.test_id)
def test_fusion_steps_compute_the_kernel_bitwise(case):
    for op, values in _op_inputs(case, FUSABLE):
        steps, ints = fusion.elementwise_rule(op.op_def)
        dtype = op.outputs[0].dtype.name
        if dtype not in FUSED_FLOATS + (FUSED_INTS if ints else ()) \
                or any(np.asarray(v).dtype.name != dtype for v in values):
            continue  # the pass fuses these dtypes only
        fused = _outcome(functools.partial(_run_steps, steps), values)
        one = _outcome(functools.partial(op.op_def.compute, **op.attrs), values)
        _assert_same(fused, one, True, f"{op.type} {op.name} ({dtype})")


@pytest.mark.parametrize("case", [c for c in CASES if c.op_type in IN_PLACE],
                         ids=lambda c: c.test_id)
def test_in_place_kernels_compute_the_kernel_bitwise(case):
    for op, values in _op_inputs(case, IN_PLACE):
        if len(values) != 1 or np.asarray(values[0]).dtype != op.outputs[0].dtype.np_dtype:
            continue  # one input of the output's dtype: what a fused activation gets
        x = np.array(values[0], copy=True)
        kernel = elementwise.in_place_kernel(op.op_def, x.dtype, dict(op.attrs))
        fused = _outcome(kernel, [x])
        one = _outcome(functools.partial(op.op_def.compute, **op.attrs), [x])
        _assert_same(fused, one, True, f"{op.type} {op.name} ({x.dtype})")


def _run_steps(steps, *values):
    """The fused computation of one op: its ufunc steps in order."""
    dtype = values[0].dtype
    prev = None
    with np.errstate(all="ignore"):
        for name, operands in steps:
            args = [values[a] if isinstance(a, int) else prev if a == "prev"
                    else np.asarray(a[1], dtype) for a in operands]
            prev = getattr(np, name)(*args)
    return prev


def test_every_fusion_step_lowers_to_onnx():
    """The fused ONNX lowering finds each step's op definition by its ufunc."""
    for op_type in FUSABLE:
        for name, _ in fusion.elementwise_rule(get_op_def(op_type))[0]:
            assert elementwise.op_def_of_ufunc(getattr(np, name)) is not None, (op_type, name)


def test_compute_is_derived_from_compute_in_place():
    """An op stating ``compute_in_place`` has one kernel: ``compute`` runs it on a copy."""
    class Halve(elementwise.ElementwiseOp):
        @staticmethod
        def compute_in_place(x):
            return np.multiply(x, x.dtype.type(0.5), out=x)

    x = np.array([1.0, -3.0], np.float32)
    np.testing.assert_array_equal(Halve.compute(x), [0.5, -1.5])
    np.testing.assert_array_equal(x, [1.0, -3.0])   # the input is left alone
    assert elementwise.in_place_kernel(Halve(), np.float32)(x) is x
    with pytest.raises(TypeError, match="derived from compute_in_place"):
        class Both(elementwise.ElementwiseOp):  # noqa: F841 - the definition raises
            compute_in_place = staticmethod(lambda x: x)
            compute = staticmethod(lambda x: x)


def test_ufunc_steps_run_in_the_fused_buffer():
    """Relu6's steps (max, then min) write into the buffer they are given."""
    x = np.array([-2.0, 3.0, 9.0], np.float32)
    kernel = elementwise.in_place_kernel(get_op_def("Relu6"), np.float32)
    assert kernel(x) is x
    np.testing.assert_array_equal(x, [0.0, 3.0, 6.0])
