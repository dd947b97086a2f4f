"""Checkpoint files: the tensor format, and the ``checkpoint`` state file.

A checkpoint with prefix ``model.ckpt-100`` is

- ``model.ckpt-100.safetensors``: the tensors by their TF1 names (``layer1/W``) in the
  safetensors format (no code runs on load; other tools read it), with a CRC32 of every
  tensor in its metadata. This file alone makes the checkpoint.
- ``model.ckpt-100.index.json``: a small description for people and tools (format,
  version, global step, names, dtypes, shapes); readers never need it.
- ``model.ckpt-100.meta``: the graph (written by :class:`~staticgraph.train.Saver`),
  with its sidecar files ``model.ckpt-100.meta.*safetensors`` when it has any.

The ``checkpoint`` state file of a directory lists its checkpoints in TF1's text format
(``model_checkpoint_path: "model.ckpt-100"`` lines). Every file is written through
:func:`staticgraph.file_io.atomic_write` (a temporary file in the same directory,
fsynced and renamed into place), so a crash or a full disk leaves the previous files
intact.

Reading is bounded: a data file's header is checked by this module (at most
:data:`MAX_HEADER_BYTES` bytes and :data:`MAX_TENSORS` tensors, offsets inside the
file, no holes or overlaps) before any tensor is read, and the state file is read
only when it is a regular file of at most :data:`STATE_FILE_LIMIT` bytes.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import stat
import zlib

import numpy as np

from .. import errors, file_io
from ..export.graph_file import graph_file_paths

__all__ = [
    "CheckpointState", "CheckpointReader", "NewCheckpointReader", "checkpoint_exists",
    "get_checkpoint_state", "latest_checkpoint", "update_checkpoint_state",
    "generate_checkpoint_state_proto", "get_checkpoint_mtimes", "remove_checkpoint",
    "list_variables", "load_variable", "NotACheckpointError",
    "MAX_HEADER_BYTES", "MAX_TENSORS", "STATE_FILE_LIMIT",
]

FORMAT_NAME = "staticgraph.checkpoint"
FORMAT_VERSION = 1
DATA_SUFFIX = ".safetensors"
INDEX_SUFFIX = ".index.json"

#: The largest safetensors header read or written (32 MiB: room for MAX_TENSORS
#: tensors with names of ~150 characters and their checksums).
MAX_HEADER_BYTES = 32 << 20
#: The most tensors one checkpoint data file may hold.
MAX_TENSORS = 100_000
#: The largest ``checkpoint`` state file read or written (4 MiB: tens of thousands of
#: checkpoint paths). A FIFO, a device or a larger file is refused, never read.
STATE_FILE_LIMIT = 4 << 20

# safetensors dtype codes <-> the staticgraph dtype names they hold, and numpy types.
_CODE_TO_NAME = {"F16": "float16", "F32": "float32", "F64": "float64", "I8": "int8",
                 "I16": "int16", "I32": "int32", "I64": "int64", "U8": "uint8", "BOOL": "bool"}
_CODE_TO_NUMPY = {"F16": "<f2", "F32": "<f4", "F64": "<f8", "I8": "i1", "I16": "<i2",
                  "I32": "<i4", "I64": "<i8", "U8": "u1", "BOOL": "?"}
# Element sizes of the codes safetensors defines, to check each entry's byte span.
_CODE_BYTES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2,
               "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4, "I64": 8, "U64": 8,
               "F64": 8}
_MAX_RANK = 64
_ASCII_INT = re.compile(r"-?[0-9]{1,19}")
_ASCII_VERSION = re.compile(r"[0-9]{1,9}")


class NotACheckpointError(errors.NotFoundError, ValueError):
    """The path names no checkpoint. A :class:`~staticgraph.errors.NotFoundError` and,
    as TF1's ``Saver.restore`` documents, a ``ValueError``."""

    def __init__(self, message, *args):
        errors.NotFoundError.__init__(self, None, None, message)


def tensor_crc32(array) -> int:
    """CRC32 of an array's bytes in C order."""
    flat = np.asarray(array, order="C").reshape(-1)
    return zlib.crc32(flat.view(np.uint8)) & 0xFFFFFFFF


