"""Suite-wide hooks: tests marked ``gpu`` run only where onnxruntime's CUDA provider works."""

import pytest


def pytest_collection_modifyitems(config, items):
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
