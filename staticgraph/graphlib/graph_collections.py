"""A graph's collections: named lists of values (variables, summaries, losses …).

:class:`CollectionsMixin` gives :class:`~staticgraph.graphlib.graph.Graph` TF1's
collection methods over its ``_collections`` dict; the standard names are
:class:`~.graph_keys.GraphKeys`, and :mod:`.default_graph` offers the same
functions on the default graph.
"""

from __future__ import annotations

import re

__all__ = ["CollectionsMixin"]


class CollectionsMixin:
    """``Graph``'s collections; needs ``self._collections`` and ``self._finalized``."""

    def add_to_collection(self, name, value):
        """Append ``value`` to collection ``name``; RuntimeError once finalized."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        """Append ``value`` to each collection in ``names`` (a string or a list)."""
        for n in ([names] if isinstance(names, str) else set(names)):
            self.add_to_collection(n, value)

    def get_collection_ref(self, name):
        """The mutable list behind collection ``name`` (created if absent)."""
        return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        """A copy of collection ``name``, filtered to items whose name matches ``scope``."""
        items = list(self._collections.get(name, ()))
        if scope is None:
            return items
        pattern = re.compile(scope)
        return [v for v in items if hasattr(v, "name") and pattern.match(v.name)]

    def get_all_collection_keys(self):
        """Names of the non-empty collections."""
        return [k for k, v in self._collections.items() if v]

    def clear_collection(self, name):
        """Remove collection ``name``."""
        self._collections.pop(name, None)
