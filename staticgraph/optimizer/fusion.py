"""Fusion: op patterns become one fused op whose kernel works in place.

Three patterns, in Grappler's remapper order:

1. ``MatMul`` + bias (``BiasAdd``, or ``Add`` of a 1-D bias in either operand order)
   + optional activation (``Relu``, ``Relu6``, ``Sigmoid``, ``Tanh``, ``LeakyRelu``)
   -> ``FusedMatMul``: the bias and activation run in place on the product.
2. ``Conv2D`` + bias + optional activation -> ``FusedConv2D`` likewise.
3. Trees of elementwise ops (unary math, activations made of ufuncs, binary ops with
   a rank-0 operand or a same-shape one) on tensors of one shape (equal static
   shapes, or the same lineage of elementwise ops) -> ``FusedElementwise``, whose
   program lists the ufunc steps; it evaluates them into one reused buffer. Which
   ops join and what they compute is read from their definitions (``ufunc_steps``
   and ``ufunc_for_ints``, see :mod:`staticgraph.ops.math.elementwise`): the very
   ufuncs, in the very order, of each op's kernel, so fused results are bitwise equal.

An op joins a pattern only when it is stateless, has no control inputs and is no
op's control input, and each intermediate value is read by the next op of the
pattern only (or, for ``Shape``/``Size``/``Rank``, by ops that only need its shape,
when that shape is provably the fused output's: they are rebuilt on the fused
output) and is not fetched. Gradient graphs still fuse: ``ReluGrad``, ``TanhGrad``
and ``SigmoidGrad`` read the activation's output, which the fused op produces.

The fused op is named after the last op of the pattern, made with ``add_op(...,
like=last)`` so it keeps the user's line, and replaces the last op's output; the
report names the ops it replaced. Edits are made after the whole graph was
matched (new ops first, then the replacements), so the pass is linear in graph size.
"""

from __future__ import annotations

from ..graphlib import dtypes
from ..ops.fused import fused_ops as _fused_ops
from ..ops.math import elementwise as _elementwise

__all__ = ["fuse", "elementwise_rule"]

SHAPE_ONLY = ("Shape", "Size", "Rank")  # ops reading only their input's shape
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)
_INTS = (dtypes.int32, dtypes.int64)
_NAMES_SHOWN = 8

_RULES = {}  # op definition -> its rule (None: not fusable), computed once


def elementwise_rule(op_def):
    """``(steps, integers allowed)`` of an op the elementwise fusion may absorb, else None.

    The steps are ``(ufunc name, operands)`` with operands an input index, ``"prev"``
    or ``("const", number)``, read from the definition's ``ufunc_steps``; integers
    (int32/int64) are allowed when the steps are the kernel for them too.
    """
    try:
        return _RULES[op_def]
    except KeyError:
        pass
    steps = _elementwise.ufunc_steps(op_def)
    ints = bool(getattr(op_def, "ufunc_for_ints", False))
    rule = None
    if steps:
        rule = tuple((ufunc.__name__, operands) for ufunc, operands in steps), ints
    _RULES[op_def] = rule
    return rule


class _Matcher:
    """Read-only facts about the graph, computed once: consumers, fetches, control edges."""

    def __init__(self, working):
        self.working = working
        self.ops = list(working.ops())
        self.position = {id(op): i for i, op in enumerate(self.ops)}
        readers = {}
        controls = set()
        for op in self.ops:
            inputs = op.inputs
            for k, t in enumerate(inputs):
                if k == 0 or all(u is not t for u in inputs[:k]):
                    readers.setdefault(id(t), []).append(op)
            if op.control_inputs:
                controls.update(id(c) for c in op.control_inputs)
        self.readers = readers
        self.controls = controls
        self.fetched = {id(f) for f in working.fetches}
        self.claimed = set()

    def movable(self, op):
        """True for an op a fusion may absorb."""
        return not (op.op_def.stateful or op.control_inputs or id(op) in self.controls
                    or id(op) in self.claimed or op.op_def.ref_inputs)

    def sole_reader(self, t, reader, same_shape):
        """The shape-only readers of ``t`` to rebuild when ``reader`` is ``t``'s only
        other reader and ``t`` is not fetched; None when ``t`` must stay observable.

        ``same_shape``: whether ``t``'s shape is provably the fused output's.
        """
        if id(t) in self.fetched:
            return None
        shape_only = []
        for op in self.readers.get(id(t), ()):
            if op is reader:
                continue
            if op.type in SHAPE_ONLY and same_shape and not op.control_inputs \
                    and id(op) not in self.controls:
                shape_only.append(op)
                continue
            return None
        return shape_only


