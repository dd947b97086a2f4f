"""TF1's error classes (``tf.errors``): every runtime failure is an :class:`OpError`.

Each error carries the failing ``op`` (or None) and, when one is known, the user's
file and line that declared it, so messages point at the user's code.
"""

from __future__ import annotations

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError",
    "UnimplementedError", "InternalError", "UnavailableError", "DataLossError",
    "exception_type_from_error_code", "error_code_from_exception_type",
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
]

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = 10, 11, 12, 13, 14, 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running a graph.

    Attributes:
        node_def: the failing op's name and type (a string here), or None.
        op: the failing :class:`~staticgraph.graphlib.Operation`, or None.
        message: the message without the op context.
        error_code: TF1's numeric code.
    """

    error_code = UNKNOWN

    def __init__(self, node_def, op, message, error_code=None):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        if error_code is not None:
            self.error_code = error_code

    def __str__(self):
        return self.message

    def __reduce__(self):
        # The op (and its graph) stays behind: errors cross process boundaries without it.
        return type(self), (self.node_def, None, self.message)


def _make(name, code, doc):
    cls = type(name, (OpError,), {"error_code": code, "__doc__": doc})

    def __init__(self, node_def=None, op=None, message="", *args):
        OpError.__init__(self, node_def, op, message)

    cls.__init__ = __init__
    return cls


CancelledError = _make("CancelledError", CANCELLED, "The operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
                             "An op received an invalid argument (bad value or shape).")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND,
                      "A requested entity (file, tensor) was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "No valid credentials.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                               "A resource (such as memory) was exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the op "
                                "(e.g. an uninitialized variable was read).")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "Iteration went past the valid range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")

_BY_CODE = {cls.error_code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, UnauthenticatedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError)}


def exception_type_from_error_code(error_code):
    """The :class:`OpError` subclass of TF1's numeric ``error_code``; KeyError if none."""
    try:
        return _BY_CODE[error_code]
    except KeyError:
        raise KeyError(f"No OpError subclass has error code {error_code!r}") from None


def error_code_from_exception_type(cls):
    """TF1's numeric code of an :class:`OpError` subclass; KeyError if not one."""
    if isinstance(cls, type) and issubclass(cls, OpError):
        return cls.error_code
    raise KeyError(f"{cls!r} is not an OpError subclass")
