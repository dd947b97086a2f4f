"""Hypothesis strategies: random programs of registry ops, and how to build them.

A :class:`Program` is plain data (a list of steps, each naming an op family and
the earlier values it reads), drawn by :func:`programs` with every shape tracked
while drawing, so each program is valid by construction. :func:`build` declares
it in the current default graph through the public API (``tf.matmul``,
``tf.reduce_sum``, ...). Constants come from seeds, so building twice gives
identical graphs; the ``dup`` step re-declares an earlier step on the same inputs
(a duplicated subexpression for CSE). Steps deliberately include what the
optimizer rewrites: constants to fold, ``x*1``, ``x+0``, ``x-0``, ``x/1``,
``--x``, identity and no-op casts, reshape of reshape, transpose of transpose,
``x*c1*c2``, matmul + bias + activation, chains of elementwise ops.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import strategies as st

import staticgraph as tf

__all__ = ["Program", "Built", "programs", "build", "gradient_fetches", "feed_values",
           "feed_arrays", "snapshot", "assert_same_values", "assert_user_lines"]

MAX_RANK = 4
MAX_SIZE = 48
SCALARS = (0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 0.25, 3.0)


def _array(seed, shape, low=-1.5, high=1.5):
    return np.random.default_rng(seed).uniform(low, high, size=shape).astype(np.float32)


# ------------------------------------------------------------------- the menu
UNARY = {
    "tanh": tf.tanh,
    "sigmoid": tf.sigmoid,
    "relu": tf.nn.relu,
    "relu6": lambda x: tf.nn.relu6(x * 4.0),
    "softplus": tf.nn.softplus,
    "square": tf.square,
    "abs": tf.abs,
    "negative": tf.negative,
    "neg_neg": lambda x: -(-x),   # noqa: B002 (two Neg ops, on purpose)
    "sin": tf.sin,
    "exp_tanh": lambda x: tf.exp(tf.tanh(x)),
    "log1p_abs": lambda x: tf.log1p(tf.abs(x)),
    "sqrt1": lambda x: tf.sqrt(tf.square(x) + 1.0),
    "recip1": lambda x: tf.reciprocal(tf.square(x) + 1.0),
    "identity": tf.identity,
    "stop_gradient": tf.stop_gradient,
    "cast_noop": lambda x: tf.cast(x, tf.float32),
    "cast_roundtrip": lambda x: tf.cast(tf.cast(x, tf.float64), tf.float32),
    "to_float": tf.to_float,
}

BINARY = {
    "add": tf.add,
    "sub": tf.subtract,
    "mul": tf.multiply,
    "op_add": lambda x, y: x + y,
    "op_sub": lambda x, y: x - y,
    "op_mul": lambda x, y: x * y,
    "maximum": tf.maximum,
    "minimum": tf.minimum,
    "sqdiff": tf.squared_difference,
    "div_safe": lambda x, y: x / (tf.square(y) + 1.0),
}

SCALAR_OPS = ("mul", "add", "sub", "rsub", "div", "rmul", "radd")

ACTIVATIONS = {
    None: lambda x: x,
    "relu": tf.nn.relu,
    "relu6": tf.nn.relu6,
    "sigmoid": tf.sigmoid,
    "tanh": tf.tanh,
}

REDUCE = {"sum": tf.reduce_sum, "mean": tf.reduce_mean, "max": tf.reduce_max,
          "min": tf.reduce_min}


@dataclasses.dataclass
class Program:
    """A random program: ``steps[i]`` makes value ``i`` of shape ``shapes[i]``."""

    steps: list
    shapes: list
    fetch: list
    feed_seed: int

    def __repr__(self):
        lines = [f"  v{i} = {s!r}  # {sh}" for i, (s, sh) in
                 enumerate(zip(self.steps, self.shapes))]
        return ("Program(\n" + "\n".join(lines) +
                f"\n  fetch={self.fetch}, feed_seed={self.feed_seed})")


@dataclasses.dataclass
class Built:
    """A program declared in a graph."""

    placeholders: list   # (index, tensor)
    leaves: list         # every leaf tensor (placeholders and constants)
    values: list         # one tensor per step
    fetches: list        # tensors to fetch


# --------------------------------------------------------------- shape helpers
def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _broadcast(a, b):
    try:
        out = np.broadcast_shapes(a, b)
    except ValueError:
        return None
    return out if len(out) <= MAX_RANK and _size(out) <= MAX_SIZE else None


def _factorizations(n, rank):
    """All shapes of ``rank`` dims (each >= 1) whose product is ``n``."""
    if rank == 0:
        return [()] if n == 1 else []
    out = []
    for d in range(1, n + 1):
        if n % d == 0:
            out.extend((d,) + rest for rest in _factorizations(n // d, rank - 1))
    return out


shapes_st = st.integers(0, 3).flatmap(
    lambda r: st.tuples(*[st.integers(1, 4)] * r)).filter(lambda s: _size(s) <= MAX_SIZE)


# ------------------------------------------------------------------ the steps
# Each generator draws one step reading earlier values, or returns None when it
# does not apply to what exists so far; it returns (step, shape).

def _pick(draw, shapes, ok=lambda s: True):
    candidates = [i for i, s in enumerate(shapes) if ok(s)]
    if not candidates:
        return None
    return draw(st.sampled_from(candidates))


def _gen_unary(draw, shapes):
    i = _pick(draw, shapes)
    return ("unary", draw(st.sampled_from(sorted(UNARY))), i), shapes[i]


def _gen_binary(draw, shapes):
    i = _pick(draw, shapes)
    partners = [j for j, s in enumerate(shapes) if _broadcast(shapes[i], s) is not None]
    j = draw(st.sampled_from(partners))
    fn = draw(st.sampled_from(sorted(BINARY)))
    if draw(st.booleans()):
        i, j = j, i
    return ("binary", fn, i, j), _broadcast(shapes[i], shapes[j])


def _gen_scalar(draw, shapes):
    i = _pick(draw, shapes)
    op = draw(st.sampled_from(SCALAR_OPS))
    c = draw(st.sampled_from(SCALARS if op != "div" else [c for c in SCALARS if c]))
    as_tensor = draw(st.booleans())  # a python float or a tf.constant
    return ("scalar", op, i, c, as_tensor), shapes[i]


def _gen_const_binary(draw, shapes):
    i = _pick(draw, shapes)
    s = shapes[i]
    k = draw(st.integers(0, len(s)))
    cshape = tuple(d if draw(st.booleans()) else 1 for d in s[len(s) - k:])
    fn = draw(st.sampled_from(["add", "mul", "sub", "maximum", "op_add", "op_mul"]))
    return ("const_binary", fn, i, cshape, draw(st.integers(0, 999))), s


def _gen_matmul(draw, shapes):
    i = _pick(draw, shapes, lambda s: len(s) == 2)
    if i is None:
        return None
    ta, tb = draw(st.booleans()), draw(st.booleans())
    inner = shapes[i][0] if ta else shapes[i][1]
    m = shapes[i][1] if ta else shapes[i][0]

    def fits(s):
        return len(s) == 2 and (s[1] if tb else s[0]) == inner
    j = _pick(draw, shapes, fits) if draw(st.booleans()) else None
    if j is None:
        n = draw(st.integers(1, 4))
        other = ("const", (n, inner) if tb else (inner, n), draw(st.integers(0, 999)))
    else:
        n = shapes[j][0] if tb else shapes[j][1]
        other = ("value", j)
    return ("matmul", i, other, ta, tb), (m, n)


def _gen_dense(draw, shapes):
    i = _pick(draw, shapes, lambda s: len(s) == 2)
    if i is None:
        return None
    units = draw(st.integers(1, 4))
    style = draw(st.sampled_from(["bias_add", "add", "add_rev", "none"]))
    act = draw(st.sampled_from([None, "relu", "relu6", "sigmoid", "tanh"]))
    return (("dense", i, units, style, act, draw(st.integers(0, 999))),
            (shapes[i][0], units))


def _gen_conv(draw, shapes):
    """conv2d (+ bias + activation) of a value reshaped to NHWC."""
    i = _pick(draw, shapes)
    n = _size(shapes[i])
    nhwc = draw(st.sampled_from(_factorizations(n, 4)))
    _, h, w, c = nhwc
    kh, kw = draw(st.integers(1, min(h, 3))), draw(st.integers(1, min(w, 3)))
    stride = draw(st.sampled_from([1, 2]))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    out_c = draw(st.integers(1, 3))
    if padding == "SAME":
        oh, ow = -(-h // stride), -(-w // stride)
    else:
        oh, ow = -(-(h - kh + 1) // stride), -(-(w - kw + 1) // stride)
    style = draw(st.sampled_from(["bias_add", "add", "none"]))
    act = draw(st.sampled_from([None, "relu", "relu6", "sigmoid", "tanh"]))
    return (("conv", i, nhwc, (kh, kw, c, out_c), stride, padding, style, act,
             draw(st.integers(0, 999))), (nhwc[0], oh, ow, out_c))


def _gen_reduce(draw, shapes):
    i = _pick(draw, shapes)
    s = shapes[i]
    fn = draw(st.sampled_from(sorted(REDUCE)))
    keep = draw(st.booleans())
    if not s or draw(st.integers(0, 3)) == 0:
        axes = None
        out = tuple(1 for _ in s) if keep else ()
    else:
        chosen = draw(st.lists(st.integers(0, len(s) - 1), min_size=1, max_size=len(s),
                               unique=True))
        axes = tuple(a - len(s) if draw(st.booleans()) else a for a in chosen)
        out = tuple(1 if a in chosen else d for a, d in enumerate(s) if keep or a not in chosen)
        if len(axes) == 1 and draw(st.booleans()):
            axes = axes[0]
    return ("reduce", fn, i, axes, keep), out


def _gen_reshape(draw, shapes):
    i = _pick(draw, shapes)
    n = _size(shapes[i])
    target = draw(st.sampled_from([f for r in range(0, MAX_RANK) for f in
                                   _factorizations(n, r)]))
    if draw(st.booleans()):  # reshape of reshape
        mid = draw(st.sampled_from([f for r in range(1, MAX_RANK) for f in
                                    _factorizations(n, r)]))
        return ("reshape2", i, mid, target, draw(st.booleans())), target
    return ("reshape", i, target, draw(st.booleans())), target


def _gen_transpose(draw, shapes):
    i = _pick(draw, shapes, lambda s: len(s) >= 2)
    if i is None:
        return None
    s = shapes[i]
    perm = tuple(draw(st.permutations(range(len(s)))))
    if draw(st.booleans()):  # transpose of transpose
        second = tuple(draw(st.permutations(range(len(s)))))
        if draw(st.booleans()):
            second = tuple(int(a) for a in np.argsort(perm))  # the inverse: x again
        mid = tuple(s[p] for p in perm)
        return ("transpose2", i, perm, second), tuple(mid[p] for p in second)
    if draw(st.booleans()) and perm == tuple(reversed(range(len(s)))):
        perm = None  # tf.transpose's default
        return ("transpose", i, perm), tuple(reversed(s))
    return ("transpose", i, perm), tuple(s[p] for p in perm)


def _gen_expand_squeeze(draw, shapes):
    i = _pick(draw, shapes)
    s = shapes[i]
    ones = [a for a, d in enumerate(s) if d == 1]
    if ones and draw(st.booleans()):
        if draw(st.booleans()):
            return ("squeeze", i, None), tuple(d for d in s if d != 1)
        a = draw(st.sampled_from(ones))
        return ("squeeze", i, (a - len(s) if draw(st.booleans()) else a,)), \
            tuple(d for k, d in enumerate(s) if k != a)
    if len(s) >= MAX_RANK:
        return None
    a = draw(st.integers(-len(s) - 1, len(s)))
    pos = a if a >= 0 else len(s) + 1 + a
    return ("expand_dims", i, a), s[:pos] + (1,) + s[pos:]


def _gen_concat(draw, shapes):
    i = _pick(draw, shapes, lambda s: len(s) >= 1)
    if i is None:
        return None
    s = shapes[i]
    axis = draw(st.integers(0, len(s) - 1))
    fits = [j for j, t in enumerate(shapes)
            if len(t) == len(s) and all(a == b for k, (a, b) in enumerate(zip(s, t))
                                        if k != axis)]
    parts = draw(st.lists(st.sampled_from(fits), min_size=1, max_size=3))
    out = list(s)
    out[axis] = s[axis] + sum(shapes[j][axis] for j in parts)
    if _size(out) > MAX_SIZE:
        return None
    neg = draw(st.booleans())
    return ("concat", [i] + parts, axis - len(s) if neg else axis), tuple(out)


def _gen_stack(draw, shapes):
    i = _pick(draw, shapes, lambda s: len(s) < MAX_RANK)
    if i is None:
        return None
    s = shapes[i]
    same = [j for j, t in enumerate(shapes) if t == s]
    parts = [i] + draw(st.lists(st.sampled_from(same), min_size=1, max_size=2))
    if _size(s) * len(parts) > MAX_SIZE:
        return None
    axis = draw(st.integers(0, len(s)))
    return ("stack", parts, axis), s[:axis] + (len(parts),) + s[axis:]


def _gen_split(draw, shapes):
    i = _pick(draw, shapes, lambda s: any(d > 1 for d in s))
    if i is None:
        return None
    s = shapes[i]
    axis = draw(st.sampled_from([a for a, d in enumerate(s) if d > 1]))
    d = s[axis]
    if draw(st.booleans()):
        num = draw(st.sampled_from([k for k in range(1, d + 1) if d % k == 0]))
        sizes = [d // num] * num
        how = num
    else:
        cut = draw(st.integers(1, d - 1))
        sizes = [cut, d - cut]
        how = sizes
    k = draw(st.integers(0, len(sizes) - 1))
    out = list(s)
    out[axis] = sizes[k]
    return ("split", i, how, axis, k), tuple(out)


def _gen_slice(draw, shapes):
    i = _pick(draw, shapes, lambda s: len(s) >= 1)
    if i is None:
        return None
    s = shapes[i]
    if draw(st.booleans()):  # tf.slice(begin, size)
        begin = [draw(st.integers(0, d - 1)) for d in s]
        size = [draw(st.integers(1, d - b)) for d, b in zip(s, begin)]
        if draw(st.booleans()):
            size[0] = -1
        out = tuple(d - b if z == -1 else z for d, b, z in zip(s, begin, size))
        return ("slice", i, tuple(begin), tuple(size)), out
    spec, out = [], []
    for d in s:
        kind = draw(st.sampled_from(["all", "range", "index", "step"]))
        if kind == "index":
            spec.append(("index", draw(st.integers(-d, d - 1))))
        elif kind == "range":
            a = draw(st.integers(0, d - 1))
            b = draw(st.integers(a + 1, d))
            spec.append(("range", a, b, 1))
            out.append(b - a)
        elif kind == "step":
            step = draw(st.sampled_from([2, -1]))
            spec.append(("range", None, None, step))
            out.append(len(range(d)[::step]))
        else:
            spec.append(("all",))
            out.append(d)
    return ("getitem", i, tuple(spec)), tuple(out)


def _gen_softmax(draw, shapes):
    i = _pick(draw, shapes, lambda s: len(s) >= 1)
    if i is None:
        return None
    return ("softmax", draw(st.sampled_from(["softmax", "log_softmax"])), i), shapes[i]


def _gen_bias_add(draw, shapes):
    i = _pick(draw, shapes, lambda s: len(s) >= 2)
    if i is None:
        return None
    return ("bias_add", i, draw(st.integers(0, 999))), shapes[i]


def _gen_where(draw, shapes, leaves):
    i = _pick(draw, shapes)
    s = shapes[i]
    same = [j for j, t in enumerate(shapes) if t == s]
    j = draw(st.sampled_from(same))
    leaf_conds = [k for k in leaves if shapes[k] == s]
    if leaf_conds and draw(st.booleans()):
        cond = ("leaf", draw(st.sampled_from(leaf_conds)))
    else:
        cond = ("const", draw(st.integers(0, 999)))
    return ("where", cond, i, j), s


def _gen_const(draw, shapes):
    shape = draw(shapes_st)
    return ("const", shape, draw(st.integers(0, 999))), shape


def _gen_dup(draw, shapes, steps):
    done = [k for k, s in enumerate(steps) if s[0] not in ("placeholder", "dup")]
    if not done:
        return None
    k = draw(st.sampled_from(done))
    return ("dup", k), shapes[k]


GENERATORS = {
    "unary": _gen_unary, "binary": _gen_binary, "scalar": _gen_scalar,
    "const_binary": _gen_const_binary, "matmul": _gen_matmul, "dense": _gen_dense,
    "conv": _gen_conv,
    "reduce": _gen_reduce, "reshape": _gen_reshape, "transpose": _gen_transpose,
    "expand_squeeze": _gen_expand_squeeze, "concat": _gen_concat, "stack": _gen_stack,
    "split": _gen_split, "slice": _gen_slice, "softmax": _gen_softmax,
    "bias_add": _gen_bias_add, "const": _gen_const,
}
# Weights: elementwise and scalar steps are the optimizer's main material.
KINDS = (["unary"] * 4 + ["scalar"] * 4 + ["binary"] * 3 + ["const_binary"] * 2
         + ["matmul", "dense", "dense", "conv", "reduce", "reduce", "reshape", "transpose",
            "expand_squeeze", "concat", "stack", "split", "slice", "softmax", "bias_add",
            "const", "where", "dup", "dup"])


@st.composite
def programs(draw, max_steps=10, max_inputs=3, allow_const_inputs=True,
             allow_unknown_dims=True):
    """A random valid :class:`Program` (its leaves: placeholders and constants)."""
    steps, shapes, leaves = [], [], []
    for k in range(draw(st.integers(1, max_inputs))):
        shape = draw(shapes_st)
        if allow_const_inputs and k > 0 and draw(st.integers(0, 2)) == 0:
            steps.append(("const", shape, draw(st.integers(0, 999))))
        else:
            partial = allow_unknown_dims and bool(shape) and draw(st.integers(0, 3)) == 0
            steps.append(("placeholder", shape, partial))
        shapes.append(shape)
        leaves.append(k)
    # The kinds come from a seeded stream: hypothesis favours a list's first entry,
    # and every kind should be common.
    kinds = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    for _ in range(draw(st.integers(2, max_steps))):
        kind = str(kinds.choice(KINDS))
        if kind == "where":
            made = _gen_where(draw, shapes, leaves)
        elif kind == "dup":
            made = _gen_dup(draw, shapes, steps)
        else:
            made = GENERATORS[kind](draw, shapes)
        if made is None:
            continue
        step, shape = made
        if _size(shape) > MAX_SIZE or len(shape) > MAX_RANK:
            continue
        steps.append(step)
        shapes.append(tuple(int(d) for d in shape))
    last = len(steps) - 1
    extra = draw(st.lists(st.integers(0, last), max_size=2, unique=True))
    fetch = [last] + [e for e in extra if e != last]
    return Program(steps, shapes, fetch, draw(st.integers(0, 2 ** 16)))


# -------------------------------------------------------------------- building
def _declare(step, v, shapes):
    """The tensor of one step; ``v`` holds the tensors made so far."""
    kind = step[0]
    if kind == "placeholder":
        _, shape, partial = step
        declared = [None] + list(shape[1:]) if partial else list(shape)
        return tf.placeholder(tf.float32, declared)
    if kind == "const":
        return tf.constant(_array(step[2], step[1]))
    if kind == "unary":
        return UNARY[step[1]](v[step[2]])
    if kind == "binary":
        return BINARY[step[1]](v[step[2]], v[step[3]])
    if kind == "scalar":
        _, op, i, c, as_tensor = step
        x = v[i]
        k = tf.constant(np.float32(c)) if as_tensor else c
        if op == "mul":
            return x * k
        if op == "rmul":
            return k * x
        if op == "add":
            return x + k
        if op == "radd":
            return k + x
        if op == "sub":
            return x - k
        if op == "rsub":
            return k - x
        return x / k
    if kind == "const_binary":
        _, fn, i, cshape, seed = step
        c = tf.constant(_array(seed, cshape))
        return BINARY[fn](v[i], c) if seed % 2 else BINARY[fn](c, v[i])
    if kind == "matmul":
        _, i, other, ta, tb = step
        y = tf.constant(_array(other[2], other[1])) if other[0] == "const" else v[other[1]]
        return tf.matmul(v[i], y, transpose_a=ta, transpose_b=tb)
    if kind == "dense":
        _, i, units, style, act, seed = step
        x = v[i]
        w = tf.constant(_array(seed, (shapes[i][1], units)))
        b = tf.constant(_array(seed + 1, (units,)))
        y = tf.matmul(x, w)
        if style == "bias_add":
            y = tf.nn.bias_add(y, b)
        elif style == "add":
            y = y + b
        elif style == "add_rev":
            y = tf.add(b, y)
        return ACTIVATIONS[act](y)
    if kind == "conv":
        _, i, nhwc, fshape, stride, padding, style, act, seed = step
        x = tf.reshape(v[i], list(nhwc))
        y = tf.nn.conv2d(x, tf.constant(_array(seed, fshape)), [1, stride, stride, 1], padding)
        b = tf.constant(_array(seed + 1, fshape[-1:]))
        if style == "bias_add":
            y = tf.nn.bias_add(y, b)
        elif style == "add":
            y = y + b
        return ACTIVATIONS[act](y)
    if kind == "reduce":
        _, fn, i, axes, keep = step
        if keep and axes is not None and not isinstance(axes, tuple):
            return REDUCE[fn](v[i], reduction_indices=axes, keep_dims=True)
        return REDUCE[fn](v[i], axis=list(axes) if isinstance(axes, tuple) else axes,
                          keepdims=keep)
    if kind == "reshape":
        _, i, target, minus_one = step
        t = list(target)
        if minus_one and t:
            t[0] = -1
        return tf.reshape(v[i], t)
    if kind == "reshape2":
        _, i, mid, target, minus_one = step
        m = list(mid)
        if minus_one:
            m[-1] = -1
        return tf.reshape(tf.reshape(v[i], m), list(target))
    if kind == "transpose":
        return tf.transpose(v[step[1]], step[2])
    if kind == "transpose2":
        return tf.transpose(tf.transpose(v[step[1]], list(step[2])), list(step[3]))
    if kind == "squeeze":
        return tf.squeeze(v[step[1]], step[2])
    if kind == "expand_dims":
        return tf.expand_dims(v[step[1]], step[2])
    if kind == "concat":
        return tf.concat([v[j] for j in step[1]], step[2])
    if kind == "stack":
        return tf.stack([v[j] for j in step[1]], axis=step[2])
    if kind == "split":
        _, i, how, axis, k = step
        return tf.split(v[i], how, axis=axis)[k]
    if kind == "slice":
        return tf.slice(v[step[1]], list(step[2]), list(step[3]))
    if kind == "getitem":
        index = []
        for part in step[2]:
            if part[0] == "index":
                index.append(part[1])
            elif part[0] == "range":
                index.append(slice(part[1], part[2], None if part[3] == 1 else part[3]))
            else:
                index.append(slice(None))
        return v[step[1]][tuple(index)]
    if kind == "softmax":
        fn = tf.nn.softmax if step[1] == "softmax" else tf.nn.log_softmax
        return fn(v[step[2]])
    if kind == "bias_add":
        i = step[1]
        return tf.nn.bias_add(v[i], tf.constant(_array(step[2], (shapes[i][-1],))))
    if kind == "where":
        _, cond, i, j = step
        if cond[0] == "leaf":
            c = tf.greater(v[cond[1]], 0.0)
        else:
            c = tf.constant(np.random.default_rng(cond[1]).random(shapes[i]) < 0.5)
        return tf.where(c, v[i], v[j])
    raise AssertionError(f"unknown step {step!r}")


def build(program: Program, feeds_as_constants=False) -> Built:
    """Declare ``program`` in the default graph.

    With ``feeds_as_constants`` the placeholders become constants holding
    :func:`feed_values` (the whole program is then foldable).
    """
    values, placeholders, leaves = [], [], []
    arrays = feed_arrays(program) if feeds_as_constants else {}
    for k, step in enumerate(program.steps):
        if step[0] == "dup":
            step = program.steps[step[1]]
        if k in arrays:
            t = tf.constant(arrays[k])
            leaves.append(t)
            values.append(t)
            continue
        t = _declare(step, values, program.shapes)
        if program.steps[k][0] in ("placeholder", "const"):
            leaves.append(t)
            if step[0] == "placeholder":
                placeholders.append((k, t))
        values.append(t)
    return Built(placeholders, leaves, values, [values[i] for i in program.fetch])


def feed_arrays(program: Program) -> dict:
    """Random float32 values for the program's placeholders, by step index."""
    rng = np.random.default_rng(program.feed_seed)
    return {k: rng.uniform(-2.0, 2.0, size=program.shapes[k]).astype(np.float32)
            for k, step in enumerate(program.steps) if step[0] == "placeholder"}


