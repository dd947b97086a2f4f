"""export: writing graphs to files and reading them back, drawing and describing them.

``save_graph`` / ``load_graph`` store a graph as JSON (plus a safetensors sidecar
for large constants); nothing unsafe is ever loaded (no pickle, no eval).
``to_dot`` / ``render`` draw a graph (Graphviz DOT, SVG, PNG); ``summary``
tabulates its ops, variables and placeholders; ``to_networkx`` hands it to
networkx for the user's own analyses. ``to_onnx`` exports a graph or a training
step as an ONNX model.

Modules: :mod:`.graph_file` (graph files), :mod:`.dot` with :mod:`.dot_graph` and
:mod:`.dot_onnx` (drawings), :mod:`.graph_table` (the summary table),
:mod:`.networkx_graph`, :mod:`.selection` (a graph or what fetches need: shared by
the drawing, the table and networkx), :mod:`.onnx_model_fields` (reading ONNX models
for drawings and tables) and the :mod:`.onnx` package (the exporter).
"""

from .dot import GraphvizNotFoundError, render, to_dot
from .graph_file import load_graph, save_graph
from .graph_table import GraphSummary, print_summary, summary
from .networkx_graph import to_networkx
from .onnx import OnnxExportError, to_onnx

__all__ = ["save_graph", "load_graph", "to_dot", "render", "GraphvizNotFoundError",
           "summary", "print_summary", "GraphSummary", "to_networkx", "to_onnx",
           "OnnxExportError"]
