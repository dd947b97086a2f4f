"""Per-session state that kernels reach: variable values and random streams."""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["Runtime"]


class Runtime:
    """What a Session owns across runs.

    Attributes:
        variables: variable op name -> current numpy value.
        rngs: random op name -> ``numpy.random.Generator`` (one stream per op).
        update_lock: taken by kernels that read and then write a variable.
    """

    def __init__(self, variables=None):
        self.variables = variables if variables is not None else {}
        self.rngs = {}
        self._lock = threading.Lock()
        # Held by read-modify-write kernels (assign_add, ...) so concurrent runs
        # never lose an update.
        self.update_lock = threading.Lock()

    def close(self):
        """Release the variable values."""
        self.variables.clear()

    def rng(self, op, seed_pair):
        """The random stream of ``op`` in this session, created on first use.

        ``seed_pair`` is TF1's ``(graph_seed, op_seed)``; ``(None, None)`` draws a
        fresh seed. Seeded streams are identical across sessions.
        """
        with self._lock:
            gen = self.rngs.get(op.name)
            if gen is None:
                graph_seed, op_seed = seed_pair
                if graph_seed is None and op_seed is None:
                    gen = np.random.default_rng()
                else:
                    gen = np.random.Generator(np.random.PCG64([int(graph_seed) & 0xFFFFFFFF,
                                                               int(op_seed) & 0xFFFFFFFF]))
                self.rngs[op.name] = gen
            return gen
