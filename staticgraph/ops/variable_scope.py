"""Variable scopes and ``tf.get_variable`` (TF1's ``variable_scope`` module).

Variables made by :func:`get_variable` are named by the *variable* scope
(``layer/w``), never by the name scope, and kept in a per-graph store so that a
scope opened with ``reuse=True`` (or ``AUTO_REUSE``) gets the same variable back.
Entering a variable scope also opens a name scope for ops, unique each time
(``layer/``, then ``layer_1/``), as TF1 does.

The store of variables and the stack of current scopes live in the graph's
collections ``"__variable_store"`` and ``"__varscope"`` (TF1's keys): nothing is
kept at module level. The current scope is per thread, like name scopes.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import inspect
import linecache
import threading

from ..graphlib import (GraphKeys, as_shape, dtypes, get_default_graph,
                        graph_as_default)
from ..graphlib.dtypes import as_dtype
from . import initializers as _init
from . import variables as _variables

__all__ = [
    "get_variable", "get_local_variable", "variable_scope", "get_variable_scope",
    "VariableScope", "AUTO_REUSE", "no_regularizer",
]

_VARSTORE_KEY = "__variable_store"
_VARSCOPESTORE_KEY = "__varscope"


class _ReuseMode(enum.Enum):
    """``reuse`` values besides True/False/None."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE
AUTO_REUSE.__doc__ = ("reuse=tf.AUTO_REUSE: get_variable creates a variable when absent "
                      "and returns the existing one otherwise.")


def no_regularizer(_):
    """Use as ``regularizer=tf.no_regularizer`` to turn a scope's regularizer off."""
    return None


# ---------------------------------------------------------------- per-graph stores
def _graph_singleton(graph, key, factory):
    ref = graph.get_collection_ref(key)
    if not ref:
        with graph._lock:
            if not ref:
                ref.append(factory())
    return ref[0]


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


def _scope_store(graph=None) -> _VariableScopeStore:
    return _graph_singleton(graph or get_default_graph(), _VARSCOPESTORE_KEY,
                            _VariableScopeStore)


def _variable_store(graph=None) -> "_VariableStore":
    return _graph_singleton(graph or get_default_graph(), _VARSTORE_KEY, _VariableStore)


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
            def init_val(init=initializer, dims=shape.as_list()):
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
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if custom_getter is None:
            custom_getter = self._custom_getter
        if reuse is None:
            reuse = self._reuse
        if use_resource is None:
            use_resource = self._use_resource
        full_name = f"{self._name}/{name}" if self._name else name
        graph = get_default_graph()
        with graph.name_scope(None):  # variable names depend on variable scopes only
            if dtype is not None and initializer is not None and not callable(initializer):
                from .convert import convert_to_tensor
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


