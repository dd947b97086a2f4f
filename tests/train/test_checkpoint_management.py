"""The checkpoint state file, checkpoint readers and atomic writes."""

import os

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.train import checkpoint_management as cm


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _write(prefix, **tensors):
    cm.write_checkpoint(str(prefix), tensors, global_step=3)
    return str(prefix)


# ------------------------------------------------------------------ state file
def test_state_file_is_tf1_text_format(tmp_path):
    cm.update_checkpoint_state(str(tmp_path), str(tmp_path / "model.ckpt-2"),
                               [str(tmp_path / "model.ckpt-1"), str(tmp_path / "model.ckpt-2")])
    text = (tmp_path / "checkpoint").read_text()
    assert text.splitlines()[:3] == [
        f'model_checkpoint_path: "{tmp_path}/model.ckpt-2"',
        f'all_model_checkpoint_paths: "{tmp_path}/model.ckpt-1"',
        f'all_model_checkpoint_paths: "{tmp_path}/model.ckpt-2"',
    ]


def test_reads_a_state_file_written_by_tf1(tmp_path):
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "model.ckpt-200"\n'
        'all_model_checkpoint_paths: "model.ckpt-100"\n'
        'all_model_checkpoint_paths: "model.ckpt-200"\n'
        "all_model_checkpoint_timestamps: 1565000000.5\n"
        "all_model_checkpoint_timestamps: 1565000100.25\n"
        "last_preserved_timestamp: 1564999999.0\n")
    state = tf.train.get_checkpoint_state(str(tmp_path))
    # Relative paths are relative to the directory, as in TF1.
    assert state.model_checkpoint_path == os.path.join(str(tmp_path), "model.ckpt-200")
    assert state.all_model_checkpoint_paths == [os.path.join(str(tmp_path), "model.ckpt-100"),
                                                os.path.join(str(tmp_path), "model.ckpt-200")]
    assert state.all_model_checkpoint_timestamps == [1565000000.5, 1565000100.25]
    assert state.last_preserved_timestamp == 1564999999.0
    # The file names a checkpoint that does not exist here.
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_paths_with_quotes_and_unicode_round_trip(tmp_path):
    d = tmp_path / 'we"ird\\dïr'
    d.mkdir()
    prefix = _write(d / "m", w=np.ones(2, np.float32))
    cm.update_checkpoint_state(str(d), prefix)
    assert tf.train.latest_checkpoint(str(d)) == prefix
    # TF1 writes non-ASCII bytes as octal escapes; both spellings parse.
    state = cm.CheckpointState.from_text('model_checkpoint_path: "d\\303\\257r/\\"q\\""\n')
    assert state.model_checkpoint_path == 'dïr/"q"'


@pytest.mark.parametrize("text, why", [
    ("model_checkpoint_path model.ckpt\n", "key: value"),
    ('model_checkpoint_path: model.ckpt\n', "quoted string"),
    ('model_checkpoint_path: "model.ckpt\n', "quoted string"),
    ('model_checkpoint_path: "a"\nmodel_checkpoint_path: "b"\n', "twice"),
    ('model_checkpoint_path: "a"\nfavourite_colour: "blue"\n', "unknown field"),
    ('model_checkpoint_path: "a"\nall_model_checkpoint_timestamps: soon\n', "number"),
    ('model_checkpoint_path: "a\\q"\n', "unknown escape"),
    ('all_model_checkpoint_paths: "a"\n', "no model_checkpoint_path"),
])
def test_malformed_state_file_is_refused_with_file_and_line(tmp_path, text, why):
    (tmp_path / "checkpoint").write_text(text)
    with pytest.raises(tf.errors.DataLossError, match=why) as info:
        tf.train.get_checkpoint_state(str(tmp_path))
    assert str(tmp_path / "checkpoint") in str(info.value)


def test_no_state_file_gives_none(tmp_path):
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert tf.train.latest_checkpoint(str(tmp_path / "missing")) is None


def test_custom_latest_filename_and_relative_paths(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    prefix = _write(d / "m-1", w=np.zeros(3, np.float32))
    cm.update_checkpoint_state(str(d), prefix, latest_filename="best",
                               save_relative_paths=True)
    assert (d / "best").read_text().startswith('model_checkpoint_path: "m-1"')
    assert tf.train.latest_checkpoint(str(d)) is None  # no "checkpoint" file
    os.rename(d, tmp_path / "moved")  # relative paths survive moving the directory
    moved = str(tmp_path / "moved")
    assert tf.train.latest_checkpoint(moved, "best") == os.path.join(moved, "m-1")
    with pytest.raises(ValueError, match="path components"):
        tf.train.get_checkpoint_state(moved, "a/best")


def test_saver_relative_paths(tmp_path):
    w = tf.Variable(tf.ones([2]), name="w")
    saver = tf.train.Saver(save_relative_paths=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "model.ckpt"), global_step=4, write_meta_graph=False)
    assert (tmp_path / "checkpoint").read_text().startswith(
        'model_checkpoint_path: "model.ckpt-4"')
    del w


