"""Counter-based random numbers that numpy kernels and ONNX lowerings compute alike.

A random op draws from a stream of 64-bit words that is a pure function of a key
and a counter (all arithmetic modulo 2**64)::

    base(key, k)    = mix(key + mix((k + 1) * GAMMA))
    word(key, k, i) = mix(base(key, k) + (i + 1) * GAMMA)      i = 0, 1, ...

``mix`` is the SplitMix64 finalizer (xor-shift 30, multiply, xor-shift 27, multiply,
xor-shift 31; Steele, Lea and Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014, with Vigna's constants) and ``GAMMA`` the golden-ratio
increment, so the words of one (key, k) are SplitMix64's output seeded with
``base``. ``key`` comes from the op's TF1 seed pair (:func:`key_of`) or, for an
unseeded op, is drawn once per op per session (:func:`fresh_key`); ``k`` counts the
op's executions in its session (0 for the first), so consecutive runs continue the
stream. onnxruntime's CPU kernels of Add, Mul, BitShift and BitwiseXor on uint64
wrap modulo 2**64 as numpy's do, so ``onnx_words`` gives the same words bit for bit.

From words to values, one formula for both backends:

* uniform in [0, 1): ``(w >> 40) * 2**-24`` (float32; float16 ``(w >> 53) * 2**-11``),
  ``(w >> 11) * 2**-53`` (float64): exact, never 1;
* normal: Box-Muller on the pair ``(word j, word m + j)``, ``m = ceil(n / 2)``:
  ``r = sqrt(-2 log(1 - u1))``, ``t = 2 pi u2``, elements ``j`` and ``m + j`` are
  ``r cos t`` and ``r sin t`` (the last dropped for odd n), in float32 (float64 for
  float64 outputs; float16 is rounded from float32);
* truncated normal: the inverse CDF of ``x = (2u - 1) erf(sqrt 2)`` (the image of
  [-2, 2]) by M. Giles' central-branch approximation of ``erfinv`` ("Approximating the
  erfinv function", GPU Computing Gems, 2010), clipped to [-2, 2];
* integers in ``[lo, hi)``: ``lo + w mod (hi - lo)`` (wrapping; bias below
  ``(hi - lo) / 2**64``);
* a permutation of n < 2**31 rows: the ascending order of the unique keys
  ``(w >> 32) * 2**31 + i``.

Floats agree between backends up to the rounding of ``log``/``sin``/``cos`` (a few
units in the last place); words, integers and permutations agree exactly.
"""

from __future__ import annotations

import json
import math
import secrets

import numpy as np

__all__ = ["key_of", "fresh_key", "as_int64", "stream_base", "words", "uniform", "normal",
           "truncated_normal", "uniform_int", "permutation", "onnx_words", "onnx_uniform",
           "onnx_normal", "onnx_truncated_normal", "onnx_uniform_int", "onnx_permutation",
           "STREAMS_METADATA_KEY", "streams_metadata", "stream_inputs"]

_M64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_MIX = ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB))
_LAST_SHIFT = 31
_U64 = np.uint64

# Model metadata naming each random op's key and counter values (JSON, written by
# the ONNX exporter; the onnxruntime backend feeds the inputs it names).
STREAMS_METADATA_KEY = "staticgraph.random_streams"

# Giles' central-branch coefficients of erfinv(x) = x * p(w - 2.5), w = -log(1 - x^2),
# highest degree first, times sqrt(2) so that p gives the normal quantile.
_GILES = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
          0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_QUANTILE = tuple(c * math.sqrt(2.0) for c in _GILES)
_ERF_SQRT2 = math.erf(math.sqrt(2.0))  # P(|Z| <= 2)

# (right shift, scale) turning a word into a uniform of each float dtype.
_UNIFORM_BITS = {np.dtype(np.float16): (53, 2.0 ** -11), np.dtype(np.float32): (40, 2.0 ** -24),
                 np.dtype(np.float64): (11, 2.0 ** -53)}


# ------------------------------------------------------------------ keys and words
def _mix_int(z: int) -> int:
    for shift, mult in _MIX:
        z = ((z ^ (z >> shift)) * mult) & _M64
    return z ^ (z >> _LAST_SHIFT)


