"""The errors a run raises, worded once for every backend.

Each names what the user declared: the op (the user's, not an optimizer rewrite),
its type and the ``file:line`` that declared it, as TF1's ``[[node ...]]`` suffix.
"""

from __future__ import annotations

from .. import errors

__all__ = ["closed_during_run", "raise_closed", "uninitialized_error", "unfed_placeholder_error",
           "node_context", "uninitialized_hint"]


def raise_closed():
    """Raise the RuntimeError of a run on a closed session."""
    raise RuntimeError("Attempted to use a closed Session.")


def closed_during_run():
    """The error of a run that was in flight when its session was closed."""
    return errors.CancelledError(None, None, "Session was closed while this run was in "
                                             "flight: it was cancelled.")


def node_context(op, shapes=None) -> str:
    """TF1's ``[[node ...]]`` suffix naming ``op`` (the user's op), its type, the input
    ``shapes`` (strings; None leaves them out) and the line that declared it."""
    if shapes is None:
        return f"\n\t [[node {op.name} (op: {op.type}) defined at {op.user_location} ]]"
    return (f"\n\t [[node {op.name} (op: {op.type}, input shapes: {', '.join(shapes)}) "
            f"defined at {op.user_location} ]]")


def uninitialized_hint(name) -> str:
    """How to give variable ``name`` a value."""
    return (f"Initialize it first: run sess.run(tf.global_variables_initializer()) or "
            f"sess.run({name}.initializer)")


def uninitialized_error(missing, origin):
    """The FailedPreconditionError for reading variables ``[(name, op)]`` without values."""
    name, op = missing[0]
    op = origin(op)
    return errors.FailedPreconditionError(
        None, op,
        f"Attempting to use uninitialized value {name}\n\t [[node {name} (defined at "
        f"{op.user_location}) ]]\n{uninitialized_hint(name)}"
        + (f"; uninitialized too: {', '.join(n for n, _ in missing[1:])}"
           if len(missing) > 1 else ""))


def unfed_placeholder_error(op, origin):
    """The InvalidArgumentError for placeholder ``op`` that a run needs but nobody fed."""
    t = op.outputs[0]
    user = origin(op)
    return errors.InvalidArgumentError(
        None, user,
        f"You must feed a value for placeholder tensor '{user.name}' with dtype "
        f"{t.dtype.name} and shape {t.shape.as_proto_string()}\n\t [[node {user.name} "
        f"(defined at {user.user_location}) ]]")
