"""Train a digit classifier on scikit-learn's bundled 8x8 digits (no download).

A TF1-style program: placeholders and variables declared into a graph, Adam
appending the gradient and update ops, and a loop of ``sess.run`` with feed
dicts. Prints loss and accuracy per epoch, saves a checkpoint after every epoch
(``tf.train.Saver``, safetensors files), writes TensorBoard logs of loss and
accuracy plus the graph (``--logdir``), draws the graph (``digits_graph.dot``, and
``.svg`` when Graphviz is installed) and checks that the held-out accuracy reaches
95%. Finally it exports the trained classifier to ONNX (``digits.onnx``) and checks
that onnxruntime predicts exactly what the session predicts. ``--resume`` continues from the
latest checkpoint in ``--checkpoint-dir``.
Run: ``python examples/train_digits.py [--epochs N] [--resume]``.
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import load_digits

import staticgraph as tf


def load(seed=0):
    """Digits scaled to [0, 1], split 80/20 into train and test."""
    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(images))
    cut = int(0.8 * len(images))
    return (images[order[:cut]], labels[order[:cut]]), (images[order[cut:]], labels[order[cut:]])


def dense(x, units, name, activation=None):
    """A fully connected layer declared with get_variable under its own variable scope."""
    with tf.variable_scope(name):
        w = tf.get_variable("weights", [x.shape[1].value, units],
                            initializer=tf.glorot_uniform_initializer(seed=1))
        b = tf.get_variable("bias", [units], initializer=tf.zeros_initializer())
        y = tf.nn.bias_add(tf.matmul(x, w), b)
        return activation(y) if activation else y


def build_model():
    """Placeholders, a 64-128-64-10 network, its loss, accuracy and Adam train op."""
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 64], name="images")
    y = tf.placeholder(tf.int64, [None], name="labels")
    keep_prob = tf.placeholder_with_default(1.0, [], name="keep_prob")
    h = dense(x, 128, "hidden1", tf.nn.relu)
    h = tf.nn.dropout(h, keep_prob=keep_prob)
    h = dense(h, 64, "hidden2", tf.nn.relu)
    logits = dense(h, 10, "logits")
    with tf.name_scope("loss"):
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    with tf.name_scope("accuracy"):
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    tf.summary.scalar("cross_entropy", loss)
    tf.summary.scalar("test_accuracy", accuracy)
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(3e-3).minimize(loss, global_step=global_step)
    return x, y, keep_prob, loss, accuracy, train_op, global_step


def draw_graph(fetch, directory):
    """Write the training graph as DOT (always) and SVG (when Graphviz is installed)."""
    path = os.path.join(directory, "digits_graph")
    tf.export.render(fetch, path + ".dot", collapse=2)
    try:
        tf.export.render(fetch, path + ".svg", collapse=2)
        print(f"graph drawn to {path}.svg")
    except tf.export.GraphvizNotFoundError:
        print(f"graph written to {path}.dot (install Graphviz for SVG)")


def open_log(logdir):
    """A TensorBoard FileWriter with the graph, or None when tensorboard is missing."""
    try:
        return tf.summary.FileWriter(logdir, graph=tf.get_default_graph())
    except ImportError:
        print("tensorboard is not installed: no TensorBoard logs (pip install tensorboard)")
        return None


def export_and_check(sess, x, images, directory):
    """Export the classifier (images -> class probabilities) to ONNX, run it in
    onnxruntime and check its predictions against the session's; returns True when
    they agree."""
    import onnxruntime as ort
    graph = sess.graph
    with graph.as_default():
        probs = tf.nn.softmax(graph.get_tensor_by_name("logits/BiasAdd:0"), name="probabilities")
    path = os.path.join(directory, "digits.onnx")
    tf.export.to_onnx(probs, [x], session=sess, path=path)
    runner = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got, = runner.run(None, {x.name: images})
    want = sess.run(probs, {x: images})
    agree = int(np.sum(got.argmax(1) == want.argmax(1)))
    close = np.allclose(got, want, rtol=1e-4, atol=1e-5)
    print(f"ONNX model written to {path}; onnxruntime agrees on {agree}/{len(images)} "
          f"predictions (probabilities {'match' if close else 'DIFFER'})")
    return agree == len(images) and close


# A run of at least this many epochs must reach this test accuracy (shorter runs,
# such as the first leg of a resumed run, are not judged).
EXPECTED_AFTER_EPOCHS = 10
EXPECTED_ACCURACY = 0.95


def progress(epoch, epochs, loss, train_acc, test_acc, seconds):
    """One line per epoch: a bar, the loss and both accuracies."""
    done = int(20 * (epoch + 1) / epochs)
    bar = "#" * done + "." * (20 - done)
    print(f"epoch {epoch + 1:3d}/{epochs} [{bar}] loss {loss:.4f}  "
          f"train acc {train_acc:.3f}  test acc {test_acc:.3f}  ({seconds:.1f}s)", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--checkpoint-dir",
                        default=os.path.join(tempfile.gettempdir(), "staticgraph_digits"))
    parser.add_argument("--resume", action="store_true",
                        help="continue from the latest checkpoint in --checkpoint-dir")
    parser.add_argument("--logdir", default=None,
                        help="TensorBoard log directory (default: <checkpoint-dir>/logs)")
    args = parser.parse_args(argv)
    logdir = args.logdir or os.path.join(args.checkpoint_dir, "logs")

    (x_train, y_train), (x_test, y_test) = load()
    x, y, keep_prob, loss, accuracy, train_op, global_step = build_model()
    saver = tf.train.Saver(max_to_keep=3)
    os.makedirs(args.checkpoint_dir, exist_ok=True)
    draw_graph(train_op, args.checkpoint_dir)
    merged = tf.summary.merge_all()
    writer = open_log(logdir)
    steps_per_epoch = -(-len(x_train) // args.batch_size)
    start = time.perf_counter()
    test_acc = 0.0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first_epoch = 0
        latest = tf.train.latest_checkpoint(args.checkpoint_dir) if args.resume else None
        if latest:
            saver.restore(sess, latest)
            first_epoch = int(sess.run(global_step)) // steps_per_epoch
            print(f"resumed from {latest} (epoch {first_epoch})")
        elif args.resume:
            print(f"no checkpoint in {args.checkpoint_dir}: starting from scratch")
        for epoch in range(first_epoch, args.epochs):
            rng = np.random.default_rng(epoch)
            order = rng.permutation(len(x_train))
            losses = []
            for i in range(0, len(order), args.batch_size):
                batch = order[i:i + args.batch_size]
                _, batch_loss = sess.run([train_op, loss], feed_dict={
                    x: x_train[batch], y: y_train[batch], keep_prob: 0.9})
                losses.append(batch_loss)
            train_acc = sess.run(accuracy, {x: x_train, y: y_train})
            test_acc, logs, step = sess.run([accuracy, merged, global_step], {x: x_test, y: y_test})
            if writer is not None:
                writer.add_summary(logs, step)
            progress(epoch, args.epochs, float(np.mean(losses)), train_acc, test_acc,
                     time.perf_counter() - start)
            saver.save(sess, os.path.join(args.checkpoint_dir, "digits"),
                       global_step=global_step)
        if first_epoch >= args.epochs:
            test_acc = sess.run(accuracy, {x: x_test, y: y_test})
        steps = sess.run(global_step)
        onnx_ok = export_and_check(sess, x, x_test, args.checkpoint_dir)
    if writer is not None:
        writer.close()
        print(f"TensorBoard logs in {logdir}: tensorboard --logdir {logdir}")
    elapsed = time.perf_counter() - start
    print(f"{steps} Adam steps in {elapsed:.1f}s; test accuracy {test_acc:.3f} "
          f"on {len(x_test)} held-out digits")
    if args.epochs >= EXPECTED_AFTER_EPOCHS and test_acc < EXPECTED_ACCURACY:
        print(f"test accuracy is below the expected {EXPECTED_ACCURACY} after "
              f"{args.epochs} epochs", file=sys.stderr)
        return 1
    if not onnx_ok:
        print("onnxruntime's predictions differ from the session's", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
