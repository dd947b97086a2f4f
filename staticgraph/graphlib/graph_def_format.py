"""The GraphDef container, its JSON text, the format's constants and load limits.

:class:`GraphDef` is a JSON-serialisable dict plus ``tensors`` (its large arrays);
:func:`parse_json` strictly parses JSON text and verifies its ``sha256``. The limits
below bound what a loader allocates for an untrusted description, and
:class:`InvalidGraphDefError` is what a malformed one raises. Attribute values are
encoded by :mod:`.graph_def_attrs`, descriptions checked by :mod:`.graph_def_checks`.
"""

from __future__ import annotations

import hashlib
import json

from ..errors import DataLossError, InvalidArgumentError

FORMAT = "staticgraph.GraphDef"
VERSION = 1

# Limits applied while loading (a description beyond them is refused, not allocated).
MAX_JSON_BYTES = 1 << 30        # 1 GiB of JSON text
MAX_OPS = 5_000_000
MAX_DEPTH = 32                  # nesting of attribute values
MAX_LIST = 1 << 22              # items of one attribute list / collection
MAX_RANK = 64
MAX_DIM = 1 << 40
MAX_ARRAY_ELEMENTS = 1 << 31
MAX_OUTPUTS = 1 << 16
INLINE_BYTES = 1024             # arrays larger than this go to the sidecar

# Collections holding Python objects of variable_scope: never written, never read.
_PRIVATE_COLLECTIONS = frozenset({"__variable_store", "__varscope"})


class InvalidGraphDefError(InvalidArgumentError, ValueError):
    """A GraphDef that cannot be imported (bad structure, types, names or references).

    It is an :class:`~staticgraph.errors.InvalidArgumentError` and, as TF1 documents
    for ``import_graph_def``, a ``ValueError``.
    """

    def __init__(self, message, *args):
        InvalidArgumentError.__init__(self, None, None, message)


def _bad(message):
    return InvalidGraphDefError(message)


class GraphDef(dict):
    """A graph description: a JSON-serialisable dict plus ``tensors``, its large arrays.

    ``tensors`` maps the ``ref`` keys of sidecar arrays to numpy arrays (empty when
    every array is inline). ``json.dumps(graph_def)`` works; :meth:`to_json` adds a
    checksum that :meth:`from_json` verifies.
    """

    def __init__(self, data=(), tensors=None):
        super().__init__(data)
        self.tensors = dict(tensors or {})

    def to_json(self, indent=None, extra=None) -> str:
        """The description as JSON text, with a ``sha256`` of its canonical content."""
        body = {k: v for k, v in self.items() if k != "sha256"}
        if extra:
            body.update(extra)
        body["sha256"] = content_digest(body)
        return json.dumps(body, indent=indent, allow_nan=False, ensure_ascii=True)

    @classmethod
    def from_json(cls, text, tensors=None, max_bytes=MAX_JSON_BYTES) -> "GraphDef":
        """Parse (and checksum-verify) JSON text; DataLossError when it is not valid."""
        data = parse_json(text, max_bytes)
        return cls(data, tensors)

    @property
    def ops(self) -> list:
        """The op entries in creation order."""
        return self.get("ops", [])


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# ------------------------------------------------------------------------ JSON text
def content_digest(body) -> str:
    """sha256 of ``body``'s canonical JSON (sorted keys, no spaces)."""
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False,
                       ensure_ascii=True)
    return hashlib.sha256(canon.encode("ascii")).hexdigest()


def _reject_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def _no_duplicate_keys(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def parse_json(text, max_bytes=MAX_JSON_BYTES, what="graph description") -> dict:
    """Strictly parse JSON text (bytes or str) into a dict and verify its ``sha256``.

    Raises:
        DataLossError: text that is not strict UTF-8 JSON, too large, too deeply
            nested, or whose checksum does not match its content.
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        if len(text) > max_bytes:
            raise InvalidGraphDefError(f"The {what} is {len(text)} bytes, above the limit of "
                                       f"{max_bytes} bytes.")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataLossError(None, None, f"The {what} is not UTF-8 text: {exc}") from None
    elif not isinstance(text, str):
        raise TypeError(f"Expected JSON text (str or bytes), got {type(text).__name__}.")
    if len(text) > max_bytes:
        raise InvalidGraphDefError(f"The {what} is {len(text)} characters, above the limit "
                                   f"of {max_bytes}.")
    try:
        data = json.loads(text, parse_constant=_reject_constant,
                          object_pairs_hook=_no_duplicate_keys)
    except RecursionError:
        raise DataLossError(None, None, f"The {what} is nested too deeply.") from None
    except (ValueError, TypeError) as exc:   # JSONDecodeError, huge ints, duplicate keys
        raise DataLossError(None, None, f"The {what} is not valid JSON ({exc}); the "
                                        "file may be truncated or corrupted.") from None
    if not isinstance(data, dict):
        raise DataLossError(None, None, f"The {what} is not a JSON object.")
    digest = data.pop("sha256", None)
    if digest is not None and digest != content_digest(data):
        raise DataLossError(None, None, f"The {what}'s checksum does not match its content: "
                                        "the file is corrupted.")
    return data
