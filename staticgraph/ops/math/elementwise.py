"""The facts of an elementwise op, stated once on its definition and read by every consumer.

An elementwise op type subclasses :class:`ElementwiseOp` and states, as class
attributes, what several parts of the system need to know about it:

* ``ufunc``: the numpy ufunc that computes the op. It *is* the kernel (``compute``
  is derived from it, silenced by ``np.errstate`` when ``quiet``) unless the class
  writes a ``compute`` of its own for dtype-dependent behaviour (e.g. integer
  division by zero). The fused ONNX lowering lowers a FusedElementwise step of this
  ufunc through this op's :meth:`~ElementwiseOp.lower`.
* ``ufunc_steps``: what the fusion pass fuses: the ufunc steps computing the op,
  each ``(ufunc, operands)`` with operands an input index, ``"prev"`` (the previous
  step's value) or ``("const", number)``. Derived from ``ufunc``; written out for
  ops made of several ufuncs (``Rsqrt`` is ``sqrt`` then ``reciprocal``); ``()`` for
  ops the fusion pass must leave alone (bool-valued ones). The steps are exactly the
  kernel's for float inputs, and for integer inputs too when ``ufunc_for_ints``.
* ``quiet``: the kernel silences numpy's floating-point warnings (inf/nan results
  are legitimate); a fused kernel holding one of its steps does too.
* ``compute_in_place``: for a kernel that computes faster into a buffer it may
  overwrite, that kernel (``compute_in_place(x, **attrs)`` writes the result into
  ``x``, an array of at least one dimension, and returns it); ``compute`` is then
  derived from it (on a copy of ``x``), and a fused op applies it to its own buffer
  (see :func:`in_place_kernel`).
* ``onnx_op``: the ONNX operator computing the op; the default :meth:`lower` emits
  it through :func:`~staticgraph.ops.onnx_support.via` (in a dtype onnxruntime has).
  An op with attributes takes them as keywords of its :meth:`lower`.

Example::

    @register
    class Exp(UnaryOp):
        ufunc = np.exp
        quiet = True
        onnx_op = "Exp"
"""

from __future__ import annotations

import numpy as np

from ...graphlib.op_def import OpDef, get_op_def, registered_types
from .. import onnx_support

__all__ = ["QUIET", "ElementwiseOp", "quiet_kernel", "ufunc_steps", "in_place_kernel",
           "op_def_of_ufunc", "is_fusable_ufunc", "is_quiet"]

QUIET = {"all": "ignore"}
"""``np.errstate`` settings of kernels whose inf/nan results are legitimate (as TF1)."""


def quiet_kernel(ufunc):
    """``ufunc`` run with numpy's floating-point warnings silenced."""
    def kernel(*args):
        with np.errstate(**QUIET):
            return ufunc(*args)
    kernel.__name__ = getattr(ufunc, "__name__", "kernel")
    return kernel


class ElementwiseOp(OpDef):
    """Base of elementwise op definitions; see the module docstring for the attributes."""

    ufunc = None
    ufunc_steps = None
    ufunc_for_ints = False
    quiet = False
    compute_in_place = None
    onnx_op = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = cls.__dict__
        if own.get("compute_in_place") is not None:
            if "compute" in own:
                raise TypeError(f"{cls.__name__} states compute_in_place and compute: "
                                "compute is derived from compute_in_place")
            in_place = own["compute_in_place"]
            cls.compute = staticmethod(_on_a_copy(getattr(in_place, "__func__", in_place)))
        if own.get("ufunc") is None:
            return
        if "compute" not in own:
            cls.compute = staticmethod(quiet_kernel(cls.ufunc) if cls.quiet else cls.ufunc)
        if "ufunc_steps" not in own and cls.ufunc_steps != ():
            cls.ufunc_steps = ((cls.ufunc, tuple(range(cls.ufunc.nin))),)

    def onnx(self, ctx, op, *inputs):
        """Lowered by :meth:`lower` in the dtype of the op's first input."""
        return self.lower(ctx, list(inputs), op.inputs[0].dtype, **op.attrs)

    def lower(self, ctx, inputs, dtype):
        """The ONNX value computing this op on ``inputs`` (value names of ``dtype``).

        Also lowers the steps of a FusedElementwise program whose ufunc is ``ufunc``
        (``dtype`` is then the fused op's compute dtype), and the activation of a
        fused MatMul or Conv2D. The default emits ``onnx_op``, computing in a dtype
        onnxruntime has a kernel for; an op with attributes takes them as keywords.
        """
        if self.onnx_op is None:
            ctx.unsupported(f"{self.type} has no ONNX operator")
        return onnx_support.via(ctx, self.onnx_op, inputs, dtype)


def _on_a_copy(in_place):
    """``compute`` from a ``compute_in_place``: the same kernel on a copy of the input."""
    def compute(x, **attrs):
        y = np.array(x, copy=True)
        if y.ndim:
            return in_place(y, **attrs)
        in_place(y.reshape(1), **attrs)   # a view: the kernel may assume a dimension
        return y
    compute.__name__ = getattr(in_place, "__name__", "compute")
    return compute