def key_of(seed, seed2):
    """The 64-bit key of TF1's ``(seed, seed2)`` pair; None for an unseeded op."""
    if seed is None and seed2 is None:
        return None
    packed = ((int(seed or 0) & 0xFFFFFFFF) << 32) | (int(seed2 or 0) & 0xFFFFFFFF)
    return _mix_int(packed ^ 0x5EED5EED5EED5EED)


def fresh_key() -> int:
    """A random 64-bit key (an unseeded op's, drawn once per op per session)."""
    return secrets.randbits(64)


def as_int64(key: int) -> int:
    """A 64-bit key as the int64 with the same bits (how ONNX models carry it)."""
    key &= _M64
    return key - (1 << 64) if key >> 63 else key


def stream_base(key: int, counter: int) -> int:
    """``base(key, counter)``: the SplitMix64 state the words of one execution start from."""
    return _mix_int((key + _mix_int(((counter + 1) * _GAMMA) & _M64)) & _M64)


def words(key: int, counter: int, n: int) -> np.ndarray:
    """The first ``n`` words (uint64) of the stream of ``key`` at execution ``counter``."""
    z = np.arange(1, n + 1, dtype=_U64)
    z *= _U64(_GAMMA)
    z += _U64(stream_base(key, counter))
    t = np.empty_like(z)
    for shift, mult in _MIX:
        np.right_shift(z, _U64(shift), out=t)
        z ^= t
        z *= _U64(mult)
    np.right_shift(z, _U64(_LAST_SHIFT), out=t)
    z ^= t
    return z


# ------------------------------------------------------------------ values (numpy)
def uniform(w: np.ndarray, dtype) -> np.ndarray:
    """Uniforms in [0, 1) of a float ``dtype``, one per word (exact in that dtype)."""
    dtype = np.dtype(dtype)
    shift, scale = _UNIFORM_BITS[dtype]
    work = np.float64 if dtype == np.float64 else np.float32
    u = (w >> _U64(shift)).astype(work)
    u *= work(scale)
    return u.astype(dtype, copy=False)


def _work(dtype):
    return np.float64 if np.dtype(dtype) == np.float64 else np.float32


def normal(key: int, counter: int, n: int, dtype) -> np.ndarray:
    """``n`` standard normal samples of a float ``dtype`` (Box-Muller, see the module)."""
    work = _work(dtype)
    m = (n + 1) // 2
    u = uniform(words(key, counter, 2 * m), work)
    u1, theta = u[:m], u[m:]
    np.subtract(work(1.0), u1, out=u1)
    theta *= work(2 * math.pi)
    r = np.log(u1)
    r *= work(-2.0)
    np.sqrt(r, out=r)
    out = np.empty(2 * m, work)
    np.multiply(r, np.cos(theta), out=out[:m])
    np.multiply(r, np.sin(theta), out=out[m:])
    return out[:n].astype(dtype, copy=False)


def truncated_normal(key: int, counter: int, n: int, dtype) -> np.ndarray:
    """``n`` standard normal samples restricted to [-2, 2] (inverse CDF, see the module)."""
    work = _work(dtype)
    x = uniform(words(key, counter, n), work)
    x *= work(2.0)
    x -= work(1.0)
    x *= work(_ERF_SQRT2)
    w = work(1.0) - x * x
    w = work(-2.5) - np.log(w)
    p = np.full_like(w, work(_QUANTILE[0]))
    for c in _QUANTILE[1:]:
        p *= w
        p += work(c)
    p *= x
    np.clip(p, work(-2.0), work(2.0), out=p)
    return p.astype(dtype, copy=False)


def uniform_int(key: int, counter: int, n: int, lo: int, hi: int, dtype) -> np.ndarray:
    """``n`` integers uniform in ``[lo, hi)`` (``lo < hi``) of an integer ``dtype``."""
    k = words(key, counter, n)
    k %= _U64((int(hi) - int(lo)) & _M64)
    k += _U64(int(lo) & _M64)
    return k.view(np.int64).astype(dtype, copy=False)


def permutation(key: int, counter: int, n: int) -> np.ndarray:
    """A random permutation of ``range(n)`` (int64), ``n < 2**31``."""
    keys = words(key, counter, n)
    keys >>= _U64(32)
    keys <<= _U64(31)
    keys |= np.arange(n, dtype=_U64)
    return np.argsort(keys.view(np.int64))


