"""``Session``: runs fetches of a graph with feeds, keeping variables between runs."""

from __future__ import annotations

import threading

from ..graphlib import Graph, Tensor, get_default_graph
from .default_session import (get_default_session, pop_default_session,
                              push_default_session, session_as_default)
from .fetches import fetch_key
from .plan import Plan
from .runtime import Runtime

__all__ = ["Session", "InteractiveSession", "get_default_session"]

_MAX_PLANS = 4096


class Session:
    """An environment that runs a graph on the CPU with numpy kernels.

    Args:
        target: accepted for TF1 compatibility (only local execution exists).
        graph: the graph to run (default: the default graph at creation).
        config: a :class:`ConfigProto`.

    Each session has its own variable values and random streams. Each distinct
    (fetches, feed keys) signature is compiled once into a flat :class:`Plan`.
    Concurrent ``run`` calls from several threads are safe.

    Example:
        >>> with tf.Session() as sess:
        ...     sess.run(tf.global_variables_initializer())
        ...     out = sess.run(y, feed_dict={x: batch})
    """

    def __init__(self, target="", graph=None, config=None, optimizer_level=None):
        if isinstance(target, Graph) and graph is None:  # Session(graph) also works
            target, graph = "", target
        if graph is not None and not isinstance(graph, Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph).__name__}")
        self.graph = graph if graph is not None else get_default_graph()
        self.config = config
        self.optimizer_level, self._optimizer_flags = _optimizer_settings(config,
                                                                          optimizer_level)
        self.sess_str = target
        self._runtime = Runtime()
        self._plans = {}
        self._compile_lock = threading.Lock()
        self._closed = False
        self._contexts = []
        self.graph._sessions.add(self)

    # ----------------------------------------------------------------- running
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Compute ``fetches``, feeding ``feed_dict``; returns values in the same structure.

        Args:
            fetches: a Tensor, Operation, Variable, tensor/op name, or any nesting of
                lists, tuples, namedtuples and dicts of them.
            feed_dict: ``{tensor or "name:0": value}``; any tensor may be fed, which
                cuts the graph there.
            options, run_metadata: accepted for TF1 compatibility.

        Returns:
            numpy values (an op gives None), structured like ``fetches``.

        Raises:
            TypeError / ValueError: bad fetches or feeds (checked before any kernel runs).
            errors.InvalidArgumentError: a placeholder the fetches need was not fed, or
                a kernel failed on its inputs.
            errors.FailedPreconditionError: a variable was read before initialization.
            RuntimeError: the session is closed.
        """
        fkey = fetches if type(fetches) is Tensor else fetch_key(fetches)
        if feed_dict:
            plan = self._plans.get((fkey, tuple(feed_dict)))
            if plan is None:
                if not isinstance(feed_dict, dict):
                    raise TypeError(f"feed_dict must be a dict, got {type(feed_dict).__name__}")
                plan = self._compile(fkey, fetches, tuple(feed_dict))
            return plan(*feed_dict.values())
        plan = self._plans.get((fkey, ()))
        if plan is None:
            plan = self._compile(fkey, fetches, ())
        return plan()

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function ``f(*feed_values)`` equal to ``run(fetches, dict(zip(feed_list, …)))``.

        The fastest way to run one signature repeatedly: it is the compiled plan.
        """
        self._check_open()
        feed_list = tuple(feed_list or ())
        return Plan(self, fetches, feed_list).fn

    def _compile(self, fkey, fetches, feed_keys):
        self._check_open()
        with self._compile_lock:
            key = (fkey, feed_keys)
            plan = self._plans.get(key)
            if plan is None:
                plan = Plan(self, fetches, feed_keys).fn
                if len(self._plans) >= _MAX_PLANS:
                    self._plans.clear()
                self._plans[key] = plan
            return plan

    def _invalidate_plans(self):
        """Forget compiled plans (the graph's edges changed)."""
        with self._compile_lock:
            self._plans = {}

    def _check_open(self):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")

    def explain(self, fetches, feed_dict=None):
        """What the optimizer did for this signature: a :class:`~staticgraph.optimizer.Report`.

        Printing it lists the ops declared and run, and every change with its pass,
        its reason and the user lines involved. ``feed_dict`` (values ignored) names
        the fed tensors, as feeds change what can be folded.
        """
        plan = Plan(self, fetches, tuple(feed_dict or ()))
        if plan.report is None:
            from ..optimizer import Report
            report = Report(0)
            report.ops_before = len(self.graph.get_operations())
            report.ops_after = len(plan.ops)
            return report
        return plan.report

    def plan_source(self, fetches, feed_keys=()):
        """The generated Python source of the plan for this signature (for reading)."""
        return Plan(self, fetches, tuple(feed_keys)).source

    # -------------------------------------------------------------- lifecycle
    def close(self):
        """Release the session's state; later runs raise RuntimeError."""
        self._closed = True
        self._plans = {}
        self._runtime.close()  # release the values and worker threads; runs now raise
        self._runtime.rngs.clear()

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._closed

    def as_default(self):
        """Context manager making this the default session (it stays open after)."""
        return session_as_default(self)

    def __enter__(self):
        self._check_open()
        graph_ctx = self.graph.as_default()
        sess_ctx = session_as_default(self)
        graph_ctx.__enter__()
        sess_ctx.__enter__()
        self._contexts.append((graph_ctx, sess_ctx))
        return self

    def __exit__(self, exc_type, exc, tb):
        graph_ctx, sess_ctx = self._contexts.pop()
        sess_ctx.__exit__(exc_type, exc, tb)
        graph_ctx.__exit__(exc_type, exc, tb)
        if not self._contexts:
            self.close()
        return False

    def list_devices(self):
        """The devices this session can place ops on."""
        return [_Device("/job:localhost/replica:0/task:0/device:CPU:0", "CPU")]

    def __repr__(self):
        state = "closed" if self._closed else "open"
        return f"<staticgraph.Session {state} on {self.graph.describe()}>"


