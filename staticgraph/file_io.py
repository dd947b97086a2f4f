"""Reading untrusted files with bounded memory, and writing files crash-safely.

Every loader in staticgraph (graph files, meta graphs, checkpoints and their state
file, the command line's inputs) reads through :func:`read_regular_file`, and every
writer goes through :func:`atomic_write`:

- a read opens the file without blocking, refuses anything that is not a regular
  file (a FIFO, a device such as ``/dev/zero``, a directory), checks its size
  against the caller's limit *before* allocating, then reads exactly that many
  bytes in chunks;
- a write fills a temporary file in the target's directory, fsyncs it, renames it
  over the target and fsyncs the directory, so a crash leaves either the old or the
  new file. Temporary files carry the writer's pid; a later write of the same target
  removes those whose writer is gone (left behind by a ``kill -9``).

This module sits at the bottom of the package with :mod:`staticgraph.errors`:
every layer may use it.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile

from . import errors

__all__ = ["read_regular_file", "check_regular_file", "atomic_write", "atomic_write_bytes",
           "fsync_directory", "remove_orphaned_temp_files", "process_alive", "CHUNK_BYTES"]

CHUNK_BYTES = 1 << 20          # read size once a single read came back short
_TEMP_SUFFIX = ".tmp"


# ------------------------------------------------------------------------ reading
def _open_no_block(path, what):
    """An fd of ``path`` opened for reading without blocking on FIFOs."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{what} {path!r} not found.") from None
    except IsADirectoryError:
        raise errors.NotFoundError(None, None, f"{what} {path!r} is a directory.") from None
    except NotADirectoryError:
        raise errors.NotFoundError(None, None, f"{what} {path!r} not found (a part of the "
                                               "path is not a directory).") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{what} {path!r}: permission "
                                                       "denied.") from None
    except OSError as exc:
        raise errors.UnavailableError(None, None, f"{what} {path!r} cannot be opened: "
                                                  f"{exc.strerror or exc}.") from None


def _check_fd(fd, path, limit, what) -> int:
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        raise errors.NotFoundError(None, None, f"{what} {path!r} is a directory.")
    if not stat.S_ISREG(info.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else
                "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode) else
                "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise errors.InvalidArgumentError(None, None, f"{what} {path!r} is {kind}; only "
                                                      "regular files are read.")
    if limit is not None and info.st_size > limit:
        raise errors.InvalidArgumentError(
            None, None, f"{what} {path!r} is {info.st_size} bytes, above the limit of "
                        f"{limit} bytes.")
    return info.st_size


def check_regular_file(path, limit=None, what="file") -> int:
    """The size of ``path`` after checking that it is a regular file within ``limit``.

    For loaders that hand a path to a library (safetensors memory-maps it): call
    this first so that a FIFO or device is refused rather than read.

    Raises:
        errors.NotFoundError: the file is missing or is a directory.
        errors.InvalidArgumentError: not a regular file, or larger than ``limit`` bytes.
        errors.PermissionDeniedError: it cannot be read.
    """
    path = os.fspath(path)
    fd = _open_no_block(path, what)
    try:
        return _check_fd(fd, path, limit, what)
    finally:
        os.close(fd)


def read_regular_file(path, limit, what="file") -> bytes:
    """The bytes of the regular file ``path``, refusing files above ``limit`` bytes.

    Memory used is the file's size, never the limit: the size is checked with
    ``fstat`` before anything is allocated, the file is read in one call where the
    system allows (one buffer), and the read stops at that size even if the file
    grows meanwhile.

    Args:
        path: the file to read.
        limit: the largest size accepted, in bytes.
        what: how messages name the file ("graph file", "checkpoint state file").

    Raises:
        errors.NotFoundError: the file is missing or is a directory.
        errors.InvalidArgumentError: not a regular file (FIFO, device, socket), or
            larger than ``limit``.
        errors.PermissionDeniedError: it cannot be read.

    Example:
        >>> text = read_regular_file("model.json", 1 << 20, "graph file")
    """
    path = os.fspath(path)
    fd = _open_no_block(path, what)
    try:
        size = _check_fd(fd, path, limit, what)
        first = os.read(fd, size) if size else b""
        if len(first) == size:          # the usual case: one read, one buffer
            return first
        chunks, left = [first], size - len(first)
        while left > 0:
            chunk = os.read(fd, min(left, CHUNK_BYTES))
            if not chunk:                      # the file shrank while we read it
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise errors.UnavailableError(None, None, f"{what} {path!r} cannot be read: "
                                                  f"{exc.strerror or exc}.") from None
    finally:
        os.close(fd)


# ------------------------------------------------------------------------ writing
def _read_umask():
    """The process umask, read once at import (reading it means setting it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def _temp_prefix(path) -> str:
    return "." + os.path.basename(path) + "."


def fsync_directory(directory):
    """Make a rename in ``directory`` durable (POSIX); a no-op where directories
    cannot be opened."""
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


def process_alive(pid) -> bool:
    """Whether process ``pid`` may still be running (True when it cannot be told)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):   # someone else's live process, or no such pid value
        return True
    return True


# What staticgraph's writers before file_io named their temporary files: <target>.tmp<pid>
_OLDER_TEMP = re.compile(r"(.+)\.tmp([0-9]{1,10})")


def _temp_file_owner(name):
    """``(target name, pid)`` of a temporary file named ``.<target>.<pid>.<random>.tmp``
    (the random part has no dots) or, from older writers, ``<target>.tmp<pid>``; None
    for any other name."""
    if name.startswith(".") and name.endswith(_TEMP_SUFFIX):
        parts = name[1:-len(_TEMP_SUFFIX)].rsplit(".", 2)
        if len(parts) == 3 and parts[0] and parts[1].isascii() and parts[1].isdigit():
            return parts[0], int(parts[1])
        return None
    older = _OLDER_TEMP.fullmatch(name)
    return (older.group(1), int(older.group(2))) if older else None


def remove_orphaned_temp_files(path, prefix=False) -> list:
    """Delete the temporary files that writes of ``path`` left behind when their
    process died (``.<name>.<pid>.<random>.tmp`` whose pid is gone). With ``prefix``,
    those of every file whose name starts with ``path``'s name (a graph file and its
    sidecars, a checkpoint's files). Returns the removed paths; files of live writers
    are kept."""
    directory = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        owner = _temp_file_owner(name)
        if owner is None:
            continue
        target, pid = owner
        if not (target == base or (prefix and target.startswith(base))):
            continue
        if process_alive(pid):
            continue
        try:
            os.remove(os.path.join(directory, name))
            removed.append(os.path.join(directory, name))
        except OSError:
            pass
    return removed


def atomic_write(path, write):
    """Write ``path`` atomically and durably.

    ``write(tmp_path)`` fills a temporary file in the same directory; it is fsynced,
    given the usual file mode, renamed over ``path``, and the directory is fsynced.
    On any failure the temporary file is removed and ``path`` is left as it was.
    Temporary files of earlier writers of ``path`` that died are removed first.

    Example:
        >>> atomic_write("state.txt", lambda tmp: open(tmp, "w").write("ok"))
    """
    path = os.fspath(path)
    remove_orphaned_temp_files(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix(path)}{os.getpid()}.",
                               suffix=_TEMP_SUFFIX, dir=directory)
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
    fsync_directory(directory)


def atomic_write_bytes(path, data):
    """:func:`atomic_write` of the bytes ``data``."""
    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(data)
    atomic_write(path, write)

