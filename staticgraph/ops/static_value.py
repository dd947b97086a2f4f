"""Values and shapes known while declaring (TF1's ``tensor_util.constant_value``).

Ops that take shapes or axes as tensors (``reshape``, ``fill``, ``tile``, random
ops) use these to infer static output shapes when the argument is a constant or
derived from static shapes.

Folding is memoised, so declaring or loading a graph costs time linear in its size
(a chain of ops that each read the previous tensor twice would otherwise re-fold
every ancestor twice per op: exponential):

- a *known* value is cached per op for the op's lifetime. Ops are immutable once
  created and a known value cannot change when shapes are refined later
  (``set_shape`` only makes shapes more known), so the cache is exact. Cached
  arrays are read-only: callers must copy before writing.
- an *unknown* value (None) may become known after a ``set_shape`` on an ancestor,
  so it is remembered only for the duration of one top-level query.
- one query evaluates at most :data:`MAX_FOLD_STEPS` ops and nests at most
  :data:`MAX_FOLD_DEPTH` levels at a time: deeper ancestors are folded first
  (iteratively), so long chains never hit Python's recursion limit.
- all queries on one graph together evaluate at most :data:`FOLD_STEPS_PER_OP`
  ops per op of the graph (plus one query's budget); past that, a query may
  evaluate :data:`MIN_FOLD_STEPS` ops. This keeps the total linear even for a
  hostile graph whose unknown values each sit at the end of a long chain.

A query over its budget answers None ("not known while declaring"), which is
always sound: it only makes static shapes less precise.

The memo and the budget belong to the graph: each graph carries a
:class:`FoldCache` (created at its first query, in the private graph attribute
``_static_value_cache``), so nothing outlives a graph or is shared between graphs.
"""

from __future__ import annotations

import threading

import numpy as np

from ..graphlib import Tensor, TensorShape

__all__ = ["constant_value", "constant_value_as_shape", "fold_cache", "FoldCache",
           "MAX_FOLD_STEPS", "MAX_FOLD_DEPTH", "FOLD_STEPS_PER_OP", "MIN_FOLD_STEPS",
           "MAX_SHAPE_RANK"]

MAX_FOLD_STEPS = 16384   # static_value evaluations of not-yet-cached ops per query
MIN_FOLD_STEPS = 8       # ... per query once the graph's allowance is spent
FOLD_STEPS_PER_OP = 16   # evaluations per op of a graph, all queries together
MAX_FOLD_DEPTH = 48      # nested static_value evaluations before folding the deeper op first
MAX_SHAPE_RANK = 254     # TF's largest rank: a longer shape tensor gives an unknown shape

_CACHE_ATTRIBUTE = "_static_value_cache"


class FoldCache:
    """One graph's folding state, kept on the graph (see :func:`fold_cache`).

    Attributes:
        known: Operation -> its value known while declaring (read-only arrays).
        spent: evaluations made by all queries on the graph so far (the budget).
        local: per thread, the query in progress (``local.query``, or None).
    """

    __slots__ = ("known", "spent", "local")

    def __init__(self):
        self.known = {}
        self.spent = 0
        self.local = threading.local()


def fold_cache(graph) -> FoldCache:
    """The :class:`FoldCache` of ``graph``, created at the first call.

    It is stored on the graph itself, so it lives and dies with the graph; graphlib
    knows nothing about it (the ops layer sits above graphlib).
    """
    cache = graph.__dict__.get(_CACHE_ATTRIBUTE)
    if cache is None:
        fresh = FoldCache()
        # setdefault: two threads asking at once get one cache
        cache = graph.__dict__.setdefault(_CACHE_ATTRIBUTE, fresh)
        if cache is None:   # the graph declares the attribute, empty
            cache = graph.__dict__[_CACHE_ATTRIBUTE] = fresh
    return cache


class _Deeper(BaseException):
    """Unwinds a query to its top to fold ``op`` first (never escapes this module).

    A BaseException so that no op's ``except Exception`` can swallow it.
    """

    def __init__(self, op):
        super().__init__()
        self.op = op


class _OverBudget(BaseException):
    """Unwinds a query that evaluated :data:`MAX_FOLD_STEPS` ops (never escapes)."""


