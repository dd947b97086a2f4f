"""Quickstart: a nearest-centroid digit classifier declared as a graph and run in a Session.

Uses scikit-learn's bundled 8x8 digits (no download). The graph computes each
class's mean image from a labelled batch, stores the means in a variable, then
classifies held-out images by their nearest mean. Run: ``python examples/quickstart.py``.
"""

import numpy as np
from sklearn.datasets import load_digits

import staticgraph as tf


def main():
    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    targets = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(images))
    train, test = order[:1400], order[1400:]

    x = tf.placeholder(tf.float32, [None, 64], name="x")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    centroids = tf.Variable(tf.zeros([10, 64]), name="centroids")

    with tf.name_scope("fit"):
        onehot = tf.one_hot(labels, depth=10)                   # [n, 10]
        sums = tf.matmul(onehot, x, transpose_a=True)           # [10, 64]
        counts = tf.reduce_sum(onehot, axis=0)                  # [10]
        fit = centroids.assign(sums / tf.expand_dims(counts, 1))

    with tf.name_scope("predict"):
        # Squared distance of every image to every centroid: |x|^2 - 2 x.c + |c|^2.
        distances = (tf.reduce_sum(tf.square(x), axis=1, keepdims=True)
                     - 2.0 * tf.matmul(x, centroids, transpose_b=True)
                     + tf.reduce_sum(tf.square(centroids), axis=1))
        prediction = tf.argmin(distances, axis=1)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(prediction, labels), tf.float32))

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(fit, feed_dict={x: images[train], labels: targets[train]})
        acc, first = sess.run([accuracy, prediction[:10]],
                              feed_dict={x: images[test], labels: targets[test]})

    print(f"graph: {len(tf.get_default_graph().get_operations())} ops; "
          f"fitted 10 centroids on {len(train)} images")
    print(f"first predictions: {first.tolist()}  (true: {targets[test][:10].tolist()})")
    print(f"nearest-centroid test accuracy: {acc:.3f} on {len(test)} held-out digits")
    if acc < 0.85:
        raise SystemExit(f"accuracy {acc:.3f} is below the expected 0.85")


if __name__ == "__main__":
    main()
