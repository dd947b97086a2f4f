"""Fused ops made by the optimizer's fusion pass: FusedMatMul, FusedConv2D, FusedElementwise.

They only ever exist in a session's private copy of a graph, after gradients were
built, so they are not differentiable. Each keeps the attributes needed to
decompose it back into the ops it replaced (for ONNX):

* ``FusedMatMul(a, b, bias)``: ``MatMul`` (``transpose_a``/``transpose_b``), then the
  bias (``bias_op`` "BiasAdd" or "Add", along the last dimension), then the optional
  ``activation`` ("", "Relu", "Relu6", "Sigmoid", "Tanh", "LeakyRelu" with ``alpha``);
  the bias and activation run in place on the product's buffer, the activation by
  its op definition's kernel (its ufunc steps with ``out=``, its
  ``compute_in_place``, else its ``compute``), so results are the unfused ops'.
* ``FusedConv2D(input, filter, bias)``: ``Conv2D`` with its attributes, then the bias
  (``bias_format`` "NHWC": last dimension, "NCHW": dimension 1) and the activation,
  in place on the convolution's output.
* ``FusedElementwise(*inputs)``: ``program``, a tuple of steps ``(ufunc_name, refs)``
  where each ref is ``("input", i)``, ``("step", j)`` or ``("const", number)``; the
  value is the last step's. A step's ufunc is one of the elementwise ops' (their
  ``ufunc_steps``, :mod:`staticgraph.ops.math.elementwise`), and the program runs
  under ``np.errstate`` when one of those ops is ``quiet``. The kernel evaluates the
  steps with numpy ufuncs into preallocated buffers (``out=``), reusing a buffer as
  soon as its value is dead, so a chain allocates one buffer; the results are bitwise
  those of the unfused ops.
"""

from __future__ import annotations

import numpy as np

from ...graphlib import TensorShape, broadcast_static
from ..math import elementwise as _elementwise
from . import fused_onnx
from ...graphlib.op_def import OpDef, Spec, get_op_def, register
from ..apply import apply_op
from ..shape_rules import NUMERIC, check_same_dtype, require_dtype

__all__ = ["fused_matmul", "fused_conv2d", "fused_elementwise"]

ACTIVATIONS = ("", "Relu", "Relu6", "Sigmoid", "Tanh", "LeakyRelu")
_QUIET = _elementwise.QUIET


# ------------------------------------------------------------------ activations in place
def _activation(op):
    """The activation of a fused op as ``f(out) -> result``, free to overwrite ``out``
    (the op's own buffer), or None: the activation op's kernel, read from its
    definition (:func:`~staticgraph.ops.math.elementwise.in_place_kernel`), with the
    attributes of the same names (``alpha``)."""
    activation = op.attrs["activation"]
    if not activation:
        return None
    op_def = get_op_def(activation)
    attrs = {name: op.attrs[name] for name in op_def.attrs}
    return _elementwise.in_place_kernel(op_def, op.outputs[0].dtype.np_dtype, attrs)


def _add_bias(out, bias, bias_format):
    """``out + bias`` (bias along the last dimension, or dimension 1 for NCHW), in place
    when the result keeps ``out``'s shape."""
    if bias_format == "NCHW":
        bias = bias.reshape((-1,) + (1,) * (out.ndim - 2))
    if type(out) is np.ndarray and out.ndim and np.broadcast_shapes(out.shape, bias.shape) \
            == out.shape:
        return np.add(out, bias, out=out)
    return np.asarray(np.add(out, bias))


def _check_activation(x, activation):
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    require_dtype(x, get_op_def(activation).allowed if activation else NUMERIC, "input")


