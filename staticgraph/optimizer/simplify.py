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
"""

from __future__ import annotations

import numpy as np

from ..graphlib import Tensor
from ..ops.static_value import constant_value, constant_value_as_shape

__all__ = ["simplify", "RULES", "MAX_SWEEPS"]

MAX_SWEEPS = 10


# --------------------------------------------------------------------- context
class _Context:
    """What the rules need to know about the working graph, computed once per pass."""

    def __init__(self, working, pass_name):
        self.working = working
        self.pass_name = pass_name
        self.dead = set()        # ids of ops no live op or fetch needs any more
        self.memo = {}           # tests and constants worth computing once
        ops = working.ops()
        self.written = set()     # ids of variable ops this signature writes
        for op in ops:
            d = op.op_def
            if d.writes_refs:
                for j in d.ref_inputs:
                    if j < len(op.inputs):
                        self.written.add(id(op.inputs[j].op))
        fed = {id(t.op) for t in working.feeds}
        self.kept = {id(c) for op in ops for c in op.control_inputs}   # ordering targets
        self.kept.update(id(f) for f in working.fetches if not isinstance(f, Tensor))
        self.readers = {}        # id(tensor) -> reads by live ops
        for op in ops:
            self._count_reads(op, 1)
        self.pure = set()        # ids of ops with no side effects up to the sources
        self.aliases = set()     # ids of tensors that may share a variable's memory
        for op in ops:           # dependency order
            d = op.op_def
            if id(op) in fed or (not (d.stateful or d.must_feed or d.is_variable)
                                 and not op.control_inputs
                                 and all(id(t.op) in self.pure for t in op.inputs)):
                self.pure.add(id(op))
            if self.written:
                self._note_aliasing(op)

    def _note_aliasing(self, op):
        d = op.op_def
        view = d.returns_view
        viewed = op.inputs if view is True else [op.inputs[i] for i in (view or ())
                                                 if i < len(op.inputs)]
        if d.is_variable or d.ref_inputs or any(id(t) in self.aliases for t in viewed):
            self.aliases.update(id(t) for t in op.outputs)

    def _count_reads(self, op, n):
        readers = self.readers
        for t in op.inputs:
            readers[id(t)] = readers.get(id(t), 0) + n

    def replaced(self, old, new):
        """Record that the live reads of ``old`` now read ``new``; retire ``old.op``."""
        self.readers[id(new)] = self.readers.get(id(new), 0) + self.readers.pop(id(old), 0)
        self.retire(old.op)

    def retire(self, op):
        """Mark ``op`` dead, and its producers that no live op reads any more."""
        stack = [op]
        while stack:
            o = stack.pop()
            if id(o) in self.dead:
                continue
            self.dead.add(id(o))
            self._count_reads(o, -1)
            for t in o.inputs:
                p = t.op
                if id(p) in self.dead or id(p) in self.kept:
                    continue
                if all(not self.readers.get(id(u)) and not self.working.is_fetched(u)
                       for u in p.outputs):
                    stack.append(p)

    def is_pure(self, t):
        """True when no longer reading ``t`` drops no side effect."""
        return id(t.op) in self.pure or (t.op.type == "Const" and not t.op.control_inputs)

    def const(self, t):
        """The value of a side-effect-free constant tensor, else None."""
        if t.op.type == "Const" and not t.op.control_inputs:
            return np.asarray(t.op.attrs["value"])
        return None

    def static(self, t):
        """``t``'s value if known while compiling and dropping ``t`` is harmless."""
        if not self.is_pure(t):
            return None
        v = self.const(t)
        return v if v is not None else constant_value(t)

    def sole_reader(self, t, op):
        """True when ``op`` (which reads ``t``) is its only live reader and ``t`` is not
        fetched."""
        return self.readers.get(id(t)) == 1 and not self.working.is_fetched(t)

    def only_reader(self, t):
        """The one live op that reads ``t`` once, else None."""
        if self.readers.get(id(t)) != 1 or self.working.is_fetched(t):
            return None
        for c in self.working.consumers(t):
            if id(c) not in self.dead:
                return c
        return None

    def add_op(self, op_type, inputs, attrs, like):
        """A new op in the copy, attributed to ``like``'s user line."""
        op = self.working.add_op(op_type, inputs, attrs, like=like, pass_name=self.pass_name)
        self._count_reads(op, 1)
        if all(self.is_pure(t) for t in op.inputs):
            self.pure.add(id(op))
        if self.written:
            self._note_aliasing(op)
        return op

    def constant(self, value, dtype, like):
        """A Const of ``value``; small values made by this pass are shared."""
        value = np.array(value, dtype=dtype.np_dtype)
        value.flags.writeable = False
        key = ("const", value.dtype.str, value.shape, value.tobytes()) \
            if value.size <= 16 else None
        t = self.memo.get(key)
        if t is None:
            t = self.add_op("Const", [], {"value": value, "dtype": dtype}, like).outputs[0]
            if key is not None:
                self.memo[key] = t
        return t


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


def _producer(ctx, t, op_type):
    """``t``'s op when it has type ``op_type``, no control inputs and is live."""
    p = t.op
    if p.type == op_type and not p.control_inputs and id(p) not in ctx.dead:
        return p
    return None


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
    inner = _producer(ctx, op.inputs[0], "Neg")
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
    inner = _producer(ctx, x, "Reshape")
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
    inner = _producer(ctx, x, "Transpose")
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
    inner = _producer(ctx, op.inputs[0], "ExpandDims")
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
    inner = _producer(ctx, op.inputs[0], "Squeeze")
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
    ctx = _Context(working, pass_name)
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
