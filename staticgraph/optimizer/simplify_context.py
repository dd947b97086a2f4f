"""The algebraic-simplification pass's view of the working graph (see :mod:`.simplify`).

One :class:`SimplifyContext` is built per pass: which ops are dead, who reads each
tensor, which ops are side-effect free, which tensors may share a variable's memory;
the rules in :mod:`.simplify_arithmetic` and :mod:`.simplify_shapes` ask it, and add
their new ops through it.
"""

from __future__ import annotations

import numpy as np

from ..graphlib import Tensor
from ..ops.static_value import constant_value

__all__ = ["SimplifyContext"]


class SimplifyContext:
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

    def producer(self, t, op_type):
        """``t``'s op when it has type ``op_type``, no control inputs and is live."""
        p = t.op
        if p.type == op_type and not p.control_inputs and id(p) not in self.dead:
            return p
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

