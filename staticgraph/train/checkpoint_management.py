"""Checkpoint files: the tensor format, atomic writes, and the ``checkpoint`` state file.

A checkpoint with prefix ``model.ckpt-100`` is

- ``model.ckpt-100.safetensors``: the tensors by their TF1 names (``layer1/W``) in the
  safetensors format (no code runs on load; other tools read it), with a CRC32 of every
  tensor in its metadata. This file alone makes the checkpoint.
- ``model.ckpt-100.index.json``: a small description for people and tools (format,
  version, global step, names, dtypes, shapes); readers never need it.
- ``model.ckpt-100.meta``: the graph (written by :class:`~staticgraph.train.Saver`).

The ``checkpoint`` state file of a directory lists its checkpoints in TF1's text format
(``model_checkpoint_path: "model.ckpt-100"`` lines). Every file is written to a temporary
file in the same directory, flushed, fsynced and renamed into place, so a crash or a
full disk leaves the previous files intact.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
import zlib

import numpy as np

from .. import errors

__all__ = [
    "CheckpointState", "CheckpointReader", "NewCheckpointReader", "checkpoint_exists",
    "get_checkpoint_state", "latest_checkpoint", "update_checkpoint_state",
    "generate_checkpoint_state_proto", "get_checkpoint_mtimes", "remove_checkpoint",
    "list_variables", "load_variable",
]

FORMAT_NAME = "staticgraph.checkpoint"
FORMAT_VERSION = 1
DATA_SUFFIX = ".safetensors"
INDEX_SUFFIX = ".index.json"

# safetensors dtype codes <-> the staticgraph dtype names they hold.
_CODE_TO_NAME = {"F16": "float16", "F32": "float32", "F64": "float64", "I8": "int8",
                 "I16": "int16", "I32": "int32", "I64": "int64", "U8": "uint8", "BOOL": "bool"}


# ------------------------------------------------------------------ atomic writes
def atomic_write(path, write):
    """Write ``path`` atomically: ``write(tmp_path)`` fills a temporary file in the same
    directory, which is fsynced and renamed over ``path``. On any failure the temporary
    file is removed and ``path`` is left as it was."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=directory)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; files get the usual mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    _fsync_directory(directory)


def _read_umask():
    """The process umask, read once at import (reading it means setting it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def _write_bytes(data):
    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(data)
    return write


def _fsync_directory(directory):
    """Make a rename durable (POSIX); a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def tensor_crc32(array) -> int:
    """CRC32 of an array's bytes in C order."""
    flat = np.asarray(array, order="C").reshape(-1)
    return zlib.crc32(flat.view(np.uint8)) & 0xFFFFFFFF


# ------------------------------------------------------------ writing and reading
def write_checkpoint(prefix, tensors, global_step=None):
    """Write ``tensors`` (name -> ndarray) as the checkpoint ``prefix`` (data, then index)."""
    import safetensors.numpy as st
    arrays, entries, crcs = {}, {}, {}
    for name, value in tensors.items():
        arr = np.asarray(value, order="C")
        if arr.dtype.name not in _CODE_TO_NAME.values():
            raise errors.UnimplementedError(
                None, None, f"Cannot save variable '{name}' of dtype {arr.dtype}: checkpoints "
                f"hold {', '.join(sorted(set(_CODE_TO_NAME.values())))} tensors")
        arrays[name] = arr
        crcs[name] = tensor_crc32(arr)
        entries[name] = {"dtype": arr.dtype.name, "shape": list(arr.shape), "crc32": crcs[name]}
    metadata = {"format": FORMAT_NAME, "format_version": str(FORMAT_VERSION),
                "global_step": "" if global_step is None else str(int(global_step)),
                "crc32": json.dumps(crcs, sort_keys=True)}
    atomic_write(prefix + DATA_SUFFIX,
                 lambda tmp: st.save_file(arrays, tmp, metadata=metadata))
    index = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
             "data_file": os.path.basename(prefix + DATA_SUFFIX),
             "global_step": None if global_step is None else int(global_step),
             "variables": entries}
    atomic_write(prefix + INDEX_SUFFIX,
                 _write_bytes(json.dumps(index, indent=1, sort_keys=True).encode("utf-8")))


