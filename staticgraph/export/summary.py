"""A text summary of a graph: ops by type, variables and parameters, placeholders.

``summary(graph)`` (also ``graph.summary()``) returns a :class:`GraphSummary`: a
``str`` holding the table, with the numbers as attributes; ``print_summary``
prints it.
"""

from __future__ import annotations

import collections

__all__ = ["summary", "print_summary", "GraphSummary"]


class GraphSummary(str):
    """The summary table (a ``str``), with its contents as attributes.

    Attributes:
        ops_by_type: ``{op type: count}``, most frequent first.
        variables: list of ``(name, dtype, shape tuple or None, parameters or None,
            trainable)``.
        total_parameters: the sum of the variables' sizes (known ones).
        trainable_parameters: the same for trainable variables.
        placeholders: list of ``(name, dtype, shape tuple or None)``.
        num_ops: the number of ops.
    """

    ops_by_type: dict
    variables: list
    total_parameters: int
    trainable_parameters: int
    placeholders: list
    num_ops: int


def _shape_str(dims):
    if dims is None:
        return "<unknown>"
    return "(" + ", ".join("?" if d is None else str(d) for d in dims) + \
        ("," if len(dims) == 1 else "") + ")"


def _size(dims):
    if dims is None or any(d is None for d in dims):
        return None
    n = 1
    for d in dims:
        n *= int(d)
    return n


def _table(headers, rows):
    widths = [len(h) for h in headers]
    for r in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, r)]
    right = [False] + [True] * (len(headers) - 1)

    def fmt(cells):
        return "  ".join((c.rjust(w) if r else c.ljust(w))
                         for c, w, r in zip(cells, widths, right)).rstrip()
    return [fmt(headers), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]


def _facts_of_graph(graph_or_fetches):
    from ..graphlib import Graph, GraphKeys
    from .dot import _is_onnx
    if _is_onnx(graph_or_fetches):
        return _facts_of_onnx(graph_or_fetches)
    if isinstance(graph_or_fetches, Graph):
        graph, ops = graph_or_fetches, graph_or_fetches.get_operations()
    else:
        from .dot import _needed_ops, _resolve
        graph, elements, _ = _resolve(graph_or_fetches, None, None)
        ops = _needed_ops(elements, set())
    trainable = set()
    for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
        op = getattr(v, "op", None)
        if op is not None:
            trainable.add(op.name)
    variables, placeholders = [], []
    for op in ops:
        d = op.op_def
        if d is not None and d.is_variable and op.outputs:
            t = op.outputs[0]
            variables.append((op.name, t.dtype.name, t.shape.raw, _size(t.shape.raw),
                              op.name in trainable))
        elif d is not None and d.must_feed and op.outputs:
            t = op.outputs[0]
            placeholders.append((op.name, t.dtype.name, t.shape.raw))
    return [op.type for op in ops], variables, placeholders, "variables"


def _facts_of_onnx(model):
    from .dot import _ONNX_DTYPES
    g = model.graph
    variables = []
    names = set()
    for init in g.initializer:
        dims = tuple(int(d) for d in init.dims)
        names.add(init.name)
        variables.append((init.name, _ONNX_DTYPES.get(init.data_type, "?"), dims,
                          _size(dims), True))
    placeholders = []
    for vi in g.input:
        if vi.name in names:
            continue
        tt = vi.type.tensor_type
        dims = None
        if tt.HasField("shape"):
            dims = tuple(d.dim_value if d.HasField("dim_value") else None
                         for d in tt.shape.dim)
        placeholders.append((vi.name, _ONNX_DTYPES.get(tt.elem_type, "?"), dims))
    return [n.op_type for n in g.node], variables, placeholders, "initializers"


def summary(graph_or_fetches=None) -> GraphSummary:
    """A table of a graph: ops by type, variables (shape, parameters), placeholders.

    Args:
        graph_or_fetches: a :class:`~staticgraph.Graph` (default: the default graph),
            fetches (only the ops they need are counted) or an ``onnx.ModelProto``.

    Returns:
        A :class:`GraphSummary` (a ``str``; print it) with the numbers as attributes.

    Example:
        >>> print(tf.get_default_graph().summary())
    """
    if graph_or_fetches is None:
        from ..graphlib import get_default_graph
        graph_or_fetches = get_default_graph()
    types, variables, placeholders, var_word = _facts_of_graph(graph_or_fetches)
    by_type = dict(sorted(collections.Counter(types).items(), key=lambda kv: (-kv[1], kv[0])))
    total = sum(v[3] or 0 for v in variables)
    trainable = sum(v[3] or 0 for v in variables if v[4])
    lines = [f"Graph summary: {len(types)} ops, {len(variables)} {var_word}, "
             f"{total:,} parameters", ""]
    lines.append("Ops by type")
    lines += _table(["type", "count"], [[k, str(v)] for k, v in by_type.items()])
    lines.append("")
    lines.append(var_word.capitalize())
    if variables:
        lines += _table(["name", "dtype", "shape", "parameters"],
                        [[n + ("" if tr or var_word != "variables" else " (not trainable)"),
                          dt, _shape_str(sh), "?" if size is None else f"{size:,}"]
                         for n, dt, sh, size, tr in variables])
    else:
        lines.append("(none)")
    lines.append("")
    lines.append(f"Total parameters: {total:,}")
    if var_word == "variables":
        lines.append(f"Trainable parameters: {trainable:,}")
    if any(v[3] is None for v in variables):
        lines.append("(variables of partly unknown shape are not counted)")
    lines.append("")
    lines.append("Placeholders")
    if placeholders:
        lines += _table(["name", "dtype", "shape"],
                        [[n, dt, _shape_str(sh)] for n, dt, sh in placeholders])
    else:
        lines.append("(none)")
    out = GraphSummary("\n".join(lines))
    out.ops_by_type = by_type
    out.variables = variables
    out.total_parameters = total
    out.trainable_parameters = trainable
    out.placeholders = placeholders
    out.num_ops = len(types)
    return out


def print_summary(graph_or_fetches=None, file=None) -> GraphSummary:
    """Print :func:`summary` (to ``file``, default stdout) and return it."""
    text = summary(graph_or_fetches)
    print(text, file=file)
    return text
