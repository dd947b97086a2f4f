"""Gradient checks parametrized over every registered op type's cases.

Every op type either has a gradient rule or is declared non-differentiable; every
differentiable op type has at least one case whose gradient is checked against
central finite differences in float64 (and smooth ops' cases their second
derivatives too).
"""

from __future__ import annotations

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.graphlib.op_def import get_op_def, registered_types

from ..gradient_check import (as_float64, check_gradients, float_indices, output_weights,
                              weighted_sum)
from .cases import all_cases

CASES = all_cases()


def _wrt(case):
    return list(case.grad_inputs) if case.grad_inputs is not None else float_indices(case.inputs)


def _checked(case):
    return case.grad and get_op_def(case.op_type).differentiable and bool(_wrt(case))


GRAD_CASES = [c for c in CASES if _checked(c) and c.grad is True]
NONE_CASES = [c for c in CASES if _checked(c) and c.grad == "none"]
GRAD2_CASES = [c for c in GRAD_CASES if c.grad2]


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _loss_builder(case, inputs):
    weights = output_weights(case.build, inputs)

    def build(*phs):
        loss = weighted_sum(_as_list(case.build(*phs)), weights)
        return tf.cast(loss, tf.float64) if loss.dtype != tf.float64 else loss
    return build


@pytest.mark.parametrize("op_type", registered_types())
def test_every_op_type_has_a_gradient_rule_or_declares_none(op_type):
    op_def = get_op_def(op_type)
    assert not op_def.differentiable or op_def.grad is not None, (
        f"{op_type} is differentiable but defines no grad(); define it or set "
        "differentiable = False")


def test_every_differentiable_op_type_has_a_checked_gradient():
    checked = {c.op_type for c in GRAD_CASES + NONE_CASES}
    missing = sorted(t for t in registered_types()
                     if get_op_def(t).differentiable and t not in checked
)
    assert not missing, f"differentiable op types without a gradient-checked case: {missing}"


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.test_id for c in GRAD_CASES])
def test_gradient_matches_finite_differences(case):
    inputs = as_float64(case.inputs)
    check_gradients(_loss_builder(case, inputs), inputs, _wrt(case),
                    rtol=case.grad_rtol, atol=case.grad_atol)


@pytest.mark.parametrize("case", GRAD2_CASES, ids=[c.test_id for c in GRAD2_CASES])
def test_second_derivatives_match_finite_differences(case):
    inputs = as_float64(case.inputs)
    wrt = _wrt(case)
    first = _loss_builder(case, inputs)
    rng = np.random.default_rng(2)
    weights = [rng.standard_normal(inputs[i].shape) for i in wrt]

    def build(*phs):
        grads = tf.gradients(first(*phs), [phs[i] for i in wrt])
        return weighted_sum([g for g in grads], weights)

    check_gradients(build, inputs, wrt, rtol=case.grad_rtol * 10, atol=case.grad_atol * 10)


@pytest.mark.parametrize("case", NONE_CASES, ids=[c.test_id for c in NONE_CASES])
def test_gradient_is_none_where_tf1_declares_none(case):
    inputs = as_float64(case.inputs)
    graph = tf.Graph()
    with graph.as_default():
        phs = [tf.placeholder(tf.as_dtype(v.dtype), v.shape) for v in inputs]
        outs = [o for o in _as_list(case.build(*phs)) if o.dtype.is_floating]
        grads = tf.gradients(outs, [phs[i] for i in _wrt(case)])
    assert grads == [None] * len(grads)
