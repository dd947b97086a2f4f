"""The session test-suite runs on both backends: numpy and onnxruntime (CPU).

Modules that set ``pytestmark = pytest.mark.usefixtures("backend")`` run every
test once per backend: ``tf.Session()`` then creates a session of that backend.
"""

import pytest

from staticgraph.session import session as session_module


@pytest.fixture(params=["numpy", "onnxruntime"])
def backend(request, monkeypatch):
    """The default session backend for this test."""
    monkeypatch.setattr(session_module, "DEFAULT_BACKEND", request.param)
    return request.param
