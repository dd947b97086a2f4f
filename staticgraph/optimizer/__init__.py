"""optimizer: graph rewrite passes over a session's private copy of the graph.

Pipeline (Grappler's order): prune, constant folding, common-subexpression
elimination, algebraic simplification, fusion, final prune. Every edit goes
through :meth:`WorkingGraph.replace` and is recorded, with the user's lines, in a
:class:`Report`.
"""

from .pipeline import DEFAULT_LEVEL, LEVELS, optimize, optimize_signature
from .report import Change, Report
from .working_graph import WorkingGraph

__all__ = ["optimize", "optimize_signature", "Report", "Change", "WorkingGraph",
           "DEFAULT_LEVEL", "LEVELS"]