def get_variable_scope() -> VariableScope:
    """The current variable scope of the default graph (the top scope has name ``""``)."""
    return _scope_store().current_scope


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=None, aggregation=None):
    """Get an existing variable ``<scope>/name`` or create a new one (TF1).

    A new variable takes ``initializer`` (default: the scope's, else Glorot uniform for
    floats and zeros for integers/bools), called as ``initializer(shape, dtype=dtype)``
    under ``<name>/Initializer/``; a Tensor initializer is the initial value itself
    (then ``shape`` must be None). ``regularizer(var)`` results go to
    ``REGULARIZATION_LOSSES``.

    Args:
        name: the name inside the current variable scope.
        shape: shape of a new variable (must be fully defined with a callable initializer).
        dtype: element type (default: the scope's, float32).
        initializer: initializer object, class, Tensor, or no-argument callable.
        regularizer: function of the variable returning a loss tensor or None.
        trainable: add to ``TRAINABLE_VARIABLES`` (default True).
        collections: collections for a new variable (default ``[GLOBAL_VARIABLES]``).
        validate_shape: passed to the Variable.
        custom_getter: ``custom_getter(getter, name, *args, **kwargs)`` wrapping creation.
        constraint: stored on the variable (optimizers apply it).
        caching_device, use_resource, synchronization, aggregation: accepted; ignored.
        partitioner: not supported (NotImplementedError).

    Raises:
        ValueError: when the variable exists and reuse is off ("... already exists,
            disallowed"), does not exist and reuse is True, or exists with another
            shape or dtype.

    Example:
        >>> with tf.variable_scope("layer"):
        ...     w = tf.get_variable("w", [784, 10])   # "layer/w:0"
    """
    return get_variable_scope().get_variable(
        _variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        regularizer=regularizer, trainable=trainable, collections=collections,
        caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
        use_resource=use_resource, custom_getter=custom_getter, constraint=constraint,
        synchronization=synchronization, aggregation=aggregation)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, caching_device=None,
                       partitioner=None, validate_shape=True, use_resource=None,
                       custom_getter=None, constraint=None, synchronization=None,
                       aggregation=None):
    """:func:`get_variable` for a non-trainable variable in ``LOCAL_VARIABLES``."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=False, collections=collections,
                        caching_device=caching_device, partitioner=partitioner,
                        validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint,
                        synchronization=synchronization, aggregation=aggregation)


# ------------------------------------------------------------------ variable_scope
def _wrap_custom_getter(custom_getter, old_getter):
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)
    return wrapped


def _unique_variable_scope(store, prefix):
    current = store.current_scope
    name = f"{current.name}/{prefix}" if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(f"{name}_{idx}") > 0:
        idx += 1
    return f"{prefix}_{idx}"


class variable_scope:  # noqa: N801 - TF1's name
    """Context manager opening a variable scope (and a name scope for ops).

    ``with tf.variable_scope("layer"):`` names ``get_variable("w")`` ``layer/w`` and
    ops ``layer/...``; entering ``"layer"`` again opens name scope ``layer_1/`` while
    variables keep ``layer/w``. ``reuse=True`` returns existing variables (and is
    inherited by nested scopes), ``reuse=tf.AUTO_REUSE`` creates them when missing.
    A :class:`VariableScope` object re-enters that scope with its own settings.
    With ``name_or_scope=None`` the scope is ``default_name`` made unique
    (``dense``, ``dense_1``).

    Args:
        name_or_scope: a string or a VariableScope.
        default_name: name used when ``name_or_scope`` is None (made unique).
        values: tensors passed to the scope (select their graph).
        initializer, regularizer, dtype, custom_getter, constraint, partitioner:
            defaults for the variables created inside.
        reuse: True, None/False (inherit) or ``tf.AUTO_REUSE``.
        auxiliary_name_scope: if False, do not open a name scope for ops.
        caching_device, use_resource: accepted; ignored.

    Raises:
        TypeError: for a ``name_or_scope`` of another type, or both names None.
        ValueError: for an invalid ``reuse`` or ``reuse=True`` without a name.

    Yields:
        the entered :class:`VariableScope`.
    """

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None,
                 regularizer=None, caching_device=None, partitioner=None, custom_getter=None,
                 reuse=None, dtype=None, use_resource=None, constraint=None,
                 auxiliary_name_scope=True):
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if name_or_scope is not None and not isinstance(name_or_scope, (str, VariableScope)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        if reuse is False:  # non-inheriting scopes are not allowed: False means None
            reuse = None
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"The custom_getter must be callable. Found {custom_getter}")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError("The auxiliary_name_scope must be `True` or `False`, while get "
                            f"{auxiliary_name_scope}")
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = list(values) if values is not None else []
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._reuse = reuse
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._auxiliary_name_scope = auxiliary_name_scope
        self._exit_stacks = []

    def __enter__(self) -> VariableScope:
        stack = contextlib.ExitStack()
        try:
            scope = self._enter(stack)
        except BaseException:
            stack.close()
            raise
        self._exit_stacks.append(stack)
        return scope

    def __exit__(self, exc_type, exc, tb):
        return self._exit_stacks.pop().__exit__(exc_type, exc, tb)

    # ------------------------------------------------------------------ entering
    def _enter(self, stack) -> VariableScope:
        graph = None
        for v in self._values:
            graph = getattr(v, "graph", None)
            if graph is not None:
                break
        if graph is not None and graph is not get_default_graph():
            stack.enter_context(graph_as_default(graph))
        graph = get_default_graph()
        store = _scope_store(graph)

        if self._auxiliary_name_scope:
            reenter = None
        else:  # stay in the current name scope
            current = graph.get_name_scope()
            reenter = current + "/" if current else ""

        scope = self._name_or_scope
        if scope is None:
            if self._reuse:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            entered = stack.enter_context(graph.name_scope(
                reenter if reenter is not None else self._default_name))
            unique = _unique_variable_scope(store, self._default_name)
            return self._enter_pure(stack, store, unique, entered)

        ns_name = scope if isinstance(scope, str) else scope.name.split("/")[-1]
        if ns_name or reenter is not None:
            entered = stack.enter_context(graph.name_scope(
                reenter if reenter is not None else ns_name))
        else:
            entered = None  # entering the top-level scope
        old_name_scope = entered if isinstance(scope, str) else scope.original_name_scope
        return self._enter_pure(stack, store, scope, old_name_scope)

    def _enter_pure(self, stack, store, scope, old_name_scope) -> VariableScope:
        old = store.current_scope
        if isinstance(scope, VariableScope):
            store.open_variable_scope(scope.name)
            saved_counts = dict(store.counts)
            new = VariableScope(scope.reuse if not self._reuse else self._reuse,
                                name=scope.name, initializer=scope.initializer,
                                regularizer=scope.regularizer,
                                caching_device=scope.caching_device,
                                partitioner=scope.partitioner, dtype=scope.dtype,
                                custom_getter=scope.custom_getter,
                                name_scope=old_name_scope, use_resource=scope.use_resource,
                                constraint=scope.constraint)
            custom_getter_base = scope.custom_getter

            def restore():
                store.counts = saved_counts
        else:
            new_name = f"{old.name}/{scope}" if old.name else scope
            store.open_variable_scope(new_name)
            new = VariableScope(self._reuse or old.reuse, name=new_name,
                                initializer=old.initializer, regularizer=old.regularizer,
                                caching_device=old.caching_device,
                                partitioner=old.partitioner, dtype=old.dtype,
                                use_resource=old.use_resource,
                                custom_getter=old.custom_getter,
                                name_scope=old_name_scope if old_name_scope is not None
                                else scope,
                                constraint=self._constraint)
            custom_getter_base = old.custom_getter

            def restore():
                store.close_variable_subscopes(new_name)
        if self._initializer is not None:
            new.set_initializer(self._initializer)
        if self._regularizer is not None:
            new.set_regularizer(self._regularizer)
        if self._caching_device is not None:
            new.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            new.set_partitioner(self._partitioner)
        if self._custom_getter is not None:
            new.set_custom_getter(_wrap_custom_getter(self._custom_getter, custom_getter_base))
        if self._dtype is not None:
            new.set_dtype(self._dtype)
        if self._use_resource is not None:
            new.set_use_resource(self._use_resource)

        store.current_scope = new

        def leave():
            store.current_scope = old
            restore()
        stack.callback(leave)
        return new
