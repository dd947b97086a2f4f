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

import functools
import re

import numpy as np

from .. import errors
from ..graphlib import Tensor
from ..graphlib.graph import collector_paused
from ..graphlib.traversal import needed_ops as _needed_ops
from ..graphlib.op_def import OpDef
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
        with collector_paused():  # compiling a large graph allocates much at once
            self._compile_plan(session, fetches, feed_keys)

    def _compile_plan(self, session, fetches, feed_keys):
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
        self._line_ops, self._op_args = {}, {}
        self._program = self._step_ops = self._regs = None
        self._const_bytes = 0
        self._build(runtime, fed)

    def memory_estimate(self) -> int:
        """Bytes this plan holds: constants folded for it (not the graph's own values),
        its generated code and its bookkeeping; for the session's plan cache."""
        steps = len(self._program) if self._program is not None else 0
        return (_PLAN_OVERHEAD_BYTES + 8 * len(self.source) + 200 * steps
                + 400 * len(self.ops) + self._const_bytes)

    # ------------------------------------------------------------------ codegen
    def _build(self, runtime, fed):
        env = {"ndarray": np.ndarray, "V": runtime.variables, "_s": self._session,
               "_fail": self._fail, "_closed": _raise_closed}
        feed_lines = []
        names = {}      # id(tensor) -> expression of its value
        local = {}      # id(tensor) -> local variable name (deletable)
        var_reads = {}  # variable op name -> op, read before this plan writes it
        written = set()  # variables this plan has written so far (in plan order)
        aliasing = {}   # id(tensor) -> True when its value may be session state
        tainted = set(fed)  # tensors whose value depends on a feed (never folded)
        consts = {}     # constant name -> value (bound once, never recomputed)

        def note_read(var_op):
            if var_op.name not in written:
                var_reads.setdefault(var_op.name, var_op)

        for i, (t, declared) in enumerate(zip(self.run_feeds, self.feed_tensors)):
            names[id(t)] = f"f{i}"
            aliasing[id(t)] = False
            dt = f"D{i}"
            env[dt] = t.dtype.np_dtype
            env[f"F{i}"] = make_feed_converter(declared)  # messages name the user's tensor
            feed_lines.append(f"if {inline_feed_check(f'f{i}', declared, dt)}: f{i} = F{i}(f{i})")

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
            refs = op.op_def.ref_inputs
            for j, t in enumerate(op.inputs):
                if not refs or j not in refs:
                    last_use[id(t)] = pos
        fetched = {id(e) for e in self.elements if isinstance(e, Tensor)}

        # One entry per kernel call: (op, kernel name, argument names, output names,
        # names dead after the call). Small plans become one generated function;
        # huge ones an interpreted program (compiling ~10^5 lines costs seconds).
        calls = []
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
                consts[name] = value
                if not any(value is a for a in self._origin(op).attrs.values()):
                    self._const_bytes += getattr(value, "nbytes", 0)  # not the user's own
                names[id(op.outputs[0])] = name
                aliasing[id(op.outputs[0])] = True
                continue
            args = []
            refs = d.ref_inputs
            for j, t in enumerate(op.inputs):
                if refs and j in refs:
                    continue
                expr = names[id(t)]
                if expr[0] == "V":
                    note_read(t.op)
                args.append(expr)
            if refs:
                # A ref input is the variable itself, read/written by the kernel (after
                # the reads of its value inputs).
                for j, t in enumerate(op.inputs):
                    if j not in refs or id(t) in fed:
                        continue
                    if d.reads_refs:
                        note_read(t.op)
                    if d.writes_refs:
                        written.add(t.op.name)
            if d.is_noop:
                continue
            kname = f"k{op._id}"
            env[kname] = _kernel_of(d, op, runtime)
            outs = []
            for t in op.outputs:
                if id(t) in fed or (id(t) not in last_use and id(t) not in fetched):
                    outs.append("_")
                    continue
                vname = f"t{op._id}_{t.value_index}"
                names[id(t)] = vname
                local[id(t)] = vname
                views = d.returns_view
                view = bool(views) and any(aliasing.get(id(x), False)
                                           for x in _viewed_inputs(op))
                aliasing[id(t)] = bool(refs) or view
                outs.append(vname)
            dead = [local[id(t)] for t in op.inputs
                    if last_use.get(id(t)) == pos and id(t) in local and id(t) not in fetched]
            calls.append((op, kname, args, outs, list(dict.fromkeys(dead)) if dead else dead))
            self._op_args[op.name] = tuple(args)

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
        self.written = sorted(written)
        self._required = [(n, var_reads[n]) for n in required]
        self._vars_ok = [not required]
        env["_ok"] = self._vars_ok
        env["_check_vars"] = self._check_vars
        prologue = ["if _s._closed: _closed()", "if not _ok[0]: _check_vars()"]
        # A plan that writes variables and finishes after close() drops what it wrote:
        # a closed session holds no values.
        self._epilogue = ["if _s._closed: V.clear()"] if self.written else []
        if len(calls) > MAX_GENERATED_CALLS:
            self._build_program(env, prologue + feed_lines, calls, consts, ret)
        else:
            env.update(consts)
            self._build_source(env, prologue + feed_lines, calls, ret)

    def _build_source(self, env, head_lines, calls, ret):
        """The plan as one generated function, one line per kernel call."""
        lines = list(head_lines)
        line_ops = {}
        for op, kname, args, outs, dead in calls:
            call = f"{kname}({', '.join(args)})"
            if not op.outputs:
                line = call
            elif len(op.outputs) == 1:
                line = f"{outs[0]} = {call}"
            else:
                line = f"{', '.join(outs)}, = {call}"
            line_ops[len(lines)] = op
            lines.append(line)
            if dead:
                lines.append("del " + ", ".join(dead))
        nfeeds = len(self.feed_tensors)
        params = "".join(f"f{i}, " for i in range(nfeeds))
        defaults = ", ".join(f"{k}={k}" for k in env)
        header = [f"def plan({params}*, {defaults}):", "    try:"]
        body = lines + _returning(ret, self._epilogue)
        offset = len(header) + 1  # line numbers are 1-based
        self._line_ops = {k + offset: v for k, v in line_ops.items()}
        footer = ["    except Exception as _e:", "        raise _fail(_e, locals())"]
        self.source = "\n".join(header + ["        " + b for b in body] + footer) + "\n"
        self._compile(env)

    def _build_program(self, env, head_lines, calls, consts, ret):
        """The plan as a short generated function running an interpreted program.

        Values live in a register list: each value takes a free register when it
        is computed and gives it back after its last use (the register is cleared
        unless the call's own output reuses it), so memory is released as the
        generated code's ``del`` does. Variables are read right before each call
        that uses them, as in generated code.
        """
        regs = {}          # value name -> register, while the value lives
        where = {}         # value name -> register it took (for error messages)
        free = []          # registers free for reuse (last freed first)
        initial = [None]   # register 0 takes discarded outputs (``_`` in generated code)

        def new_register():
            if free:
                return free.pop()
            initial.append(None)
            return len(initial) - 1

        for name, value in consts.items():
            regs[name] = where[name] = new_register()
            initial[regs[name]] = value
        feed_regs = []
        for i in range(len(self.feed_tensors)):
            regs[f"f{i}"] = where[f"f{i}"] = new_register()
            feed_regs.append(regs[f"f{i}"])
        program, step_ops = [], {}
        for op, kname, args, outs, dead in calls:
            kernel = env.pop(kname)
            arg_regs, temps = [], []
            for expr in args:
                reg = regs.get(expr)
                if reg is None:  # a variable, read at this call (V['name'])
                    reg = new_register()
                    load = (_LOAD, None, expr[3:-2], None, reg)
                    step_ops[id(load)] = op
                    program.append(load)
                    temps.append(reg)
                arg_regs.append(reg)
            released = [regs.pop(n) for n in dead] + temps
            free.extend(released)
            out_regs = []
            for name in outs:
                if name == "_":
                    out_regs.append(0)
                else:
                    out_regs.append(new_register())
                    regs[name] = where[name] = out_regs[-1]
            if not op.outputs:
                step = (_CALL_NO_OUTPUT, kernel, tuple(arg_regs), None, None)
            elif len(op.outputs) > 1:
                step = (_CALL_MANY, kernel, tuple(arg_regs), None, tuple(out_regs))
            elif len(arg_regs) == 1:
                step = (_CALL1, kernel, arg_regs[0], None, out_regs[0])
            elif len(arg_regs) == 2:
                step = (_CALL2, kernel, arg_regs[0], arg_regs[1], out_regs[0])
            else:
                step = (_CALL, kernel, tuple(arg_regs), None, out_regs[0])
            step_ops[id(step)] = op
            program.append(step)
            stale = [r for r in released if r not in out_regs]
            if stale:
                program.append((_CLEAR, None, tuple(stale), None, None))
        self._program, self._step_ops, self._regs = program, step_ops, where

        def resolve(match):
            name = match.group(0)
            return f"R[{regs[name]}]" if name in regs and name[0] in "tc" else name

        ret = _VALUE_NAME.sub(resolve, ret)
        env.update({"_run": _interpret, "_prog": program, "_R0": initial})
        lines = list(head_lines) + ["R = _R0.copy()"]
        lines += [f"R[{r}] = f{i}" for i, r in enumerate(feed_regs)]
        lines += ["_run(R, V, _prog)"] + _returning(ret, self._epilogue)
        nfeeds = len(self.feed_tensors)
        params = "".join(f"f{i}, " for i in range(nfeeds))
        defaults = ", ".join(f"{k}={k}" for k in env)
        header = [f"def plan({params}*, {defaults}):", "    try:"]
        footer = ["    except Exception as _e:", "        raise _fail(_e, locals())"]
        self.source = ("\n".join(header + ["        " + b for b in lines] + footer)
                       + f"\n# {len(program)} interpreted steps ({len(calls)} kernel calls)\n")
        self._line_ops = {}
        self._compile(env)

    def _compile(self, env):
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
            if self._session._closed:
                raise closed_during_run()
            raise uninitialized_error(missing, self._origin)
        self._vars_ok[0] = True

    def _fail(self, exc, frame_locals):
        """Turn a kernel's exception into an OpError naming the op (feed errors pass)."""
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code is not self._code:
            tb = tb.tb_next
        run_op = self._line_ops.get(tb.tb_lineno) if tb is not None else None
        registers = None
        if self._program is not None:  # an interpreted plan: the step that failed
            while tb is not None and not (tb.tb_frame.f_code is _INTERPRET_CODE and
                                          tb.tb_frame.f_locals.get("program") is self._program):
                tb = tb.tb_next
            if tb is not None:
                step_locals = tb.tb_frame.f_locals
                run_op = self._step_ops.get(id(step_locals.get("step")))
                registers = step_locals.get("R")
        if self._session._closed and (run_op is not None or isinstance(exc, KeyError)):
            # close() released the state (variables) this run was using; what the run
            # wrote since is dropped too
            if self.written:
                self._variables.clear()
            new = closed_during_run()
            new.__cause__ = exc
            return new
        if run_op is None:
            return exc  # a bad feed, or the session was closed before the run
        op = self._origin(run_op)  # the user's op (the optimizer may have rewritten it)
        shapes = []
        for expr in self._op_args.get(run_op.name, ()):
            v = frame_locals.get(expr)
            if registers is not None and expr in self._regs:
                v = registers[self._regs[expr]]
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