# ------------------------------------------------------------ writing and reading
def _safetensors_header(arrays, metadata) -> bytes:
    """The JSON header of a safetensors file holding ``arrays`` in order, padded with
    spaces to a multiple of 8 bytes as the format asks."""
    codes = {name: code for code, name in _CODE_TO_NAME.items()}
    header, offset = {"__metadata__": metadata}, 0
    for name, arr in arrays.items():
        header[name] = {"dtype": codes[arr.dtype.name], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    return text + b" " * (-len(text) % 8)


def write_checkpoint(prefix, tensors, global_step=None):
    """Write ``tensors`` (name -> ndarray) as the checkpoint ``prefix`` (data, then index)."""
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
    if len(arrays) > MAX_TENSORS:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot save {len(arrays)} tensors in checkpoint {prefix}: "
                        f"checkpoints hold at most {MAX_TENSORS}")
    metadata = {"format": FORMAT_NAME, "format_version": str(FORMAT_VERSION),
                "global_step": "" if global_step is None else str(int(global_step)),
                "crc32": json.dumps(crcs, sort_keys=True)}
    header = _safetensors_header(arrays, metadata)
    if len(header) > MAX_HEADER_BYTES or _too_many_values(header):   # readers would refuse it
        raise errors.InvalidArgumentError(
            None, None, f"Cannot save checkpoint {prefix}: its header would be {len(header)} "
                        f"bytes, above the limit of {MAX_HEADER_BYTES}, or hold more "
                        f"values than {MAX_TENSORS} tensors need (use shorter or fewer "
                        "variable names)")

    def write(tmp):
        # Written here rather than by safetensors.save_file, which goes through a
        # temporary file of its own that a kill would leave behind.
        with open(tmp, "wb") as f:
            f.write(len(header).to_bytes(8, "little"))
            f.write(header)
            for arr in arrays.values():
                f.write(memoryview(arr.reshape(-1)).cast("B") if arr.size else b"")
    file_io.atomic_write(prefix + DATA_SUFFIX, write)
    index = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
             "data_file": os.path.basename(prefix + DATA_SUFFIX),
             "global_step": None if global_step is None else int(global_step),
             "variables": entries}
    file_io.atomic_write_bytes(prefix + INDEX_SUFFIX,
                               json.dumps(index, indent=1, sort_keys=True).encode("utf-8"))


def checkpoint_exists(checkpoint_prefix) -> bool:
    """True when ``checkpoint_prefix`` (``.../model.ckpt-100``) names a saved checkpoint."""
    return os.path.isfile(_data_file(os.fspath(checkpoint_prefix)))


def _data_file(prefix):
    if prefix.endswith(DATA_SUFFIX) and os.path.isfile(prefix):
        return prefix  # the data file itself was given
    return prefix + DATA_SUFFIX


def _not_a_checkpoint(prefix):
    """The NotACheckpointError (a NotFoundError and a ValueError) for ``prefix``."""
    hint = ""
    if os.path.isfile(prefix + ".index") or os.path.isfile(prefix + ".data-00000-of-00001"):
        hint = (" (TensorFlow's own checkpoint files are there; staticgraph reads and writes "
                f"'{prefix}{DATA_SUFFIX}' and cannot read TensorFlow's binary format)")
    elif os.path.isdir(prefix):
        hint = " (it is a directory: pass tf.train.latest_checkpoint(dir) or a checkpoint prefix)"
    else:
        hint = f" (no file '{prefix}{DATA_SUFFIX}')"
    return NotACheckpointError(f"The passed save_path is not a valid checkpoint: {prefix}{hint}")


def _data_loss(filename, what):
    return errors.DataLossError(None, None, f"Checkpoint {filename} is truncated or "
                                            f"corrupted: {what}")


def _read_into(fd, buffer, offset, filename) -> int:
    """Fill the writable ``buffer`` from ``offset`` of ``fd``; the bytes read (fewer at EOF)."""
    done = 0
    try:
        with open(fd, "rb", buffering=0, closefd=False) as f, memoryview(buffer) as view:
            view = view.cast("B")
            f.seek(offset)
            while done < len(view):
                n = f.readinto(view[done:done + file_io.CHUNK_BYTES])
                if not n:
                    break
                done += n
            view.release()
    except OSError as exc:
        raise errors.UnavailableError(None, None, f"Checkpoint data file {filename!r} cannot "
                                                  f"be read: {exc.strerror or exc}") from None
    return done


