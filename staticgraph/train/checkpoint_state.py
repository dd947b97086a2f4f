"""The ``checkpoint`` state file: TF1's text format listing a directory's checkpoints.

``model_checkpoint_path: "model.ckpt-100"`` and ``all_model_checkpoint_paths`` lines,
parsed strictly. It is written atomically and read only when it is a regular file of at
most :data:`STATE_FILE_LIMIT` bytes.
"""

from __future__ import annotations

import os
import re

from .. import errors, file_io
from .checkpoint_format import checkpoint_exists

__all__ = ["CheckpointState", "get_checkpoint_state", "latest_checkpoint",
           "update_checkpoint_state", "generate_checkpoint_state_proto", "quote_path",
           "STATE_FILE_LIMIT"]

#: The largest ``checkpoint`` state file read or written (4 MiB: tens of thousands of
#: checkpoint paths). A FIFO, a device or a larger file is refused, never read.
STATE_FILE_LIMIT = 4 << 20


class CheckpointState:
    """The contents of a ``checkpoint`` state file (TF1's ``CheckpointState`` proto)."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def to_text(self) -> str:
        """TF1's text format of the proto.

        Raises:
            errors.InvalidArgumentError: a path is not valid Unicode text (the state
                file holds UTF-8).
        """
        lines = [f"model_checkpoint_path: {quote_path(self.model_checkpoint_path)}"]
        lines += [f"all_model_checkpoint_paths: {quote_path(p)}"
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
        for lineno, raw in enumerate(text.split("\n"), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue

            def bad(why, lineno=lineno, raw=raw):
                return errors.DataLossError(
                    None, None, f"Malformed checkpoint state file {filename}, line {lineno} "
                                f"({raw.strip()!r:.100}): {why}")

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
                    if not value.isascii() or len(value) > 64:
                        raise ValueError(value)
                    number = float(value)
                except ValueError:
                    raise bad("expected a number") from None
                if key == "last_preserved_timestamp":
                    state.last_preserved_timestamp = number
                else:
                    state.all_model_checkpoint_timestamps.append(number)
            else:
                raise bad(f"unknown field {key!r:.60}")
        return state


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", '"': b'"', "'": b"'", "\\": b"\\",
              "a": b"\a", "b": b"\b", "f": b"\f", "v": b"\v", "?": b"?"}
_ESCAPE = re.compile(r"\\([0-7]{1,3}|[xX][0-9a-fA-F]{0,2}|.|\Z)", re.S)


def quote_path(text):
    """TF1's quoted string: backslash escapes, other control characters in octal."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise errors.InvalidArgumentError(
            None, None, f"Checkpoint path {text!r:.200} is not valid Unicode text; the "
                        "checkpoint state file holds UTF-8 paths") from None
    out = []
    for c in text:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif c < " " or c == "\x7f":
            out.append(f"\\{ord(c):03o}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _unquote(value, bad):
    if len(value) < 2 or value[0] not in "\"'" or value[-1] != value[0]:
        raise bad("expected a quoted string")
    quote, body, out, pos = value[0], value[1:-1], bytearray(), 0

    def plain(chunk):
        if quote in chunk:
            raise bad("unescaped quote inside the string")
        out.extend(chunk.encode("utf-8"))

    for match in _ESCAPE.finditer(body):
        plain(body[pos:match.start()])
        pos = match.end()
        e = match.group(1)
        if not e:
            raise bad("string ends with a backslash")
        if e[0] in "01234567":
            out.append(int(e, 8) & 0xFF)
        elif e[0] in "xX":
            if len(e) == 1:
                raise bad("\\x without hex digits")
            out.append(int(e[1:], 16))
        elif e in _UNESCAPES:
            out.extend(_UNESCAPES[e])
        else:
            raise bad(f"unknown escape \\{e!r:.10}")
    plain(body[pos:])
    if 0 in out:
        raise bad("the path contains a NUL character")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise bad("the path is not valid UTF-8") from None


def _state_path(checkpoint_dir, latest_filename):
    latest_filename = latest_filename or "checkpoint"
    if os.path.split(latest_filename)[0] or latest_filename in (".", ".."):
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

    Raises:
        errors.InvalidArgumentError: the state would be larger than
            :data:`STATE_FILE_LIMIT` (so that it could not be read back), or a path is
            not valid Unicode text.
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
    data = state.to_text().encode("utf-8")
    if len(data) > STATE_FILE_LIMIT:
        raise errors.InvalidArgumentError(
            None, None, f"The checkpoint state file {path} would be {len(data)} bytes, above "
                        f"the limit of {STATE_FILE_LIMIT} bytes ({len(paths)} checkpoints "
                        "listed): lower max_to_keep")
    file_io.atomic_write_bytes(path, data)


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The :class:`CheckpointState` of ``checkpoint_dir``, or None when it has no state file.

    Relative paths in the file are returned joined to ``checkpoint_dir``. The file is
    read only when it is a regular file of at most :data:`STATE_FILE_LIMIT` bytes.

    Raises:
        errors.DataLossError: the state file is malformed.
        errors.InvalidArgumentError: it is a FIFO, a device or larger than the limit.
        errors.PermissionDeniedError: it cannot be read.
    """
    path = _state_path(os.fspath(checkpoint_dir), latest_filename)
    try:
        data = file_io.read_regular_file(path, STATE_FILE_LIMIT, "checkpoint state file")
    except errors.NotFoundError:     # missing, a directory, or a missing directory
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
