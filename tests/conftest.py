"""Suite-wide hooks: tests marked ``gpu`` run only where onnxruntime's CUDA provider works;
tests that need the optional ``tensorboard`` package skip, with the reason, without it.
The fixture ``g`` gives a test a fresh graph as the default graph.

A test needs tensorboard when it is marked ``tensorboard`` or when it runs a case
(a ``case`` parameter, see ``tests/ops/cases``) of a summary op: summary kernels
serialize TensorBoard's protobuf classes (``staticgraph.ops.summary``).
"""

import importlib.util

import pytest

import staticgraph as tf
from staticgraph.graphlib.op_def import get_op_def

_SUMMARY_OPS_PACKAGE = "staticgraph.ops.summary."
_TENSORBOARD_REASON = ("needs the optional tensorboard package (pip install "
                       "staticgraph[tensorboard]; the [test] extra includes it)")


@pytest.fixture
def g():
    """A new ``tf.Graph``, the default graph for the test's duration."""
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def _tensorboard_missing() -> bool:
    try:
        return importlib.util.find_spec("tensorboard") is None
    except (ImportError, ValueError):   # a hidden or broken installation
        return True


def _needs_tensorboard(item) -> bool:
    if item.get_closest_marker("tensorboard") is not None:
        return True
    case = getattr(getattr(item, "callspec", None), "params", {}).get("case")
    op_type = getattr(case, "op_type", None)
    if not isinstance(op_type, str):
        return False
    try:
        return type(get_op_def(op_type)).__module__.startswith(_SUMMARY_OPS_PACKAGE)
    except KeyError:
        return False


def pytest_collection_modifyitems(config, items):
    if _tensorboard_missing():
        skip = pytest.mark.skip(reason=_TENSORBOARD_REASON)
        for item in items:
            if _needs_tensorboard(item):
                item.add_marker(skip)
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items:
        return
    from staticgraph.session.ort_device import cuda_status
    usable, why = cuda_status()
    if usable:
        return
    skip = pytest.mark.skip(reason=f"needs a CUDA GPU: {why}")
    for item in gpu_items:
        item.add_marker(skip)