def _read_exactly(fd, count, offset, filename):
    """``count`` bytes at ``offset`` of ``fd`` in a fresh bytearray (fewer at EOF)."""
    buf = bytearray(count)
    done = _read_into(fd, buf, offset, filename)
    if done < count:
        del buf[done:]
    return buf


def _open_data_file(filename):
    """``(fd, stat)`` of the data file, refusing anything but a regular file without
    blocking on it (a FIFO or a device named like a checkpoint)."""
    file_io.check_regular_file(filename, None, "checkpoint data file")
    try:
        fd = os.open(filename, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise errors.UnavailableError(None, None, f"Checkpoint data file {filename!r} cannot "
                                                  f"be opened: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):      # swapped for something else meanwhile
        os.close(fd)
        raise errors.InvalidArgumentError(None, None, f"Checkpoint data file {filename!r} is "
                                                      "not a regular file")
    return fd, info


def _too_many_values(header_bytes) -> bool:
    """Whether a header holds far more JSON values than MAX_TENSORS entries need.

    A tensor entry takes one '{', two '[', about five ':' and ten ',' (with its
    checksum); far more means junk whose Python objects would outgrow the header by
    far, refused before it is parsed.
    """
    return (header_bytes.count(b"{") + header_bytes.count(b"[") > 4 * MAX_TENSORS + 64
            or header_bytes.count(b":") > 6 * MAX_TENSORS + 1024
            or header_bytes.count(b",") > 16 * MAX_TENSORS + 1024)


class _Header:
    """A checked safetensors header: ``tensors`` (name -> (code, shape, (begin, end))),
    ``metadata``, ``data_start`` (offset of the tensor data) and, for staticgraph
    checkpoints, ``crcs`` and ``global_step``."""

    def __init__(self, fd, size, filename):
        self.filename = filename
        head = _read_exactly(fd, 8, 0, filename)
        if len(head) < 8:
            raise self._bad(f"the file is {size} bytes, shorter than the 8-byte header length")
        length = int.from_bytes(head, "little")
        if length > MAX_HEADER_BYTES:
            raise self._bad(f"its header length {length} is above the limit of "
                            f"{MAX_HEADER_BYTES} bytes")
        if 8 + length > size:
            raise self._bad(f"its header length {length} exceeds the file size {size}")
        blob = _read_exactly(fd, length, 8, filename)
        if len(blob) < length:
            raise self._bad("the file shrank while its header was read")
        if _too_many_values(blob):
            raise self._bad(f"its header holds more than {MAX_TENSORS} tensors or more "
                            "values than they need")
        try:
            raw = json.loads(blob.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise self._bad(f"its header is not JSON ({str(exc)[:100]})") from None
        del blob
        if not isinstance(raw, dict):
            raise self._bad("its header is not a JSON object")
        metadata = raw.pop("__metadata__", None)
        if metadata is None:
            metadata = {}
        if not isinstance(metadata, dict) or not all(isinstance(v, str)
                                                      for v in metadata.values()):
            raise self._bad("its __metadata__ is not an object of strings")
        if len(raw) > MAX_TENSORS:
            raise self._bad(f"it holds {len(raw)} tensors, above the limit of {MAX_TENSORS}")
        self.metadata = metadata
        self.data_start = 8 + length
        self.tensors = self._entries(raw, size - self.data_start)
        self.ours = metadata.get("format") == FORMAT_NAME
        self.crcs, self.global_step = {}, None
        if self.ours:
            self._check_own_metadata()
        else:
            step = metadata.get("global_step", "")
            self.global_step = int(step) if _ASCII_INT.fullmatch(step) else None

    def _bad(self, what):
        return _data_loss(self.filename, what)

    def _entries(self, raw, data_size):
        tensors, spans = {}, []
        keys = {"dtype", "shape", "data_offsets"}
        for name, info in raw.items():
            if type(info) is not dict or info.keys() != keys:
                raise self._bad(f"the entry of tensor {name!r:.80} is not an object of "
                                "dtype, shape and data_offsets")
            code, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
            if (type(code) is not str or len(code) > 16 or type(shape) is not list
                    or len(shape) > _MAX_RANK or type(offsets) is not list
                    or len(offsets) != 2 or type(offsets[0]) is not int
                    or type(offsets[1]) is not int
                    or not 0 <= offsets[0] <= offsets[1] <= data_size):
                raise self._bad_entry(name, code, shape, offsets, data_size)
            for d in shape:
                if type(d) is not int or not 0 <= d < 1 << 63:
                    raise self._bad_entry(name, code, shape, offsets, data_size)
            width = _CODE_BYTES.get(code)
            if width is not None:
                if math.prod(d for d in shape if d) * width > 1 << 62:
                    raise self._bad(f"tensor {name!r:.80} has a shape too large for "
                                    f"memory {shape!r:.80}")
                if math.prod(shape) * width != offsets[1] - offsets[0]:
                    raise self._bad(f"tensor {name!r:.80} spans {offsets[1] - offsets[0]} "
                                    f"bytes but its {code} shape {shape} needs "
                                    f"{math.prod(shape) * width}")
            tensors[name] = (code, tuple(shape), (offsets[0], offsets[1]))
            spans.append((offsets[0], offsets[1]))
        spans.sort()
        end = 0
        for begin, stop in spans:
            if begin != end:
                raise self._bad("its tensors overlap or leave a gap in the data")
            end = stop
        if end != data_size:
            raise self._bad(f"its tensors cover {end} of the {data_size} bytes of data")
        return tensors

    def _bad_entry(self, name, code, shape, offsets, data_size):
        where = f"the entry of tensor {name!r:.80}"
        if type(code) is not str or len(code) > 16:
            return self._bad(f"{where} has an invalid dtype {code!r:.40}")
        if (type(shape) is not list or len(shape) > _MAX_RANK
                or not all(type(d) is int and 0 <= d < 1 << 63 for d in shape)):
            return self._bad(f"{where} has an invalid shape {shape!r:.80}")
        return self._bad(f"{where} has data_offsets {offsets!r:.80} outside the "
                         f"{data_size} bytes of tensor data")

    def _check_own_metadata(self):
        meta = self.metadata
        version_text = meta.get("format_version", "")
        if not _ASCII_VERSION.fullmatch(version_text) or int(version_text) < 1:
            raise self._bad(f"its format_version {version_text!r:.40} is not a version number")
        version = int(version_text)
        if version > FORMAT_VERSION:
            raise errors.UnimplementedError(
                None, None, f"Checkpoint {self.filename} has format version {version}; "
                f"this staticgraph reads up to version {FORMAT_VERSION}")
        step = meta.get("global_step", "")
        if step and not _ASCII_INT.fullmatch(step):
            raise self._bad(f"its global_step {step!r:.40} is not an integer")
        self.global_step = int(step) if step else None
        if "crc32" not in meta:
            raise self._bad("its metadata has no crc32 checksums")
        try:
            crcs = json.loads(meta["crc32"])
        except (ValueError, RecursionError):
            raise self._bad("its crc32 metadata is not JSON") from None
        if not isinstance(crcs, dict):
            raise self._bad("its crc32 metadata is not a JSON object")
        for name, crc in crcs.items():
            if name not in self.tensors:
                raise self._bad(f"its crc32 metadata names tensor {name!r:.80}, which it "
                                "does not hold")
            if type(crc) is not int or not 0 <= crc <= 0xFFFFFFFF:
                raise self._bad(f"the crc32 of tensor {name!r:.80} is {crc!r:.40}, not a "
                                "32-bit checksum")
        for name, (code, _, _) in self.tensors.items():
            if name not in crcs:
                raise self._bad(f"tensor {name!r:.80} has no crc32 checksum")
            if code not in _CODE_TO_NAME:
                raise self._bad(f"tensor {name!r:.80} has dtype {code!r:.20}, which "
                                "staticgraph checkpoints never hold")
        self.crcs = crcs


def _read_header(filename):
    """The checked :class:`_Header` of data file ``filename``."""
    fd, info = _open_data_file(filename)
    try:
        return _Header(fd, info.st_size, filename)
    finally:
        os.close(fd)


class CheckpointReader:
    """Reads one checkpoint (TF1's ``NewCheckpointReader``).

    The data file's header is read and checked when the reader is made (bounded by
    :data:`MAX_HEADER_BYTES` and :data:`MAX_TENSORS`); tensors are read when asked
    for, each checked against its CRC32. Plain safetensors files written by other
    tools are readable too (without checksums).

    Raises:
        errors.NotFoundError: the path is not a checkpoint.
        errors.InvalidArgumentError: the data file is a FIFO, a device or another
            non-regular file.
        errors.DataLossError: the file is truncated or corrupted (the message names it).
        errors.UnimplementedError: a newer staticgraph wrote it.
    """

    def __init__(self, checkpoint_prefix):
        prefix = os.fspath(checkpoint_prefix)
        self.filename = _data_file(prefix)
        if not os.path.exists(self.filename):
            raise _not_a_checkpoint(prefix)
        fd, info = _open_data_file(self.filename)
        try:
            self._load(fd, info)
        finally:
            os.close(fd)

    def _load(self, fd, info):
        header = _Header(fd, info.st_size, self.filename)
        self._header = header
        self._stamp = (info.st_ino, info.st_size, info.st_mtime_ns)
        self._meta = header.metadata
        self._crcs = header.crcs
        self._specs = {name: (_CODE_TO_NAME.get(code, code), shape)
                       for name, (code, shape, _) in header.tensors.items()}

    def _data_loss(self, what):
        return _data_loss(self.filename, what)

    @property
    def global_step(self):
        """The global step recorded at save time, or None."""
        return self._header.global_step

    def has_tensor(self, name) -> bool:
        """Whether the checkpoint holds ``name``."""
        return name in self._specs

    def get_variable_to_shape_map(self):
        """``{name: [dims]}``."""
        return {k: list(shape) for k, (_, shape) in self._specs.items()}

    def get_variable_to_dtype_map(self):
        """``{name: DType}``.

        Raises:
            errors.UnimplementedError: a tensor (of a file written by another tool) has
                a dtype staticgraph cannot hold, such as BF16.
        """
        from ..graphlib import as_dtype
        for name, (code, _, _) in self._header.tensors.items():
            self._check_supported(name, code)
        return {k: as_dtype(d) for k, (d, _) in self._specs.items()}

    def _check_supported(self, name, code):
        if code not in _CODE_TO_NAME:
            raise errors.UnimplementedError(
                None, None, f"Tensor '{name}' in checkpoint {self.filename} has dtype "
                f"{code!r:.20}, which staticgraph cannot hold (it holds "
                f"{', '.join(sorted(_CODE_TO_NAME))})")

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
        return self.read_tensors([name])[name]

    def read_tensors(self, names):
        """``{name: fresh writable array}`` for ``names``, read through one open file.

        The header is checked again first if the file changed since the reader was
        made; every tensor's checksum is verified.
        """
        names = list(names)
        for name in names:
            self.spec(name)
            self._check_supported(name, self._header.tensors[name][0])
        fd, info = _open_data_file(self.filename)
        try:
            if (info.st_ino, info.st_size, info.st_mtime_ns) != self._stamp:
                old = {n: self._specs[n] for n in names}
                self._load(fd, info)          # rewritten meanwhile: check it again
                for name in names:
                    if self._specs.get(name) != old[name]:
                        raise self._data_loss(f"tensor '{name}' changed while it was read")
            header = self._header
            out = {}
            for name in names:
                code, shape, (begin, end) = header.tensors[name]
                dtype = np.dtype(_CODE_TO_NUMPY[code])
                value = np.empty(shape, dtype)        # owns its (aligned) memory
                raw = value.reshape(-1).view(np.uint8)
                if _read_into(fd, raw, header.data_start + begin,
                              self.filename) != end - begin:
                    raise self._data_loss(f"the file shrank while tensor '{name}' was read")
                expected = self._crcs.get(name)
                if expected is not None and zlib.crc32(raw) & 0xFFFFFFFF != expected:
                    raise self._data_loss(f"the checksum of tensor '{name}' does not match")
                if code == "BOOL":       # bytes other than 0 and 1 read as True
                    value = raw.reshape(shape) != 0
                elif not dtype.isnative:
                    value = value.astype(dtype.newbyteorder("="))
                out[name] = value
            return out
        finally:
            os.close(fd)

    def debug_string(self):
        """One ``name (dtype) [shape]`` line per tensor."""
        return "".join(f"{k} ({d}) {list(s)}\n" for k, (d, s) in sorted(self._specs.items()))


NewCheckpointReader = CheckpointReader


def _reader_for(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise NotACheckpointError(f"Couldn't find 'checkpoint' file or checkpoints in "
                                      f"given directory {path}")
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


# ------------------------------------------------------------------- deleting
def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=None,
                      meta_graph_suffix="meta"):
    """Delete the files of checkpoint ``checkpoint_prefix`` (missing ones are ignored).

    These are ``<prefix>.safetensors``, ``<prefix>.index.json``,
    ``<prefix>.<meta_graph_suffix>`` and the meta graph's sidecars (see
    :func:`staticgraph.export.graph_file.graph_file_paths`). The data
    file goes last, so an interrupted removal leaves a checkpoint that can be removed
    again. Nothing else is touched.
    """
    prefix = os.fspath(checkpoint_prefix)
    if os.sep in meta_graph_suffix or (os.altsep and os.altsep in meta_graph_suffix):
        raise ValueError(f"meta_graph_suffix {meta_graph_suffix!r} must not contain path "
                         "separators")
    meta_graph = prefix + "." + meta_graph_suffix
    for path in graph_file_paths(meta_graph) + [prefix + INDEX_SUFFIX, prefix + DATA_SUFFIX]:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def is_own_checkpoint(checkpoint_prefix, directory=None) -> bool:
    """Whether ``checkpoint_prefix`` is a checkpoint staticgraph wrote, so that a Saver
    may delete it.

    True only when ``<prefix>.safetensors`` is a regular file (not a symlink) whose
    header checks out and says ``format: staticgraph.checkpoint``, and, when
    ``directory`` is given, the prefix lies directly in ``directory`` (compared after
    resolving symlinks and ``..``). Never raises for a bad path or file.
    """
    try:
        prefix = os.fspath(checkpoint_prefix)
        if not isinstance(prefix, str) or not os.path.basename(prefix):
            return False
        if directory is not None:
            parent = os.path.realpath(os.path.dirname(os.path.abspath(prefix)))
            if parent != os.path.realpath(os.fspath(directory)):
                return False
        data = prefix + DATA_SUFFIX
        if not stat.S_ISREG(os.lstat(data).st_mode):
            return False
        return _read_header(data).ours
    except (OSError, ValueError, TypeError, errors.OpError):
        return False


_LEGACY_TEMP = re.compile(r".+\.tmp([0-9]{1,10})")


def remove_orphaned_temp_files(directory, name_prefix) -> list:
    """Delete the temporary files that killed writers left in ``directory`` for files
    whose names start with ``name_prefix``: ``.model.ckpt-7.safetensors.<pid>.<x>.tmp``
    of :func:`staticgraph.file_io.atomic_write` (and ``model.ckpt-7.meta.tmp<pid>`` of
    older writers) whose process is gone. Files of live processes are kept. Returns the
    removed paths."""
    directory = directory or "."
    removed = file_io.remove_orphaned_temp_files(os.path.join(directory, name_prefix),
                                                 prefix=True)
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        legacy = _LEGACY_TEMP.fullmatch(name) if name.startswith(name_prefix) else None
        if legacy and not file_io.process_alive(int(legacy.group(1))):
            try:
                os.remove(os.path.join(directory, name))
                removed.append(os.path.join(directory, name))
            except OSError:
                pass
    return removed


def get_checkpoint_mtimes(checkpoint_prefixes):
    """Modification times of the checkpoints that exist (others are skipped)."""
    times = []
    for prefix in checkpoint_prefixes:
        try:
            times.append(os.path.getmtime(_data_file(prefix)))
        except (OSError, ValueError):
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
        """TF1's text format of the proto.

        Raises:
            errors.InvalidArgumentError: a path is not valid Unicode text (the state
                file holds UTF-8).
        """
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


def _quote(text):
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