def _bias_shape(value_shape, bias, bias_op, bias_format):
    """The static shape of ``value + bias`` as BiasAdd or a broadcasting Add computes it."""
    if bias.shape.rank is not None and bias.shape.rank != 1:
        raise ValueError(f"bias must be 1-D, got shape {bias.shape}")
    if bias_op == "Add":
        return broadcast_static(value_shape, bias.shape)
    if bias_op != "BiasAdd":
        raise ValueError(f"bias_op must be 'BiasAdd' or 'Add', got {bias_op!r}")
    dims = value_shape.raw
    if dims is None:
        return TensorShape(None)
    channel = 1 if bias_format == "NCHW" else len(dims) - 1
    c, b = dims[channel], bias.shape.raw[0] if bias.shape.rank else None
    if c is not None and b is not None and c != b:
        raise ValueError(f"Dimensions must be equal, but are {c} and {b}: the bias must "
                         f"match the channel dimension {channel} of {value_shape}")
    dims = list(dims)
    dims[channel] = c if c is not None else b
    return TensorShape(dims)


# ------------------------------------------------------------------ FusedMatMul
@register
class FusedMatMul(OpDef):
    """``activation(matmul(a, b) + bias)``: one product, bias and activation in place."""

    attrs = {"transpose_a": False, "transpose_b": False, "bias_op": "BiasAdd",
             "activation": "", "alpha": 0.2}
    differentiable = False  # made after gradients exist, only in a session's copy

    def infer(self, a, b, bias, *, transpose_a, transpose_b, bias_op, activation, alpha):
        check_same_dtype(a, b, bias, names=("a", "b", "bias"))
        _check_activation(a, activation)
        spec = get_op_def("MatMul").infer(a, b, transpose_a=transpose_a,
                                          transpose_b=transpose_b)
        return Spec(a.dtype, _bias_shape(spec[1], bias, bias_op, "NHWC"))

    def make_kernel(self, op, runtime):
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
        activate = _activation(op)

        def fused_matmul_kernel(a, b, bias):
            out = _add_bias((a.T if ta else a).dot(b.T if tb else b), bias, "NHWC")
            return out if activate is None else activate(out)
        return fused_matmul_kernel

    def onnx(self, ctx, op, a, b, bias):
        return fused_onnx.fused_matmul(ctx, op, a, b, bias)


# ------------------------------------------------------------------ FusedConv2D
_CONV_ATTRS = ("strides", "use_cudnn_on_gpu", "padding", "explicit_paddings", "data_format",
               "dilations")


@register
class FusedConv2D(OpDef):
    """``activation(conv2d(input, filter) + bias)``: bias and activation in place."""

    attrs = {"strides": (1, 1, 1, 1), "use_cudnn_on_gpu": True, "padding": "VALID",
             "explicit_paddings": (), "data_format": "NHWC", "dilations": (1, 1, 1, 1),
             "bias_op": "BiasAdd", "bias_format": "NHWC", "activation": "", "alpha": 0.2}
    differentiable = False  # made after gradients exist, only in a session's copy

    def infer(self, x, f, bias, *, bias_op, bias_format, activation, alpha, **conv):
        check_same_dtype(x, f, bias, names=("input", "filter", "bias"))
        _check_activation(x, activation)
        spec = get_op_def("Conv2D").infer(x, f, **conv)
        return Spec(x.dtype, _bias_shape(spec[1], bias, bias_op, bias_format))

    def make_kernel(self, op, runtime):
        conv = {k: op.attrs[k] for k in _CONV_ATTRS}
        conv_kernel = get_op_def("Conv2D").compute
        bias_format = op.attrs["bias_format"]
        activate = _activation(op)

        def fused_conv2d_kernel(x, f, bias):
            out = _add_bias(conv_kernel(x, f, **conv), bias, bias_format)
            return out if activate is None else activate(out)
        return fused_conv2d_kernel

    def onnx(self, ctx, op, x, f, bias):
        return fused_onnx.fused_conv2d(ctx, op, x, f, bias)


