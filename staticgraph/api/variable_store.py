"""The store of variables behind ``tf.get_variable``, one per graph.

:class:`_VariableStore` creates a variable under its full name or returns the
existing one when ``reuse`` allows it (checking shape and dtype), applies default
initializers, custom getters and regularizers. It lives in the graph's collection
``"__variable_store"`` (TF1's key): nothing is kept at module level. Scopes and
their defaults are in :mod:`.variable_scope_state`; the public functions in
:mod:`.variable_scope`.
"""

from __future__ import annotations

import inspect
import linecache

from ..graphlib import GraphKeys, as_shape, dtypes, get_default_graph
from ..graphlib.dtypes import as_dtype
from . import initializers as _init
from ..ops.state import variables as _variables

_VARSTORE_KEY = "__variable_store"


def graph_singleton(graph, key, factory):
    """The one object ``factory()`` made for ``graph``, kept in its collection ``key``
    (TF1's way of keeping per-graph state: nothing lives at module level)."""
    ref = graph.get_collection_ref(key)
    if not ref:
        with graph._lock:
            if not ref:
                ref.append(factory())
    return ref[0]


def get_variable_store(graph=None) -> "_VariableStore":
    """The variables ``get_variable`` made in ``graph`` (default: the default graph)."""
    return graph_singleton(graph or get_default_graph(), _VARSTORE_KEY, _VariableStore)


def _where_declared(var) -> str:
    frame = getattr(var.op, "traceback", None)
    if frame is None:
        return "  <unknown>\n"
    text = f'  File "{frame[0]}", line {frame[1]}, in {frame[2]}\n'
    source = linecache.getline(frame[0], frame[1]).strip()
    return text + (f"    {source}\n" if source else "")


def _takes_no_arguments(fn) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


class _VariableStore:
    """The variables ``get_variable`` made in one graph, by full name."""

    def __init__(self):
        self._vars = {}

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=None, aggregation=None):
        """The variable ``name``: created, or found when ``reuse`` allows it."""
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        if isinstance(dtype, dtypes.DType):
            dtype = dtype.base_dtype

        def true_getter(name, shape=None, dtype=dtypes.float32, initializer=None,
                        regularizer=None, reuse=None, trainable=None, collections=None,
                        caching_device=None, partitioner=None, validate_shape=True,
                        use_resource=None, constraint=None, synchronization=None,
                        aggregation=None):
            if partitioner is not None:
                raise NotImplementedError("Partitioned variables (partitioner=...) are not "
                                          "supported by staticgraph.")
            if initializer is not None and not callable(initializer) and shape is not None:
                raise ValueError("If initializer is a constant, do not specify shape.")
            return self._get_single_variable(
                name, as_shape(shape), as_dtype(dtype), initializer, regularizer, reuse,
                True if trainable is None else trainable, collections, validate_shape,
                constraint)

        kwargs = dict(name=name, shape=shape, dtype=dtype, initializer=initializer,
                      regularizer=regularizer, reuse=reuse, trainable=trainable,
                      collections=collections, caching_device=caching_device,
                      partitioner=partitioner, validate_shape=validate_shape,
                      use_resource=use_resource, synchronization=synchronization,
                      aggregation=aggregation)
        if custom_getter is None:
            return true_getter(constraint=constraint, **kwargs)
        try:
            params = inspect.signature(custom_getter).parameters
            pass_constraint = "constraint" in params or any(
                p.kind is p.VAR_KEYWORD for p in params.values())
        except (TypeError, ValueError):
            pass_constraint = True
        if pass_constraint:
            kwargs["constraint"] = constraint
        return custom_getter(getter=true_getter, **kwargs)

    def _get_single_variable(self, name, shape, dtype, initializer, regularizer, reuse,
                             trainable, collections, validate_shape, constraint):
        if name in self._vars:
            found = self._vars[name]
            if reuse is False or reuse is None:
                raise ValueError(f"Variable {name} already exists, disallowed. Did you mean "
                                 "to set reuse=True or reuse=tf.AUTO_REUSE in VarScope? "
                                 f"Originally defined at:\n\n{_where_declared(found)}")
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError(f"Trying to share variable {name}, but specified shape "
                                 f"{shape} and found shape {found.get_shape()}.")
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(f"Trying to share variable {name}, but specified dtype "
                                 f"{dtype.name} and found dtype {found.dtype.name}.")
            return found
        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with "
                             "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                             "VarScope?")

        if initializer is None:
            initializer = _default_initializer(name, dtype)
        if inspect.isclass(initializer):
            initializer = initializer()
        if not callable(initializer):  # a Tensor or a value: the initial value itself
            init_val, variable_dtype = initializer, None
        elif shape.is_fully_defined():
            dims = shape.as_list()

            def init_val(init=initializer, dims=dims):
                with get_default_graph().name_scope("Initializer"):
                    return init(dims, dtype=dtype, partition_info=None)
            variable_dtype = dtype
        elif _takes_no_arguments(initializer):
            init_val, variable_dtype = initializer, None
        else:
            raise ValueError("The initializer passed is not valid. It should be a callable "
                             "with no arguments and the shape should not be provided or an "
                             "instance of `tf.keras.initializers.*' and `shape` should be "
                             "fully defined.")

        graph = get_default_graph()
        with graph.control_dependencies(None):  # TF1's init_scope
            var = _variables.Variable(initial_value=init_val, name=name, trainable=trainable,
                                      collections=collections, dtype=variable_dtype,
                                      validate_shape=validate_shape, constraint=constraint)
        self._vars[name] = var

        if regularizer:
            with graph.name_scope(name + "/Regularizer/"):
                loss = regularizer(var)
            if loss is not None:
                graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
        return var


def _default_initializer(name, dtype):
    """TF1: Glorot uniform for floats, zeros for integers, bools and strings."""
    if dtype.is_floating:
        return _init.glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype is dtypes.string:
        return _init.zeros_initializer()
    raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")