# ------------------------------------------------------------------ values (ONNX)
def _onnx_mix(ctx, z):
    u64 = np.uint64
    for shift, mult in _MIX:
        t = ctx.node("BitShift", [z, ctx.scalar(shift, u64)], direction="RIGHT")
        z = ctx.node("Mul", [ctx.node("BitwiseXor", [z, t]), ctx.scalar(mult, u64)])
    t = ctx.node("BitShift", [z, ctx.scalar(_LAST_SHIFT, u64)], direction="RIGHT")
    return ctx.node("BitwiseXor", [z, t])


def _onnx_range(ctx, start, count):
    """``start, start + 1, ...`` (``count`` values, an int or an int64 scalar name) as uint64."""
    if isinstance(count, (int, np.integer)):
        limit = ctx.scalar(start + int(count), np.int64)
    else:
        limit = ctx.node("Add", [count, ctx.scalar(start, np.int64)]) if start else count
    index = ctx.node("Range", [ctx.scalar(start, np.int64), limit, ctx.scalar(1, np.int64)])
    return ctx.cast(index, np.uint64, np.int64)


def onnx_words(ctx, key, counter, count):
    """ONNX nodes computing :func:`words`: ``key`` and ``counter`` are int64 scalar value
    names, ``count`` an int or an int64 scalar name; returns a 1-D uint64 value name."""
    u64 = np.uint64
    k = ctx.cast(counter, u64, np.int64)
    k = ctx.node("Mul", [ctx.node("Add", [k, ctx.scalar(1, u64)]), ctx.scalar(_GAMMA, u64)])
    base = _onnx_mix(ctx, ctx.node("Add", [ctx.cast(key, u64, np.int64), _onnx_mix(ctx, k)]))
    index = _onnx_range(ctx, 1, count)
    z = ctx.node("Add", [ctx.node("Mul", [index, ctx.scalar(_GAMMA, u64)]), base])
    return _onnx_mix(ctx, z)


def onnx_uniform(ctx, w, dtype):
    """ONNX nodes computing :func:`uniform` of the uint64 words ``w``."""
    dtype = np.dtype(dtype)
    shift, scale = _UNIFORM_BITS[dtype]
    work = np.float64 if dtype == np.float64 else np.float32
    bits = ctx.node("BitShift", [w, ctx.scalar(shift, np.uint64)], direction="RIGHT")
    u = ctx.node("Mul", [ctx.cast(bits, work, np.uint64), ctx.scalar(scale, work)])
    return ctx.cast(u, dtype, work)


def onnx_normal(ctx, key, counter, count, dtype):
    """ONNX nodes computing :func:`normal` (1-D, ``count`` elements)."""
    work = _work(dtype)
    if isinstance(count, (int, np.integer)):
        m = (int(count) + 1) // 2
        half, end, words_n = ctx.int64s([m]), ctx.int64s([count]), 2 * m
    else:
        m = ctx.node("Div", [ctx.node("Add", [count, ctx.scalar(1, np.int64)]),
                             ctx.scalar(2, np.int64)])
        half = ctx.node("Reshape", [m, ctx.int64s([1])])
        end = ctx.node("Reshape", [count, ctx.int64s([1])])
        words_n = ctx.node("Mul", [m, ctx.scalar(2, np.int64)])
    u = onnx_uniform(ctx, onnx_words(ctx, key, counter, words_n), work)
    first = ctx.node("Slice", [u, ctx.int64s([0]), half])
    theta = ctx.node("Slice", [u, half, ctx.int64s([np.iinfo(np.int64).max])])
    u1 = ctx.node("Sub", [ctx.scalar(1.0, work), first])
    theta = ctx.node("Mul", [theta, ctx.scalar(2 * math.pi, work)])
    r = ctx.node("Sqrt", [ctx.node("Mul", [ctx.node("Log", [u1]), ctx.scalar(-2.0, work)])])
    z = ctx.node("Concat", [ctx.node("Mul", [r, ctx.node("Cos", [theta])]),
                            ctx.node("Mul", [r, ctx.node("Sin", [theta])])], axis=0)
    z = ctx.node("Slice", [z, ctx.int64s([0]), end])
    return ctx.cast(z, dtype, work)


