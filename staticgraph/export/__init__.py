"""export: writing graphs to files and reading them back.

``save_graph`` / ``load_graph`` store a graph as JSON (plus a safetensors sidecar
for large constants); nothing unsafe is ever loaded (no pickle, no eval).
"""

from .graph_file import load_graph, save_graph

__all__ = ["save_graph", "load_graph"]
