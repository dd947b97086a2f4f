"""Where onnxruntime runs: CUDA only where it really works, else CPU with one warning.

CUDA counts as working when this onnxruntime build lists the CUDA provider, the
NVIDIA driver library loads and reports a device, and a session created with the
provider actually has it in ``get_providers()``. ``onnxruntime.preload_dlls()``
is called first when the CUDA/cuDNN pip packages (``nvidia-*``) are installed.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import sys
import threading
import warnings

__all__ = ["DeviceFallbackWarning", "cuda_status", "normalize_device", "make_session",
           "device_name"]

_CUDA = "CUDAExecutionProvider"
_CPU = "CPUExecutionProvider"
_warned = set()
_warn_lock = threading.Lock()


class DeviceFallbackWarning(UserWarning):
    """CUDA was asked for but cannot be used; the session runs on the CPU."""


def normalize_device(device) -> str | None:
    """``"cpu"``, ``"cuda"`` or None (choose) from ``"gpu"``, ``"/gpu:0"``, ``"/device:GPU:0"``…"""
    if device is None or device == "":
        return None
    text = str(device).lower()
    if "gpu" in text or "cuda" in text:
        return "cuda"
    if "cpu" in text:
        return "cpu"
    raise ValueError(f"device must be 'cpu', 'cuda' (or 'gpu', '/gpu:0', '/cpu:0'), "
                     f"got {device!r}")


def device_name(device: str) -> str:
    """TF1's full device name of ``"cpu"`` / ``"cuda"``."""
    kind = "GPU" if device == "cuda" else "CPU"
    return f"/job:localhost/replica:0/task:0/device:{kind}:0"


@functools.lru_cache(maxsize=None)
def cuda_status() -> tuple[bool, str]:
    """``(usable, reason)``: whether onnxruntime's CUDA provider can run here."""
    import onnxruntime as ort
    ort.set_default_logger_severity(3)  # our warning replaces onnxruntime's raw log lines
    if _CUDA not in ort.get_available_providers():
        return False, ("this onnxruntime build has no CUDA provider (install the GPU build: "
                       "pip install onnxruntime-gpu)")
    if importlib.util.find_spec("nvidia") is not None and hasattr(ort, "preload_dlls"):
        try:
            ort.preload_dlls()
        except Exception:  # noqa: BLE001 - the driver check below gives the reason
            pass
    lib = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
    try:
        cuda = ctypes.CDLL(lib)
    except OSError:
        return False, f"the NVIDIA driver library ({lib}) cannot be loaded: no GPU driver"
    count = ctypes.c_int(0)
    try:
        if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return False, "the NVIDIA driver found no usable CUDA device"
    except AttributeError:
        return False, f"{lib} is not a CUDA driver library"
    if count.value < 1:
        return False, "the NVIDIA driver reports no CUDA device"
    return True, ""


def make_session(model_bytes, device, options, explicit):
    """An ``InferenceSession`` on ``device`` (``"cpu"``/``"cuda"``); returns it and the
    device it really uses. An ``explicit`` CUDA request that cannot be met warns once."""
    import onnxruntime as ort
    if device == "cuda":
        ok, why = cuda_status()
        if ok:
            session = ort.InferenceSession(model_bytes, options, providers=[_CUDA, _CPU])
            if _CUDA in session.get_providers():
                return session, "cuda"
            why = "onnxruntime created the session without its CUDA provider"
        if explicit:
            _warn_once(why)
    return ort.InferenceSession(model_bytes, options, providers=[_CPU]), "cpu"


def _warn_once(why):
    with _warn_lock:
        if why in _warned:
            return
        _warned.add(why)
    warnings.warn(f"staticgraph: CUDA was requested but cannot be used: {why}. Running on "
                  f"the CPU with onnxruntime instead.", DeviceFallbackWarning, stacklevel=4)
