"""``tf.random``: random ops under TF1's ``tf.random`` path (``tf.random.normal``, …)."""

from .not_provided import missing_attribute as _missing_attribute
from .graphlib.default_graph import get_seed, set_random_seed
from .ops import random_ops as _random_ops

_ALIASES = {"normal": "random_normal", "uniform": "random_uniform",
            "truncated_normal": "truncated_normal", "shuffle": "random_shuffle",
            "categorical": "categorical", "multinomial": "multinomial"}
for _alias, _name in _ALIASES.items():
    if hasattr(_random_ops, _name):
        globals()[_alias] = getattr(_random_ops, _name)
del _alias, _name

__all__ = ["get_seed", "set_random_seed"] + list(_ALIASES)


def __getattr__(name):
    raise _missing_attribute("tf.random", name)
