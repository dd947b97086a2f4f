"""The ONNX lowering driver: a schedule's steps, in order, as one ONNX model.

Each step's op lowers itself (``OpDef.onnx(ctx, op, *inputs)``) to standard
``ai.onnx`` nodes. Variables are values in the walk: a read takes the variable's
current value, a write (``Assign``, ``ApplyAdam``, ...) makes a new one, so the model
computes exactly what one run of the schedule computes. Variables the model reads
become graph inputs (``state_inputs``: the onnxruntime backend, training models) or
initializers holding given values; with ``state_outputs``, each variable written
adds a graph output with its final value.

Random ops compute the session's counter-based streams
(:mod:`staticgraph.ops.random.random_bits`) from a key and an execution counter per
op (``<op>:random_key``, ``<op>:random_counter``): graph inputs the onnxruntime
backend feeds per run, or constants (see ``random_streams``).
"""

from __future__ import annotations

import onnx
from onnx import helper

from ..schedule import Schedule
from .context import LoweringContext, OnnxExportError
from .model import DEFAULT_OPSET, build_model, value_info

__all__ = ["lower_schedule", "lower_graph", "LoweredGraph"]


class LoweredGraph:
    """A lowered schedule: the model and how its names map to the graph.

    Attributes:
        model: the ``onnx.ModelProto``.
        input_names: ONNX input names of the feeds, in ``feeds`` order.
        output_names: ONNX output name of each element (None for operations).
        state_inputs: ``[(variable op name, ONNX input name)]``.
        state_outputs: ``[(variable op name, ONNX output name)]``.
        node_ops: ONNX node name -> the op it was lowered from.
        random_streams: ``[(random op name, key name, counter name)]``.
    """

    def __init__(self, model, input_names, output_names, state_inputs, state_outputs,
                 node_ops, random_streams=()):
        self.model = model
        self.input_names = input_names
        self.output_names = output_names
        self.state_inputs = state_inputs
        self.state_outputs = state_outputs
        self.node_ops = node_ops
        self.random_streams = list(random_streams)


def lower_schedule(schedule, *, opset=DEFAULT_OPSET, variable_values=None, state_inputs=False,
                   state_outputs=False, graph_name=None, check=True, feed_names=None,
                   random_streams="feed", random_keys=None) -> LoweredGraph:
    """Lower the steps of ``schedule`` to an ONNX model.

    Args:
        schedule: the :class:`~staticgraph.session.schedule.Schedule` to lower.
        opset: the ``ai.onnx`` opset (13 up to this onnx package's newest).
        variable_values: variable op name -> value (initializers), when
            ``state_inputs`` is False.
        state_inputs: variables read become graph inputs instead of initializers.
        state_outputs: each variable written adds a graph output with its final value.
        graph_name: the ONNX graph's name (default ``"staticgraph"``).
        check: run the ONNX checker (and refuse outputs of unknown rank).
        feed_names: the graph input names of the feeds (default: their tensor names).
        random_streams: each random op's key and execution counter are graph inputs
            (``"feed"``: the onnxruntime backend feeds them per run), constants with the
            counter 0 (``"constant"``), or a constant key and a counter input with default
            0 (``"counter_input"``).
        random_keys: ``random_keys(op)`` -> a random op's 64-bit key (the constant
            modes; default: from its seeds, fresh for an unseeded op).

    Raises:
        OnnxExportError: an op cannot be lowered (naming the user's op and line), or a
            variable read has no value.
    """
    if not isinstance(opset, int) or opset < 13 or opset > onnx.defs.onnx_opset_version():
        raise ValueError(f"opset must be an int from 13 to {onnx.defs.onnx_opset_version()} "
                         f"(this onnx package's newest), got {opset!r}")
    if random_streams not in ("feed", "constant", "counter_input"):
        raise ValueError(f"random_streams must be 'feed', 'constant' or 'counter_input', "
                         f"got {random_streams!r}")
    origin = schedule.origin
    ctx = LoweringContext(opset, origin)
    ctx.random_mode = random_streams
    if random_keys is not None:
        ctx.random_key = random_keys
    walk = _Walk(ctx, schedule, variable_values, state_inputs)
    for k, (t, s) in enumerate(zip(schedule.run_feeds, schedule.feed_slots)):
        walk.add_feed(t, s, feed_names[k] if feed_names else t.name)
    for step in schedule.steps:
        walk.lower(step)
    for _, key, counter in ctx.random_streams.values():
        scalars = (key, counter) if random_streams == "feed" else \
            (counter,) if random_streams == "counter_input" else ()
        walk.graph_inputs.extend(helper.make_tensor_value_info(name, onnx.TensorProto.INT64, [])
                                 for name in scalars)
    graph_outputs, output_names = walk.outputs()
    state_out = []
    if state_outputs:
        for var_name, value in ctx.written.items():
            var_op = schedule.variables[var_name]
            out_name = ctx.unique(f"{var_name}/updated")
            # the node is named like the output; errors name the variable's last writer
            ctx.identity_to(value, out_name, ctx.writers.get(var_name, var_op), out_name)
            state_out.append((var_name, out_name))
            graph_outputs.append((out_name, var_op.outputs[0]))
    model = build_model(ctx, walk.graph_inputs, graph_outputs, opset=opset,
                        graph_name=graph_name, state_in=walk.state_in, state_out=state_out,
                        check=check)
    return LoweredGraph(model, walk.input_names, output_names, walk.state_in, state_out,
                        ctx.node_ops, [(op.name, key, counter)
                                       for op, key, counter in ctx.random_streams.values()])


def lower_graph(elements, feeds, **options) -> LoweredGraph:
    """Lower what ``elements`` (tensors and ops) need, feeding ``feeds``, as declared (no
    optimizer); ``options`` as :func:`lower_schedule`. A placeholder they need that is
    not in ``feeds`` raises OnnxExportError naming it."""
    return lower_schedule(Schedule(elements, feeds, check_placeholders=False), **options)


