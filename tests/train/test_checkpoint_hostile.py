"""Hostile checkpoint data files and state files: every refusal is a tf.errors class
whose message names the file and what was wrong; reads are bounded and never block."""

import json
import os
import random
import struct
import threading

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.train import checkpoint_format, checkpoint_state
from staticgraph.train import checkpoint_management as cm


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


TENSORS = {"w": np.arange(6, dtype=np.float32).reshape(2, 3),
           "flag": np.array([True, False]), "n": np.array(-3, np.int64)}


def _valid(tmp_path, name="good"):
    """A checkpoint written by staticgraph: (prefix, header dict, tensor bytes)."""
    prefix = str(tmp_path / name)
    cm.write_checkpoint(prefix, TENSORS, global_step=7)
    blob = open(prefix + ".safetensors", "rb").read()
    (length,) = struct.unpack("<Q", blob[:8])
    return prefix, json.loads(blob[8:8 + length]), blob[8 + length:]


def _write_raw(prefix, header_bytes, body=b""):
    with open(prefix + ".safetensors", "wb") as f:
        f.write(struct.pack("<Q", len(header_bytes)) + header_bytes + body)
    return prefix


def _write(prefix, header, body):
    return _write_raw(prefix, json.dumps(header).encode(), body)


def _read_everything(prefix):
    """What a user does with a checkpoint: list, read every tensor, ask the step."""
    reader = tf.train.NewCheckpointReader(prefix)
    values = {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}
    reader.get_variable_to_dtype_map()
    tf.train.list_variables(prefix)
    return reader.global_step, values


def _run_with_timeout(fn, timeout=10):
    """``fn()``'s exception (or None); fails if it does not return within ``timeout``."""
    outcome = {}

    def target():
        try:
            fn()
            outcome["error"] = None
        except BaseException as exc:   # handed to the test thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), "the read blocked"
    return outcome["error"]


def test_valid_checkpoint_reads_back(tmp_path):
    prefix, _, _ = _valid(tmp_path)
    step, values = _read_everything(prefix)
    assert step == 7
    for name, expected in TENSORS.items():
        np.testing.assert_array_equal(values[name], expected)
        assert values[name].dtype == expected.dtype and values[name].flags.writeable


# ------------------------------------------------------------ malformed metadata
def _meta_case(**changes):
    def mutate(header):
        header["__metadata__"].update(changes)
        for key, value in changes.items():
            if value is None:
                del header["__metadata__"][key]
    return mutate


def _crc_case(crcs):
    return _meta_case(crc32=json.dumps(crcs))


METADATA_CASES = {
    "crc32_is_a_list": (_crc_case([1, 2]), "crc32 metadata is not a JSON object"),
    "crc32_not_json": (_meta_case(crc32="not json"), "crc32 metadata is not JSON"),
    "crc32_nested_deeply": (_meta_case(crc32="[" * 100_000), "crc32 metadata is not JSON"),
    "crc32_value_string": (_crc_case({"w": "x", "flag": 1, "n": 1}), "not a 32-bit checksum"),
    "crc32_value_too_big": (_crc_case({"w": 2 ** 32, "flag": 1, "n": 1}),
                            "not a 32-bit checksum"),
    "crc32_value_bool": (_crc_case({"w": True, "flag": 1, "n": 1}), "not a 32-bit checksum"),
    "crc32_unknown_tensor": (_crc_case({"w": 1, "flag": 1, "n": 1, "zz": 1}),
                             "names tensor 'zz', which it does not hold"),
    "crc32_missing_tensor": (_crc_case({"w": 1, "flag": 1}), "tensor 'n' has no crc32"),
    "crc32_absent": (_meta_case(crc32=None), "no crc32 checksums"),
    "global_step_arabic_digits": (_meta_case(global_step="\u0661\u0662"),
                                  "global_step .* is not an integer"),
    "global_step_superscript": (_meta_case(global_step="\u00b2"), "not an integer"),
    "global_step_5000_digits": (_meta_case(global_step="9" * 5000), "not an integer"),
    "global_step_float": (_meta_case(global_step="1.5"), "not an integer"),
    "format_version_text": (_meta_case(format_version="abc"), "format_version"),
    "format_version_zero": (_meta_case(format_version="0"), "format_version"),
    "format_version_arabic": (_meta_case(format_version="\u0661"), "format_version"),
    "format_version_absent": (_meta_case(format_version=None), "format_version"),
}


