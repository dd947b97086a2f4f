"""VariableScope objects and the per-graph store of the current scope.

A :class:`VariableScope` is a name prefix plus defaults for ``get_variable``. The
current scope and the open-count of each scope name are per thread, kept in the
graph's collection ``"__varscope"`` (TF1's key). Entering scopes is
:class:`~.variable_scope.variable_scope`'s job.
"""

from __future__ import annotations

import threading

from ..graphlib import GraphKeys, dtypes, get_default_graph
from ..graphlib.dtypes import as_dtype
from ..ops.convert import convert_to_tensor
from .variable_store import graph_singleton

_VARSCOPESTORE_KEY = "__varscope"


class _VariableScopeStore:
    """One graph's current variable scope and open-count of each scope name, per thread."""

    def __init__(self):
        self._local = threading.local()

    @property
    def current_scope(self) -> "VariableScope":
        scope = getattr(self._local, "scope", None)
        if scope is None:
            scope = self._local.scope = VariableScope(False)
        return scope

    @current_scope.setter
    def current_scope(self, scope):
        self._local.scope = scope

    @property
    def counts(self) -> dict:
        counts = getattr(self._local, "counts", None)
        if counts is None:
            counts = self._local.counts = {}
        return counts

    @counts.setter
    def counts(self, value):
        self._local.counts = value

    def open_variable_scope(self, name):
        self.counts[name] = self.counts.get(name, 0) + 1

    def close_variable_subscopes(self, name):
        for key in list(self.counts):
            if name is None or key.startswith(name + "/"):
                self.counts[key] = 0

    def variable_scope_count(self, name):
        return self.counts.get(name, 0)


def get_scope_store(graph=None) -> _VariableScopeStore:
    """The current variable scope and scope counts of ``graph`` (default: the default graph)."""
    return graph_singleton(graph or get_default_graph(), _VARSCOPESTORE_KEY, _VariableScopeStore)


# ------------------------------------------------------------------ VariableScope
class VariableScope:
    """A variable scope: a name prefix plus defaults for ``get_variable``.

    Attributes:
        name: the scope's full name (``"outer/inner"``; ``""`` at the top).
        original_name_scope: the name scope opened when the scope was first entered.
        reuse: False/None, True or ``tf.AUTO_REUSE``.
        initializer, regularizer, dtype, custom_getter, constraint: defaults for the
            variables created inside.
    """

    def __init__(self, reuse, name="", initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, name_scope="",
                 dtype=dtypes.float32, use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = as_dtype(dtype)
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name, doc="The scope's full name.")
    original_name_scope = property(lambda self: self._name_scope,
                                   doc="The name scope the scope first opened (``'layer/'``).")
    reuse = property(lambda self: self._reuse, doc="False, True or AUTO_REUSE.")
    initializer = property(lambda self: self._initializer, doc="Default initializer.")
    dtype = property(lambda self: self._dtype, doc="Default dtype.")
    use_resource = property(lambda self: self._use_resource, doc="Accepted; ignored.")
    regularizer = property(lambda self: self._regularizer, doc="Default regularizer.")
    caching_device = property(lambda self: self._caching_device, doc="Accepted; ignored.")
    partitioner = property(lambda self: self._partitioner, doc="Default partitioner.")
    custom_getter = property(lambda self: self._custom_getter, doc="Default custom getter.")
    constraint = property(lambda self: self._constraint, doc="Default constraint.")

    def __repr__(self):
        return f"<VariableScope name={self._name!r} reuse={self._reuse!r}>"

    def reuse_variables(self):
        """Make ``get_variable`` in this scope return existing variables from now on."""
        self._reuse = True

    def set_initializer(self, initializer):
        """Set the default initializer."""
        self._initializer = initializer

    def set_dtype(self, dtype):
        """Set the default dtype."""
        self._dtype = as_dtype(dtype)

    def set_use_resource(self, use_resource):
        """Accepted for TF1 compatibility."""
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        """Set the default regularizer."""
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        """Accepted for TF1 compatibility."""
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        """Set the default partitioner."""
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        """Set the default custom getter."""
        self._custom_getter = custom_getter

    def get_collection(self, name):
        """Collection ``name``'s items whose names start with this scope's name."""
        prefix = self._name + "/" if self._name else ""
        return get_default_graph().get_collection(name, prefix)

    def trainable_variables(self):
        """Trainable variables created in this scope."""
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        """Global variables created in this scope."""
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        """Local variables created in this scope."""
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=None, aggregation=None):
        """``var_store``'s variable ``<scope>/name``, with this scope's defaults."""
        # arguments left None take this scope's defaults
        regularizer = self._regularizer if regularizer is None else regularizer
        caching_device = self._caching_device if caching_device is None else caching_device
        partitioner = self._partitioner if partitioner is None else partitioner
        custom_getter = self._custom_getter if custom_getter is None else custom_getter
        reuse = self._reuse if reuse is None else reuse
        use_resource = self._use_resource if use_resource is None else use_resource
        full_name = f"{self._name}/{name}" if self._name else name
        graph = get_default_graph()
        with graph.name_scope(None):  # variable names depend on variable scopes only
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype is not as_dtype(dtype):
                    raise ValueError(f"Initializer type '{init_dtype.name}' and explicit dtype "
                                     f"'{as_dtype(dtype).name}' don't match.")
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(
                full_name, shape=shape, dtype=dtype, initializer=initializer,
                regularizer=regularizer, reuse=reuse, trainable=trainable,
                collections=collections, caching_device=caching_device,
                partitioner=partitioner, validate_shape=validate_shape,
                use_resource=use_resource, custom_getter=custom_getter,
                constraint=constraint, synchronization=synchronization,
                aggregation=aggregation)