# ------------------------------------------------------------------ FusedElementwise
def _check_program(program, n_inputs):
    if not program:
        raise ValueError("FusedElementwise needs a non-empty program")
    for j, step in enumerate(program):
        name, refs = step
        ufunc = getattr(np, name, None) if isinstance(name, str) else None
        if not isinstance(ufunc, np.ufunc) or not _elementwise.is_fusable_ufunc(ufunc):
            raise ValueError(f"FusedElementwise step {j}: {name!r} is not a supported ufunc")
        if ufunc.nin != len(refs):
            raise ValueError(f"FusedElementwise step {j}: {name} takes "
                             f"{ufunc.nin} operands, got {len(refs)}")
        for kind, value in refs:
            if kind == "input" and not 0 <= value < n_inputs:
                raise ValueError(f"FusedElementwise step {j} reads input {value} of "
                                 f"{n_inputs}")
            if kind == "step" and not 0 <= value < j:
                raise ValueError(f"FusedElementwise step {j} reads step {value}, not an "
                                 "earlier one")
            if kind not in ("input", "step", "const"):
                raise ValueError(f"FusedElementwise step {j}: unknown operand kind {kind!r}")


def _const_key(value):
    """Constants by exact value: ``-0.0`` is not ``0.0`` and nan is itself."""
    return type(value).__name__, repr(value)


def _allocate(program, first_buffer, inplace):
    """Buffer registers for the steps: ``(target register per step, buffers used)``.

    Registers below ``first_buffer`` hold inputs and constants; buffers follow. A
    step writes into the buffer of an operand whose value dies there (``inplace``),
    else into a free buffer none of its operands uses (numpy updates size-1 arrays
    in place slowly), else into a new buffer.
    """
    last = {}
    for j, (_, refs) in enumerate(program):
        for kind, value in refs:
            if kind == "step":
                last[value] = j
    targets, free, n_buf = [], [], 0
    for j, (_, refs) in enumerate(program):
        dying = []
        for kind, value in refs:
            if kind == "step" and last[value] == j and targets[value] not in dying:
                dying.append(targets[value])
        if inplace and dying:
            target = dying.pop(0)
        elif free:
            target = free.pop()
        else:
            target = first_buffer + n_buf
            n_buf += 1
        free.extend(dying)
        targets.append(target)
    return targets, n_buf


@register
class FusedElementwise(OpDef):
    """A tree of elementwise ufunc steps on same-shape tensors, evaluated in place."""

    attrs = {"program": ()}
    differentiable = False  # made after gradients exist, only in a session's copy

    def infer(self, *inputs, program):
        if not inputs:
            raise ValueError("FusedElementwise needs at least one input")
        dtype = inputs[0].dtype
        for i, t in enumerate(inputs[1:], 1):
            if t.dtype is not dtype:
                raise TypeError(f"All inputs of FusedElementwise must have one dtype: "
                                f"inputs[{i}] has {t.dtype.name}, inputs[0] {dtype.name}")
        require_dtype(inputs[0], NUMERIC, "inputs")
        _check_program(program, len(inputs))
        shape = inputs[0].shape
        for t in inputs[1:]:
            shape = broadcast_static(shape, t.shape)
        return Spec(dtype, shape)

    def make_kernel(self, op, runtime):
        program = op.attrs["program"]
        build = _compile_program if len(program) <= MAX_GENERATED_STEPS else _interpret_program
        return build(program, len(op.inputs), [t.shape.rank != 0 for t in op.inputs],
                     op.outputs[0].dtype.np_dtype)

    def onnx(self, ctx, op, *inputs):
        return fused_onnx.fused_elementwise(ctx, op, inputs)


def _guarded(program):
    """True when a step's op silences numpy's warnings (``quiet``): the program then
    runs under np.errstate (which costs about a microsecond a call), else without."""
    return any(_elementwise.is_quiet(getattr(np, name)) for name in {n for n, _ in program})


IN_PLACE_MIN_SIZE = 4096  # elements; below this, fresh results beat writing in place


MAX_GENERATED_STEPS = 1000  # longer programs are interpreted: compile() costs ~20 us a line