def test_future_format_version_is_unimplemented(tmp_path):
    prefix, header, body = _valid(tmp_path)
    header["__metadata__"]["format_version"] = "99"
    _write(prefix, header, body)
    with pytest.raises(tf.errors.UnimplementedError, match="format version 99"):
        tf.train.NewCheckpointReader(prefix)


# ------------------------------------------------------------- malformed header
def _entry_case(name, entry):
    def mutate(header):
        header[name] = entry
    return mutate


def _shift_case(header):
    header["w"]["data_offsets"] = [o + 1 for o in header["w"]["data_offsets"]]


HEADER_CASES = {
    "metadata_not_strings": (_entry_case("__metadata__", {"crc32": {"a": 1}}),
                             "__metadata__ is not an object of strings"),
    "metadata_a_list": (_entry_case("__metadata__", ["x"]), "__metadata__ is not an object"),
    "entry_not_object": (_entry_case("w", 5), "tensor 'w' is not an object"),
    "entry_extra_key": (_entry_case("w", {"dtype": "F32", "shape": [2, 3], "x": 1,
                                          "data_offsets": [0, 24]}), "is not an object"),
    "dtype_not_string": (_entry_case("w", {"dtype": 7, "shape": [2, 3],
                                           "data_offsets": [0, 24]}), "invalid dtype"),
    "shape_negative": (_entry_case("w", {"dtype": "F32", "shape": [-2, -3],
                                         "data_offsets": [0, 24]}), "invalid shape"),
    "shape_bool": (_entry_case("w", {"dtype": "F32", "shape": [True, 6],
                                     "data_offsets": [0, 24]}), "invalid shape"),
    "shape_float": (_entry_case("w", {"dtype": "F32", "shape": [2.0, 3],
                                      "data_offsets": [0, 24]}), "invalid shape"),
    "shape_rank_65": (_entry_case("w", {"dtype": "F32", "shape": [1] * 65,
                                        "data_offsets": [0, 24]}), "invalid shape"),
    "shape_too_big_but_empty": (_entry_case("z", {"dtype": "F32", "shape": [0, 2 ** 62],
                                                  "data_offsets": [0, 0]}), "too large"),
    "offsets_beyond_file": (_entry_case("w", {"dtype": "F32", "shape": [2, 3],
                                              "data_offsets": [0, 10 ** 12]}), "outside"),
    "offsets_reversed": (_entry_case("w", {"dtype": "F32", "shape": [2, 3],
                                           "data_offsets": [24, 0]}), "outside"),
    "offsets_not_pair": (_entry_case("w", {"dtype": "F32", "shape": [2, 3],
                                           "data_offsets": [0]}), "outside"),
    "span_mismatch": (_entry_case("w", {"dtype": "F32", "shape": [5],
                                        "data_offsets": [0, 24]}), "spans 24 bytes"),
    "overlap_or_gap": (_shift_case, "overlap or leave a gap|outside"),
    "bf16_in_own_format": (lambda h: h["w"].update(dtype="BF16", shape=[12]), "never hold"),
}


@pytest.mark.parametrize("case", sorted(METADATA_CASES) + sorted(HEADER_CASES))
def test_malformed_metadata_or_header_is_data_loss_naming_file(tmp_path, case):
    mutate, why = {**METADATA_CASES, **HEADER_CASES}[case]
    prefix, header, body = _valid(tmp_path)
    mutate(header)
    _write(prefix, header, body)
    with pytest.raises(tf.errors.DataLossError, match=why) as info:
        _read_everything(prefix)
    assert prefix + ".safetensors" in str(info.value)
    with tf.Session() as sess:   # Saver.restore refuses it the same way
        v = tf.Variable(np.zeros([2, 3], np.float32), name="w")
        with pytest.raises(tf.errors.DataLossError):
            tf.train.Saver({"w": v}).restore(sess, prefix)


@pytest.mark.parametrize("raw, why", [
    (b"[1, 2]", "not a JSON object"),
    (b"{nope", "not JSON"),
    (b'{"a": "\xff\xfe"}', "not JSON"),
    (b"[" * 200_000, "not JSON|more than"),
    (b'{"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}', "cover 1 of the 5"),
], ids=["list", "not_json", "not_utf8", "nested_200k", "data_not_covered"])
def test_malformed_header_bytes_are_data_loss(tmp_path, raw, why):
    prefix = _write_raw(str(tmp_path / "m"), raw, b"\x00" * 5)
    with pytest.raises(tf.errors.DataLossError, match=why):
        tf.train.NewCheckpointReader(prefix)


