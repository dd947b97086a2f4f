"""The probe worker: one process per test module, serving loads in forked children."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probe_worker.py")

# Each hostile load gets this much time and address space beyond the worker's own.
LOAD_TIMEOUT_S = 20
LOAD_MEMORY_MB = 1024


class ProbeWorker:
    """Talks to ``probe_worker.py``: one JSON request and one JSON answer a line."""

    def __init__(self):
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen([sys.executable, WORKER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env, text=True,
                                        cwd=os.path.dirname(WORKER))
        ready = self._answer(120)
        assert ready == {"ready": True}, ready

    def _answer(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 1.0)
            if ready:
                line = self.process.stdout.readline()
                if not line:
                    raise RuntimeError(f"probe worker exited ({self.process.poll()})")
                return json.loads(line)
        raise TimeoutError("probe worker did not answer")

    def load(self, kind, path, write_dir, timeout=LOAD_TIMEOUT_S, memory_mb=LOAD_MEMORY_MB):
        """Load ``path`` with loader ``kind`` in a limited child; the answer dict."""
        request = {"kind": kind, "path": path, "write_dir": write_dir, "timeout": timeout,
                   "memory_mb": memory_mb}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        return self._answer(timeout + 30)

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def probe():
    """A running probe worker for the module's tests."""
    if sys.platform != "linux":
        pytest.skip("the hostile-input harness uses fork, /proc and RLIMIT_AS (Linux)")
    worker = ProbeWorker()
    yield worker
    worker.close()