# Plans with more kernel calls than this run as an interpreted program: Python's
# compile() takes ~10 us a line, which a 50,000-op graph would pay on every first run.
MAX_GENERATED_CALLS = 5000

# A value name in a generated expression, or a quoted string (a variable's name) to skip.
_VALUE_NAME = re.compile(r"'[^']*'|\"[^\"]*\"|\b(?:t\d+_\d+|c\d+)\b")

# Interpreted steps: (code, kernel, argument register(s), second argument, output(s)).
_CALL1, _CALL2, _CALL, _LOAD, _CLEAR, _CALL_MANY, _CALL_NO_OUTPUT = range(7)


def _interpret(R, V, program):
    """Run an interpreted plan over the register list ``R`` (``V``: variable values)."""
    step = None
    for step in program:
        code, kernel, a, b, out = step
        if code == 0:
            R[out] = kernel(R[a])
        elif code == 1:
            R[out] = kernel(R[a], R[b])
        elif code == 2:
            R[out] = kernel(*[R[i] for i in a])
        elif code == 3:
            R[out] = V[a]
        elif code == 4:
            for i in a:
                R[i] = None
        elif code == 5:
            for i, value in zip(out, kernel(*[R[i] for i in a]), strict=True):
                R[i] = value
        else:
            kernel(*[R[i] for i in a])