def test_header_length_is_checked_before_reading(tmp_path):
    prefix = str(tmp_path / "m")
    with open(prefix + ".safetensors", "wb") as f:
        f.write(b"\x01\x02\x03")
    with pytest.raises(tf.errors.DataLossError, match="shorter than the 8-byte"):
        tf.train.NewCheckpointReader(prefix)
    with open(prefix + ".safetensors", "wb") as f:
        f.write(struct.pack("<Q", 1 << 40) + b"{}")
    with pytest.raises(tf.errors.DataLossError, match="above the limit of 33554432"):
        tf.train.NewCheckpointReader(prefix)
    with open(prefix + ".safetensors", "wb") as f:
        f.write(struct.pack("<Q", 1000) + b"{}")
    with pytest.raises(tf.errors.DataLossError, match="1000 exceeds the file size 10"):
        tf.train.NewCheckpointReader(prefix)


def test_huge_header_of_the_1_5m_entry_reproducer_is_refused_unread(tmp_path):
    # The reproducer's header is 84 MB: its 8-byte length alone refuses it (the file
    # is sparse here, so the test neither writes nor reads 84 MB).
    prefix = str(tmp_path / "m")
    with open(prefix + ".safetensors", "wb") as f:
        f.write(struct.pack("<Q", 84_381_616))
        f.truncate(8 + 84_381_616)
    with pytest.raises(tf.errors.DataLossError, match="84381616 is above the limit"):
        tf.train.NewCheckpointReader(prefix)


def test_too_many_values_are_refused_before_parsing(tmp_path, monkeypatch):
    # 1.5M JSON containers in 4.5 MB: refused by counting, before any is built.
    junk = b'{"a": [' + b"[]," * 1_500_000 + b"[]]}"
    prefix = _write_raw(str(tmp_path / "m"), junk)
    with pytest.raises(tf.errors.DataLossError, match="more than 100000 tensors"):
        tf.train.NewCheckpointReader(prefix)
    # Past the cheap count, the parsed number of tensors is checked too.
    monkeypatch.setattr(checkpoint_format, "MAX_TENSORS", 3)
    _, header, body = _valid(tmp_path)
    header["extra"] = {"dtype": "U8", "shape": [0], "data_offsets": [0, 0]}
    _write(prefix, header, body)
    with pytest.raises(tf.errors.DataLossError, match="it holds 4 tensors, above the limit"):
        tf.train.NewCheckpointReader(prefix)


