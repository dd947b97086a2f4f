"""Normalization, dropout and embeddings of ``tf.nn``: l2_normalize, moments,
batch_normalization, dropout, embedding_lookup.

All are composites of registered ops built under a name scope, as TF1 builds them,
so gradients, optimization and export see ordinary ops.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...graphlib import Tensor, TensorShape, dtypes, name_scope
from ..array import combine as _array_combine
from ..array import gather as _array_gather
from ..array import expand_squeeze as _expand_squeeze
from ..array import shape as _array_shape
from ..array import transform as _array_transform
from ..core import basic_ops as _core_ops
from ..math import binary as _math_binary
from ..math import misc as _math_misc
from ..math import unary as _math_unary
from ..random import random_ops as _random_ops
from ..math import reduction as _reduction
from ..convert import constant, convert_to_tensor
from ..argument_aliases import deprecated_argument_lookup
from ..static_value import constant_value

__all__ = ["l2_normalize", "moments", "batch_normalization", "dropout", "embedding_lookup"]


def _axes(axis):
    """An axis argument as a Python int / list of ints when it is static."""
    if isinstance(axis, Tensor):
        value = constant_value(axis)
        if value is None:
            return axis
        axis = value
    if isinstance(axis, (list, tuple)):
        return [int(a) for a in axis]
    if isinstance(axis, np.ndarray):
        return int(axis) if axis.ndim == 0 else [int(a) for a in axis.reshape(-1)]
    return axis if axis is None else int(axis)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """Normalizes along ``axis`` by the L2 norm: ``x / sqrt(max(sum(x**2, axis), epsilon))``.

    Args:
        x: a float tensor.
        axis: dimension(s) to normalize over (default None: all of them).
        epsilon: lower bound on the squared norm (avoids division by zero).
        name: op name of the result (inside the scope ``"l2_normalize"``).
        dim: deprecated alias of ``axis``.

    Raises:
        ValueError: both ``axis`` and ``dim`` given.
    """
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = _reduction.reduce_sum(_math_unary.square(x), _axes(axis), keepdims=True)
        x_inv_norm = _math_unary.rsqrt(
            _math_binary.maximum(square_sum, convert_to_tensor(epsilon, dtype=x.dtype)))
        return _math_binary.multiply(x, x_inv_norm, name=scope)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance of ``x`` over ``axes``.

    float16 inputs are accumulated in float32 and the results cast back, as in TF1.

    Args:
        x: a float tensor.
        axes: list of dimensions to reduce over (e.g. ``[0]`` for a batch of vectors,
            ``[0, 1, 2]`` for NHWC images).
        shift: unused (kept for TF1 compatibility).
        name: name scope (default ``"moments"``).
        keep_dims: deprecated alias of ``keepdims``.
        keepdims: keep the reduced dimensions with size 1.

    Returns:
        ``(mean, variance)``.

    Example:
        >>> mean, var = tf.nn.moments(x, axes=[0])
    """
    del shift  # TF1 ignores it as well
    keep = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keep = bool(keep) if keep is not None else False
    with name_scope(name, "moments", [x, axes]):
        x = convert_to_tensor(x, name="x")
        axes = _axes(axes)
        y = _math_misc.cast(x, dtypes.float32) if x.dtype is dtypes.float16 else x
        mean = _reduction.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = _reduction.reduce_mean(
            _math_binary.squared_difference(y, _array_transform.stop_gradient(mean)), axes,
            keepdims=True, name="variance")
        if not keep:
            squeeze_axes = [axes] if isinstance(axes, int) else axes
            mean = _expand_squeeze.squeeze(mean, squeeze_axes)
            variance = _expand_squeeze.squeeze(variance, squeeze_axes)
        if x.dtype is dtypes.float16:
            return (_math_misc.cast(mean, dtypes.float16),
                    _math_misc.cast(variance, dtypes.float16))
        return mean, variance


def _as_dtype_of(value, x):
    """``value`` as a tensor, Python numbers taking ``x``'s dtype."""
    return convert_to_tensor(value, preferred_dtype=x.dtype)


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """Batch normalization: ``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset``.

    ``mean``, ``variance``, ``offset`` and ``scale`` broadcast against ``x`` (e.g. the
    outputs of :func:`moments` with ``keep_dims=True``, or 1-D per-channel tensors).

    Args:
        x: a float tensor.
        mean: the mean to subtract.
        variance: the variance to divide by (through its square root).
        offset: the offset beta added after scaling, or None.
        scale: the scale gamma, or None.
        variance_epsilon: a small float added to the variance.
        name: name scope (default ``"batchnorm"``).
    """
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = convert_to_tensor(x, name="x")
        mean = _as_dtype_of(mean, x)
        variance = _as_dtype_of(variance, x)
        inv = _math_unary.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * _as_dtype_of(scale, x)
        if offset is not None:
            shift = _as_dtype_of(offset, x) - mean * inv
        else:
            shift = -mean * inv
        if inv.dtype is not x.dtype:
            inv = _math_misc.cast(inv, x.dtype)
        if shift.dtype is not x.dtype:
            shift = _math_misc.cast(shift, x.dtype)
        return x * inv + shift