class _Walk:
    """The state of one walk over a schedule: value names by slot, graph inputs, the
    variables read so far."""

    def __init__(self, ctx, schedule, variable_values, state_inputs):
        self.ctx = ctx
        self.schedule = schedule
        self.variable_values = variable_values
        self.state_inputs = state_inputs
        self.name = {}       # slot -> ONNX value name
        self.fed = {}        # id(fed tensor) -> ONNX input name
        self.graph_inputs, self.input_names, self.state_in = [], [], []
        self._read = set()   # variables given an input or initializer
        ctx.variable_initialized = self.initialized

    def add_feed(self, t, slot, name):
        name = self.ctx.reserve(name)
        self.name[slot] = self.fed[id(t)] = name
        self.input_names.append(name)
        self.graph_inputs.append(value_info(name, t, self.ctx.origin))

    def initialized(self, var_op):
        """Whether the model has a value for the variable (written earlier in the walk,
        an input, or a given value)."""
        return (var_op.name in self.ctx.written or self.state_inputs
                or (self.variable_values is not None and var_op.name in self.variable_values))

    def variable_value(self, var_op):
        """The current value name of a variable, adding its input or initializer."""
        ctx = self.ctx
        written = ctx.written.get(var_op.name)
        if written is not None:
            return written
        name = var_op.name
        if name not in self._read:
            self._read.add(name)
            t = var_op.outputs[0]
            if self.state_inputs:
                ctx.reserve(name)
                self.graph_inputs.append(value_info(name, t, ctx.origin))
                self.state_in.append((name, name))
            else:
                value = _lookup(self.variable_values, name)
                if value is None:
                    user = ctx.origin(var_op)
                    where = ("pass the session holding it (session=sess)"
                             if self.variable_values is None else
                             "run its initializer in that session first")
                    raise OnnxExportError(
                        f"Cannot export: variable '{user.name}' (declared at "
                        f"{user.user_location}) is read but has no value; {where}.", user)
                ctx.const(value, t.dtype, name=name)
        return name

    def _args(self, step):
        op, d = step.op, step.op.op_def
        loaded = dict(step.loads)
        args = []
        for j, s in enumerate(step.inputs):
            if s is None:  # a ref input: the variable's current value, None if it has none
                t = op.inputs[j]
                if id(t) in self.fed:
                    args.append(self.fed[id(t)])
                elif t.op.name not in self.ctx.written and not (d.reads_refs and
                                                                 self.initialized(t.op)):
                    args.append(None)
                else:
                    args.append(self.variable_value(t.op))
            elif s in loaded:
                args.append(self.variable_value(self.schedule.variables[loaded[s]]))
            else:
                args.append(self.name[s])
        return args

    def lower(self, step):
        """Emit the nodes of ``step``'s op and name its outputs."""
        ctx, op = self.ctx, step.op
        d = op.op_def
        ctx.begin(op)
        if d.onnx is None:
            ctx.unsupported(d.onnx_unsupported or "its op type has no ONNX lowering")
        args = self._args(step)
        first_node = len(ctx.nodes)
        try:
            result = d.onnx(ctx, op, *args)
        except OnnxExportError:
            raise
        except Exception as exc:
            raise OnnxExportError(f"Cannot export {ctx.describe()} to ONNX: "
                                  f"{type(exc).__name__}: {exc}", step.origin) from exc
        outs = [] if result is None else [result] if isinstance(result, str) else list(result)
        if len(outs) != len(op.outputs):
            raise OnnxExportError(f"The ONNX lowering of {ctx.describe()} returned "
                                  f"{len(outs)} values for {len(op.outputs)} outputs",
                                  step.origin)
        own = {o for n in ctx.nodes[first_node:] for o in n.output}
        for t, out, s in zip(op.outputs, outs, step.outputs):
            if id(t) in self.fed:
                continue
            # a value made by this op's own nodes takes the tensor's name ("y:0")
            if out in own and out != t.name and not ctx.is_taken(t.name) \
                    and outs.count(out) == 1:
                _rename(ctx.nodes[first_node:], out, t.name)
                for var_name, value in ctx.written.items():
                    if value == out:
                        ctx.written[var_name] = t.name
                out = ctx.reserve(t.name)
            if s is not None:
                self.name[s] = out

    def outputs(self):
        """``(graph outputs [(name, tensor)], output name of each element)``."""
        ctx, schedule = self.ctx, self.schedule
        fetch_loads = dict(schedule.fetch_loads)
        inputs = set(self.input_names) | {n for _, n in self.state_in} | {
            i.name for i in ctx.initializers}
        graph_outputs, output_names, taken = [], [], {}
        for e, s in zip(schedule.elements, schedule.fetch_slots):
            if s is None:
                output_names.append(None)
                continue
            if id(e) in taken:
                output_names.append(taken[id(e)])
                continue
            if s in fetch_loads:
                name = self.variable_value(schedule.variables[fetch_loads[s]])
            else:
                name = self.name[s]
            if name in inputs or name in set(output_names) or name != e.name:
                name = ctx.identity_to(name, ctx.unique(e.name), e.op, f"{e.op.name}/output")
            taken[id(e)] = name
            output_names.append(name)
            graph_outputs.append((name, e))
        return graph_outputs, output_names


def _lookup(store, name):
    if store is None:
        return None
    try:
        return store[name]
    except KeyError:
        return None


def _rename(nodes, old, new):
    for n in nodes:
        for i, o in enumerate(n.output):
            if o == old:
                n.output[i] = new
        for i, x in enumerate(n.input):
            if x == old:
                n.input[i] = new