def test_state_file_written_atomically(tmp_path, monkeypatch):
    cm.update_checkpoint_state(str(tmp_path), str(tmp_path / "a"))
    before = (tmp_path / "checkpoint").read_bytes()

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError):
        cm.update_checkpoint_state(str(tmp_path), str(tmp_path / "b"))
    monkeypatch.undo()
    assert (tmp_path / "checkpoint").read_bytes() == before
    assert os.listdir(tmp_path) == ["checkpoint"]


# ------------------------------------------------------------------- readers
def test_list_and_load_variables(tmp_path):
    prefix = _write(tmp_path / "m", **{"layer1/W": np.arange(6, dtype=np.float64).reshape(3, 2),
                                       "b": np.array(5, np.int32)})
    cm.update_checkpoint_state(str(tmp_path), prefix)
    expected = [("b", []), ("layer1/W", [3, 2])]
    assert tf.train.list_variables(prefix) == expected
    assert tf.train.list_variables(str(tmp_path)) == expected  # a directory: its latest
    value = tf.train.load_variable(str(tmp_path), "layer1/W:0")
    assert value.dtype == np.float64
    np.testing.assert_array_equal(value, np.arange(6).reshape(3, 2))
    assert tf.train.load_variable(prefix, "b") == 5
    with pytest.raises(tf.errors.NotFoundError, match="Key layer1/w not found.*layer1/W"):
        tf.train.load_variable(prefix, "layer1/w")
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint'"):
        tf.train.list_variables(str(tmp_path / "empty_dir"))


def test_checkpoint_reader(tmp_path):
    prefix = _write(tmp_path / "m", x=np.ones((2, 2), np.float16), flag=np.array([True]))
    reader = tf.train.NewCheckpointReader(prefix)
    assert reader.has_tensor("x") and not reader.has_tensor("y")
    assert reader.get_variable_to_shape_map() == {"x": [2, 2], "flag": [1]}
    assert reader.get_variable_to_dtype_map() == {"x": tf.float16, "flag": tf.bool}
    assert reader.global_step == 3
    assert reader.get_tensor("flag").dtype == np.bool_
    # The data file's own name works as well as the prefix.
    assert tf.train.checkpoint_exists(prefix + ".safetensors")
    assert tf.train.list_variables(prefix + ".safetensors") == [("flag", [1]), ("x", [2, 2])]


def test_plain_safetensors_file_from_elsewhere_is_readable(tmp_path):
    from safetensors.numpy import save_file
    save_file({"emb": np.eye(3, dtype=np.float32)}, str(tmp_path / "other.safetensors"))
    assert tf.train.list_variables(str(tmp_path / "other")) == [("emb", [3, 3])]
    emb = tf.Variable(tf.zeros([3, 3]), name="emb")
    with tf.Session() as sess:
        tf.train.Saver([emb]).restore(sess, str(tmp_path / "other"))
        np.testing.assert_array_equal(sess.run(emb), np.eye(3))


def test_unsupported_dtype_is_refused_before_writing(tmp_path):
    with pytest.raises(tf.errors.UnimplementedError, match="'s'"):
        cm.write_checkpoint(str(tmp_path / "m"), {"s": np.array(["a"], dtype=object)})
    assert os.listdir(tmp_path) == []
    with pytest.raises(TypeError, match="string variable"):
        tf.train.Saver([tf.Variable(np.array([b"a"], dtype=object), name="s")])


def test_remove_checkpoint_and_mtimes(tmp_path):
    prefix = _write(tmp_path / "m", w=np.zeros(1, np.float32))
    (tmp_path / "m.meta").write_text("{}")
    (tmp_path / "m.meta.safetensors").write_bytes(b"")  # the graph file's sidecars:
    (tmp_path / "m.meta.3f9a0c5b7e1d2a48.safetensors").write_bytes(b"")  # content-addressed
    kept = ["m.metadata.safetensors", "m-1.meta", "m-1.safetensors", "m.meta.3f9a0c.json",
            "m.meta.tmp.safetensors.bak", "m.meta.3f9a0c.safetensors"]
    for name in kept:
        (tmp_path / name).write_bytes(b"x")
    assert len(tf.train.get_checkpoint_mtimes([prefix, str(tmp_path / "nope")])) == 1
    tf.train.remove_checkpoint(prefix)
    assert sorted(os.listdir(tmp_path)) == sorted(kept)
    assert not tf.train.checkpoint_exists(prefix)
    with pytest.raises(ValueError, match="path separators"):
        tf.train.remove_checkpoint(prefix, meta_graph_suffix="meta/../../x")