_INTERPRET_CODE = _interpret.__code__

_DEFAULT_MAKE_KERNEL = OpDef.make_kernel
_RAW_KERNELS = {}   # op definition class -> (instance, compute attribute, raw kernel)


class _NoAttrs:
    attrs = {}


def _kernel_of(op_def, op, runtime):
    """``op_def.make_kernel(op, runtime)``, with the default's introspection done once
    per op type instead of once per op."""
    cls = type(op_def)
    if cls.make_kernel is not _DEFAULT_MAKE_KERNEL or "compute" in vars(op_def):
        return op_def.make_kernel(op, runtime)
    marker = cls.__dict__.get("compute", cls.compute)
    cached = _RAW_KERNELS.get(cls)
    if cached is None or cached[0] is not op_def or cached[1] is not marker:
        cached = _RAW_KERNELS[cls] = (op_def, marker,
                                      _DEFAULT_MAKE_KERNEL(op_def, _NoAttrs, runtime))
    if op.attrs:
        return functools.partial(cached[2], **op.attrs)
    return cached[2]


def _returning(ret, epilogue):
    """The generated lines returning expression ``ret`` after the ``epilogue`` lines."""
    if not epilogue:
        return [f"return {ret}"]
    return [f"_out = {ret}"] + epilogue + ["return _out"]


def _viewed_inputs(op):
    """The inputs whose memory the op's outputs may share (``OpDef.returns_view``)."""
    views = op.op_def.returns_view
    if views is True:
        return op.inputs
    return [op.inputs[j] for j in views] if views else ()


# A small plan's own memory: its generated function, closures and bookkeeping.
_PLAN_OVERHEAD_BYTES = 8 * 1024


def _raise_closed():
    raise RuntimeError("Attempted to use a closed Session.")


def closed_during_run():
    """The error of a run that was in flight when its session was closed."""
    return errors.CancelledError(None, None, "Session was closed while this run was in "
                                             "flight: it was cancelled.")


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


def uninitialized_error(missing, origin):
    """The FailedPreconditionError for reading variables ``[(name, op)]`` without values."""
    name, op = missing[0]
    op = origin(op)
    return errors.FailedPreconditionError(
        None, op,
        f"Attempting to use uninitialized value {name}\n\t [[node {name} (defined at "
        f"{op.user_location}) ]]\nInitialize it first: run "
        f"sess.run(tf.global_variables_initializer()) or sess.run({name}.initializer)"
        + (f"; uninitialized too: {', '.join(n for n, _ in missing[1:])}"
           if len(missing) > 1 else ""))


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
