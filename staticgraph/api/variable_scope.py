"""Variable scopes and ``tf.get_variable`` (TF1's ``variable_scope`` module).

Variables made by :func:`get_variable` are named by the *variable* scope
(``layer/w``), never by the name scope, and kept in a per-graph store so that a
scope opened with ``reuse=True`` (or ``AUTO_REUSE``) gets the same variable back.
Entering a variable scope also opens a name scope for ops, unique each time
(``layer/``, then ``layer_1/``), as TF1 does.

The store of variables and the stack of current scopes live in the graph's
collections ``"__variable_store"`` and ``"__varscope"`` (TF1's keys): nothing is
kept at module level. The current scope is per thread, like name scopes. The
store is :mod:`.variable_store`, :class:`VariableScope` and the current-scope store
are in :mod:`.variable_scope_state`; this module holds the public functions and the
``variable_scope`` context manager.
"""

from __future__ import annotations

import contextlib
import enum
import functools

from ..graphlib import GraphKeys, get_default_graph, graph_as_default
from .variable_scope_state import VariableScope, get_scope_store
from .variable_store import get_variable_store

__all__ = [
    "get_variable", "get_local_variable", "variable_scope", "get_variable_scope",
    "VariableScope", "AUTO_REUSE", "no_regularizer",
]


class _ReuseMode(enum.Enum):
    """``reuse`` values besides True/False/None."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE
AUTO_REUSE.__doc__ = ("reuse=tf.AUTO_REUSE: get_variable creates a variable when absent "
                      "and returns the existing one otherwise.")


def no_regularizer(_):
    """Use as ``regularizer=tf.no_regularizer`` to turn a scope's regularizer off."""
    return None


def get_variable_scope() -> VariableScope:
    """The current variable scope of the default graph (the top scope has name ``""``)."""
    return get_scope_store().current_scope


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
        get_variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
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
        store = get_scope_store(graph)

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