def checkpoint_exists(checkpoint_prefix) -> bool:
    """True when ``checkpoint_prefix`` (``.../model.ckpt-100``) names a saved checkpoint."""
    return os.path.isfile(_data_file(os.fspath(checkpoint_prefix)))


def _data_file(prefix):
    if prefix.endswith(DATA_SUFFIX) and os.path.isfile(prefix):
        return prefix  # the data file itself was given
    return prefix + DATA_SUFFIX


def _not_a_checkpoint(prefix, cls=errors.NotFoundError):
    hint = ""
    if os.path.isfile(prefix + ".index") or os.path.isfile(prefix + ".data-00000-of-00001"):
        hint = (" (TensorFlow's own checkpoint files are there; staticgraph reads and writes "
                f"'{prefix}{DATA_SUFFIX}' and cannot read TensorFlow's binary format)")
    elif os.path.isdir(prefix):
        hint = " (it is a directory: pass tf.train.latest_checkpoint(dir) or a checkpoint prefix)"
    else:
        hint = f" (no file '{prefix}{DATA_SUFFIX}')"
    message = f"The passed save_path is not a valid checkpoint: {prefix}{hint}"
    if cls is ValueError:
        return ValueError(message)
    return cls(None, None, message)


class CheckpointReader:
    """Reads one checkpoint (TF1's ``NewCheckpointReader``), memory-mapping the tensors.

    Raises:
        errors.NotFoundError: the path is not a checkpoint.
        errors.DataLossError: the file is truncated or corrupted.
    """

    def __init__(self, checkpoint_prefix):
        prefix = os.fspath(checkpoint_prefix)
        self.filename = _data_file(prefix)
        if not os.path.isfile(self.filename):
            raise _not_a_checkpoint(prefix)
        from safetensors import safe_open
        try:
            with safe_open(self.filename, framework="numpy") as f:
                self._meta = f.metadata() or {}
                self._specs = {}
                for key in f.keys():
                    sl = f.get_slice(key)
                    code = sl.get_dtype()
                    self._specs[key] = (_CODE_TO_NAME.get(code, code), tuple(sl.get_shape()))
        except Exception as e:  # safetensors reports a bad file as SafetensorError
            raise self._data_loss(f"cannot read its header ({e})") from None
        self._crcs = {}
        if self._meta.get("format") == FORMAT_NAME:
            try:
                version = int(self._meta.get("format_version", ""))
                self._crcs = json.loads(self._meta.get("crc32", "{}"))
            except ValueError:
                raise self._data_loss("its metadata is corrupted") from None
            if version > FORMAT_VERSION:
                raise errors.UnimplementedError(
                    None, None, f"Checkpoint {self.filename} has format version {version}; "
                    f"this staticgraph reads up to version {FORMAT_VERSION}")

    def _data_loss(self, what):
        return errors.DataLossError(None, None, f"Checkpoint {self.filename} is truncated or "
                                                f"corrupted: {what}")

    @property
    def global_step(self):
        """The global step recorded at save time, or None."""
        step = self._meta.get("global_step", "")
        return int(step) if step.lstrip("-").isdigit() else None

    def has_tensor(self, name) -> bool:
        """Whether the checkpoint holds ``name``."""
        return name in self._specs

    def get_variable_to_shape_map(self):
        """``{name: [dims]}``."""
        return {k: list(shape) for k, (_, shape) in self._specs.items()}

    def get_variable_to_dtype_map(self):
        """``{name: DType}``."""
        from ..graphlib import as_dtype
        return {k: as_dtype(d) for k, (d, _) in self._specs.items()}

    def spec(self, name):
        """``(dtype name, shape tuple)`` of ``name``; NotFoundError when absent."""
        try:
            return self._specs[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(self._specs), n=3)
            hint = f"; similar names: {', '.join(close)}" if close else ""
            raise errors.NotFoundError(
                None, None, f"Key {name} not found in checkpoint {self.filename}{hint}") from None

    def get_tensor(self, name):
        """A fresh, writable copy of tensor ``name`` (its checksum verified)."""
        self.spec(name)
        from safetensors import safe_open
        try:
            with safe_open(self.filename, framework="numpy") as f:
                value = np.array(f.get_tensor(name), copy=True, order="C")
        except Exception as e:
            raise self._data_loss(f"cannot read tensor '{name}' ({e})") from None
        expected = self._crcs.get(name)
        if expected is not None and tensor_crc32(value) != expected:
            raise self._data_loss(f"the checksum of tensor '{name}' does not match")
        return value

    def debug_string(self):
        """One ``name (dtype) [shape]`` line per tensor."""
        return "".join(f"{k} ({d}) {list(s)}\n" for k, (d, s) in sorted(self._specs.items()))


