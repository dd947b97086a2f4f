"""Initializers (TF1's ``init_ops``): objects that build a variable's initial value.

Each initializer is called as ``init(shape, dtype=None, partition_info=None)`` and
returns a Tensor built from ordinary ops (``Fill``/``Const`` for constants, the random
ops for random ones), so a Session draws a new value each time the variable's
initializer runs. ``tf.get_variable`` calls them under ``<var>/Initializer/``.
"""

from __future__ import annotations

import math

import numpy as np

from ..graphlib import TensorShape, dtypes
from ..graphlib.dtypes import as_dtype
from ..ops.array import fill as _array_fill
from ..ops import convert as _convert
from ..ops.random import random_ops as _random_ops

__all__ = [
    "zeros_initializer", "ones_initializer", "constant_initializer",
    "random_normal_initializer", "truncated_normal_initializer", "random_uniform_initializer",
    "uniform_unit_scaling_initializer", "variance_scaling_initializer",
    "glorot_uniform_initializer", "glorot_normal_initializer",
]

# The standard deviation of a unit normal truncated to [-2, 2] (TF1's constant).
_TRUNCATED_STDDEV = .87962566103423978


def _assert_float_dtype(dtype):
    dtype = as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _shape_list(shape):
    if isinstance(shape, TensorShape):
        return shape.as_list()
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [int(d) for d in shape]


def _compute_fans(shape):
    """TF1's ``(fan_in, fan_out)`` of a weight shape.

    Rank 0: (1, 1); rank 1: (n, n); rank 2: (rows, cols); conv kernels
    ``[..spatial.., in, out]``: receptive field size times the channel counts.
    """
    shape = list(shape)
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive_field = 1
        for dim in shape[:-2]:
            receptive_field *= dim
        fan_in = shape[-2] * receptive_field
        fan_out = shape[-1] * receptive_field
    return int(fan_in), int(fan_out)


