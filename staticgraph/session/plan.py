"""Execution plans: one (fetches, feeds) signature compiled once into flat Python.

A plan is a generated Python function with one line per kernel call, its kernels
and constants bound as local defaults, every intermediate deleted after its last
use, and the fetch structure rebuilt by a single return expression. Running a
plan is one function call; its source is kept in ``Plan.source`` for reading.

Compilation decides everything that can be decided once:

* the ops to run: those the fetches need, stopping at fed tensors, in creation
  order (or a topological order when a late control input demands it);
* constant folding: an op whose value is known while declaring (``static_value``)
  is bound as a constant, unless it is stateful or depends on a feed; stateless ops
  that only fed folded ops are dropped;
* variable reads: a variable read before this plan writes it must hold a value,
  checked once before any kernel runs (ops with ``ref_inputs`` may declare
  ``reads_refs`` / ``writes_refs``; both default to True);
* feed checks: a fast inline test per feed, the full converter otherwise;
* scalars (static rank 0) are returned as numpy scalars, as TF1 does; values that
  may be session state (variables, constants) are copied.

Failures are mapped back to ops by line number: a kernel's exception becomes an
:class:`~staticgraph.errors.OpError` naming the op, its type, its input shapes and
the user's line that declared it.
"""

from __future__ import annotations

import numpy as np

from .. import errors
from ..graphlib import Tensor
from ..graphlib.toposort import topological_order
from ..optimizer.pipeline import optimize_signature
from .feeds import inline_feed_check, make_feed_converter, resolve_feed_key
from .fetches import FetchTemplate

__all__ = ["Plan"]


