"""Algebraic-simplification rules on shapes (see :mod:`.simplify`): reshapes,
transposes, squeezes and expansions that undo each other or change nothing, and
SumToShape / BroadcastTo to a tensor's own shape. These ops only move elements, so
each rewrite is exact when the shapes agree; each rule's docstring says when.
"""

from __future__ import annotations

import numpy as np

from ..ops.static_value import constant_value, constant_value_as_shape

__all__ = ["simplify_reshape", "simplify_transpose", "remove_squeeze_of_expand",
           "remove_expand_of_squeeze", "remove_sum_to_own_shape", "remove_broadcast_to_own_shape"]


# --------------------------------------------------------------------- helpers
def _is_shape_of(ctx, s, x):
    """True when ``s`` is ``tf.shape(x)`` (dropping it drops nothing: ``x`` stays)."""
    return s.op.type == "Shape" and s.op.inputs[0] is x and not s.op.control_inputs


def _own_shape(ctx, s, x):
    """True when the shape tensor ``s`` is ``x``'s own shape and ``s`` can be dropped."""
    if _is_shape_of(ctx, s, x):
        return True
    if not x.shape.is_fully_defined():
        return False
    v = ctx.static(s)
    return v is not None and np.ndim(v) == 1 and tuple(int(d) for d in v) == x.shape.raw


# ----------------------------------------------------------------------- rules
def simplify_reshape(ctx, op):
    """``Reshape(x, s)`` -> ``x`` when ``s`` is ``x``'s own fully known shape or
    ``tf.shape(x)``; ``Reshape(Reshape(x, s1), s2)`` -> ``Reshape(x, s2)``.

    Exact: reshaping never reorders or changes elements (row-major order is kept), so
    only the shape can differ, and it is the same. The pair becomes one reshape only
    when the inner reshape cannot fail where the outer one succeeds (checked from the
    constant shapes), so run-time errors are kept too.
    """
    x, s = op.inputs
    if _own_shape(ctx, s, x) or (x.shape.is_fully_defined() and ctx.is_pure(s)
                                 and op.outputs[0].shape.raw == x.shape.raw):
        return x, "reshape to its own shape"
    inner = ctx.producer(x, "Reshape")
    if inner is None or not ctx.sole_reader(x, op):
        return None
    source, s1 = inner.inputs
    v1 = ctx.static(s1)
    if v1 is None or not _same_failures(source, v1, constant_value(s)):
        return None
    return (ctx.add_op("Reshape", [source, s], {}, op).outputs[0],
            "reshape of a reshape is one reshape")


def _shape_terms(v):
    """(product of the given sizes, has -1) for a shape vector, None when unusual."""
    v = [int(d) for d in np.reshape(v, -1)]
    if any(d < -1 for d in v) or v.count(-1) > 1:
        return None
    product = int(np.prod([d for d in v if d != -1], dtype=np.int64))
    return (product, -1 in v) if product > 0 else None


def _same_failures(source, v1, v2):
    """True when ``Reshape(Reshape(source, v1), v2)`` and ``Reshape(source, v2)`` fail
    for the same inputs (and so, where they succeed, agree)."""
    if source.shape.is_fully_defined() and source.shape.num_elements() > 0:
        return True  # the inner reshape was checked while declaring
    t1 = _shape_terms(v1)
    t2 = None if v2 is None else _shape_terms(v2)
    if t1 is None or t2 is None:
        return False
    (p1, m1), (p2, m2) = t1, t2
    if not m1:  # the inner reshape accepts exactly p1 elements
        return not m2 and p1 == p2
    return p2 % p1 == 0  # inner accepts multiples of p1; the outer's sizes are among them


def simplify_transpose(ctx, op):
    """``Transpose(Transpose(x, p1), p2)`` -> ``x`` when ``p1[p2]`` is the identity,
    else ``Transpose(x, p1[p2])``.

    Exact: output dimension ``i`` of the pair is input dimension ``p1[p2[i]]``; only
    element positions move, no value is computed.
    """
    x, p2t = op.inputs
    inner = ctx.producer(x, "Transpose")
    p2 = ctx.static(p2t)              # dropped either way: must be side-effect free
    if inner is None or p2 is None:
        return None
    source, p1t = inner.inputs
    p1 = ctx.static(p1t)
    if p1 is None or np.shape(p1) != np.shape(p2) or source.shape.rank != np.size(p1):
        return None
    composed = np.asarray(p1).reshape(-1)[np.asarray(p2).reshape(-1)]
    if (composed == np.arange(composed.size)).all():
        return source, "transposes with inverse permutations"
    if not ctx.sole_reader(x, op):
        return None
    perm = ctx.constant(composed, p2t.dtype, op)
    return (ctx.add_op("Transpose", [source, perm], {}, op).outputs[0],
            "transpose of a transpose is one transpose")


def remove_squeeze_of_expand(ctx, op):
    """``Squeeze(ExpandDims(x, d), [d])`` -> ``x``.

    Exact: inserting a dimension of size 1 and removing the same one leaves the
    values and the shape unchanged.
    """
    dims = tuple(op.attrs.get("squeeze_dims") or ())
    inner = ctx.producer(op.inputs[0], "ExpandDims")
    if inner is None or len(dims) != 1:
        return None
    x, d = inner.inputs
    v, r = ctx.static(d), x.shape.rank
    if v is None or r is None or np.size(v) != 1:
        return None
    if int(np.reshape(v, -1)[0]) % (r + 1) == dims[0] % (r + 1):
        return x, "squeeze of the dimension just expanded"
    return None


def remove_expand_of_squeeze(ctx, op):
    """``ExpandDims(Squeeze(x, [d]), d)`` -> ``x`` when dimension ``d`` of ``x`` is
    known to be 1.

    Exact: removing a size-1 dimension and inserting it back at the same place leaves
    the values and the shape unchanged.
    """
    inner = ctx.producer(op.inputs[0], "Squeeze")
    v = ctx.static(op.inputs[1])
    if inner is None or v is None or np.size(v) != 1:
        return None
    x, dims = inner.inputs[0], tuple(inner.attrs.get("squeeze_dims") or ())
    r = x.shape.rank
    if not r or len(dims) != 1:
        return None
    a = dims[0] % r
    if x.shape.raw[a] == 1 and int(np.reshape(v, -1)[0]) % r == a:
        return x, "expand of the dimension just squeezed"
    return None


def _to_own_shape(ctx, op, reason):
    x, s = op.inputs
    if _own_shape(ctx, s, x) or (_shape_matches(x, s) and ctx.is_pure(s)):
        return x, reason
    return None


def remove_sum_to_own_shape(ctx, op):
    """``SumToShape(g, s)`` -> ``g`` when ``s`` is ``g``'s own fully known shape (or
    ``tf.shape(g)``).

    Exact: summing to the same shape reduces no axis, and the kernel returns ``g``.
    """
    return _to_own_shape(ctx, op, "SumToShape to its input's own shape")


def remove_broadcast_to_own_shape(ctx, op):
    """``BroadcastTo(x, s)`` -> ``x`` when ``s`` is ``x``'s own fully known shape (or
    ``tf.shape(x)``).

    Exact: broadcasting to the same shape repeats nothing; every element is ``x``'s.
    """
    return _to_own_shape(ctx, op, "BroadcastTo its input's own shape")


def _shape_matches(x, s):
    target = constant_value_as_shape(s)
    return (x.shape.is_fully_defined() and target.is_fully_defined()
            and target.raw == x.shape.raw)

