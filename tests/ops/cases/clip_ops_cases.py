"""Cases for the norm-clipping composites (clip_ops registers no op type of its own).

They run the composites through the generic harness (kernels, static shapes,
unknown dimensions, gradients against finite differences) under the op type that
does the clipping.
"""

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(23)
A = (R.standard_normal((3, 4)) * 2).astype(np.float32)
B = (R.standard_normal((5,)) * 0.1).astype(np.float32)


def _clip_by_norm_ref(t, clip, axes=None):
    t = np.asarray(t, np.float64)
    norm = np.sqrt(np.sum(t * t, axis=axes, keepdims=True))
    return (t * clip / np.maximum(norm, clip)).astype(np.float32)


def _global_ref(ts, clip):
    norm = np.sqrt(sum(np.sum(np.asarray(t, np.float64) ** 2) for t in ts))
    scale = clip / max(norm, clip)
    return [(np.asarray(t, np.float64) * scale).astype(np.float32) for t in ts] + \
        [np.float32(norm)]


def _global_build(clip):
    def build(*ts):
        clipped, norm = tf.clip_by_global_norm(list(ts), clip)
        return clipped + [norm]
    return build


CASES = [
    Case("Maximum", lambda t: tf.clip_by_norm(t, 1.5), [A], lambda t: _clip_by_norm_ref(t, 1.5),
         id="clip_by_norm"),
    Case("Maximum", lambda t: tf.clip_by_norm(t, 100.0), [A],
         lambda t: _clip_by_norm_ref(t, 100.0), id="clip_by_norm_noop"),
    Case("Maximum", lambda t: tf.clip_by_norm(t, 1.0, axes=[1]), [A],
         lambda t: _clip_by_norm_ref(t, 1.0, axes=1), id="clip_by_norm_axes"),
    Case("L2Loss", lambda a, b: tf.global_norm([a, None, b]), [A, B],
         lambda a, b: np.float32(np.sqrt(np.sum(np.float64(a) ** 2)
                                         + np.sum(np.float64(b) ** 2))), id="global_norm"),
    Case("Minimum", _global_build(2.0), [A, B], lambda a, b: _global_ref([a, b], 2.0),
         id="clip_by_global_norm"),
    Case("Minimum", _global_build(50.0), [A, B], lambda a, b: _global_ref([a, b], 50.0),
         id="clip_by_global_norm_noop"),
]