def test_writer_refuses_a_header_readers_would_refuse(tmp_path, monkeypatch):
    monkeypatch.setattr(checkpoint_format, "MAX_HEADER_BYTES", 200)
    with pytest.raises(tf.errors.InvalidArgumentError, match="header would be .* above"):
        cm.write_checkpoint(str(tmp_path / "m"), TENSORS)
    assert os.listdir(tmp_path) == []
    monkeypatch.undo()
    monkeypatch.setattr(checkpoint_format, "MAX_TENSORS", 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="more values than 3 tensors"):
        cm.write_checkpoint(str(tmp_path / "m"), {"," * 2000: np.zeros(1, np.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="4 tensors .* at most 3"):
        cm.write_checkpoint(str(tmp_path / "m"), dict(TENSORS, extra=np.zeros(1)))
    assert os.listdir(tmp_path) == []


# -------------------------------------------------- files from other tools
def test_foreign_file_with_bf16_lists_but_refuses_that_tensor(tmp_path):
    header = {"__metadata__": {"format": "pt"},
              "emb": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
              "half": {"dtype": "BF16", "shape": [2], "data_offsets": [8, 12]}}
    prefix = _write(str(tmp_path / "m"), header,
                    np.array([1.5, 2.5], np.float32).tobytes() + b"\x80\x3f\x00\x40")
    assert tf.train.list_variables(prefix) == [("emb", [2]), ("half", [2])]
    reader = tf.train.NewCheckpointReader(prefix)
    np.testing.assert_array_equal(reader.get_tensor("emb"), [1.5, 2.5])
    assert reader.global_step is None
    with pytest.raises(tf.errors.UnimplementedError, match="'half'.*BF16"):
        reader.get_tensor("half")
    with pytest.raises(tf.errors.UnimplementedError, match="BF16"):
        reader.get_variable_to_dtype_map()
    v = tf.Variable(np.zeros(2, np.float32), name="half")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="dtype BF16"):
            tf.train.Saver([v]).restore(sess, prefix)


def test_foreign_file_global_step_takes_ascii_digits_only(tmp_path):
    header = {"__metadata__": {"global_step": "\u0661\u0662"},
              "a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}
    prefix = _write(str(tmp_path / "m"), header, b"\x05")
    assert tf.train.NewCheckpointReader(prefix).global_step is None
    header["__metadata__"]["global_step"] = "12"
    _write(prefix, header, b"\x05")
    assert tf.train.NewCheckpointReader(prefix).global_step == 12


def test_bool_bytes_other_than_0_and_1_read_as_true(tmp_path):
    header = {"b": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}}
    prefix = _write(str(tmp_path / "m"), header, b"\x00\x01\x07")
    value = tf.train.load_variable(prefix, "b")
    assert value.dtype == np.bool_ and value.tolist() == [False, True, True]
    assert value.view(np.uint8).tolist() == [0, 1, 1]


def test_file_rewritten_after_the_reader_opened_it(tmp_path):
    prefix, _, _ = _valid(tmp_path)
    reader = tf.train.NewCheckpointReader(prefix)
    cm.write_checkpoint(prefix, dict(TENSORS, w=TENSORS["w"] * 2), global_step=8)
    np.testing.assert_array_equal(reader.get_tensor("w"), TENSORS["w"] * 2)
    assert reader.global_step == 8
    cm.write_checkpoint(prefix, dict(TENSORS, w=np.zeros(4, np.float32)), global_step=9)
    with pytest.raises(tf.errors.DataLossError, match="tensor 'w' changed"):
        reader.get_tensor("w")


# ------------------------------------------ FIFOs, devices and directories
def test_fifo_or_device_as_data_file_is_refused_without_blocking(tmp_path):
    fifo = str(tmp_path / "f")
    os.mkfifo(fifo + ".safetensors")
    error = _run_with_timeout(lambda: tf.train.NewCheckpointReader(fifo))
    assert isinstance(error, tf.errors.InvalidArgumentError) and "FIFO" in str(error)
    dev = str(tmp_path / "d")
    os.symlink("/dev/zero", dev + ".safetensors")
    error = _run_with_timeout(lambda: tf.train.NewCheckpointReader(dev))
    assert isinstance(error, tf.errors.InvalidArgumentError) and "device" in str(error)
    os.mkdir(tmp_path / "dir.safetensors")
    with pytest.raises(tf.errors.NotFoundError):
        tf.train.NewCheckpointReader(str(tmp_path / "dir"))
    v = tf.Variable(np.zeros(2, np.float32), name="v")
    with tf.Session() as sess:    # restore: not a checkpoint, a ValueError as in TF1
        for prefix in (fifo, dev, str(tmp_path / "dir")):
            error = _run_with_timeout(lambda p=prefix: tf.train.Saver([v]).restore(sess, p))
            assert isinstance(error, (tf.errors.OpError)) and isinstance(error, ValueError)


def test_fifo_or_device_as_state_file_is_refused_without_blocking(tmp_path):
    (tmp_path / "a").mkdir()
    os.mkfifo(tmp_path / "a" / "checkpoint")
    error = _run_with_timeout(lambda: tf.train.latest_checkpoint(str(tmp_path / "a")))
    assert isinstance(error, tf.errors.InvalidArgumentError)
    assert "checkpoint state file" in str(error) and "FIFO" in str(error)
    (tmp_path / "b").mkdir()
    os.symlink("/dev/zero", tmp_path / "b" / "checkpoint")
    error = _run_with_timeout(lambda: tf.train.get_checkpoint_state(str(tmp_path / "b")))
    assert isinstance(error, tf.errors.InvalidArgumentError) and "device" in str(error)
    (tmp_path / "c" / "checkpoint").mkdir(parents=True)
    assert tf.train.get_checkpoint_state(str(tmp_path / "c")) is None


def test_state_file_above_the_limit_is_refused_unread(tmp_path):
    with open(tmp_path / "checkpoint", "wb") as f:
        f.truncate(cm.STATE_FILE_LIMIT + 1)        # sparse: nothing is written
    with pytest.raises(tf.errors.InvalidArgumentError, match="above the limit of 4194304"):
        tf.train.get_checkpoint_state(str(tmp_path))


def test_state_file_that_would_exceed_the_limit_is_not_written(tmp_path, monkeypatch):
    cm.update_checkpoint_state(str(tmp_path), str(tmp_path / "a"))
    before = (tmp_path / "checkpoint").read_bytes()
    monkeypatch.setattr(checkpoint_state, "STATE_FILE_LIMIT", 300)
    many = [str(tmp_path / f"model.ckpt-{i}") for i in range(20)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="above the limit of 300 .*"
                                                             "max_to_keep"):
        cm.update_checkpoint_state(str(tmp_path), many[-1], many)
    assert (tmp_path / "checkpoint").read_bytes() == before


# ------------------------------------------------------------- state file text
@pytest.mark.parametrize("text, why", [
    ('model_checkpoint_path: "a\\000b"\n', "NUL"),
    ('model_checkpoint_path: "a\x00b"\n', "NUL"),
    ('model_checkpoint_path: "\\377\\376"\n', "not valid UTF-8"),
    ('model_checkpoint_path: "a"\nall_model_checkpoint_timestamps: \u0661\u0662\n', "number"),
    ('model_checkpoint_path: "a\\"\n', "quoted string|backslash"),
    ('model_checkpoint_path: "a\\x"\n', "without hex digits"),
    ('model_checkpoint_path: "a"b"\n', "unescaped quote"),
])
def test_hostile_state_file_text_is_data_loss(tmp_path, text, why):
    (tmp_path / "checkpoint").write_bytes(text.encode("utf-8"))
    with pytest.raises(tf.errors.DataLossError, match=why) as info:
        tf.train.latest_checkpoint(str(tmp_path))
    assert str(tmp_path / "checkpoint") in str(info.value)


def test_state_file_paths_round_trip_any_text(tmp_path):
    rng = random.Random(7)
    alphabet = ("ab/\\\"'\n\r\t\x01\x0b\x0c\x1c\x1d\x1e\x7f\x85\u2028\u2029\u00e9\u4e2d"
                "\U0001f600 #:")
    for _ in range(200):
        paths = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
                 for _ in range(3)]
        state = cm.CheckpointState(paths[-1], paths, [1.5, 2.0, float(rng.random())], 3.25)
        assert cm.CheckpointState.from_text(state.to_text()) == state
    # Written to disk and read back (the \u2028 line separator once split lines).
    path = str(tmp_path / "we\u2028ird\x0bname")
    cm.update_checkpoint_state(str(tmp_path), path)
    assert tf.train.get_checkpoint_state(str(tmp_path)).model_checkpoint_path == path


