"""Algebraic simplification: local rewrites that are exact in IEEE arithmetic.

Each rule looks at one op (the table ``RULES`` is indexed by op type) and either
returns a tensor that always holds the same value -- bit for bit, including
``-0.0``, ``nan`` and ``inf`` -- or declines. The pass sweeps the ops in
dependency order and repeats until a sweep changes nothing (at most
``MAX_SWEEPS`` sweeps); each sweep is linear in the graph's size.

Each rule's docstring carries its exactness argument: why the rewrite gives
bit-identical results, or the exact conditions (dtypes, nan/inf, signed zeros,
broadcasting) under which it does. ``c`` there is a constant, all of whose elements
are the value shown; rules that drop ``c`` apply only when broadcasting ``c`` leaves
``x``'s shape unchanged (the result would otherwise be larger than ``x``).

Guards that hold for every rule: the rewritten op has no control inputs (its
consumers would lose that ordering); constants and shape tensors that a rewrite
stops reading must be side-effect free; the replacement's static shape is at
least as precise as the old one (fetches keep their rank, so scalars stay
scalars; a fetched tensor may be replaced, since ``replace`` moves the fetch and
the value is the same); and session state keeps its timing. Sessions read a variable where a
consumer runs, and ``Apply*`` ops update variables in place, so while this
signature writes variables a read is never moved past a write: an ``Identity``
of a written variable stays, and an op that makes a fresh array (``x * 1``)
is not replaced by a tensor that may share a variable's memory.

This module holds the driver and the rule table; the rules live in
:mod:`.simplify_arithmetic` (values) and :mod:`.simplify_shapes` (shapes), and what
they know about the graph in :mod:`.simplify_context`.
"""

from __future__ import annotations

from .simplify_arithmetic import (drop_add_zero, drop_divide_by_one, drop_integer_divide_by_one,
                                  drop_multiply_by_one, drop_subtract_zero, merge_scalings,
                                  remove_double_negation, remove_identity, remove_noop_cast,
                                  remove_stop_gradient)
from .simplify_context import SimplifyContext
from .simplify_shapes import (remove_broadcast_to_own_shape, remove_expand_of_squeeze,
                              remove_squeeze_of_expand, remove_sum_to_own_shape, simplify_reshape,
                              simplify_transpose)

__all__ = ["simplify", "RULES", "MAX_SWEEPS"]

MAX_SWEEPS = 10


RULES = {
    "Mul": (drop_multiply_by_one, merge_scalings),
    "Add": (drop_add_zero,),
    "Sub": (drop_subtract_zero,),
    "RealDiv": (drop_divide_by_one,),
    "DivNoNan": (drop_divide_by_one,),
    "FloorDiv": (drop_integer_divide_by_one,),
    "TruncateDiv": (drop_integer_divide_by_one,),
    "Neg": (remove_double_negation,),
    "Identity": (remove_identity,),
    "StopGradient": (remove_stop_gradient,),
    "Cast": (remove_noop_cast,),
    "Reshape": (simplify_reshape,),
    "Transpose": (simplify_transpose,),
    "Squeeze": (remove_squeeze_of_expand,),
    "ExpandDims": (remove_expand_of_squeeze,),
    "SumToShape": (remove_sum_to_own_shape,),
    "BroadcastTo": (remove_broadcast_to_own_shape,),
}
"""Op type -> the rules tried on ops of that type, in order. A rule takes the pass
context and the op and returns ``(replacement tensor, reason)`` for the op's output,
a list of ``(old tensor, replacement, reason)``, or None."""


# ---------------------------------------------------------------------- driver
def _at_least_as_precise(new, old):
    """``new``'s static shape refines ``old``'s (consumers were inferred with ``old``)."""
    o, n = old.shape.raw, new.shape.raw
    if o is None:
        return True
    return n is not None and len(n) == len(o) and all(a is None or a == b
                                                      for a, b in zip(o, n))


def _keeps_state_timing(ctx, op, new):
    """Reads of state stay where they were (see the module docstring)."""
    if not ctx.written:
        return True
    if new.op.op_def.is_variable and id(new.op) in ctx.written:
        return False  # the read would move to the consumers, past a write
    return bool(op.op_def.returns_view) or id(new) not in ctx.aliases


def simplify(working, pass_name="simplify"):
    """Apply the exact algebraic rewrites to a fixed point; returns edits made.

    Args:
        working: the session's :class:`~staticgraph.optimizer.working_graph.WorkingGraph`.
        pass_name: the name edits are recorded under in the report.

    Returns:
        The number of tensors replaced.
    """
    ctx = SimplifyContext(working, pass_name)
    edits = 0
    for _ in range(MAX_SWEEPS):
        changed = 0
        for op in working.ops():
            rules = RULES.get(op.type)
            if not rules or op.control_inputs or len(op.outputs) != 1 or id(op) in ctx.dead:
                continue
            for rule in rules:
                found = rule(ctx, op)
                if found is None:
                    continue
                if isinstance(found, tuple):
                    found = [(op.outputs[0],) + found]
                done = 0
                for old, new, reason in found:
                    if (new.dtype is old.dtype and _at_least_as_precise(new, old)
                            and _keeps_state_timing(ctx, old.op, new)):
                        working.replace(old, new, reason, pass_name)
                        ctx.replaced(old, new)
                        done += 1
                if done:
                    changed += done
                    break
        edits += changed
        if not changed:
            break
    return edits