class Plan:
    """The compiled form of one ``Session.run`` signature.

    Attributes:
        fn: the generated function; positional arguments are the feed values in
            ``feed_tensors`` order, the result is the rebuilt fetch structure.
        ops: the ops the plan runs, in execution order.
        feed_tensors: the fed tensors.
        source: the generated Python source.
    """

    def __init__(self, session, fetches, feed_keys):
        graph = session.graph
        runtime = session._runtime
        self.template = FetchTemplate(graph, fetches)
        self.feed_tensors = _resolve_feeds(graph, feed_keys)
        self.elements, self.run_feeds = self.template.elements, self.feed_tensors
        self.report = None
        self._origin = lambda op: op
        level = session.optimizer_level
        if level:
            working = optimize_signature(graph, self.elements, self.feed_tensors, level,
                                         **session._optimizer_flags)
            self.elements, self.run_feeds = working.fetches, working.feeds
            self.report = working.report
            self._origin = working.origin
        fed = {id(t): i for i, t in enumerate(self.run_feeds)}
        self.ops = _needed_ops(self.elements, fed)
        _check_placeholders(self.ops, fed, self._origin)
        self._variables = runtime.variables
        self._session = session
        self._build(runtime, fed)

    # ------------------------------------------------------------------ codegen
    def _build(self, runtime, fed):
        env = {"ndarray": np.ndarray, "V": runtime.variables, "_s": self._session,
               "_fail": self._fail, "_closed": _raise_closed}
        lines, self._line_ops, self._op_args = [], {}, {}
        names = {}      # id(tensor) -> expression of its value
        local = {}      # id(tensor) -> local variable name (deletable)
        var_reads = {}  # variable op name -> op, read before this plan writes it
        written = set()  # variables this plan has written so far (in plan order)
        aliasing = {}   # id(tensor) -> True when its value may be session state
        tainted = set(fed)  # tensors whose value depends on a feed (never folded)

        def note_read(var_op):
            if var_op.name not in written:
                var_reads.setdefault(var_op.name, var_op)

        for i, (t, declared) in enumerate(zip(self.run_feeds, self.feed_tensors)):
            names[id(t)] = f"f{i}"
            aliasing[id(t)] = False
            dt = f"D{i}"
            env[dt] = t.dtype.np_dtype
            env[f"F{i}"] = make_feed_converter(declared)  # messages name the user's tensor
            lines.append(f"if {inline_feed_check(f'f{i}', declared, dt)}: f{i} = F{i}(f{i})")

        # Ops whose every output is fed compute nothing that is observed.
        self.ops = [op for op in self.ops
                    if not (op.outputs and all(id(t) in fed for t in op.outputs)
                            and (op.op_def.must_feed or not op.op_def.stateful))]
        folded = self._fold_constants(tainted)
        self.ops = _still_needed(self.ops, self.elements, fed, folded)
        last_use = {}
        for pos, op in enumerate(self.ops):
            if id(op) in folded:
                continue  # a folded op reads none of its inputs
            for j, t in enumerate(op.inputs):
                if j not in op.op_def.ref_inputs:
                    last_use[id(t)] = pos
        fetched = {id(e) for e in self.elements if isinstance(e, Tensor)}

        for pos, op in enumerate(self.ops):
            d = op.op_def
            if d.is_variable:
                for t in op.outputs:
                    if id(t) not in fed:
                        names[id(t)] = f"V[{op.name!r}]"
                        aliasing[id(t)] = True
                continue
            value = folded.get(id(op))
            if value is not None:
                name = f"c{op._id}"
                env[name] = value
                names[id(op.outputs[0])] = name
                aliasing[id(op.outputs[0])] = True
                continue
            args = []
            refs = []
            for j, t in enumerate(op.inputs):
                if j in d.ref_inputs:
                    refs.append(t)
                    continue
                expr = names[id(t)]
                if expr.startswith("V["):
                    note_read(t.op)
                args.append(expr)
            for t in refs:  # a ref input is the variable itself, read/written by the kernel
                if id(t) in fed:
                    continue
                if d.reads_refs:
                    note_read(t.op)
                if d.writes_refs:
                    written.add(t.op.name)
            if d.is_noop:
                continue
            kname = f"k{op._id}"
            env[kname] = d.make_kernel(op, runtime)
            call = f"{kname}({', '.join(args)})"
            outs = []
            for t in op.outputs:
                if id(t) in fed or (id(t) not in last_use and id(t) not in fetched):
                    outs.append("_")
                    continue
                vname = f"t{op._id}_{t.value_index}"
                names[id(t)] = vname
                local[id(t)] = vname
                view = any(aliasing.get(id(x), False) for x in _viewed_inputs(op))
                aliasing[id(t)] = bool(d.ref_inputs) or view
                outs.append(vname)
            if not op.outputs:
                line = call
            elif len(op.outputs) == 1:
                line = f"{outs[0]} = {call}"
            else:
                line = f"{', '.join(outs)}, = {call}"
            self._line_ops[len(lines)] = op
            self._op_args[op.name] = args
            lines.append(line)
            dead = [local[id(t)] for t in op.inputs
                    if last_use.get(id(t)) == pos and id(t) in local and id(t) not in fetched]
            if dead:
                lines.append("del " + ", ".join(dict.fromkeys(dead)))

        def value_of(i):
            element = self.elements[i]
            if not isinstance(element, Tensor):
                return "None"
            expr = names[id(element)]
            if expr.startswith("V["):
                note_read(element.op)
            if element.shape.rank == 0:
                return f"{expr}[()]"  # a numpy scalar, as TF1 returns (and never aliased)
            return f"{expr}.copy()" if aliasing.get(id(element)) else expr

        ret = self.template.expression(value_of)
        env.update(self.template.constants)
        required = sorted(var_reads)
        self._required = [(n, var_reads[n]) for n in required]
        self._vars_ok = [not required]
        env["_ok"] = self._vars_ok
        env["_check_vars"] = self._check_vars
        prologue = ["if _s._closed: _closed()", "if not _ok[0]: _check_vars()"]
        nfeeds = len(self.feed_tensors)
        params = "".join(f"f{i}, " for i in range(nfeeds))
        defaults = ", ".join(f"{k}={k}" for k in env)
        header = [f"def plan({params}*, {defaults}):", "    try:"]
        body = prologue + lines + [f"return {ret}"]
        offset = len(header) + len(prologue) + 1  # line numbers are 1-based
        self._line_ops = {k + offset: v for k, v in self._line_ops.items()}
        footer = ["    except Exception as _e:", "        raise _fail(_e, locals())"]
        self.source = "\n".join(header + ["        " + b for b in body] + footer) + "\n"
        namespace = dict(env)
        code = compile(self.source, f"<staticgraph plan {id(self):x}>", "exec")
        exec(code, namespace)  # noqa: S102 - generated from the graph, no user strings
        self.fn = namespace["plan"]
        self._code = self.fn.__code__

    def _fold_constants(self, tainted):
        """Values known while declaring, per op id; never for ops downstream of a feed."""
        folded = {}
        for op in self.ops:
            d = op.op_def
            if d.is_variable:
                continue
            if any(id(t) in tainted for t in op.inputs):
                tainted.update(id(t) for t in op.outputs)
                continue
            if d.stateful or len(op.outputs) != 1:
                continue
            value = d.static_value(op)
            if value is not None:
                folded[id(op)] = value
        return folded

    # ------------------------------------------------------------------ checks
    def _check_vars(self):
        missing = [(n, op) for n, op in self._required if n not in self._variables]
        if missing:
            name, op = missing[0]
            op = self._origin(op)
            raise errors.FailedPreconditionError(
                None, op,
                f"Attempting to use uninitialized value {name}\n\t [[node {name} (defined at "
                f"{op.user_location}) ]]\nInitialize it first: run "
                f"sess.run(tf.global_variables_initializer()) or sess.run({name}.initializer)"
                + (f"; uninitialized too: {', '.join(n for n, _ in missing[1:])}"
                   if len(missing) > 1 else ""))
        self._vars_ok[0] = True

    def _fail(self, exc, frame_locals):
        """Turn a kernel's exception into an OpError naming the op (feed errors pass)."""
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code is not self._code:
            tb = tb.tb_next
        run_op = self._line_ops.get(tb.tb_lineno) if tb is not None else None
        if run_op is None:
            return exc
        op = self._origin(run_op)  # the user's op (the optimizer may have rewritten it)
        shapes = []
        for expr in self._op_args.get(run_op.name, ()):
            v = frame_locals.get(expr)
            if v is None and expr.startswith("V["):
                v = self._variables.get(expr[3:-2])
            shapes.append("?" if v is None else str(list(np.shape(v))))
        context = (f"\n\t [[node {op.name} (op: {op.type}, input shapes: {', '.join(shapes)}) "
                   f"defined at {op.user_location} ]]")
        if isinstance(exc, errors.OpError):
            new = type(exc)(exc.node_def, self._origin(exc.op) if exc.op else op,
                            f"{exc.message}{context}")
        elif isinstance(exc, KeyError) and exc.args and exc.args[0] in {
                t.op.name for t in run_op.inputs if t.op.op_def.is_variable}:
            new = errors.FailedPreconditionError(
                None, op, f"Attempting to use uninitialized value {exc.args[0]}{context}\n"
                f"Initialize it first: run sess.run(tf.global_variables_initializer()) or "
                f"sess.run({exc.args[0]}.initializer)")
        else:
            if isinstance(exc, MemoryError):
                cls = errors.ResourceExhaustedError
            elif isinstance(exc, (ValueError, IndexError, TypeError, ArithmeticError,
                                  KeyError)):
                cls = errors.InvalidArgumentError
            else:
                cls = errors.UnknownError
            new = cls(None, op, f"{type(exc).__name__}: {exc}{context}")
        new.__cause__ = exc
        return new