def _noise_shape(x, noise_shape):
    """The shape of dropout's random mask: ``x``'s, or ``noise_shape`` with its
    unknown entries taken from ``x``'s static shape."""
    xdims = x.shape.raw
    if noise_shape is None:
        if xdims is not None and None not in xdims:
            return list(xdims)
        return _array_shape.shape(x)
    if isinstance(noise_shape, Tensor):
        return noise_shape
    dims = TensorShape(noise_shape).raw
    if xdims is not None and dims is not None and len(dims) == len(xdims):
        dims = tuple(d if d is not None else xd for d, xd in zip(dims, xdims))
    if dims is not None and None not in dims:
        return list(dims)
    raise ValueError(f"noise_shape {noise_shape} has unknown dimensions that cannot be "
                     f"taken from x's shape {x.shape}")


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Dropout: keeps each element with probability ``keep_prob`` (scaled by
    ``1 / keep_prob``) and zeroes the others.

    Give exactly one of ``keep_prob`` and ``rate`` (``rate = 1 - keep_prob``). With
    ``keep_prob=1`` (``rate=0``) ``x`` is returned unchanged.

    Args:
        x: a float tensor.
        keep_prob: probability of keeping each element (float in (0, 1] or scalar tensor).
        noise_shape: shape of the random keep/drop mask, broadcast against ``x``
            (e.g. ``[batch, 1, 1, channels]`` to drop whole feature maps).
        seed: op seed; with ``tf.set_random_seed`` the mask is reproducible.
        name: name scope (default ``"dropout"``).
        rate: probability of dropping each element (alternative to ``keep_prob``).

    Raises:
        ValueError: both or neither of ``keep_prob``/``rate``, a rate outside [0, 1),
            or a non-float ``x``.

    Example:
        >>> h = tf.nn.dropout(h, keep_prob=0.5)
    """
    try:
        keep = 1. - keep_prob if keep_prob is not None else None
    except TypeError:
        raise ValueError(f"keep_prob must be a floating point number or Tensor "
                         f"(got {keep_prob!r})") from None
    rate = deprecated_argument_lookup("rate", rate, "keep_prob", keep)
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    with name_scope(name, "dropout", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(f"x has to be a floating point tensor since it's going to be "
                             f"scaled. Got a {x.dtype.name} tensor instead.")
        if isinstance(rate, numbers.Real) and not isinstance(rate, bool):
            rate = float(rate)
            if not 0 <= rate < 1:
                raise ValueError(f"rate must be a scalar tensor or a float in the range "
                                 f"[0, 1), got {rate:g}")
            if rate == 0:
                return x
            scale = 1.0 / (1.0 - rate)
        else:
            rate = convert_to_tensor(rate, dtype=x.dtype, name="rate")
            if rate.shape.rank not in (None, 0):
                raise ValueError(f"rate must be a scalar, got shape {rate.shape}")
            value = constant_value(rate)
            if value is not None and float(value) == 0:
                return x
            scale = 1 / (1 - rate)
        random_tensor = _random_ops.random_uniform(_noise_shape(x, noise_shape), seed=seed,
                                                   dtype=x.dtype)
        keep_mask = random_tensor >= rate
        ret = x * scale * _math_misc.cast(keep_mask, x.dtype)
        ret.set_shape(x.shape)
        return ret


def _clip_by_norm_rows(values, ids, max_norm):
    """Each embedding row of ``values`` rescaled to an L2 norm of at most ``max_norm``."""
    if max_norm is None:
        return values
    ids_rank, params_rank = ids.shape.rank, values.shape.rank
    if ids_rank is None or params_rank is None:
        raise ValueError("embedding_lookup with max_norm needs ids and params of known rank")
    axes = list(range(ids_rank, params_rank))
    clip = convert_to_tensor(max_norm, dtype=values.dtype)
    l2sum = _reduction.reduce_sum(_math_unary.square(values), axes, keepdims=True)
    inv = _math_unary.rsqrt(_math_binary.maximum(l2sum, clip * clip))
    return values * clip * inv


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Looks up rows ``ids`` of the embedding table ``params``: ``gather(params, ids)``.

    ``params`` is a tensor/variable or a list of shards partitioned along dimension
    0 by ``partition_strategy`` ("mod": id ``i`` lives in shard ``i % n`` at row
    ``i // n``; "div": shards hold contiguous ranges). Sharded tables need static
    first dimensions.

    Args:
        params: the table ``[vocab, ...]`` or a list of shards.
        ids: int32/int64 tensor of ids (any shape).
        partition_strategy: "mod" (default) or "div"; used when there are several shards.
        name: op name (default ``"embedding_lookup"``).
        validate_indices: ignored (ids are always checked at run time).
        max_norm: if given, rows with a larger L2 norm are rescaled to this norm.

    Returns:
        A tensor of shape ``ids.shape + params.shape[1:]``.

    Raises:
        ValueError: no params, or an unknown ``partition_strategy``.
    """
    del validate_indices
    if params is None or (isinstance(params, (list, tuple)) and not params):
        raise ValueError("Need at least one param")
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}")
    if not isinstance(params, (list, tuple)):
        params = [params]
    params = list(params)
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        params = [convert_to_tensor(p, name="params") for p in params]
        ids = convert_to_tensor(ids, name="ids")
        if len(params) == 1:
            result = _array_gather.gather(params[0], ids, name=scope)
        else:
            table, ids = _sharded_table(params, ids, partition_strategy)
            result = _array_gather.gather(table, ids, name=scope)
        result = _clip_by_norm_rows(result, ids, max_norm)
        return _core_ops.identity(result)


def _sharded_table(params, ids, strategy):
    """The full table (shards concatenated) and ``ids`` mapped to its rows."""
    sizes = [p.shape.raw[0] if p.shape.raw else None for p in params]
    if None in sizes:
        raise ValueError("embedding_lookup over several shards needs shards with a static "
                         "first dimension")
    table = _array_combine.concat(params, 0)
    if strategy == "div":
        return table, ids
    n = len(params)
    offsets = constant(np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(
        ids.dtype.np_dtype), name="shard_offsets")
    rows = _array_gather.gather(offsets, ids % n) + ids // n
    return table, rows
