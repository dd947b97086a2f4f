"""The session's private copy of a graph, and the one edit path passes use.

``WorkingGraph.copy(graph, fetches, feeds)`` copies only the ops the fetches need
(the first prune), turning each fed tensor into a placeholder, so passes see a
self-contained program. Passes then edit the copy only through
:meth:`WorkingGraph.replace` (and :meth:`add_op`, which attributes new ops to the
user's line of the op they stand in for); every edit is recorded in the report.
The user's graph is never changed.
"""

from __future__ import annotations

from ..graphlib import Graph, Operation, Tensor
from ..graphlib.tensor_shape import TensorShape
from ..graphlib.toposort import topological_order
from .report import Report

__all__ = ["WorkingGraph"]


class WorkingGraph:
    """A pruned, rewritable copy of a graph for one (fetches, feeds) signature.

    Attributes:
        graph: the copy (a :class:`Graph`).
        fetches: the copy's counterparts of the fetched tensors and ops, in order.
        feeds: the copy's placeholders standing for the fed tensors, in order.
        report: what every pass changed and why.
        origins: id(op in the copy) -> the user's op it comes from (or stands in for).
    """

    def __init__(self, graph: Graph, fetches, feeds, report: Report, origins=None):
        self.graph = graph
        self.fetches = fetches
        self.feeds = feeds
        self.report = report
        self.origins = origins if origins is not None else {}
        self._consumers = None

    def origin(self, op):
        """The user's op that ``op`` (an op of the copy) comes from or stands in for."""
        return self.origins.get(id(op), op)

    # ------------------------------------------------------------------ building
    @classmethod
    def copy(cls, source: Graph, fetches, feeds, report=None) -> "WorkingGraph":
        """Copy the ops ``fetches`` need from ``source``, cutting at ``feeds``."""
        from ..ops.registry import get_op_def
        copy = Graph()
        copy.seed = source.seed
        copy._created_at = source._created_at
        mapping = {}          # id(source tensor or op) -> copy tensor or op
        origins = {}
        fed = {id(t): i for i, t in enumerate(feeds)}
        new_feeds = [None] * len(feeds)
        placeholder = get_op_def("Placeholder")
        for i, t in enumerate(feeds):
            op = _add(copy, placeholder, f"{t.op.name}/fed_{t.value_index}", (), {
                "dtype": t.dtype, "shape": t.shape}, [(t.dtype, t.shape)], t.op.traceback,
                t.op.device, [])
            mapping[id(t)] = op.outputs[0]
            origins[id(op)] = t.op
            new_feeds[i] = op.outputs[0]
        for op in _needed(fetches, fed):
            inputs = [mapping[id(t)] if id(t) in mapping else mapping[id(t.op)].outputs[
                t.value_index] for t in op.inputs]
            control = [mapping[id(c)] for c in op.control_inputs if not _all_fed(c, fed)]
            new = _add(copy, op.op_def, op.name, inputs, dict(op.attrs),
                       [(t.dtype, t.shape) for t in op.outputs], op.traceback, op.device,
                       control)
            mapping[id(op)] = new
            origins[id(new)] = op
        new_fetches = []
        for e in fetches:
            if isinstance(e, Tensor):
                new_fetches.append(mapping[id(e)] if id(e) in mapping
                                   else mapping[id(e.op)].outputs[e.value_index])
            elif _all_fed(e, fed):  # a fed op counts as run: stand in its feed
                new_fetches.append(mapping[id(e.outputs[0])].op)
            else:
                new_fetches.append(mapping[id(e)])
        report = report or Report()
        report.ops_before = len(source.get_operations())
        working = cls(copy, new_fetches, new_feeds, report, origins)
        report.record("prune", "kept", f"{len(copy.get_operations())} of "
                      f"{report.ops_before} ops are needed by the fetches", [])
        return working

    # ------------------------------------------------------------------- queries
    def ops(self):
        """The copy's ops in creation order."""
        return self.graph.get_operations()

    def consumers(self, tensor: Tensor):
        """The ops that read ``tensor`` (as data)."""
        if self._consumers is None:
            table = {}
            for op in self.graph._ops:
                for t in op.inputs:
                    table.setdefault(id(t), []).append(op)
            self._consumers = table
        return list(dict.fromkeys(self._consumers.get(id(tensor), ())))

    def is_fetched(self, tensor: Tensor) -> bool:
        """True when ``tensor`` is one of the fetches (it must stay observable)."""
        return any(f is tensor for f in self.fetches)

    # --------------------------------------------------------------------- edits
    def replace(self, old: Tensor, new: Tensor, reason: str, pass_name: str):
        """Make every reader of ``old`` (and the fetches) read ``new`` instead.

        The edit is recorded with ``reason`` and the user's line of ``old``'s op.
        """
        if old is new:
            return
        if old.dtype is not new.dtype:
            raise ValueError(f"{pass_name}: cannot replace {old.name} ({old.dtype.name}) by "
                             f"{new.name} ({new.dtype.name})")
        for op in self.consumers(old):
            op.inputs = tuple(new if t is old else t for t in op.inputs)
        self.fetches = [new if f is old else f for f in self.fetches]
        if self._consumers is not None:
            moved = self._consumers.pop(id(old), [])
            self._consumers.setdefault(id(new), []).extend(moved)
        self.report.record(pass_name, "replaced", f"{old.name} by {new.name}: {reason}",
                           [old.op.traceback, new.op.traceback])

    def add_op(self, op_type, inputs, attrs=None, name=None, like: Operation = None,
               pass_name="", control_inputs=()):
        """Create an op in the copy, attributed to the user's line of ``like``."""
        from ..ops.registry import get_op_def
        op_def = get_op_def(op_type)
        full = dict(op_def.attrs)
        full.update(attrs or {})
        base = name or (f"{like.name}/{pass_name}" if like is not None else op_type)
        with self.graph.attributed_to(like.traceback if like is not None else None):
            op = self.graph.create_op(op_def, list(inputs), full, base)
        for c in control_inputs:
            op._add_control_input(c)
        if like is not None:
            self.origins[id(op)] = self.origin(like)
        self._consumers = None
        return op

    def renumber(self):
        """Put the copy's ops in a dependency order (new ops may feed older ones)."""
        ops = self.graph._ops
        position = {id(op): i for i, op in enumerate(ops)}
        if all(position[id(t.op)] < i for i, op in enumerate(ops) for t in op.inputs) and \
                all(position[id(c)] < i for i, op in enumerate(ops) for c in op.control_inputs):
            return
        order, state = [], {}
        for root in ops:
            if id(root) in state:
                continue
            stack = [(root, False)]
            while stack:
                op, expanded = stack.pop()
                if expanded:
                    state[id(op)] = 2
                    order.append(op)
                    continue
                if id(op) in state:
                    continue
                state[id(op)] = 1
                stack.append((op, True))
                deps = [t.op for t in op.inputs] + list(op.control_inputs)
                for dep in reversed(sorted(deps, key=lambda o: position[id(o)])):
                    if id(dep) not in state:
                        stack.append((dep, False))
        for i, op in enumerate(order):
            op._id = i
        self.graph._ops = order

    def prune(self, pass_name="prune"):
        """Drop ops that no fetch needs any more (after rewrites). Returns how many."""
        keep = set()
        stack = [f.op if isinstance(f, Tensor) else f for f in self.fetches]
        stack += [t.op for t in self.feeds]
        while stack:
            op = stack.pop()
            if id(op) in keep:
                continue
            keep.add(id(op))
            stack.extend(t.op for t in op.inputs)
            stack.extend(op.control_inputs)
        dropped = [op for op in self.graph._ops if id(op) not in keep]
        if dropped:
            self.graph._ops = [op for op in self.graph._ops if id(op) in keep]
            for op in dropped:
                self.graph._by_name.pop(op.name, None)
            self._consumers = None
            self.report.record(pass_name, "removed", f"{len(dropped)} ops no fetch needs "
                               "any more", [])
        return len(dropped)


