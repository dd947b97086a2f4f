"""``collector_paused``: pauses Python's cyclic garbage collector while many
long-lived objects are built at once (the gradient engine, the optimizer pipeline
and the session's plan compiler use it on large graphs).
"""

import gc

__all__ = ["collector_paused"]


class collector_paused:
    """Context manager: Python's cyclic garbage collector pauses inside.

    For operations that build many long-lived objects at once (differentiating,
    optimizing or compiling a large graph): CPython otherwise re-scans every object
    of the graph each time the young objects pass a threshold, which makes such
    operations several times slower and no longer linear. Nesting and concurrent
    use are safe; the collector runs again afterwards if it ran before.
    """

    __slots__ = ("_was_enabled",)

    def __enter__(self):
        self._was_enabled = gc.isenabled()
        if self._was_enabled:
            gc.disable()
        return self

    def __exit__(self, *exc):
        if self._was_enabled:
            gc.enable()
        return False
