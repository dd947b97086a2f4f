"""Op and scope names: TF1's validity rules and the per-graph unique-name counter.

:class:`OpNamingMixin` gives :class:`~staticgraph.graphlib.graph.Graph` its
``unique_name`` (``add``, ``add_1`` … under the current name scope) and the
``_unique_op_name`` fast path ``create_op`` uses; it works on the graph's
``_names_in_use`` dict (lower-cased name -> next suffix). ``valid_op_name`` and
``invalid_name_message`` check and explain op names.
"""

from __future__ import annotations

import re

from .user_frame import format_frame

__all__ = ["OpNamingMixin", "VALID_OP_NAME", "VALID_SCOPE_NAME", "valid_op_name",
           "invalid_name_message"]

# TF1's rules for op and scope names.
VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class OpNamingMixin:
    """``Graph``'s unique names; needs ``self._names_in_use`` and ``self._name_stack``."""

    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """``name`` under the current name scope, suffixed ``_1``, ``_2`` … if taken."""
        if self._name_stack:
            name = f"{self._name_stack}/{name}"
        key = name.lower()
        i = self._names_in_use.get(key, 0)
        if mark_as_used:
            self._names_in_use[key] = i + 1
        if i > 0:
            base = key
            while key in self._names_in_use:
                key = f"{base}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[key] = 1
            name = f"{name}_{i - 1}"
        return name

    def _unique_op_name(self, name, scope, frame):
        """:meth:`unique_name` for a new op (marks it used), checked against TF1's rule."""
        full = f"{scope}/{name}" if scope else name
        key = full.lower()
        names = self._names_in_use
        i = names.get(key, 0)
        names[key] = i + 1
        if i > 0:
            base = key
            key = f"{base}_{i}"
            while key in names:
                i += 1
                key = f"{base}_{i}"
            names[key] = 1
            name = f"{full}_{i}"
        else:
            name = full
        # A suffix ``_<n>`` never changes validity, so the check uses the requested name.
        if not valid_op_name(full):
            raise ValueError(invalid_name_message(name, frame))
        return name


_VALID_NAMES: dict = {}   # requested op name -> valid (bounded memo of the regex)


def valid_op_name(name) -> bool:
    """True when ``name`` follows TF1's op-name rule (memoized: names repeat)."""
    ok = _VALID_NAMES.get(name)
    if ok is None:
        if len(_VALID_NAMES) >= 1 << 14:
            _VALID_NAMES.clear()
        ok = _VALID_NAMES[name] = VALID_OP_NAME.match(name) is not None
    return ok


def invalid_name_message(name, frame) -> str:
    """The ValueError text for an invalid op name declared at ``frame``."""
    return (f"'{name}' is not a valid node name: op names contain letters, digits, '.', '_', "
            "'-', '/' and '>', and start with a letter, digit or '.'. Declared at "
            f"{format_frame(frame)}.")