class _Edits:
    """Fused ops are created at once; the replacements wait until everything matched."""

    def __init__(self, working, pass_name):
        self.working = working
        self.pass_name = pass_name
        self.replacements = []
        self.fusions = 0

    def fuse(self, op_type, inputs, attrs, members, shape_only, reason):
        last = members[-1]
        controls = list(dict.fromkeys(c for m in members for c in m.control_inputs))
        try:
            fused = self.working.add_op(op_type, inputs, attrs, name=f"{last.name}/fused",
                                        like=last, pass_name=self.pass_name,
                                        control_inputs=controls)
        except (ValueError, TypeError):  # a pattern the fused op refuses stays unfused
            return None
        old, new = last.outputs[0], fused.outputs[0]
        if old.dtype is not new.dtype or not old.shape.is_compatible_with(new.shape):
            return None  # never: the fused op's inference repeats the pattern's
        names = [m.name for m in members]
        self.working.fused_members[fused.name] = names
        shown = ", ".join(names[:_NAMES_SHOWN])
        if len(names) > _NAMES_SHOWN:
            shown += f", ... ({len(names)} ops)"
        self.replacements.append((old, new, f"{reason} fused into one {op_type} "
                                  f"(replaces {shown})"))
        for s in shape_only:
            again = self.working.add_op(s.type, [new], dict(s.attrs), name=f"{s.name}/fused",
                                        like=s, pass_name=self.pass_name)
            self.replacements.append((s.outputs[0], again.outputs[0],
                                      f"{s.type} read from the fused {op_type}"))
        self.fusions += 1
        return fused

    def apply(self):
        for old, new, reason in self.replacements:
            self.working.replace(old, new, reason, self.pass_name)


def fuse(working, pass_name="fuse"):
    """Fuse matmul/conv + bias + activation and elementwise trees; returns fusions made."""
    matcher = _Matcher(working)
    edits = _Edits(working, pass_name)
    for op in matcher.ops:
        if op.type in ("MatMul", "Conv2D"):
            _fuse_contraction(op, matcher, edits)
    _fuse_elementwise(matcher, edits)
    edits.apply()
    if edits.fusions:
        # New ops took ``len(ops)`` as their id, which an earlier prune may have left
        # to another op; plans name values by id, so make the ids unique again.
        for i, op in enumerate(working.graph._ops):
            op._id = i
    return edits.fusions


# ------------------------------------------------------------------ matmul / conv
def _bias_keeps_shape(value, bias, data_format):
    """True when ``value + bias`` provably has ``value``'s shape."""
    b = bias.shape.raw
    dims = value.shape.raw
    if b is None or len(b) != 1 or b[0] is None or dims is None:
        return False
    channel = dims[1] if data_format == "NCHW" else dims[-1]
    return b[0] == 1 or b[0] == channel


def _fuse_contraction(op, matcher, edits):
    if not matcher.movable(op):
        return
    product = op.outputs[0]
    readers = [r for r in matcher.readers.get(id(product), ()) if r.type not in SHAPE_ONLY]
    if len(readers) != 1 or not matcher.movable(readers[0]):
        return
    add = readers[0]
    if add.type == "BiasAdd" and add.inputs[0] is product and add.inputs[1] is not product:
        bias, bias_format = add.inputs[1], add.attrs["data_format"]
    elif add.type == "Add" and (add.inputs[0] is product) != (add.inputs[1] is product):
        bias = add.inputs[1] if add.inputs[0] is product else add.inputs[0]
        bias_format = "NHWC"
        if bias.shape.rank != 1 or product.shape.rank is None or product.shape.rank < 1:
            return
    else:
        return
    shape_only = matcher.sole_reader(product, add, _bias_keeps_shape(product, bias,
                                                                      bias_format))
    if shape_only is None:
        return
    members = [op, add]
    pre = add.outputs[0]
    activation, alpha = "", 0.2
    act_readers = [r for r in matcher.readers.get(id(pre), ()) if r.type not in SHAPE_ONLY]
    if len(act_readers) == 1 and act_readers[0].type in _fused_ops.ACTIVATIONS \
            and matcher.movable(act_readers[0]) and act_readers[0].inputs[0] is pre:
        more = matcher.sole_reader(pre, act_readers[0], True)
        if more is not None:
            act = act_readers[0]
            members.append(act)
            shape_only = shape_only + more
            activation = act.type
            alpha = float(act.attrs.get("alpha", 0.2))
    common = {"bias_op": add.type, "activation": activation, "alpha": alpha}
    if op.type == "MatMul":
        attrs = dict(common, transpose_a=op.attrs["transpose_a"],
                     transpose_b=op.attrs["transpose_b"])
        fused_type = "FusedMatMul"
        if bias_format != "NHWC":
            return
    else:
        attrs = dict(op.attrs, bias_format=bias_format, **common)
        fused_type = "FusedConv2D"
    fused = edits.fuse(fused_type, [op.inputs[0], op.inputs[1], bias], attrs, members,
                       shape_only, "+".join(m.type for m in members))
    if fused is not None:
        matcher.claimed.update(id(m) for m in members)