def _interpret_program(program, n_in, full, dtype):
    """A kernel stepping through a long ``program`` with a register list.

    Registers hold the inputs, the constants, then buffers; in the in-place mode a
    step writes into the buffer of an operand whose value died (see ``_allocate``).
    """
    consts, const_reg = [], {}
    for _, refs in program:
        for kind, value in refs:
            if kind == "const" and _const_key(value) not in const_reg:
                const_reg[_const_key(value)] = n_in + len(consts)
                consts.append(np.asarray(value, dtype))
    base = n_in + len(consts)
    targets, n_buf = _allocate(program, base, True)

    def register(kind, value, step_reg):
        return value if kind == "input" else step_reg(value) if kind == "step" \
            else const_reg[_const_key(value)]

    fresh, inplace, written = [], [], set()
    for k, (name, refs) in enumerate(program):
        fn = getattr(np, name)
        regs = [register(kd, v, lambda j: base + j) for kd, v in refs] + [-1]
        fresh.append((fn, regs[0], regs[1], base + k))
        regs = [register(kd, v, lambda j: targets[j]) for kd, v in refs] + [-1]
        inplace.append((fn, regs[0], regs[1], targets[k], targets[k] in written))
        written.add(targets[k])
    full_inputs = [i for i in range(n_in) if full[i]]
    guarded = _guarded(program)

    def run(args):
        first = args[full_inputs[0]] if full_inputs else None
        if (first is not None and np.size(first) >= IN_PLACE_MIN_SIZE
                and all(np.shape(args[i]) == np.shape(first) for i in full_inputs)):
            regs = [*args, *consts, *([None] * n_buf)]
            for fn, x, y, out, reuse in inplace:
                if reuse:
                    if y < 0:
                        fn(regs[x], out=regs[out])
                    else:
                        fn(regs[x], regs[y], out=regs[out])
                else:
                    regs[out] = fn(regs[x]) if y < 0 else fn(regs[x], regs[y])
            return regs[targets[-1]]
        regs = [*args, *consts, *([None] * len(program))]
        for fn, x, y, out in fresh:
            regs[out] = fn(regs[x]) if y < 0 else fn(regs[x], regs[y])
        result = regs[-1]
        return result if result.dtype == dtype else np.asarray(result, dtype)

    def fused_elementwise_interpreter(*args):
        if guarded:
            with np.errstate(**_QUIET):
                return run(args)
        return run(args)

    return fused_elementwise_interpreter


