"""The default session stack (``Session.as_default()``), kept in a ``contextvars`` variable."""

from __future__ import annotations

import contextlib
import contextvars

__all__ = ["get_default_session", "session_as_default", "session_for"]

_session_stack: contextvars.ContextVar = contextvars.ContextVar("staticgraph_sessions",
                                                                default=())


def get_default_session():
    """The innermost session entered with ``as_default()`` (or ``with Session()``), or None."""
    stack = _session_stack.get()
    return stack[-1] if stack else None


@contextlib.contextmanager
def session_as_default(session):
    """Make ``session`` the default session inside the block."""
    token = _session_stack.set(_session_stack.get() + (session,))
    try:
        yield session
    finally:
        _session_stack.reset(token)


def push_default_session(session):
    """Make ``session`` the default until :func:`pop_default_session` (InteractiveSession)."""
    return _session_stack.set(_session_stack.get() + (session,))


def pop_default_session(session, token):
    """Undo :func:`push_default_session` where possible."""
    try:
        _session_stack.reset(token)
    except ValueError:  # closed from another context: drop it from this one's stack
        _session_stack.set(tuple(s for s in _session_stack.get() if s is not session))


def session_for(session, graph):
    """``session`` or the default one, checked to run ``graph``.

    Raises:
        ValueError: no session is given nor default, or it runs another graph.
    """
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                             "registered. Use `with sess.as_default()` or pass an explicit "
                             "session to `eval(session=sess)`")
    if session.graph is not graph:
        raise ValueError(f"Cannot use the given session to evaluate tensor: the tensor's graph "
                         f"({graph.describe()}) is different from the session's graph "
                         f"({session.graph.describe()}).")
    return session
