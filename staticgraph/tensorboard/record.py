"""TFRecord framing and CRC-32C (Castagnoli), as TensorFlow's event files use them.

A record is ``uint64 length | uint32 masked_crc32c(length) | data | uint32
masked_crc32c(data)``, all little-endian. The CRC is computed in Python from a
256-entry table (or by the ``google_crc32c`` C extension when it is installed).
"""

from __future__ import annotations

import struct

__all__ = ["crc32c", "masked_crc32c", "encode_record", "read_records"]

_POLY = 0x82F63B78          # CRC-32C polynomial, bit-reversed


def _make_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_TABLE = _make_table()


def _crc32c_python(data: bytes, crc: int = 0) -> int:
    table = _TABLE
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _load_fast():
    """``google_crc32c``'s C implementation when installed (same numbers, faster)."""
    try:
        import google_crc32c  # type: ignore
    except Exception:  # noqa: BLE001 - any failure means: use the table
        return None
    if getattr(google_crc32c, "implementation", "") != "c":
        return None
    return lambda data, crc=0: google_crc32c.extend(crc, bytes(data))


_crc32c_fast = _load_fast()


def crc32c(data: bytes, crc: int = 0) -> int:
    """CRC-32C of ``data`` (continuing from ``crc``).

    Example: ``crc32c(b"123456789") == 0xE3069283``.
    """
    if _crc32c_fast is not None and len(data) > 64:
        return _crc32c_fast(data, crc)
    return _crc32c_python(data, crc)


def masked_crc32c(data: bytes) -> int:
    """TFRecord's masked CRC: ``rotate_right(crc, 15) + 0xa282ead8`` (mod 2**32)."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def encode_record(data: bytes) -> bytes:
    """One TFRecord: length, masked CRC of the length, data, masked CRC of the data."""
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", masked_crc32c(header)) + data
            + struct.pack("<I", masked_crc32c(data)))


def read_records(path):
    """Yield the data of each record in the TFRecord file ``path``, checking both CRCs.

    Raises:
        ValueError: a truncated record or a CRC mismatch.
    """
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if not header:
                return
            if len(header) < 12:
                raise ValueError(f"{path}: truncated record header")
            length, crc = struct.unpack("<QI", header)
            if masked_crc32c(header[:8]) != crc:
                raise ValueError(f"{path}: length CRC mismatch")
            data = f.read(length)
            footer = f.read(4)
            if len(data) < length or len(footer) < 4:
                raise ValueError(f"{path}: truncated record")
            if masked_crc32c(data) != struct.unpack("<I", footer)[0]:
                raise ValueError(f"{path}: data CRC mismatch")
            yield data