NewCheckpointReader = CheckpointReader


def _reader_for(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {path}")
        path = latest
    return CheckpointReader(path)


def list_variables(ckpt_dir_or_file):
    """``[(name, shape)]`` of the tensors in a checkpoint, sorted by name.

    Args:
        ckpt_dir_or_file: a checkpoint prefix or a directory (its latest checkpoint).
    """
    reader = _reader_for(ckpt_dir_or_file)
    return [(name, shape) for name, shape in sorted(reader.get_variable_to_shape_map().items())]


def load_variable(ckpt_dir_or_file, name):
    """The value (numpy array) of tensor ``name`` in a checkpoint.

    Raises:
        errors.NotFoundError: no such tensor or checkpoint.
    """
    if name.endswith(":0"):
        name = name[:-2]
    return _reader_for(ckpt_dir_or_file).get_tensor(name)


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=None,
                      meta_graph_suffix="meta"):
    """Delete the files of checkpoint ``checkpoint_prefix`` (missing ones are ignored)."""
    meta = "." + meta_graph_suffix
    for suffix in (DATA_SUFFIX, INDEX_SUFFIX, meta, meta + DATA_SUFFIX):  # + the graph's sidecar
        try:
            os.remove(checkpoint_prefix + suffix)
        except FileNotFoundError:
            pass


def get_checkpoint_mtimes(checkpoint_prefixes):
    """Modification times of the checkpoints that exist (others are skipped)."""
    times = []
    for prefix in checkpoint_prefixes:
        try:
            times.append(os.path.getmtime(_data_file(prefix)))
        except OSError:
            pass
    return times


# --------------------------------------------------------------- the state file
class CheckpointState:
    """The contents of a ``checkpoint`` state file (TF1's ``CheckpointState`` proto)."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def to_text(self) -> str:
        """TF1's text format of the proto."""
        lines = [f"model_checkpoint_path: {_quote(self.model_checkpoint_path)}"]
        lines += [f"all_model_checkpoint_paths: {_quote(p)}"
                  for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {float(t)!r}"
                  for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append(f"last_preserved_timestamp: {float(self.last_preserved_timestamp)!r}")
        return "\n".join(lines) + "\n"

    __str__ = to_text

    def __repr__(self):
        return f"CheckpointState({self.to_text().strip()!r})"

    def __eq__(self, other):
        return isinstance(other, CheckpointState) and vars(self) == vars(other)

    @classmethod
    def from_text(cls, text, filename="<checkpoint>"):
        """Parse TF1's text format strictly.

        Raises:
            errors.DataLossError: a line is not ``key: value`` with a known key and a
                well-formed value (the message names the file and the line).
        """
        state = cls()
        seen_model_path = False
        for lineno, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue

            def bad(why, lineno=lineno, raw=raw):
                return errors.DataLossError(
                    None, None, f"Malformed checkpoint state file {filename}, line {lineno} "
                                f"({raw.strip()!r}): {why}")

            key, sep, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if not sep:
                raise bad("expected 'key: value'")
            if key in ("model_checkpoint_path", "all_model_checkpoint_paths"):
                text_value = _unquote(value, bad)
                if key == "model_checkpoint_path":
                    if seen_model_path:
                        raise bad("model_checkpoint_path appears twice")
                    seen_model_path = True
                    state.model_checkpoint_path = text_value
                else:
                    state.all_model_checkpoint_paths.append(text_value)
            elif key in ("all_model_checkpoint_timestamps", "last_preserved_timestamp"):
                try:
                    number = float(value)
                except ValueError:
                    raise bad("expected a number") from None
                if key == "last_preserved_timestamp":
                    state.last_preserved_timestamp = number
                else:
                    state.all_model_checkpoint_timestamps.append(number)
            else:
                raise bad(f"unknown field {key!r}")
        return state


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", '"': b'"', "'": b"'", "\\": b"\\",
              "a": b"\a", "b": b"\b", "f": b"\f", "v": b"\v", "?": b"?"}


