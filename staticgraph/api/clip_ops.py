"""Norm clipping (TF1's ``clip_ops``): composites of registered ops.

``clip_by_global_norm`` rescales a list of tensors (usually gradients) so that their
joint L2 norm is at most ``clip_norm``; ``clip_by_norm`` does that for one tensor
(optionally per slice along ``axes``). ``clip_by_value`` lives with the other
elementwise functions (``math_misc``).
"""

from __future__ import annotations

import collections.abc

from ..graphlib import Tensor, name_scope
from ..ops.array import combine as _combine
from ..ops.array import fill as _fill
from ..ops.array import shape as _shape
from ..ops.math import binary as _binary
from ..ops.math import compare as _compare
from ..ops.math import misc as _misc
from ..ops.math import unary as _unary
from ..ops.nn import loss as _nn_loss
from ..ops.math import reduction as _reduction
from ..ops.convert import constant, convert_to_tensor
from ..ops.core.basic_ops import identity as _identity

__all__ = ["clip_by_norm", "global_norm", "clip_by_global_norm", "clip_by_average_norm"]


def _check_sequence(t_list):
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, (str, bytes)):
        raise TypeError("t_list should be a sequence")
    return list(t_list)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t), clip_norm)``: ``t`` scaled so its L2 norm is at
    most ``clip_norm`` (norms taken over ``axes``; all axes by default).

    Args:
        t: a float tensor.
        clip_norm: a positive scalar (0-D tensor or Python number).
        axes: optional int or list of ints: compute one norm per slice along the others.
        name: name scope (default ``"clip_by_norm"``).

    Returns:
        A tensor like ``t``.

    Raises:
        ValueError: ``clip_norm`` would broadcast ``t`` to a different shape.

    Example:
        >>> tf.clip_by_norm([3.0, 4.0], 1.0)  # [0.6, 0.8]
    """
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as name:
        values = convert_to_tensor(t, name="t")
        l2sum = _reduction.reduce_sum(values * values, axes, keepdims=True)
        pred = _compare.greater(l2sum, 0)
        # Two-tap where: no NaN gradient from sqrt at zero.
        l2sum_safe = _misc.where(pred, l2sum, _fill.ones_like(l2sum))
        l2norm = _misc.where(pred, _unary.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.merge_with(intermediate.shape)  # no unintended broadcasting
        clip_t = convert_to_tensor(clip_norm, dtype=values.dtype)
        return _identity(intermediate / _binary.maximum(l2norm, clip_t), name=name)


def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t)**2 for t in t_list))``, ignoring None entries.

    Args:
        t_list: a sequence of float tensors (None entries are skipped).
        name: name scope (default ``"global_norm"``).

    Returns:
        A 0-D tensor of the tensors' dtype, named ``global_norm``.

    Raises:
        TypeError: ``t_list`` is not a sequence.
    """
    t_list = _check_sequence(t_list)
    with name_scope(name, "global_norm", [t for t in t_list if isinstance(t, Tensor)]):
        values = [convert_to_tensor(t, name=f"t_{i}") if t is not None else None
                  for i, t in enumerate(t_list)]
        half_squared_norms = [_nn_loss.l2_loss(v) for v in values if v is not None]
        if not half_squared_norms:
            raise ValueError("global_norm needs at least one tensor that is not None")
        half_squared_norm = _reduction.reduce_sum(_combine.stack(half_squared_norms))
        return _unary.sqrt(half_squared_norm * constant(2.0, dtype=half_squared_norm.dtype),
                           name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Args:
        t_list: a sequence of tensors (None entries pass through as None).
        clip_norm: a positive scalar, the clipping ratio.
        use_norm: the global norm to use (default: ``global_norm(t_list)``).
        name: name scope (default ``"clip_by_global_norm"``).

    Returns:
        ``(list_clipped, global_norm)``. When the norm is inf or NaN every clipped
        entry is NaN, as in TF1.

    Raises:
        TypeError: ``t_list`` is not a sequence.

    Example:
        >>> grads, norm = tf.clip_by_global_norm(grads, 5.0)
    """
    t_list = _check_sequence(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    use_norm = convert_to_tensor(use_norm)
    values_in = [t for t in t_list if isinstance(t, Tensor)]
    with name_scope(name, "clip_by_global_norm", values_in + [use_norm]) as scope:
        clip_t = convert_to_tensor(clip_norm, dtype=use_norm.dtype) \
            if not isinstance(clip_norm, Tensor) else clip_norm
        one = constant(1.0, dtype=use_norm.dtype)
        scale_for_finite = clip_t * _binary.minimum(one / use_norm, one / clip_t)
        scale = scale_for_finite + (use_norm - use_norm)  # NaN for an inf/NaN norm
        values = [convert_to_tensor(t, name=f"t_{i}") if t is not None else None
                  for i, t in enumerate(t_list)]
        clipped = []
        for i, v in enumerate(values):
            if v is None:
                clipped.append(None)
                continue
            clipped.append(_identity(v * _misc.cast(scale, v.dtype), name=f"{scope}_{i}"))
    return clipped, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)`` (TF1, deprecated).

    Args:
        t: a float tensor.
        clip_norm: a positive scalar.
        name: name scope (default ``"clip_by_average_norm"``).
    """
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as name:
        t = convert_to_tensor(t, name="t")
        n_element = _misc.cast(_shape.size(t), t.dtype)
        axes = _fill.range(_shape.rank(t))
        l2norm_inv = _unary.rsqrt(_reduction.reduce_sum(t * t, axes))
        clip_t = convert_to_tensor(clip_norm, dtype=t.dtype)
        one = constant(1.0, dtype=t.dtype)
        return _identity(t * clip_t * _binary.minimum(l2norm_inv * n_element, one / clip_t),
                         name=name)
