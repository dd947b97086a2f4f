"""A TF1 forward-only program, written as TF1 users write it, gives numpy's numbers."""

import collections

import numpy as np

import staticgraph as tf


def _numpy_forward(X, Y, W1, b1, W2, b2):
    h1 = np.maximum(X @ W1 + b1, 0)
    logits = h1 @ W2 + b2
    z = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    loss = -np.log(probs[np.arange(len(Y)), Y]).mean()
    pred = probs.argmax(axis=1)
    return loss, (pred == Y).mean(), probs, pred


def test_tf1_forward_program_matches_numpy():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((16, 4)).astype(np.float32)
    Y = rng.integers(0, 3, 16)
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(42)
        x = tf.placeholder(tf.float32, shape=[None, 4], name="x")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        keep = tf.placeholder_with_default(1.0, shape=[], name="keep_prob")
        with tf.name_scope("layer1"):
            W1 = tf.Variable(tf.truncated_normal([4, 8], stddev=0.5), name="W")
            b1 = tf.Variable(tf.constant(0.1, shape=[8]), name="b")
            h1 = tf.nn.relu(tf.matmul(x, W1) + b1)
        with tf.name_scope("layer2"):
            W2 = tf.Variable(tf.random_normal([8, 3]), name="W")
            b2 = tf.Variable(tf.zeros([3]), name="b")
            logits = tf.nn.bias_add(tf.matmul(tf.nn.dropout(h1, keep_prob=keep), W2), b2)
        probs = tf.nn.softmax(logits)
        pred = tf.argmax(probs, 1)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        accuracy = tf.reduce_mean(tf.cast(tf.equal(pred, labels), tf.float32))
        init = tf.global_variables_initializer()

    assert W1.name == "layer1/W:0" and W2.name == "layer2/W:0"
    assert [v.name for v in tf.trainable_variables()] == []  # other graph is the default
    with graph.as_default():
        assert [v.name for v in tf.trainable_variables()] == [
            "layer1/W:0", "layer1/b:0", "layer2/W:0", "layer2/b:0"]

    Pair = collections.namedtuple("Pair", "probs pred")
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        w1, bb1, w2, bb2 = sess.run([W1, b1, W2, b2])
        out = sess.run({"loss": loss, "acc": accuracy, "rest": Pair(probs, pred)},
                       feed_dict={x: X, labels: Y})
    assert np.all(np.abs(w1) <= 1.0 + 1e-6)  # truncated at two standard deviations
    np.testing.assert_allclose(bb1, np.full(8, 0.1, np.float32))
    want_loss, want_acc, want_probs, want_pred = _numpy_forward(X, Y, w1, bb1, w2, bb2)
    np.testing.assert_allclose(out["loss"], want_loss, rtol=1e-5)
    np.testing.assert_allclose(out["acc"], want_acc, rtol=1e-6)
    assert isinstance(out["rest"], Pair)
    np.testing.assert_allclose(out["rest"].probs, want_probs, rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(out["rest"].pred, want_pred)
    assert out["rest"].pred.dtype == np.int64 and out["loss"].dtype == np.float32


def test_seeded_program_is_reproducible_across_sessions():
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        v = tf.Variable(tf.random_uniform([3, 3]), name="v")
        init = tf.global_variables_initializer()
    values = []
    for _ in range(2):
        with tf.Session(graph=graph) as sess:
            sess.run(init)
            values.append(sess.run(v))
    np.testing.assert_array_equal(values[0], values[1])