def ufunc_steps(op_def):
    """The ufunc steps of ``op_def`` the fusion pass may fuse, or None."""
    return getattr(op_def, "ufunc_steps", None) or None


def in_place_kernel(op_def, dtype, attrs=None):
    """``f(x) -> y``: ``op_def``'s kernel of one input, free to overwrite ``x``.

    For a fused op's last step (its activation) on the op's own buffer ``x`` of
    ``dtype`` (at least 1-D): the op's ``compute_in_place``; else its ufunc steps run
    with ``out=x`` where they are the kernel for ``dtype`` (``ufunc_steps``, for
    integers with ``ufunc_for_ints``); else ``compute`` (a new array). Each gives
    ``compute``'s results bit for bit (``tests/ops/test_kernels.py`` checks it).

    Args:
        op_def: an elementwise op definition of one input.
        dtype: the numpy dtype of the arrays ``f`` will get.
        attrs: the op's attributes (keywords of its kernel).
    """
    attrs = attrs or {}
    in_place = getattr(op_def, "compute_in_place", None)
    if in_place is not None:
        return (lambda x: in_place(x, **attrs)) if attrs else in_place
    dtype = np.dtype(dtype)
    steps = ufunc_steps(op_def)
    if not steps or not (dtype.kind == "f" or getattr(op_def, "ufunc_for_ints", False)) \
            or not _chain_of_one_input(steps):
        return (lambda x: op_def.compute(x, **attrs)) if attrs else op_def.compute
    kernel = _steps_into(steps, dtype)
    if getattr(op_def, "quiet", False):
        return quiet_kernel(kernel)
    return kernel


def _chain_of_one_input(steps):
    """True when ``steps`` read input 0 in the first step and the previous value
    after, besides constants (so each step may overwrite the one buffer)."""
    for j, (_, operands) in enumerate(steps):
        values = [a for a in operands if not isinstance(a, tuple)]
        if not values or any(a != (0 if j == 0 else "prev") for a in values):
            return False
    return True


def _steps_into(steps, dtype):
    """The ufunc ``steps`` of one input run in place, constants made ``dtype`` scalars."""
    plan = []
    for ufunc, operands in steps:
        consts = tuple(None if not isinstance(a, tuple) else dtype.type(a[1]) for a in operands)
        plan.append((ufunc, consts))
    if len(plan) == 1:   # one step (Relu, Tanh): no loop
        ufunc, consts = plan[0]
        if consts == (None,):
            return lambda x: ufunc(x, out=x)
        if len(consts) == 2 and consts[0] is None:
            c = consts[1]
            return lambda x: ufunc(x, c, out=x)

    def kernel(x):
        for ufunc, consts in plan:
            ufunc(*[x if c is None else c for c in consts], out=x)
        return x
    return kernel


_INDEX = {"size": -1, "by_ufunc": None, "steps": frozenset()}


def _rebuild_index():
    """ufunc -> the elementwise op whose ``ufunc`` it is, and every fusable step's
    ufunc, from the registry."""
    types = registered_types()
    by_ufunc, steps = {}, set()
    for op_type in types:
        d = get_op_def(op_type)
        if isinstance(d, ElementwiseOp) and d.ufunc is not None:
            if d.ufunc in by_ufunc:
                raise ValueError(f"{op_type} and {by_ufunc[d.ufunc].type} both state "
                                 f"ufunc {d.ufunc.__name__}: one op owns a ufunc")
            by_ufunc[d.ufunc] = d
        steps.update(u for u, _ in ufunc_steps(d) or ())
    _INDEX.update(size=len(types), by_ufunc=by_ufunc, steps=frozenset(steps))


def _lookup(key, ufunc):
    """``_INDEX[key]``'s answer for ``ufunc``, the index built on first use and again
    when a lookup misses after op types were registered since."""
    if _INDEX["by_ufunc"] is None:
        _rebuild_index()
    table = _INDEX[key]
    if ufunc not in table and len(registered_types()) != _INDEX["size"]:
        _rebuild_index()
        table = _INDEX[key]
    return table.get(ufunc) if key == "by_ufunc" else ufunc in table


def op_def_of_ufunc(ufunc):
    """The elementwise op definition whose ``ufunc`` is ``ufunc``, or None."""
    return _lookup("by_ufunc", ufunc)


def is_fusable_ufunc(ufunc):
    """True when ``ufunc`` appears in some op's ``ufunc_steps`` (a FusedElementwise's
    vocabulary)."""
    return _lookup("steps", ufunc)


def is_quiet(ufunc):
    """True when the kernel of ``ufunc``'s op silences floating-point warnings (True
    when no op owns ``ufunc``: silence is the safe side)."""
    d = op_def_of_ufunc(ufunc)
    return True if d is None else d.quiet
