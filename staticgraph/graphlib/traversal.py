"""Dependency order of a set of ops: Kahn's algorithm, earliest-created op first."""

from __future__ import annotations

import heapq

__all__ = ["topological_order", "needed_ops"]


def topological_order(ops, deps):
    """``ops`` ordered so that each comes after its ``deps[id(op)]`` (ops in the set).

    Ties go to the op created first, so an already-ordered list keeps its order.

    Raises:
        ValueError: the dependencies form a cycle (names the ops involved).
    """
    waiting = {id(op): len({id(d) for d in deps[id(op)]}) for op in ops}
    users = {}
    for op in ops:
        for d in {id(d): d for d in deps[id(op)]}.values():
            users.setdefault(id(d), []).append(op)
    ready = [(op._id, id(op), op) for op in ops if not waiting[id(op)]]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, op = heapq.heappop(ready)
        order.append(op)
        for user in users.get(id(op), ()):
            waiting[id(user)] -= 1
            if not waiting[id(user)]:
                heapq.heappush(ready, (user._id, id(user), user))
    if len(order) != len(ops):
        stuck = sorted(op.name for op in ops if waiting[id(op)])
        raise ValueError(f"The graph has a cycle of control dependencies among {stuck}; "
                         "it cannot run.")
    return order


def needed_ops(elements, fed):
    """The ops ``elements`` (tensors and ops) depend on, stopping at tensors whose id is
    in ``fed``, in an execution order: creation order when it is one, else topological."""
    needed = {}
    stack = []
    for e in elements:
        if hasattr(e, 'value_index'):
            if id(e) not in fed:
                stack.append(e.op)
        else:
            stack.append(e)
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed[id(op)] = op
        for t in op.inputs:
            if id(t) not in fed:
                stack.append(t.op)
        stack.extend(op.control_inputs)
    ops = sorted(needed.values(), key=lambda o: o._id)
    deps = {id(op): [t.op for t in op.inputs if id(t) not in fed] + op.control_inputs
            for op in ops}
    if all(d._id < op._id for op in ops for d in deps[id(op)]):
        return ops  # creation order is an execution order (the usual case)
    return topological_order(ops, deps)