def _add(graph, op_def, name, inputs, attrs, specs, traceback, device, control):
    """Append a copy of an op without re-running inference (its specs are known)."""
    op = Operation(graph, name, op_def.type, inputs, attrs, op_def, control, device,
                   traceback, len(graph._ops))
    op.outputs = [Tensor(op, i, dtype, shape if isinstance(shape, TensorShape)
                         else TensorShape(shape)) for i, (dtype, shape) in enumerate(specs)]
    graph._ops.append(op)
    graph._by_name[name] = op
    graph._names_in_use[name.lower()] = max(graph._names_in_use.get(name.lower(), 0), 1)
    return op


def _needed(fetches, fed):
    """Source ops the fetches depend on (stopping at fed tensors), in creation order."""
    needed, stack = {}, []
    for e in fetches:
        if isinstance(e, Tensor):
            if id(e) not in fed:
                stack.append(e.op)
        elif not _all_fed(e, fed):
            stack.append(e)
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed[id(op)] = op
        stack.extend(t.op for t in op.inputs if id(t) not in fed)
        stack.extend(c for c in op.control_inputs if not _all_fed(c, fed))
    ops = sorted(needed.values(), key=lambda o: o._id)
    deps = {id(op): [t.op for t in op.inputs if id(t) not in fed]
            + [c for c in op.control_inputs if not _all_fed(c, fed)] for op in ops}
    return topological_order(ops, deps)


def _all_fed(op, fed):
    """True for an op whose every output is fed: it counts as having run."""
    return bool(op.outputs) and all(id(t) in fed for t in op.outputs)
