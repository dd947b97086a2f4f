"""Learning-rate schedules of TF1 (``tf.train.exponential_decay`` ...), built from ops.

Each takes the ``global_step`` (a variable or tensor) and returns a scalar tensor
of the learning rate's dtype, recomputed whenever it is run.
"""

from __future__ import annotations

import math

from ..graphlib import Tensor, dtypes, name_scope
from ..ops.math import binary as _binary
from ..ops.math import compare as _compare
from ..ops.math import misc as _misc
from ..ops.math import trig as _trig
from ..ops.math import unary as _unary
from ..ops.convert import constant, convert_to_tensor

__all__ = ["exponential_decay", "piecewise_constant", "polynomial_decay",
           "natural_exp_decay", "inverse_time_decay", "cosine_decay"]


def _values(*xs):
    return [x for x in xs if isinstance(x, Tensor) or hasattr(x, "_as_graph_tensor")]


def _require_step(global_step, fn):
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * decay_rate ** (global_step / decay_steps)`` (the exponent
    floored when ``staircase``).

    Raises:
        ValueError: ``global_step`` is None.

    Example:
        >>> lr = tf.train.exponential_decay(0.1, step, 1000, 0.96, staircase=True)
    """
    _require_step(global_step, "exponential_decay")
    with name_scope(name, "ExponentialDecay",
                    _values(learning_rate, global_step, decay_steps, decay_rate)) as name:
        learning_rate, decay_rate, p = _progress(learning_rate, global_step, decay_steps,
                                                 decay_rate, staircase)
        return _binary.multiply(learning_rate, _binary.pow(decay_rate, p), name=name)


def piecewise_constant(x, boundaries, values, name=None):
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` after the last boundary.

    Args:
        x: a scalar tensor (the global step).
        boundaries: increasing entries of ``x``'s dtype (int32 entries are promoted for
            an int64 ``x``).
        values: one more entry than ``boundaries``, all of one dtype.

    Raises:
        ValueError: the lengths do not match, or the dtypes are inconsistent.

    Example:
        >>> lr = tf.train.piecewise_constant(step, [100, 200], [1.0, 0.5, 0.1])
    """
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of "
                         "values")
    with name_scope(name, "PiecewiseConstant", _values(x, *boundaries, *values)):
        x = convert_to_tensor(x)
        converted = []
        for b in boundaries:
            b = b if isinstance(b, Tensor) else convert_to_tensor(
                b, dtype=x.dtype if _int_fits(b, x) else None)
            if b.dtype is not x.dtype:
                if b.dtype is dtypes.int32 and x.dtype is dtypes.int64:
                    b = _misc.cast(b, x.dtype)
                else:
                    raise ValueError(f"Boundaries ({b.dtype.name}) must have the same dtype "
                                     f"as x ({x.dtype.name}).")
            converted.append(b)
        values = [convert_to_tensor(v) for v in values]
        for v in values[1:]:
            if v.dtype is not values[0].dtype:
                raise ValueError("Values must have elements all with the same dtype "
                                 f"({values[0].dtype.name} vs {v.dtype.name}).")
        result = values[0]
        for b, v in zip(converted, values[1:]):
            result = _misc.where(_compare.greater(x, b), v, result)
        return result


def _int_fits(b, x):
    """A Python int boundary for an integer ``x``: take ``x``'s dtype directly."""
    return isinstance(b, int) and not isinstance(b, bool) and x.dtype.is_integer


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """``(lr - end) * (1 - step / decay_steps) ** power + end``, with ``step`` capped at
    ``decay_steps`` (or ``decay_steps`` stretched to the next multiple when ``cycle``).

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require_step(global_step, "polynomial_decay")
    with name_scope(name, "PolynomialDecay",
                    _values(learning_rate, global_step, decay_steps, end_learning_rate,
                            power)) as name:
        learning_rate = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = learning_rate.dtype
        end_learning_rate = _misc.cast(end_learning_rate, dtype)
        power = _misc.cast(power, dtype)
        step = _misc.cast(global_step, dtype)
        decay_steps_t = _misc.cast(decay_steps, dtype)
        if cycle:
            # The first multiple of decay_steps above the step (1 at step 0).
            multiplier = _misc.where(_compare.equal(step, 0), constant(1.0, dtype=dtype),
                                     _unary.ceil(step / decay_steps_t))
            decay_steps_t = _binary.multiply(decay_steps_t, multiplier)
        else:
            step = _binary.minimum(step, decay_steps_t)
        p = _binary.truediv(step, decay_steps_t)
        return _binary.add(_binary.multiply(learning_rate - end_learning_rate,
                                            _binary.pow(1 - p, power)),
                           end_learning_rate, name=name)


def _progress(learning_rate, global_step, decay_steps, decay_rate, staircase):
    """The learning rate tensor, the decay rate and ``global_step / decay_steps`` in its
    dtype (floored when ``staircase``), as the time-based schedules use them."""
    learning_rate = convert_to_tensor(learning_rate, name="learning_rate")
    dtype = learning_rate.dtype
    decay_steps = _misc.cast(decay_steps, dtype)
    decay_rate = _misc.cast(decay_rate, dtype)
    p = _binary.truediv(_misc.cast(global_step, dtype), decay_steps)
    if staircase:
        p = _unary.floor(p)
    return learning_rate, decay_rate, p


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)`` (the ratio
    floored when ``staircase``).

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require_step(global_step, "natural_exp_decay")
    with name_scope(name, "NaturalExpDecay",
                    _values(learning_rate, global_step, decay_rate)) as name:
        learning_rate, decay_rate, p = _progress(learning_rate, global_step, decay_steps,
                                                 decay_rate, staircase)
        exponent = _unary.exp(_binary.multiply(_unary.negative(decay_rate), p))
        return _binary.multiply(learning_rate, exponent, name=name)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)`` (the ratio
    floored when ``staircase``).

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require_step(global_step, "inverse_time_decay")
    with name_scope(name, "InverseTimeDecay",
                    _values(learning_rate, global_step, decay_rate)) as name:
        learning_rate, decay_rate, p = _progress(learning_rate, global_step, decay_steps,
                                                 decay_rate, staircase)
        denom = _binary.add(constant(1.0, dtype=learning_rate.dtype),
                            _binary.multiply(decay_rate, p))
        return _binary.truediv(learning_rate, denom, name=name)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """``learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha)``
    with ``s = min(global_step, decay_steps)``.

    Raises:
        ValueError: ``global_step`` is None.
    """
    _require_step(global_step, "cosine_decay")
    with name_scope(name, "CosineDecay", _values(learning_rate, global_step)) as name:
        learning_rate = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = learning_rate.dtype
        decay_steps = _misc.cast(decay_steps, dtype)
        step = _binary.minimum(_misc.cast(global_step, dtype), decay_steps)
        completed_fraction = step / decay_steps
        cosine_decayed = 0.5 * (1.0 + _trig.cos(constant(math.pi, dtype=dtype)
                                                 * completed_fraction))
        decayed = (1 - alpha) * cosine_decayed + alpha
        return _binary.multiply(learning_rate, decayed, name=name)