class _Query:
    """One top-level :func:`constant_value` call: memo of every op evaluated in it."""

    __slots__ = ("memo", "depth", "steps", "limit", "known")

    def __init__(self, limit, known):
        self.memo = {}     # Operation -> value or None, for this query only
        self.depth = 0
        self.steps = 0
        self.limit = limit
        self.known = known  # the graph's FoldCache.known, filled as values are found

    def value(self, op):
        if op in self.memo:
            return self.memo[op]
        if self.depth >= MAX_FOLD_DEPTH:
            raise _Deeper(op)
        if self.steps >= self.limit:
            raise _OverBudget()
        self.steps += 1
        self.depth += 1
        try:
            value = _read_only(op.op_def.static_value(op))
        finally:
            self.depth -= 1
        self.memo[op] = value
        if value is not None:
            self.known[op] = value
        return value

    def run(self, op):
        """``op``'s value, folding too-deep ancestors first with an explicit stack."""
        pending = [op]
        while pending:
            target = pending[-1]
            if target in self.memo:
                pending.pop()
                continue
            try:
                self.value(target)
            except _Deeper as deeper:
                pending.append(deeper.op)
            else:
                pending.pop()
        return self.memo[op]


def _read_only(value):
    if isinstance(value, np.ndarray) and value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


def constant_value(tensor):
    """The numpy value of ``tensor`` if it is known while declaring, else None.

    Values of graph tensors are read-only arrays (they are cached per op); copy
    one before writing to it.
    """
    if not isinstance(tensor, Tensor):
        return None if tensor is None else np.asarray(tensor)
    if tensor.value_index != 0:
        return None
    op = tensor.op
    graph = op.graph
    cache = graph.__dict__.get(_CACHE_ATTRIBUTE) or fold_cache(graph)
    known = cache.known.get(op)
    if known is not None:
        return known
    local = cache.local
    query = getattr(local, "query", None)
    if query is not None:                 # nested: an op's static_value asks its inputs
        return query.value(op)
    allowance = FOLD_STEPS_PER_OP * (graph.version + 1) + MAX_FOLD_STEPS - cache.spent
    query = local.query = _Query(min(MAX_FOLD_STEPS, max(MIN_FOLD_STEPS, allowance)),
                                 cache.known)
    try:
        return query.run(op)
    except _OverBudget:
        return None
    finally:
        local.query = None
        cache.spent += query.steps


def constant_value_as_shape(tensor) -> TensorShape:
    """A 1-D int tensor describing a shape, as a :class:`TensorShape`.

    Known entries become known dimensions, -1 or unknown entries unknown ones;
    handles constants, ``tf.shape(x)``, ``tf.stack`` of scalars and concatenations
    (nested to any depth, each tensor looked at once). A shape of more than
    :data:`MAX_SHAPE_RANK` dimensions is unknown.
    """
    if not isinstance(tensor, Tensor):
        return _shape_of_value(constant_value(tensor))
    done = {}        # id(tensor) -> TensorShape
    parts = {}       # id(concat tensor) -> the tensors it concatenates
    stack = [tensor]
    while stack:
        t = stack[-1]
        key = id(t)
        if key in done:
            stack.pop()
            continue
        inputs = parts.get(key)
        if inputs is None:
            shape, inputs = _shape_or_parts(t)
            if inputs is None:
                done[key] = shape
                stack.pop()
                continue
            parts[key] = inputs
        missing = [p for p in inputs if id(p) not in done]
        if missing:
            stack.extend(reversed(missing))
            continue
        out = TensorShape([])
        for p in inputs:
            out = out.concatenate(done[id(p)])
        done[key] = out if out.rank is None or out.rank <= MAX_SHAPE_RANK else TensorShape(None)
        stack.pop()
    return done[id(tensor)]


def _shape_of_value(value):
    if value is None:
        return TensorShape(None)
    value = np.asarray(value)
    if value.ndim == 0:
        return TensorShape([None if value < 0 else int(value)])
    if value.size > MAX_SHAPE_RANK:
        return TensorShape(None)
    return TensorShape([None if d < 0 else int(d) for d in value.reshape(-1)])


def _static_length(tensor):
    """The static length of a 1-D tensor, or None."""
    raw = tensor.shape.raw
    return raw[0] if raw is not None and len(raw) == 1 else None


def _shape_or_parts(tensor):
    """``(shape, None)``, or ``(None, inputs)`` for a concatenation to look into."""
    value = constant_value(tensor)
    if value is not None:
        return _shape_of_value(value), None
    n = _static_length(tensor)
    if tensor.shape.rank == 1 and n is not None and n > MAX_SHAPE_RANK:
        return TensorShape(None), None
    op = tensor.op
    if op.type == "Shape":
        return op.inputs[0].shape, None
    if op.type == "Pack" and len(op.inputs) <= MAX_SHAPE_RANK:
        dims = []
        for t in op.inputs:
            v = constant_value(t)
            dims.append(None if v is None or np.ndim(v) != 0 or int(v) < 0 else int(v))
        return TensorShape(dims), None
    if op.type == "ConcatV2" and len(op.inputs) > 1:
        return None, list(op.inputs[:-1])
    if tensor.shape.rank == 1 and n is not None:
        return TensorShape([None] * n), None
    return TensorShape(None), None
