"""``to_onnx``: a graph (or one training step) as an ONNX model.

The ops the outputs need are walked in the order a session runs them; each op's
definition lowers itself to standard ``ai.onnx`` nodes (``OpDef.onnx``). Variables
are values in that walk: a read takes the variable's current value, a write
(``Assign``, ``ApplyAdam``, ...) makes a new one, so the model computes exactly
what one ``Session.run`` computes. Variables become initializers holding the
session's values (inference) or graph inputs with their updated values as graph
outputs (``training=True``), listed in the model's ``staticgraph.state`` metadata.

Random ops compute the session's counter-based streams (:mod:`staticgraph.ops.random_bits`)
from a key and an execution counter per op (``<op>:random_key``,
``<op>:random_counter``, int64 scalars, listed in the ``staticgraph.random_streams``
metadata). An exported model holds the key the session uses (an unseeded op's key
too) and the counter 0, so it draws what the op drew on its first run in a fresh
session; a training model takes the counter as a graph input with default 0: feed the
step number to draw new values each step.
"""

from __future__ import annotations

import json

import onnx
from onnx import helper

from ...graphlib import Operation, Tensor
from ...graphlib.traversal import needed_ops
from ...ops.random import random_bits
from .context import LoweringContext, OnnxExportError
from .types import onnx_dtype
from .validate import check_onnx_model, strict_shape_inference

__all__ = ["to_onnx", "lower_graph", "LoweredGraph", "DEFAULT_OPSET", "STATE_METADATA_KEY"]

DEFAULT_OPSET = 18
STATE_METADATA_KEY = "staticgraph.state"


def to_onnx(outputs, inputs=None, session=None, path=None, opset=DEFAULT_OPSET, *,
            training=False, graph_name=None, check=True) -> onnx.ModelProto:
    """Export the computation of ``outputs`` as an ONNX model.

    Args:
        outputs: a Tensor, Operation, Variable or a list of them (an op, such as a
            train op, adds its effects on variables but no output).
        inputs: the tensors fed by the model's users (placeholders or any tensor the
            graph is cut at); default: every placeholder the outputs need.
        session: the Session holding the variables' values (needed whenever the
            outputs read a variable).
        path: also write the model to this file.
        opset: the ``ai.onnx`` opset (18 by default, IR version 8: onnxruntime 1.16+).
        training: make a training-step model: variables become graph inputs, and each
            variable the step writes adds a graph output with its new value (the
            ``staticgraph.state`` metadata pairs them), so any ONNX runtime can train it.
            Each random op's execution counter is then a graph input (default 0).
        graph_name: the ONNX graph's name (default: ``"staticgraph"``).
        check: run ``onnx.checker`` (full check) and strict shape inference.

    Returns:
        The ``onnx.ModelProto``. Graph inputs and outputs carry the tensors' names
        (``"x:0"``); unknown dimensions are named ``dim_param``\\ s.

    Raises:
        OnnxExportError: an op cannot be exported (naming it and the user's line), or a
            variable the model reads has no value in ``session``.

    Example:
        >>> model = tf.export.to_onnx(probs, [x], session=sess, path="model.onnx")
    """
    elements = _as_elements(outputs)
    if inputs is None:
        fed_ids = set()
        feeds = [op.outputs[0] for op in needed_ops(elements, fed_ids)
                 if op.op_def.must_feed]
    else:
        feeds = [_as_tensor(t, "inputs") for t in _as_list(inputs)]
    store = session._runtime.variables if session is not None else None
    random_keys = None
    if session is not None:
        runtime = session._runtime

        def random_keys(op):
            return runtime.random_key(op.name, (op.attrs.get("seed"), op.attrs.get("seed2")))
    lowered = lower_graph(elements, feeds, opset=opset, variable_values=store,
                          state_inputs=training, state_outputs=training,
                          graph_name=graph_name, check=check,
                          random_streams="counter_input" if training else "constant",
                          random_keys=random_keys)
    if path is not None:
        onnx.save_model(lowered.model, str(path))
    return lowered.model


