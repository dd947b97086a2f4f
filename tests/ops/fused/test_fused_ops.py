"""FusedElementwise: long programs are interpreted, with the generated kernel's results;
FusedMatMul's activation is the activation op's kernel."""

import numpy as np
import pytest

import staticgraph as tf
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


_UNFUSED = {"Relu": "relu", "Relu6": "relu6", "Sigmoid": "sigmoid", "Tanh": "tanh",
            "LeakyRelu": "leaky_relu"}


@pytest.mark.parametrize("activation,dtype", [
    (a, d) for a in _UNFUSED for d in (np.float16, np.float32, np.float64, np.int32)
    if d is not np.int32 or a in ("Relu", "Relu6")])
def test_fused_activation_is_the_activation_kernel_bitwise(activation, dtype):
    """The activation a FusedMatMul applies in place is its op definition's kernel:
    the unfused ops' results, bit for bit, special values included."""
    a = np.array([[1, -2, 0], [0, 0, 0], [3, 1, -1]], dtype)
    b = np.array([[2, -1, 0, 4, 1, -3, 5, 0], [1, 1, -2, 0, 2, 1, -1, 3],
                  [0, 2, 1, -1, 0, 4, 2, -2]], dtype)
    if dtype is np.int32:
        bias = np.array([-7, -1, 0, 1, 3, 6, 7, 100], dtype)
    else:
        bias = np.array([np.nan, np.inf, -np.inf, -0.0, 0.5, -0.5, 30, -30], dtype)
    kwargs = {"alpha": 0.1} if activation == "LeakyRelu" else {}
    with tf.Graph().as_default():
        fused = fused_ops.fused_matmul(tf.constant(a), tf.constant(b), tf.constant(bias),
                                       activation=activation, **kwargs)
        unfused = getattr(tf.nn, _UNFUSED[activation])(
            tf.nn.bias_add(tf.matmul(tf.constant(a), tf.constant(b)), tf.constant(bias)),
            **kwargs)
        with tf.Session(optimizer_level=0) as sess:
            got, want = sess.run([fused, unfused])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_dilated_same_convolution_of_unknown_size_runs_on_onnxruntime(data_format):
    """onnxruntime refuses auto_pad with dilations: the fused convolution pads by TF's SAME
    rule explicitly, as Conv2D's own lowering does (found failing: "Dilation not supported
    for AutoPadType::SAME_UPPER")."""
    rng = np.random.RandomState(0)
    channels_last = data_format == "NHWC"
    shape = [None, None, None, 3] if channels_last else [None, 3, None, None]
    x = tf.placeholder(tf.float32, shape)
    w = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32))
    b = tf.constant(np.arange(4, dtype=np.float32))
    dilations = [1, 2, 2, 1] if channels_last else [1, 1, 2, 2]
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME", dilations=dilations,
                        data_format=data_format)
    y = tf.nn.relu(tf.nn.bias_add(conv, b, data_format=data_format))
    value = rng.randn(2, 7, 6, 3).astype(np.float32)
    if not channels_last:
        value = value.transpose(0, 3, 1, 2).copy()
    with tf.Session() as sess:
        assert "FusedConv2D" in str(sess.explain(y, {x: value}))
        expected = sess.run(y, {x: value})
    with tf.Session(backend="onnxruntime", device="cpu") as sess:
        np.testing.assert_allclose(sess.run(y, {x: value}), expected, rtol=1e-5, atol=1e-5)
