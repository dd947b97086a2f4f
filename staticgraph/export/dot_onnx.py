"""What a drawing of an ONNX model shows: its inputs, initializers, nodes and outputs as
:class:`~.dot_graph.DrawnNode` objects (for :func:`~.dot.to_dot`).

Linear in the model's size; names that are not valid UTF-8, dangling inputs and
repeated names (a damaged or hostile file) are drawn, never trusted.
"""

from __future__ import annotations

from .dot_graph import DrawnNode, shape_text
from .onnx_model_fields import ONNX_DTYPE_NAMES, onnx_text

__all__ = ["onnx_nodes"]


def _type_label(type_proto):
    tt = type_proto.tensor_type
    dtype = ONNX_DTYPE_NAMES.get(tt.elem_type, f"type{tt.elem_type}")
    if not tt.HasField("shape"):
        return shape_text(dtype, None)
    dims = []
    for d in tt.shape.dim:
        if d.HasField("dim_value"):
            dims.append(d.dim_value)
        else:
            dims.append(None)
    return shape_text(dtype, dims)


def onnx_nodes(model):
    """Nodes for an ONNX model: inputs (placeholders), initializers, nodes, outputs.

    Linear in the model's size: every lookup is a dict or set probe.
    """
    g = model.graph
    labels, producer, nodes = {}, {}, []   # producer: tensor name -> drawn node id
    used = set()                           # drawn node ids
    suffixes = {}                          # id -> next suffix to try when it is taken

    def unique(name):
        if name not in used:
            used.add(name)
            return name
        i = suffixes.get(name, 1)
        while f"{name}_{i}" in used:
            i += 1
        suffixes[name] = i + 1
        name = f"{name}_{i}"
        used.add(name)
        return name

    for vi in list(g.value_info) + list(g.input) + list(g.output):
        if vi.type.HasField("tensor_type"):
            labels[onnx_text(vi.name)] = _type_label(vi.type)
    for init in g.initializer:
        name = onnx_text(init.name)
        labels[name] = shape_text(ONNX_DTYPE_NAMES.get(init.data_type, "?"), list(init.dims))
        if name in producer:
            continue
        producer[name] = ident = unique(name)
        nodes.append(DrawnNode(ident, "Initializer", "variable"))
    for vi in g.input:
        name = onnx_text(vi.name)
        if name not in producer:
            producer[name] = ident = unique(name)
            nodes.append(DrawnNode(ident, "Input", "placeholder"))
    body = []
    for i, n in enumerate(g.node):
        op_type = onnx_text(n.op_type)
        name = unique(onnx_text(n.name) or f"{op_type}_{i}")
        for out in n.output:
            if out:
                producer[onnx_text(out)] = name
        kind = "constant" if op_type == "Constant" else "op"
        body.append((name, n, op_type, kind))
    for name, n, op_type, kind in body:
        inputs = []
        for t in n.input:
            if not t:
                continue
            t = onnx_text(t)
            src = producer.get(t)
            if src is None:  # a dangling name: draw it as an input
                producer[t] = src = unique(t)
                nodes.append(DrawnNode(src, "Input", "placeholder"))
            inputs.append((src, labels.get(t, "")))
        nodes.append(DrawnNode(name, op_type, kind, inputs))
    for vi in g.output:
        out_name = onnx_text(vi.name)
        src = producer.get(out_name)
        node = DrawnNode(unique(f"{out_name} (output)"), "Output", "output",
                     [(src, labels.get(out_name, ""))] if src else [])
        node.fetched = True
        nodes.append(node)
    return nodes