class Initializer:
    """Base class: ``init(shape, dtype=None, partition_info=None)`` returns a Tensor."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        """The constructor's arguments as a dict (``from_config`` rebuilds the object)."""
        return {}

    @classmethod
    def from_config(cls, config):
        """An initializer built from :meth:`get_config`'s dict."""
        config = dict(config)
        config.pop("partition_info", None)
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class zeros_initializer(Initializer):  # noqa: N801 - TF1's name
    """Tensors of zeros.

    Example:
        >>> b = tf.get_variable("b", [10], initializer=tf.zeros_initializer())
    """

    def __init__(self, dtype=dtypes.float32):
        self.dtype = as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = as_dtype(dtype) if dtype is not None else self.dtype
        return _array_fill.zeros(_shape_list(shape), dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class ones_initializer(Initializer):  # noqa: N801 - TF1's name
    """Tensors of ones."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = as_dtype(dtype) if dtype is not None else self.dtype
        return _array_fill.ones(_shape_list(shape), dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class constant_initializer(Initializer):  # noqa: N801 - TF1's name
    """Tensors holding ``value``: a scalar fills the shape; a list fills it in order.

    As in TF1, a list shorter than the shape is padded with its last element, and
    ``verify_shape=True`` requires the value's shape to equal the requested one.

    Args:
        value: Python scalar, list or tuple of values, or numpy array.
        dtype: default element type.
        verify_shape: refuse a value whose shape differs from the variable's.

    Raises:
        TypeError: for another kind of ``value`` (e.g. a Tensor).
    """

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value)} (expected Python "
                            "scalar, list or tuple of values, or numpy.ndarray).")
        self.value = value
        self.dtype = as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        dtype = as_dtype(dtype) if dtype is not None else self.dtype
        if verify_shape is None:
            verify_shape = self._verify_shape
        return _convert.constant(self.value, dtype=dtype, shape=_shape_list(shape),
                                 verify_shape=verify_shape)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name,
                "verify_shape": self._verify_shape}


class random_uniform_initializer(Initializer):  # noqa: N801 - TF1's name
    """Samples uniform in ``[minval, maxval)`` (``maxval`` defaults to 1 for floats).

    Args:
        minval, maxval: the range (scalars or tensors).
        seed: op-level seed.
        dtype: default element type (integers need ``maxval``).
    """

    def __init__(self, minval=0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = as_dtype(dtype) if dtype is not None else self.dtype
        return _random_ops.random_uniform(_shape_list(shape), self.minval, self.maxval,
                                          dtype, seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class _NormalSamples(Initializer):
    """Samples of ``sampler(shape, mean, stddev, dtype, seed)`` (a float ``dtype``)."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    @staticmethod
    def sampler(shape, mean, stddev, dtype, seed):
        raise NotImplementedError

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = as_dtype(dtype) if dtype is not None else self.dtype
        return self.sampler(_shape_list(shape), self.mean, self.stddev, dtype, seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class random_normal_initializer(_NormalSamples):  # noqa: N801 - TF1's name
    """Samples of a normal distribution ``N(mean, stddev**2)``.

    Raises:
        ValueError: for a non-float ``dtype``.
    """

    @staticmethod
    def sampler(shape, mean, stddev, dtype, seed):
        return _random_ops.random_normal(shape, mean, stddev, dtype, seed=seed)


class truncated_normal_initializer(_NormalSamples):  # noqa: N801 - TF1's name
    """Normal samples redrawn when more than two ``stddev`` away from ``mean``.

    Raises:
        ValueError: for a non-float ``dtype``.
    """

    @staticmethod
    def sampler(shape, mean, stddev, dtype, seed):
        return _random_ops.truncated_normal(shape, mean, stddev, dtype, seed=seed)


class uniform_unit_scaling_initializer(Initializer):  # noqa: N801 - TF1's name
    """TF1's deprecated ``U(-sqrt(3/fan_in) * factor, sqrt(3/fan_in) * factor)``.

    ``fan_in`` is the product of all dimensions but the last.
    """

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = as_dtype(dtype) if dtype is not None else self.dtype
        shape = _shape_list(shape)
        scale_shape = shape if partition_info is None else _shape_list(partition_info.full_shape)
        input_size = 1.0
        for dim in scale_shape[:-1]:
            input_size *= float(dim)
        input_size = max(input_size, 1.0)
        limit = math.sqrt(3 / input_size) * self.factor
        return _random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class variance_scaling_initializer(Initializer):  # noqa: N801 - TF1's name
    """Samples whose variance is ``scale / n``, ``n`` chosen by ``mode``.

    ``n`` is ``fan_in``, ``fan_out`` or their mean (``"fan_avg"``); conv kernels
    ``[h, w, in, out]`` count ``h * w * in`` inputs and ``h * w * out`` outputs.
    ``"truncated_normal"`` (and its alias ``"normal"``) draws a normal truncated to
    two standard deviations with ``stddev = sqrt(scale / n) / .87962566103423978``;
    ``"untruncated_normal"`` a plain normal with ``stddev = sqrt(scale / n)``;
    ``"uniform"`` draws from ``[-limit, limit)`` with ``limit = sqrt(3 * scale / n)``.

    Raises:
        ValueError: for a non-positive ``scale``, an unknown ``mode`` or
            ``distribution``, or a non-float ``dtype``.

    Example:
        >>> he = tf.variance_scaling_initializer(scale=2.0)  # He et al.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def _stddev_or_limit(self, shape, partition_info):
        scale_shape = shape if partition_info is None else _shape_list(partition_info.full_shape)
        fan_in, fan_out = _compute_fans(scale_shape)
        scale = self.scale
        if self.mode == "fan_in":
            scale /= max(1., fan_in)
        elif self.mode == "fan_out":
            scale /= max(1., fan_out)
        else:
            scale /= max(1., (fan_in + fan_out) / 2.)
        return scale

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = as_dtype(dtype) if dtype is not None else self.dtype
        shape = _shape_list(shape)
        scale = self._stddev_or_limit(shape, partition_info)
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
            return _random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return _random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype,
                                             seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return _random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class glorot_uniform_initializer(variance_scaling_initializer):  # noqa: N801 - TF1's name
    """Glorot/Xavier uniform: ``U(-limit, limit)``, ``limit = sqrt(6 / (fan_in + fan_out))``.

    The default initializer of ``tf.get_variable`` for float variables.
    """

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed,
                         dtype=dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class glorot_normal_initializer(variance_scaling_initializer):  # noqa: N801 - TF1's name
    """Glorot/Xavier normal: truncated normal, ``stddev = sqrt(2 / (fan_in + fan_out)) / .8796``."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed,
                         dtype=dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}