class _Device:
    """TF1's ``DeviceAttributes``: ``name`` and ``device_type``."""

    def __init__(self, name, device_type, memory_limit_bytes=0):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes

    def __repr__(self):
        return f"_DeviceAttributes({self.name}, {self.device_type})"


class InteractiveSession(Session):
    """A session that installs itself as the default on creation (for shells)."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._token = push_default_session(self)
        # Like TF1, its graph is the default graph until close() (nothing to do when
        # it already is, which keeps reset_default_graph() usable).
        self._graph_ctx = None
        if get_default_graph() is not self.graph:
            self._graph_ctx = self.graph.as_default()
            self._graph_ctx.__enter__()

    def close(self):
        """Close, stop being the default session and stop making its graph the default."""
        if not self._closed and self._token is not None:
            pop_default_session(self, self._token)
            self._token = None
            if self._graph_ctx is not None:
                try:
                    self._graph_ctx.__exit__(None, None, None)
                except ValueError:  # closed from another context: nothing to undo here
                    pass
                self._graph_ctx = None
        super().close()



def _optimizer_settings(config, level):
    """The optimizer level and pass flags from ``optimizer_level=`` or a ConfigProto.

    TF1's ``OptimizerOptions.L0`` (-1) turns the optimizer off, ``L1`` (0, the
    default) runs everything (level 2); ``opt_level=1`` asks for level 1 (folding
    and CSE only). ``do_constant_folding`` and ``do_common_subexpression_elimination``
    switch those passes off.
    """
    from ..optimizer import DEFAULT_LEVEL, LEVELS
    flags = {"constant_folding": True, "cse": True}
    options = getattr(getattr(config, "graph_options", None), "optimizer_options", None)
    if options is not None:
        flags["constant_folding"] = bool(options.do_constant_folding)
        flags["cse"] = bool(options.do_common_subexpression_elimination)
        if level is None:
            level = {-1: 0, 0: DEFAULT_LEVEL}.get(options.opt_level, options.opt_level)
    if level is None:
        level = DEFAULT_LEVEL
    if level not in LEVELS:
        raise ValueError(f"optimizer_level must be one of {LEVELS} (0 off, 1 fold and merge, "
                         f"2 everything), got {level!r}")
    return level, flags
