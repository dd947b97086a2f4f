"""Small models trained end to end with every optimizer: the loss must go down."""

import numpy as np
import pytest

import staticgraph as tf

R = np.random.default_rng(3)
X = R.standard_normal((32, 4)).astype(np.float32)
W_TRUE = R.standard_normal((4, 1)).astype(np.float32)
Y = X @ W_TRUE + 0.5
LABELS = (X[:, 0] + X[:, 1] > 0).astype(np.int64)

OPTIMIZERS = {
    "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: tf.train.MomentumOptimizer(0.05, 0.9),
    "nesterov": lambda: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adam": lambda: tf.train.AdamOptimizer(0.1),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.02),
    "rmsprop_centered": lambda: tf.train.RMSPropOptimizer(0.02, momentum=0.5,
                                                          centered=True),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.5),
}


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _fit(train, loss, feed, steps, also=()):
    """Initialize, run ``train`` ``steps`` times: ``(loss before, [loss after, *also])``."""
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, feed)
        for _ in range(steps):
            sess.run(train, feed)
        return first, sess.run([loss, *also], feed)


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
def test_linear_regression(kind):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    w = tf.Variable(tf.zeros([4, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = tf.train.get_or_create_global_step()
    train = OPTIMIZERS[kind]().minimize(loss, global_step=step)
    first, (last, steps_done) = _fit(train, loss, {x: X, y: Y}, 100, [step])
    assert steps_done == 100
    assert np.isfinite(last) and last < 0.05 * first, (first, last)


def test_classifier_with_decay_and_clipping():
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    w1 = tf.Variable(tf.random_normal([4, 8], stddev=0.5, seed=1), name="w1")
    b1 = tf.Variable(tf.zeros([8]), name="b1")
    w2 = tf.Variable(tf.random_normal([8, 2], stddev=0.5, seed=2), name="w2")
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(hidden, w2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits))
    step = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.05, step, 50, 0.5)
    opt = tf.train.AdamOptimizer(lr)
    grads, variables = zip(*opt.compute_gradients(loss))
    clipped, norm = tf.clip_by_global_norm(grads, 5.0)
    train = opt.apply_gradients(zip(clipped, variables), global_step=step)
    first, (last, n) = _fit(train, loss, {x: X, labels: LABELS}, 150, [norm])
    assert np.isfinite(n)
    assert last < 0.5 * first, (first, last)
