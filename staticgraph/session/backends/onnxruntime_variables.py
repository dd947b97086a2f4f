"""Variable values that live in onnxruntime between runs, copied to numpy on demand.

A session on the onnxruntime backend keeps each variable as an ``OrtValue`` (on
the GPU with CUDA) while its plans run; the numpy side (``Saver``, numpy plans,
``IsVariableInitialized``) sees an ordinary ``dict`` of arrays. A value is copied to
the host only when the host asks for it, and the device copy is dropped when the
host writes a new value.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

__all__ = ["VariableStore", "SharedConstants"]


class VariableStore(dict):
    """``{variable op name: numpy value}`` with a device side (``device``).

    An entry may be valid on the host (a dict item), on the device (``device``), or
    both. Host reads of a device-only value copy it to the host first.
    """

    def __init__(self):
        super().__init__()
        self.device = {}   # name -> OrtValue (the current value when present)
        self.constants = SharedConstants()  # large constants, shared by the plans

    # ------------------------------------------------------------- host side
    def __missing__(self, name):
        value = self.device.get(name)
        if value is None:
            raise KeyError(name)
        host = value.numpy()
        if host.base is not None or not host.flags.writeable:
            host = np.array(host, copy=True)
        dict.__setitem__(self, name, host)
        return host

    def __contains__(self, name):
        return dict.__contains__(self, name) or name in self.device

    def __setitem__(self, name, value):
        dict.__setitem__(self, name, value)
        self.device.pop(name, None)

    def __delitem__(self, name):
        found = name in self
        dict.pop(self, name, None)
        self.device.pop(name, None)
        if not found:
            raise KeyError(name)

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def pop(self, name, *default):
        try:
            value = self[name]
        except KeyError:
            if default:
                return default[0]
            raise
        del self[name]
        return value

    def update(self, *args, **kwargs):
        for name, value in dict(*args, **kwargs).items():
            self[name] = value

    def clear(self):
        dict.clear(self)
        self.device.clear()

    def keys(self):
        return list(dict.keys(self)) + [n for n in self.device if not dict.__contains__(self, n)]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def items(self):
        return [(n, self[n]) for n in self.keys()]

    def values(self):
        return [self[n] for n in self.keys()]

    # ----------------------------------------------------------- device side
    def device_value(self, name, make):
        """The device value of ``name``, made from the host value with ``make(array)``
        (and kept) when the device has none. KeyError when neither side has one."""
        value = self.device.get(name)
        if value is None:
            host = dict.__getitem__(self, name)
            value = self.device[name] = make(host)
        return value

    def set_device(self, name, value):
        """Store a new device value; the host copy is stale and dropped."""
        self.device[name] = value
        dict.pop(self, name, None)

    def host_written(self, names):
        """The host changed these values in place: drop their device copies."""
        for name in names:
            if dict.__contains__(self, name):
                self.device.pop(name, None)


class SharedConstants:
    """One OrtValue per large constant (by device and content) for all plans of a
    session; an entry lives while a plan holds it."""

    def __init__(self):
        self._values = weakref.WeakValueDictionary()
        self._lock = threading.Lock()

    def get(self, device, key, array):
        """The shared OrtValue of ``array`` on ``device`` (``key``: its content)."""
        import onnxruntime as ort
        with self._lock:
            value = self._values.get((device, key))
            if value is None:
                # On the CPU the OrtValue uses the array's memory (no copy); the array
                # is the only other copy, and the plan's model no longer holds one.
                value = ort.OrtValue.ortvalue_from_numpy(array, device, 0)
                self._values[(device, key)] = value
            return value

    def __len__(self):
        return len(self._values)

    def clear(self):
        with self._lock:
            self._values.clear()
