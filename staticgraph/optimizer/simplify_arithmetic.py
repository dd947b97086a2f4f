"""Algebraic-simplification rules on values (see :mod:`.simplify`): arithmetic by
constants that changes nothing (``x * 1``, ``x + -0.0``, ``x / 1``), chains of
scalings merged, double negation, and ops that forward their input (Identity,
StopGradient, a Cast to the same dtype).

Each rule's docstring carries its exactness argument.
"""

from __future__ import annotations

import numpy as np

__all__ = ["drop_multiply_by_one", "drop_add_zero", "drop_subtract_zero", "drop_divide_by_one",
           "drop_integer_divide_by_one", "remove_identity", "remove_stop_gradient",
           "remove_double_negation", "remove_noop_cast", "merge_scalings"]


# --------------------------------------------------------------------- helpers
def _exact_kind(t):
    """Integer or real floating dtype (the rules' arithmetic facts hold for these)."""
    return t.dtype.np_dtype.kind in "iuf"



def _keeps_shape(x, c, out):
    """True when broadcasting constant value ``c`` against ``x`` leaves ``x``'s shape."""
    if out.shape.raw != x.shape.raw:
        return False
    raw = x.shape.raw
    if raw is None:
        return c.ndim == 0
    if c.ndim > len(raw):
        return False
    return all(d == 1 or d == xd for d, xd in zip(c.shape[::-1], raw[::-1]))


def _drop_constant(ctx, op, pred, name, dtypes_ok=_exact_kind, sides=(0, 1)):
    """``x`` for ``op = x (op) c`` (``c`` on one of ``sides``) when every element of the
    constant ``c`` meets ``pred`` and ``c`` broadcasts into ``x``'s shape, else None."""
    if not dtypes_ok(op.outputs[0]):
        return None
    for side in sides:
        c, x = op.inputs[1 - side], op.inputs[side]
        v = ctx.const(c)
        if v is None:
            continue
        key = (id(c), name)        # constants are shared by many ops: test each once
        hit = ctx.memo.get(key)
        if hit is None:
            hit = ctx.memo[key] = bool(v.size and np.all(pred(v)))
        if hit and _keeps_shape(x, v, op.outputs[0]):
            return x, name
    return None


def _is_one(v):
    return v == 1


def _zero_exact_in_add(v):
    """Elements ``z`` with ``x + z == x`` for every ``x``: 0 (ints) or -0.0 (floats)."""
    return (v == 0) & np.signbit(v) if v.dtype.kind == "f" else v == 0


def _zero_exact_in_sub(v):
    """Elements ``z`` with ``x - z == x`` for every ``x``: 0 (ints) or +0.0 (floats)."""
    return (v == 0) & ~np.signbit(v) if v.dtype.kind == "f" else v == 0


def _floats(t):
    return t.dtype.np_dtype.kind == "f"


def _ints(t):
    return t.dtype.np_dtype.kind in "iu"


# ----------------------------------------------------------------------- rules
def drop_multiply_by_one(ctx, op):
    """``x * 1`` and ``1 * x`` -> ``x`` (integers and real floats).

    Exact: IEEE multiplication by one returns ``x`` itself for every float, including
    ``-0.0`` (``-0.0 * 1`` is ``-0.0``), ``inf`` and ``nan`` (a quiet nan keeps its
    payload); for integers it is the identity.
    Not for complex numbers: ``(a+bi)(1+0i)`` computes ``b*0``, which is nan for
    ``b = inf``.
    """
    return _drop_constant(ctx, op, _is_one, "x * 1")


def drop_add_zero(ctx, op):
    """``x + z``, ``z + x`` -> ``x`` where ``z`` is 0 (integers) or ``-0.0`` (floats).

    Exact: ``x + (-0.0)`` is ``x`` for every float (``-0.0 + -0.0`` is ``-0.0``, ``+0.0
    + -0.0`` is ``+0.0``, nan and inf stay); ``x + (+0.0)`` is not, since ``-0.0 +
    (+0.0)`` is ``+0.0``, so a float ``+0.0`` is left alone. Integer ``x + 0`` is ``x``.
    """
    return _drop_constant(ctx, op, _zero_exact_in_add, "x + 0")


def drop_subtract_zero(ctx, op):
    """``x - z`` -> ``x`` where ``z`` is 0 (integers) or ``+0.0`` (floats).

    Exact: ``x - (+0.0)`` is ``x + (-0.0)``, the identity for every float (see
    :func:`drop_add_zero`); ``x - (-0.0)`` is ``x + (+0.0)``, which turns ``-0.0``
    into ``+0.0``, so it is left alone. ``0 - x`` is a negation and is never dropped.
    """
    return _drop_constant(ctx, op, _zero_exact_in_sub, "x - 0", sides=(0,))


def drop_divide_by_one(ctx, op):
    """``x / 1`` -> ``x`` for ``RealDiv`` and ``DivNoNan`` on floats.

    Exact: IEEE division by one returns ``x`` for every float, signed zeros, inf and
    nan included; ``DivNoNan`` only differs from ``RealDiv`` where the divisor is 0.
    """
    return _drop_constant(ctx, op, _is_one, "x / 1", _floats, (0,))


def drop_integer_divide_by_one(ctx, op):
    """``x // 1`` -> ``x`` for ``FloorDiv`` and ``TruncateDiv`` on integers only.

    Exact: integer division by one is the identity (no overflow: only ``MIN // -1``
    overflows). On floats ``FloorDiv`` computes ``floor(x / 1)``, which rounds ``x``,
    so floats are left alone.
    """
    return _drop_constant(ctx, op, _is_one, "x // 1", _ints, (0,))