def _viewed_inputs(op):
    """The inputs whose memory the op's outputs may share (``OpDef.returns_view``)."""
    views = op.op_def.returns_view
    if views is True:
        return op.inputs
    return [op.inputs[j] for j in views] if views else ()


def _raise_closed():
    raise RuntimeError("Attempted to use a closed Session.")


def _resolve_feeds(graph, feed_keys):
    tensors, seen = [], {}
    for key in feed_keys:
        t = resolve_feed_key(graph, key)
        if id(t) in seen:
            raise ValueError(f"Tensor {t.name!r} is fed twice in one feed_dict (as "
                             f"{seen[id(t)]!r} and {key!r}).")
        seen[id(t)] = key
        tensors.append(t)
    return tensors


def _needed_ops(elements, fed):
    """The ops the fetches depend on, stopping at fed tensors, in creation order."""
    needed = {}
    stack = []
    for e in elements:
        if isinstance(e, Tensor):
            if id(e) not in fed:
                stack.append(e.op)
        else:
            stack.append(e)
    while stack:
        op = stack.pop()
        if id(op) in needed:
            continue
        needed[id(op)] = op
        for t in op.inputs:
            if id(t) not in fed:
                stack.append(t.op)
        stack.extend(op.control_inputs)
    ops = sorted(needed.values(), key=lambda o: o._id)
    deps = {id(op): [t.op for t in op.inputs if id(t) not in fed] + op.control_inputs
            for op in ops}
    if all(d._id < op._id for op in ops for d in deps[id(op)]):
        return ops  # creation order is an execution order (the usual case)
    return topological_order(ops, deps)


def _still_needed(ops, elements, fed, folded):
    """``ops`` without the stateless ones that only folded constants used (in order).

    Stateful ops stay: their side effects happen as the graph says.
    """
    keep = set()
    stack = [e.op if isinstance(e, Tensor) else e for e in elements
             if not (isinstance(e, Tensor) and id(e) in fed)]
    stack += [op for op in ops if op.op_def.stateful]
    while stack:
        op = stack.pop()
        if id(op) in keep:
            continue
        keep.add(id(op))
        if id(op) not in folded:
            stack.extend(t.op for t in op.inputs if id(t) not in fed)
        stack.extend(op.control_inputs)
    return [op for op in ops if id(op) in keep]


def _check_placeholders(ops, fed, origin):
    for op in ops:
        if op.op_def.must_feed and id(op.outputs[0]) not in fed:
            t = op.outputs[0]
            op = origin(op)
            raise errors.InvalidArgumentError(
                None, op,
                f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                f"{t.dtype.name} and shape {t.shape.as_proto_string()}\n\t [[node {op.name} "
                f"(defined at {op.user_location}) ]]")
