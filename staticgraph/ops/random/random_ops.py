"""Random ops seeded like TF1: normal, uniform, truncated normal, shuffle, multinomial.

Every random op is stateful: each execution draws from a counter-based stream
(:mod:`.random_bits`) whose key comes from the op's ``(seed, seed2)`` and whose
counter is the op's execution count in its session (``Runtime.next_random``). The
numpy kernels and the ONNX lowerings compute the same function of (key, counter), so
both backends draw the same numbers. The public functions compute the ``(seed,
seed2)`` pair with TF1's rule (:func:`get_seed`): with a graph seed
(``tf.set_random_seed``) or an op seed two sessions of one graph draw the same
sequence; without either every session draws fresh values. Consecutive runs in one
session continue the stream, so they differ.

TF1's aliases ``tf.random.normal``/``uniform``/``truncated_normal``/``shuffle`` are
these functions; :func:`categorical` (``tf.random.categorical``) is multinomial with
TF2's argument order.
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidArgumentError
from ...graphlib import Tensor, TensorShape, as_dtype, dtypes, get_seed, name_scope
from ..array.shape_args import shape_tensor
from ..math import binary as _math_binary
from . import random_bits, random_onnx
from ..convert import convert_to_tensor
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import ALL, FLOATS, INDEX, NUMERIC, require_dtype, require_index_vector, same_as
from ..static_value import constant_value, constant_value_as_shape

__all__ = ["random_normal", "random_uniform", "truncated_normal", "random_shuffle",
           "multinomial"]

_INT_DTYPES = INDEX   # the integer dtypes of random_uniform and multinomial


# ---------------------------------------------------------------- helpers
def _static_shape(shape: Tensor) -> TensorShape:
    """The output shape described by the 1-D int tensor ``shape`` (checked)."""
    require_index_vector(shape, "shape")
    value = constant_value(shape)
    if value is not None and np.any(np.asarray(value) < 0):
        raise ValueError(f"Dimensions must be non-negative, got shape "
                         f"{np.asarray(value).tolist()}")
    return constant_value_as_shape(shape)


def _run_dims(shape, op) -> tuple:
    """The shape value fed to a kernel as a tuple of ints (InvalidArgumentError if bad)."""
    shape = np.asarray(shape)
    if shape.ndim != 1:
        raise InvalidArgumentError(None, op, f"shape must be a vector of {{int32,int64}}, "
                                             f"got shape {list(shape.shape)}")
    if np.any(shape < 0):
        raise InvalidArgumentError(None, op, f"Dimensions must be non-negative, got "
                                             f"{shape.tolist()}")
    return tuple(int(d) for d in shape)


def _seed_attrs(seed) -> dict:
    graph_seed, op_seed = get_seed(seed)
    return {"seed": graph_seed, "seed2": op_seed}


def _draw(op, runtime):
    """``draw()`` -> ``(key, counter)`` of one execution of the random op ``op``."""
    name, seed_pair = op.name, (op.attrs["seed"], op.attrs["seed2"])
    return lambda: runtime.next_random(name, seed_pair)


def _size(dims) -> int:
    return int(np.prod(dims, dtype=np.int64))


# ---------------------------------------------------------------- op types
class _ShapeSampler(OpDef):
    """Base of ops drawing a float tensor of a given shape from a fixed distribution."""

    attrs = {"dtype": dtypes.float32, "seed": None, "seed2": None}
    stateful = True
    differentiable = False

    def infer(self, shape, *, dtype, seed, seed2):
        if dtype not in FLOATS:
            raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not "
                            f"in list of allowed values: float16, float32, float64")
        return Spec(dtype, _static_shape(shape))

    @staticmethod
    def sample(key, counter, n, np_dtype):
        """``n`` samples (1-D) of execution ``counter`` of the stream ``key``."""
        raise NotImplementedError

    def make_kernel(self, op, runtime):
        draw = _draw(op, runtime)
        np_dtype = op.attrs["dtype"].np_dtype
        sample = self.sample

        def kernel(shape):
            dims = _run_dims(shape, op)
            key, counter = draw()
            return sample(key, counter, _size(dims), np_dtype).reshape(dims)
        return kernel


@register
class RandomStandardNormal(_ShapeSampler):
    """Samples of N(0, 1) of shape ``shape`` (attributes ``dtype``, ``seed``, ``seed2``)."""

    sample = staticmethod(random_bits.normal)

    def onnx(self, ctx, op, shape):
        return random_onnx.standard_normal(ctx, op, shape)


@register
class RandomUniform(_ShapeSampler):
    """Samples of U[0, 1) of shape ``shape`` (attributes ``dtype``, ``seed``, ``seed2``)."""

    @staticmethod
    def sample(key, counter, n, np_dtype):
        return random_bits.uniform(random_bits.words(key, counter, n), np_dtype)

    def onnx(self, ctx, op, shape):
        return random_onnx.uniform(ctx, op, shape)


@register
class TruncatedNormal(_ShapeSampler):
    """N(0, 1) samples restricted to [-2, 2] (TF1 draws values beyond 2 standard
    deviations again; the same distribution is sampled here by its inverse CDF)."""

    sample = staticmethod(random_bits.truncated_normal)

    def onnx(self, ctx, op, shape):
        return random_onnx.truncated_normal(ctx, op, shape)


@register
class RandomUniformInt(OpDef):
    """Integers uniform in ``[minval, maxval)`` of shape ``shape`` (dtype of ``minval``)."""

    attrs = {"seed": None, "seed2": None}
    stateful = True
    differentiable = False

    def infer(self, shape, minval, maxval, *, seed, seed2):
        require_dtype(minval, _INT_DTYPES, arg="minval")
        if maxval.dtype is not minval.dtype:
            raise TypeError(f"Input 'maxval' has type {maxval.dtype.name} that does not match "
                            f"type {minval.dtype.name} of argument 'minval'")
        for arg, t in (("minval", minval), ("maxval", maxval)):
            if t.shape.rank not in (None, 0):
                raise ValueError(f"{arg} must be 0-D, got shape {t.shape}")
        return Spec(minval.dtype, _static_shape(shape))

    def make_kernel(self, op, runtime):
        draw = _draw(op, runtime)

        def kernel(shape, minval, maxval):
            dims = _run_dims(shape, op)
            key, counter = draw()
            lo, hi = np.asarray(minval), np.asarray(maxval)
            if lo.ndim or hi.ndim:
                raise InvalidArgumentError(None, op, f"minval and maxval must be 0-D, got "
                                                     f"shapes {list(lo.shape)} and "
                                                     f"{list(hi.shape)}")
            n = _size(dims)
            if int(lo) >= int(hi) and n > 0:
                raise InvalidArgumentError(None, op, f"Need minval < maxval: {int(lo)} >= "
                                                     f"{int(hi)}")
            if n == 0:
                return np.zeros(dims, lo.dtype)
            return random_bits.uniform_int(key, counter, n, int(lo), int(hi),
                                           lo.dtype).reshape(dims)
        return kernel

    def onnx(self, ctx, op, shape, minval, maxval):
        return random_onnx.random_uniform_int(ctx, op, shape, minval, maxval)


@register
class RandomShuffle(OpDef):
    """``value`` with its first dimension randomly permuted."""

    attrs = {"seed": None, "seed2": None}
    stateful = True
    differentiable = False

    def infer(self, value, *, seed, seed2):
        require_dtype(value, ALL, arg="value")
        return same_as(value)

    def make_kernel(self, op, runtime):
        if random_onnx.shuffle_is_identity(op):  # no draw, as the lowering
            return lambda value: value.copy()
        draw = _draw(op, runtime)

        def kernel(value):
            key, counter = draw()
            if value.ndim == 0 or value.shape[0] <= 1:
                return value.copy()
            return value[random_bits.permutation(key, counter, value.shape[0])]
        return kernel

    def onnx(self, ctx, op, value):
        return random_onnx.random_shuffle(ctx, op, value)


@register
class Multinomial(OpDef):
    """``num_samples`` class indices per row of ``logits`` [batch, classes], drawn from
    ``softmax(logits)``; non-finite logits have probability zero (TF1's CPU kernel)."""

    attrs = {"seed": None, "seed2": None, "output_dtype": dtypes.int64}
    stateful = True
    differentiable = False

    def infer(self, logits, num_samples, *, seed, seed2, output_dtype):
        require_dtype(logits, NUMERIC, arg="logits")
        require_dtype(num_samples, (dtypes.int32,), arg="num_samples")
        if output_dtype not in _INT_DTYPES:
            raise TypeError(f"Value passed to parameter 'output_dtype' has DataType "
                            f"{output_dtype.name} not in list of allowed values: int32, int64")
        if logits.shape.rank not in (None, 2):
            raise ValueError(f"logits should be a matrix [batch_size, num_classes], got "
                             f"shape {logits.shape}")
        if num_samples.shape.rank not in (None, 0):
            raise ValueError(f"num_samples should be a scalar, got shape {num_samples.shape}")
        n = constant_value(num_samples)
        if n is not None and int(n) < 0:
            raise ValueError(f"num_samples should be nonnegative, got {int(n)}")
        batch = logits.shape.raw[0] if logits.shape.rank == 2 else None
        return Spec(output_dtype, [batch, None if n is None else int(n)])

    def make_kernel(self, op, runtime):
        draw = _draw(op, runtime)
        out_dtype = op.attrs["output_dtype"].np_dtype

        def kernel(logits, num_samples):
            key, counter = draw()
            n = int(num_samples)
            if logits.ndim != 2:
                raise InvalidArgumentError(None, op, f"logits should be a matrix, got shape "
                                                     f"{list(logits.shape)}")
            if n < 0:
                raise InvalidArgumentError(None, op, f"num_samples should be nonnegative, "
                                                     f"got {n}")
            batch, classes = logits.shape
            if classes == 0:
                raise InvalidArgumentError(None, op, "num_classes should be positive, got 0")
            if batch == 0 or n == 0:
                return np.zeros((batch, n), out_dtype)
            u = random_bits.uniform(random_bits.words(key, counter, batch * n), np.float64)
            return _sample_categorical(logits, u.reshape(batch, n)).astype(out_dtype,
                                                                            copy=False)
        return kernel

    def onnx(self, ctx, op, logits, num_samples):
        return random_onnx.multinomial(ctx, op, logits, num_samples)


def _sample_categorical(logits, u):
    """Per row: the number of normalised CDF entries (float64) <= each uniform of ``u``
    [batch, n], clamped to the row's last class of positive probability; rows without
    any give ``classes`` (out of range), as TF1's kernel does. The ONNX lowering
    computes the same CDF the same way (:func:`.random_onnx.multinomial`)."""
    batch, classes = logits.shape
    values = logits.astype(np.float64)
    finite = np.isfinite(values)
    with np.errstate(invalid="ignore", over="ignore"):
        top = np.max(np.where(finite, values, -np.inf), axis=1, keepdims=True)
        top[~np.isfinite(top)] = 0.0
        weights = np.where(finite, np.exp(values - top), 0.0)
    cdf = np.cumsum(weights, axis=1)
    total = cdf[:, -1:]
    has_mass = total[:, 0] > 0
    cdf /= np.where(has_mass[:, None], total, 1.0)
    idx = np.empty(u.shape, np.int64)
    for row in range(batch):
        idx[row] = np.searchsorted(cdf[row], u[row], side="right")
    last = np.where(has_mass, classes - 1 - np.argmax(weights[:, ::-1] > 0, axis=1), classes)
    return np.minimum(idx, last[:, None])


# ---------------------------------------------------------------- public functions
def _scaled_normal(op_type, shape, mean, stddev, dtype, seed, name, default_name):
    """``op_type``'s standard normal samples of ``shape`` times ``stddev`` plus ``mean``."""
    dtype = as_dtype(dtype)
    with name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape_t = shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = apply_op(op_type, [shape_t], {"dtype": dtype, **_seed_attrs(seed)})
        return _math_binary.add(rnd * stddev_t, mean_t, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples of a normal distribution: ``RandomStandardNormal * stddev + mean``.

    Args:
        shape: output shape, a list of ints or a 1-D int32/int64 tensor.
        mean, stddev: scalars or tensors (broadcast) of ``dtype``.
        dtype: float16, float32 or float64.
        seed: op-level seed (combined with ``tf.set_random_seed`` as TF1 does).
        name: name scope (default ``"random_normal"``).

    Raises:
        TypeError: for a non-float ``dtype`` or a non-integer shape tensor.
        ValueError: for a shape argument that is not a vector.

    Example:
        >>> w = tf.random_normal([784, 10], stddev=0.01, seed=1)
    """
    return _scaled_normal("RandomStandardNormal", shape, mean, stddev, dtype, seed, name,
                          "random_normal")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples restricted to two standard deviations around ``mean``.

    The distribution of TF1's, which draws again values more than ``2 * stddev`` from
    ``mean`` (here sampled by the inverse CDF), so the result's standard deviation is
    about ``0.88 * stddev``.

    Args:
        shape: output shape, a list of ints or a 1-D int32/int64 tensor.
        mean, stddev: scalars or tensors (broadcast) of ``dtype``.
        dtype: float16, float32 or float64.
        seed: op-level seed.
        name: name scope (default ``"truncated_normal"``).

    Raises:
        TypeError: for a non-float ``dtype`` or a non-integer shape tensor.
        ValueError: for a shape argument that is not a vector.
    """
    return _scaled_normal("TruncatedNormal", shape, mean, stddev, dtype, seed, name,
                          "truncated_normal")


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples uniform in ``[minval, maxval)``.

    Floats: ``RandomUniform * (maxval - minval) + minval`` with ``maxval`` defaulting
    to 1. Integers (int32/int64): op ``RandomUniformInt``, ``maxval`` required.

    Args:
        shape: output shape, a list of ints or a 1-D int32/int64 tensor.
        minval, maxval: scalars or tensors of ``dtype`` (tensors broadcast for floats,
            0-D for integers).
        dtype: float16, float32, float64, int32 or int64.
        seed: op-level seed.
        name: name scope (default ``"random_uniform"``).

    Raises:
        ValueError: for another ``dtype``, or an integer ``dtype`` without ``maxval``.
        InvalidArgumentError: when running with integer ``minval >= maxval``.

    Example:
        >>> labels = tf.random_uniform([32], maxval=10, dtype=tf.int64)
    """
    dtype = as_dtype(dtype)
    if dtype not in FLOATS + _INT_DTYPES:
        raise ValueError(f"Invalid dtype {dtype!r}")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_t = shape_tensor(shape)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        seeds = _seed_attrs(seed)
        if dtype.is_integer:
            return apply_op("RandomUniformInt", [shape_t, lo, hi], seeds, name=scope)
        rnd = apply_op("RandomUniform", [shape_t], {"dtype": dtype, **seeds})
        return _math_binary.add(rnd * (hi - lo), lo, name=scope)


def random_shuffle(value, seed=None, name=None):
    """``value`` randomly permuted along its first dimension.

    Args:
        value: a tensor of any dtype (scalars are returned as they are).
        seed: op-level seed.
        name: op name (default ``"RandomShuffle"``).

    Example:
        >>> rows = tf.random_shuffle([[1, 2], [3, 4], [5, 6]])   # rows kept intact
    """
    seeds = _seed_attrs(seed)
    return apply_op("RandomShuffle", [convert_to_tensor(value)], seeds, name=name)


def _multinomial(logits, num_samples, output_dtype, seed):
    logits = convert_to_tensor(logits, name="logits")
    seeds = _seed_attrs(seed)
    if not isinstance(num_samples, Tensor):
        num_samples = convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
    out = dtypes.int64 if output_dtype is None else as_dtype(output_dtype)
    return apply_op("Multinomial", [logits, num_samples], {"output_dtype": out, **seeds})


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """Class indices drawn from the categorical distributions ``softmax(logits)``.

    Args:
        logits: [batch_size, num_classes] unnormalised log-probabilities; non-finite
            entries have probability zero.
        num_samples: number of draws per row (int or 0-D int32 tensor).
        seed: op-level seed.
        name: name scope (default ``"multinomial"``).
        output_dtype: int32 or int64 (default).

    Returns:
        A [batch_size, num_samples] tensor of class indices.

    Raises:
        ValueError: if ``logits`` is not a matrix.

    Example:
        >>> actions = tf.multinomial(tf.log([[0.5, 0.5]]), 10)
    """
    with name_scope(name, "multinomial", [logits]):
        return _multinomial(logits, num_samples, output_dtype, seed)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``tf.random.categorical``: :func:`multinomial` with ``dtype`` as the output dtype."""
    with name_scope(name, "categorical", [logits]):
        return _multinomial(logits, num_samples, dtype, seed)
