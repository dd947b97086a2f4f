"""export: writing graphs to files and reading them back.

``save_graph`` / ``load_graph`` store a graph as JSON (plus a safetensors sidecar
for large constants); nothing unsafe is ever loaded (no pickle, no eval).
``to_dot`` / ``render`` draw a graph (Graphviz DOT, SVG, PNG); ``summary``
tabulates its ops, variables and placeholders. ``to_onnx`` exports a graph or a
training step as an ONNX model.
"""

from .dot import GraphvizNotFoundError, render, to_dot
from .graph_file import load_graph, save_graph
from .onnx import OnnxExportError, to_onnx
from .graph_table import GraphSummary, print_summary, summary

__all__ = ["save_graph", "load_graph", "to_dot", "render", "GraphvizNotFoundError",
           "summary", "print_summary", "GraphSummary", "to_onnx", "OnnxExportError"]