def _compile_program(program, n_in, full, dtype):
    """A Python function evaluating ``program``, generated once per op (one line per step).

    Two bodies: for inputs of one shape and at least ``IN_PLACE_MIN_SIZE`` elements,
    each step writes into a buffer whose value died (the chain allocates once);
    otherwise each step returns a fresh result, which also covers inputs that
    broadcast against each other.
    """
    env = {"np": np, "_dtype": dtype, "_QUIET": _QUIET}
    consts = {}

    def ref(kind, value, step_name):
        if kind == "input":
            return f"i{value}"
        if kind == "step":
            return step_name(value)
        key = _const_key(value)
        if key not in consts:
            consts[key] = f"c{len(consts)}"
            env[consts[key]] = np.asarray(value, dtype)
        return consts[key]

    fns = {}
    for name, _ in program:
        fns[name] = f"u_{name}"
        env[f"u_{name}"] = getattr(np, name)
    fresh = [f"s{k} = {fns[name]}({', '.join(ref(kd, v, lambda j: f's{j}') for kd, v in refs)})"
             for k, (name, refs) in enumerate(program)]
    targets, _ = _allocate(program, 0, True)
    written, inplace = set(), []
    for k, (name, refs) in enumerate(program):
        args = ", ".join(ref(kd, v, lambda j: f"b{targets[j]}") for kd, v in refs)
        if targets[k] in written:
            inplace.append(f"{fns[name]}({args}, out=b{targets[k]})")
        else:
            written.add(targets[k])
            inplace.append(f"b{targets[k]} = {fns[name]}({args})")
    last = len(program) - 1
    full_inputs = [f"i{i}" for i in range(n_in) if full[i]]
    same = " and ".join(f"{a}.shape == {full_inputs[0]}.shape" for a in full_inputs[1:])
    big = f"{full_inputs[0]}.size >= {IN_PLACE_MIN_SIZE}" if full_inputs else "False"
    cond = f"{big} and {same}" if same else big
    body = ([f"if {cond}:"] + [f"    {line}" for line in inplace]
            + [f"    return b{targets[last]}"] + fresh
            + [f"return s{last} if s{last}.dtype == _dtype else np.asarray(s{last}, _dtype)"])
    guarded = _guarded(program)
    params = ", ".join(f"i{i}" for i in range(n_in))
    defaults = ", ".join(f"{k}={k}" for k in env)
    lines = [f"def fused_elementwise_kernel({params}, *, {defaults}):"]
    if guarded:
        lines += ["    with np.errstate(**_QUIET):"] + [f"        {b}" for b in body]
    else:
        lines += [f"    {b}" for b in body]
    source = "\n".join(lines) + "\n"
    namespace = dict(env)
    exec(compile(source, "<staticgraph FusedElementwise>", "exec"), namespace)  # noqa: S102 - our program
    kernel = namespace["fused_elementwise_kernel"]
    kernel.source = source
    return kernel


# ------------------------------------------------------------------ builders
def fused_matmul(a, b, bias, transpose_a=False, transpose_b=False, bias_op="BiasAdd",
                 activation="", alpha=0.2, name=None):
    """``activation(matmul(a, b) + bias)`` as one FusedMatMul op (what the optimizer makes).

    Args:
        a, b: rank-2 tensors of one dtype; bias: a 1-D tensor over the last dimension.
        bias_op: "BiasAdd" or "Add" (the op the bias came from); activation: one of
            "", "Relu", "Relu6", "Sigmoid", "Tanh", "LeakyRelu" (with ``alpha``).
    """
    return apply_op("FusedMatMul", [a, b, bias],
                    {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b),
                     "bias_op": bias_op, "activation": activation, "alpha": float(alpha)},
                    name=name)


def fused_conv2d(x, filter, bias, strides=(1, 1, 1, 1), padding="VALID", data_format="NHWC",
                 dilations=(1, 1, 1, 1), explicit_paddings=(), bias_op="BiasAdd",
                 bias_format=None, activation="", alpha=0.2, name=None):
    """``activation(conv2d(x, filter) + bias)`` as one FusedConv2D op.

    ``bias_format`` ("NHWC": last dimension, "NCHW": dimension 1) defaults to
    ``data_format`` for a BiasAdd and to "NHWC" for an Add (numpy broadcasting); the
    other arguments are Conv2D's and FusedMatMul's.
    """
    attrs = {"strides": tuple(strides), "padding": padding, "data_format": data_format,
             "dilations": tuple(dilations), "explicit_paddings": tuple(explicit_paddings),
             "bias_op": bias_op,
             "bias_format": bias_format or (data_format if bias_op == "BiasAdd" else "NHWC"),
             "activation": activation, "alpha": float(alpha)}
    return apply_op("FusedConv2D", [x, filter, bias], attrs, name=name)


def fused_elementwise(inputs, program, name=None):
    """The FusedElementwise op evaluating ``program`` (steps ``(ufunc, refs)``) on ``inputs``.

    Example: ``fused_elementwise([x], (("multiply", (("input", 0), ("const", 2.0))),
    ("tanh", (("step", 0),))))`` is ``tanh(x * 2)``.
    """
    program = tuple((str(n), tuple((str(k), v) for k, v in refs)) for n, refs in program)
    return apply_op("FusedElementwise", list(inputs), {"program": program}, name=name)
