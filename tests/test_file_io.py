"""staticgraph.file_io: bounded reads of regular files only, atomic durable writes."""

import os
import subprocess
import sys
import threading

import pytest

from staticgraph import errors, file_io


def test_reads_a_regular_file_exactly(tmp_path):
    path = tmp_path / "data.bin"
    blob = os.urandom(3 * file_io.CHUNK_BYTES + 17)
    path.write_bytes(blob)
    assert file_io.read_regular_file(path, len(blob)) == blob
    assert file_io.read_regular_file(tmp_path / "data.bin", None) == blob
    (tmp_path / "empty").write_bytes(b"")
    assert file_io.read_regular_file(tmp_path / "empty", 0) == b""


def test_a_file_over_the_limit_is_refused_naming_it_and_the_sizes(tmp_path):
    path = tmp_path / "graph.json"
    path.write_bytes(b"x" * 101)
    with pytest.raises(errors.InvalidArgumentError) as info:
        file_io.read_regular_file(path, 100, "graph file")
    assert "graph file" in str(info.value) and "101 bytes" in str(info.value)
    assert "100 bytes" in str(info.value) and str(path) in str(info.value)


def test_missing_files_and_directories_are_not_found(tmp_path):
    with pytest.raises(errors.NotFoundError, match="not found"):
        file_io.read_regular_file(tmp_path / "missing", 10)
    with pytest.raises(errors.NotFoundError, match="is a directory"):
        file_io.read_regular_file(tmp_path, 10)
    with pytest.raises(errors.NotFoundError, match="not a directory"):
        (tmp_path / "file").write_bytes(b"")
        file_io.read_regular_file(tmp_path / "file" / "inner", 10)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_fifos_and_devices_are_refused_without_blocking_or_reading(tmp_path):
    fifo = tmp_path / "checkpoint"
    os.mkfifo(fifo)
    outcome = {}

    def read():
        try:
            file_io.read_regular_file(fifo, 1 << 20)
        except errors.InvalidArgumentError as exc:
            outcome["error"] = str(exc)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert not reader.is_alive(), "reading a FIFO blocked"
    assert "a FIFO" in outcome["error"]
    with pytest.raises(errors.InvalidArgumentError, match="a device"):
        file_io.read_regular_file("/dev/zero", 1 << 20)
    with pytest.raises(errors.InvalidArgumentError, match="a device"):
        file_io.check_regular_file("/dev/null")


def test_check_regular_file_returns_the_size(tmp_path):
    (tmp_path / "f").write_bytes(b"abc")
    assert file_io.check_regular_file(tmp_path / "f", 3) == 3
    with pytest.raises(errors.InvalidArgumentError):
        file_io.check_regular_file(tmp_path / "f", 2)


def test_atomic_write_replaces_the_file_and_keeps_the_old_one_on_failure(tmp_path):
    path = tmp_path / "state"
    file_io.atomic_write_bytes(path, b"first")
    assert path.read_bytes() == b"first"

    def failing(tmp):
        with open(tmp, "wb") as f:
            f.write(b"half")
        raise OSError("disk full")
    with pytest.raises(OSError, match="disk full"):
        file_io.atomic_write(path, failing)
    assert path.read_bytes() == b"first"
    assert os.listdir(tmp_path) == ["state"]  # no temporary file left behind
    file_io.atomic_write_bytes(path, b"second")
    assert path.read_bytes() == b"second"


def test_written_files_get_the_usual_mode(tmp_path):
    path = tmp_path / "f"
    file_io.atomic_write_bytes(path, b"x")
    mask = os.umask(0)
    os.umask(mask)
    assert (path.stat().st_mode & 0o777) == (0o666 & ~mask)


def _dead_pid():
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, timeout=60, check=True)
    return int(child.stdout)


def test_temp_files_of_dead_writers_are_removed_and_live_ones_kept(tmp_path):
    path = tmp_path / "model.json"
    dead = tmp_path / f".model.json.{_dead_pid()}.abc123.tmp"
    live = tmp_path / f".model.json.{os.getpid()}.def456.tmp"
    other = tmp_path / f".other.json.{_dead_pid()}.abc.tmp"
    for p in (dead, live, other):
        p.write_bytes(b"partial")
    file_io.atomic_write_bytes(path, b"{}")
    assert not dead.exists()
    assert live.exists() and other.exists()
    assert path.read_bytes() == b"{}"


def test_prefix_mode_covers_related_files_and_names_parse_from_the_right(tmp_path):
    path = tmp_path / "model.json"
    dead = _dead_pid()
    # A sidecar whose hash part is all digits must not be mistaken for a pid.
    live_sidecar = tmp_path / f".model.json.1234567890123456.safetensors.{os.getpid()}.x.tmp"
    dead_sidecar = tmp_path / f".model.json.1234567890123456.safetensors.{dead}.y.tmp"
    for p in (live_sidecar, dead_sidecar):
        p.write_bytes(b"partial")
    assert file_io.remove_orphaned_temp_files(path) == []   # exact: other targets untouched
    assert dead_sidecar.exists()
    removed = file_io.remove_orphaned_temp_files(path, prefix=True)
    assert removed == [str(dead_sidecar)]
    assert live_sidecar.exists()
