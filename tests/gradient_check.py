"""Gradient checking against central finite differences in float64.

``check_gradients(build, inputs, wrt)`` builds ``loss = build(*placeholders)`` (a
scalar), asks ``tf.gradients`` for d loss / d input for each index in ``wrt`` and
compares with central differences of ``loss`` computed by running the graph:
element by element for small inputs, along random directions for larger ones.
"""

from __future__ import annotations

import numpy as np

import staticgraph as tf

EPS = 1e-6
MAX_ELEMENTWISE = 64
DIRECTIONS = 6


def as_float64(inputs):
    """Float inputs converted to float64 (others unchanged)."""
    return [np.asarray(v, np.float64) if np.asarray(v).dtype.kind == "f" else np.asarray(v)
            for v in inputs]


def float_indices(inputs):
    """Indices of the float inputs."""
    return [i for i, v in enumerate(inputs) if np.asarray(v).dtype.kind == "f"]


def _placeholders(inputs):
    return [tf.placeholder(tf.as_dtype(v.dtype), v.shape, name=f"in{i}")
            for i, v in enumerate(inputs)]


def check_gradients(build, inputs, wrt, rtol=1e-4, atol=1e-6, seed=0):
    """Assert symbolic gradients of ``build(*placeholders)`` match finite differences."""
    inputs = as_float64(inputs)
    graph = tf.Graph()
    with graph.as_default():
        phs = _placeholders(inputs)
        loss = build(*phs)
        grads = tf.gradients(loss, [phs[i] for i in wrt])
    sess = tf.Session(graph=graph)
    feed = dict(zip(phs, inputs))
    # A None gradient means zero (TF1): the finite differences must then vanish too.
    analytic = sess.run([g for g in grads if g is not None], feed)
    analytic = iter(analytic)
    analytic = [np.zeros_like(inputs[i]) if g is None else next(analytic)
                for i, g in zip(wrt, grads)]
    value = sess.make_callable(loss, phs)
    rng = np.random.default_rng(seed)
    for i, got in zip(wrt, analytic):
        x = inputs[i]
        assert got.shape == x.shape, f"gradient of input {i} has shape {got.shape}, not {x.shape}"

        def f_at(v, i=i):
            args = list(inputs)
            args[i] = v
            return float(value(*args))

        if x.size <= MAX_ELEMENTWISE:
            want = np.zeros_like(x)
            for j in range(x.size):
                e = np.zeros(x.size)
                e[j] = EPS
                e = e.reshape(x.shape)
                want.reshape(-1)[j] = (f_at(x + e) - f_at(x - e)) / (2 * EPS)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                       err_msg=f"gradient of input {i}")
        else:
            for _ in range(DIRECTIONS):
                d = rng.standard_normal(x.shape)
                numeric = (f_at(x + EPS * d) - f_at(x - EPS * d)) / (2 * EPS)
                np.testing.assert_allclose(np.sum(got * d), numeric, rtol=rtol,
                                           atol=atol * np.sqrt(x.size),
                                           err_msg=f"directional derivative of input {i}")
    sess.close()


def weighted_sum(outputs, weights):
    """``sum_k reduce_sum(outputs[k] * weights[k])`` over the float outputs."""
    total = None
    for out, w in zip(outputs, weights):
        if w is None:
            continue
        term = tf.reduce_sum(out * tf.constant(w))
        total = term if total is None else total + term
    return total


def output_weights(build, inputs, seed=1):
    """Random float64 weights shaped like each float output of ``build`` (None for others)."""
    graph = tf.Graph()
    with graph.as_default():
        phs = _placeholders(inputs)
        outs = build(*phs)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        with tf.Session(graph=graph) as sess:
            values = sess.run(outs, dict(zip(phs, inputs)))
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(np.shape(v)).astype(np.asarray(v).dtype)
            if t.dtype.is_floating else None for t, v in zip(outs, values)]
