"""FusedElementwise: long programs are interpreted, with the generated kernel's results."""

import numpy as np
import pytest

from staticgraph.ops.fused import fused_ops


def _chain(steps):
    """``y = tanh(y * 1.0001 + 0.001)`` repeated: a long single-input program."""
    program = []
    for k in range(steps):
        prev = ("input", 0) if k == 0 else ("step", len(program) - 1)
        program.append(("multiply", (prev, ("const", 1.0001))))
        program.append(("add", (("step", len(program) - 1), ("const", 0.001))))
        program.append(("tanh", (("step", len(program) - 1),)))
    return tuple(program)


@pytest.mark.parametrize("size", [1, 5000])
def test_interpreted_and_generated_kernels_agree_bitwise(size):
    program = _chain(40)
    x = np.linspace(-2, 2, size).astype(np.float32)
    generated = fused_ops._compile_program(program, 1, [True], np.dtype(np.float32))
    interpreted = fused_ops._interpret_program(program, 1, [True], np.dtype(np.float32))
    want = x.copy()
    for _ in range(40):
        want = np.tanh(want * np.float32(1.0001) + np.float32(0.001))
    np.testing.assert_array_equal(generated(x), want)
    np.testing.assert_array_equal(interpreted(x), want)
    assert np.all(x == np.linspace(-2, 2, size).astype(np.float32))  # inputs untouched


def test_long_programs_are_interpreted(monkeypatch):
    monkeypatch.setattr(fused_ops, "MAX_GENERATED_STEPS", 10)
    import staticgraph as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        y = x
        for _ in range(5):
            y = tf.tanh(y * 1.5 + 0.25)
        with tf.Session() as sess:
            out = sess.run(y, {x: [0.1, 0.2, 0.3]})
            assert "FusedElementwise" in str(sess.explain(y, {x: None}))
    want = np.array([0.1, 0.2, 0.3], np.float32)
    for _ in range(5):
        want = np.tanh(want * np.float32(1.5) + np.float32(0.25))
    np.testing.assert_array_equal(out, want)