# ------------------------------------------------------------------- fuzzing
HOSTILE_VALUES = [None, True, False, -1, 0, 2 ** 64, 10 ** 30, 1.5, float("1e308"), "", "x",
                  "\u0661\u0662", "F32", "BF16", "BOOL", "U16", [], {}, [1, 2, 3], [0, 2 ** 62],
                  [-1], {"a": 1}, ["a"], "[" * 50, "{}", "[]", '{"w": 1}', "99", "-5"]


def _mutate_json(rng, value, depth=0):
    """``value`` with one random element replaced, removed or added."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        roll = rng.random()
        if roll < 0.15:
            return {k: v for k, v in value.items() if k != key}
        if roll < 0.25:
            return dict(value, **{rng.choice(["x", "__metadata__", "w", ""]):
                                  rng.choice(HOSTILE_VALUES)})
        if isinstance(value[key], str) and value[key][:1] in "{[" and rng.random() < 0.7:
            try:   # the crc32 metadata: mutate inside its JSON text
                inner = json.loads(value[key])
                return dict(value, **{key: json.dumps(_mutate_json(rng, inner, depth + 1))})
            except ValueError:
                pass
        return dict(value, **{key: _mutate_json(rng, value[key], depth + 1)})
    if isinstance(value, list) and value and rng.random() < 0.8:
        i = rng.randrange(len(value))
        out = list(value)
        out[i] = _mutate_json(rng, value[i], depth + 1)
        return out
    return rng.choice(HOSTILE_VALUES)


HOSTILE_STRINGS = ["", "x", "\u0661\u0662", "\u00b2", "9" * 30, "-0", "1.5", " 1", "[]",
                   "[1]", "{}", "null", "true", "[" * 50, '{"w": "x"}', '{"w": -1}',
                   '{"zz": 1}', "99", "0", "staticgraph.checkpoint", "pt"]
HOSTILE_DTYPES = ["BF16", "F8_E4M3", "U16", "U64", "F32", "I64", "BOOL", "X", "", 5, None]


def _mutate_header(rng, header):
    """``header`` with its metadata, a dtype, or any element made hostile."""
    roll = rng.random()
    if not isinstance(header, dict) or not isinstance(header.get("__metadata__"), dict):
        return _mutate_json(rng, header)
    entries = [k for k, v in header.items() if k != "__metadata__" and isinstance(v, dict)]
    if roll < 0.4:
        meta = dict(header["__metadata__"])
        key = rng.choice(["format_version", "global_step", "crc32", "format"])
        if key == "crc32" and meta.get(key, "")[:1] == "{" and rng.random() < 0.5:
            meta[key] = json.dumps(_mutate_json(rng, json.loads(meta[key])))
        elif rng.random() < 0.1:
            meta.pop(key, None)
        else:
            meta[key] = rng.choice(HOSTILE_STRINGS)
        return dict(header, __metadata__=meta)
    if roll < 0.6 and entries:
        name = rng.choice(entries)
        return dict(header, **{name: dict(header[name], dtype=rng.choice(HOSTILE_DTYPES))})
    return _mutate_json(rng, header)


def _expect_clean_outcome(prefix, what):
    try:
        _read_everything(prefix)
    except tf.errors.OpError as exc:
        assert str(exc), what
    except Exception as exc:   # anything else is a crash path
        raise AssertionError(f"{what}: {type(exc).__name__}: {exc}") from exc


def test_fuzzed_headers_give_only_tf_errors(tmp_path):
    rng = random.Random(20240611)
    prefix, header, body = _valid(tmp_path)
    target = str(tmp_path / "fuzz")
    for i in range(400):
        mutated = header
        for _ in range(rng.randint(1, 3)):
            mutated = _mutate_header(rng, mutated)
        cut = body if rng.random() < 0.8 else body[:rng.randrange(len(body) + 1)]
        _write(target, mutated, cut)
        _expect_clean_outcome(target, f"case {i}: {json.dumps(mutated)[:300]}")


def test_fuzzed_bytes_give_only_tf_errors(tmp_path):
    rng = random.Random(99)
    prefix, _, _ = _valid(tmp_path)
    blob = bytearray(open(prefix + ".safetensors", "rb").read())
    target = str(tmp_path / "fuzz")
    for i in range(400):
        data = bytearray(blob)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(data))
            roll = rng.random()
            if roll < 0.6:
                data[pos] = rng.randrange(256)
            elif roll < 0.8:
                del data[pos:pos + rng.randint(1, 8)]
            else:
                data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        with open(target + ".safetensors", "wb") as f:
            f.write(bytes(data))
        _expect_clean_outcome(target, f"case {i}")


def test_fuzzed_state_files_give_only_tf_errors(tmp_path):
    rng = random.Random(5)
    pieces = ['model_checkpoint_path: "m"', "all_model_checkpoint_paths: 'm'",
              "all_model_checkpoint_timestamps: 1.5", "last_preserved_timestamp: nan",
              '"\\', "\\x", "\\777", "\\0", ":", "#", "\x00", "\r", "\u2028", "\xff",
              "model_checkpoint_path", " ", '"', "'", "\\u1234", "1e999", "-", "\u0661"]
    valid = ('model_checkpoint_path: "m-2"\nall_model_checkpoint_paths: "m-1"\n'
             'all_model_checkpoint_paths: "m-2"\nall_model_checkpoint_timestamps: 1.0\n'
             "last_preserved_timestamp: 2.0\n").encode()
    for i in range(400):
        if rng.random() < 0.5:
            text = "\n".join("".join(rng.choice(pieces) for _ in range(rng.randint(1, 5)))
                             for _ in range(rng.randint(1, 4))).encode("utf-8", "replace")
        else:
            data = bytearray(valid)
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            text = bytes(data)
        (tmp_path / "checkpoint").write_bytes(text)
        try:
            state = tf.train.get_checkpoint_state(str(tmp_path))
            tf.train.latest_checkpoint(str(tmp_path))
            if state is not None:
                state.to_text()
        except tf.errors.OpError:
            pass
        except Exception as exc:
            raise AssertionError(f"case {i} {text!r}: {type(exc).__name__}: {exc}") from exc
