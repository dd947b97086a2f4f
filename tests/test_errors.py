"""staticgraph.errors: TF1's error classes, codes and what they carry."""

import copy

import pytest

import staticgraph as tf
from staticgraph import errors

CLASSES = [
    ("CancelledError", 1), ("UnknownError", 2), ("InvalidArgumentError", 3),
    ("DeadlineExceededError", 4), ("NotFoundError", 5), ("AlreadyExistsError", 6),
    ("PermissionDeniedError", 7), ("ResourceExhaustedError", 8),
    ("FailedPreconditionError", 9), ("AbortedError", 10), ("OutOfRangeError", 11),
    ("UnimplementedError", 12), ("InternalError", 13), ("UnavailableError", 14),
    ("DataLossError", 15), ("UnauthenticatedError", 16),
]


@pytest.mark.parametrize("name,code", CLASSES)
def test_classes_and_codes(name, code):
    cls = getattr(errors, name)
    assert issubclass(cls, errors.OpError) and issubclass(cls, Exception)
    assert cls.error_code == code
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code
    err = cls(None, None, "something failed")
    assert err.message == "something failed" and str(err) == "something failed"
    assert err.op is None and err.node_def is None and err.error_code == code
    assert cls.__doc__
    assert getattr(tf.errors, name) is cls


def test_code_constants():
    assert errors.OK == 0 and errors.INVALID_ARGUMENT == 3 and errors.FAILED_PRECONDITION == 9
    assert errors.OUT_OF_RANGE == 11 and errors.UNAUTHENTICATED == 16
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(99)
    with pytest.raises(KeyError):
        errors.error_code_from_exception_type(ValueError)


def test_op_error_carries_the_op_and_copies_without_it():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, name="x")
    err = errors.InvalidArgumentError("x = Placeholder()", x.op, "bad")
    assert err.op is x.op and err.node_def == "x = Placeholder()"
    base = errors.OpError(None, None, "generic", errors.ABORTED)
    assert base.error_code == errors.ABORTED
    copied = copy.deepcopy(errors.NotFoundError(None, None, "missing"))
    assert isinstance(copied, errors.NotFoundError) and copied.message == "missing"
    copied = copy.deepcopy(err)       # the op stays behind
    assert isinstance(copied, errors.InvalidArgumentError) and copied.op is None
    assert copied.message == "bad" and copied.node_def == "x = Placeholder()"


def test_catching_by_base_class():
    with pytest.raises(errors.OpError):
        raise errors.OutOfRangeError(None, None, "end of sequence")


def test_declaration_errors_are_tf1_types_and_name_the_users_line():
    """A dtype mismatch reads like every other declaration error: TF1's exception type
    (not an OpError), the op's type and would-be name, and the user's file:line."""
    here = test_declaration_errors_are_tf1_types_and_name_the_users_line.__code__.co_filename
    g = tf.Graph()
    with g.as_default():
        i = tf.constant([1, 2], name="i")
        f = tf.constant([1.0, 2.0], name="f")
        caught = []
        for declare, kind in ((lambda: tf.add(i, f), TypeError),
                              (lambda: tf.reshape(f, [3]), ValueError)):
            with pytest.raises(kind) as info:
                declare()
            assert not isinstance(info.value, errors.OpError)
            line = declare.__code__.co_firstlineno
            assert str(info.value).endswith(f"Declared at {here}:{line}."), str(info.value)
            caught.append(str(info.value))
    assert "Input 'y' of 'Add' Op has type float32 that does not match type int32 of " \
           "argument 'x' for 'Add' (op: 'Add')" in caught[0]
    assert "for 'Reshape' (op: 'Reshape')" in caught[1]
