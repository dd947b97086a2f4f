"""TF1's renamed keyword arguments: a function accepts the new name and the old one.

TF1 renamed many keywords (``reduction_indices`` -> ``axis``, ``keep_dims`` ->
``keepdims``, ``dim`` -> ``axis``, ``value`` -> ``input``, ``filter`` -> ``filters``,
``keep_prob`` -> ``rate``) and kept the old ones working; giving both is an error
worded as TF1 words it.
"""

from __future__ import annotations

__all__ = ["deprecated_argument_lookup"]


def deprecated_argument_lookup(new_name, new_value, old_name, old_value):
    """The value given under the new name or the old one (None when neither).

    Raises:
        ValueError: both were given ("Cannot specify both '<old>' and '<new>'", TF1's
            message).
    """
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
        return old_value
    return new_value