def onnx_truncated_normal(ctx, key, counter, count, dtype):
    """ONNX nodes computing :func:`truncated_normal` (1-D, ``count`` elements)."""
    work = _work(dtype)
    x = onnx_uniform(ctx, onnx_words(ctx, key, counter, count), work)
    x = ctx.node("Sub", [ctx.node("Mul", [x, ctx.scalar(2.0, work)]), ctx.scalar(1.0, work)])
    x = ctx.node("Mul", [x, ctx.scalar(_ERF_SQRT2, work)])
    w = ctx.node("Sub", [ctx.scalar(1.0, work), ctx.node("Mul", [x, x])])
    w = ctx.node("Sub", [ctx.scalar(-2.5, work), ctx.node("Log", [w])])
    p = ctx.scalar(_QUANTILE[0], work)
    for c in _QUANTILE[1:]:
        p = ctx.node("Add", [ctx.node("Mul", [p, w]), ctx.scalar(c, work)])
    z = ctx.node("Clip", [ctx.node("Mul", [p, x]), ctx.scalar(-2.0, work),
                          ctx.scalar(2.0, work)])
    return ctx.cast(z, dtype, work)


def onnx_uniform_int(ctx, key, counter, count, lo, hi, dtype):
    """ONNX nodes computing :func:`uniform_int`; ``lo``/``hi`` are ints (known while
    declaring) or scalar value names of the integer ``dtype`` (``hi <= lo`` gives
    values, where the kernel raises: ONNX cannot)."""
    u64 = np.uint64
    if isinstance(lo, str) or isinstance(hi, str):
        lo_u = ctx.cast(lo, u64, dtype)
        span = ctx.node("Sub", [ctx.cast(hi, u64, dtype), lo_u])
        span = ctx.node("Max", [span, ctx.scalar(1, u64)])  # no division by zero
    else:  # constants (ONNX data propagation refuses a wrapping Sub of constants)
        lo_u = ctx.scalar(int(lo) & _M64, u64)
        span = ctx.scalar(max((int(hi) - int(lo)) & _M64, 1), u64)
    k = ctx.node("Mod", [onnx_words(ctx, key, counter, count), span], fmod=0)
    out = ctx.cast(ctx.node("Add", [k, lo_u]), np.int64, u64)
    return ctx.cast(out, dtype, np.int64)


def onnx_permutation(ctx, key, counter, count):
    """ONNX nodes computing :func:`permutation` (int64 indices); ``count`` an int or an
    int64 scalar name."""
    u64 = np.uint64
    w = onnx_words(ctx, key, counter, count)
    keys = ctx.node("BitShift", [ctx.node("BitShift", [w, ctx.scalar(32, u64)],
                                          direction="RIGHT"),
                                 ctx.scalar(31, u64)], direction="LEFT")
    keys = ctx.cast(ctx.node("BitwiseOr", [keys, _onnx_range(ctx, 0, count)]), np.int64, u64)
    k = ctx.int64s([int(count)]) if isinstance(count, (int, np.integer)) else \
        ctx.node("Reshape", [count, ctx.int64s([1])])
    _, order = ctx.node("TopK", [keys, k], outputs=2, largest=0, sorted=1)
    return order


# ------------------------------------------------------------------ model metadata
def streams_metadata(streams) -> str:
    """The JSON of :data:`STREAMS_METADATA_KEY`: ``streams`` are ``(op, key name, counter
    name)``; each op name maps to its seeds and the names of its key and counter."""
    return json.dumps({op.name: {"seed": op.attrs.get("seed"), "seed2": op.attrs.get("seed2"),
                                 "key": key, "counter": counter}
                       for op, key, counter in streams})


def stream_inputs(model):
    """``[(op name, (seed, seed2), key input, counter input)]`` of an ONNX model whose
    random ops' keys and counters are graph inputs to feed (read from its metadata)."""
    props = {p.key: p.value for p in model.metadata_props}
    if STREAMS_METADATA_KEY not in props:
        return []
    inputs = {i.name for i in model.graph.input}
    streams = json.loads(props[STREAMS_METADATA_KEY])
    return [(name, (s["seed"], s["seed2"]), s["key"], s["counter"])
            for name, s in streams.items() if s["key"] in inputs and s["counter"] in inputs]