class LoweredGraph:
    """A lowered signature: the model and how its names map to the graph.

    Attributes:
        model: the ``onnx.ModelProto``.
        input_names: ONNX input names of the feeds, in ``feeds`` order.
        output_names: ONNX output name of each element (None for operations).
        state_inputs: ``[(variable op name, ONNX input name)]`` (training models).
        state_outputs: ``[(variable op name, ONNX output name)]`` (training models).
        node_ops: ONNX node name -> the op it was lowered from.
        random_streams: ``[(random op name, key name, counter name)]`` (graph inputs
            with ``random_streams="feed"``).
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


def lower_graph(elements, feeds, *, opset=DEFAULT_OPSET, variable_values=None,
                state_inputs=False, state_outputs=False, origin=None, ops=None,
                graph_name=None, check=True, feed_names=None, random_streams="feed",
                random_keys=None) -> LoweredGraph:
    """Lower the ops ``elements`` need (feeding ``feeds``) to an ONNX model.

    Args:
        elements: tensors and operations to compute.
        feeds: tensors given as graph inputs.
        variable_values: variable op name -> value (initializers), when
            ``state_inputs`` is False.
        state_inputs: variables read become graph inputs instead of initializers.
        state_outputs: each variable written adds a graph output with its final value.
        origin: maps a (rewritten) op to the user's op named in messages.
        ops: the ops to lower, in execution order (default: what ``elements`` need).
        feed_names: the graph input names of ``feeds`` (default: their tensor names).
        random_streams: each random op's key and execution counter are graph inputs
            (``"feed"``: the onnxruntime backend feeds them per run), constants with the
            counter 0 (``"constant"``), or a constant key and a counter input with default
            0 (``"counter_input"``).
        random_keys: ``random_keys(op)`` -> a random op's 64-bit key (the constant
            modes; default: from its seeds, fresh for an unseeded op).
    """
    if not isinstance(opset, int) or opset < 13 or opset > onnx.defs.onnx_opset_version():
        raise ValueError(f"opset must be an int from 13 to {onnx.defs.onnx_opset_version()} "
                         f"(this onnx package's newest), got {opset!r}")
    if random_streams not in ("feed", "constant", "counter_input"):
        raise ValueError(f"random_streams must be 'feed', 'constant' or 'counter_input', "
                         f"got {random_streams!r}")
    origin = origin or (lambda op: op)
    ctx = LoweringContext(opset, origin)
    ctx.random_mode = random_streams
    if random_keys is not None:
        ctx.random_key = random_keys
    fed = {id(t): i for i, t in enumerate(feeds)}
    if ops is None:
        ops = needed_ops(elements, fed)
    names = {}         # id(tensor) -> ONNX value name
    graph_inputs = []
    input_names = []
    for k, t in enumerate(feeds):
        if id(t) in names:
            raise ValueError(f"Tensor {t.name!r} is given twice in inputs")
        name = ctx.reserve(feed_names[k] if feed_names else t.name)
        names[id(t)] = name
        input_names.append(name)
        graph_inputs.append(_value_info(name, t, origin))
    initializers_done = set()
    state_in, state_out = [], []
    var_ops = {}

    def variable_value(var_op):
        """The current value name of a variable, adding its input or initializer."""
        written = ctx.written.get(var_op.name)
        if written is not None:
            return written
        name = var_op.name
        if name not in initializers_done:
            initializers_done.add(name)
            var_ops[name] = var_op
            t = var_op.outputs[0]
            if state_inputs:
                ctx.reserve(name)
                graph_inputs.append(_value_info(name, t, origin))
                state_in.append((name, name))
            else:
                value = None if variable_values is None else _lookup(variable_values, name)
                if value is None:
                    user = origin(var_op)
                    where = ("pass the session holding it (session=sess)"
                             if variable_values is None else
                             "run its initializer in that session first")
                    raise OnnxExportError(
                        f"Cannot export: variable '{user.name}' (declared at "
                        f"{user.user_location}) is read but has no value; {where}.", user)
                ctx.const(value, t.dtype, name=name)
        return name

    def initialized(var_op):
        return (var_op.name in ctx.written or state_inputs
                or (variable_values is not None and var_op.name in variable_values))

    ctx.variable_initialized = initialized

    def value_of(t, ref=False, reads=True):
        if id(t) in names:
            return names[id(t)]
        if t.op.op_def.is_variable:
            if ref and t.op.name not in ctx.written and not (reads and initialized(t.op)):
                return None
            return variable_value(t.op)
        raise OnnxExportError(f"Cannot export: tensor {t.name!r} is used before the op "
                              f"computing it ran", origin(t.op))

    for op in ops:
        d = op.op_def
        if d.is_variable or (op.outputs and all(id(t) in fed for t in op.outputs)):
            continue
        ctx.begin(op)
        if d.onnx is None:
            reason = d.onnx_unsupported or "its op type has no ONNX lowering"
            ctx.unsupported(reason)
        refs = d.ref_inputs
        args = [value_of(t, ref=bool(refs) and j in refs, reads=d.reads_refs)
                for j, t in enumerate(op.inputs)]
        first_node = len(ctx.nodes)
        try:
            result = d.onnx(ctx, op, *args)
        except OnnxExportError:
            raise
        except Exception as exc:
            raise OnnxExportError(f"Cannot export {ctx.describe()} to ONNX: "
                                  f"{type(exc).__name__}: {exc}", origin(op)) from exc
        outs = [] if result is None else [result] if isinstance(result, str) else list(result)
        if len(outs) != len(op.outputs):
            raise OnnxExportError(f"The ONNX lowering of {ctx.describe()} returned "
                                  f"{len(outs)} values for {len(op.outputs)} outputs", origin(op))
        own = _own_outputs(ctx.nodes[first_node:])
        for t, out in zip(op.outputs, outs):
            if id(t) in fed:
                continue
            if out in own and out != t.name and t.name not in ctx._names \
                    and outs.count(out) == 1:
                _rename(ctx.nodes[first_node:], out, t.name)
                for var_name, value in ctx.written.items():
                    if value == out:
                        ctx.written[var_name] = t.name
                ctx._names.add(t.name)
                out = t.name
            names[id(t)] = out

    for _, key, counter in ctx.random_streams.values():
        scalars = (key, counter) if random_streams == "feed" else \
            (counter,) if random_streams == "counter_input" else ()
        graph_inputs.extend(helper.make_tensor_value_info(name, onnx.TensorProto.INT64, [])
                            for name in scalars)

    graph_outputs, output_names = [], []
    taken = {}
    input_set = set(input_names) | {n for _, n in state_in} | {i.name for i in ctx.initializers}
    for e in elements:
        if not isinstance(e, Tensor):
            output_names.append(None)
            continue
        if id(e) in taken:
            output_names.append(taken[id(e)])
            continue
        name = value_of(e)
        if name in input_set or name in set(output_names) or name != e.name:
            name = ctx.identity_to(name, ctx.unique(e.name), e.op, f"{e.op.name}/output")
        taken[id(e)] = name
        output_names.append(name)
        graph_outputs.append((name, e))
    if state_outputs:
        for var_name, value in ctx.written.items():
            var_op = var_ops.get(var_name) or _find_var(ops, var_name)
            out_name = ctx.unique(f"{var_name}/updated")
            # the node is named like the output; errors name the variable's last writer
            ctx.identity_to(value, out_name, ctx.writers.get(var_name, var_op), out_name)
            state_out.append((var_name, out_name))
            graph_outputs.append((out_name, var_op.outputs[0]))

    used = {x for n in ctx.nodes for x in n.input} | {n for n, _ in graph_outputs}
    # constants a lowering read while declaring (axes, shapes) may be used by no node
    ctx.initializers = [i for i in ctx.initializers if i.name in used]
    graph = helper.make_graph(ctx.nodes, graph_name or "staticgraph", graph_inputs,
                              [_value_info(n, t, origin, shape=False)
                               for n, t in graph_outputs],
                              initializer=ctx.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="staticgraph", producer_version=_version())
    model.ir_version = _ir_version(opset)
    props = {}
    if state_in or state_out:
        props[STATE_METADATA_KEY] = json.dumps({"inputs": dict(state_in),
                                                "outputs": dict(state_out)})
    if ctx.random_streams:
        props[random_bits.STREAMS_METADATA_KEY] = random_bits.streams_metadata(
            ctx.random_streams.values())
    if props:
        helper.set_model_props(model, props)
    inferred = strict_shape_inference(model, node_ops=ctx.node_ops, origin=origin)
    _set_output_shapes(model, inferred, dict(graph_outputs), require_rank=check)
    if check:
        check_onnx_model(model)
    return LoweredGraph(model, input_names, output_names, state_in, state_out,
                        ctx.node_ops, [(op.name, key, counter)
                                       for op, key, counter in ctx.random_streams.values()])


# ---------------------------------------------------------------------- helpers
def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _as_tensor(x, what):
    if isinstance(x, Tensor):
        return x
    value = getattr(x, "value", None)  # a Variable
    if callable(value):
        t = value()
        if isinstance(t, Tensor):
            return t
    raise TypeError(f"{what} must be Tensors, got {type(x).__name__}: {x!r}")


def _as_elements(outputs):
    out = []
    for x in _as_list(outputs):
        if isinstance(x, Operation):
            out.append(x)
        else:
            out.append(_as_tensor(x, "outputs"))
    if not out:
        raise ValueError("to_onnx needs at least one output")
    return out


def _lookup(store, name):
    try:
        return store[name]
    except KeyError:
        return None


def _own_outputs(nodes):
    return {o for n in nodes for o in n.output}


def _rename(nodes, old, new):
    for n in nodes:
        for i, o in enumerate(n.output):
            if o == old:
                n.output[i] = new
        for i, x in enumerate(n.input):
            if x == old:
                n.input[i] = new


def _find_var(ops, name):
    for op in ops:
        if op.name == name:
            return op
    raise KeyError(name)


def _dim_param(t, i, origin):
    return f"{origin(t.op).name}:{t.value_index}_d{i}".replace(":0_d", "_d")


def _value_info(name, t, origin, shape=True):
    elem = onnx_dtype(t.dtype)
    if not shape:
        return helper.make_tensor_value_info(name, elem, None)
    raw = t.shape.raw
    if raw is None:
        return helper.make_tensor_value_info(name, elem, None)
    dims = [d if d is not None else _dim_param(t, i, origin) for i, d in enumerate(raw)]
    return helper.make_tensor_value_info(name, elem, dims)


def _set_output_shapes(model, inferred, tensors, require_rank=True):
    """Give each graph output the static shape, merged with inference's symbolic dims.

    An output of unknown rank is refused when ``require_rank`` (the ONNX checker
    needs every output's rank); onnxruntime itself runs models without it.
    """
    known = {vi.name: vi for vi in list(inferred.graph.value_info) + list(inferred.graph.output)
             + list(inferred.graph.input)}
    for out in model.graph.output:
        t = tensors[out.name]
        raw = t.shape.raw
        got = known.get(out.name)
        got_dims = None
        if got is not None and got.type.tensor_type.HasField("shape"):
            got_dims = list(got.type.tensor_type.shape.dim)
        if raw is None and got_dims is None:
            if not require_rank:
                continue
            raise OnnxExportError(
                f"Cannot export output {t.name!r} (of op '{t.op.name}' declared at "
                f"{t.op.user_location}): its rank is unknown, and an ONNX model must state "
                f"the rank of each output; give the inputs it depends on (e.g. a shape "
                f"vector's length) static shapes", t.op)
        rank = len(raw) if raw is not None else len(got_dims)
        shape = out.type.tensor_type.shape
        del shape.dim[:]
        for i in range(rank):
            dim = shape.dim.add()
            if raw is not None and raw[i] is not None:
                dim.dim_value = raw[i]
            elif got_dims is not None and len(got_dims) == rank and got_dims[i].dim_value:
                dim.dim_value = got_dims[i].dim_value
            elif got_dims is not None and len(got_dims) == rank and got_dims[i].dim_param:
                dim.dim_param = got_dims[i].dim_param
            else:
                dim.dim_param = f"{out.name}_d{i}"


def _ir_version(opset):
    """The lowest IR version that carries ``opset`` (opset 18 -> IR 8)."""
    return helper.find_min_ir_version_for([helper.make_opsetid("", opset)])


def _version():
    try:
        from importlib.metadata import version
        return version("staticgraph")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "0"