# ------------------------------------------------------------------ elementwise trees
def _fuse_elementwise(matcher, edits):
    lineage = {}  # id(tensor) -> key of the tensor whose runtime shape it has
    parent = {}   # union-find over eligible ops: id -> id

    def find(i):
        root = i
        while parent[root] != root:
            root = parent[root]
        while parent[i] != root:
            parent[i], i = root, parent[i]
        return root

    for op in matcher.ops:
        rule = elementwise_rule(op.op_def)
        if rule is None or not matcher.movable(op) or len(op.outputs) != 1:
            continue
        out = op.outputs[0]
        if out.dtype not in _FLOATS and not (rule[1] and out.dtype in _INTS):
            continue
        if any(t.dtype is not out.dtype for t in op.inputs):
            continue
        full = [t for t in op.inputs if t.shape.rank != 0]
        if out.shape.rank == 0 and full:
            continue
        key = lineage.get(id(full[0]), id(full[0])) if full else id(out)
        if any(lineage.get(id(t), id(t)) != key and not _same_static(full[0], t)
               for t in full[1:]):
            continue  # operands of possibly different shapes (broadcasting)
        lineage[id(out)] = key
        parent[id(op)] = id(op)
        for k, t in enumerate(op.inputs):
            if k and op.inputs[0] is t:
                continue
            producer = t.op
            if id(producer) not in parent or (t.shape.rank == 0) != (out.shape.rank == 0):
                continue
            if matcher.sole_reader(t, op, True) is None:
                continue
            a, b = find(id(op)), find(id(producer))
            if a != b:
                parent[b] = a
    groups = {}
    for op in matcher.ops:
        if id(op) in parent:
            groups.setdefault(find(id(op)), []).append(op)
    for members in groups.values():
        if len(members) > 1:
            _fuse_group(members, matcher, edits)


def _same_static(a, b):
    return a.shape.is_fully_defined() and b.shape.is_fully_defined() and a.shape == b.shape


def _fuse_group(members, matcher, edits):
    """One FusedElementwise for a tree of elementwise ops (in dependency order)."""
    dtype = members[-1].outputs[0].dtype
    step_of, inputs, input_of, program, shape_only = {}, [], {}, [], []
    for m in members:
        refs = []
        for t in m.inputs:
            if id(t) in step_of:
                refs.append(("step", step_of[id(t)]))
                shape_only.extend(matcher.sole_reader(t, m, True) or ())
            elif t.op.type == "Const" and t.shape.rank == 0 and not t.op.control_inputs \
                    and t.dtype is dtype:
                refs.append(("const", t.op.attrs["value"].item()))
            else:
                if id(t) not in input_of:
                    input_of[id(t)] = len(inputs)
                    inputs.append(t)
                refs.append(("input", input_of[id(t)]))
        for name, operands in elementwise_rule(m.op_def)[0]:
            args = []
            for a in operands:
                if a == "prev":
                    args.append(("step", len(program) - 1))
                elif isinstance(a, tuple):
                    args.append(a)
                else:
                    args.append(refs[a])
            program.append((name, tuple(args)))
        step_of[id(m.outputs[0])] = len(program) - 1
    if not inputs:
        return
    fused = edits.fuse("FusedElementwise", inputs, {"program": tuple(program)}, members,
                       shape_only, f"{len(members)} elementwise ops")
    if fused is not None:
        matcher.claimed.update(id(m) for m in members)
