"""Finding the user's line: the first stack frame outside the staticgraph package."""

from __future__ import annotations

import os
import sys

__all__ = ["UserFrame", "capture_user_frame", "format_frame"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class UserFrame(tuple):
    """``(filename, lineno, function)`` of the user code that declared something."""

    __slots__ = ()

    @property
    def filename(self) -> str:
        return self[0]

    @property
    def lineno(self) -> int:
        return self[1]

    @property
    def function(self) -> str:
        return self[2]

    def __str__(self):
        return f"{self[0]}:{self[1]}"


def capture_user_frame(skip: int = 1):
    """The innermost frame that is not inside staticgraph, as a :class:`UserFrame`.

    Cheap: stores three fields, formats nothing. Returns None when every frame is
    internal (for example, ops created by staticgraph itself at import time).
    """
    frame = sys._getframe(skip)
    while frame is not None:
        code = frame.f_code
        if not code.co_filename.startswith(_PACKAGE_DIR):
            return UserFrame((code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    return None


def format_frame(frame) -> str:
    """``file:line`` text for a frame, or ``<unknown>``."""
    return "<unknown>" if frame is None else f"{frame[0]}:{frame[1]}"
