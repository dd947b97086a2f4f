"""Saver under ``kill -9``: a child saving in a loop is killed at random moments; after
each kill the latest checkpoint (and every listed one) restores exactly, no data file
is torn, and the next save removes the temporary files the killed one left."""

import os
import random
import select
import signal
import subprocess
import sys
import time

import numpy as np

import staticgraph as tf

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = """
import sys
sys.path.insert(0, {repo!r})
import numpy as np
import staticgraph as tf

ckpt_dir, step = sys.argv[1], int(sys.argv[2])
v = tf.Variable(np.zeros([128, 128], np.float32), name="v")
value = tf.placeholder(tf.float32, [128, 128])
assign = v.assign(value)
saver = tf.train.Saver(max_to_keep=2)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    state = tf.train.get_checkpoint_state(ckpt_dir)
    if state is not None:          # the restart idiom
        saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
    while True:
        sess.run(assign, {{value: np.full([128, 128], step, np.float32)}})
        saver.save(sess, ckpt_dir + "/model.ckpt", global_step=step)
        sys.stdout.write("saved %d\\n" % step)
        sys.stdout.flush()
        step += 1
"""

KILLS = 6


def _wait_for_output(proc, token, timeout):
    """Read the child's stdout until ``token`` appears; fail after ``timeout`` s."""
    seen, deadline = b"", time.monotonic() + timeout
    fd = proc.stdout.fileno()
    while token not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"child printed no {token!r} in {timeout}s: {seen[-200:]!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                raise AssertionError(f"child exited ({proc.wait(timeout=10)}): "
                                     f"{proc.stderr.read().decode()[-2000:]}")
            seen += chunk
    return seen


def _temp_files(directory):
    return {n for n in os.listdir(directory) if n.endswith(".tmp") or ".tmp" in n}


def _check_restores(prefix):
    """Restore ``prefix`` into a fresh graph; every element equals its step."""
    step = int(prefix.rsplit("-", 1)[1])
    with tf.Graph().as_default():
        v = tf.Variable(np.full([128, 128], -1.0, np.float32), name="v")
        with tf.Session() as sess:
            tf.train.Saver([v]).restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(v), np.full([128, 128], step, np.float32))
    assert tf.train.NewCheckpointReader(prefix).global_step == step


def test_kill_9_during_saves_leaves_restorable_checkpoints(tmp_path):
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(repo=REPO))
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    rng = random.Random(1234)
    left_by_last_kill = set()
    restored = 0
    for kill in range(KILLS):
        proc = subprocess.Popen([sys.executable, str(script), str(ckpt), str(kill * 1000)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            _wait_for_output(proc, b"saved", timeout=120)
            # The first save of this process removed what the killed one left behind.
            assert not (left_by_last_kill & _temp_files(ckpt)), left_by_last_kill
            time.sleep(rng.uniform(0.0, 0.15))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            proc.stdout.close()
            proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL
        left_by_last_kill = _temp_files(ckpt)

        latest = tf.train.latest_checkpoint(str(ckpt))
        assert latest is not None     # the child saved at least once before the kill
        _check_restores(latest)
        restored += 1
        state = tf.train.get_checkpoint_state(str(ckpt))
        assert state.all_model_checkpoint_paths[-1] == latest
        for listed in state.all_model_checkpoint_paths:
            _check_restores(listed)
        # No data file is torn: every one there reads back with its checksums.
        for name in os.listdir(ckpt):
            if name.endswith(".safetensors") and ".meta" not in name and "." != name[0]:
                reader = tf.train.NewCheckpointReader(str(ckpt / name))
                reader.read_tensors(reader.get_variable_to_shape_map())
    assert restored == KILLS

    # A clean save in this process removes every orphan of the killed ones.
    with tf.Graph().as_default():
        tf.Variable(np.zeros([128, 128], np.float32), name="v")
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(ckpt / "model.ckpt"), global_step=99999)
    assert _temp_files(ckpt) == set()
