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
* ``onnx_op``: the ONNX operator computing the op; the default :meth:`lower` emits
  it through :func:`~staticgraph.ops.onnx_support.via` (in a dtype onnxruntime has).

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

__all__ = ["QUIET", "ElementwiseOp", "quiet_kernel", "ufunc_steps", "op_def_of_ufunc",
           "is_fusable_ufunc", "is_quiet"]

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
    onnx_op = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = cls.__dict__
        if own.get("ufunc") is None:
            return
        if "compute" not in own:
            cls.compute = staticmethod(quiet_kernel(cls.ufunc) if cls.quiet else cls.ufunc)
        if "ufunc_steps" not in own and cls.ufunc_steps != ():
            cls.ufunc_steps = ((cls.ufunc, tuple(range(cls.ufunc.nin))),)

    def onnx(self, ctx, op, *inputs):
        """Lowered by :meth:`lower` in the dtype of the op's first input."""
        return self.lower(ctx, list(inputs), op.inputs[0].dtype)

    def lower(self, ctx, inputs, dtype):
        """The ONNX value computing this op on ``inputs`` (value names of ``dtype``).

        Also lowers the steps of a FusedElementwise program whose ufunc is ``ufunc``
        (``dtype`` is then the fused op's compute dtype). The default emits
        ``onnx_op``, computing in a dtype onnxruntime has a kernel for.
        """
        if self.onnx_op is None:
            ctx.unsupported(f"{self.type} has no ONNX operator")
        return onnx_support.via(ctx, self.onnx_op, inputs, dtype)


def ufunc_steps(op_def):
    """The ufunc steps of ``op_def`` the fusion pass may fuse, or None."""
    return getattr(op_def, "ufunc_steps", None) or None


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