def remove_identity(ctx, op):
    """``Identity(x)`` -> ``x``.

    Exact: Identity's value is its input; only a variable's read timing could differ,
    which the driver's state guard keeps.
    """
    return op.inputs[0], "Identity forwards its input"


def remove_stop_gradient(ctx, op):
    """``StopGradient(x)`` -> ``x``.

    Exact: its forward value is its input; the optimizer runs after gradients were
    built, so the gradient barrier has done its work.
    """
    return op.inputs[0], "StopGradient forwards its input (gradients are built)"


def remove_double_negation(ctx, op):
    """``-(-x)`` -> ``x``.

    Exact: float negation flips the sign bit only (``-0.0``, inf and nan included), so
    twice is the identity; integer negation is two's complement, where ``-(-MIN)``
    wraps back to ``MIN``.
    """
    inner = ctx.producer(op.inputs[0], "Neg")
    if inner is None:
        return None
    return inner.inputs[0], "-(-x) is x"


def remove_noop_cast(ctx, op):
    """``Cast(x)`` to ``x``'s own dtype -> ``x``.

    Exact: converting a value to its own dtype changes no bit.
    """
    x = op.inputs[0]
    if op.attrs.get("DstT") == x.dtype:
        return x, "cast to its own dtype"
    return None


def _scaling(ctx, op):
    """``(x, c tensor, c value)`` for ``op = x * c`` (a live, plain Mul by one
    constant), else None."""
    if op.type != "Mul" or op.control_inputs or id(op) in ctx.dead:
        return None
    a, b = op.inputs
    ca, cb = ctx.const(a), ctx.const(b)
    if (ca is None) == (cb is None):
        return None
    return (b, a, ca) if ca is not None else (a, b, cb)


def merge_scalings(ctx, op):
    """``(x * c1) * c2`` -> ``x * (c1 * c2)``, along whole chains of Muls by constants.

    Exact for integers always: wrap-around multiplication is associative. For floats
    only when every element of ``c1`` is ``+-2**k`` with ``k >= 0``, every ``|c2| >= 1``
    unless ``|c1| == 1``, and ``c1 * c2`` is finite: then ``x * c1`` is exact (scaling
    up by a power of two never rounds and never underflows) or overflows to ``+-inf``,
    in which case ``|x * c1 * c2|`` overflows too; signs multiply alike, and nan stays
    nan. In general float multiplication is not associative (``x * 4 * 0.25`` differs
    from ``x`` when ``x * 4`` overflows, and ``x * 0.5 * 0.5`` double-rounds
    subnormals), so no other case is merged.

    Fires once per chain, at its top, and walks down the chain; runs of constants
    that merge exactly (from the bottom up) each become one Mul by one constant.
    """
    out = op.outputs[0]
    link = _scaling(ctx, op)
    if link is None or not _exact_kind(out) or _extends(ctx, op):
        return None
    chain = [(op,) + link]            # (op, x, c tensor, c value), top to bottom
    while True:
        x = chain[-1][1]
        below = _scaling(ctx, x.op)
        if below is None or not ctx.sole_reader(x, chain[-1][0]):
            break
        chain.append((x.op,) + below)
    if len(chain) < 2:
        return None
    chain.reverse()                   # bottom to top
    edits, data = [], chain[0][1]
    run, acc = [chain[0][0]], chain[0][3]
    for link in chain[1:] + [None]:
        if link is not None:
            product = _merged(ctx, acc, link[3], out.dtype)
            if product is not None:
                run.append(link[0])
                acc = product
                continue
        top = run[-1]
        if len(run) > 1:
            merged = ctx.add_op("Mul", [data, ctx.constant(acc, out.dtype, top)], {}, top)
            edits.append((top.outputs[0], merged.outputs[0], "x * c1 * c2 is x * (c1 * c2)"))
            data = merged.outputs[0]
        else:
            data = top.outputs[0]
        if link is not None:
            run, acc = [link[0]], link[3]
    return edits or None


def _merged(ctx, c1, c2, dtype):
    """``c1 * c2`` when ``(x * c1) * c2 == x * (c1 * c2)`` for every ``x``, else None."""
    key = None
    if c1.size <= 16 and c2.size <= 16:  # chains repeat small constants: test each pair once
        key = ("merge", c1.dtype.str, c1.shape, c1.tobytes(), c2.shape, c2.tobytes())
    if key is not None and key in ctx.memo:
        return ctx.memo[key]
    with np.errstate(all="ignore"):
        product = np.multiply(c1, c2, dtype=dtype.np_dtype)
        if dtype.np_dtype.kind == "f" and not _exact_float_merge(c1, c2, product):
            product = None
    if key is not None:
        ctx.memo[key] = product
    return product


def _extends(ctx, op):
    """True when ``op``'s only reader is a Mul by a constant (the chain goes on)."""
    t = op.outputs[0]
    reader = ctx.only_reader(t)
    up = None if reader is None else _scaling(ctx, reader)
    return up is not None and up[0] is t


def _exact_float_merge(c1, c2, product):
    """The float conditions under which ``(x * c1) * c2 == x * (c1 * c2)`` for every x."""
    a1, a2 = np.abs(c1), np.abs(c2)
    mantissa, _ = np.frexp(c1)
    power_of_two_up = (a1 >= 1) & (np.abs(mantissa) == 0.5)
    return bool(np.all(power_of_two_up) and np.all((a1 == 1) | (a2 >= 1))
                and np.all(np.isfinite(c2)) and np.all(np.isfinite(product)))