def _quote(text):
    return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'


def _unquote(value, bad):
    if len(value) < 2 or value[0] not in "\"'" or value[-1] != value[0]:
        raise bad("expected a quoted string")
    body, out, i = value[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == value[0]:
            raise bad("unescaped quote inside the string")
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        if i + 1 >= len(body):
            raise bad("string ends with a backslash")
        e = body[i + 1]
        if e in _UNESCAPES:
            out += _UNESCAPES[e]
            i += 2
        elif e in "01234567":
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1:j], 8) & 0xFF)
            i = j
        elif e in "xX":
            j = i + 2
            while j < len(body) and j < i + 4 and body[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 2:
                raise bad("\\x without hex digits")
            out.append(int(body[i + 2:j], 16))
            i = j
        else:
            raise bad(f"unknown escape \\{e}")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise bad("the path is not valid UTF-8") from None


def _state_path(checkpoint_dir, latest_filename):
    latest_filename = latest_filename or "checkpoint"
    if os.path.split(latest_filename)[0]:
        raise ValueError("'latest_filename' must not contain path components")
    return os.path.join(checkpoint_dir, latest_filename)


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None):
    """A :class:`CheckpointState`; paths under an absolute ``save_dir`` are made relative
    to it when ``save_dir`` is relative (TF1's rule), and the latest path is listed last."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [os.path.relpath(p, save_dir) if not os.path.isabs(p) else p for p in paths]
    timestamps = list(all_model_checkpoint_timestamps or [])
    if timestamps and len(timestamps) != len(paths):
        raise ValueError(f"Checkpoint timestamps, if provided, must match checkpoint paths "
                         f"({len(timestamps)} != {len(paths)})")
    return CheckpointState(model_checkpoint_path, paths, timestamps,
                           last_preserved_timestamp or 0.0)


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None, save_relative_paths=False):
    """Atomically rewrite the state file of ``save_dir`` (``checkpoint`` by default).

    Paths are stored relative to ``save_dir`` when ``save_relative_paths`` (the
    directory can then be moved), absolute otherwise.
    """
    def store(p):
        if save_relative_paths:
            return os.path.relpath(os.path.abspath(p), os.path.abspath(save_dir))
        return os.path.abspath(p)

    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    timestamps = list(all_model_checkpoint_timestamps or [])
    if timestamps and len(timestamps) != len(paths):
        raise ValueError(f"Checkpoint timestamps, if provided, must match checkpoint paths "
                         f"({len(timestamps)} != {len(paths)})")
    state = CheckpointState(store(model_checkpoint_path), [store(p) for p in paths],
                            timestamps, last_preserved_timestamp or 0.0)
    path = _state_path(save_dir, latest_filename)
    if os.path.abspath(path) == os.path.abspath(model_checkpoint_path):
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used "
                           f"for checkpoint state. Please use a different save path.")
    atomic_write(path, _write_bytes(state.to_text().encode("utf-8")))


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The :class:`CheckpointState` of ``checkpoint_dir``, or None when it has no state file.

    Relative paths in the file are returned joined to ``checkpoint_dir``.

    Raises:
        errors.DataLossError: the state file is malformed.
    """
    path = _state_path(os.fspath(checkpoint_dir), latest_filename)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.DataLossError(None, None, f"Malformed checkpoint state file {path}: "
                                               f"not UTF-8 text") from None
    state = CheckpointState.from_text(text, path)
    if not state.model_checkpoint_path:
        raise errors.DataLossError(None, None, f"Invalid checkpoint state file {path}: "
                                               f"it names no model_checkpoint_path")

    def resolve(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)

    state.model_checkpoint_path = resolve(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [resolve(p) for p in state.all_model_checkpoint_paths]
    return state


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in ``checkpoint_dir``, or None if there is none.

    Example:
        >>> saver.restore(sess, tf.train.latest_checkpoint("/tmp/model"))
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None