def feed_values(program: Program, built: Built) -> dict:
    """The feed_dict of :func:`feed_arrays` for a built program."""
    arrays = feed_arrays(program)
    return {t: arrays[k] for k, t in built.placeholders}


def gradient_fetches(program: Program, built: Built) -> list:
    """``tf.gradients`` of a weighted sum of the fetches w.r.t. every leaf (None dropped)."""
    terms = []
    for n, (i, t) in enumerate(zip(program.fetch, built.fetches)):
        weights = tf.constant(_array(program.feed_seed + n, program.shapes[i], 0.5, 1.5))
        terms.append(tf.reduce_sum(t * weights))
    loss = tf.add_n(terms) if len(terms) > 1 else terms[0]
    grads = tf.gradients(loss, built.leaves)
    return [g for g in grads if g is not None]


# ------------------------------------------------------------- shared checks
def snapshot(graph) -> list:
    """Everything a pass could change in the user's graph, for before/after checks."""
    return [(id(op), op.name, op.type, tuple(id(t) for t in op.inputs),
             tuple(id(c) for c in op.control_inputs),
             tuple((t.dtype, t.shape.raw) for t in op.outputs),
             tuple(sorted(op.attrs)), op.traceback) for op in graph.get_operations()]


def assert_same_values(got, ref, what=""):
    """Equal dtype and shape exactly, values within float32 rounding (nan/inf alike)."""
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype} != {ref.dtype}"
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    if ref.dtype.kind != "f":
        np.testing.assert_array_equal(got, ref, err_msg=what)
        return
    finite = np.abs(ref[np.isfinite(ref)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5 * scale, equal_nan=True,
                               err_msg=what)


def assert_user_lines(ops, allowed_files):
    """Every op knows its user line, and that line is in one of ``allowed_files``."""
    import os
    package = os.path.dirname(os.path.abspath(tf.__file__)) + os.sep
    allowed = {os.path.abspath(f) for f in allowed_files}
    for op in ops:
        frame = op.traceback
        assert frame is not None, f"{op.name} ({op.type}) lost the user line it stems from"
        path = os.path.abspath(frame.filename)
        assert not path.startswith(package), \
            f"{op.name} ({op.type}) points into staticgraph: {frame}"
        assert path in allowed, f"{op.name} ({op.type}) points to {frame}, not the user's code"
